//! Querying an index in place: [`Index::open`] checks the head,
//! [`Part::open`] a part, each once, without copying; a query reads only
//! the words it asks for, from their parts, and their postings.

use crate::format::{HEAD, MAGIC, PART_HEADER, PART_MAGIC, VERSION, get_varint, part_of, total_of, u32_at};
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

/// An index's head, read from its bytes ([`crate::Built::head`]) in
/// place: the documents' lengths, and how many parts hold the words.
#[derive(Debug, Clone)]
pub struct Index<B> {
    bytes: B,
    docs: usize,
    parts: usize,
    /// The average document length (1 when every document is empty).
    average: f64,
}

/// One part of an index's words ([`crate::Built::parts`]), read in place.
#[derive(Debug, Clone)]
pub struct Part<B> {
    bytes: B,
    docs: usize,
    words: usize,
    /// Where the tables and the two blobs start.
    word_ends: usize,
    posting_ends: usize,
    frequencies: usize,
    text: usize,
    postings: usize,
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
    /// The head in `bytes`, checked.
    pub fn open(bytes: B) -> Result<Index<B>, IndexError> {
        let all = bytes.as_ref();
        if all.len() < HEAD || &all[..8] != MAGIC {
            return Err(IndexError("it does not start with the search index's header"));
        }
        if u32_at(all, 8) != VERSION {
            return Err(IndexError("another version of the layout; build it again"));
        }
        let (docs, parts) = (u32_at(all, 12) as usize, u32_at(all, 16) as usize);
        let total = total_of(all);
        if all.len() as u64 != HEAD as u64 + 4 * docs as u64 {
            return Err(IndexError("its length is not what its header says"));
        }
        if !parts.is_power_of_two() || parts > crate::format::MAX_PARTS {
            return Err(IndexError("its number of parts is not a power of two up to the most"));
        }
        let sum: u64 = (0..docs).map(|d| u64::from(u32_at(all, HEAD + 4 * d))).sum();
        if sum != total {
            return Err(IndexError("the documents' lengths do not add up to its total"));
        }
        let average = if docs == 0 || total == 0 { 1.0 } else { total as f64 / docs as f64 };
        Ok(Index { bytes, docs, parts, average })
    }

    /// How many documents it holds.
    pub fn docs(&self) -> usize {
        self.docs
    }

    /// How many parts its words are in.
    pub fn parts(&self) -> usize {
        self.parts
    }

    /// The sum of its documents' lengths.
    pub(crate) fn total(&self) -> u64 {
        total_of(self.bytes.as_ref())
    }

    /// Document `doc`'s length (`doc` below [`Index::docs`]).
    pub(crate) fn length(&self, doc: usize) -> u32 {
        u32_at(self.bytes.as_ref(), HEAD + 4 * doc)
    }

    /// Its bytes.
    pub(crate) fn bytes(&self) -> &[u8] {
        self.bytes.as_ref()
    }

    /// The part that holds `word` ([`crate::format::part_of`]).
    pub fn part_of(&self, word: &str) -> usize {
        part_of(word, self.parts)
    }

