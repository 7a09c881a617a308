//! The catalog artifact: a whole pre-built catalog in one file, written by
//! `foundry-catalog build` and loaded by `foundry-catalog serve --catalog
//! <file>` without any JSON work or compression.
//!
//! # Format, version 1
//!
//! All integers are little-endian. A file is a 40-byte header, then three
//! regions back to back, and nothing after them:
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `89 46 43 41 0D 0A 1A 0A` (`\x89FCA\r\n\x1a\n`: a high-bit byte and line ends, so a text-mode transfer is caught as PNG's is) |
//! | 8 | 4 | format version, `1` |
//! | 12 | 4 | CRC-32 (IEEE, as zlib and gzip compute it) of every byte after this field |
//! | 16 | 8 | metadata length *M* |
//! | 24 | 8 | index length *I* |
//! | 32 | 8 | data length *D* |
//! | 40 | *M* | metadata: UTF-8 JSON, see [`Metadata`] |
//! | 40 + *M* | *I* | index: one fixed-size entry per product |
//! | 40 + *M* + *I* | *D* | data: slugs, dates, bodies and ETags, referred to by the index |
//!
//! An index entry is `modified` (u64, the record's `last_updated_at` in
//! whole seconds since 1970), then spans (offset into the data region as
//! u64, length as u32) of the slug, of the `Last-Modified` value (an
//! IMF-fixdate), and of each representation's body and strong ETag, in
//! the order of [`Metadata::codings`]: `8 + 12 + 12 + 24 × codings` bytes.
//! Entries are in the order of the manifests' file names.
//!
//! # Checks when loading
//!
//! The magic, the version (exactly [`FORMAT_VERSION`]), the lengths (the
//! file must be exactly as long as its header says, so a truncated file
//! is named as such), the CRC-32, the metadata, every span (inside the
//! data region), every slug ([`crate::Slug`]), every ETag's form, every
//! date's form, no slug twice, and [`Metadata::content_sha256`]
//! recomputed from the slugs and ETags. Nothing in a file can make the
//! loader panic or read out of bounds. The CRC-32 finds accidental
//! corruption, not tampering: sign or checksum the file where it is
//! published if that matters. Bodies are not hashed again at load (it
//! would cost a SHA-256 pass over every byte); their ETags were computed
//! from them when the artifact was built, and the CRC covers both.

use std::io::Write;

use bytes::Bytes;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::encoding::ContentCoding;

/// The first eight bytes of every artifact.
pub const MAGIC: [u8; 8] = *b"\x89FCA\r\n\x1a\n";
/// The format version this crate writes and reads.
pub const FORMAT_VERSION: u32 = 1;
/// The length of the fixed header.
const HEADER_LEN: usize = 40;
/// A span: offset (u64) and length (u32).
const SPAN_LEN: usize = 12;
/// The most metadata a loader accepts (it is a few hundred bytes).
const MAX_METADATA_LEN: u64 = 1 << 24;
/// The length of a strong ETag: `"` + 64 hex digits + `"`.
const ETAG_LEN: usize = 66;
/// The length of an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`).
const HTTP_DATE_LEN: usize = 29;

/// What an artifact says about itself, stored as JSON after the header.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Metadata {
    /// The tool and version that built it, e.g. `foundry-catalog 0.1.0`.
    pub generator: String,
    /// How many products it holds.
    pub products: u64,
    /// The content codings stored for every product, in index order;
    /// always with `identity`.
    pub codings: Vec<ContentCoding>,
    /// The record types the builder knew, by label, with their schema hashes.
    pub record_types: Vec<RecordTypeId>,
    /// The artifact's identity: the SHA-256 (lowercase hex) of, for each
    /// product in index order, its slug and each representation's ETag,
    /// each followed by a newline. ETags are SHA-256 digests of the
    /// bodies, so this names every byte served; two builds of the same
    /// manifests by the same version give the same value.
    pub content_sha256: String,
}

