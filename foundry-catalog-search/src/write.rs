//! Building an index: documents in, one byte string out.

use std::collections::HashMap;

use crate::format::{HEAD, MAGIC, PART_HEADER, PART_MAGIC, VERSION, get_varint, part_of, parts_for, put_varint};

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
    /// Each word's postings, as a part stores them.
    postings: HashMap<Box<str>, Postings>,
    /// Each document's length.
    lengths: Vec<u32>,
}

/// One word's postings as they are added: already the bytes a part
/// stores (the gap from the document before, the first from 0, and the
/// weighted count, each a varint), about two bytes a posting where pairs
/// of `u32`s would take eight; with the last document and how many.
#[derive(Debug, Default)]
pub(crate) struct Postings {
    /// The bytes a part stores.
    pub(crate) bytes: Vec<u8>,
    last: u32,
    /// How many documents.
    pub(crate) len: u32,
}

impl Postings {
    /// Adds document `doc` (after every document it holds) with `count`.
    pub(crate) fn push(&mut self, doc: u32, count: u32) {
        put_varint(&mut self.bytes, doc - if self.len == 0 { 0 } else { self.last });
        put_varint(&mut self.bytes, count);
        (self.last, self.len) = (doc, self.len + 1);
    }

    /// Adds `other`'s postings after its own, each document moved by
    /// `first`: only the first gap changes, the rest are copied.
    fn extend(&mut self, other: Postings, first: u32) {
        let mut at = 0;
        // A builder's own bytes: the first gap is there when a posting is.
        let Some(gap) = get_varint(&other.bytes, &mut at) else { return };
        let doc = gap + first;
        put_varint(&mut self.bytes, doc - if self.len == 0 { 0 } else { self.last });
        self.bytes.extend_from_slice(&other.bytes[at..]);
        (self.last, self.len) = (other.last + first, self.len + other.len);
    }
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
        let length = counted_words(fields, |word, count| match self.postings.get_mut(word) {
            Some(postings) => postings.push(doc, count),
            None => {
                let mut postings = Postings::default();
                postings.push(doc, count);
                self.postings.insert(word.into(), postings);
            }
        });
        self.lengths.push(length);
        doc
    }

    /// Adds `other`'s documents after this one's, in their order (the
    /// first of them is numbered [`IndexBuilder::len`]): the index of
    /// documents added to builders in turn, as one builder would have
    /// made it, so that a caller can add them on several threads. Panics
    /// past `u32::MAX` documents.
    pub fn append(&mut self, other: IndexBuilder) {
        let first = u32::try_from(self.lengths.len()).expect("at most u32::MAX documents");
        assert!(u32::try_from(self.lengths.len() + other.lengths.len()).is_ok(), "at most u32::MAX documents");
        for (word, postings) in other.postings {
            match self.postings.get_mut(&word) {
                Some(mine) => mine.extend(postings, first),
                None => {
                    let mut moved = Postings::default();
                    moved.extend(postings, first);
                    self.postings.insert(word, moved);
                }
            }
        }
        self.lengths.extend(other.lengths);
    }

    /// How many documents were added.
    pub fn len(&self) -> usize {
        self.lengths.len()
    }

    /// Whether no document was added.
    pub fn is_empty(&self) -> bool {
        self.lengths.is_empty()
    }

    /// The index's bytes ([`crate::format`]): its head and its parts. The
    /// same documents, added in the same order, give the same bytes.
    pub fn finish(self) -> Built {
        let mut words: Vec<Word> = self.postings.into_iter().collect();
        words.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        let total: u64 = self.lengths.iter().map(|&l| u64::from(l)).sum();
        let parts = parts_for(total);
        let mut split: Vec<Vec<&Word>> = vec![Vec::new(); parts];
        for entry in &words {
            split[part_of(&entry.0, parts)].push(entry);
        }
        let docs = fits(self.lengths.len());
        let mut head = Vec::with_capacity(HEAD + 4 * self.lengths.len());
        head.extend_from_slice(MAGIC);
        for value in [VERSION, docs, fits(parts)] {
            head.extend_from_slice(&value.to_le_bytes());
        }
        head.extend_from_slice(&total.to_le_bytes());
        for length in &self.lengths {
            head.extend_from_slice(&length.to_le_bytes());
        }
        let parts = split
            .iter()
            .enumerate()
            .map(|(k, words)| {
                let words = words.iter().map(|(word, list)| (word.as_bytes(), list.bytes.as_slice(), list.len));
                part(k, parts, docs, words)
            })
            .collect();
        Built { head, parts }
    }
}

