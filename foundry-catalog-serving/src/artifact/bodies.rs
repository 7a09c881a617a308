//! Where an artifact's bodies live: in memory (built, or read whole), in
//! its own file (opened), or layered over another artifact's file (a
//! replica's delta, a build on a previous artifact), and how they are
//! read and copied from there.

use std::sync::Arc;

use bytes::Bytes;

use std::ops::Range;

use super::{Artifact, ArtifactError, Block, Span};
use crate::encoding::ContentCoding;

/// Where an artifact's bodies are: one of the ways it was made.
#[derive(Debug, Clone)]
pub(crate) enum Bodies {
    /// In its data pieces, made by [`Artifact::new`] in this process:
    /// buffers, and ranges of a previous artifact's file a build took
    /// unread. Its names and ETags need no checking.
    Built,
    /// In memory, read with the rest of the file ([`Artifact::parse`]).
    Read,
    /// In its own file, read from it when asked for ([`Artifact::open`]).
    File(Arc<BodyFile>),
    /// In its data pieces, ranges of its own file and of `base`'s: a file
    /// written with holes where its base holds its bytes, bodies and
    /// blocks of its head ([`crate::delta::open_layered`]).
    Layered {
        /// The base's file and head.
        base: Arc<BaseHead>,
    },
    /// Not at hand: a head alone ([`Artifact::from_head`]).
    Absent,
}

/// An artifact file whose bodies are read from it when they are asked for
/// ([`Artifact::open`]): they are never trusted as read, but checked
/// against their ETags (which the signature covers) by the catalog that
/// serves them.
#[derive(Debug)]
pub(crate) struct BodyFile {
    pub(super) file: super::stored::StoredFile,
    /// Where the data region starts in the file.
    pub(super) data_at: u64,
}

impl BodyFile {
    /// A file a build writes bodies to as it makes them (its data region
    /// is the whole file).
    pub(crate) fn spool(file: std::fs::File) -> BodyFile {
        BodyFile { file: super::stored::StoredFile::plain(file, 0), data_at: 0 }
    }

    /// Writes `bytes` at `offset` of the data region.
    pub(crate) fn write_at(&self, bytes: &[u8], offset: u64) -> std::io::Result<()> {
        use std::os::unix::fs::FileExt;
        let at = self.data_at.checked_add(offset).ok_or(std::io::ErrorKind::InvalidInput)?;
        let file = self.file.plain_file().ok_or(std::io::ErrorKind::Unsupported)?;
        file.write_all_at(bytes, at)
    }

    /// The file's metadata as it is now (`fstat` of the file opened).
    pub(crate) fn metadata(&self) -> std::io::Result<std::fs::Metadata> {
        self.file.metadata()
    }

    /// Copies `len` bytes of the data region from `offset` to the end of
    /// `out`, in the kernel where it can (`copy_file_range`: a copy in the
    /// page cache; a file system that clones extents clones only ranges on
    /// its block boundaries, which an artifact's bodies are not), else
    /// through a buffer; an error when the file has become shorter.
    pub(crate) fn copy_to(&self, offset: u64, len: u64, out: &mut std::fs::File) -> std::io::Result<()> {
        let from = self.data_at.checked_add(offset).ok_or(std::io::ErrorKind::InvalidInput)?;
        self.file.copy_to(from, len, out)
    }

    /// Reads `len` bytes of the data region from `offset`: an error, not
    /// a short read, when the file has become shorter.
    pub(crate) fn read(&self, offset: u64, len: usize) -> std::io::Result<Vec<u8>> {
        let mut bytes = Vec::new();
        bytes.try_reserve_exact(len).map_err(|_| std::io::Error::from(std::io::ErrorKind::OutOfMemory))?;
        bytes.resize(len, 0);
        let at = self.data_at.checked_add(offset).ok_or(std::io::ErrorKind::InvalidInput)?;
        self.file.read_exact_at(&mut bytes, at)?;
        Ok(bytes)
    }
}

/// The file a layered artifact reads what it has as holes from (its
/// base, [`crate::delta::open_layered`]), and where that file holds the
/// blocks of its head: a block of the layered artifact's head with the
/// same digest and lengths is read from there.
#[derive(Debug)]
pub(crate) struct BaseHead {
    pub(super) file: Arc<BodyFile>,
    /// Where its stored index starts in the file.
    index_at: u64,
    /// Its head's blocks.
    blocks: Vec<Block>,
}