/// A record type an artifact was built with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordTypeId {
    /// The record label.
    pub record_label: String,
    /// Its schema hash.
    pub schema_hash: String,
}

/// Why a file is not a loadable artifact.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ArtifactError {
    /// The file could not be read.
    #[error("cannot read: {0}")]
    Read(String),
    /// The file does not start with [`MAGIC`].
    #[error(
        "not a foundry-catalog artifact (it does not start with the artifact magic); hint: build one with `foundry-catalog build <manifest-dir> -o <file>`, or pass a folder of manifests"
    )]
    NotAnArtifact,
    /// The file has another format version.
    #[error(
        "artifact format version {found}, but this build of foundry-catalog reads version {FORMAT_VERSION}; hint: rebuild it with this version's `foundry-catalog build`"
    )]
    Version {
        /// The version in the file.
        found: u32,
    },
    /// The file is shorter (or longer) than its header says.
    #[error(
        "the file is {found} bytes but its header says {expected}: it is truncated, has bytes appended or a corrupted header; hint: copy or build it again"
    )]
    Length {
        /// The length the header implies.
        expected: u64,
        /// The file's length.
        found: u64,
    },
    /// The CRC-32 does not match.
    #[error(
        "checksum mismatch (CRC-32 {found:08x}, header says {expected:08x}): the file is corrupted; hint: copy or build it again"
    )]
    Checksum {
        /// The checksum in the header.
        expected: u32,
        /// The checksum of the bytes.
        found: u32,
    },
    /// The checksum matched but the contents are inconsistent (a file not
    /// written by `foundry-catalog build`).
    #[error("malformed artifact: {0}; hint: build it again with `foundry-catalog build`")]
    Malformed(String),
}

/// A byte range of the data region.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span {
    pub(crate) offset: u64,
    pub(crate) len: u32,
}

/// One product as the index stores it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct IndexEntry {
    pub(crate) modified: u64,
    pub(crate) slug: Span,
    pub(crate) last_modified: Span,
    /// `(body, etag)` per coding, in [`Metadata::codings`] order.
    pub(crate) representations: Vec<(Span, Span)>,
}

/// A built or loaded artifact: metadata, index and data, where the data
/// may be held in several buffers (a build writes one per thread; a
/// loaded file is one), read as one region.
#[derive(Debug, Clone)]
pub struct Artifact {
    metadata: Metadata,
    index: Bytes,
    /// `(offset of the buffer in the data region, buffer)`, in order.
    data: Vec<(u64, Bytes)>,
}

impl Artifact {
    /// Assembles an artifact from the index entries and the data buffers
    /// they point into (spans count from the start of the first buffer).
    pub(crate) fn new(
        generator: String,
        codings: Vec<ContentCoding>,
        record_types: Vec<RecordTypeId>,
        entries: &[IndexEntry],
        buffers: Vec<Bytes>,
    ) -> Artifact {
        let mut index = Vec::with_capacity(entries.len() * entry_len(codings.len()));
        for entry in entries {
            index.extend_from_slice(&entry.modified.to_le_bytes());
            for span in [entry.slug, entry.last_modified]
                .into_iter()
                .chain(entry.representations.iter().flat_map(|&(body, etag)| [body, etag]))
            {
                index.extend_from_slice(&span.offset.to_le_bytes());
                index.extend_from_slice(&span.len.to_le_bytes());
            }
        }
        let mut start = 0;
        let data = buffers
            .into_iter()
            .map(|buffer| {
                let at = start;
                start += buffer.len() as u64;
                (at, buffer)
            })
            .collect();
        let mut artifact = Artifact {
            metadata: Metadata {
                generator,
                products: entries.len() as u64,
                codings,
                record_types,
                content_sha256: String::new(),
            },
            index: Bytes::from(index),
            data,
        };
        artifact.metadata.content_sha256 = artifact.content_digest();
        artifact
    }

