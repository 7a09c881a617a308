//! What a build warns about a product whose page it makes, but that a
//! search engine or a visitor would fault: each a sentence with a hint,
//! which the caller prints after the manifest's name (`build`, `pages`,
//! `serve` on a folder). A warning never fails a build.
//!
//! - [`of`]: a dataset whose description (`seo.description`, the
//!   description of its `Dataset` JSON-LD) is shorter than Google's
//!   Dataset results take ([`DATASET_DESCRIPTION`]);
//! - [`duplicates`]: products with the same title, or the same summary,
//!   as another (compared without case and runs of whitespace): lists and
//!   search results would show two products a visitor cannot tell apart.
//!
//! Only indexable products are judged: a `noindex` page is in no list,
//! no sitemap and no search engine.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::ops::RangeInclusive;

use foundry_catalog::product::{ProductRecord, Route};

use crate::list::Card;

/// How many characters Google's Dataset results take of a dataset's
/// description (<https://developers.google.com/search/docs/appearance/structured-data/dataset>);
/// the page's own limit ([`crate::Pages::MAX_SEO_DESCRIPTION`]) is lower
/// at the top, and an error.
pub const DATASET_DESCRIPTION: RangeInclusive<usize> = 50..=5000;

/// How many other products a duplicate's warning names.
const NAMED: usize = 3;

/// The warnings about `record`'s page alone.
pub fn of(record: &ProductRecord) -> Vec<String> {
    let mut warnings = Vec::new();
    let length = record.seo.description.chars().count();
    if record.route == Route::Datasets && crate::sitemap::indexable(record) && length < *DATASET_DESCRIPTION.start() {
        warnings.push(format!(
            "its seo.description, its Dataset's description, is {length} characters; Google's Dataset results take {} \
             to {}; hint: say what the data holds in at least {} characters",
            DATASET_DESCRIPTION.start(),
            DATASET_DESCRIPTION.end(),
            DATASET_DESCRIPTION.start()
        ));
    }
    warnings
}

/// The warnings about products that share a title, or a summary, with
/// another: `cards` are each product's name (its manifest's, as the
/// warning should say it) and card; each warning is given with the index
/// of the product it is about, in the order of `cards`. Each of a few
/// products sharing one is warned about, naming up to three of the others;
/// of more than [`GROUP`], the first alone, with how many others there
/// are (a catalog made from a template should not print a line a product
/// at every build). The time is linear in the products.
pub fn duplicates(cards: &[(&str, &Card)]) -> Vec<(usize, String)> {
    // The titles on one core, the summaries on another.
    let (mut warnings, summaries) = crate::parallel::join(
        || duplicates_of(cards, "title", |card| &card.title),
        || duplicates_of(cards, "summary", |card| &card.summary),
    );
    warnings.extend(summaries);
    // Stable: a product's title's warning before its summary's.
    warnings.sort_by_key(|(at, _)| *at);
    warnings
}

/// The warnings of [`duplicates`] for one field, `what`, of the cards.
fn duplicates_of(cards: &[(&str, &Card)], what: &str, text: Field) -> Vec<(usize, String)> {
    let mut warnings = Vec::new();
    let mut same: BTreeMap<Cow<'_, str>, Vec<usize>> = BTreeMap::new();
    for (at, (_, card)) in cards.iter().enumerate() {
        same.entry(normal(text(card))).or_default().push(at);
    }
    for group in same.values().filter(|group| group.len() > 1) {
        let warned = if group.len() > GROUP { &group[..1] } else { &group[..] };
        for &at in warned {
            let others = group.iter().filter(|&&other| other != at);
            let named: Vec<&str> = others.take(NAMED).map(|&other| cards[other].0).collect();
            let more = group.len() - 1 - named.len();
            let more = if more > 0 { format!(" and {more} more") } else { String::new() };
            warnings.push((
                at,
                format!(
                    "its {what} is also the {what} of {}{more}; hint: give each product a {what} of its own, \
                     as lists and search results show it to tell products apart",
                    named.join(", ")
                ),
            ));
        }
    }
    warnings
}

/// What of a card [`duplicates`] compares.
type Field = fn(&Card) -> &str;

/// The most products sharing a title (or a summary) that are each warned
/// about; past it, only the first is.
pub const GROUP: usize = 10;

