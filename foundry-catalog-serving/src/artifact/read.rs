//! Reading an artifact: from bytes in memory, from a file read whole, or
//! opened with its bodies left in the file; every check of the head made
//! before anything is served.

use std::sync::Arc;

use bytes::Bytes;

use super::header::{CRC_FROM, HeadCrc, Header, Stored, signature_of};
use super::index::Index;
use super::layout::{BLOCKS, HEADER_LEN};
use super::lazy::LazyHead;
use super::stored::StoredFile;
use super::{Artifact, ArtifactError, Bodies, BodyFile, CheckSummary, Metadata, Piece, Signature, Summary, head};

/// A slug directory larger than this is checked against the CRC as it is
/// read, before it is read into memory.
const STREAMED: u64 = 64 << 20;

/// Reads a file in one piece per core, after its header: a file that is
/// not an artifact, or whose lengths do not add up, costs its header, not
/// its length in memory.
pub(super) fn read_file(file: &StoredFile, max_len: u64) -> Result<Vec<u8>, ArtifactError> {
    const BLOCK: usize = 8 << 20;
    let read_error = |e: std::io::Error| ArtifactError::Read(e.to_string());
    let len = stored_len(file, max_len)?;
    let mut prefix = [0; HEADER_LEN];
    let prefix_len = usize::try_from(len).map_or(HEADER_LEN, |len| len.min(HEADER_LEN));
    file.read_exact_at(&mut prefix[..prefix_len], 0).map_err(read_error)?;
    Header::parse(&prefix[..prefix_len], len)?;
    let too_much = || ArtifactError::Read(format!("cannot take {len} bytes of memory to read it"));
    let len = usize::try_from(len).map_err(|_| too_much())?;
    // Asked first, fallibly, so memory the system cannot give is an error
    // (a running server keeps its catalog), then taken zeroed: calloc's
    // fresh pages are zeroed by the kernel as the reading threads first
    // touch them, where filling a reserved Vec would write every byte once
    // more, on one thread.
    Vec::<u8>::new().try_reserve_exact(len).map_err(|_| too_much())?;
    let mut bytes = vec![0; len];
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let piece = len.div_ceil(threads).next_multiple_of(BLOCK).max(BLOCK);
    let reads: Vec<std::io::Result<()>> = std::thread::scope(|scope| {
        let workers: Vec<_> = bytes
            .chunks_mut(piece)
            .enumerate()
            .map(|(i, part)| {
                scope.spawn(move || {
                    for (j, block) in part.chunks_mut(BLOCK).enumerate() {
                        file.read_exact_at(block, (i * piece + j * BLOCK) as u64)?;
                    }
                    Ok(())
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))).collect()
    });
    reads.into_iter().collect::<std::io::Result<()>>().map_err(read_error)?;
    Ok(bytes)
}

impl Artifact {
    /// Reads an artifact file's bytes (see the module documentation for
    /// every check). The bodies stay where they are: the returned artifact
    /// and every catalog loaded from it share `bytes`.
    pub fn parse(bytes: Bytes) -> Result<Artifact, ArtifactError> {
        Self::checked(bytes)
    }

    /// Reads an artifact file once and parses it, however large
    /// ([`Artifact::read_at_most`] without a limit: memory the system
    /// cannot give is an error, not an abort).
    pub fn read(path: &std::path::Path) -> Result<Artifact, ArtifactError> {
        Self::read_at_most(path, u64::MAX)
    }

    /// Reads an artifact file of at most `max_len` bytes once and parses
    /// it, bodies and all. What a file says is checked before memory is
    /// taken for it: it must be a regular file (not a FIFO or a device) of
    /// at most `max_len` bytes, starting with the magic, a version this
    /// crate reads and region lengths that add up to its length; and
    /// memory the system cannot give is an error, not an abort. The file
    /// is then read in pieces on all cores. [`Artifact::open`] reads only
    /// what a catalog needs before it serves, leaving the bodies in the
    /// file.
    pub fn read_at_most(path: &std::path::Path, max_len: u64) -> Result<Artifact, ArtifactError> {
        let file = StoredFile::open(path, max_len).map_err(|e| ArtifactError::Read(e.to_string()))?;
        Self::checked(Bytes::from(read_file(&file, max_len)?))
    }

    /// Opens an artifact file of at most `max_len` bytes and reads what
    /// must be checked before anything is served, leaving the rest in the
    /// file: the header, then the metadata and signature (at most 16 MiB),
    /// then, only when the lengths are the ones the metadata implies, the
    /// block list and the slug directory, whose CRC-32 it checks. Each
    /// block of the index and the table is read and checked when it is
    /// first used (as dm-verity reads a hash tree); the bodies are read when asked for (by
    /// [`crate::catalog::ResponseCatalog`], which checks each against its
    /// ETag before it serves a byte of it). Both are read from the file as
    /// opened: renaming another file over its path changes nothing this
    /// artifact reads.
    pub fn open(path: &std::path::Path, max_len: u64) -> Result<Artifact, ArtifactError> {
        Self::open_checked(path, max_len, &|_| Ok(()))
    }

    /// [`Artifact::open`], `check` judging the file's summary (header,
    /// metadata, signature, block list and slug directory: the lengths the
    /// header claims checked against the metadata, the block list against
    /// both; `Summary::verify_any`, feature `signing`: its signature)
    /// before anything is kept of it: a refusal costs the summary, whatever
    /// the file claims. The file is opened without waiting and must be a
    /// regular one (a FIFO is refused, never waited on).
    pub fn open_checked(
        path: &std::path::Path,
        max_len: u64,
        check: &CheckSummary<'_>,
    ) -> Result<Artifact, ArtifactError> {
        let read_error = |e: std::io::Error| ArtifactError::Read(e.to_string());
        let file = StoredFile::open(path, max_len).map_err(read_error)?;
        let len = stored_len(&file, max_len)?;
        let mut prefix = [0; HEADER_LEN];
        let prefix_len = usize::try_from(len).map_or(HEADER_LEN, |len| len.min(HEADER_LEN));
        file.read_exact_at(&mut prefix[..prefix_len], 0).map_err(read_error)?;
        let header = Header::parse(&prefix[..prefix_len], len)?;
        let [meta_len, signature_len, ..] = header.lengths;
        header.check_head_lengths()?;
        // Read into memory taken fallibly (what the system cannot give is
        // an error). What is read is bounded (checked before each read),
        // and lies in the file (the header's lengths add up).
        let read_into = |at: u64, len: u64| -> Result<Vec<u8>, ArtifactError> {
            let size = usize::try_from(len).map_err(|_| ArtifactError::Read(format!("{len} bytes")))?;
            let mut bytes = Vec::new();
            bytes
                .try_reserve_exact(size)
                .map_err(|_| ArtifactError::Read(format!("cannot take {len} bytes of memory")))?;
            bytes.resize(size, 0);
            file.read_exact_at(&mut bytes, at).map_err(read_error)?;
            Ok(bytes)
        };
        let meta_and_signature = read_into(HEADER_LEN as u64, meta_len + signature_len)?;
        // Nothing more is read for a file whose lengths only add up.
        header.check_index_lengths(&meta_and_signature)?;
        let (blocks_at, directory_at, index_at) = (header.at(BLOCKS), header.directory_at(), header.index_at());
        let blocks = read_into(blocks_at, directory_at - blocks_at)?;
        let summary = Summary::from_parts(header.clone(), &meta_and_signature, &blocks)?;
        check(&summary)?;
        // A directory larger than STREAMED is checked against the CRC as it
        // is read, before memory is taken for it: a file whose claims
        // nothing signed costs its reading, not its claims.
        let mut crc = HeadCrc::until(index_at);
        for part in [&prefix[..], &meta_and_signature, &blocks] {
            crc.update(part);
        }
        let directory = if index_at - directory_at > STREAMED {
            let mut buffer = vec![0; 8 << 20];
            let mut at = directory_at;
            while at < index_at {
                let len = buffer.len().min(usize::try_from(index_at - at).unwrap_or(usize::MAX));
                file.read_exact_at(&mut buffer[..len], at).map_err(read_error)?;
                crc.update(&buffer[..len]);
                at += len as u64;
            }
            header.check_streamed_crc(crc)?;
            read_into(directory_at, index_at - directory_at)?
        } else {
            let directory = read_into(directory_at, index_at - directory_at)?;
            crc.update(&directory);
            header.check_streamed_crc(crc)?;
            directory
        };
        let metadata = summary.metadata().clone();
        head::check_directory(&directory, &metadata)?;
        let mut meta_and_signature = Bytes::from(meta_and_signature);
        let metadata_json = meta_and_signature.split_to(meta_len as usize);
        let [.., index_len, table_len, bodies_len] = header.lengths;
        let file = Arc::new(BodyFile { file, data_at: header.data_at() });
        let lazy = LazyHead::new(Arc::clone(&file), index_at, index_len, summary.blocks().to_vec());
        let artifact = Artifact {
            metadata,
            metadata_json,
            signature: signature_of(&meta_and_signature)?,
            index: Index::Lazy(Arc::new(lazy)),
            blocks: blocks.into(),
            directory: directory.into(),
            data: Vec::new(),
            data_len: table_len + bodies_len,
            table: table_len,
            bodies: Bodies::File(file),
            bodies_checked: Arc::default(),
            blocks_checked: Arc::default(),
            forms_trusted: Arc::default(),
        };
        artifact.check_metadata()?;
        Ok(artifact)
    }

    /// The head of an artifact file of `file_len` bytes, given as
    /// its first bytes (at least [`Summary::head_len`] of them): the
    /// header, metadata, signature, block list, index and table, checked as
    /// [`Artifact::open`] checks them; its bodies are not there to read.
    /// What a replica fetches first of a new artifact, to know what else
    /// to fetch ([`crate::delta`]).
    /// The head is taken as is, not copied: a `Vec` or `Bytes` of it is
    /// held by the artifact.
    pub fn from_head(head: impl Into<Bytes>, file_len: u64) -> Result<Artifact, ArtifactError> {
        let head: Bytes = head.into();
        let header = Header::parse(head.get(..HEADER_LEN).unwrap_or(&head), file_len)?;
        header.check_head_lengths()?;
        let part = |from: u64, to: u64| -> Result<Bytes, ArtifactError> {
            let range = usize::try_from(from).ok().zip(usize::try_from(to).ok());
            range
                .filter(|&(from, to)| from <= to && to <= head.len())
                .map(|(from, to)| head.slice(from..to))
                .ok_or(ArtifactError::Length { expected: to, found: head.len() as u64 })
        };
        let meta_and_signature = part(HEADER_LEN as u64, header.at(BLOCKS))?;
        header.check_index_lengths(&meta_and_signature)?;
        let rest = part(header.at(BLOCKS), header.head_end())?;
        Self::from_head_parts(&header, Some(&head[..HEADER_LEN]), [meta_and_signature, rest], Bodies::Absent)
    }

    /// Writes the slug directory into `head` (an artifact file's head, of
    /// a file of `file_len` bytes: its bytes up to its bodies, the
    /// directory's left as anything), made from its index and table: what
    /// a replica does rather than fetch it ([`crate::delta::Source::Made`]).
    /// What it makes is checked against the metadata's digest of it (which
    /// the signature covers) when the head is read
    /// ([`Artifact::from_head`]), like any directory.
    pub fn fill_directory(head: &mut [u8], file_len: u64) -> Result<(), ArtifactError> {
        let header = Header::parse(head.get(..HEADER_LEN).unwrap_or(head), file_len)?;
        header.check_head_lengths()?;
        let short = ArtifactError::Length { expected: header.head_end(), found: head.len() as u64 };
        let (blocks_at, directory_at, index_at) = (header.at(BLOCKS), header.directory_at(), header.index_at());
        let (data_at, head_end) = (header.data_at(), header.head_end());
        if (head.len() as u64) < head_end {
            return Err(short);
        }
        let meta_and_signature = &head[HEADER_LEN..blocks_at as usize];
        header.check_index_lengths(meta_and_signature)?;
        let metadata: Metadata = serde_json::from_slice(&meta_and_signature[..header.lengths[0] as usize])
            .map_err(|e| ArtifactError::Malformed(format!("metadata: {e}")))?;
        let [.., table_len, bodies_len] = header.lengths;
        let (stored, table) = head[index_at as usize..head_end as usize].split_at((data_at - index_at) as usize);
        let starts = head::load(stored, &metadata, table_len, table_len + bodies_len)?;
        let view = head::View { first: 0, index: stored, table, table_at: 0, starts: &starts };
        let products = usize::try_from(metadata.products).unwrap_or(usize::MAX);
        let slugs: Vec<&[u8]> = (0..products.min(starts.len()))
            .map(|n| view.entry(&metadata, n).and_then(|entry| entry.table_span(0)).and_then(|span| view.bytes(span)))
            .collect::<Option<_>>()
            .ok_or_else(|| ArtifactError::Malformed("a slug outside the table".to_owned()))?;
        let directory = head::directory(slugs.into_iter());
        let region = &mut head[directory_at as usize..index_at as usize];
        if region.len() != directory.len() {
            return Err(ArtifactError::Malformed(format!("a slug directory of {} bytes", region.len())));
        }
        region.copy_from_slice(&directory);
        Ok(())
    }

    /// Assembles an artifact from its head's parts (the metadata and
    /// signature, then the block list, index and table), checking the
    /// CRC-32 when given the header's bytes `prefix` (else it was checked),
    /// and placing the index's spans.
    pub(super) fn from_head_parts(
        header: &Header,
        prefix: Option<&[u8]>,
        [meta_and_signature, rest]: [Bytes; 2],
        bodies: Bodies,
    ) -> Result<Artifact, ArtifactError> {
        let [meta_len, _, blocks_len, directory_len, index_len, table_len, bodies_len] = header.lengths;
        if let Some(prefix) = prefix {
            let summary_len = (header.index_at() - header.at(BLOCKS)) as usize;
            header.check_crc(&[&prefix[CRC_FROM..HEADER_LEN], &meta_and_signature, &rest[..summary_len]])?;
        }
        let mut head = meta_and_signature;
        let mut rest = rest;
        let metadata_json = head.split_to(meta_len as usize);
        let blocks = rest.split_to(blocks_len as usize);
        let directory = rest.split_to(directory_len as usize);
        let stored_index = rest.split_to(index_len as usize);
        // Parsed already by the length checks; parsed again from what is kept.
        let metadata =
            serde_json::from_slice(&metadata_json).map_err(|e| ArtifactError::Malformed(format!("metadata: {e}")))?;
        let stored = Stored { blocks, directory, index: stored_index };
        Self::placed(
            metadata,
            metadata_json,
            signature_of(&head)?,
            stored,
            rest,
            [table_len, table_len + bodies_len],
            bodies,
        )
    }

    /// An artifact from its parts as stored: its index's spans
    /// placed from the stored lengths, its block list checked to cover
    /// the index, the table and the bodies, its slug directory checked to
    /// name each product once (their digests and entries are checked by
    /// `Artifact::check_blocks` and `check_entries`); `data` is the table, or the table and
    /// the bodies, of `[table, table and bodies]` bytes.
    pub(super) fn placed(
        metadata: Metadata,
        metadata_json: Bytes,
        signature: Option<Signature>,
        stored: Stored,
        data: Bytes,
        [table_len, data_len]: [u64; 2],
        bodies: Bodies,
    ) -> Result<Artifact, ArtifactError> {
        let starts = head::load(&stored.index, &metadata, table_len, data_len)?;
        head::blocks(&stored.blocks, &metadata, table_len, data_len)?;
        head::check_directory(&stored.directory, &metadata)?;
        let artifact = Artifact {
            metadata,
            metadata_json,
            signature,
            index: Index::Whole { stored: stored.index, starts: starts.into() },
            blocks: stored.blocks,
            directory: stored.directory,
            data: vec![(0, Piece::Memory(data))],
            data_len,
            table: table_len,
            bodies,
            bodies_checked: Arc::default(),
            blocks_checked: Arc::default(),
            forms_trusted: Arc::default(),
        };
        artifact.check_metadata()?;
        Ok(artifact)
    }

    /// Parses an artifact file's bytes: its head checked as
    /// [`Artifact::open`] checks it, its bodies left for the catalog that
    /// loads it to check.
    pub(super) fn checked(bytes: Bytes) -> Result<Artifact, ArtifactError> {
        let header = Header::parse(bytes.get(..HEADER_LEN).unwrap_or(&bytes), bytes.len() as u64)?;
        header.check_head_lengths()?;
        // The header's lengths add up to the file's: these convert.
        let (blocks_at, head_end) = (header.at(BLOCKS) as usize, header.head_end() as usize);
        // The CRC first: a corrupted byte anywhere in the head is named as such.
        header.check_crc(&[&bytes[CRC_FROM..header.index_at() as usize]])?;
        let meta_and_signature = bytes.slice(HEADER_LEN..blocks_at);
        header.check_index_lengths(&meta_and_signature)?;
        let parts = [meta_and_signature, bytes.slice(blocks_at..head_end)];
        let mut artifact = Self::from_head_parts(&header, None, parts, Bodies::Absent)?;
        // The table and the bodies, as one buffer.
        artifact.data = vec![(0, Piece::Memory(bytes.slice(header.data_at() as usize..)))];
        artifact.bodies = Bodies::Read;
        Ok(artifact)
    }
}

/// The length of a stored artifact, at most `max_len` bytes.
fn stored_len(file: &StoredFile, max_len: u64) -> Result<u64, ArtifactError> {
    let len = file.len();
    if len > max_len {
        return Err(ArtifactError::TooLarge { len, max: max_len });
    }
    Ok(len)
}