    /// Reads an artifact file's bytes (see the module documentation for
    /// every check). The bodies stay where they are: the returned artifact
    /// and every catalog loaded from it share `bytes`.
    pub fn parse(bytes: Bytes) -> Result<Artifact, ArtifactError> {
        let crc = crc32(&[bytes.get(16..).unwrap_or_default()]);
        Self::checked(bytes, crc)
    }

    /// Reads an artifact file once and parses it. The file is read in
    /// pieces on all cores, each piece's CRC-32 computed while it is still
    /// in cache, so reading and checking are one pass.
    ///
    /// Why read rather than memory-map: the loaded catalog must not depend
    /// on the file afterwards. A mapped file that is truncated or rewritten
    /// in place (`cp new.fcat catalog.fcat` during a deploy) kills the
    /// process with SIGBUS, or changes bodies under their ETags; a read
    /// copy cannot. Mapping saves the copy (see BENCHMARKS.md).
    pub fn read(path: &std::path::Path) -> Result<Artifact, ArtifactError> {
        let (bytes, crc) = read_file(path).map_err(|e| ArtifactError::Read(e.to_string()))?;
        Self::checked(Bytes::from(bytes), crc)
    }

    /// Parses `bytes`, whose bytes after the CRC field have the CRC-32 `crc`.
    fn checked(bytes: Bytes, crc_of_rest: u32) -> Result<Artifact, ArtifactError> {
        if bytes.len() < MAGIC.len() || bytes[..MAGIC.len()] != MAGIC {
            return Err(ArtifactError::NotAnArtifact);
        }
        let u32_at = |at: usize| bytes.get(at..at + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        let u64_at = |at: usize| bytes.get(at..at + 8).map(le_u64);
        let (Some(version), Some(crc), Some(meta_len), Some(index_len), Some(data_len)) =
            (u32_at(8), u32_at(12), u64_at(16), u64_at(24), u64_at(32))
        else {
            return Err(ArtifactError::Length { expected: HEADER_LEN as u64, found: bytes.len() as u64 });
        };
        if version != FORMAT_VERSION {
            return Err(ArtifactError::Version { found: version });
        }
        let expected = (HEADER_LEN as u64)
            .checked_add(meta_len)
            .and_then(|n| n.checked_add(index_len))
            .and_then(|n| n.checked_add(data_len));
        let found = bytes.len() as u64;
        let Some(expected) = expected.filter(|&n| n == found) else {
            return Err(ArtifactError::Length { expected: expected.unwrap_or(u64::MAX), found });
        };
        debug_assert_eq!(expected, found);
        if crc_of_rest != crc {
            return Err(ArtifactError::Checksum { expected: crc, found: crc_of_rest });
        }
        if meta_len > MAX_METADATA_LEN {
            return Err(ArtifactError::Malformed(format!("{meta_len} bytes of metadata")));
        }
        // All three fit in the file (checked above), so these convert.
        let (meta_len, index_len) = (meta_len as usize, index_len as usize);
        let meta_end = HEADER_LEN + meta_len;
        let metadata: Metadata = serde_json::from_slice(&bytes[HEADER_LEN..meta_end])
            .map_err(|e| ArtifactError::Malformed(format!("metadata: {e}")))?;
        let index = bytes.slice(meta_end..meta_end + index_len);
        let data = bytes.slice(meta_end + index_len..);
        let artifact = Artifact { metadata, index, data: vec![(0, data)] };
        artifact.check_metadata()?;
        Ok(artifact)
    }

    fn check_metadata(&self) -> Result<(), ArtifactError> {
        let codings = &self.metadata.codings;
        if !codings.contains(&ContentCoding::Identity) {
            return Err(ArtifactError::Malformed("the codings lack identity".to_owned()));
        }
        if (1..codings.len()).any(|i| codings[..i].contains(&codings[i])) {
            return Err(ArtifactError::Malformed("a coding is listed twice".to_owned()));
        }
        let expected = usize::try_from(self.metadata.products)
            .ok()
            .and_then(|n| n.checked_mul(entry_len(codings.len())))
            .filter(|&n| n == self.index.len());
        if expected.is_none() {
            return Err(ArtifactError::Malformed(format!(
                "an index of {} bytes for {} products",
                self.index.len(),
                self.metadata.products
            )));
        }
        Ok(())
    }

    /// What the artifact says about itself.
    pub fn metadata(&self) -> &Metadata {
        &self.metadata
    }

    /// The number of products.
    pub fn len(&self) -> usize {
        self.index.len() / entry_len(self.metadata.codings.len())
    }

    /// Whether it holds no product.
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }

    /// The size of the file [`Artifact::write_to`] writes.
    pub fn file_len(&self) -> u64 {
        let data: u64 = self.data.iter().map(|(_, b)| b.len() as u64).sum();
        HEADER_LEN as u64 + self.metadata_json().len() as u64 + self.index.len() as u64 + data
    }

    /// Writes the artifact file: header, metadata, index, data.
    pub fn write_to(&self, mut out: impl Write) -> std::io::Result<()> {
        let metadata = self.metadata_json();
        let data_len: u64 = self.data.iter().map(|(_, b)| b.len() as u64).sum();
        let mut lengths = Vec::with_capacity(24);
        for len in [metadata.len() as u64, self.index.len() as u64, data_len] {
            lengths.extend_from_slice(&len.to_le_bytes());
        }
        let mut parts: Vec<&[u8]> = vec![&lengths, &metadata, &self.index];
        parts.extend(self.data.iter().map(|(_, b)| &b[..]));
        out.write_all(&MAGIC)?;
        out.write_all(&FORMAT_VERSION.to_le_bytes())?;
        out.write_all(&crc32(&parts).to_le_bytes())?;
        for part in parts {
            out.write_all(part)?;
        }
        out.flush()
    }

    /// The whole file as bytes.
    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(usize::try_from(self.file_len()).unwrap_or_default());
        // Writing to a Vec cannot fail.
        let _ = self.write_to(&mut out);
        out
    }

    fn metadata_json(&self) -> Vec<u8> {
        // A struct of strings and numbers always serializes.
        serde_json::to_vec(&self.metadata).unwrap_or_default()
    }

    /// Every index entry, decoded (spans are not checked here).
    pub(crate) fn entries(&self) -> impl Iterator<Item = IndexEntry> + '_ {
        let codings = self.metadata.codings.len();
        self.index.chunks_exact(entry_len(codings)).map(move |entry| {
            let span = |i: usize| {
                let at = 8 + i * SPAN_LEN;
                Span {
                    offset: le_u64(&entry[at..at + 8]),
                    len: u32::from_le_bytes([entry[at + 8], entry[at + 9], entry[at + 10], entry[at + 11]]),
                }
            };
            IndexEntry {
                modified: le_u64(&entry[..8]),
                slug: span(0),
                last_modified: span(1),
                representations: (0..codings).map(|c| (span(2 + 2 * c), span(3 + 2 * c))).collect(),
            }
        })
    }

    /// The bytes of a span, shared with the artifact (no copy).
    pub(crate) fn slice(&self, span: Span) -> Result<Bytes, ArtifactError> {
        let out_of_bounds = || ArtifactError::Malformed(format!("a span at {} of {} bytes", span.offset, span.len));
        let buffer =
            self.data.partition_point(|(start, _)| *start <= span.offset).checked_sub(1).ok_or_else(out_of_bounds)?;
        let (start, bytes) = &self.data[buffer];
        let from = usize::try_from(span.offset - start).map_err(|_| out_of_bounds())?;
        let to = from.checked_add(span.len as usize).filter(|&to| to <= bytes.len()).ok_or_else(out_of_bounds)?;
        Ok(bytes.slice(from..to))
    }

    /// [`Metadata::content_sha256`], computed from the index and data.
    fn content_digest(&self) -> String {
        let mut hasher = Sha256::new();
        for entry in self.entries() {
            let spans = std::iter::once(entry.slug).chain(entry.representations.iter().map(|&(_, etag)| etag));
            for span in spans {
                hasher.update(self.slice(span).unwrap_or_default());
                hasher.update(b"\n");
            }
        }
        hex::encode(hasher.finalize().as_slice())
    }

    /// Checks [`Metadata::content_sha256`] against the contents.
    pub(crate) fn check_content_digest(&self) -> Result<(), ArtifactError> {
        let digest = self.content_digest();
        if digest == self.metadata.content_sha256 {
            Ok(())
        } else {
            Err(ArtifactError::Malformed(format!(
                "content_sha256 is {} but the slugs and ETags give {digest}",
                self.metadata.content_sha256
            )))
        }
    }
}