    /// The documents that have every word of `query` ([`crate::words`],
    /// the first [`MAX_QUERY_WORDS`] distinct ones), ranked by BM25; of
    /// them, `limit` from the `skip`th. `part(k)` gives part `k` of the
    /// index, opened ([`Part::open`]); only the parts of the query's words
    /// are asked for. A query of no words matches nothing.
    pub fn search<'p, P: AsRef<[u8]> + 'p>(
        &self,
        query: &str,
        skip: usize,
        limit: usize,
        mut part: impl FnMut(usize) -> Result<&'p Part<P>, IndexError>,
    ) -> Result<Found, IndexError> {
        let asked = query_words(query);
        let mut found: Vec<(&Part<P>, usize)> = Vec::with_capacity(asked.len());
        for word in &asked {
            let holder = part(self.part_of(word))?;
            if holder.docs != self.docs {
                return Err(IndexError("a part of another index"));
            }
            match holder.find(word) {
                Some(w) => found.push((holder, w)),
                None => return Ok(Found::default()),
            }
        }
        if found.is_empty() {
            return Ok(Found::default());
        }
        // The rarest word first: the fewest candidates to intersect.
        found.sort_by_key(|&(holder, w)| holder.frequency(w));
        let mut matches: Vec<Hit> = Vec::new();
        for (n, &(holder, w)) in found.iter().enumerate() {
            let weight = self.idf(holder.frequency(w));
            let postings = holder.postings(w)?;
            if n == 0 {
                matches =
                    postings.iter().map(|&(doc, count)| Hit { doc, score: self.bm25(weight, doc, count) }).collect();
                continue;
            }
            if matches.is_empty() {
                break;
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

    /// BM25's inverse document frequency of a word `frequency` documents have.
    fn idf(&self, frequency: usize) -> f64 {
        let (n, df) = (self.docs as f64, frequency as f64);
        (1.0 + (n - df + 0.5) / (df + 0.5)).ln()
    }

    /// The score a word of inverse frequency `idf` gives `doc`, where its
    /// weighted count is `count` (`doc` was checked to be in range).
    fn bm25(&self, idf: f64, doc: u32, count: u32) -> f64 {
        let length = f64::from(u32_at(self.bytes.as_ref(), HEAD + 4 * doc as usize));
        let count = f64::from(count);
        idf * count * (K1 + 1.0) / (count + K1 * (1.0 - B + B * length / self.average))
    }
}

/// The words of a query that count: its first [`MAX_QUERY_WORDS`]
/// distinct words, as typed.
pub fn query_words(query: &str) -> Vec<String> {
    let mut asked: Vec<String> = Vec::new();
    for word in words(query) {
        if asked.len() == MAX_QUERY_WORDS {
            break;
        }
        if !asked.contains(&word) {
            asked.push(word);
        }
    }
    asked
}

impl<B: AsRef<[u8]>> Part<B> {
    /// Part `k` of `index`, in `bytes`, checked: its header against the
    /// head's, its tables against each other, its words sorted UTF-8,
    /// each in the part [`crate::format::part_of`] gives it.
    pub fn open<H: AsRef<[u8]>>(bytes: B, index: &Index<H>, k: usize) -> Result<Part<B>, IndexError> {
        let all = bytes.as_ref();
        if all.len() < PART_HEADER || &all[..8] != PART_MAGIC {
            return Err(IndexError("a part does not start with a part's header"));
        }
        if u32_at(all, 8) != VERSION {
            return Err(IndexError("another version of the layout; build it again"));
        }
        let [number, parts, docs, words, text_len, postings_len] =
            [12, 16, 20, 24, 28, 32].map(|at| u32_at(all, at) as usize);
        if (number, parts, docs) != (k, index.parts, index.docs) {
            return Err(IndexError("a part is not the one its index asks for"));
        }
        // Computed in u64, so no count in the header can overflow it.
        let expected = PART_HEADER as u64 + 12 * words as u64 + text_len as u64 + postings_len as u64;
        if all.len() as u64 != expected {
            return Err(IndexError("a part's length is not what its header says"));
        }
        let word_ends = PART_HEADER;
        let posting_ends = word_ends + 4 * words;
        let frequencies = posting_ends + 4 * words;
        let text = frequencies + 4 * words;
        let postings = text + text_len;
        let part = Part { bytes, docs, words, word_ends, posting_ends, frequencies, text, postings };
        part.check(text_len, postings_len, k)?;
        Ok(part)
    }

    /// The tables agree with each other, and the words are sorted UTF-8,
    /// each in its part.
    fn check(&self, text_len: usize, postings_len: usize, k: usize) -> Result<(), IndexError> {
        let all = self.bytes.as_ref();
        let mut previous: Option<&[u8]> = None;
        let (mut word_start, mut posting_start) = (0, 0);
        for w in 0..self.words {
            let (word_end, posting_end, frequency) = (self.word_end(w), self.posting_end(w), self.frequency(w));
            if word_end <= word_start || word_end > text_len || posting_end < posting_start + 2 * frequency {
                return Err(IndexError("a word's bounds are out of order"));
            }
            if posting_end > postings_len || frequency == 0 || frequency > self.docs {
                return Err(IndexError("a word's postings are out of bounds"));
            }
            let word = &all[self.text + word_start..self.text + word_end];
            let text = std::str::from_utf8(word).map_err(|_| IndexError("a word is not UTF-8"))?;
            if previous.is_some_and(|p| p >= word) {
                return Err(IndexError("a part's words are not sorted, each once"));
            }
            if part_of(text, self.parts_of_index()) != k {
                return Err(IndexError("a word is in another part than its own"));
            }
            previous = Some(word);
            (word_start, posting_start) = (word_end, posting_end);
        }
        if word_start != text_len || posting_start != postings_len {
            return Err(IndexError("a part's words or postings do not fill their sections"));
        }
        Ok(())
    }

    /// How many distinct words it holds.
    pub fn words(&self) -> usize {
        self.words
    }

    fn parts_of_index(&self) -> usize {
        u32_at(self.bytes.as_ref(), 16) as usize
    }

    fn word_end(&self, w: usize) -> usize {
        u32_at(self.bytes.as_ref(), self.word_ends + 4 * w) as usize
    }

    fn posting_end(&self, w: usize) -> usize {
        u32_at(self.bytes.as_ref(), self.posting_ends + 4 * w) as usize
    }

    pub(crate) fn frequency(&self, w: usize) -> usize {
        u32_at(self.bytes.as_ref(), self.frequencies + 4 * w) as usize
    }

    pub(crate) fn word(&self, w: usize) -> &[u8] {
        let start = if w == 0 { 0 } else { self.word_end(w - 1) };
        &self.bytes.as_ref()[self.text + start..self.text + self.word_end(w)]
    }

    /// The number of `word` among the part's words, by binary search.
    pub(crate) fn find(&self, word: &str) -> Option<usize> {
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

    /// The bytes of word `w`'s postings, as stored.
    pub(crate) fn posting_bytes(&self, w: usize) -> &[u8] {
        let start = if w == 0 { 0 } else { self.posting_end(w - 1) };
        &self.bytes.as_ref()[self.postings + start..self.postings + self.posting_end(w)]
    }

    /// The postings of word `w`: (document, weighted count), checked.
    pub(crate) fn postings(&self, w: usize) -> Result<Vec<(u32, u32)>, IndexError> {
        let bytes = self.posting_bytes(w);
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
}
