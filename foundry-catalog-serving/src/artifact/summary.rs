//! An artifact's summary: what its first bytes say before its index (the
//! header, metadata, signature and block list), judged before anything
//! more of it is read or fetched.

#[cfg(feature = "signing")]
use bytes::Bytes;

#[cfg(feature = "signing")]
use super::Signature;
use super::header::{Header, signature_of};
use super::layout::{BLOCKS, HEADER_LEN, MAGIC, TABLE};
use super::{ArtifactError, Block, Metadata, head};

/// A check of an artifact's summary before the rest of its head is read
/// or fetched (its signature: `Summary::verify_any`, feature `signing`).
pub type CheckSummary<'a> = dyn Fn(&Summary) -> Result<(), ArtifactError> + 'a;

/// What the first bytes of an artifact say before its index:
/// its header, metadata, signature and block list, which name the blocks
/// of its index and table. What a replica fetches first of a new
/// artifact, to fetch only the blocks of its head it does not hold
/// ([`crate::delta::Plan::head`]), then only the bodies that changed.
#[derive(Debug, Clone)]
pub struct Summary {
    header: Header,
    metadata: Metadata,
    blocks: Vec<Block>,
    /// What its signature covers, as stored: the metadata (which holds
    /// the slug directory's digest) and the block list; and the signature.
    #[cfg(feature = "signing")]
    pub(crate) signed: ([Bytes; 2], Option<Signature>),
}

impl Summary {
    /// How many first bytes of an artifact file of `file_len` bytes its
    /// summary takes, judged from its first bytes `prefix`: `n` larger
    /// than `prefix` asks for the first `n` bytes, to judge again (the
    /// metadata bounds the block list). A prefix that is not an
    /// artifact's (or one of an older format), or whose lengths do not add
    /// up to `file_len` or to what its metadata says, is an error: nothing
    /// more of it is worth reading.
    pub fn len_needed(prefix: &[u8], file_len: u64) -> Result<u64, ArtifactError> {
        if prefix.len() < HEADER_LEN && (prefix.len() as u64) < file_len {
            // The magic and the version, once there, tell a file not worth reading.
            if prefix.len() >= MAGIC.len()
                && let Err(error @ (ArtifactError::NotAnArtifact | ArtifactError::Version { .. })) =
                    Header::parse(prefix, file_len)
            {
                return Err(error);
            }
            return Ok(HEADER_LEN as u64);
        }
        let header = Header::parse(&prefix[..prefix.len().min(HEADER_LEN)], file_len)?;
        header.check_head_lengths()?;
        if (prefix.len() as u64) < header.at(BLOCKS) {
            return Ok(header.at(BLOCKS));
        }
        header.check_index_lengths(&prefix[HEADER_LEN..])?;
        Ok(header.directory_at())
    }

    /// The summary at the start of `prefix` (at least
    /// [`Summary::len_needed`] bytes of it), of a file of `file_len` bytes:
    /// its block list checked to cover the index and the table the header
    /// and the metadata say (not yet against them: a signature over it is
    /// checked with the whole head, [`Artifact::from_head`](super::Artifact::from_head)).
    pub fn parse(prefix: &[u8], file_len: u64) -> Result<Summary, ArtifactError> {
        let header = Header::parse(prefix.get(..HEADER_LEN).unwrap_or(prefix), file_len)?;
        header.check_head_lengths()?;
        let (blocks_at, directory_at) = (header.at(BLOCKS) as usize, header.directory_at() as usize);
        let short = || ArtifactError::Length { expected: directory_at as u64, found: prefix.len() as u64 };
        let meta_and_signature = prefix.get(HEADER_LEN..blocks_at).ok_or_else(short)?;
        header.check_index_lengths(meta_and_signature)?;
        let block_list = prefix.get(blocks_at..directory_at).ok_or_else(short)?;
        Summary::from_parts(header, meta_and_signature, block_list)
    }

