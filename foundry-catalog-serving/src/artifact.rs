//! The catalog artifact: a whole pre-built catalog in one file, written by
//! `foundry-catalog build` and loaded by `foundry-catalog serve --catalog
//! <file>` without any JSON work or compression.
//!
//! # Format, version 4
//!
//! All integers are little-endian. A file is a 64-byte header, then six
//! regions back to back, and nothing after them:
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `89 46 43 41 0D 0A 1A 0A` (`\x89FCA\r\n\x1a\n`: a high-bit byte and line ends, so a text-mode transfer is caught as PNG's is) |
//! | 8 | 4 | format version, `4` |
//! | 12 | 4 | CRC-32 (IEEE, as zlib and gzip compute it) of every byte after this field up to the bodies |
//! | 16 | 8 | metadata length *M* |
//! | 24 | 8 | signature length *S*: 0 (unsigned) or 96 |
//! | 32 | 8 | block list length *B* |
//! | 40 | 8 | index length *I* |
//! | 48 | 8 | table length *T* |
//! | 56 | 8 | bodies length *D* |
//! | 64 | *M* | metadata: UTF-8 JSON, see [`Metadata`] |
//! | 64 + *M* | *S* | signature: the signer's Ed25519 public key (32 bytes), then the signature (64 bytes), see [`Signature`] |
//! | 64 + *M* + *S* | *B* | block list: 40 bytes a block |
//! | … + *B* | *I* | index: one fixed-size entry per product, then one per site document |
//! | … + *I* | *T* | table: every slug, date, ETag, page path, `lastmod` and document name |
//! | … + *T* | *D* | bodies |
//!
//! A product's index entry is `modified` (u64, the record's
//! `last_updated_at` in whole seconds since 1970), the SHA-256 of the
//! product's source (32 bytes: the manifest file's bytes, all zeros for a
//! product built from a record; an incremental build compares it to skip
//! unchanged manifests), then the lengths (u32) of its table bytes: its
//! slug, its `Last-Modified` value (an IMF-fixdate) and each
//! representation's strong ETag in the order of [`Metadata::codings`],
//! and in an artifact with pages ([`Metadata::pages`]) its page's path
//! (`canonical_path`), sitemap `lastmod` (the record's `last_updated_at`;
//! empty when the page is `noindex`) and each page representation's ETag;
//! then the lengths of its bodies, each representation's and then its
//! page's: `8 + 32 + 4 × (2 + 2 × codings)` bytes, twice the lengths with
//! pages. With gzip among the codings, a body as is is not stored: its
//! length is the one its gzip body inflates to, and it takes no bytes of
//! the bodies (a reader inflates the gzip body, never past that length,
//! and checks the result against the body's own ETag). A site document's entry ([`SitePages::documents`] of them:
//! `/robots.txt`, the sitemap files, and the not-found page under the name
//! `404`) is the length of its name, of each ETag and of each body. Entries
//! are in the order of the manifests' file names, the site documents'
//! after the products'. The index holds lengths, not offsets: each entry's
//! table bytes are one run of the table, each entry's bodies one run of
//! the bodies, in index order from the first byte of each to its last, so
//! every offset follows from the lengths before it, and an edit changes
//! the entries it touches and no other. (In memory, the index is held as
//! stored, with where each entry's two runs start, 16 bytes an entry:
//! a request reads its spans from its entry's lengths in place.)
//!
//! The block list cuts the entries into blocks: each is the number of
//! entries it holds (u32), the number of table bytes they have (u32), and
//! the SHA-256 of the block's index entries followed by its table bytes.
//! A build ends a block after an entry whose name's SHA-256 starts with a
//! multiple of 64 (as a u32), or at 256 entries: about 64 entries a block,
//! and boundaries that depend on the names alone, so an edit changes one
//! block and an insertion moves no boundary but its own block's. A reader
//! checks that the blocks cover every entry and table byte, in order, and
//! each block's digest. A replica fetches the blocks it does not hold
//! ([`crate::delta::Plan::head`]).
//!
//! The signature is Ed25519 (RFC 8032) over the bytes
//! `foundry-catalog artifact signature\n`, the format version (u32, `4`),
//! *M* (u64), the metadata, *B* (u64) and the block list (versions 2 and
//! 3 signed the context, *M*, the metadata, *I* and the index). The
//! block list names the index and the table; the metadata holds
//! [`Metadata::content_sha256`], which names every slug, page path,
//! `lastmod`, document path and ETag; each ETag names its body's bytes;
//! and the index's lengths must tile the table and the bodies, so they fix
//! both. A signature that verifies, with every block and every ETag checked
//! against what it names, covers every byte served (`Artifact::verify`,
//! with the `signing` feature).
//!
//! # Format 3
//!
//! A 48-byte header (magic, version `3`, the CRC-32 of every byte after
//! it, then *M*, *S*, *I* and the data length), the metadata, the
//! signature, an index of spans (offset u64 and length u32 of each slug,
//! date, body and ETag, in the order above) and one data region in which
//! each product's bytes are one run. Still read, whole.
//!
//! # Formats 2 and 1
//!
//! Version 2 is version 3 without pages: still read, as an artifact
//! without pages. Version 1 is still read (and written again as version 3
//! by [`Artifact::write_to`], as versions 2 and 3 are):
//! a 40-byte header without the signature length (the index length at
//! 24, the data length at 32), no signature region, and index entries
//! without the source digest (read as zeros: no manifest matches it). A
//! version-1 artifact is unsigned, and one written by version 1 of this
//! crate is not built on (its metadata has no
//! [`Metadata::renderer_sha256`]).
//!
//! # Checks when loading
//!
//! The magic, the version (1 to 4), the lengths (the file must be exactly
//! as long as its header says, so a truncated file is named as such), the
//! CRC-32, the metadata, the signature region's length, the index's length
//! (the one the metadata implies) and, in version 4, that its lengths add
//! up to the table's and the bodies', the block list (every entry and
//! table byte covered, in order, each block's digest), every span (inside
//! the data region), every slug ([`foundry_catalog_core::Slug`]), every
//! ETag's form, every date (the `Last-Modified` text must be `modified` as
//! an IMF-fixdate), no slug twice, every page path (`/<route>/<slug>` of
//! its own product) and document name (`/robots.txt`, `/sitemap.xml`,
//! `/sitemap-<n>.xml`, `404`), none twice, that the products' and
//! documents' bytes tile the data region, and
//! [`Metadata::content_sha256`] recomputed from the slugs, paths and
//! ETags. Nothing in a file can make the loader panic or read out of
//! bounds. The CRC-32 finds accidental corruption, not tampering: that is
//! the signature's job. A body is checked against its ETag before it is
//! served: in version 4, when it is first read from the file (or, for an
//! artifact parsed from memory, when its catalog is loaded); in older
//! versions, with a verify key (a SHA-256 pass over every byte).

use std::io::Write;
use std::sync::Arc;

use bytes::Bytes;
use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::encoding::ContentCoding;

mod head;
pub(crate) use head::Block;

/// The first eight bytes of every artifact.
pub(crate) const MAGIC: [u8; 8] = *b"\x89FCA\r\n\x1a\n";
/// The format version this crate writes.
pub(crate) const FORMAT_VERSION: u32 = 4;
/// The oldest format version this crate reads.
pub(crate) const OLDEST_READABLE_VERSION: u32 = 1;
/// The length of the fixed header (version 4): what a reader needs of a
/// file to know its length and where each region lies.
pub const HEADER_LEN: usize = 64;
/// The length of the header of versions 2 and 3.
const HEADER_LEN_V3: usize = 48;
/// The length of version 1's header.
const HEADER_LEN_V1: usize = 40;
/// A span: offset (u64) and length (u32).
const SPAN_LEN: usize = 12;
/// A source digest: SHA-256.
pub(crate) const SOURCE_LEN: usize = 32;
/// The signature region of a signed artifact: public key and signature.
const SIGNATURE_LEN: usize = 96;
/// The largest artifact file [`Artifact::read`] accepts: 8 GiB (an
/// artifact of 100,000 products in three codings is about 1 GiB). A larger
/// file is refused before anything is allocated;
/// [`Artifact::read_at_most`] takes another limit.
pub const DEFAULT_MAX_FILE_LEN: u64 = 8 << 30;
/// The most metadata a loader accepts (it is a few hundred bytes).
const MAX_METADATA_LEN: u64 = 1 << 24;
/// The most table bytes a loader accepts per product and site document:
/// a product's slug, date, ETags, page path and `lastmod` are well under
/// 2 KiB.
const MAX_TABLE_PER_ENTRY: u64 = 4 << 10;
/// The length of a strong ETag: `"` + 64 hex digits + `"`.
const ETAG_LEN: usize = 66;
/// The length of an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`).
const HTTP_DATE_LEN: usize = 29;
/// The last instant an HTTP date can say: 9999-12-31T23:59:59Z.
pub(crate) const LAST_HTTP_DATE: u64 = 253_402_300_799;
/// What a signature signs, before the rest of the signed message.
#[cfg(feature = "signing")]
pub(crate) const SIGNING_CONTEXT: &[u8] = b"foundry-catalog artifact signature\n";

/// What an artifact says about itself, stored as JSON after the header.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct Metadata {
    /// The tool and version that built it, e.g. `foundry-catalog 0.1.0`.
    pub generator: String,
    /// How many products it holds.
    pub products: u64,
    /// The content codings of every product's representations, in index
    /// order; always with `identity`. In format 4, a body as is is not
    /// stored when gzip is among them: it is the gzip body inflated.
    pub codings: Vec<ContentCoding>,
    /// The record types the builder knew, by label, with their schema hashes.
    pub record_types: Vec<RecordTypeId>,
    /// The artifact's identity: the SHA-256 (lowercase hex) of, for each
    /// product in index order, its slug and each representation's ETag,
    /// each followed by a newline. ETags are SHA-256 digests of the
    /// bodies, so this names every byte served; two builds of the same
    /// manifests by the same version give the same value.
    pub content_sha256: String,
    /// What the builder renders every product with, as a digest: the
    /// generator, every compiled-in record type (descriptions and fixture
    /// hints included) and the example catalog rendered and compressed by
    /// it. An incremental build reuses a previous artifact only when this
    /// is its own (and a product only when its record type's
    /// [`RecordTypeId`] is too); absent in version-1 artifacts.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub renderer_sha256: Option<String>,
    /// Its place in a series of releases (`foundry-catalog build
    /// --sequence`, say the CI run number): a replica refuses an artifact
    /// whose sequence is below the highest it has served, so an older
    /// artifact, however validly signed, cannot be replayed. Absent when
    /// not given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sequence: Option<u64>,
    /// When it stops being fresh, in seconds since 1970 (UTC): a replica
    /// refuses it from then on, and reports it when it is still serving it
    /// then. Absent when not given (a build never reads the clock unless
    /// asked to).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub expires: Option<u64>,
    /// The product pages built with the bodies (`foundry-catalog build`
    /// without `--no-pages`): each index entry then holds its page, and
    /// the site documents follow the products. Absent when built without
    /// pages (and in versions 1 and 2).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub pages: Option<SitePages>,
}

impl Metadata {
    /// Where identity is among the codings when its bodies are not stored
    /// but inflated from gzip: in format 4, whenever gzip is stored.
    pub(crate) fn inflated_identity(&self) -> Option<usize> {
        inflated_identity(&self.codings)
    }
}

/// Where identity is among `codings` when its bodies are inflated from
/// gzip rather than stored (format 4): whenever gzip is stored too.
pub(crate) fn inflated_identity(codings: &[ContentCoding]) -> Option<usize> {
    let identity = codings.iter().position(|&c| c == ContentCoding::Identity)?;
    codings.contains(&ContentCoding::Gzip).then_some(identity)
}

