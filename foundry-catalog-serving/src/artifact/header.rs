//! The fixed header and the other encodings of the head: the signature
//! region, what a signature signs, and the CRC-32 of the head.

use bytes::Bytes;

use super::layout::{
    DIRECTORY, FORMAT_VERSION, HEADER_LEN, INDEX, MAGIC, MAX_METADATA_LEN, MAX_TABLE_PER_ENTRY, REGIONS, SIGNATURE_LEN,
    TABLE,
};
use super::{ArtifactError, Metadata, Signature, head};

/// What a signature signs, before the rest of the signed message.
#[cfg(feature = "signing")]
const SIGNING_CONTEXT: &[u8] = b"foundry-catalog artifact signature\n";

/// What a signature covers: the context, the format version, then the
/// metadata (which holds the slug directory's digest) and the block list,
/// each after its length.
#[cfg(feature = "signing")]
pub(crate) fn signed_message(version: &[u8], parts: [&[u8]; 2]) -> Vec<u8> {
    let len = parts.iter().map(|part| 8 + part.len()).sum::<usize>();
    let mut message = Vec::with_capacity(SIGNING_CONTEXT.len() + version.len() + len);
    message.extend_from_slice(SIGNING_CONTEXT);
    message.extend_from_slice(version);
    for part in parts {
        message.extend_from_slice(&(part.len() as u64).to_le_bytes());
        message.extend_from_slice(part);
    }
    message
}

pub(super) fn le_u64(bytes: &[u8]) -> u64 {
    let mut le = [0; 8];
    le.copy_from_slice(&bytes[..8]);
    u64::from_le_bytes(le)
}

/// What an artifact's header says.
#[derive(Debug, Clone)]
pub(super) struct Header {
    pub(super) crc: u32,
    /// The region lengths: metadata, signature, block list, slug
    /// directory, index, table, bodies.
    pub(super) lengths: [u64; REGIONS],
}

/// A head's block list, slug directory and index, as stored.
pub(super) struct Stored {
    pub(super) blocks: Bytes,
    pub(super) directory: Bytes,
    pub(super) index: Bytes,
}

