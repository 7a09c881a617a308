//! Querying an index in place: [`Index::open`] checks the layout once,
//! then each query reads only the words it asks for and their postings.

use crate::format::{HEADER, MAGIC, VERSION, get_varint, u32_at};
use crate::words;

/// BM25's saturation of a word's count.
const K1: f64 = 1.2;

/// BM25's weight of a document's length against the average.
const B: f64 = 0.75;

/// The most distinct words of a query that count; the rest are ignored.
pub const MAX_QUERY_WORDS: usize = 16;

/// Why bytes are not an index, or a query could not be read from it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("not a search index: {0}")]
pub struct IndexError(&'static str);

impl IndexError {
    /// Bytes that are not an index, for `reason` (a layout that wraps an
    /// index in its own header says why that header is wrong).
    pub fn new(reason: &'static str) -> IndexError {
        IndexError(reason)
    }
}

/// An index read from its bytes ([`crate::IndexBuilder::finish`]), in
/// place: opening it checks the header, the tables and the words
/// (sorted, UTF-8) without copying them; a word's postings are checked
/// as a query decodes them.
#[derive(Debug, Clone)]
pub struct Index<B> {
    bytes: B,
    docs: usize,
    words: usize,
    /// Where the tables and the two blobs start.
    lengths: usize,
    word_ends: usize,
    posting_ends: usize,
    frequencies: usize,
    text: usize,
    postings: usize,
    /// The average document length (1 when every document is empty).
    average: f64,
}

/// One matching document and its relevance.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Hit {
    /// The document's number ([`crate::IndexBuilder::add`]).
    pub doc: u32,
    /// Its BM25 score: higher is more relevant.
    pub score: f64,
}

/// The matches of a query.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Found {
    /// How many documents match.
    pub total: usize,
    /// The ones asked for, most relevant first (equal scores in document
    /// order).
    pub hits: Vec<Hit>,
}

impl<B: AsRef<[u8]>> Index<B> {
    /// The index in `bytes`, checked.
    pub fn open(bytes: B) -> Result<Index<B>, IndexError> {
        let all = bytes.as_ref();
        if all.len() < HEADER || &all[..8] != MAGIC {
            return Err(IndexError("it does not start with the search index's header"));
        }
        if u32_at(all, 8) != VERSION {
            return Err(IndexError("another version of the layout; build it again"));
        }
        let [docs, words, text_len, postings_len] = [12, 16, 20, 24].map(|at| u32_at(all, at) as usize);
        let total = u64::from(u32_at(all, 28)) | (u64::from(u32_at(all, 32)) << 32);
        // Computed in u64, so no count in the header can overflow it.
        let expected = HEADER as u64 + 4 * docs as u64 + 12 * words as u64 + text_len as u64 + postings_len as u64;
        if all.len() as u64 != expected {
            return Err(IndexError("its length is not what its header says"));
        }
        let lengths = HEADER;
        let word_ends = lengths + 4 * docs;
        let posting_ends = word_ends + 4 * words;
        let frequencies = posting_ends + 4 * words;
        let text = frequencies + 4 * words;
        let postings = text + text_len;
        let index = Index {
            average: if docs == 0 || total == 0 { 1.0 } else { total as f64 / docs as f64 },
            bytes,
            docs,
            words,
            lengths,
            word_ends,
            posting_ends,
            frequencies,
            text,
            postings,
        };
        index.check(text_len, postings_len, total)?;
        Ok(index)
    }

    /// The tables agree with each other and the words are sorted UTF-8.
    fn check(&self, text_len: usize, postings_len: usize, total: u64) -> Result<(), IndexError> {
        let all = self.bytes.as_ref();
        let sum: u64 = (0..self.docs).map(|d| u64::from(u32_at(all, self.lengths + 4 * d))).sum();
        if sum != total {
            return Err(IndexError("the documents' lengths do not add up to its total"));
        }
        let mut previous: Option<&[u8]> = None;
        let (mut word_start, mut posting_start) = (0, 0);
        for w in 0..self.words {
            let (word_end, posting_end) = (self.word_end(w), self.posting_end(w));
            let frequency = u32_at(all, self.frequencies + 4 * w) as usize;
            if word_end <= word_start || word_end > text_len || posting_end < posting_start + 2 * frequency {
                return Err(IndexError("a word's bounds are out of order"));
            }
            if posting_end > postings_len || frequency == 0 || frequency > self.docs {
                return Err(IndexError("a word's postings are out of bounds"));
            }
            let word = &all[self.text + word_start..self.text + word_end];
            if std::str::from_utf8(word).is_err() || previous.is_some_and(|p| p >= word) {
                return Err(IndexError("its words are not sorted UTF-8, each once"));
            }
            previous = Some(word);
            (word_start, posting_start) = (word_end, posting_end);
        }
        if word_start != text_len || posting_start != postings_len {
            return Err(IndexError("its words or postings do not fill their sections"));
        }
        Ok(())
    }

    /// How many documents it holds.
    pub fn docs(&self) -> usize {
        self.docs
    }

