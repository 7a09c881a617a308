//! An artifact's index read in place: held whole or read a block at a
//! time, each entry's spans placed from its stored lengths, what a
//! request needs of it, the slug directory's lookups, and the head's
//! bytes as a replica copies them.

use std::sync::Arc;

use bytes::Bytes;

use super::header::le_u64;
use super::lazy::{LazyHead, Placed};
use super::{Artifact, ArtifactError, Block, DocumentEntry, IndexEntry, Response, Span, forms, head};

/// An artifact's stored index and table.
#[derive(Debug, Clone)]
pub(crate) enum Index {
    /// In memory, whole: the index as stored (lengths, read in place) and
    /// where each entry's runs start, products' then site documents' (16
    /// bytes an entry beside the stored ones); the table is the first of
    /// the artifact's data pieces. Built, read whole, or a replica's
    /// download.
    Whole { stored: Bytes, starts: Arc<[head::Start]> },
    /// In its file, each block read and checked when it is first used
    /// ([`Artifact::open`]).
    Lazy(Arc<LazyHead>),
}

impl Index {
    /// The stored index's length.
    pub(super) fn len(&self) -> u64 {
        match self {
            Index::Whole { stored, .. } => stored.len() as u64,
            Index::Lazy(lazy) => lazy.index_len,
        }
    }
}

impl Artifact {
    /// Block `k` of a head read a block at a time, read and checked if it
    /// was not yet.
    fn block<'a>(&'a self, lazy: &'a LazyHead, k: usize) -> Result<&'a Placed, ArtifactError> {
        if self.forms_trusted.load(std::sync::atomic::Ordering::Relaxed) {
            return lazy.placed(k, &self.metadata, &|_| Ok(()));
        }
        lazy.placed(k, &self.metadata, &|view| forms::check_view(view, &self.metadata, &self.directory))
    }

    /// The block holding entry `n` of a head read a block at a time.
    fn placed_entry<'a>(&'a self, lazy: &'a LazyHead, n: usize) -> Result<&'a Placed, ArtifactError> {
        let k = lazy.block_of(n).ok_or_else(|| ArtifactError::Malformed(format!("no entry {n}")))?;
        self.block(lazy, k)
    }

    /// Reads the blocks of its head that `base` holds from `base`'s file
    /// from now on ([`LazyHead::over`]): a layered artifact's, just opened
    /// (nothing for a head held whole); `Err` when its head is shared.
    pub(super) fn read_head_over(&mut self, base: Arc<super::BaseHead>) -> Result<(), ()> {
        match &mut self.index {
            Index::Lazy(lazy) => Arc::get_mut(lazy).map(|lazy| lazy.over(base)).ok_or(()),
            Index::Whole { .. } => Ok(()),
        }
    }

    /// Whether its index is read a block at a time from its file.
    pub(crate) fn is_lazy(&self) -> bool {
        matches!(self.index, Index::Lazy(_))
    }

    /// Reads and checks every block of a head read a block at a time, on
    /// all cores (nothing for one held whole): the first that fails is named.
    pub(super) fn place_all(&self) -> Result<(), ArtifactError> {
        let Index::Lazy(lazy) = &self.index else { return Ok(()) };
        let blocks: Vec<usize> = (0..lazy.blocks.len()).collect();
        let failed = crate::parallel::map(&blocks, |&k| self.block(lazy, k).err());
        failed.into_iter().flatten().next().map_or(Ok(()), Err)
    }

    /// Where the bodies of entry `n` (products, then site documents) start
    /// in the data region; for `n` one past the last entry, the region's
    /// end.
    pub(crate) fn body_start(&self, n: usize) -> Option<u64> {
        match &self.index {
            Index::Whole { starts, .. } => match starts.get(n) {
                Some(start) => Some(start.bodies),
                None => (n == starts.len()).then_some(self.data_len),
            },
            Index::Lazy(lazy) => {
                let Some(k) = lazy.block_of(n) else {
                    return (n == self.len() + self.documents_len()).then_some(self.data_len);
                };
                let block = &lazy.blocks[k];
                if n as u64 == block.entries.start {
                    return Some(block.bodies.start);
                }
                self.block(lazy, k).ok()?.view().entry(&self.metadata, n).map(|entry| entry.bodies_start())
            }
        }
    }