    /// The summary of an artifact whose header is `header` (its lengths
    /// checked), from its metadata and signature, and its block list.
    pub(super) fn from_parts(
        header: Header,
        meta_and_signature: &[u8],
        block_list: &[u8],
    ) -> Result<Summary, ArtifactError> {
        let meta_len = header.lengths[0] as usize;
        let (metadata_json, signature) = meta_and_signature.split_at(meta_len.min(meta_and_signature.len()));
        let metadata: Metadata =
            serde_json::from_slice(metadata_json).map_err(|e| ArtifactError::Malformed(format!("metadata: {e}")))?;
        let (table_len, bodies_len) = (header.lengths[TABLE], header.lengths[TABLE + 1]);
        let blocks = head::blocks(block_list, &metadata, table_len, table_len + bodies_len)?;
        let signature = signature_of(signature)?;
        #[cfg(not(feature = "signing"))]
        let _ = signature;
        Ok(Summary {
            header,
            metadata,
            blocks,
            #[cfg(feature = "signing")]
            signed: ([metadata_json, block_list].map(Bytes::copy_from_slice), signature),
        })
    }

    /// The CRC-32 of the head it summarizes, to take as it is read (from
    /// the file's first byte on), for [`Summary::check_head_crc`].
    #[cfg(feature = "replica")]
    pub(crate) fn head_crc(&self) -> super::HeadCrc {
        super::HeadCrc::until(self.header.index_at())
    }

    /// Checks the CRC-32 of the head it summarizes, taken as it was read
    /// (from the file's first byte on) against its header's.
    #[cfg(feature = "replica")]
    pub(crate) fn check_head_crc(&self, crc: super::HeadCrc) -> Result<(), ArtifactError> {
        self.header.check_streamed_crc(crc)
    }

    /// Its metadata, as the file says it (checked against the signature
    /// only with the whole head, [`Artifact::from_head`](super::Artifact::from_head)): what names the
    /// artifact's contents ([`Metadata::content_sha256`]) before anything
    /// else of it is read.
    pub fn metadata(&self) -> &Metadata {
        &self.metadata
    }

    /// The length of the slug directory that follows it.
    pub(crate) fn directory_len(&self) -> u64 {
        self.header.index_at() - self.header.directory_at()
    }

    /// Its length: where the slug directory starts in the file.
    pub fn len(&self) -> u64 {
        self.header.directory_at()
    }

    /// Whether it is empty (never: it holds a header at least).
    pub fn is_empty(&self) -> bool {
        false
    }

    /// The length of the head it summarises: where the bodies start.
    pub fn head_len(&self) -> u64 {
        self.header.head_end()
    }

    /// Its blocks.
    pub(crate) fn blocks(&self) -> &[Block] {
        &self.blocks
    }

    /// Where the table starts in the file.
    pub(crate) fn table_at(&self) -> u64 {
        self.header.data_at()
    }
}

/// The length of the file an artifact's first bytes say it is: its
/// header's and its regions' lengths summed (at least its first 56 bytes,
/// or all of a shorter file). A prefix that does not start with an
/// artifact's header is an error: a download of it can be abandoned at
/// once.
pub fn file_len_of(prefix: &[u8]) -> Result<u64, ArtifactError> {
    if prefix.len() < HEADER_LEN {
        // The magic tells a file that is not an artifact at once.
        Header::parse(prefix, u64::MAX)?;
        return Err(ArtifactError::Length { expected: HEADER_LEN as u64, found: prefix.len() as u64 });
    }
    match Header::parse(&prefix[..HEADER_LEN], u64::MAX) {
        Err(ArtifactError::Length { expected, .. }) if expected != u64::MAX => Ok(expected),
        Err(error) => Err(error),
        // A header whose lengths add up to u64::MAX: no file is that long.
        Ok(_) => Err(ArtifactError::Malformed("a header claiming 2^64 bytes".to_owned())),
    }
}
