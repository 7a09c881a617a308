//! Editing an index's bytes: the documents whose fields changed, applied
//! to the head and to the parts of the words whose counts changed, giving
//! the bytes [`crate::IndexBuilder`] gives the edited documents, without
//! reading the others.

use std::collections::BTreeMap;

use crate::format::{HEAD, TOTAL_AT, part_of, parts_for};
use crate::write::{Postings, counted_words, part};
use crate::{Index, IndexError, Part};

/// Changes to some documents of an index, each its fields before and now
/// (as [`crate::IndexBuilder::add`] takes them), applied to the index's
/// bytes by [`IndexEdit::apply`].
///
/// ```
/// use foundry_catalog_search::{IndexBuilder, IndexEdit};
///
/// let docs = [[(3, "Webhook connector")], [(3, "CRM export")], [(3, "EU signals")]];
/// let built = |docs: &[[(u32, &str); 1]]| {
///     let mut builder = IndexBuilder::new();
///     docs.iter().for_each(|doc| _ = builder.add(doc));
///     builder.finish()
/// };
/// let before = built(&docs);
/// let mut edit = IndexEdit::new();
/// edit.change(1, &docs[1], &[(3, "CRM import")]);
/// let edited = edit.apply(&before.head, |k| Ok(&before.parts[k])).unwrap();
/// let after = built(&[docs[0], [(3, "CRM import")], docs[2]]);
/// assert_eq!(edited.head, after.head);
/// for (k, part) in &edited.parts {
///     assert_eq!(part, &after.parts[*k]);
/// }
/// ```
#[derive(Debug, Default, Clone)]
pub struct IndexEdit {
    /// Each changed document: its words and length before, and now.
    docs: BTreeMap<u32, (Counted, Counted)>,
}

/// A document's words, each once with its weighted count, in byte order,
/// and its length.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
struct Counted {
    words: Vec<(Box<str>, u32)>,
    length: u32,
}

impl Counted {
    fn of(fields: &[(u32, &str)]) -> Counted {
        let mut words = Vec::new();
        let length = counted_words(fields, |word, count| words.push((word.into(), count)));
        Counted { words, length }
    }
}

/// An index edited ([`IndexEdit::apply`]): its head, and the parts whose
/// bytes changed; every other part is the same bytes as before.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Edited {
    /// The head ([`crate::Built::head`]).
    pub head: Vec<u8>,
    /// Each changed part, by its number.
    pub parts: BTreeMap<usize, Vec<u8>>,
}

/// One document's count of one word, before and now (0: it has none).
struct Change {
    doc: u32,
    before: u32,
    now: u32,
}

impl IndexEdit {
    /// No change.
    pub fn new() -> IndexEdit {
        IndexEdit::default()
    }

    /// Document `doc`'s fields were `before` and are `now`. A document
    /// changed again keeps its first `before`.
    pub fn change(&mut self, doc: u32, before: &[(u32, &str)], now: &[(u32, &str)]) {
        let now = Counted::of(now);
        match self.docs.get_mut(&doc) {
            Some(changed) => changed.1 = now,
            None => {
                self.docs.insert(doc, (Counted::of(before), now));
            }
        }
    }

    /// How many documents it changes.
    pub fn len(&self) -> usize {
        self.docs.len()
    }

    /// Whether it changes none.
    pub fn is_empty(&self) -> bool {
        self.docs.is_empty()
    }

    /// The index whose head is `head`, edited; `part(k)` gives the bytes
    /// of its part `k`, and is asked only for the parts of the words
    /// whose counts change. The same bytes, head and parts, as an index
    /// built from the edited documents.
    ///
    /// An error when the head or a part asked for is not an index's, when
    /// the index does not hold a changed document as its `before` (the
    /// document's length, or its count of a word), or when the edit would
    /// split the words into another number of parts ([`parts_for`]):
    /// then every part changes, and the index is built again instead.
    pub fn apply<P: AsRef<[u8]>>(
        &self,
        head: &[u8],
        mut part: impl FnMut(usize) -> Result<P, IndexError>,
    ) -> Result<Edited, IndexError> {
        let index = Index::open(head)?;
        let broken = || IndexError::new("it does not hold a document as it was");
        let mut total = index.total();
        let mut head = index.bytes().to_vec();
        for (&doc, (before, now)) in &self.docs {
            if doc as usize >= index.docs() || index.length(doc as usize) != before.length {
                return Err(broken());
            }
            // At least the document's length: the head's lengths add up to it.
            total = total.checked_sub(u64::from(before.length)).ok_or_else(broken)? + u64::from(now.length);
            let at = HEAD + 4 * doc as usize;
            head[at..at + 4].copy_from_slice(&now.length.to_le_bytes());
        }
        let parts = index.parts();
        if parts_for(total) != parts {
            return Err(IndexError::new("the edit splits its words into another number of parts"));
        }
        head[TOTAL_AT..TOTAL_AT + 8].copy_from_slice(&total.to_le_bytes());
        // Each part's changed words, in byte order, each with its changes
        // in document order.
        let mut changed: BTreeMap<usize, BTreeMap<&str, Vec<Change>>> = BTreeMap::new();
        for (&doc, (before, now)) in &self.docs {
            for (word, before, now) in merged(&before.words, &now.words) {
                if before != now {
                    let changes = changed.entry(part_of(word, parts)).or_default().entry(word).or_default();
                    changes.push(Change { doc, before, now });
                }
            }
        }
        let docs = u32::try_from(index.docs()).map_err(|_| IndexError::new("more documents than a u32"))?;
        let mut edited = BTreeMap::new();
        for (k, words) in changed {
            let bytes = part(k)?;
            let old = Part::open(bytes.as_ref(), &index, k)?;
            edited.insert(k, edit_part(&old, k, parts, docs, &words)?);
        }
        Ok(Edited { head, parts: edited })
    }
}