/// What an artifact says about the pages it holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
#[non_exhaustive]
pub struct SitePages {
    /// What rendered every page besides its record
    /// (`foundry_catalog_pages::Pages::digest`: the pages crate's version,
    /// the site and every template): an incremental build reuses a
    /// previous artifact's products only when it renders pages with the
    /// same digest.
    pub digest: String,
    /// The public site's URL the pages name; empty when built without
    /// one (links are then paths, and there is no sitemap).
    pub site: String,
    /// How many site documents follow the products in the index
    /// (`robots.txt`, the sitemap files, the not-found page).
    pub documents: u64,
}

impl Metadata {
    /// Whether a replica may start serving this artifact at `now`, having
    /// served sequences up to `highest` and serving `current` (the metadata
    /// of the artifact it serves, if any): not expired, not below the
    /// highest sequence served, not without a sequence once one was
    /// served, and not another artifact under the sequence being served.
    pub fn admissible(
        &self,
        highest: Option<u64>,
        current: Option<&Metadata>,
        now: std::time::SystemTime,
    ) -> Result<(), ArtifactError> {
        if let Some(expires) = self.expires
            && self.expired(now)
        {
            return Err(ArtifactError::Expired { expired: rfc3339(expires) });
        }
        let highest = highest.max(current.and_then(|c| c.sequence));
        match (self.sequence, highest) {
            (_, None) => Ok(()),
            (None, Some(highest)) => Err(ArtifactError::NoSequence { highest }),
            (Some(sequence), Some(highest)) if sequence < highest => Err(ArtifactError::Rollback { sequence, highest }),
            (Some(sequence), Some(_))
                if current.is_some_and(|c| c.sequence == Some(sequence) && c.content_sha256 != self.content_sha256) =>
            {
                Err(ArtifactError::SequenceReused { sequence })
            }
            (Some(_), Some(_)) => Ok(()),
        }
    }

    /// Whether it has expired at `now`.
    pub fn expired(&self, now: std::time::SystemTime) -> bool {
        // An expiry past what the clock can say (say 2^63 seconds) is never reached.
        self.expires
            .and_then(|e| std::time::UNIX_EPOCH.checked_add(std::time::Duration::from_secs(e)))
            .is_some_and(|expires| now >= expires)
    }
}

/// `seconds` since 1970 as RFC 3339 UTC (`2026-12-02T00:00:00Z`).
pub(crate) fn rfc3339(seconds: u64) -> String {
    let at = i64::try_from(seconds).ok().and_then(|s| time::OffsetDateTime::from_unix_timestamp(s).ok());
    at.and_then(|at| at.format(&time::format_description::well_known::Rfc3339).ok())
        .unwrap_or_else(|| format!("{seconds} seconds after 1970"))
}

/// What a build says about an artifact's place in a series of releases
/// ([`Metadata::sequence`], [`Metadata::expires`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub(crate) struct Release {
    pub(crate) sequence: Option<u64>,
    pub(crate) expires: Option<u64>,
}

/// What an artifact's metadata says besides its products: who built it,
/// how, and with which pages.
pub(crate) struct Contents {
    pub(crate) generator: String,
    pub(crate) codings: Vec<ContentCoding>,
    pub(crate) record_types: Vec<RecordTypeId>,
    pub(crate) renderer_sha256: String,
    pub(crate) release: Release,
    /// With pages: [`SitePages::digest`] and [`SitePages::site`].
    pub(crate) pages: Option<(String, String)>,
}

/// The highest sequence a replica has served, and the content digest of
/// the artifact it served under it: what a replica's state folder keeps
/// (`highest-sequence`) so that a restart refuses a rollback, and another
/// artifact under that sequence, as a reload does
/// ([`Metadata::admissible`]). As text, `8 3f…\n`; a file written before
/// the digest was kept holds the number alone (`8\n`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HighestServed {
    /// The sequence.
    pub sequence: u64,
    /// The content digest (`content_sha256`) of the artifact served under
    /// it, when known.
    pub content_sha256: Option<String>,
}

impl HighestServed {
    /// Reads the text of a state file; `None` for anything but a number,
    /// then optionally a space and 64 lowercase hex digits, then at most a
    /// newline.
    ///
    /// ```
    /// use foundry_catalog_serving::artifact::HighestServed;
    /// let digest = "ab".repeat(32);
    /// let read = HighestServed::parse(&format!("8 {digest}\n")).unwrap();
    /// assert_eq!((read.sequence, read.content_sha256.as_deref()), (8, Some(&digest[..])));
    /// assert_eq!(HighestServed::parse("8\n").unwrap().content_sha256, None);
    /// assert!(HighestServed::parse("eight\n").is_none());
    /// ```
    pub fn parse(text: &str) -> Option<HighestServed> {
        let mut words = text.strip_suffix('\n').unwrap_or(text).split(' ');
        let sequence = words.next().filter(|n| !n.is_empty() && n.bytes().all(|b| b.is_ascii_digit()))?.parse().ok()?;
        let content_sha256 = words.next().map(str::to_owned);
        let hex = |d: &String| d.len() == 64 && d.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b));
        (words.next().is_none() && content_sha256.as_ref().is_none_or(hex))
            .then_some(HighestServed { sequence, content_sha256 })
    }

    /// The text of its state file, which [`HighestServed::parse`] reads back.
    pub fn to_text(&self) -> String {
        match &self.content_sha256 {
            Some(digest) => format!("{} {digest}\n", self.sequence),
            None => format!("{}\n", self.sequence),
        }
    }

    /// Whether `next` is another artifact under this sequence (by its
    /// content digest, when known): refused, as a reload refuses it.
    pub fn reused_by(&self, next: &Metadata) -> bool {
        next.sequence == Some(self.sequence)
            && self.content_sha256.as_ref().is_some_and(|digest| *digest != next.content_sha256)
    }
}

/// A record type an artifact was built with.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordTypeId {
    /// The record label.
    pub record_label: String,
    /// Its schema hash.
    pub schema_hash: String,
    /// The SHA-256 of the whole record schema as it renders (descriptions
    /// and fixture hints included, which `schema_hash` leaves out), so an
    /// incremental build can tell which type's definition changed. Empty
    /// in an artifact written before it was recorded.
    #[serde(default)]
    pub definition_sha256: String,
}

/// The signature region of a signed artifact.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Signature {
    /// The signer's Ed25519 public key (which key signed is checked
    /// against the verify key, and named when it is another).
    pub public_key: [u8; 32],
    /// The Ed25519 signature (see the module documentation for what it signs).
    pub signature: [u8; 64],
}

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
    /// The file has another format version.
    #[error(
        "artifact format version {found}, but this build of foundry-catalog reads versions {OLDEST_READABLE_VERSION} to {FORMAT_VERSION}; hint: rebuild it with this version's `foundry-catalog build`"
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

/// A byte range of the data region.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span {
    pub(crate) offset: u64,
    pub(crate) len: u32,
}

/// The offset of an identity body that is not stored (format 4, with
/// gzip): its bytes are its gzip body's, inflated, and its length theirs.
pub(crate) const INFLATED: u64 = u64::MAX;

impl Span {
    /// An identity body inflated from gzip, of `len` bytes.
    pub(crate) fn inflated(len: u32) -> Span {
        Span { offset: INFLATED, len }
    }

    /// Whether it is an identity body inflated from gzip (stored nowhere).
    pub(crate) fn is_inflated(self) -> bool {
        self.offset == INFLATED
    }
}

impl Span {
    /// Where it ends; `None` past `u64::MAX` (a hostile index).
    fn end(self) -> Option<u64> {
        self.offset.checked_add(u64::from(self.len))
    }
}

/// A stored response, by its position in the index: a product's body, the
/// product's page, or a site document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Response {
    Product(usize),
    Page(usize),
    Document(usize),
}

/// One product as the index stores it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct IndexEntry {
    pub(crate) modified: u64,
    /// SHA-256 of the manifest's bytes; zeros when built from a record.
    pub(crate) source: [u8; SOURCE_LEN],
    pub(crate) slug: Span,
    pub(crate) last_modified: Span,
    /// `(body, etag)` per coding, in [`Metadata::codings`] order.
    pub(crate) representations: Vec<(Span, Span)>,
    /// Its page, in an artifact with pages.
    pub(crate) page: Option<PageSpans>,
}

/// A product's page as the index stores it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PageSpans {
    /// `canonical_path`.
    pub(crate) path: Span,
    /// The sitemap's `lastmod` of the page (the record's
    /// `last_updated_at`); empty when the page is `noindex`, so not listed.
    pub(crate) lastmod: Span,
    /// `(body, etag)` per coding, in [`Metadata::codings`] order.
    pub(crate) representations: Vec<(Span, Span)>,
}

/// A site document (`robots.txt`, a sitemap file, the not-found page) as
/// the index stores it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DocumentEntry {
    /// The path it is served at; [`NOT_FOUND_DOCUMENT`] for the not-found page.
    pub(crate) path: Span,
    /// `(body, etag)` per coding, in [`Metadata::codings`] order.
    pub(crate) representations: Vec<(Span, Span)>,
}

/// The name the not-found page is stored under: not a path, so no
/// request reaches it but as the answer to an unknown page.
pub(crate) const NOT_FOUND_DOCUMENT: &str = "404";

/// What the names of the list pages' cards start with: each route
/// page's cards (`foundry_catalog_pages::list::Card`, one JSON document)
/// are kept under this and the page's path (`cards/datasets/page/2`): not
/// a path, so never served; a build on this artifact knows from them
/// what its pages were made with.
pub(crate) const CARDS_DOCUMENT: &str = "cards";

/// The name of the site's icon among the documents: its path,
/// `foundry_catalog_pages::favicon::PATH`.
pub(crate) const ICON_DOCUMENT: &str = "/favicon.ico";

fn representation_spans(representations: &[(Span, Span)]) -> impl Iterator<Item = Span> + '_ {
    representations.iter().flat_map(|&(body, etag)| [body, etag])
}

/// A product's or site document's name, and where its bytes lie in each
/// part of the data region (`None`: not in one run).
type Runs = (Span, Vec<Option<(u64, u64)>>);

/// Where a run of spans lies, when each starts where the one before it ends.
pub(crate) fn contiguous(mut spans: impl Iterator<Item = Span>) -> Option<(u64, u64)> {
    let first = spans.next()?;
    let mut end = first.end()?;
    for span in spans {
        if span.offset != end {
            return None;
        }
        end = span.end()?;
    }
    Some((first.offset, end - first.offset))
}

impl IndexEntry {
    /// Every span, in the order the product's bytes are written.
    pub(crate) fn spans(&self) -> impl Iterator<Item = Span> + '_ {
        [self.slug, self.last_modified].into_iter().chain(representation_spans(&self.representations)).chain(
            self.page.iter().flat_map(|page| {
                [page.path, page.lastmod].into_iter().chain(representation_spans(&page.representations))
            }),
        )
    }

    /// The product's bytes as one range, when they are contiguous in the
    /// order they are written (in the layout of versions 1 to 3).
    pub(crate) fn contiguous(&self) -> Option<(u64, u64)> {
        contiguous(self.spans())
    }

    /// The spans of its table run (version 4): slug, `Last-Modified`, each
    /// ETag, and its page's path, `lastmod` and ETags.
    pub(crate) fn table_spans(&self) -> impl Iterator<Item = Span> + '_ {
        [self.slug, self.last_modified].into_iter().chain(self.representations.iter().map(|&(_, etag)| etag)).chain(
            self.page.iter().flat_map(|page| {
                [page.path, page.lastmod].into_iter().chain(page.representations.iter().map(|&(_, etag)| etag))
            }),
        )
    }

    /// The spans of its ETags: each representation's, then its page's.
    pub(crate) fn etag_spans(&self) -> impl Iterator<Item = Span> + '_ {
        self.representations
            .iter()
            .chain(self.page.iter().flat_map(|page| &page.representations))
            .map(|&(_, etag)| etag)
    }

    /// The spans of its body run (version 4): each body stored, then its
    /// page's (an identity body inflated from gzip is stored nowhere).
    pub(crate) fn body_spans(&self) -> impl Iterator<Item = Span> + '_ {
        self.bodies().filter(|body| !body.is_inflated())
    }

    /// Each body's span, then its page's, inflated ones too.
    pub(crate) fn bodies(&self) -> impl Iterator<Item = Span> + '_ {
        self.representations
            .iter()
            .chain(self.page.iter().flat_map(|page| &page.representations))
            .map(|&(body, _)| body)
    }

    /// [`IndexEntry::table_spans`] and [`IndexEntry::body_spans`], to move.
    pub(crate) fn parts_mut(&mut self) -> (Vec<&mut Span>, Vec<&mut Span>) {
        let mut table = vec![&mut self.slug, &mut self.last_modified];
        let mut bodies = Vec::with_capacity(2 * self.representations.len());
        for (body, etag) in &mut self.representations {
            bodies.push(body);
            table.push(etag);
        }
        if let Some(page) = &mut self.page {
            table.extend([&mut page.path, &mut page.lastmod]);
            for (body, etag) in &mut page.representations {
                bodies.push(body);
                table.push(etag);
            }
        }
        bodies.retain(|body| !body.is_inflated());
        (table, bodies)
    }
}