/// `text` as duplicates are compared: lowercase, its runs of whitespace
/// one space, trimmed.
fn normal(text: &str) -> Cow<'_, str> {
    // Most text is normal already (no uppercase letter, one space between
    // words): it is compared as it is, not copied.
    let spaced = !text.starts_with(' ') && !text.ends_with(' ') && !text.contains("  ");
    let lower = |c: char| {
        let mut lower = c.to_lowercase();
        lower.next() == Some(c) && lower.next().is_none()
    };
    if spaced && text.chars().all(|c| lower(c) && (c == ' ' || !c.is_whitespace())) {
        return Cow::Borrowed(text);
    }
    // Words lowercased into one string (`str::to_lowercase` for a word
    // that is not ASCII: a final sigma depends on its place in the word).
    let mut normal = String::with_capacity(text.len());
    for word in text.split_whitespace() {
        if !normal.is_empty() {
            normal.push(' ');
        }
        if word.is_ascii() {
            normal.extend(word.chars().map(|c| c.to_ascii_lowercase()));
        } else {
            normal.push_str(&word.to_lowercase());
        }
    }
    Cow::Owned(normal)
}

#[cfg(test)]
mod tests {
    use super::{Card, duplicates};

    fn card(title: &str, summary: &str) -> Card {
        Card {
            path: format!("/actors/{}", title.len()),
            title: title.to_owned(),
            summary: summary.to_owned(),
            lastmod: String::new(),
            terms: Vec::new(),
        }
    }

    /// Each of a group is warned about, naming the others; case and
    /// spacing do not make two titles different; a title alone is no
    /// duplicate of a summary.
    #[test]
    fn products_sharing_a_title_or_a_summary_are_each_named() {
        let cards =
            [card("Lead  Finder", "One"), card("lead finder", "Two"), card("Other", "one"), card("Two", "Three")];
        let named: Vec<(&str, &Card)> = ["a.json", "b.json", "c.json", "d.json"].into_iter().zip(&cards).collect();
        let warnings = duplicates(&named);
        let about: Vec<(usize, &str)> =
            warnings.iter().map(|(at, text)| (*at, text.split(';').next().unwrap())).collect();
        assert_eq!(
            about,
            [
                (0, "its title is also the title of b.json"),
                (0, "its summary is also the summary of c.json"),
                (1, "its title is also the title of a.json"),
                (2, "its summary is also the summary of a.json"),
            ]
        );
        let many: Vec<Card> = (0..6).map(|n| card("Same", &n.to_string())).collect();
        let named: Vec<(&str, &Card)> = ["a", "b", "c", "d", "e", "f"].into_iter().zip(&many).collect();
        let warnings = duplicates(&named);
        assert_eq!(warnings.len(), 6);
        assert!(warnings[0].1.starts_with("its title is also the title of b, c, d and 2 more;"));
        assert!(warnings[5].1.starts_with("its title is also the title of a, b, c and 2 more;"));
        // Past `GROUP`, the first alone, with how many others.
        let names: Vec<String> = (0..=super::GROUP).map(|n| format!("m{n}")).collect();
        let same = card("Same", "S");
        let named: Vec<(&str, &Card)> = names.iter().map(|name| (name.as_str(), &same)).collect();
        let warnings = duplicates(&named);
        let more = super::GROUP - 3;
        assert_eq!(warnings.len(), 2, "one for the title, one for the summary");
        assert!(warnings[0].1.starts_with(&format!("its title is also the title of m1, m2, m3 and {more} more;")));
    }

    /// Text already normal is compared as it is; any other is lowercased
    /// and spaced as the words' own lowercase joined by one space.
    #[test]
    fn text_is_compared_lowercased_with_its_words_one_space_apart() {
        let slow = |text: &str| text.split_whitespace().map(str::to_lowercase).collect::<Vec<_>>().join(" ");
        for text in [
            "lead finder",
            "Lead finder",
            "lead  finder",
            " lead finder",
            "lead finder ",
            "lead\tfinder",
            "lead\u{a0}finder",
            "ǆ ǅ",
            "ΟΔΟΣ",
            "οδος",
            "Lead ΟΔΟΣ  Finder",
            "ÀB Cd",
            "ⅰ ⅱ",
            "",
        ] {
            let normal = super::normal(text);
            assert_eq!(normal, slow(text), "{text:?}");
            assert_eq!(matches!(normal, std::borrow::Cow::Borrowed(_)), normal == text, "{text:?}");
        }
    }
}
