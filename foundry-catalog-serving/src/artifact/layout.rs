//! The constants of the format: its magic, its version, the fixed
//! header's length and where it gives each region's length, and the
//! bounds a loader holds a file's lengths to.

/// The first eight bytes of every artifact.
pub(crate) const MAGIC: [u8; 8] = *b"\x89FCA\r\n\x1a\n";
/// The first eight bytes of a pack list (`super::stored`): the bytes of
/// an artifact stored as ranges of packs.
pub(crate) const PACK_LIST_MAGIC: [u8; 8] = *b"\x89FCP\r\n\x1a\n";
/// The format version this crate writes, and the only one it reads.
pub(crate) const FORMAT_VERSION: u32 = 5;
/// The length of the fixed header: what a reader needs of a file to know
/// its length and where each region lies.
pub const HEADER_LEN: usize = 72;
/// The signature region of a signed artifact: public key and signature.
pub(super) const SIGNATURE_LEN: usize = 96;
/// The most metadata a loader accepts (it is a few hundred bytes).
pub(super) const MAX_METADATA_LEN: u64 = 1 << 24;
/// The most table bytes a loader accepts per product and site document:
/// a product's slug, date, ETags, page path and `lastmod` are well under
/// 2 KiB.
pub(super) const MAX_TABLE_PER_ENTRY: u64 = 4 << 10;
/// The regions a header gives the lengths of, by position in the header (`Header::lengths`).
pub(super) const BLOCKS: usize = 2;
pub(super) const DIRECTORY: usize = 3;
pub(super) const INDEX: usize = 4;
pub(super) const TABLE: usize = 5;
/// The regions a header gives the lengths of: metadata, signature, block
/// list, slug directory, index, table, bodies.
pub(super) const REGIONS: usize = 7;
