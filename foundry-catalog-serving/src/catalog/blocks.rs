//! Where a build writes its data: blocks that grow without copying, and
//! runs of a previous artifact's bytes shared as they are, in the two
//! parts of the version-4 layout.

use std::sync::Arc;

use bytes::BytesMut;

use crate::artifact::{Artifact, Piece, Span};

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

    /// Appends `bytes`; returns their span.
    pub(super) fn put(&mut self, bytes: &[u8]) -> Span {
        if self.current.capacity() - self.current.len() < bytes.len() {
            self.seal();
            let size = self.next.clamp(Self::FIRST, Self::SIZE);
            self.next = size * 2;
            self.current = BytesMut::with_capacity(size.max(bytes.len()));
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

    /// Moves what the current block holds into the pieces.
    fn seal(&mut self) {
        if !self.current.is_empty() {
            self.pieces.push(Piece::Memory(self.current.split().freeze()));
        }
    }

    pub(super) fn finish(mut self) -> Vec<Piece> {
        self.seal();
        self.pieces
    }
}

/// One writer's data, in the two parts of the version-4 layout: the
/// table (slugs, dates, ETags, paths) and the bodies.
#[derive(Default)]
pub(super) struct Data {
    pub(super) table: Blocks,
    pub(super) bodies: Blocks,
}