impl BaseHead {
    /// Where it holds each of `blocks` (another head's, in order), as
    /// [`Artifact::holding`] says.
    pub(crate) fn holding(&self, blocks: &[Block]) -> Vec<super::head::Held> {
        super::head::holding(&self.blocks, blocks)
    }

    /// The bytes of its stored index in `index` and of its table in
    /// `table` (offsets of each, as a block gives them), read from its
    /// file: unchecked, for the block that names them to check.
    pub(super) fn read(&self, index: &Range<u64>, table: &Range<u64>) -> std::io::Result<(Vec<u8>, Vec<u8>)> {
        let len = |range: &Range<u64>| usize::try_from(range.end - range.start).map_err(std::io::Error::other);
        let mut index_bytes = vec![0; len(index)?];
        let at = self.index_at.checked_add(index.start).ok_or(std::io::ErrorKind::InvalidInput)?;
        self.file.file.read_exact_at(&mut index_bytes, at)?;
        Ok((index_bytes, self.file.read(table.start, len(table)?)?))
    }
}

/// A piece of a data region: bytes in memory, or a range of the bodies of
/// another artifact file (a previous artifact opened from its file, whose
/// bytes a build takes without reading them: they are copied file to file
/// when the new artifact is written).
#[derive(Debug, Clone)]
pub(crate) enum Piece {
    /// Bytes in memory.
    Memory(Bytes),
    /// `len` bytes of `file`'s data region from `at`.
    File {
        /// The file.
        file: Arc<BodyFile>,
        /// Where the range starts in its data region.
        at: u64,
        /// Its length.
        len: u64,
    },
}

impl Piece {
    pub(crate) fn len(&self) -> u64 {
        match self {
            Piece::Memory(bytes) => bytes.len() as u64,
            Piece::File { len, .. } => *len,
        }
    }
}

impl Artifact {
    /// Opens an artifact file to layer over `base` (an artifact
    /// opened from its file): its head read and checked as
    /// [`Artifact::open`] does, each block of it that `base` holds (the
    /// same digest and lengths) read from `base`'s file, the others from
    /// its own; and its bodies placed by `runs` (in file
    /// order, tiling its bodies: each an offset of its file, a length, and
    /// where in `base`'s file the run is when `base` holds it, else `None`
    /// for its own file). [`crate::delta::open_layered`] says which.
    pub(crate) fn open_over(
        path: &std::path::Path,
        base: &Artifact,
        max_len: u64,
        runs: impl FnOnce(&Artifact) -> Vec<(u64, u64, Option<u64>)>,
    ) -> Result<Artifact, ArtifactError> {
        let not_layered = |what: &str| ArtifactError::Malformed(format!("a layered artifact needs {what}"));
        let mut artifact = Self::open(path, max_len)?;
        let Bodies::File(own) = std::mem::replace(&mut artifact.bodies, Bodies::Absent) else {
            return Err(not_layered("an artifact file"));
        };
        let Some(base_head) = base.body_file().and(base.base_head()) else {
            return Err(not_layered("a base file"));
        };
        artifact.read_head_over(Arc::clone(&base_head)).map_err(|()| not_layered("a head of its own"))?;
        let (from, base_at) = (&base_head.file, base.data_at());
        let runs = runs(&artifact);
        let pieces =
            runs.into_iter().map(|(at, len, in_base)| (at, len, in_base.map(|in_base| (from, in_base - base_at))));
        artifact.place(&own, &base_head, pieces)?;
        Ok(artifact)
    }