    /// The stored entry `n` (products, then site documents), placed; an
    /// error when its block cannot be read or fails its checks.
    pub(super) fn try_stored_entry(&self, n: usize) -> Result<Option<head::Entry<'_>>, ArtifactError> {
        match &self.index {
            Index::Whole { stored, starts } => {
                Ok(starts.get(n).and_then(|&start| head::entry(stored, 0, &self.metadata, n, start)))
            }
            Index::Lazy(lazy) => {
                if lazy.block_of(n).is_none() {
                    return Ok(None);
                }
                let placed = self.placed_entry(lazy, n)?;
                Ok(placed.view().entry(&self.metadata, n))
            }
        }
    }

    /// The stored entry `n` (products, then site documents), placed; `None`
    /// past the index or when its block cannot be read.
    pub(super) fn stored_entry(&self, n: usize) -> Option<head::Entry<'_>> {
        self.try_stored_entry(n).ok().flatten()
    }

    /// The product whose slug is `slug`, by the slug directory: its
    /// position in the index; an error when the block that would hold it
    /// cannot be read or fails its checks.
    pub(crate) fn position(&self, slug: &[u8]) -> Result<Option<usize>, ArtifactError> {
        let Some(n) = head::find(&self.directory, slug).filter(|&n| n < self.len()) else { return Ok(None) };
        let Some(entry) = self.try_stored_entry(n)? else { return Ok(None) };
        let found = entry.table_span(0).and_then(|span| self.bytes_of(span));
        Ok((found == Some(slug)).then_some(n))
    }

    /// [`Self::position`] where the caller knows where `slug` most likely
    /// is (`near`: the place of its manifest in a build of the folder
    /// that made this artifact, which holds its products in that order):
    /// that entry's slug is compared first, and the slug directory asked
    /// only when it is another's.
    pub(crate) fn position_near(&self, slug: &[u8], near: usize) -> Result<Option<usize>, ArtifactError> {
        if near < self.len()
            && let Ok(Some(entry)) = self.try_stored_entry(near)
            && entry.table_span(0).and_then(|span| self.bytes_of(span)) == Some(slug)
        {
            return Ok(Some(near));
        }
        self.position(slug)
    }

    /// How many blocks of its head have been read, of how many: all of
    /// a head held whole; of a head read a block at a time
    /// ([`Artifact::open`]), those used so far.
    pub fn head_blocks_read(&self) -> (usize, usize) {
        match &self.index {
            Index::Whole { .. } => {
                let blocks = self.blocks.len() / head::BLOCK_LEN;
                (blocks, blocks)
            }
            Index::Lazy(lazy) => ((0..lazy.blocks.len()).filter(|&k| lazy.is_placed(k)).count(), lazy.blocks.len()),
        }
    }

    /// The blocks of its head.
    pub(crate) fn blocks(&self) -> Vec<Block> {
        match &self.index {
            Index::Lazy(lazy) => lazy.blocks.clone(),
            // Checked when it was parsed (or made so when built).
            Index::Whole { .. } => {
                head::blocks(&self.blocks, &self.metadata, self.table, self.data_len).unwrap_or_default()
            }
        }
    }

    /// Where it holds each of `blocks` (another head's, in order): the
    /// index and table ranges of its block with the same digest and the
    /// same lengths, when it has one. What a delta copies of a head, and
    /// a packed edit names.
    pub(crate) fn holding(&self, blocks: &[Block]) -> Vec<head::Held> {
        head::holding(&self.blocks(), blocks)
    }

    /// Whether its slug directory is the one whose digest is
    /// `directory_sha256` (a metadata's), `len` bytes long.
    pub(crate) fn has_directory(&self, directory_sha256: &str, len: u64) -> bool {
        self.metadata.directory_sha256 == directory_sha256 && self.directory_len() == len
    }

    /// Where its stored index starts in its file.
    pub(crate) fn stored_index_at(&self) -> u64 {
        self.data_at() - self.index.len()
    }

    /// Where its slug directory starts in its file.
    pub(crate) fn directory_at(&self) -> u64 {
        self.stored_index_at() - self.directory.len() as u64
    }

    /// Its slug directory's length.
    pub(crate) fn directory_len(&self) -> u64 {
        self.directory.len() as u64
    }

    /// Hands `f` the table's bytes from `at`, `len` of them, in the
    /// pieces they are held in (nothing for bytes not in memory, nor for
    /// a block that cannot be read).
    pub(super) fn table_bytes(&self, at: u64, len: u64, f: &mut dyn FnMut(&[u8])) {
        let end = at.saturating_add(len).min(self.table);
        if let Index::Lazy(lazy) = &self.index {
            let mut k = lazy.block_at_table(at);
            while let Some(block) = k.and_then(|k| lazy.blocks.get(k)).filter(|block| block.table.start < end) {
                let Ok(placed) = self.block(lazy, k.unwrap_or_default()) else { return };
                let (from, to) = (at.max(block.table.start), end.min(block.table.end));
                f(&placed.table[(from - block.table.start) as usize..(to - block.table.start) as usize]);
                k = k.map(|k| k + 1);
            }
            return;
        }
        for (start, piece) in &self.data {
            let super::Piece::Memory(bytes) = piece else { continue };
            let (from, to) = (at.max(*start), end.min(start + bytes.len() as u64));
            if from < to {
                f(&bytes[(from - start) as usize..(to - start) as usize]);
            }
        }
    }

    /// The table's bytes of `span` and the buffer that holds them, from a
    /// head read a block at a time; `None` for any other.
    pub(super) fn lazy_table_of(&self, span: Span) -> Option<(&Bytes, &[u8])> {
        let Index::Lazy(lazy) = &self.index else { return None };
        let k = lazy.block_at_table(span.offset)?;
        let placed = self.block(lazy, k).ok()?;
        let from = usize::try_from(span.offset - lazy.blocks[k].table.start).ok()?;
        Some((&placed.table, placed.table.get(from..from.checked_add(span.len as usize)?)?))
    }

    /// Each of its stored index's bytes from `at` (an offset of the index), `len` of them, to `f`.
    fn index_bytes(&self, at: u64, len: u64, f: &mut dyn FnMut(&[u8])) -> bool {
        let end = at.saturating_add(len);
        match &self.index {
            Index::Whole { stored, .. } => match stored.get(at as usize..end as usize) {
                Some(bytes) => f(bytes),
                None => return false,
            },
            Index::Lazy(lazy) => {
                let mut k = lazy.blocks.partition_point(|block| block.index.end <= at);
                while let Some(block) = lazy.blocks.get(k).filter(|block| block.index.start < end) {
                    let Ok(placed) = self.block(lazy, k) else { return false };
                    let (from, to) = (at.max(block.index.start), end.min(block.index.end));
                    f(&placed.index[(from - block.index.start) as usize..(to - block.index.start) as usize]);
                    k += 1;
                }
            }
        }
        true
    }

    /// Hands `write` its stored index, then its table, in pieces: what a
    /// file holds between its slug directory and its bodies.
    pub(super) fn head_pieces(&self, f: &mut dyn FnMut(&[u8])) -> Result<(), ArtifactError> {
        self.place_all()?;
        if !self.index_bytes(0, self.index.len(), f) {
            return Err(ArtifactError::Malformed("an index shorter than its blocks".to_owned()));
        }
        self.table_bytes(0, self.table, f);
        Ok(())
    }

    /// `len` bytes of its head from `at` in its file, from its slug
    /// directory, stored index and table (read from its file if they are
    /// not in memory); `None` outside them.
    pub fn head_bytes(&self, at: u64, len: u64) -> Option<Vec<u8>> {
        let mut bytes = Vec::with_capacity(usize::try_from(len).ok()?);
        self.head_bytes_into(at, len, &mut bytes).then_some(bytes)
    }

    /// [`Artifact::head_bytes`], appended to `out`; `false` (and `out` as
    /// it was) outside its index and table.
    pub fn head_bytes_into(&self, at: u64, len: u64, out: &mut Vec<u8>) -> bool {
        let table = self.table;
        let (data_at, index_at, directory_at) = (self.data_at(), self.stored_index_at(), self.directory_at());
        let Some(end) = at.checked_add(len).filter(|&end| at >= directory_at && end <= data_at + table) else {
            return false;
        };
        let before = out.len();
        if at < index_at {
            let (from, to) = ((at - directory_at) as usize, (end.min(index_at) - directory_at) as usize);
            out.extend_from_slice(&self.directory[from..to]);
        }
        if at < data_at
            && end > index_at
            && !self.index_bytes(at.max(index_at) - index_at, end.min(data_at) - at.max(index_at), &mut |bytes| {
                out.extend_from_slice(bytes);
            })
        {
            out.truncate(before);
            return false;
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

    /// The `d`th site document's index entry; an error when its block
    /// cannot be read or fails its checks.
    pub(crate) fn try_document(&self, d: usize) -> Result<Option<DocumentEntry>, ArtifactError> {
        let Some(n) = self.len().checked_add(d).filter(|_| d < self.documents_len()) else { return Ok(None) };
        Ok(self.try_stored_entry(n)?.map(|entry| entry.document()))
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

#[cfg(test)]
mod tests {
    use super::Artifact;
    use crate::catalog::Builder;
    use crate::encoding::ContentCoding;

    /// A product is found at its own place wherever it is looked for
    /// first, held whole or read a block at a time; a slug the artifact
    /// does not hold is found nowhere, whatever place is named.
    #[test]
    fn a_product_is_found_where_it_is_whatever_place_is_looked_at_first() {
        let template: serde_json::Value =
            serde_json::from_str(foundry_catalog::examples::MANIFESTS[0].1).expect("an example is JSON");
        let sources = (0..300).map(|n| {
            let mut manifest = template.clone();
            manifest["slug"] = serde_json::json!(format!("product-{n:04}"));
            (format!("product-{n:04}.json"), manifest.to_string())
        });
        let builder = Builder::new().codings(&[ContentCoding::Identity]).expect("identity");
        let bytes = builder.build(sources).expect("builds").artifact().to_vec();
        let path = std::env::temp_dir().join(format!("foundry-position-near-{}.fcat", std::process::id()));
        std::fs::write(&path, &bytes).expect("written");
        let whole = Artifact::parse(bytes.into()).expect("parses");
        let lazy = Artifact::open(&path, u64::MAX).expect("opens");
        for artifact in [&whole, &lazy] {
            for n in (0..300_usize).step_by(7) {
                let slug = format!("product-{n:04}");
                for near in [n, 0, n + 1, n.saturating_sub(1), 299, 300, usize::MAX] {
                    let found = artifact.position_near(slug.as_bytes(), near).expect("readable");
                    assert_eq!(found, Some(n), "{slug} looked for at {near} first");
                }
            }
            for near in [0, 150, 299, usize::MAX] {
                assert_eq!(artifact.position_near(b"product-9999", near).expect("readable"), None);
            }
        }
        let _ = std::fs::remove_file(&path);
    }
}
