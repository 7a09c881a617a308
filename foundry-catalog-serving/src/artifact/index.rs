//! An artifact's index read in place: each entry's spans placed from its
//! stored lengths, what a request needs of it, and the head's bytes as a
//! replica copies them.

use super::header::le_u64;
use super::{Artifact, Block, DocumentEntry, IndexEntry, Response, Span, head};

impl Artifact {
    /// Where the bodies of entry `n` (products, then site documents) start
    /// in the data region; for `n` one past the last entry, the region's
    /// end.
    pub(crate) fn body_start(&self, n: usize) -> Option<u64> {
        match self.starts.get(n) {
            Some(start) => Some(start.bodies),
            None => (n == self.starts.len()).then_some(self.data_len),
        }
    }

    /// The stored entry `n` (products, then site documents), placed.
    pub(super) fn stored_entry(&self, n: usize) -> Option<head::Entry<'_>> {
        head::entry(&self.stored_index, &self.metadata, n, *self.starts.get(n)?)
    }

    /// The blocks of its head.
    pub(crate) fn blocks(&self) -> Vec<Block> {
        // Checked when it was parsed (or made so when built).
        head::blocks(&self.blocks, &self.metadata, self.table).unwrap_or_default()
    }

    /// Where its stored index starts in its file.
    pub(crate) fn stored_index_at(&self) -> u64 {
        self.data_at() - self.stored_index.len() as u64
    }

    /// `len` bytes of its head from `at` in its file, from the copies in
    /// memory of its stored index and table; `None` outside them.
    pub fn head_bytes(&self, at: u64, len: u64) -> Option<Vec<u8>> {
        let mut bytes = Vec::with_capacity(usize::try_from(len).ok()?);
        self.head_bytes_into(at, len, &mut bytes).then_some(bytes)
    }

    /// [`Artifact::head_bytes`], appended to `out`; `false` (and `out` as
    /// it was) outside its index and table.
    pub fn head_bytes_into(&self, at: u64, len: u64, out: &mut Vec<u8>) -> bool {
        let table = self.table;
        let (data_at, index_at) = (self.data_at(), self.stored_index_at());
        let Some(end) = at.checked_add(len).filter(|&end| at >= index_at && end <= data_at + table) else {
            return false;
        };
        let before = out.len();
        if at < data_at {
            let Some(index) = self.stored_index.get((at - index_at) as usize..(end.min(data_at) - index_at) as usize)
            else {
                return false;
            };
            out.extend_from_slice(index);
        }
        if end > data_at {
            let from = at.max(data_at) - data_at;
            self.table_bytes(from, end - data_at - from, &mut |piece| out.extend_from_slice(piece));
        }
        if (out.len() - before) as u64 != len {
            out.truncate(before);
            return false;
        }
        true
    }

    /// Every index entry, decoded (spans are not checked here).
    pub(crate) fn entries(&self) -> impl Iterator<Item = IndexEntry> + '_ {
        (0..self.len()).map_while(|n| self.entry(n))
    }

    /// The `n`th index entry.
    pub(crate) fn entry(&self, n: usize) -> Option<IndexEntry> {
        if n >= self.len() {
            return None;
        }
        self.stored_entry(n).map(|entry| entry.product(self.metadata.pages.is_some()))
    }

    /// Every site document's index entry, decoded (spans are not checked here).
    pub(crate) fn documents(&self) -> impl Iterator<Item = DocumentEntry> + '_ {
        (0..self.documents_len()).map_while(|d| self.document(d))
    }

    /// The `d`th site document's index entry.
    pub(crate) fn document(&self, d: usize) -> Option<DocumentEntry> {
        self.stored_entry(self.len().checked_add(d)?).map(|entry| entry.document())
    }

    /// The `(body, ETag)` spans of `response` in its `c`th coding (in
    /// [`Metadata::codings`](super::Metadata::codings) order), read from the index in place: what a
    /// request needs, with nothing decoded or allocated.
    pub(crate) fn response_spans(&self, response: Response, c: usize) -> Option<(Span, Span)> {
        let codings = self.metadata.codings.len();
        if c >= codings {
            return None;
        }
        // A stored entry's table run: slug, date, ETags, then its page's
        // path, lastmod and ETags (a document's: name, ETags); its body
        // run: its bodies, then its page's.
        let (entry, etag, body) = match response {
            Response::Product(n) if n < self.len() => (self.stored_entry(n)?, 2 + c, c),
            Response::Page(n) if n < self.len() => (self.stored_entry(n)?, 4 + codings + c, codings + c),
            Response::Document(d) => (self.stored_entry(self.len().checked_add(d)?)?, 1 + c, c),
            _ => return None,
        };
        Some((entry.body_span(body)?, entry.table_span(etag)?))
    }

    /// The `n`th product's modification time (seconds since the epoch) and
    /// the span of its `Last-Modified`, read from the index in place.
    pub(crate) fn product_date(&self, n: usize) -> Option<(u64, Span)> {
        if n >= self.len() {
            return None;
        }
        let entry = self.stored_entry(n)?;
        Some((le_u64(entry.fixed), entry.table_span(1)?))
    }
}
