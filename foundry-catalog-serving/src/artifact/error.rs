//! Why a file is not a loadable artifact.

use super::layout::FORMAT_VERSION;
use crate::encoding::ContentCoding;

/// Why a file is not a loadable artifact.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum ArtifactError {
    /// The file could not be read.
    #[error("cannot read: {0}")]
    Read(String),
    /// The file does not start with the magic bytes.
    #[error(
        "not a foundry-catalog artifact (it does not start with the artifact magic); hint: build one with `foundry-catalog build <manifest-dir> -o <file>`, or pass a folder of manifests"
    )]
    NotAnArtifact,
    /// The bytes are a pack list (`build --packs`), which names the
    /// artifact's bytes in packs beside it: read from its folder (or
    /// pulled by a replica, its packs beside it at the origin) it is an
    /// artifact; its bytes alone are not.
    #[error(
        "a packed artifact (a pack list naming its bytes in the folder fcpacks beside it), where an artifact's bytes were expected; hint: open it by its path, its fcpacks folder beside it"
    )]
    Packed,
    /// The file has another format version.
    #[error(
        "artifact format version {found}, but this build of foundry-catalog reads version {FORMAT_VERSION} only; hint: rebuild it from its manifests with this version's `foundry-catalog build`"
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
    /// The file is larger than the loader accepts.
    #[error(
        "the file is {len} bytes, over the limit of {max}; hint: if an artifact is meant to be this large, raise the limit (`serve --max-artifact-bytes`)"
    )]
    TooLarge {
        /// The file's length.
        len: u64,
        /// The limit.
        max: u64,
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
    /// Verify keys are set and the artifact carries no signature.
    #[error(
        "the artifact is not signed, and only artifacts signed by a verify key ({expected}) are accepted; hint: build it with `foundry-catalog build --sign-key <NAME>.key`"
    )]
    Unsigned {
        /// The verify keys' fingerprints, comma-separated.
        expected: String,
    },
    /// The artifact is signed by a key that is not a verify key.
    #[error(
        "the artifact is signed by key {found}, not by a verify key ({expected}); hint: build it with the matching `--sign-key`, or verify with that key's .pub file"
    )]
    WrongKey {
        /// The signer's key fingerprint.
        found: String,
        /// The verify keys' fingerprints, comma-separated.
        expected: String,
    },
    /// The signature does not verify: the signed bytes were changed.
    #[error(
        "the signature does not match the artifact's metadata and block list (or index): the file was changed after it was signed; hint: copy it again from where it was built"
    )]
    BadSignature,
    /// The artifact's sequence is below the highest one served: an older
    /// release, replayed.
    #[error(
        "its sequence is {sequence}, below {highest}, the highest this replica has served: refused as a rollback; hint: publish a new build with a higher --sequence"
    )]
    Rollback {
        /// Its sequence.
        sequence: u64,
        /// The highest served.
        highest: u64,
    },
    /// The artifact has no sequence, and one with a sequence was served.
    #[error(
        "it has no sequence, and this replica has served sequence {highest}: refused, as it cannot be ordered; hint: build it with --sequence"
    )]
    NoSequence {
        /// The highest served.
        highest: u64,
    },
    /// Another artifact with the same sequence is being served.
    #[error(
        "its sequence {sequence} is that of an artifact this replica served, with other contents: refused; hint: give every build its own --sequence"
    )]
    SequenceReused {
        /// The sequence.
        sequence: u64,
    },
    /// The artifact's expiry has passed.
    #[error(
        "it expired at {expired} (UTC): refused, as a replica cut off from new builds must not serve stale data as fresh; hint: publish a new build"
    )]
    Expired {
        /// When, as an RFC 3339 text.
        expired: String,
    },
    /// A body does not hash to its ETag: the data was changed.
    #[error(
        "`{slug}`: the {coding} body does not match its ETag: the file was changed after it was built; hint: copy it again from where it was built"
    )]
    Body {
        /// The product.
        slug: String,
        /// The representation.
        coding: ContentCoding,
    },
    /// A body read from the artifact file while it was served is not the
    /// one its ETag names, or cannot be read: the file was truncated or
    /// written to in place after it was opened.
    #[error(
        "the body at byte {offset} of the data region ({len} bytes) {reason}: the artifact file was changed in place after it was opened; hint: publish an artifact by renaming a new file over the old one (`mv`, as `foundry-catalog build -o` does), never by writing into it (`cp`)"
    )]
    Changed {
        /// Where the body starts in the data region.
        offset: u64,
        /// Its length.
        len: u32,
        /// What went wrong: `cannot be read (…)` or `does not match its ETag`.
        reason: String,
    },
}
