//! How text becomes the words an index holds and a query asks for: the
//! same function on both sides, so a word matches whatever its case.
//!
//! - A word is a run of letters and digits (`char::is_alphanumeric`),
//!   lowercased (`char::to_lowercase`, which knows every script's case):
//!   `Fan-out` gives `fan` and `out`, `C++` gives `c`, `Ünïcode` gives
//!   `ünïcode`.
//! - Han, kana and Hangul are written without spaces, so a run of them is
//!   indexed as its overlapping pairs of characters (as Lucene's
//!   `CJKAnalyzer` does): `数据处理` gives `数据`, `据处`, `处理`, and a
//!   query for `数据` finds it. A lone character is a word of its own.
//! - A word is cut to its first [`MAX_WORD`] bytes (at a character's
//!   boundary), on both sides alike.
//!
//! Not done: accents are kept (`análisis` does not find `analisis`), and
//! words are not stemmed (`connectors` does not find `connector`); both
//! depend on the language, and a site may be in any.

/// The most bytes of a word the index keeps.
pub const MAX_WORD: usize = 64;

/// The words of `text`, in order, repeats kept.
///
/// ```
/// use foundry_catalog_search::words;
/// assert_eq!(words("Webhook fan-out, v2!"), ["webhook", "fan", "out", "v2"]);
/// assert_eq!(words("数据处理 API"), ["数据", "据处", "处理", "api"]);
/// ```
pub fn words(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for_each_word(text, |word| out.push(word.to_owned()));
    out
}

/// Each of the words of `text` ([`words`]), in order, given to `f`
/// without a copy of its own (an index adds millions).
pub(crate) fn for_each_word(text: &str, mut f: impl FnMut(&str)) {
    let mut word = String::new();
    let mut pairs: Vec<char> = Vec::new();
    let mut pair = String::new();
    let flush_word = |word: &mut String, f: &mut dyn FnMut(&str)| {
        if !word.is_empty() {
            f(cut(word));
            word.clear();
        }
    };
    let mut flush_pairs = |pairs: &mut Vec<char>, f: &mut dyn FnMut(&str)| {
        if pairs.len() == 1 {
            pair.clear();
            pair.push(pairs[0]);
            f(&pair);
        }
        for two in pairs.windows(2) {
            pair.clear();
            pair.extend(two);
            f(&pair);
        }
        pairs.clear();
    };
    let f: &mut dyn FnMut(&str) = &mut f;
    for c in text.chars() {
        // Most text of most catalogs is ASCII: its case needs no tables.
        if c.is_ascii() {
            if c.is_ascii_alphanumeric() {
                flush_pairs(&mut pairs, f);
                word.push(c.to_ascii_lowercase());
            } else {
                flush_word(&mut word, f);
                flush_pairs(&mut pairs, f);
            }
        } else if is_unspaced(c) {
            flush_word(&mut word, f);
            pairs.push(c);
        } else if c.is_alphanumeric() {
            flush_pairs(&mut pairs, f);
            word.extend(c.to_lowercase());
        } else {
            flush_word(&mut word, f);
            flush_pairs(&mut pairs, f);
        }
    }
    flush_word(&mut word, f);
    flush_pairs(&mut pairs, f);
}

/// `word` cut to at most [`MAX_WORD`] bytes, at a character's boundary.
fn cut(word: &str) -> &str {
    let mut end = word.len().min(MAX_WORD);
    while !word.is_char_boundary(end) {
        end -= 1;
    }
    &word[..end]
}

/// Whether `c` belongs to a script written without spaces between words:
/// Han (CJK Unified Ideographs and their extensions, compatibility
/// ideographs), Hiragana, Katakana and Hangul.
fn is_unspaced(c: char) -> bool {
    matches!(u32::from(c),
        0x3040..=0x30FF        // Hiragana, Katakana
        | 0x31F0..=0x31FF      // Katakana phonetic extensions
        | 0x3400..=0x4DBF      // CJK extension A
        | 0x4E00..=0x9FFF      // CJK unified ideographs
        | 0xAC00..=0xD7AF      // Hangul syllables
        | 0xF900..=0xFAFF      // CJK compatibility ideographs
        | 0xFF66..=0xFF9F      // half-width Katakana
        | 0x20000..=0x3134F    // CJK extensions B to G
    )
}

#[cfg(test)]
mod tests {
    use super::{MAX_WORD, words};

    #[test]
    fn words_are_lowercased_runs_of_letters_and_digits() {
        assert_eq!(words("Webhook FAN-out_2"), ["webhook", "fan", "out", "2"]);
        assert_eq!(words("  ...  "), Vec::<String>::new());
        assert_eq!(words("İstanbul ΣΊΣΥΦΟΣ"), ["i\u{307}stanbul", "σίσυφοσ"]);
        assert_eq!(words("تحليل المخاطر"), ["تحليل", "المخاطر"]);
    }

    #[test]
    fn unspaced_scripts_give_pairs_of_characters() {
        assert_eq!(words("数据处理"), ["数据", "据处", "处理"]);
        assert_eq!(words("数"), ["数"]);
        assert_eq!(words("データ分析tool"), ["デー", "ータ", "タ分", "分析", "tool"]);
        assert_eq!(words("한국어 검색"), ["한국", "국어", "검색"]);
    }

    #[test]
    fn a_long_word_is_cut_at_a_character_boundary() {
        let long = "é".repeat(100);
        let cut = &words(&long)[0];
        assert!(cut.len() <= MAX_WORD && cut.len() > MAX_WORD - 2);
        assert!(long.starts_with(cut.as_str()));
    }
}