impl DocumentEntry {
    /// Every span, in the order the document's bytes are written.
    pub(crate) fn spans(&self) -> impl Iterator<Item = Span> + '_ {
        std::iter::once(self.path).chain(representation_spans(&self.representations))
    }

    /// The spans of its table run (version 4): its name and each ETag.
    pub(crate) fn table_spans(&self) -> impl Iterator<Item = Span> + '_ {
        std::iter::once(self.path).chain(self.representations.iter().map(|&(_, etag)| etag))
    }

    /// The spans of its body run (version 4): each body stored.
    pub(crate) fn body_spans(&self) -> impl Iterator<Item = Span> + '_ {
        self.representations.iter().map(|&(body, _)| body).filter(|body| !body.is_inflated())
    }

    /// The spans of its ETags.
    pub(crate) fn etag_spans(&self) -> impl Iterator<Item = Span> + '_ {
        self.representations.iter().map(|&(_, etag)| etag)
    }

    /// [`DocumentEntry::table_spans`], to move.
    pub(crate) fn table_spans_mut(&mut self) -> impl Iterator<Item = &mut Span> {
        std::iter::once(&mut self.path).chain(self.representations.iter_mut().map(|(_, etag)| etag))
    }

    /// [`DocumentEntry::body_spans`], to move.
    pub(crate) fn body_spans_mut(&mut self) -> impl Iterator<Item = &mut Span> {
        self.representations.iter_mut().map(|(body, _)| body).filter(|body| !body.is_inflated())
    }
}

/// A built or loaded artifact: metadata, signature, index and data, where
/// the data may be held in several buffers (a build writes one per thread,
/// and shares a previous artifact's; a file read whole is one), read as one
/// region, or left in its file but for the table ([`Artifact::open`]).
#[derive(Debug, Clone)]
pub struct Artifact {
    metadata: Metadata,
    /// The metadata's JSON as stored (what a signature signs).
    metadata_json: Bytes,
    pub(crate) signature: Option<Signature>,
    /// The index as held in memory.
    index: Index,
    /// In the version-4 layout, the index as stored (lengths) and the
    /// block list that names it and the table; empty in older layouts.
    stored_index: Bytes,
    blocks: Bytes,
    /// The data region's pieces: `(offset in the data region, piece)`, in
    /// order. For an artifact whose bodies were left in their file, only
    /// the table.
    data: Vec<(u64, Piece)>,
    /// The data region's length.
    data_len: u64,
    /// In the version-4 layout, the table's length: the data region's
    /// first bytes are every slug, date, ETag, page path, `lastmod` and
    /// document name, the rest every body. `None` in the layout of
    /// versions 1 to 3, where each product's bytes are one run of both.
    table: Option<u64>,
    /// The file the bodies are read from, when they were left in it.
    file: Option<Arc<BodyFile>>,
    /// For a layered artifact ([`crate::delta::open_layered`]), the file
    /// of the base its bodies are partly read from.
    base: Option<Arc<BodyFile>>,
    /// Whether [`Artifact::new`] made it (in this process), rather than a parse.
    built_here: bool,
    /// Whether every body is known to hash to its ETag: built here, or
    /// checked ([`Artifact::check_bodies`]); shared by clones.
    bodies_checked: Arc<std::sync::atomic::AtomicBool>,
    /// Whether its head's blocks are known to match their digests in its
    /// block list: built here, or checked ([`Artifact::check_blocks`]);
    /// shared by clones.
    blocks_checked: Arc<std::sync::atomic::AtomicBool>,
}

/// An artifact's index as held in memory.
#[derive(Debug, Clone)]
enum Index {
    /// Every span placed, in the version-3 layout: an artifact of format 1
    /// to 3 (a version-1 index converted), or one built in this process.
    Spans(Bytes),
    /// A version-4 index as stored (lengths, [`Artifact::stored_index`],
    /// read in place) and where each entry's runs start, products' then
    /// site documents': 16 bytes an entry beside the stored ones, where
    /// placed spans take 232 a product with pages.
    Lengths(Arc<[head::Start]>),
}

/// An artifact file whose bodies are read from it when they are asked for
/// ([`Artifact::open`]): they are never trusted as read, but checked
/// against their ETags (which the signature covers) by the catalog that
/// serves them.
#[derive(Debug)]
pub(crate) struct BodyFile {
    file: std::fs::File,
    /// Where the data region starts in the file.
    data_at: u64,
}

