//! How an artifact keeps a route page's cards ([`Card::encode_all`]):
//! a form read without a parser, each term written once.
//!
//! The document is [`MAGIC`], then the page's distinct terms (a count,
//! then each term's taxonomy, slug and label), then its cards (a count,
//! then each card's path, title, summary and `lastmod`, its number of
//! terms and each term's place in the list of terms). A count, a place
//! or a length is an unsigned LEB128 number; a string is its length in
//! bytes and its UTF-8 bytes. A build on the previous artifact reads
//! every route page's cards: at 100,000 products this form is parsed in
//! under a third of the time their JSON took, has fewer bytes to inflate
//! and check, and a term shared by the cards of a page is read and
//! checked once (BENCHMARKS.md, "Rebuilds").
//!
//! Reading checks every length and place against the bytes left before
//! anything is allocated, every string's UTF-8, every term's slug (it
//! names a page's path) and taxonomy, and that nothing follows the last
//! card: a document that does not read is an error, never a panic.
//! Cards written as JSON (by builds before this form) are read as JSON.

use std::collections::HashMap;
use std::sync::Arc;

use crate::list::Card;
use crate::terms::{Taxonomy, Term};

/// The first bytes of a cards document in this form.
pub const MAGIC: &[u8] = b"foundry-catalog cards 2\n";

/// Why a cards document does not read.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum CardsError {
    /// It is in this form and breaks it: where, and how.
    #[error("byte {at}: {reason}")]
    Form {
        /// The offset in the document.
        at: usize,
        /// What is wrong there.
        reason: String,
    },
    /// It is JSON (an earlier build's) and does not read as cards.
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

impl Card {
    /// `cards` as one document, in path order, for an artifact to keep
    /// (in this module's form).
    pub fn encode_all(cards: &[Card]) -> Vec<u8> {
        let mut sorted: Vec<&Card> = cards.iter().collect();
        sorted.sort_by(|a, b| a.path.cmp(&b.path));
        encode(&sorted)
    }

    /// The cards of a document [`Card::encode_all`] wrote (or an earlier
    /// build's JSON), in its order, each term one copy.
    pub fn decode_all(bytes: &[u8]) -> Result<Vec<Card>, CardsError> {
        decode(bytes)
    }
}

/// `cards` in this form, in the order given.
pub(crate) fn encode(cards: &[&Card]) -> Vec<u8> {
    let mut places: HashMap<&Term, u64> = HashMap::new();
    let mut terms: Vec<&Term> = Vec::new();
    for card in cards {
        for term in &card.terms {
            places.entry(&**term).or_insert_with(|| {
                terms.push(term);
                terms.len() as u64 - 1
            });
        }
    }
    let mut out = Vec::with_capacity(MAGIC.len() + cards.len() * 256);
    out.extend_from_slice(MAGIC);
    number(&mut out, terms.len() as u64);
    for term in terms {
        string(&mut out, term.taxonomy.as_str());
        string(&mut out, &term.slug);
        string(&mut out, &term.label);
    }
    number(&mut out, cards.len() as u64);
    for card in cards {
        for text in [&card.path, &card.title, &card.summary, &card.lastmod] {
            string(&mut out, text);
        }
        number(&mut out, card.terms.len() as u64);
        for term in &card.terms {
            number(&mut out, places.get(&**term).copied().unwrap_or_default());
        }
    }
    out
}

/// The cards of a document [`encode`] (or an earlier build's JSON) wrote,
/// in its order; the cards share each term's one copy.
pub(crate) fn decode(bytes: &[u8]) -> Result<Vec<Card>, CardsError> {
    let Some(rest) = bytes.strip_prefix(MAGIC) else {
        return Ok(serde_json::from_slice(bytes)?);
    };
    let mut reader = Reader { bytes: rest, at: 0, start: MAGIC.len() };
    // A term takes three bytes at least, a card five.
    let count = reader.count(3)?;
    let mut terms = Vec::with_capacity(count);
    for _ in 0..count {
        let at = reader.offset();
        let taxonomy: Taxonomy = reader.string()?.parse().map_err(|_| reader.error(at, "not a taxonomy"))?;
        let (slug, label) = (reader.string()?.to_owned(), reader.string()?.to_owned());
        let term = Term::try_from((taxonomy, slug, label)).map_err(|reason| reader.error(at, &reason))?;
        terms.push(Arc::new(term));
    }
    let count = reader.count(5)?;
    let mut cards = Vec::with_capacity(count);
    for _ in 0..count {
        let [path, title, summary, lastmod] = [(); 4].map(|()| reader.string().map(str::to_owned));
        let (path, title, summary, lastmod) = (path?, title?, summary?, lastmod?);
        let held = reader.count(1)?;
        let mut shared = Vec::with_capacity(held);
        for _ in 0..held {
            let at = reader.offset();
            let place = usize::try_from(reader.number()?).unwrap_or(usize::MAX);
            let term = terms.get(place).ok_or_else(|| reader.error(at, "a term past the list of terms"))?;
            shared.push(Arc::clone(term));
        }
        cards.push(Card { path, title, summary, lastmod, terms: shared });
    }
    if reader.at != reader.bytes.len() {
        return Err(reader.error(reader.offset(), "bytes after the last card"));
    }
    Ok(cards)
}

/// Appends `n` as unsigned LEB128.
fn number(out: &mut Vec<u8>, mut n: u64) {
    while n >= 0x80 {
        out.push((n as u8 & 0x7f) | 0x80);
        n >>= 7;
    }
    out.push(n as u8);
}

