//! Where a build writes its data: blocks that grow without copying, and
//! runs of a previous artifact's bytes shared as they are, in the two
//! parts of the version-4 layout.

use std::sync::Arc;

use bytes::BytesMut;

use crate::artifact::{Artifact, BodyFile, Piece, Span};

/// One thread's data: bytes appended to blocks, so that growing never
/// copies what was written (as doubling a `Vec` would) and no product is
/// an allocation of its own, and runs of a previous artifact's bytes,
/// shared rather than copied. Blocks start at [`Blocks::FIRST`] and double
/// up to [`Blocks::SIZE`], so a rebuild that renders one product holds a
/// small block, not a large one, for as long as that product is served. A
/// block's unused tail is never written, so it takes address space but no
/// memory.
#[derive(Default)]
pub(super) struct Blocks {
    pieces: Vec<Piece>,
    current: BytesMut,
    /// Where a sealed block goes when the bodies are spooled
    /// (`Builder::spool_bodies`): written to this file, one block at a
    /// time, and its bytes reused, so memory holds one block; and how much
    /// of the file is written.
    spool: Option<(Arc<BodyFile>, u64)>,
    /// The first write to the spool that failed.
    failed: Option<std::io::Error>,
    /// The previous artifact's range the last piece holds, while it can grow.
    run: Option<(u64, u64)>,
    /// Bytes written so far: the offset of the next span.
    pub(super) written: u64,
    /// The capacity of the next block.
    next: usize,
}

impl Blocks {
    const FIRST: usize = 64 << 10;
    const SIZE: usize = 4 << 20;
    /// The largest block a spooled writer holds: written out whole, it is
    /// one `pwrite` of 1 MiB.
    const SPOOLED: usize = 1 << 20;

    /// Blocks written to `file` as each fills.
    pub(super) fn spooled(file: std::fs::File) -> Blocks {
        Blocks { spool: Some((Arc::new(BodyFile::spool(file)), 0)), ..Blocks::default() }
    }

    /// Appends `bytes`; returns their span.
    pub(super) fn put(&mut self, bytes: &[u8]) -> Span {
        if self.current.capacity() - self.current.len() < bytes.len() {
            self.seal();
            let most = if self.spool.is_some() { Self::SPOOLED } else { Self::SIZE };
            let size = self.next.clamp(Self::FIRST, most);
            self.next = size * 2;
            // A spooled block's bytes are written out: its memory is reused.
            if self.spool.is_none() || self.current.capacity() < bytes.len().max(size) {
                self.current = BytesMut::with_capacity(size.max(bytes.len()));
            }
        }
        self.run = None;
        let span = Span { offset: self.written, len: u32::try_from(bytes.len()).unwrap_or(u32::MAX) };
        self.current.extend_from_slice(bytes);
        self.written += bytes.len() as u64;
        span
    }

    /// Appends `len` bytes of `from`'s data region at `offset` without
    /// copying them (a range of its file, when its bodies were left in
    /// it); returns where they start, or `None` when they do not lie in
    /// one of its buffers.
    pub(super) fn share(&mut self, from: &Artifact, offset: u64, len: u64) -> Option<u64> {
        let at = self.written;
        if let Some(file) = from.body_file()
            && offset >= from.table_len()
        {
            self.seal();
            self.run = None;
            match self.pieces.last_mut() {
                Some(Piece::File { file: last, at: start, len: run })
                    if Arc::ptr_eq(last, file) && *start + *run == offset =>
                {
                    *run += len;
                }
                _ => self.pieces.push(Piece::File { file: Arc::clone(file), at: offset, len }),
            }
            self.written += len;
            return Some(at);
        }
        if let Some((start, end)) = self.run
            && end == offset
            && self.current.is_empty()
            && let Ok(longer) = from.slice_range(start, end + len - start)
        {
            *self.pieces.last_mut()? = Piece::Memory(longer);
            self.run = Some((start, end + len));
        } else {
            let bytes = from.slice_range(offset, len).ok()?;
            self.seal();
            self.pieces.push(Piece::Memory(bytes));
            self.run = Some((offset, offset + len));
        }
        self.written += len;
        Some(at)
    }

    /// Moves what the current block holds into the pieces: its bytes, or
    /// where the spool file holds them once written there.
    fn seal(&mut self) {
        if self.current.is_empty() {
            return;
        }
        let Some((file, spooled)) = &mut self.spool else {
            self.pieces.push(Piece::Memory(self.current.split().freeze()));
            return;
        };
        let len = self.current.len() as u64;
        if let Err(e) = file.write_at(&self.current, *spooled) {
            self.failed.get_or_insert(e);
        }
        match self.pieces.last_mut() {
            Some(Piece::File { file: last, at, len: run }) if Arc::ptr_eq(last, file) && *at + *run == *spooled => {
                *run += len;
            }
            _ => self.pieces.push(Piece::File { file: Arc::clone(file), at: *spooled, len }),
        }
        *spooled += len;
        self.current.clear();
    }

    /// Its pieces, in order; an error when a write to its spool failed.
    pub(super) fn finish(mut self) -> std::io::Result<Vec<Piece>> {
        self.seal();
        match self.failed {
            Some(e) => Err(e),
            None => Ok(self.pieces),
        }
    }
}

/// One writer's data, in the two parts of the version-4 layout: the
/// table (slugs, dates, ETags, paths) and the bodies.
#[derive(Default)]
pub(super) struct Data {
    pub(super) table: Blocks,
    pub(super) bodies: Blocks,
}

impl Data {
    /// A writer's data, its bodies written to a new spool file in `dir`
    /// when given ([`crate::files::spool_in`]), else held in memory.
    pub(super) fn new(spool: Option<&std::path::Path>) -> std::io::Result<Data> {
        let bodies = match spool {
            Some(dir) => Blocks::spooled(crate::files::spool_in(dir)?),
            None => Blocks::default(),
        };
        Ok(Data { table: Blocks::default(), bodies })
    }
}