/// Whether `etag` has the form of the ETags this crate writes.
pub(crate) fn is_strong_etag(etag: &[u8]) -> bool {
    etag.len() == ETAG_LEN
        && etag[0] == b'"'
        && etag[ETAG_LEN - 1] == b'"'
        && etag[1..ETAG_LEN - 1].iter().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b))
}

/// Whether `date` has the length and alphabet of an IMF-fixdate.
pub(crate) fn is_http_date(date: &[u8]) -> bool {
    date.len() == HTTP_DATE_LEN && date.iter().all(|b| b.is_ascii_alphanumeric() || matches!(b, b' ' | b',' | b':'))
}

fn entry_len(codings: usize) -> usize {
    8 + SPAN_LEN * (2 + 2 * codings)
}

fn le_u64(bytes: &[u8]) -> u64 {
    let mut le = [0; 8];
    le.copy_from_slice(&bytes[..8]);
    u64::from_le_bytes(le)
}

/// Reads a file in one piece per core, each read in blocks that are
/// checksummed as they arrive; returns the bytes and the CRC-32 of every
/// byte after the header's CRC field.
fn read_file(path: &std::path::Path) -> std::io::Result<(Vec<u8>, u32)> {
    use std::os::unix::fs::FileExt;
    const BLOCK: usize = 8 << 20;
    let file = std::fs::File::open(path)?;
    let len = usize::try_from(file.metadata()?.len()).map_err(std::io::Error::other)?;
    let mut bytes = vec![0; len];
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    let piece = len.div_ceil(threads).next_multiple_of(BLOCK).max(BLOCK);
    let file = &file;
    let crcs: Vec<std::io::Result<crc32fast::Hasher>> = std::thread::scope(|scope| {
        let workers: Vec<_> = bytes
            .chunks_mut(piece)
            .enumerate()
            .map(|(i, part)| {
                scope.spawn(move || {
                    let mut crc = crc32fast::Hasher::new();
                    for (j, block) in part.chunks_mut(BLOCK).enumerate() {
                        let at = i * piece + j * BLOCK;
                        file.read_exact_at(block, at as u64)?;
                        // The CRC covers the bytes after its own field, at 12..16.
                        crc.update(block.get(16_usize.saturating_sub(at)..).unwrap_or_default());
                    }
                    Ok(crc)
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))).collect()
    });
    let mut total = crc32fast::Hasher::new();
    for crc in crcs {
        total.combine(&crc?);
    }
    Ok((bytes, total.finalize()))
}

/// CRC-32 of the parts as one stream; on all cores for big inputs.
fn crc32(parts: &[&[u8]]) -> u32 {
    const PIECE: usize = 64 << 20;
    let pieces: Vec<&[u8]> = parts.iter().flat_map(|part| part.chunks(PIECE)).collect();
    let crcs = crate::parallel::map(&pieces, |piece| {
        let mut hasher = crc32fast::Hasher::new();
        hasher.update(piece);
        hasher
    });
    let mut total = crc32fast::Hasher::new();
    for crc in crcs {
        total.combine(&crc);
    }
    total.finalize()
}
