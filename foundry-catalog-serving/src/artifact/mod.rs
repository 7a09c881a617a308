//! The catalog artifact: a whole pre-built catalog in one file, written by
//! `foundry-catalog build` and loaded by `foundry-catalog serve --catalog
//! <file>` without any JSON work or compression.
//!
//! # Format, version 5
//!
//! All integers are little-endian. A file is a 72-byte header, then seven
//! regions back to back, and nothing after them:
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `89 46 43 41 0D 0A 1A 0A` (`\x89FCA\r\n\x1a\n`: a high-bit byte and line ends, so a text-mode transfer is caught as PNG's is) |
//! | 8 | 4 | format version, `5` |
//! | 12 | 4 | CRC-32 (IEEE, as zlib and gzip compute it) of every byte after this field up to the index |
//! | 16 | 8 | metadata length *M* |
//! | 24 | 8 | signature length *S*: 0 (unsigned) or 96 |
//! | 32 | 8 | block list length *B* |
//! | 40 | 8 | slug directory length *R*: 20 bytes a product |
//! | 48 | 8 | index length *I* |
//! | 56 | 8 | table length *T* |
//! | 64 | 8 | bodies length *D* |
//! | 72 | *M* | metadata: UTF-8 JSON, see [`Metadata`] |
//! | 72 + *M* | *S* | signature: the signer's Ed25519 public key (32 bytes), then the signature (64 bytes), see [`Signature`] |
//! | 72 + *M* + *S* | *B* | block list: 48 bytes a block |
//! | … + *B* | *R* | slug directory |
//! | … + *R* | *I* | index: one fixed-size entry per product, then one per site document |
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
//! the entries it touches and no other.
//!
//! The block list cuts the entries into blocks: each is the number of
//! entries it holds (u32, at most 256), the number of table bytes they
//! have (u32), the number of body bytes they have (u64), and the SHA-256
//! of the block's index entries followed by its table bytes. A build ends
//! a block after an entry whose name's SHA-256 starts with a multiple of
//! 64 (as a u32), or at 256 entries: about 64 entries a block, and
//! boundaries that depend on the names alone, so an edit changes one
//! block and an insertion moves no boundary but its own block's. Where
//! each block's entries, table bytes and bodies start follows from the
//! block list alone, so a reader reads a block without the rest of the
//! index. A replica fetches the blocks it does not hold
//! ([`crate::delta::Plan::head`]).
//!
//! The slug directory is one entry a product, sorted: the first 16 bytes
//! of the SHA-256 of its slug, then its entry's number (u32). A reader
//! finds a product by a binary search, then compares the entry's own
//! slug. [`Metadata::directory_sha256`] is its digest.
//!
//! The signature is Ed25519 (RFC 8032) over the bytes
//! `foundry-catalog artifact signature\n`, the format version (u32, `5`),
//! *M* (u64), the metadata, *B* (u64) and the block list. The block list
//! names the index and the table a block at a time; the metadata holds
//! the slug directory's digest, and [`Metadata::content_sha256`], which
//! names every slug, page path, `lastmod`, document path and ETag; each
//! ETag names its body's bytes; and the index's lengths must tile the
//! table and the bodies (and each block's, the block list's runs), so
//! they fix both. A signature that verifies, with every block and every
//! ETag checked against what it names, covers every byte served
//! (`Artifact::verify`, with the `signing` feature).
//!
//! # Packed artifacts
//!
//! An artifact may also be stored as a *pack list* ([`Artifact::write_packed`],
//! `build --packs`): a file whose bytes are, all integers little-endian,
//! the magic `89 46 43 50 0D 0A 1A 0A` (`\x89FCP\r\n\x1a\n`), a version
//! (u32, `1`), a number of ranges *n* (u32, 1 to 2^20), the artifact's
//! length (u64), *n* ranges of 48 bytes (a pack's SHA-256, where the range
//! starts in it and its length, u64 each, not 0), and a CRC-32 of every
//! byte before. The packs are files `fcpacks/<hex SHA-256>.fcpack` beside
//! the list, never changed once written; the ranges' bytes in order, which
//! must add up to the length, are the artifact above, byte for byte.
//! [`Artifact::open`] and [`Artifact::read`] read either from a path, and
//! a replica (feature `replica`) from an origin that serves the list with
//! its packs beside it; a pack list read as an artifact's bytes is
//! [`ArtifactError::Packed`].
//!
//! # Older formats
//!
//! Versions 1 to 4 are refused with an error that says to rebuild the
//! file: an artifact is a build output, which `foundry-catalog build`
//! makes again in seconds.
//!
//! # Checks when loading
//!
//! Opened from its file ([`Artifact::open`]), at start: the magic, the
//! version (5), the lengths (the file must be exactly as long as its
//! header says, so a truncated file is named as such; the index's and the
//! directory's the ones the metadata implies), the metadata, the
//! signature region's length, the block list (every entry, table byte and
//! body covered, in order, at most 256 entries and 4 KiB of table bytes an
//! entry a block), the CRC-32, and the slug directory (its digest, its
//! keys in order, every product once). Then each block, the first time
//! one of its entries is used: its digest, its entries' lengths
//! against the block list's runs, and every entry: its slug (a
//! [`foundry_catalog_core::Slug`], found by the directory at its own
//! entry, so no slug is held twice), its date (the `Last-Modified` text
//! must be `modified` as an IMF-fixdate), its ETags' form, its page path
//! (`/<route>/<slug>` of its own product) and `lastmod`, and each site
//! document's name (`/robots.txt`, `/sitemap.xml`, `/sitemap-<n>.xml`,
//! `404`, list pages and their cards); the site documents' blocks are
//! read at start. A head read whole ([`Artifact::read`],
//! [`Artifact::parse`], [`Artifact::from_head`]) has every block checked
//! at once, and [`Metadata::content_sha256`] recomputed from the slugs,
//! paths and ETags, when a catalog loads it. Nothing in a file can make
//! the loader panic or read out of bounds. The CRC-32 finds accidental
//! corruption, not tampering: that is the signature's job. A body is
//! checked against its ETag before it is served: when it is first read
//! from the file (or, for an artifact parsed from memory, when its
//! catalog is loaded).

use std::sync::Arc;

use bytes::Bytes;

mod bodies;
mod checks;
mod entries;
mod error;
mod forms;
mod head;
mod header;
mod index;
mod layout;
mod lazy;
mod metadata;
mod pack;
mod read;
pub(crate) mod stored;
mod summary;
mod write;

pub(crate) use bodies::{BaseHead, Bodies, BodyFile, Piece};
#[cfg_attr(not(feature = "pages"), allow(unused_imports))]
pub(crate) use entries::search_part_document;
pub(crate) use entries::{
    CARDS_DOCUMENT, DocumentEntry, FEED_DOCUMENT, ICON_DOCUMENT, IMAGE_DOCUMENT, IndexEntry, LAST_HTTP_DATE,
    NOT_FOUND_DOCUMENT, PageSpans, Response, SEARCH_DOCUMENT, SETTINGS_DOCUMENT, SOURCE_LEN, Span, contiguous,
    etag_names, etag_of, is_http_date_of, is_strong_etag,
};
pub use error::ArtifactError;
pub(crate) use head::{Block, store_product};
#[cfg(feature = "replica")]
pub(crate) use header::HeadCrc;
#[cfg(feature = "signing")]
pub(crate) use header::signed_message;
#[cfg(feature = "signing")]
pub(crate) use layout::FORMAT_VERSION;
pub use layout::HEADER_LEN;
pub(crate) use metadata::{Contents, Release, inflated_identity};
pub use metadata::{HighestServed, Metadata, RecordTypeId, Signature, SitePages};
pub use pack::PackTally;
pub use summary::{CheckSummary, Summary, file_len_of};
pub(crate) use write::Part;

/// A built or loaded artifact: metadata, signature, index and data, where
/// the data (the table, then the bodies) may be held in several buffers (a
/// build writes one per thread, and shares a previous artifact's; a file
/// read whole is one), or left in its file but for the table
/// ([`Artifact::open`]): its `bodies` say which.
#[derive(Debug, Clone)]
pub struct Artifact {
    metadata: Metadata,
    /// The metadata's JSON as stored (what a signature signs).
    metadata_json: Bytes,
    pub(crate) signature: Option<Signature>,
    /// The index and the table: held whole, or read a block at a time.
    index: index::Index,
    /// The block list, which names the stored index and the table.
    blocks: Bytes,
    /// The slug directory: each product's key and entry, sorted.
    directory: Bytes,
    /// The data region's pieces: `(offset in the data region, piece)`, in
    /// order: the table (unless the index is [`index::Index::Lazy`]), then the
    /// bodies held in memory or placed in files. For an artifact whose
    /// bodies are in its file, or absent, only the table.
    data: Vec<(u64, Piece)>,
    /// The data region's length.
    data_len: u64,
    /// The table's length: the data region's first bytes are every slug,
    /// date, ETag, page path, `lastmod` and document name, the rest every
    /// body.
    table: u64,
    /// Where its bodies are.
    bodies: Bodies,
    /// Whether every body is known to hash to its ETag: built here, or
    /// checked ([`Artifact::check_bodies`]); shared by clones.
    bodies_checked: Arc<std::sync::atomic::AtomicBool>,
    /// Whether its head's blocks are known to match their digests in its
    /// block list: built here, or checked ([`Artifact::check_blocks`]);
    /// shared by clones.
    blocks_checked: Arc<std::sync::atomic::AtomicBool>,
    /// Whether the forms of its head's entries (slugs where the slug
    /// directory finds them, dates, ETags, page paths: `forms::check_view`)
    /// are taken as right without checking them as its blocks are read
    /// (each block still hashed against the block list): a file its build
    /// wrote and nothing changed since ([`Artifact::trust_forms`]).
    forms_trusted: Arc<std::sync::atomic::AtomicBool>,
}

impl Artifact {
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

    /// The number of site documents.
    pub(crate) fn documents_len(&self) -> usize {
        self.metadata.pages.as_ref().map_or(0, |pages| usize::try_from(pages.documents).unwrap_or(usize::MAX))
    }

    /// The size of the file [`Artifact::write_to`] writes.
    pub fn file_len(&self) -> u64 {
        let signature = if self.signature.is_some() { layout::SIGNATURE_LEN } else { 0 };
        let head = (HEADER_LEN + self.blocks.len() + self.directory.len()) as u64 + self.index.len();
        head + (self.metadata_json.len() + signature) as u64 + self.data_len
    }

    /// Where the data region starts in the artifact's file.
    pub(crate) fn data_at(&self) -> u64 {
        self.file_len() - self.data_len
    }

    /// The table's length.
    pub(crate) fn table_len(&self) -> u64 {
        self.table
    }

    /// Whether this process built it ([`crate::catalog::Builder`]), so
    /// that its slugs, dates, ETags and content digest need no checking.
    pub(crate) fn built_here(&self) -> bool {
        matches!(self.bodies, Bodies::Built)
    }
}