    /// Places its bodies (a head: [`Artifact::from_head`], or
    /// [`Artifact::open`] with its file taken) by `pieces`, in file
    /// order, tiling its bodies: each an offset of its file, a length, and
    /// the file and data-region offset holding it when that is not `own`
    /// (its own file): layered over `base`.
    pub(super) fn place<'f>(
        &mut self,
        own: &Arc<BodyFile>,
        base: &Arc<BaseHead>,
        pieces: impl Iterator<Item = (u64, u64, Option<(&'f Arc<BodyFile>, u64)>)>,
    ) -> Result<(), ArtifactError> {
        let data_at = self.data_at();
        let mut at = self.table;
        for (run_at, len, elsewhere) in pieces {
            let offset = run_at.checked_sub(data_at).unwrap_or(u64::MAX);
            if offset != at {
                return Err(ArtifactError::Malformed(format!("the bodies do not tile the data region at {offset}")));
            }
            let piece = match elsewhere {
                Some((file, in_file)) => Piece::File { file: Arc::clone(file), at: in_file, len },
                None => Piece::File { file: Arc::clone(own), at: offset, len },
            };
            self.data.push((offset, piece));
            at += len;
        }
        if at != self.data_len {
            return Err(ArtifactError::Malformed(format!("the bodies end at {at} of {} bytes", self.data_len)));
        }
        self.bodies = Bodies::Layered { base: Arc::clone(base) };
        Ok(())
    }

    /// A head ([`Artifact::from_head`]) whose file a replica has just
    /// written at `path` from `old` (an artifact whose bodies are in files)
    /// and the origin, as `runs` said (offsets of the file, lengths, and
    /// where in `old`'s file the run was copied from, if it was): its
    /// bodies then read from that file, or, when `layered`, from `old`'s
    /// base file wherever `old` reads them from it (the runs written there
    /// as holes: [`Artifact::copy_range`] with `old` as `holes_for`), and
    /// from that file elsewhere. The head is not read back: what is served
    /// is checked against this one's ETags, whichever file holds it.
    pub(crate) fn attach(
        mut self,
        path: &std::path::Path,
        old: &Artifact,
        runs: impl Iterator<Item = (u64, u64, Option<u64>)>,
        layered: bool,
    ) -> Result<Artifact, ArtifactError> {
        let read_error = |e: std::io::Error| ArtifactError::Read(e.to_string());
        let file = crate::files::open_nonblocking(path).map_err(read_error)?;
        let len = regular_len(&file, u64::MAX)?;
        if !matches!(self.bodies, Bodies::Absent) || len != self.file_len() {
            return Err(ArtifactError::Length { expected: self.file_len(), found: len });
        }
        let file = super::stored::StoredFile::plain(file, len);
        let own = Arc::new(BodyFile { file, data_at: self.data_at() });
        if !layered {
            self.bodies = Bodies::File(own);
            return Ok(self);
        }
        let base_head = old
            .base_head()
            .ok_or_else(|| ArtifactError::Malformed("a layered artifact needs a base file".to_owned()))?;
        let base = &base_head.file;
        let mut pieces = Vec::new();
        for (at, len, from) in runs {
            let Some(from) = from else {
                pieces.push((at, len, None));
                continue;
            };
            let mut cursor = at;
            for (file, in_file, len) in old.stored_in(from, len).map_err(read_error)? {
                pieces.push((cursor, len, Arc::ptr_eq(file, base).then_some((base, in_file))));
                cursor += len;
            }
        }
        self.place(&own, &base_head, pieces.into_iter())?;
        Ok(self)
    }

    /// The file its bodies are read from where a layered artifact over it
    /// ([`crate::delta::open_layered`]) has holes: a layered artifact's
    /// base file, or its own file.
    pub(super) fn base_file(&self) -> Option<&Arc<BodyFile>> {
        match &self.bodies {
            Bodies::Layered { base } => Some(&base.file),
            Bodies::File(file) => Some(file),
            Bodies::Built | Bodies::Read | Bodies::Absent => None,
        }
    }

    /// [`Artifact::base_file`] and where it holds its head's blocks: what
    /// a layered artifact over it reads from it.
    pub(crate) fn base_head(&self) -> Option<Arc<BaseHead>> {
        match &self.bodies {
            Bodies::Layered { base } => Some(Arc::clone(base)),
            // Its own file holds its head whole: written so, or opened from it.
            Bodies::File(file) => Some(Arc::new(BaseHead {
                file: Arc::clone(file),
                index_at: self.stored_index_at(),
                blocks: self.blocks(),
            })),
            Bodies::Built | Bodies::Read | Bodies::Absent => None,
        }
    }

    /// The files, and where in their data regions, that hold `len` bytes
    /// of its bodies from `at` (an offset of its file), in order; an error
    /// for a range outside its bodies, or bodies not in a file.
    pub(super) fn stored_in(&self, at: u64, len: u64) -> std::io::Result<Vec<(&Arc<BodyFile>, u64, u64)>> {
        let outside = || std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a range of the artifact's bodies");
        let table = self.table;
        let offset = at.checked_sub(self.data_at()).filter(|&offset| offset >= table).ok_or_else(outside)?;
        let end = offset.checked_add(len).filter(|&end| end <= self.data_len).ok_or_else(outside)?;
        if let Bodies::File(file) = &self.bodies {
            return Ok(vec![(file, offset, len)]);
        }
        let mut stored = Vec::new();
        let first = self.data.partition_point(|(start, _)| *start <= offset).checked_sub(1).ok_or_else(outside)?;
        for (start, piece) in &self.data[first..] {
            if *start >= end {
                break;
            }
            let Piece::File { file, at, len } = piece else { return Err(outside()) };
            let (from, to) = (offset.max(*start), end.min(start + len));
            if from < to {
                stored.push((file, at + (from - start), to - from));
            }
        }
        if stored.iter().map(|(_, _, len)| len).sum::<u64>() != len {
            return Err(outside());
        }
        Ok(stored)
    }

    /// Copies `len` bytes of its file from `at` (a [`crate::delta::Source::Old`]
    /// offset) to `out` at its position, file to file, from the files its
    /// bodies are read from, as they were opened ([`Artifact::open`],
    /// [`crate::delta::open_layered`]). Bytes held by `holes_for`'s base file
    /// (its own file, or its base's when it is layered itself) are not
    /// copied: `out`'s position moves past them, leaving a hole that a
    /// layered artifact over that base never reads. Returns the bytes copied. An error for an artifact whose
    /// bodies are not in a file, or a range outside its bodies.
    pub fn copy_range(
        &self,
        at: u64,
        len: u64,
        out: &mut std::fs::File,
        holes_for: Option<&Artifact>,
    ) -> std::io::Result<u64> {
        use std::io::Seek;
        let skipped = holes_for.and_then(Artifact::base_file);
        let mut copied = 0;
        for (file, offset, len) in self.stored_in(at, len)? {
            if skipped.is_some_and(|skipped| Arc::ptr_eq(skipped, file)) {
                out.seek(std::io::SeekFrom::Current(i64::try_from(len).map_err(std::io::Error::other)?))?;
            } else {
                file.copy_to(offset, len, out)?;
                copied += len;
            }
        }
        Ok(copied)
    }

    /// How many of `len` bytes of its file from `at` [`Artifact::copy_range`]
    /// copies with these `holes_for`.
    pub fn bytes_to_copy(&self, at: u64, len: u64, holes_for: Option<&Artifact>) -> std::io::Result<u64> {
        let skipped = holes_for.and_then(Artifact::base_file);
        Ok(self
            .stored_in(at, len)?
            .into_iter()
            .filter(|(file, _, _)| !skipped.is_some_and(|skipped| Arc::ptr_eq(skipped, file)))
            .map(|(_, _, len)| len)
            .sum())
    }

    /// Whether its bodies are in memory (built, or read whole), not left
    /// in a file nor absent (a head alone, [`Artifact::from_head`]).
    #[cfg(feature = "signing")]
    pub(crate) fn holds_bodies(&self) -> bool {
        match self.bodies {
            Bodies::Read => true,
            Bodies::Built => self.data.iter().all(|(_, piece)| matches!(piece, Piece::Memory(_))),
            Bodies::File(_) | Bodies::Layered { .. } | Bodies::Absent => false,
        }
    }

    /// The file its bodies are read from, when they were left in it
    /// ([`Artifact::open`]).
    pub(crate) fn body_file(&self) -> Option<&Arc<BodyFile>> {
        match &self.bodies {
            Bodies::File(file) => Some(file),
            _ => None,
        }
    }

    /// Whether its bodies are read from files when they are asked for
    /// (its own, [`Artifact::open`]; or its own and its base's,
    /// [`crate::delta::open_layered`]), not held in memory.
    pub fn bodies_in_files(&self) -> bool {
        matches!(self.bodies, Bodies::File(_) | Bodies::Layered { .. })
    }

    /// The bytes of a span held in memory and the buffer that holds them
    /// (to share them: [`Bytes::slice_ref`]); `None` out of bounds or in a
    /// file.
    pub(crate) fn memory_of(&self, span: Span) -> Option<(&Bytes, &[u8])> {
        if span.offset < self.table && self.is_lazy() {
            return self.lazy_table_of(span);
        }
        let buffer = self.data.partition_point(|(start, _)| *start <= span.offset).checked_sub(1)?;
        let (start, Piece::Memory(bytes)) = &self.data[buffer] else { return None };
        let from = usize::try_from(span.offset - start).ok()?;
        Some((bytes, bytes.get(from..from.checked_add(span.len as usize)?)?))
    }

    /// The bytes of a span, shared with the artifact (no copy).
    pub(crate) fn slice(&self, span: Span) -> Result<Bytes, ArtifactError> {
        self.slice_range(span.offset, u64::from(span.len))
    }

    /// `len` bytes of the data region from `offset`, when they lie in one
    /// buffer, shared with the artifact (no copy), or read from the file
    /// its bodies were left in (unchecked: a catalog checks what it serves).
    pub(crate) fn slice_range(&self, offset: u64, len: u64) -> Result<Bytes, ArtifactError> {
        let out_of_bounds = || ArtifactError::Malformed(format!("a span at {offset} of {len} bytes"));
        let end = offset.checked_add(len).filter(|&end| end <= self.data_len).ok_or_else(out_of_bounds)?;
        if offset < self.table && self.is_lazy() {
            let span = Span { offset, len: u32::try_from(len).map_err(|_| out_of_bounds())? };
            let (buffer, bytes) = self.lazy_table_of(span).ok_or_else(out_of_bounds)?;
            return Ok(buffer.slice_ref(bytes));
        }
        if let Bodies::File(file) = &self.bodies
            && offset >= self.table
        {
            let len = usize::try_from(len).map_err(|_| out_of_bounds())?;
            return file.read(offset, len).map(Bytes::from).map_err(|e| ArtifactError::Read(e.to_string()));
        }
        let buffer =
            self.data.partition_point(|(start, _)| *start <= offset).checked_sub(1).ok_or_else(out_of_bounds)?;
        let (start, piece) = &self.data[buffer];
        match piece {
            Piece::Memory(bytes) => {
                let from = usize::try_from(offset - start).map_err(|_| out_of_bounds())?;
                let to = usize::try_from(end - start).ok().filter(|&to| to <= bytes.len()).ok_or_else(out_of_bounds)?;
                Ok(bytes.slice(from..to))
            }
            Piece::File { file, at, len: piece_len } => {
                if end - start > *piece_len {
                    return Err(out_of_bounds());
                }
                let len = usize::try_from(len).map_err(|_| out_of_bounds())?;
                file.read(at + (offset - start), len).map(Bytes::from).map_err(|e| ArtifactError::Read(e.to_string()))
            }
        }
    }

    /// The bytes of a span held in memory (a table's, or any of an
    /// artifact read whole), borrowed; `None` out of bounds or in a file.
    pub(crate) fn bytes_of(&self, span: Span) -> Option<&[u8]> {
        self.memory_of(span).map(|(_, bytes)| bytes)
    }

    /// Where a body of a built artifact lies when it is a range of another
    /// artifact's file (its previous one's, taken unread): that file and
    /// the body's offset in its data region.
    pub(crate) fn stored_elsewhere(&self, span: Span) -> Option<(&Arc<BodyFile>, u64)> {
        let buffer = self.data.partition_point(|(start, _)| *start <= span.offset).checked_sub(1)?;
        let (start, Piece::File { file, at, len }) = &self.data[buffer] else { return None };
        let within = span.offset - start;
        (within.checked_add(u64::from(span.len))? <= *len).then_some((file, at + within))
    }

    /// The body of the `n`th of `representations` (in the order of the
    /// codings), unchecked: read, or inflated from its gzip body.
    pub(crate) fn body(&self, representations: &[(Span, Span)], n: usize) -> Result<Bytes, ArtifactError> {
        let &(body, _) = representations.get(n).ok_or_else(|| ArtifactError::Malformed("no such body".to_owned()))?;
        if !body.is_inflated() {
            return self.slice(body);
        }
        let gzip = self.metadata.codings.iter().position(|&c| c == ContentCoding::Gzip);
        let gzip = gzip.and_then(|gzip| representations.get(gzip)).map(|&(gzip, _)| gzip);
        let gzip =
            self.slice(gzip.ok_or_else(|| ArtifactError::Malformed("an inflated body without gzip".to_owned()))?)?;
        crate::encoding::gunzip(&gzip, body.len)
            .map(Bytes::from)
            .ok_or_else(|| ArtifactError::Malformed(format!("a gzip body that does not inflate to {} bytes", body.len)))
    }
}

/// The length of `file`, checked to be a regular file (not a FIFO or a
/// device) of at most `max_len` bytes.
pub(super) fn regular_len(file: &std::fs::File, max_len: u64) -> Result<u64, ArtifactError> {
    let metadata = file.metadata().map_err(|e| ArtifactError::Read(e.to_string()))?;
    if !metadata.is_file() {
        return Err(ArtifactError::Read("not a regular file".to_owned()));
    }
    let len = metadata.len();
    if len > max_len {
        return Err(ArtifactError::TooLarge { len, max: max_len });
    }
    Ok(len)
}