    /// How many distinct words it holds.
    pub fn words(&self) -> usize {
        self.words
    }

    fn word_end(&self, w: usize) -> usize {
        u32_at(self.bytes.as_ref(), self.word_ends + 4 * w) as usize
    }

    fn posting_end(&self, w: usize) -> usize {
        u32_at(self.bytes.as_ref(), self.posting_ends + 4 * w) as usize
    }

    fn word(&self, w: usize) -> &[u8] {
        let start = if w == 0 { 0 } else { self.word_end(w - 1) };
        &self.bytes.as_ref()[self.text + start..self.text + self.word_end(w)]
    }

    /// The number of `word` among the words, by binary search.
    fn find(&self, word: &str) -> Option<usize> {
        let (mut low, mut high) = (0, self.words);
        while low < high {
            let middle = low + (high - low) / 2;
            match self.word(middle).cmp(word.as_bytes()) {
                std::cmp::Ordering::Less => low = middle + 1,
                std::cmp::Ordering::Greater => high = middle,
                std::cmp::Ordering::Equal => return Some(middle),
            }
        }
        None
    }

    /// How many documents have word `w`.
    fn frequency(&self, w: usize) -> usize {
        u32_at(self.bytes.as_ref(), self.frequencies + 4 * w) as usize
    }

    /// The postings of word `w`: (document, weighted count), checked.
    fn postings(&self, w: usize) -> Result<Vec<(u32, u32)>, IndexError> {
        let all = self.bytes.as_ref();
        let start = if w == 0 { 0 } else { self.posting_end(w - 1) };
        let bytes = &all[self.postings + start..self.postings + self.posting_end(w)];
        let broken = IndexError("a word's postings are malformed");
        let mut list = Vec::with_capacity(self.frequency(w));
        let (mut at, mut doc) = (0, 0u32);
        while at < bytes.len() {
            let gap = get_varint(bytes, &mut at).ok_or(broken.clone())?;
            let count = get_varint(bytes, &mut at).ok_or(broken.clone())?;
            doc = match doc.checked_add(gap) {
                Some(next) if (next as usize) < self.docs && (list.is_empty() || gap > 0) => next,
                _ => return Err(broken),
            };
            list.push((doc, count));
        }
        if list.len() != self.frequency(w) {
            return Err(broken);
        }
        Ok(list)
    }

    /// The documents that have every word of `query` ([`crate::words`],
    /// the first [`MAX_QUERY_WORDS`] distinct ones), ranked by BM25; of
    /// them, `limit` from the `skip`th. A query of no words matches
    /// nothing.
    pub fn search(&self, query: &str, skip: usize, limit: usize) -> Result<Found, IndexError> {
        let mut asked = words(query);
        asked.sort_unstable();
        asked.dedup();
        asked.truncate(MAX_QUERY_WORDS);
        let mut found: Vec<usize> = Vec::with_capacity(asked.len());
        for word in &asked {
            match self.find(word) {
                Some(w) => found.push(w),
                None => return Ok(Found::default()),
            }
        }
        if found.is_empty() {
            return Ok(Found::default());
        }
        // The rarest word first: the fewest candidates to intersect.
        found.sort_by_key(|&w| (self.frequency(w), w));
        let mut matches: Vec<Hit> = Vec::new();
        for (n, &w) in found.iter().enumerate() {
            let weight = self.idf(w);
            let postings = self.postings(w)?;
            if n == 0 {
                matches =
                    postings.iter().map(|&(doc, count)| Hit { doc, score: self.bm25(weight, doc, count) }).collect();
                continue;
            }
            let mut next = postings.iter().peekable();
            matches.retain_mut(|hit| {
                while next.next_if(|&&(doc, _)| doc < hit.doc).is_some() {}
                match next.peek() {
                    Some(&&(doc, count)) if doc == hit.doc => {
                        hit.score += self.bm25(weight, doc, count);
                        true
                    }
                    _ => false,
                }
            });
        }
        let total = matches.len();
        let order = |a: &Hit, b: &Hit| b.score.total_cmp(&a.score).then(a.doc.cmp(&b.doc));
        let end = skip.saturating_add(limit).min(total);
        if skip >= end {
            return Ok(Found { total, hits: Vec::new() });
        }
        if end < total {
            matches.select_nth_unstable_by(end - 1, order);
            matches.truncate(end);
        }
        matches.sort_unstable_by(order);
        Ok(Found { total, hits: matches.split_off(skip) })
    }

    /// BM25's inverse document frequency of word `w`.
    fn idf(&self, w: usize) -> f64 {
        let (n, df) = (self.docs as f64, self.frequency(w) as f64);
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    /// The score a word of inverse frequency `idf` gives `doc`, where its
    /// weighted count is `count`.
    fn bm25(&self, idf: f64, doc: u32, count: u32) -> f64 {
        let length = f64::from(u32_at(self.bytes.as_ref(), self.lengths + 4 * doc as usize));
        let count = f64::from(count);
        idf * count * (K1 + 1.0) / (count + K1 * (1.0 - B + B * length / self.average))
    }
}