impl BodyFile {
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
        use std::io::Write;
        let mut from = self.data_at.checked_add(offset).ok_or(std::io::ErrorKind::InvalidInput)?;
        let mut left = len;
        while left > 0 {
            let chunk = usize::try_from(left.min(1 << 30)).unwrap_or(1 << 30);
            match rustix::fs::copy_file_range(&self.file, Some(&mut from), &*out, None, chunk) {
                Ok(0) => return Err(std::io::ErrorKind::UnexpectedEof.into()),
                Ok(copied) => left -= copied as u64,
                // Not between these files (another filesystem, an old
                // kernel): through a buffer.
                Err(_) => {
                    let mut at = from - self.data_at;
                    while left > 0 {
                        let piece = left.min(8 << 20);
                        out.write_all(&self.read(at, piece as usize)?)?;
                        at += piece;
                        left -= piece;
                    }
                }
            }
        }
        Ok(())
    }

    /// Reads `len` bytes of the data region from `offset`: an error, not
    /// a short read, when the file has become shorter.
    pub(crate) fn read(&self, offset: u64, len: usize) -> std::io::Result<Vec<u8>> {
        use std::os::unix::fs::FileExt;
        let mut bytes = Vec::new();
        bytes.try_reserve_exact(len).map_err(|_| std::io::Error::from(std::io::ErrorKind::OutOfMemory))?;
        bytes.resize(len, 0);
        let at = self.data_at.checked_add(offset).ok_or(std::io::ErrorKind::InvalidInput)?;
        self.file.read_exact_at(&mut bytes, at)?;
        Ok(bytes)
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

/// One part of an artifact file, as [`Artifact::write_parts`] hands it out.
pub(crate) enum Part<'a> {
    /// The header, metadata, signature or index.
    Head(&'a [u8]),
    /// A data buffer.
    Data(&'a Bytes),
    /// A range of another artifact file's data region.
    File(&'a BodyFile, u64, u64),
}

impl Artifact {
    /// Assembles an artifact from the index entries (with pages when
    /// `pages` is given, as every entry then is), the site documents and
    /// the data buffers they point into (spans count from the start of the
    /// first buffer), in the version-4 layout: the first `table` bytes of
    /// the buffers hold every slug, date, ETag, path and name, the rest
    /// every body (no buffer holds both).
    pub(crate) fn new(
        contents: Contents,
        entries: &[IndexEntry],
        documents: &[DocumentEntry],
        buffers: Vec<Piece>,
        table: u64,
    ) -> Artifact {
        let Contents { generator, codings, record_types, renderer_sha256, release, pages } = contents;
        let index = spans_index(entries, documents, codings.len(), pages.is_some());
        let stored_index = head::store(entries, documents, codings.len(), pages.is_some());
        let mut start = 0;
        let data = buffers
            .into_iter()
            .map(|buffer| {
                let at = start;
                start += buffer.len();
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
                renderer_sha256: Some(renderer_sha256),
                sequence: release.sequence,
                expires: release.expires,
                pages: pages.map(|(digest, site)| SitePages { digest, site, documents: documents.len() as u64 }),
            },
            metadata_json: Bytes::new(),
            signature: None,
            index: Index::Spans(Bytes::from(index)),
            stored_index: Bytes::from(stored_index),
            blocks: Bytes::new(),
            data,
            data_len: start,
            table: Some(table),
            file: None,
            base: None,
            built_here: true,
            bodies_checked: Arc::new(true.into()),
            blocks_checked: Arc::new(true.into()),
        };
        artifact.metadata.content_sha256 = artifact.content_digest();
        // A struct of strings and numbers always serializes.
        artifact.metadata_json = serde_json::to_vec(&artifact.metadata).unwrap_or_default().into();
        let names: Vec<&[u8]> = entries
            .iter()
            .map(|entry| entry.slug)
            .chain(documents.iter().map(|document| document.path))
            .map(|span| artifact.bytes_of(span).unwrap_or_default())
            .collect();
        let runs: Vec<(u64, u64)> = entries
            .iter()
            .map(|entry| contiguous(entry.table_spans()))
            .chain(documents.iter().map(|document| contiguous(document.table_spans())))
            .map(Option::unwrap_or_default)
            .collect();
        let blocks = head::list(&artifact.stored_index, &names, &runs, &artifact.metadata, &|at, len, f| {
            artifact.table_bytes(at, len, f)
        });
        artifact.blocks = Bytes::from(blocks);
        artifact
    }

    /// Hands `f` the table's bytes from `at`, `len` of them, in the
    /// pieces they are held in (nothing for bytes not in memory).
    fn table_bytes(&self, at: u64, len: u64, f: &mut dyn FnMut(&[u8])) {
        let end = at.saturating_add(len);
        for (start, piece) in &self.data {
            let Piece::Memory(bytes) = piece else { continue };
            let (from, to) = (at.max(*start), end.min(start + bytes.len() as u64));
            if from < to {
                f(&bytes[(from - start) as usize..(to - start) as usize]);
            }
        }
    }

    /// Reads an artifact file's bytes (see the module documentation for
    /// every check). The bodies stay where they are: the returned artifact
    /// and every catalog loaded from it share `bytes`.
    pub fn parse(bytes: Bytes) -> Result<Artifact, ArtifactError> {
        Self::checked(bytes, None)
    }

    /// Reads an artifact file once and parses it, refusing a file over
    /// [`DEFAULT_MAX_FILE_LEN`] ([`Artifact::read_at_most`]).
    pub fn read(path: &std::path::Path) -> Result<Artifact, ArtifactError> {
        Self::read_at_most(path, DEFAULT_MAX_FILE_LEN)
    }

    /// Reads an artifact file of at most `max_len` bytes once and parses
    /// it, bodies and all. What a file says is checked before memory is
    /// taken for it: it must be a regular file (not a FIFO or a device) of
    /// at most `max_len` bytes, starting with the magic, a version this
    /// crate reads and region lengths that add up to its length; and
    /// memory the system cannot give is an error, not an abort. The file
    /// is then read in pieces on all cores. [`Artifact::open`] reads only
    /// what a catalog needs before it serves.
    pub fn read_at_most(path: &std::path::Path, max_len: u64) -> Result<Artifact, ArtifactError> {
        let file = crate::files::open_nonblocking(path).map_err(|e| ArtifactError::Read(e.to_string()))?;
        Self::read_open(&file, max_len)
    }

    /// Reads an artifact from a file already open, as
    /// [`Artifact::read_at_most`] does.
    pub(crate) fn read_open(file: &std::fs::File, max_len: u64) -> Result<Artifact, ArtifactError> {
        let (bytes, crc) = read_file(file, max_len)?;
        Self::checked(Bytes::from(bytes), crc)
    }

    /// Opens an artifact file of at most `max_len` bytes and reads what
    /// must be checked before anything is served, leaving the bodies in
    /// the file: the header, then the metadata and signature (at most 16
    /// MiB), then, only when their length is the one the metadata implies,
    /// the index and the table, whose CRC-32 it checks. The bodies are
    /// read when asked for (by [`crate::catalog::ResponseCatalog`], which
    /// checks each against its ETag before it serves a byte of it), from
    /// the file as opened: renaming another file over its path changes
    /// nothing this artifact reads. An artifact of format versions 1 to 3,
    /// whose bodies and names are interleaved, is read whole
    /// ([`Artifact::read_at_most`]).
    pub fn open(path: &std::path::Path, max_len: u64) -> Result<Artifact, ArtifactError> {
        Self::open_checked(path, max_len, &|_| Ok(()))
    }

    /// [`Artifact::open`], `check` judging a format-4 file's summary
    /// (`Summary::verify_any`, feature `signing`: its signature) before anything past it
    /// is read: a refusal costs the summary, whatever the file claims.
    pub fn open_checked(
        path: &std::path::Path,
        max_len: u64,
        check: &CheckSummary<'_>,
    ) -> Result<Artifact, ArtifactError> {
        match Self::open_head_checked(path, max_len, check)? {
            Some(artifact) => Ok(artifact),
            None => Self::read_at_most(path, max_len),
        }
    }

    /// [`Artifact::open`] for an artifact of format 4; `None` for an older
    /// one, of which nothing past its header was read. The file is opened
    /// without waiting and must be a regular one (a FIFO is refused, never
    /// waited on).
    pub fn open_head(path: &std::path::Path, max_len: u64) -> Result<Option<Artifact>, ArtifactError> {
        Self::open_head_checked(path, max_len, &|_| Ok(()))
    }

    /// [`Artifact::open_head`], `check` judging the summary (header,
    /// metadata, signature, block list: the lengths the header claims
    /// checked against the metadata, the block list against both) before
    /// the index and the table are read or allocated.
    pub fn open_head_checked(
        path: &std::path::Path,
        max_len: u64,
        check: &CheckSummary<'_>,
    ) -> Result<Option<Artifact>, ArtifactError> {
        use std::os::unix::fs::FileExt;
        let read_error = |e: std::io::Error| ArtifactError::Read(e.to_string());
        let file = crate::files::open_nonblocking(path).map_err(read_error)?;
        let len = regular_len(&file, max_len)?;
        let mut prefix = [0; HEADER_LEN];
        let prefix_len = usize::try_from(len).map_or(HEADER_LEN, |len| len.min(HEADER_LEN));
        file.read_exact_at(&mut prefix[..prefix_len], 0).map_err(read_error)?;
        let header = Header::parse(&prefix[..prefix_len], len)?;
        if header.version < 4 {
            return Ok(None);
        }
        let [meta_len, signature_len, ..] = header.lengths;
        header.check_head_lengths()?;
        // Read into reserved memory (no zeroing pass first); the file is
        // not shared yet, so its offset is this function's. What is read is
        // small (checked before each read), and lies in the file (the
        // header's lengths add up).
        let read_into = |at: u64, len: u64, bytes: &mut Vec<u8>| -> Result<(), ArtifactError> {
            use std::io::{Read, Seek};
            let size = usize::try_from(len).map_err(|_| ArtifactError::Read(format!("{len} bytes")))?;
            bytes
                .try_reserve_exact(size)
                .map_err(|_| ArtifactError::Read(format!("cannot take {len} bytes of memory")))?;
            (&file).seek(std::io::SeekFrom::Start(at)).map_err(read_error)?;
            let read = (&file).take(len).read_to_end(bytes).map_err(read_error)?;
            if read != size {
                return Err(read_error(std::io::ErrorKind::UnexpectedEof.into()));
            }
            Ok(())
        };
        let mut meta_and_signature = Vec::new();
        read_into(header.len as u64, meta_len + signature_len, &mut meta_and_signature)?;
        // Nothing more is read for a file whose lengths only add up.
        header.check_index_lengths(&meta_and_signature)?;
        // The block list, bounded by the metadata; then the summary judged
        // before the index and the table are read.
        let mut rest = Vec::new();
        read_into(header.at(BLOCKS), header.index_at() - header.at(BLOCKS), &mut rest)?;
        check(&Summary::from_parts(header.clone(), &meta_and_signature, &rest)?)?;
        // An index and a table larger than STREAMED are checked against the
        // CRC as they are read, before memory is taken for them: a file
        // whose claims nothing signed costs its reading, not its claims.
        let (index_at, head_end) = (header.index_at(), header.head_end());
        if head_end - index_at > STREAMED {
            let mut crc = crc32fast::Hasher::new();
            for part in [&prefix[16..HEADER_LEN], &meta_and_signature, &rest] {
                crc.update(part);
            }
            let mut buffer = vec![0; 8 << 20];
            let mut at = index_at;
            while at < head_end {
                let len = buffer.len().min(usize::try_from(head_end - at).unwrap_or(usize::MAX));
                file.read_exact_at(&mut buffer[..len], at).map_err(read_error)?;
                crc.update(&buffer[..len]);
                at += len as u64;
            }
            let found = crc.finalize();
            if found != header.crc {
                return Err(ArtifactError::Checksum { expected: header.crc, found });
            }
        }
        read_into(index_at, head_end - index_at, &mut rest)?;
        let file = Arc::new(BodyFile { file, data_at: header.data_at() });
        Self::from_head_parts(&header, &prefix, meta_and_signature.into(), rest.into(), Some(file)).map(Some)
    }

    /// The head of a version-4 artifact file of `file_len` bytes, given as
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
        if header.version < 4 {
            return Err(ArtifactError::Malformed(format!(
                "a version-{} artifact has no head of its own",
                header.version
            )));
        }
        header.check_head_lengths()?;
        let part = |from: u64, to: u64| -> Result<Bytes, ArtifactError> {
            let range = usize::try_from(from).ok().zip(usize::try_from(to).ok());
            range
                .filter(|&(from, to)| from <= to && to <= head.len())
                .map(|(from, to)| head.slice(from..to))
                .ok_or(ArtifactError::Length { expected: to, found: head.len() as u64 })
        };
        let meta_and_signature = part(header.len as u64, header.at(BLOCKS))?;
        header.check_index_lengths(&meta_and_signature)?;
        let rest = part(header.at(BLOCKS), header.head_end())?;
        Self::from_head_parts(&header, &head[..HEADER_LEN], meta_and_signature, rest, None)
    }

    /// Assembles an artifact from its head's parts (the metadata and
    /// signature, then the block list, index and table), checking the
    /// CRC-32 and placing the index's spans.
    fn from_head_parts(
        header: &Header,
        prefix: &[u8],
        meta_and_signature: Bytes,
        rest: Bytes,
        file: Option<Arc<BodyFile>>,
    ) -> Result<Artifact, ArtifactError> {
        let [meta_len, _, blocks_len, index_len, table_len, bodies_len] = header.lengths;
        let crc = crc32(&[&prefix[16..HEADER_LEN], &meta_and_signature, &rest]);
        if crc != header.crc {
            return Err(ArtifactError::Checksum { expected: header.crc, found: crc });
        }
        let mut head = meta_and_signature;
        let mut rest = rest;
        let metadata_json = head.split_to(meta_len as usize);
        let blocks = rest.split_to(blocks_len as usize);
        let stored_index = rest.split_to(index_len as usize);
        // Parsed already by the length checks; parsed again from what is kept.
        let metadata =
            serde_json::from_slice(&metadata_json).map_err(|e| ArtifactError::Malformed(format!("metadata: {e}")))?;
        let stored = Stored { blocks, index: stored_index };
        Self::placed(
            metadata,
            metadata_json,
            signature_of(&head)?,
            stored,
            rest,
            [table_len, table_len + bodies_len],
            file,
        )
    }

    /// A version-4 artifact from its parts as stored: its index's spans
    /// placed from the stored lengths, its block list checked to cover
    /// the index and the table (their digests are checked by
    /// [`Artifact::check_blocks`]); `data` is the table, or the table and
    /// the bodies, of `[table, table and bodies]` bytes.
    fn placed(
        metadata: Metadata,
        metadata_json: Bytes,
        signature: Option<Signature>,
        stored: Stored,
        data: Bytes,
        [table_len, data_len]: [u64; 2],
        file: Option<Arc<BodyFile>>,
    ) -> Result<Artifact, ArtifactError> {
        let starts = head::load(&stored.index, &metadata, table_len, data_len)?;
        head::blocks(&stored.blocks, &metadata, table_len)?;
        let artifact = Artifact {
            metadata,
            metadata_json,
            signature,
            index: Index::Lengths(starts.into()),
            stored_index: stored.index,
            blocks: stored.blocks,
            data: vec![(0, Piece::Memory(data))],
            data_len,
            table: Some(table_len),
            file,
            base: None,
            built_here: false,
            bodies_checked: Arc::default(),
            blocks_checked: Arc::default(),
        };
        artifact.check_metadata()?;
        Ok(artifact)
    }

    /// Opens an artifact file of format 4 to layer over `base` (an artifact
    /// opened from its file): its head read and checked as
    /// [`Artifact::open`] does, and its bodies placed by `runs` (in file
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
        let mut artifact = Self::open_head(path, max_len)?.ok_or_else(|| not_layered("an artifact of format 4"))?;
        let own = artifact.file.take().ok_or_else(|| not_layered("an artifact file"))?;
        let from = base.file.as_ref().filter(|_| base.table.is_some()).ok_or_else(|| not_layered("a base file"))?;
        let base_at = base.data_at();
        let runs = runs(&artifact);
        let pieces =
            runs.into_iter().map(|(at, len, in_base)| (at, len, in_base.map(|in_base| (from, in_base - base_at))));
        artifact.place(&own, Some(from), pieces)?;
        Ok(artifact)
    }

    /// Places its bodies (a head: [`Artifact::from_head`], or
    /// [`Artifact::open_head`] with its file taken) by `pieces`, in file
    /// order, tiling its bodies: each an offset of its file, a length, and
    /// the file and data-region offset holding it when that is not `own`
    /// (its own file). With a `base`, it is layered over it.
    fn place<'f>(
        &mut self,
        own: &Arc<BodyFile>,
        base: Option<&Arc<BodyFile>>,
        pieces: impl Iterator<Item = (u64, u64, Option<(&'f Arc<BodyFile>, u64)>)>,
    ) -> Result<(), ArtifactError> {
        let data_at = self.data_at();
        let mut at = self.table.unwrap_or_default();
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
        self.base = base.cloned();
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
        if self.file.is_some() || self.data.len() != 1 || self.table.is_none() || len != self.file_len() {
            return Err(ArtifactError::Length { expected: self.file_len(), found: len });
        }
        let own = Arc::new(BodyFile { file, data_at: self.data_at() });
        if !layered {
            self.file = Some(own);
            return Ok(self);
        }
        let base = old
            .base_file()
            .ok_or_else(|| ArtifactError::Malformed("a layered artifact needs a base file".to_owned()))?;
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
        self.place(&own, Some(base), pieces.into_iter())?;
        Ok(self)
    }

    /// The file its bodies are read from where a layered artifact over it
    /// ([`crate::delta::open_layered`]) has holes: a layered artifact's
    /// base file, or its own file.
    fn base_file(&self) -> Option<&Arc<BodyFile>> {
        self.base.as_ref().or(self.file.as_ref())
    }

    /// The files, and where in their data regions, that hold `len` bytes
    /// of its bodies from `at` (an offset of its file), in order; an error
    /// for a range outside its bodies, or bodies not in a file.
    fn stored_in(&self, at: u64, len: u64) -> std::io::Result<Vec<(&Arc<BodyFile>, u64, u64)>> {
        let outside = || std::io::Error::new(std::io::ErrorKind::InvalidInput, "not a range of the artifact's bodies");
        let table = self.table.ok_or_else(outside)?;
        let offset = at.checked_sub(self.data_at()).filter(|&offset| offset >= table).ok_or_else(outside)?;
        let end = offset.checked_add(len).filter(|&end| end <= self.data_len).ok_or_else(outside)?;
        if let Some(file) = &self.file {
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

    /// Where the data region starts in the artifact's file.
    pub(crate) fn data_at(&self) -> u64 {
        self.file_len() - self.data_len
    }

    /// The data region, when it is one buffer in memory (as read from a file).
    pub(crate) fn data_region(&self) -> Option<&Bytes> {
        match (&self.data[..], &self.file) {
            ([(_, Piece::Memory(data))], None) => Some(data),
            _ => None,
        }
    }

    /// Whether its bodies are in memory (built, or read whole), not left
    /// in its file nor absent (a head alone, [`Artifact::from_head`]).
    #[cfg(feature = "signing")]
    pub(crate) fn holds_bodies(&self) -> bool {
        self.file.is_none()
            && self.data.iter().all(|(_, piece)| matches!(piece, Piece::Memory(_)))
            && self.data.iter().map(|(_, piece)| piece.len()).sum::<u64>() == self.data_len
    }

    /// The file its bodies are read from, when they were left in it
    /// ([`Artifact::open`]).
    pub(crate) fn body_file(&self) -> Option<&Arc<BodyFile>> {
        self.file.as_ref()
    }

    /// Whether its bodies are read from files when they are asked for
    /// (its own, [`Artifact::open`]; or its own and its base's,
    /// [`crate::delta::open_layered`]), not held in memory.
    pub fn bodies_in_files(&self) -> bool {
        self.file.is_some()
            || (!self.built_here && self.data.iter().any(|(_, piece)| matches!(piece, Piece::File { .. })))
    }

    /// Parses `bytes`, whose bytes after the CRC field have the CRC-32
    /// `crc_of_rest` when known (versions 1 to 3: the CRC covers them all).
    fn checked(bytes: Bytes, crc_of_rest: Option<u32>) -> Result<Artifact, ArtifactError> {
        let header = Header::parse(&bytes, bytes.len() as u64)?;
        let Header {
            version,
            len: header_len,
            crc,
            lengths: [meta_len, signature_len, blocks_len, index_len, table_len, _],
        } = header;
        if meta_len > MAX_METADATA_LEN {
            return Err(ArtifactError::Malformed(format!("{meta_len} bytes of metadata")));
        }
        // All six fit in the file (checked above), so these convert.
        let meta_end = header_len + meta_len as usize;
        let signature_end = meta_end + signature_len as usize;
        let blocks_end = signature_end + blocks_len as usize;
        let index_end = blocks_end + index_len as usize;
        let table_end = index_end + table_len as usize;
        // Version 4's CRC covers everything before the bodies; older
        // versions' covers the whole file.
        let covered = if version >= 4 { table_end } else { bytes.len() };
        let found = match crc_of_rest {
            Some(crc) if version < 4 => crc,
            _ => crc32(&[bytes.get(16..covered).unwrap_or_default()]),
        };
        if found != crc {
            return Err(ArtifactError::Checksum { expected: crc, found });
        }
        let metadata_json = bytes.slice(header_len..meta_end);
        let metadata: Metadata =
            serde_json::from_slice(&metadata_json).map_err(|e| ArtifactError::Malformed(format!("metadata: {e}")))?;
        // Versions 1 and 2 never held pages: a file that says otherwise
        // was relabelled (their signatures do not cover the version).
        if version <= 2 && metadata.pages.is_some() {
            return Err(ArtifactError::Malformed(format!("a version-{version} artifact with pages")));
        }
        let signature = signature_of(&bytes[meta_end..signature_end])?;
        let codings = metadata.codings.len();
        let index = bytes.slice(blocks_end..index_end);
        let data = bytes.slice(index_end..);
        if version >= 4 {
            let stored = Stored { blocks: bytes.slice(signature_end..blocks_end), index };
            let lengths = [table_len, data.len() as u64];
            return Self::placed(metadata, metadata_json, signature, stored, data, lengths, None);
        }
        let index = if version == 1 { Self::index_from_v1(&index, codings) } else { index };
        let artifact = Artifact {
            metadata,
            metadata_json,
            signature,
            index: Index::Spans(index),
            stored_index: Bytes::new(),
            blocks: Bytes::new(),
            data_len: data.len() as u64,
            data: vec![(0, Piece::Memory(data))],
            table: None,
            file: None,
            base: None,
            built_here: false,
            bodies_checked: Arc::default(),
            blocks_checked: Arc::default(),
        };
        artifact.check_metadata()?;
        Ok(artifact)
    }

    /// A version-1 index in the version-3 layout without pages (no source digests).
    fn index_from_v1(index: &[u8], codings: usize) -> Bytes {
        let old = entry_len(codings, false) - SOURCE_LEN;
        let mut converted = Vec::with_capacity(index.len() / old * entry_len(codings, false) + index.len() % old);
        let mut entries = index.chunks_exact(old);
        for entry in &mut entries {
            converted.extend_from_slice(&entry[..8]);
            converted.extend_from_slice(&[0; SOURCE_LEN]);
            converted.extend_from_slice(&entry[8..]);
        }
        // A remainder keeps the length wrong, for check_metadata to name.
        converted.extend_from_slice(entries.remainder());
        Bytes::from(converted)
    }

    fn check_metadata(&self) -> Result<(), ArtifactError> {
        let codings = &self.metadata.codings;
        if !codings.contains(&ContentCoding::Identity) {
            return Err(ArtifactError::Malformed("the codings lack identity".to_owned()));
        }
        if (1..codings.len()).any(|i| codings[..i].contains(&codings[i])) {
            return Err(ArtifactError::Malformed("a coding is listed twice".to_owned()));
        }
        // Record types reach logs and `/metrics` labels: only their own forms.
        let hex = |text: &str, lengths: &[usize]| {
            lengths.contains(&text.len()) && text.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        };
        for t in &self.metadata.record_types {
            if !foundry_catalog_core::is_lowercase_underscore(&t.record_label)
                || !hex(&t.schema_hash, &[40, 64])
                || !hex(&t.definition_sha256, &[0, 64])
            {
                return Err(ArtifactError::Malformed(format!(
                    "record type {:?} is not named as a build names it",
                    t.record_label
                )));
            }
        }
        // The generator's name and the site reach logs and notes: text
        // that cannot forge a line or move a terminal's cursor.
        let printable =
            |text: &str| !text.chars().any(|c| c.is_control() || foundry_catalog_core::hides_or_reorders(c));
        if !printable(&self.metadata.generator) {
            return Err(ArtifactError::Malformed(format!(
                "the generator's name {:?} holds control or invisible characters",
                self.metadata.generator
            )));
        }
        let documents = self.metadata.pages.as_ref().map_or(0, |pages| pages.documents);
        // A stored index's length was checked as it was placed.
        if let Index::Spans(index) = &self.index
            && expected_index_len(&self.metadata) != Some(index.len() as u64)
        {
            return Err(ArtifactError::Malformed(format!(
                "an index of {} bytes for {} products and {documents} site documents",
                index.len(),
                self.metadata.products
            )));
        }
        if let Some(pages) = &self.metadata.pages
            && (!(pages.site.is_empty() || pages.site.starts_with("http://") || pages.site.starts_with("https://"))
                || !printable(&pages.site)
                || pages.site.contains(char::is_whitespace))
        {
            return Err(ArtifactError::Malformed(format!("the pages' site {:?} is not an http(s) URL", pages.site)));
        }
        Ok(())
    }

    /// What the artifact says about itself.
    pub fn metadata(&self) -> &Metadata {
        &self.metadata
    }

    /// Who signed it, if it is signed (whether the signature holds is
    /// `Artifact::verify`'s to say).
    pub fn signature(&self) -> Option<&Signature> {
        self.signature.as_ref()
    }

    /// The number of products.
    pub fn len(&self) -> usize {
        // Checked against the index's length when parsed.
        usize::try_from(self.metadata.products).unwrap_or_default()
    }

    /// Whether it holds no product.
    pub fn is_empty(&self) -> bool {
        self.metadata.products == 0
    }

    /// The length of one product's index entry.
    fn entry_len(&self) -> usize {
        entry_len(self.metadata.codings.len(), self.metadata.pages.is_some())
    }

    /// The index in the version-3 layout (formats 1 to 3, and an artifact
    /// built here): its product entries' part, and its site documents'.
    fn spans_index(&self) -> Option<(&[u8], &[u8])> {
        let Index::Spans(index) = &self.index else { return None };
        Some(index.split_at((self.len().saturating_mul(self.entry_len())).min(index.len())))
    }

    /// The index in the version-3 layout, whole (empty for a version-4
    /// index read from a file, which is held as stored).
    fn spans_index_bytes(&self) -> &[u8] {
        match &self.index {
            Index::Spans(index) => index,
            Index::Lengths(_) => &[],
        }
    }

    /// Where the bodies of entry `n` (products, then site documents) start
    /// in the data region of a version-4 index read from a file; for `n`
    /// one past the last entry, the region's end. `None` otherwise.
    pub(crate) fn body_start(&self, n: usize) -> Option<u64> {
        let Index::Lengths(starts) = &self.index else { return None };
        match starts.get(n) {
            Some(start) => Some(start.bodies),
            None => (n == starts.len()).then_some(self.data_len),
        }
    }

    /// The stored entry `n` of a version-4 index read from a file
    /// (products, then site documents), placed.
    fn stored_entry(&self, n: usize) -> Option<head::Entry<'_>> {
        let Index::Lengths(starts) = &self.index else { return None };
        head::entry(&self.stored_index, &self.metadata, n, *starts.get(n)?)
    }

    /// The number of site documents.
    pub(crate) fn documents_len(&self) -> usize {
        self.metadata.pages.as_ref().map_or(0, |pages| usize::try_from(pages.documents).unwrap_or(usize::MAX))
    }

    /// The size of the file [`Artifact::write_to`] writes.
    pub fn file_len(&self) -> u64 {
        let signature = if self.signature.is_some() { SIGNATURE_LEN } else { 0 };
        let head = match self.table {
            Some(_) => HEADER_LEN + self.blocks.len() + self.stored_index.len(),
            None => HEADER_LEN_V3 + self.spans_index_bytes().len(),
        };
        (head + self.metadata_json.len() + signature) as u64 + self.data_len
    }

    /// Writes the artifact file: header, metadata, signature, index, table
    /// and bodies (format version 4), or an artifact read from a file of
    /// versions 1 to 3, data (as version 3).
    pub fn write_to(&self, mut out: impl Write) -> std::io::Result<()> {
        self.write_parts(|part| match part {
            Part::Head(bytes) => out.write_all(bytes),
            Part::Data(bytes) => out.write_all(bytes),
            Part::File(file, at, len) => {
                const PIECE: u64 = 8 << 20;
                let mut done = 0;
                while done < len {
                    let piece = (len - done).min(PIECE);
                    out.write_all(&file.read(at + done, piece as usize)?)?;
                    done += piece;
                }
                Ok(())
            }
        })?;
        out.flush()
    }

    /// Hands `write` the file's parts in order: the header (with the
    /// CRC-32 of everything after it up to the bodies, or to the end in
    /// version 3), metadata, signature, index, and each data buffer (the
    /// bodies left in a file read from it in pieces).
    pub(crate) fn write_parts(&self, mut write: impl FnMut(Part<'_>) -> std::io::Result<()>) -> std::io::Result<()> {
        let signature = self.signature.map(|s| [&s.public_key[..], &s.signature[..]].concat()).unwrap_or_default();
        let mut lengths = Vec::with_capacity(48);
        let (meta, signature_len) = (self.metadata_json.len() as u64, signature.len() as u64);
        let (version, lengths_of, mut parts): (u32, Vec<u64>, Vec<&[u8]>) = match self.table {
            Some(table) => (
                FORMAT_VERSION,
                vec![
                    meta,
                    signature_len,
                    self.blocks.len() as u64,
                    self.stored_index.len() as u64,
                    table,
                    self.data_len - table,
                ],
                vec![&self.metadata_json, &signature, &self.blocks, &self.stored_index],
            ),
            None => (
                3,
                vec![meta, signature_len, self.spans_index_bytes().len() as u64, self.data_len],
                vec![&self.metadata_json, &signature, self.spans_index_bytes()],
            ),
        };
        for len in lengths_of {
            lengths.extend_from_slice(&len.to_le_bytes());
        }
        parts.insert(0, &lengths);
        let head_parts = parts.len();
        // The table (version 4), or the whole data region.
        let covered = self.table.unwrap_or(self.data_len);
        // (A build puts the table in memory: a file's range is bodies.)
        parts.extend(self.data.iter().filter(|(at, _)| *at < covered).filter_map(|(at, piece)| match piece {
            Piece::Memory(buffer) => {
                let end = usize::try_from(covered - at).map_or(buffer.len(), |n| n.min(buffer.len()));
                Some(&buffer[..end])
            }
            Piece::File { .. } => None,
        }));
        let mut header = Vec::with_capacity(16);
        header.extend_from_slice(&MAGIC);
        header.extend_from_slice(&version.to_le_bytes());
        header.extend_from_slice(&crc32(&parts).to_le_bytes());
        write(Part::Head(&header))?;
        for part in &parts[..head_parts] {
            write(Part::Head(part))?;
        }
        for (_, piece) in &self.data {
            match piece {
                Piece::Memory(buffer) => write(Part::Data(buffer))?,
                Piece::File { file, at, len } => write(Part::File(file, *at, *len))?,
            }
        }
        if let Some(file) = &self.file {
            const PIECE: u64 = 8 << 20;
            let mut at = self.table.unwrap_or(0);
            while at < self.data_len {
                let len = (self.data_len - at).min(PIECE);
                write(Part::Data(&Bytes::from(file.read(at, len as usize)?)))?;
                at += len;
            }
        }
        Ok(())
    }

    /// The whole file as bytes.
    pub fn to_vec(&self) -> Vec<u8> {
        let mut out = Vec::with_capacity(usize::try_from(self.file_len()).unwrap_or_default());
        // Writing to a Vec cannot fail.
        let _ = self.write_to(&mut out);
        out
    }

    /// Whether this process built it ([`crate::catalog::Builder`]), so
    /// that its slugs, dates, ETags and content digest need no checking.
    pub(crate) fn built_here(&self) -> bool {
        self.built_here
    }

    /// The bytes a signature signs: the context, then (format 4) the
    /// version, then the metadata and the block list (format 4) or the
    /// index (older formats), each after its length.
    #[cfg(feature = "signing")]
    pub(crate) fn signed_message(&self) -> Vec<u8> {
        // Format 4 signs its version too, so a signed file cannot be
        // relabelled to be read another way (older formats did not), and
        // its block list, which names the index and the table.
        let (version, last) = match self.table {
            Some(_) => (&FORMAT_VERSION.to_le_bytes()[..], &self.blocks[..]),
            None => (&[][..], self.spans_index_bytes()),
        };
        signed_message(version, &self.metadata_json, last)
    }

    /// The blocks of its head (format 4; none in older ones).
    pub(crate) fn blocks(&self) -> Vec<Block> {
        match self.table {
            // Checked when it was parsed (or made so when built).
            Some(table) => head::blocks(&self.blocks, &self.metadata, table).unwrap_or_default(),
            None => Vec::new(),
        }
    }

    /// Checks that each block of the head names its stored index entries
    /// and table bytes (format 4: what a signature over the block list
    /// covers of them), on all cores: the first that does not is named.
    pub(crate) fn check_blocks(&self) -> Result<(), ArtifactError> {
        use std::sync::atomic::Ordering;
        // The head is held as checked (it never changes in memory): once.
        if self.blocks_checked.load(Ordering::Relaxed) {
            return Ok(());
        }
        let blocks = self.blocks();
        let bad = crate::parallel::map(&blocks, |block| {
            let index = usize::try_from(block.index.start).ok().zip(usize::try_from(block.index.end).ok());
            let index = index.and_then(|(from, to)| self.stored_index.get(from..to)).unwrap_or_default();
            !head::names(block, index, &|at, len, f| self.table_bytes(at, len, f))
        });
        match bad.iter().position(|&bad| bad) {
            Some(n) => Err(ArtifactError::Malformed(format!(
                "block {n} of the head (entries {} to {}) does not match its digest in the block list",
                blocks[n].entries.start,
                blocks[n].entries.end - 1
            ))),
            None => {
                self.blocks_checked.store(true, Ordering::Relaxed);
                Ok(())
            }
        }
    }

    /// Where its stored index starts in its file (format 4).
    pub(crate) fn stored_index_at(&self) -> u64 {
        self.data_at() - self.stored_index.len() as u64
    }

    /// `len` bytes of its head from `at` in its file, from the copies in
    /// memory of its stored index and table (format 4); `None` outside them.
    pub fn head_bytes(&self, at: u64, len: u64) -> Option<Vec<u8>> {
        let mut bytes = Vec::with_capacity(usize::try_from(len).ok()?);
        self.head_bytes_into(at, len, &mut bytes).then_some(bytes)
    }

    /// [`Artifact::head_bytes`], appended to `out`; `false` (and `out` as
    /// it was) outside its index and table.
    pub fn head_bytes_into(&self, at: u64, len: u64, out: &mut Vec<u8>) -> bool {
        let Some(table) = self.table else { return false };
        let (data_at, index_at) = (self.data_at(), self.stored_index_at());
        let Some(end) = at.checked_add(len).filter(|&end| at >= index_at && end <= data_at + table) else {
            return false;
        };
        let before = out.len();
        if at < data_at {
            let Some(index) = self.stored_index.get((at - index_at) as usize..(end.min(data_at) - index_at) as usize)
            else {
                return false;
            };
            out.extend_from_slice(index);
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
        let (codings, pages) = (self.metadata.codings.len(), self.metadata.pages.is_some());
        if n >= self.len() {
            return None;
        }
        match self.spans_index() {
            Some((products, _)) => {
                let len = self.entry_len();
                products.get(n * len..(n + 1) * len).map(|entry| decode_entry(entry, codings, pages))
            }
            None => self.stored_entry(n).map(|entry| entry.product(pages)),
        }
    }

    /// Every site document's index entry, decoded (spans are not checked here).
    pub(crate) fn documents(&self) -> impl Iterator<Item = DocumentEntry> + '_ {
        (0..self.documents_len()).map_while(|d| self.document(d))
    }

    /// The `d`th site document's index entry.
    pub(crate) fn document(&self, d: usize) -> Option<DocumentEntry> {
        let codings = self.metadata.codings.len();
        match self.spans_index() {
            Some((_, documents)) => {
                let len = document_len(codings);
                let entry = documents.get(d.checked_mul(len)?..(d + 1).checked_mul(len)?)?;
                let span = |i: usize| decode_span(&entry[i * SPAN_LEN..]);
                Some(DocumentEntry {
                    path: span(0),
                    representations: (0..codings).map(|c| (span(1 + 2 * c), span(2 + 2 * c))).collect(),
                })
            }
            None => self.stored_entry(self.len().checked_add(d)?).map(|entry| entry.document()),
        }
    }

    /// The `(body, ETag)` spans of `response` in its `c`th coding (in
    /// [`Metadata::codings`] order), read from the index in place: what a
    /// request needs, with nothing decoded or allocated.
    pub(crate) fn response_spans(&self, response: Response, c: usize) -> Option<(Span, Span)> {
        let codings = self.metadata.codings.len();
        if c >= codings {
            return None;
        }
        let Some((products, documents)) = self.spans_index() else {
            // A stored entry's table run: slug, date, ETags, then its
            // page's path, lastmod and ETags (a document's: name, ETags);
            // its body run: its bodies, then its page's.
            let (entry, etag, body) = match response {
                Response::Product(n) => (self.stored_entry(n)?, 2 + c, c),
                Response::Page(n) => (self.stored_entry(n)?, 4 + codings + c, codings + c),
                Response::Document(d) => (self.stored_entry(self.len().checked_add(d)?)?, 1 + c, c),
            };
            return Some((entry.body_span(body)?, entry.table_span(etag)?));
        };
        // A product's spans: slug, date, its representations, then its
        // page's path, lastmod and representations; a document's: its
        // path, then its representations.
        let (index, at) = match response {
            Response::Product(n) => (products, n.checked_mul(self.entry_len())? + 8 + SOURCE_LEN + 2 * SPAN_LEN),
            Response::Page(n) => {
                (products, n.checked_mul(self.entry_len())? + 8 + SOURCE_LEN + (4 + 2 * codings) * SPAN_LEN)
            }
            Response::Document(d) => (documents, d.checked_mul(document_len(codings))? + SPAN_LEN),
        };
        let at = at.checked_add(2 * c * SPAN_LEN)?;
        let spans = index.get(at..at.checked_add(2 * SPAN_LEN)?)?;
        Some((decode_span(spans), decode_span(&spans[SPAN_LEN..])))
    }

    /// The `n`th product's modification time (seconds since the epoch) and
    /// the span of its `Last-Modified`, read from the index in place.
    pub(crate) fn product_date(&self, n: usize) -> Option<(u64, Span)> {
        if n >= self.len() {
            return None;
        }
        let Some((products, _)) = self.spans_index() else {
            let entry = self.stored_entry(n)?;
            return Some((le_u64(entry.fixed), entry.table_span(1)?));
        };
        let entry = products.get(n.checked_mul(self.entry_len())?..)?;
        Some((le_u64(entry), decode_span(entry.get(8 + SOURCE_LEN + SPAN_LEN..)?)))
    }

    /// The bytes of a span held in memory and the buffer that holds them
    /// (to share them: [`Bytes::slice_ref`]); `None` out of bounds or in a
    /// file.
    pub(crate) fn memory_of(&self, span: Span) -> Option<(&Bytes, &[u8])> {
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
        if let (Some(file), Some(table)) = (&self.file, self.table)
            && offset >= table
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

    /// The table's length in the version-4 layout.
    pub(crate) fn table_len(&self) -> Option<u64> {
        self.table
    }

    /// Checks that the products' bytes tile the data region: in the
    /// version-4 layout, each product's names, dates and ETags in one run
    /// of the table and its bodies in one run after it, in index order,
    /// then the site documents' alike, from the first byte of each part to
    /// its last; in older layouts each product's bytes in one run. So no
    /// byte of the region is outside a product: a slug or an ETag (named
    /// by the content digest), a date (checked against the index) or a
    /// body (named by its ETag), and with the signature over the metadata
    /// and the index, every byte of a verified artifact is covered.
    pub(crate) fn check_tiling(&self) -> Result<(), ArtifactError> {
        let name = |span: Span| String::from_utf8_lossy(&self.slice(span).unwrap_or_default()).into_owned();
        let runs: Vec<Runs> = match self.table {
            Some(_) => self
                .entries()
                .map(|entry| (entry.slug, vec![contiguous(entry.table_spans()), contiguous(entry.body_spans())]))
                .chain(self.documents().map(|document| {
                    (document.path, vec![contiguous(document.table_spans()), contiguous(document.body_spans())])
                }))
                .collect(),
            None => self
                .entries()
                .map(|entry| (entry.slug, vec![entry.contiguous()]))
                .chain(self.documents().map(|document| (document.path, vec![contiguous(document.spans())])))
                .collect(),
        };
        // Where each part starts and must end: the table and the bodies, or the whole region.
        let parts = match self.table {
            Some(table) => vec![(0, table), (table, self.data_len)],
            None => vec![(0, self.data_len)],
        };
        for (part, (start, limit)) in parts.into_iter().enumerate() {
            let mut end = start;
            for (slug, runs) in &runs {
                let Some((offset, len)) = runs[part] else {
                    return Err(ArtifactError::Malformed(format!("the bytes of `{}` are not in one run", name(*slug))));
                };
                if offset != end {
                    return Err(ArtifactError::Malformed(format!(
                        "the bytes of `{}` start at {offset} of the data region, where the ones before end at {end}",
                        name(*slug)
                    )));
                }
                end = offset + len;
            }
            if end < limit {
                let part = if part == 0 && self.table.is_some() { "table" } else { "data region" };
                return Err(ArtifactError::Malformed(format!(
                    "{} bytes at the end of the {part} belong to no product",
                    limit - end
                )));
            }
            if end > limit {
                return Err(ArtifactError::Malformed(format!(
                    "the products' bytes end at {end}, past the {limit} bytes of their part of the data region"
                )));
            }
        }
        Ok(())
    }

    /// [`Metadata::content_sha256`], computed from the index and data.
    fn content_digest(&self) -> String {
        let mut hasher = Sha256::new();
        let mut add = |span: Span| {
            hasher.update(self.bytes_of(span).unwrap_or_default());
            hasher.update(b"\n");
        };
        let etags =
            |representations: &[(Span, Span)]| representations.iter().map(|&(_, etag)| etag).collect::<Vec<_>>();
        for entry in self.entries() {
            add(entry.slug);
            etags(&entry.representations).into_iter().for_each(&mut add);
            if let Some(page) = &entry.page {
                add(page.path);
                add(page.lastmod);
                etags(&page.representations).into_iter().for_each(&mut add);
            }
        }
        for document in self.documents() {
            add(document.path);
            etags(&document.representations).into_iter().for_each(&mut add);
        }
        hex::encode(hasher.finalize().as_slice())
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

    /// Checks [`Metadata::content_sha256`] against the contents.
    pub(crate) fn check_content_digest(&self) -> Result<(), ArtifactError> {
        let digest = self.content_digest();
        if digest == self.metadata.content_sha256 {
            Ok(())
        } else {
            Err(ArtifactError::Malformed(format!(
                "content_sha256 is {:?} but the contents give {digest}",
                self.metadata.content_sha256
            )))
        }
    }

    /// Checks that every body hashes to its ETag, on all cores: the first
    /// product (in index order) whose body does not is named.
    pub fn check_bodies(&self) -> Result<(), ArtifactError> {
        if self.bodies_checked() {
            return Ok(());
        }
        let entries: Vec<IndexEntry> = self.entries().collect();
        let failures = crate::parallel::map(&entries, |entry| self.check_entry_bodies(entry).err());
        failures.into_iter().flatten().next().map_or(Ok(()), Err)?;
        for document in self.documents() {
            self.check_representations(document.path, &document.representations)?;
        }
        self.bodies_checked.store(true, std::sync::atomic::Ordering::Relaxed);
        Ok(())
    }

    /// Takes every body as hashing to its ETag without reading it: for an
    /// artifact file whose stamp says it is as the build that wrote it
    /// left it (`ResponseCatalog::read_stamps`), which checked them.
    pub(crate) fn trust_bodies(&self) {
        self.bodies_checked.store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// Checks that each body of a product or site document whose bodies
    /// lie, at least in part, in one of `ranges` (`(start, end)` offsets of
    /// the file) hashes to its ETag: what a replica checks of a delta whose
    /// other bytes it copied from a file it had checked itself. The first
    /// product (in index order) whose body does not is named.
    pub fn check_bodies_in(&self, ranges: &[(u64, u64)]) -> Result<(), ArtifactError> {
        let data_at = self.data_at();
        let touched = |run: Option<(u64, u64)>| {
            // A product whose bodies are not one run is checked.
            run.is_none_or(|(offset, len)| {
                let (start, end) = (data_at.saturating_add(offset), data_at.saturating_add(offset).saturating_add(len));
                ranges.iter().any(|&(from, to)| from < end && start < to)
            })
        };
        for entry in self.entries() {
            if touched(contiguous(entry.body_spans())) {
                self.check_entry_bodies(&entry)?;
            }
        }
        for document in self.documents() {
            if touched(contiguous(document.body_spans())) {
                self.check_representations(document.path, &document.representations)?;
            }
        }
        Ok(())
    }

    /// Whether every body is known to hash to its ETag (built in this
    /// process, or checked).
    pub(crate) fn bodies_checked(&self) -> bool {
        self.bodies_checked.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Checks that each of one product's bodies (and its page's) hashes
    /// to its ETag.
    pub(crate) fn check_entry_bodies(&self, entry: &IndexEntry) -> Result<(), ArtifactError> {
        self.check_representations(entry.slug, &entry.representations)?;
        match &entry.page {
            Some(page) => self.check_representations(page.path, &page.representations),
            None => Ok(()),
        }
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

    /// Checks that each stored body hashes to its ETag; the error names
    /// `name`. A body as is inflated from gzip has no bytes of its own to
    /// check: its gzip body is checked here, and what it inflates to is
    /// checked against its own ETag whenever it is made, before it is
    /// served ([`crate::catalog::Representation::body`]).
    fn check_representations(&self, name: Span, representations: &[(Span, Span)]) -> Result<(), ArtifactError> {
        for (&coding, &(body, etag)) in self.metadata.codings.iter().zip(representations) {
            if body.is_inflated() {
                continue;
            }
            let (body, etag) = (self.slice(body), self.slice(etag)?);
            if !body.is_ok_and(|body| etag_names(&etag, &body)) {
                let slug = self.slice(name)?;
                return Err(ArtifactError::Body { slug: String::from_utf8_lossy(&slug).into_owned(), coding });
            }
        }
        Ok(())
    }
}

/// The length of the index an artifact with this metadata has: an entry
/// per product and per site document; `None` past `u64::MAX`.
fn expected_index_len(metadata: &Metadata) -> Option<u64> {
    let codings = metadata.codings.len();
    let documents = metadata.pages.as_ref().map_or(0, |pages| pages.documents);
    let products = metadata.products.checked_mul(entry_len(codings, metadata.pages.is_some()) as u64)?;
    products.checked_add(documents.checked_mul(document_len(codings) as u64)?)
}

/// The signature region: empty, or a public key and a signature.
fn signature_of(region: &[u8]) -> Result<Option<Signature>, ArtifactError> {
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

/// What a signature covers: the context, the format version (format 4),
/// then the metadata and the block list (the index in older formats),
/// each after its length.
#[cfg(feature = "signing")]
pub(crate) fn signed_message(version: &[u8], metadata_json: &[u8], last: &[u8]) -> Vec<u8> {
    let mut message = Vec::with_capacity(SIGNING_CONTEXT.len() + 20 + metadata_json.len() + last.len());
    message.extend_from_slice(SIGNING_CONTEXT);
    message.extend_from_slice(version);
    message.extend_from_slice(&(metadata_json.len() as u64).to_le_bytes());
    message.extend_from_slice(metadata_json);
    message.extend_from_slice(&(last.len() as u64).to_le_bytes());
    message.extend_from_slice(last);
    message
}

/// The length of `file`, checked to be a regular file (not a FIFO or a
/// device) of at most `max_len` bytes.
fn regular_len(file: &std::fs::File, max_len: u64) -> Result<u64, ArtifactError> {
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

/// Whether `etag` is the quoted lowercase hex SHA-256 of `body`.
pub(crate) fn etag_names(etag: &[u8], body: &[u8]) -> bool {
    let digest = Sha256::digest(body);
    etag.len() == ETAG_LEN && hex::decode(&etag[1..ETAG_LEN - 1]).is_ok_and(|d| d == digest.as_slice())
}

/// The strong ETag of `body`: its quoted lowercase hex SHA-256.
pub(crate) fn etag_of(body: &[u8]) -> String {
    format!("\"{}\"", hex::encode(Sha256::digest(body).as_slice()))
}

fn decode_span(at: &[u8]) -> Span {
    Span { offset: le_u64(&at[..8]), len: u32::from_le_bytes([at[8], at[9], at[10], at[11]]) }
}

fn decode_entry(entry: &[u8], codings: usize, pages: bool) -> IndexEntry {
    let span = |i: usize| decode_span(&entry[8 + SOURCE_LEN + i * SPAN_LEN..]);
    let representations = |first: usize| (0..codings).map(|c| (span(first + 2 * c), span(first + 1 + 2 * c))).collect();
    let mut source = [0; SOURCE_LEN];
    source.copy_from_slice(&entry[8..8 + SOURCE_LEN]);
    let page_at = 2 + 2 * codings;
    IndexEntry {
        modified: le_u64(&entry[..8]),
        source,
        slug: span(0),
        last_modified: span(1),
        representations: representations(2),
        page: pages.then(|| PageSpans {
            path: span(page_at),
            lastmod: span(page_at + 1),
            representations: representations(page_at + 2),
        }),
    }
}

/// Whether `etag` has the form of the ETags this crate writes.
pub(crate) fn is_strong_etag(etag: &[u8]) -> bool {
    etag.len() == ETAG_LEN
        && etag[0] == b'"'
        && etag[ETAG_LEN - 1] == b'"'
        && etag[1..ETAG_LEN - 1].iter().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b))
}

/// Whether `date` is `seconds` since 1970 as an IMF-fixdate.
pub(crate) fn is_http_date_of(date: &[u8], seconds: u64) -> bool {
    date.len() == HTTP_DATE_LEN
        && seconds <= LAST_HTTP_DATE
        && httpdate::fmt_http_date(std::time::UNIX_EPOCH + std::time::Duration::from_secs(seconds)).as_bytes() == date
}

/// The length of a product's index entry: its date, source digest, slug,
/// `Last-Modified` and representations, and with pages its page's path,
/// `lastmod` and representations.
fn entry_len(codings: usize, pages: bool) -> usize {
    8 + SOURCE_LEN + SPAN_LEN * (2 + 2 * codings) * if pages { 2 } else { 1 }
}

/// The length of a site document's index entry: its path and representations.
fn document_len(codings: usize) -> usize {
    SPAN_LEN * (1 + 2 * codings)
}

/// The index in the layout held in memory (version 3's): each entry's
/// date, source digest and spans, then each site document's spans.
fn spans_index(entries: &[IndexEntry], documents: &[DocumentEntry], codings: usize, pages: bool) -> Vec<u8> {
    let mut index =
        Vec::with_capacity(entries.len() * entry_len(codings, pages) + documents.len() * document_len(codings));
    for entry in entries {
        index.extend_from_slice(&entry.modified.to_le_bytes());
        index.extend_from_slice(&entry.source);
        entry.spans().for_each(|span| push_span(&mut index, span));
    }
    for document in documents {
        document.spans().for_each(|span| push_span(&mut index, span));
    }
    index
}

fn push_span(index: &mut Vec<u8>, span: Span) {
    index.extend_from_slice(&span.offset.to_le_bytes());
    index.extend_from_slice(&span.len.to_le_bytes());
}

fn le_u64(bytes: &[u8]) -> u64 {
    let mut le = [0; 8];
    le.copy_from_slice(&bytes[..8]);
    u64::from_le_bytes(le)
}

/// What an artifact's header says.
#[derive(Debug, Clone)]
struct Header {
    version: u32,
    /// The header's own length.
    len: usize,
    crc: u32,
    /// The region lengths: metadata, signature, block list, index,
    /// table, bodies (block list and table 0 before version 4, where the
    /// table's bytes are in the data region, which is the last length).
    lengths: [u64; 6],
}

/// A version-4 head's block list and index, as stored.
struct Stored {
    blocks: Bytes,
    index: Bytes,
}

/// The regions a header gives the lengths of, by position in [`Header::lengths`].
const BLOCKS: usize = 2;
const INDEX: usize = 3;
const TABLE: usize = 4;

impl Header {
    /// Reads the header at the start of `prefix` (the file's first bytes,
    /// at least [`HEADER_LEN`] of them when the file has them) and checks
    /// it against the file's length `file_len`.
    fn parse(prefix: &[u8], file_len: u64) -> Result<Header, ArtifactError> {
        if prefix.len() < MAGIC.len() || prefix[..MAGIC.len()] != MAGIC {
            return Err(ArtifactError::NotAnArtifact);
        }
        let u32_at = |at: usize| prefix.get(at..at + 4).map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
        let u64_at = |at: usize| prefix.get(at..at + 8).map(le_u64);
        let too_short = |header: usize| ArtifactError::Length { expected: header as u64, found: file_len };
        let version = u32_at(8).ok_or(too_short(HEADER_LEN_V1))?;
        let (len, lengths) = match version {
            1 => (HEADER_LEN_V1, [u64_at(16), Some(0), Some(0), u64_at(24), Some(0), u64_at(32)]),
            2 | 3 => (HEADER_LEN_V3, [u64_at(16), u64_at(24), Some(0), u64_at(32), Some(0), u64_at(40)]),
            4 => (HEADER_LEN, [16, 24, 32, 40, 48, 56].map(u64_at)),
            found => return Err(ArtifactError::Version { found }),
        };
        let (Some(crc), [Some(meta), Some(signature), Some(blocks), Some(index), Some(table), Some(data)]) =
            (u32_at(12), lengths)
        else {
            return Err(too_short(len));
        };
        let lengths = [meta, signature, blocks, index, table, data];
        let expected = lengths.into_iter().try_fold(len as u64, u64::checked_add);
        if expected != Some(file_len) {
            return Err(ArtifactError::Length { expected: expected.unwrap_or(u64::MAX), found: file_len });
        }
        Ok(Header { version, len, crc, lengths })
    }

    /// Where region `n` ([`Header::lengths`]) starts in the file (the
    /// lengths add up to the file's: no overflow).
    fn at(&self, n: usize) -> u64 {
        self.len as u64 + self.lengths[..n].iter().sum::<u64>()
    }

    /// Where the data region starts in the file (the table's start, in version 4).
    fn data_at(&self) -> u64 {
        self.at(TABLE)
    }

    /// Where the index starts in the file.
    fn index_at(&self) -> u64 {
        self.at(INDEX)
    }

    /// Where the head ends: after the table in version 4.
    fn head_end(&self) -> u64 {
        self.at(TABLE + 1)
    }

    /// Checks what the header alone says of the metadata and signature.
    fn check_head_lengths(&self) -> Result<(), ArtifactError> {
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
    /// table's against their bounds (version 4).
    fn check_index_lengths(&self, meta_and_signature: &[u8]) -> Result<(), ArtifactError> {
        let [meta_len, _, blocks_len, index_len, table_len, _] = self.lengths;
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

/// An index and table larger than this are checked against the CRC as
/// they are read, before they are read into memory.
const STREAMED: u64 = 64 << 20;

/// A check of an artifact's summary before the rest of its head is read
/// or fetched (its signature: `Summary::verify_any`, feature `signing`).
pub type CheckSummary<'a> = dyn Fn(&Summary) -> Result<(), ArtifactError> + 'a;

/// What the first bytes of a version-4 artifact say before its index:
/// its header, metadata, signature and block list, which name the blocks
/// of its index and table. What a replica fetches first of a new
/// artifact, to fetch only the blocks of its head it does not hold
/// ([`crate::delta::Plan::head`]), then only the bodies that changed.
#[derive(Debug, Clone)]
pub struct Summary {
    header: Header,
    metadata: Metadata,
    blocks: Vec<Block>,
    /// What its signature covers, as stored: the metadata and the block
    /// list, and the signature.
    #[cfg(feature = "signing")]
    pub(crate) signed: (Bytes, Bytes, Option<Signature>),
}

impl Summary {
    /// How many first bytes of an artifact file of `file_len` bytes its
    /// summary takes, judged from its first bytes `prefix`: `Some(n)` with
    /// `n` larger than `prefix` asks for the first `n` bytes, to judge
    /// again (the metadata bounds the block list); `None` for a version
    /// before 4, which has no summary (its names and bodies are
    /// interleaved). A prefix that is not an artifact's, or whose lengths
    /// do not add up to `file_len` or to what its metadata says, is an
    /// error: nothing more of it is worth reading.
    pub fn len_needed(prefix: &[u8], file_len: u64) -> Result<Option<u64>, ArtifactError> {
        if prefix.len() < HEADER_LEN && (prefix.len() as u64) < file_len {
            return Ok(Some(HEADER_LEN as u64));
        }
        let header = Header::parse(&prefix[..prefix.len().min(HEADER_LEN)], file_len)?;
        if header.version < 4 {
            return Ok(None);
        }
        header.check_head_lengths()?;
        if (prefix.len() as u64) < header.at(BLOCKS) {
            return Ok(Some(header.at(BLOCKS)));
        }
        header.check_index_lengths(&prefix[header.len..])?;
        Ok(Some(header.index_at()))
    }

    /// The summary at the start of `prefix` (at least
    /// [`Summary::len_needed`] bytes of it), of a file of `file_len` bytes:
    /// its block list checked to cover the index and the table the header
    /// and the metadata say (not yet against them: a signature over it is
    /// checked with the whole head, [`Artifact::from_head`]).
    pub fn parse(prefix: &[u8], file_len: u64) -> Result<Summary, ArtifactError> {
        let header = Header::parse(prefix.get(..HEADER_LEN).unwrap_or(prefix), file_len)?;
        if header.version < 4 {
            return Err(ArtifactError::Malformed(format!("a version-{} artifact has no summary", header.version)));
        }
        header.check_head_lengths()?;
        let (blocks_at, index_at) = (header.at(BLOCKS) as usize, header.index_at() as usize);
        let short = || ArtifactError::Length { expected: index_at as u64, found: prefix.len() as u64 };
        let meta_and_signature = prefix.get(header.len..blocks_at).ok_or_else(short)?;
        header.check_index_lengths(meta_and_signature)?;
        let block_list = prefix.get(blocks_at..index_at).ok_or_else(short)?;
        Summary::from_parts(header, meta_and_signature, block_list)
    }

    /// The summary of an artifact whose header is `header` (its lengths
    /// checked), from its metadata and signature, and its block list.
    fn from_parts(header: Header, meta_and_signature: &[u8], block_list: &[u8]) -> Result<Summary, ArtifactError> {
        let meta_len = header.lengths[0] as usize;
        let (metadata_json, signature) = meta_and_signature.split_at(meta_len.min(meta_and_signature.len()));
        let metadata: Metadata =
            serde_json::from_slice(metadata_json).map_err(|e| ArtifactError::Malformed(format!("metadata: {e}")))?;
        let blocks = head::blocks(block_list, &metadata, header.lengths[TABLE])?;
        let signature = signature_of(signature)?;
        #[cfg(not(feature = "signing"))]
        let _ = signature;
        Ok(Summary {
            header,
            metadata,
            blocks,
            #[cfg(feature = "signing")]
            signed: (Bytes::copy_from_slice(metadata_json), Bytes::copy_from_slice(block_list), signature),
        })
    }

    /// Its metadata, as the file says it (checked against the signature
    /// only with the whole head, [`Artifact::from_head`]): what names the
    /// artifact's contents ([`Metadata::content_sha256`]) before anything
    /// else of it is read.
    pub fn metadata(&self) -> &Metadata {
        &self.metadata
    }

    /// Its length: where the index starts in the file.
    pub fn len(&self) -> u64 {
        self.header.index_at()
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

/// Reads a file in one piece per core, each read in blocks that are
/// checksummed as they arrive; returns the bytes and the CRC-32 of every
/// byte after the header's CRC field.
fn read_file(file: &std::fs::File, max_len: u64) -> Result<(Vec<u8>, Option<u32>), ArtifactError> {
    use std::os::unix::fs::FileExt;
    const BLOCK: usize = 8 << 20;
    let read_error = |e: std::io::Error| ArtifactError::Read(e.to_string());
    let len = regular_len(file, max_len)?;
    // The header first: a file that is not an artifact, or whose lengths
    // do not add up, costs its header, not its length in memory.
    let mut prefix = [0; HEADER_LEN];
    let prefix_len = usize::try_from(len).map_or(HEADER_LEN, |len| len.min(HEADER_LEN));
    file.read_exact_at(&mut prefix[..prefix_len], 0).map_err(read_error)?;
    // Version 4's CRC covers only what precedes the bodies: the parse computes it.
    let whole_crc = Header::parse(&prefix[..prefix_len], len)?.version < 4;
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
                        if whole_crc {
                            crc.update(block.get(16_usize.saturating_sub(at)..).unwrap_or_default());
                        }
                    }
                    Ok(crc)
                })
            })
            .collect();
        workers.into_iter().map(|w| w.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))).collect()
    });
    let mut total = crc32fast::Hasher::new();
    for crc in crcs {
        total.combine(&crc.map_err(read_error)?);
    }
    Ok((bytes, whole_crc.then(|| total.finalize())))
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

/// What a hand-made file could say, for the tests of what reads it.
#[cfg(test)]
impl Artifact {
    /// The version-3 example artifact of the previous release (with pages).
    pub(crate) fn example_v3() -> Artifact {
        let bytes = include_bytes!("../tests/serving/data/examples-v3.fcat");
        Artifact::parse(Bytes::from_static(bytes)).expect("the example parses")
    }

    /// The same artifact (with a placed index) with `edit` applied to its index's bytes.
    pub(crate) fn with_index(&self, edit: impl FnOnce(&mut Vec<u8>, usize, usize)) -> Artifact {
        let Index::Spans(index) = &self.index else { panic!("a placed index") };
        let mut index = index.to_vec();
        edit(&mut index, self.entry_len(), document_len(self.metadata.codings.len()));
        Artifact { index: Index::Spans(Bytes::from(index)), ..self.clone() }
    }
}

#[cfg(test)]
mod tests {
    use super::{Artifact, ArtifactError, Metadata, SOURCE_LEN, SPAN_LEN, le_u64};

    /// Each product's bytes must start where the one before ends: a
    /// second product moved a byte later (a gap) or earlier (an overlap)
    /// is refused, though the last one still ends where the data does.
    #[test]
    fn a_gap_or_an_overlap_between_products_is_refused() {
        let artifact = Artifact::example_v3();
        artifact.check_tiling().expect("the example is tiled");
        for shift in [1_i64, -1] {
            let moved = artifact.with_index(|index, entry_len, _| {
                for at in (entry_len + 8 + SOURCE_LEN..2 * entry_len).step_by(SPAN_LEN) {
                    let offset = le_u64(&index[at..]).checked_add_signed(shift).expect("within");
                    index[at..at + 8].copy_from_slice(&offset.to_le_bytes());
                }
            });
            let error = moved.check_tiling().expect_err("moved").to_string();
            assert!(error.contains("start at") && error.contains("where the ones before end at"), "{shift}: {error}");
        }
    }

    fn metadata(expires: Option<u64>) -> Metadata {
        Metadata {
            generator: "foundry-catalog 0.1.0".to_owned(),
            products: 0,
            codings: Vec::new(),
            record_types: Vec::new(),
            content_sha256: String::new(),
            renderer_sha256: None,
            sequence: None,
            expires,
            pages: None,
        }
    }

    #[test]
    fn an_expiry_past_what_the_clock_can_say_is_never_reached_and_never_panics() {
        let now = std::time::SystemTime::now();
        for huge in [u64::MAX, 1 << 63, (1 << 63) + 1] {
            assert!(!metadata(Some(huge)).expired(now));
            assert_eq!(metadata(Some(huge)).admissible(None, None, now), Ok(()));
        }
        assert!(metadata(Some(1)).expired(now));
        assert!(matches!(metadata(Some(1)).admissible(None, None, now), Err(ArtifactError::Expired { .. })));
    }
}
