//! Building an index: documents in, one byte string out.

use std::collections::HashMap;

use crate::format::{HEADER, MAGIC, VERSION, put_varint};
use crate::words;

/// Builds an index of documents, each a list of weighted fields; a
/// document's number is the order it was added in (from 0).
///
/// A word's weight in a document is the sum of the weights of the fields
/// it appears in, once per appearance: with a title weighing 3 and a
/// summary 1, a word once in each counts 4. A document's length is the
/// sum over all its words. That is BM25F with one length per document,
/// which ranks a match in a title above one in a summary without keeping
/// fields apart.
#[derive(Debug, Default)]
pub struct IndexBuilder {
    /// Each word's postings: (document, weighted count), documents in
    /// increasing order.
    postings: HashMap<String, Vec<(u32, u32)>>,
    /// Each document's length.
    lengths: Vec<u32>,
}

impl IndexBuilder {
    /// An empty index.
    pub fn new() -> IndexBuilder {
        IndexBuilder::default()
    }

    /// Adds a document of `(weight, text)` fields; returns its number. A
    /// weight of 0 leaves its field out. Panics past `u32::MAX` documents.
    pub fn add(&mut self, fields: &[(u32, &str)]) -> u32 {
        let doc = u32::try_from(self.lengths.len()).expect("at most u32::MAX documents");
        let mut counts: HashMap<String, u32> = HashMap::new();
        let mut length: u32 = 0;
        for &(weight, text) in fields {
            if weight == 0 {
                continue;
            }
            for word in words(text) {
                let count = counts.entry(word).or_default();
                *count = count.saturating_add(weight);
                length = length.saturating_add(weight);
            }
        }
        for (word, count) in counts {
            self.postings.entry(word).or_default().push((doc, count));
        }
        self.lengths.push(length);
        doc
    }

    /// How many documents were added.
    pub fn len(&self) -> usize {
        self.lengths.len()
    }

    /// Whether no document was added.
    pub fn is_empty(&self) -> bool {
        self.lengths.is_empty()
    }

    /// The index's bytes ([`crate::format`]): the same documents, added
    /// in the same order, give the same bytes.
    pub fn finish(self) -> Vec<u8> {
        let mut words: Vec<(String, Vec<(u32, u32)>)> = self.postings.into_iter().collect();
        words.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let mut text = Vec::new();
        let mut postings = Vec::new();
        let (mut text_ends, mut posting_ends, mut frequencies) = (Vec::new(), Vec::new(), Vec::new());
        for (word, list) in &words {
            text.extend_from_slice(word.as_bytes());
            let mut previous = 0;
            for &(doc, count) in list {
                put_varint(&mut postings, doc - previous);
                put_varint(&mut postings, count);
                previous = doc;
            }
            text_ends.push(fits(text.len()));
            posting_ends.push(fits(postings.len()));
            frequencies.push(fits(list.len()));
        }
        let total: u64 = self.lengths.iter().map(|&l| u64::from(l)).sum();
        let mut out =
            Vec::with_capacity(HEADER + 4 * self.lengths.len() + 12 * words.len() + text.len() + postings.len());
        out.extend_from_slice(MAGIC);
        for value in [VERSION, fits(self.lengths.len()), fits(words.len()), fits(text.len()), fits(postings.len())] {
            out.extend_from_slice(&value.to_le_bytes());
        }
        out.extend_from_slice(&total.to_le_bytes());
        for table in [&self.lengths, &text_ends, &posting_ends, &frequencies] {
            for value in table {
                out.extend_from_slice(&value.to_le_bytes());
            }
        }
        out.extend_from_slice(&text);
        out.extend_from_slice(&postings);
        out
    }
}

/// `n` as a `u32`: an index larger than 4 GiB is not one this layout holds.
fn fits(n: usize) -> u32 {
    u32::try_from(n).expect("an index section under 4 GiB")
}