impl Header {
    /// Reads the header at the start of `prefix` (the file's first bytes,
    /// at least [`HEADER_LEN`] of them when the file has them) and checks
    /// it against the file's length `file_len`.
    pub(super) fn parse(prefix: &[u8], file_len: u64) -> Result<Header, ArtifactError> {
        if prefix.starts_with(&super::layout::PACK_LIST_MAGIC) {
            return Err(ArtifactError::Packed);
        }
        if prefix.len() < MAGIC.len() || prefix[..MAGIC.len()] != MAGIC {
            return Err(ArtifactError::NotAnArtifact);
        }
        let u32_at = |at: usize| prefix.get(at..at + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        let u64_at = |at: usize| prefix.get(at..at + 8).map(le_u64);
        let too_short = ArtifactError::Length { expected: HEADER_LEN as u64, found: file_len };
        // The version first: an older file is named as such, however short.
        match u32_at(8) {
            Some(FORMAT_VERSION) => {}
            Some(found) => return Err(ArtifactError::Version { found }),
            None => return Err(too_short),
        }
        let Some(crc) = u32_at(12) else { return Err(too_short) };
        let mut lengths = [0; REGIONS];
        for (n, length) in lengths.iter_mut().enumerate() {
            *length = u64_at(16 + 8 * n).ok_or(too_short.clone())?;
        }
        let expected = lengths.into_iter().try_fold(HEADER_LEN as u64, u64::checked_add);
        if expected != Some(file_len) {
            return Err(ArtifactError::Length { expected: expected.unwrap_or(u64::MAX), found: file_len });
        }
        Ok(Header { crc, lengths })
    }

    /// Where region `n` ([`Header::lengths`]) starts in the file (the
    /// lengths add up to the file's: no overflow).
    pub(super) fn at(&self, n: usize) -> u64 {
        HEADER_LEN as u64 + self.lengths[..n].iter().sum::<u64>()
    }

    /// Where the data region starts in the file (the table's start).
    pub(super) fn data_at(&self) -> u64 {
        self.at(TABLE)
    }

    /// Where the index starts in the file.
    pub(super) fn index_at(&self) -> u64 {
        self.at(INDEX)
    }

    /// Where the head ends: after the table.
    pub(super) fn head_end(&self) -> u64 {
        self.at(TABLE + 1)
    }

    /// Where the slug directory starts in the file.
    pub(super) fn directory_at(&self) -> u64 {
        self.at(DIRECTORY)
    }

    /// Checks the CRC-32 of the head's bytes after the CRC field (`parts`,
    /// in order).
    pub(super) fn check_crc(&self, parts: &[&[u8]]) -> Result<(), ArtifactError> {
        self.check_crc_found(crc32(parts))
    }

    /// Checks the CRC-32 of a head taken as it was read.
    pub(super) fn check_streamed_crc(&self, crc: HeadCrc) -> Result<(), ArtifactError> {
        self.check_crc_found(crc.hasher.finalize())
    }

    fn check_crc_found(&self, found: u32) -> Result<(), ArtifactError> {
        if found == self.crc { Ok(()) } else { Err(ArtifactError::Checksum { expected: self.crc, found }) }
    }

    /// Checks what the header alone says of the metadata and signature.
    pub(super) fn check_head_lengths(&self) -> Result<(), ArtifactError> {
        let [meta_len, signature_len, ..] = self.lengths;
        if meta_len > MAX_METADATA_LEN {
            return Err(ArtifactError::Malformed(format!("{meta_len} bytes of metadata")));
        }
        if signature_len != 0 && signature_len != SIGNATURE_LEN as u64 {
            return Err(ArtifactError::Malformed(format!("a signature of {signature_len} bytes")));
        }
        Ok(())
    }

    /// Checks the index's length against the one the metadata (the start
    /// of `meta_and_signature`) implies, and the block list's and the
    /// table's against their bounds.
    pub(super) fn check_index_lengths(&self, meta_and_signature: &[u8]) -> Result<(), ArtifactError> {
        let [meta_len, _, blocks_len, directory_len, index_len, table_len, _] = self.lengths;
        let metadata: Metadata =
            serde_json::from_slice(meta_and_signature.get(..meta_len as usize).unwrap_or_default())
                .map_err(|e| ArtifactError::Malformed(format!("metadata: {e}")))?;
        let documents = metadata.pages.as_ref().map_or(0, |pages| pages.documents);
        let entries = metadata.products.saturating_add(documents);
        if blocks_len % head::BLOCK_LEN as u64 != 0 || blocks_len > entries.saturating_mul(head::BLOCK_LEN as u64) {
            return Err(ArtifactError::Malformed(format!(
                "a block list of {blocks_len} bytes for {} products and {documents} site documents",
                metadata.products
            )));
        }
        if metadata.products.checked_mul(head::DIRECTORY_ENTRY_LEN as u64) != Some(directory_len) {
            return Err(ArtifactError::Malformed(format!(
                "a slug directory of {directory_len} bytes for {} products",
                metadata.products
            )));
        }
        if head::index_len(&metadata) != Some(index_len) {
            return Err(ArtifactError::Malformed(format!(
                "an index of {index_len} bytes for {} products and {documents} site documents",
                metadata.products
            )));
        }
        let most_table = (metadata.products.saturating_add(documents)).saturating_mul(MAX_TABLE_PER_ENTRY);
        if table_len > most_table {
            return Err(ArtifactError::Malformed(format!(
                "a table of {table_len} bytes for {} products and {documents} site documents",
                metadata.products
            )));
        }
        Ok(())
    }
}

/// CRC-32 of the parts as one stream; on all cores for big inputs.
/// Where the bytes the CRC-32 covers begin: just after its own field.
pub(super) const CRC_FROM: usize = 16;

/// The CRC-32 of a head taken piece by piece as it is read, from the
/// file's first byte: the bytes up to the CRC field's end, and from the
/// index on, which it does not cover, are skipped. Made by
/// `Summary::head_crc`, checked by `Summary::check_head_crc`.
pub(crate) struct HeadCrc {
    hasher: crc32fast::Hasher,
    /// How many of the file's bytes it has been given.
    seen: usize,
    /// Where the bytes it covers end: the index's start.
    end: usize,
}

impl HeadCrc {
    /// The CRC-32 of the bytes of a file before `end`, the index's start.
    pub(super) fn until(end: u64) -> HeadCrc {
        HeadCrc { hasher: crc32fast::Hasher::new(), seen: 0, end: usize::try_from(end).unwrap_or(usize::MAX) }
    }

    /// Takes the file's next `bytes`.
    pub(crate) fn update(&mut self, bytes: &[u8]) {
        let skip = CRC_FROM.saturating_sub(self.seen).min(bytes.len());
        let take = self.end.saturating_sub(self.seen).min(bytes.len());
        if skip < take {
            self.hasher.update(&bytes[skip..take]);
        }
        self.seen = self.seen.saturating_add(bytes.len());
    }
}

pub(super) fn crc32(parts: &[&[u8]]) -> u32 {
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

/// The signature region: empty, or a public key and a signature.
pub(super) fn signature_of(region: &[u8]) -> Result<Option<Signature>, ArtifactError> {
    match region {
        [] => Ok(None),
        region if region.len() == SIGNATURE_LEN => {
            let (mut public_key, mut signature) = ([0; 32], [0; 64]);
            public_key.copy_from_slice(&region[..32]);
            signature.copy_from_slice(&region[32..]);
            Ok(Some(Signature { public_key, signature }))
        }
        other => Err(ArtifactError::Malformed(format!("a signature of {} bytes", other.len()))),
    }
}