/// The words of a document of `fields` ([`IndexBuilder::add`]), each
/// once with its weighted count, in byte order, given to `f`; returns the
/// document's length. A document's words are sorted, then each word's
/// weights summed: a few dozen words, where a map a document would cost
/// more. Each word is a span of one buffer: only a word new to an index
/// is copied (by `f`).
pub(crate) fn counted_words(fields: &[(u32, &str)], mut f: impl FnMut(&str, u32)) -> u32 {
    let (mut text, mut spans) = (String::new(), Vec::<(usize, usize, u32)>::new());
    for &(weight, field) in fields {
        if weight != 0 {
            crate::tokens::for_each_word(field, |word| {
                text.push_str(word);
                spans.push((text.len() - word.len(), text.len(), weight));
            });
        }
    }
    let length = spans.iter().fold(0u32, |length, &(_, _, weight)| length.saturating_add(weight));
    spans.sort_unstable_by(|a, b| text[a.0..a.1].cmp(&text[b.0..b.1]));
    let mut spans = spans.into_iter().peekable();
    while let Some((start, end, mut count)) = spans.next() {
        let word = &text[start..end];
        while let Some((_, _, weight)) = spans.next_if(|next| &text[next.0..next.1] == word) {
            count = count.saturating_add(weight);
        }
        f(word, count);
    }
    length
}

/// A word and its postings.
type Word = (Box<str>, Postings);

/// An index's bytes: its head, and each of its parts.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Built {
    /// The head: the documents' lengths.
    pub head: Vec<u8>,
    /// Part `k` of the words ([`crate::format::part_of`]) and their postings.
    pub parts: Vec<Vec<u8>>,
}

/// Part `k` of `parts`, holding `words` (sorted: each word's bytes, its
/// postings' bytes and how many documents have it) in an index of `docs`
/// documents.
pub(crate) fn part<'w>(
    k: usize,
    parts: usize,
    docs: u32,
    words: impl ExactSizeIterator<Item = (&'w [u8], &'w [u8], u32)>,
) -> Vec<u8> {
    let count = words.len();
    let mut text = Vec::new();
    let mut postings = Vec::new();
    let (mut text_ends, mut posting_ends, mut frequencies) =
        (Vec::with_capacity(count), Vec::with_capacity(count), Vec::with_capacity(count));
    for (word, list, frequency) in words {
        text.extend_from_slice(word);
        postings.extend_from_slice(list);
        text_ends.push(fits(text.len()));
        posting_ends.push(fits(postings.len()));
        frequencies.push(frequency);
    }
    let mut out = Vec::with_capacity(PART_HEADER + 12 * count + text.len() + postings.len());
    out.extend_from_slice(PART_MAGIC);
    for value in [VERSION, fits(k), fits(parts), docs, fits(count), fits(text.len()), fits(postings.len())] {
        out.extend_from_slice(&value.to_le_bytes());
    }
    for table in [&text_ends, &posting_ends, &frequencies] {
        for value in table {
            out.extend_from_slice(&value.to_le_bytes());
        }
    }
    out.extend_from_slice(&text);
    out.extend_from_slice(&postings);
    out
}

/// `n` as a `u32`: an index larger than 4 GiB is not one this layout holds.
pub(crate) fn fits(n: usize) -> u32 {
    u32::try_from(n).expect("an index section under 4 GiB")
}

impl Built {
    /// The index these bytes hold, every part opened: for an index kept
    /// whole in memory (a server that stores the parts apart opens each
    /// when a query first needs it, [`crate::Part::open`]).
    pub fn open(&self) -> Result<Opened<'_>, crate::IndexError> {
        let index = crate::Index::open(&self.head[..])?;
        let parts = self
            .parts
            .iter()
            .enumerate()
            .map(|(k, part)| crate::Part::open(&part[..], &index, k))
            .collect::<Result<Vec<_>, _>>()?;
        if parts.len() != index.parts() {
            return Err(crate::IndexError::new("it has another number of parts than its head says"));
        }
        Ok(Opened { index, parts })
    }
}

/// A [`Built`] index, opened whole.
#[derive(Debug, Clone)]
pub struct Opened<'a> {
    /// The head.
    pub index: crate::Index<&'a [u8]>,
    /// Every part, in order.
    pub parts: Vec<crate::Part<&'a [u8]>>,
}

impl Opened<'_> {
    /// [`crate::Index::search`] over its parts.
    pub fn search(&self, query: &str, skip: usize, limit: usize) -> Result<crate::Found, crate::IndexError> {
        self.index.search(query, skip, limit, |k| {
            self.parts.get(k).ok_or(crate::IndexError::new("a part its head names is missing"))
        })
    }
}