/// The words of `before` and `now` (each sorted, each word once) merged,
/// each with its count in each (0 where it has none).
fn merged<'a>(before: &'a [(Box<str>, u32)], now: &'a [(Box<str>, u32)]) -> Vec<(&'a str, u32, u32)> {
    let (mut b, mut n) = (before.iter().peekable(), now.iter().peekable());
    let mut out = Vec::with_capacity(before.len().max(now.len()));
    loop {
        let next = match (b.peek(), n.peek()) {
            (Some((wb, _)), Some((wn, _))) => wb.cmp(wn),
            (Some(_), None) => std::cmp::Ordering::Less,
            (None, Some(_)) => std::cmp::Ordering::Greater,
            (None, None) => return out,
        };
        out.push(
            match next {
                std::cmp::Ordering::Less => b.next().map(|(w, c)| (&**w, *c, 0)),
                std::cmp::Ordering::Greater => n.next().map(|(w, c)| (&**w, 0, *c)),
                std::cmp::Ordering::Equal => b.next().zip(n.next()).map(|((w, cb), (_, cn))| (&**w, *cb, *cn)),
            }
            .unwrap_or_default(),
        );
    }
}

/// Part `k` of `parts` with `changes` (by word, in byte order) applied.
fn edit_part<B: AsRef<[u8]>>(
    old: &Part<B>,
    k: usize,
    parts: usize,
    docs: u32,
    changes: &BTreeMap<&str, Vec<Change>>,
) -> Result<Vec<u8>, IndexError> {
    let mismatch = || IndexError::new("it does not hold a document's words as they were");
    // Each word's postings made again, for the words that change.
    let mut made: BTreeMap<&str, Postings> = BTreeMap::new();
    for (&word, changes) in changes {
        let mut list = match old.find(word) {
            Some(w) => old.postings(w)?,
            None => Vec::new(),
        };
        for change in changes {
            let at = list.binary_search_by_key(&change.doc, |&(doc, _)| doc);
            match (at, change.before, change.now) {
                (Ok(at), before, 0) if list[at].1 == before => _ = list.remove(at),
                (Ok(at), before, now) if list[at].1 == before => list[at].1 = now,
                (Err(at), 0, now) => list.insert(at, (change.doc, now)),
                _ => return Err(mismatch()),
            }
        }
        let mut postings = Postings::default();
        for (doc, count) in list {
            postings.push(doc, count);
        }
        made.insert(word, postings);
    }
    // The old words and the made ones, in byte order; a word no document
    // has any more is left out.
    let mut words: Vec<(&[u8], &[u8], u32)> = Vec::with_capacity(old.words() + made.len());
    let mut made_words = made.iter().peekable();
    for w in 0..old.words() {
        let word = old.word(w);
        while let Some((new, postings)) = made_words.next_if(|(new, _)| new.as_bytes() < word) {
            words.push((new.as_bytes(), &postings.bytes, postings.len));
        }
        match made_words.next_if(|(new, _)| new.as_bytes() == word) {
            Some((_, postings)) => words.push((word, &postings.bytes, postings.len)),
            None => words.push((word, old.posting_bytes(w), frequency(old, w))),
        }
    }
    words.extend(made_words.map(|(new, postings)| (new.as_bytes(), postings.bytes.as_slice(), postings.len)));
    words.retain(|&(_, _, frequency)| frequency > 0);
    Ok(part(k, parts, docs, words.into_iter()))
}

/// How many documents have word `w` of `part` (checked when it was opened
/// to be at most its documents, a `u32`).
fn frequency<B: AsRef<[u8]>>(part: &Part<B>, w: usize) -> u32 {
    u32::try_from(part.frequency(w)).unwrap_or(u32::MAX)
}
