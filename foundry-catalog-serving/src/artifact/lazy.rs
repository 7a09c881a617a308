//! A head read a block at a time, as dm-verity reads a hash tree: an
//! artifact opened from its file ([`super::Artifact::open`]) holds its
//! block list and slug directory, checked against the CRC-32 and the
//! signature at start, and reads each block's index entries and table
//! bytes the first time one of its entries is asked for. They are checked
//! against the block's digest in the block list, placed from where the
//! block list says its runs start, and every entry checked
//! ([`super::forms`]), before any of it is used; a block that fails is
//! an error for each request that needs it (the server answers 503) and
//! is read again at the next one, never kept. So start-up reads what
//! grows with the block count (48 bytes a block of about 64 products) and
//! the directory (20 bytes a product), not the head.
//!
//! A layered artifact's head ([`super::Artifact::open_over`]) reads each
//! block its base holds (the same digest and lengths) from the base's
//! file: a replica writes those as holes.

use std::sync::{Arc, OnceLock};

use bytes::Bytes;
use sha2::{Digest, Sha256};

use super::head::{self, Block, Start, View};
use super::{ArtifactError, BaseHead, BodyFile, Metadata};

/// The head of an artifact left in its file, read a block at a time.
#[derive(Debug)]
pub(crate) struct LazyHead {
    file: Arc<BodyFile>,
    /// Where the stored index starts in the file.
    index_at: u64,
    /// The stored index's length.
    pub(super) index_len: u64,
    pub(super) blocks: Vec<Block>,
    placed: Box<[OnceLock<Placed>]>,
    /// For a layered artifact: its base, and where the base holds each
    /// block (its index and table ranges there), if it does.
    over: Option<(Arc<BaseHead>, Vec<head::Held>)>,
}

/// One block read, checked and placed.
#[derive(Debug)]
pub(crate) struct Placed {
    first: usize,
    pub(super) index: Bytes,
    pub(super) table: Bytes,
    table_at: u64,
    starts: Vec<Start>,
}

impl Placed {
    /// A view of it.
    pub(super) fn view(&self) -> View<'_> {
        View {
            first: self.first,
            index: &self.index,
            table: &self.table,
            table_at: self.table_at,
            starts: &self.starts,
        }
    }
}

impl LazyHead {
    /// The head of the artifact in `file` whose stored index starts at
    /// `index_at` and is `index_len` bytes long, cut into `blocks` (checked
    /// to tile it, [`head::blocks`]).
    pub(super) fn new(file: Arc<BodyFile>, index_at: u64, index_len: u64, blocks: Vec<Block>) -> LazyHead {
        let placed = blocks.iter().map(|_| OnceLock::new()).collect();
        LazyHead { file, index_at, index_len, blocks, placed, over: None }
    }

    /// Its blocks that `base` holds read from `base`'s file from now on.
    pub(super) fn over(&mut self, base: Arc<BaseHead>) {
        let held = base.holding(&self.blocks);
        self.over = Some((base, held));
    }

    /// The block that holds entry `n`.
    pub(super) fn block_of(&self, n: usize) -> Option<usize> {
        let k = self.blocks.partition_point(|block| block.entries.end <= n as u64);
        (k < self.blocks.len()).then_some(k)
    }

    /// The block whose table bytes hold the table's byte `offset`.
    pub(super) fn block_at_table(&self, offset: u64) -> Option<usize> {
        let k = self.blocks.partition_point(|block| block.table.end <= offset);
        (k < self.blocks.len()).then_some(k)
    }

    /// Whether block `k` has been read and checked.
    pub(super) fn is_placed(&self, k: usize) -> bool {
        self.placed.get(k).is_some_and(|placed| placed.get().is_some())
    }

    /// Block `k`, read and checked the first time it is asked for (each
    /// of its entries checked by `check`, which is given the directory
    /// too); an error, and nothing kept, when it cannot be read or fails a
    /// check.
    pub(super) fn placed(
        &self,
        k: usize,
        metadata: &Metadata,
        check: &dyn Fn(&View<'_>) -> Result<(), ArtifactError>,
    ) -> Result<&Placed, ArtifactError> {
        let cell = self.placed.get(k).ok_or_else(|| ArtifactError::Malformed(format!("no block {k}")))?;
        if let Some(placed) = cell.get() {
            return Ok(placed);
        }
        let placed = self.read(k, metadata)?;
        check(&placed.view())?;
        Ok(cell.get_or_init(|| placed))
    }

    /// Reads block `k`'s index entries and table bytes (from the base
    /// when it holds them), checks them
    /// against its digest and places its entries.
    fn read(&self, k: usize, metadata: &Metadata) -> Result<Placed, ArtifactError> {
        let block = &self.blocks[k];
        let read_error = |e: std::io::Error| ArtifactError::Read(e.to_string());
        // Bounded by the block list's checks: at most 256 entries, 4 KiB of table bytes each.
        let (index, table) = match &self.over {
            Some((base, held)) if let Some(Some((index, table))) = held.get(k) => {
                base.read(index, table).map_err(read_error)?
            }
            _ => {
                let mut index = vec![0; (block.index.end - block.index.start) as usize];
                self.file.file.read_exact_at(&mut index, self.index_at + block.index.start).map_err(read_error)?;
                let len = (block.table.end - block.table.start) as usize;
                (index, self.file.read(block.table.start, len).map_err(read_error)?)
            }
        };
        let mut hasher = Sha256::new();
        hasher.update(&index);
        hasher.update(&table);
        if hasher.finalize().as_slice() != block.digest {
            return Err(ArtifactError::Malformed(format!(
                "block {k} of the head (entries {} to {}) does not match its digest in the block list",
                block.entries.start,
                block.entries.end - 1
            )));
        }
        let (first, count) = (block.entries.start as usize, (block.entries.end - block.entries.start) as usize);
        let start = Start { table: block.table.start, bodies: block.bodies.start };
        let (starts, end) = head::place(&index, metadata, first, count, start);
        if starts.len() != count || end.table != block.table.end || end.bodies != block.bodies.end {
            return Err(ArtifactError::Malformed(format!(
                "block {k} of the head: its entries' lengths add up to {} table bytes and {} of bodies, where the block list says {} and {}",
                end.table - block.table.start,
                end.bodies - block.bodies.start,
                block.table.end - block.table.start,
                block.bodies.end - block.bodies.start
            )));
        }
        Ok(Placed { first, index: index.into(), table: table.into(), table_at: block.table.start, starts })
    }
}