/// Appends `text`'s length and bytes.
fn string(out: &mut Vec<u8>, text: &str) {
    number(out, text.len() as u64);
    out.extend_from_slice(text.as_bytes());
}

/// The bytes after [`MAGIC`], read from the front.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
    /// Where `bytes` start in the document.
    start: usize,
}

impl<'a> Reader<'a> {
    fn offset(&self) -> usize {
        self.start + self.at
    }

    fn error(&self, at: usize, reason: &str) -> CardsError {
        CardsError::Form { at, reason: reason.to_owned() }
    }

    /// An unsigned LEB128 number of at most 64 bits.
    fn number(&mut self) -> Result<u64, CardsError> {
        let at = self.offset();
        let mut n = 0u64;
        for shift in (0..64).step_by(7) {
            let &byte = self.bytes.get(self.at).ok_or_else(|| self.error(at, "a number past the end"))?;
            self.at += 1;
            let bits = u64::from(byte & 0x7f);
            if shift == 63 && bits > 1 {
                break;
            }
            n |= bits << shift;
            if byte & 0x80 == 0 {
                return Ok(n);
            }
        }
        Err(self.error(at, "a number of more than 64 bits"))
    }

    /// A count of things taking `each` bytes at least: no more than the
    /// bytes left hold.
    fn count(&mut self, each: usize) -> Result<usize, CardsError> {
        let at = self.offset();
        let n = self.number()?;
        let left = (self.bytes.len() - self.at) / each;
        usize::try_from(n).ok().filter(|&n| n <= left).ok_or_else(|| self.error(at, "a count past the end"))
    }

    /// A string: its length, then its UTF-8 bytes.
    fn string(&mut self) -> Result<&'a str, CardsError> {
        let at = self.offset();
        let len = self.count(1)?;
        let all: &'a [u8] = self.bytes;
        let bytes = &all[self.at..self.at + len];
        self.at += len;
        std::str::from_utf8(bytes).map_err(|_| self.error(at, "a string not in UTF-8"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn card(path: &str, terms: &[&Arc<Term>]) -> Card {
        Card {
            path: path.to_owned(),
            title: format!("Title of {path} — «quoted»"),
            summary: "A summary\nof two lines".to_owned(),
            lastmod: "2026-11-04T07:45:10-05:00".to_owned(),
            terms: terms.iter().map(|term| Arc::clone(term)).collect(),
        }
    }

    fn cards() -> Vec<Card> {
        let a = Arc::new(Term::new(Taxonomy::UseCases, "lead scoring", "Lead scoring"));
        let b = Arc::new(Term::new(Taxonomy::Formats, "json", "JSON"));
        vec![card("/datasets/a", &[&a, &b]), card("/datasets/b", &[]), card("/datasets/c", &[&b])]
    }

    /// Cards read back equal, in order, with each term one copy; and
    /// the JSON an earlier build wrote reads too.
    #[test]
    fn cards_read_back_as_written_sharing_each_term() {
        let cards = cards();
        let refs: Vec<&Card> = cards.iter().collect();
        let read = decode(&encode(&refs)).expect("reads");
        assert_eq!(read, cards);
        assert!(Arc::ptr_eq(&read[0].terms[1], &read[2].terms[0]));
        let json = serde_json::to_vec(&refs).expect("JSON");
        assert_eq!(decode(&json).expect("JSON reads"), cards);
        assert_eq!(decode(&encode(&[])).expect("reads"), Vec::new());
    }

    /// Every cut of a document is an error, never a panic, and so is every
    /// byte changed to each of a few values, unless it still reads (a
    /// changed letter of a title); a slug that would leave its taxonomy's
    /// pages, a term past the list, a huge count and trailing bytes are
    /// named.
    #[test]
    fn a_broken_document_is_an_error_never_a_panic() {
        let cards = cards();
        let bytes = encode(&cards.iter().collect::<Vec<_>>());
        for len in 0..bytes.len() {
            if len >= MAGIC.len() {
                assert!(decode(&bytes[..len]).is_err(), "cut at {len}");
            }
        }
        for at in MAGIC.len()..bytes.len() {
            for value in [0, 1, 0x7f, 0x80, 0xff] {
                let mut changed = bytes.clone();
                changed[at] = value;
                let _ = decode(&changed);
            }
        }
        let mut trailing = bytes.clone();
        trailing.push(0);
        assert!(decode(&trailing).unwrap_err().to_string().ends_with("bytes after the last card"));
        let mut out = MAGIC.to_vec();
        number(&mut out, u64::MAX);
        assert!(decode(&out).unwrap_err().to_string().ends_with("a count past the end"));
        let mut out = MAGIC.to_vec();
        number(&mut out, 1);
        for text in ["use-cases", "../x", "X"] {
            string(&mut out, text);
        }
        number(&mut out, 0);
        assert!(decode(&out).unwrap_err().to_string().contains("is not a term's slug"));
        let mut out = MAGIC.to_vec();
        number(&mut out, 0);
        number(&mut out, 1);
        for text in ["/datasets/a", "T", "S", "2026-11-04T07:45:10-05:00"] {
            string(&mut out, text);
        }
        number(&mut out, 1);
        number(&mut out, 0);
        assert!(decode(&out).unwrap_err().to_string().ends_with("a term past the list of terms"));
        let mut out = MAGIC.to_vec();
        out.extend_from_slice(&[0x80; 10]);
        out.push(0x01);
        assert!(decode(&out).unwrap_err().to_string().ends_with("a number of more than 64 bits"));
    }
}
