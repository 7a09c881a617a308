//! A version-5 artifact's head as stored: the index as lengths (every
//! offset follows from the tiling, so an edit changes the entries it
//! touches and no other), the block list, which names the index and
//! the table a block of entries at a time (and says where each block's
//! bodies start), and the slug directory, which finds a product's entry
//! from its slug without reading the index. The block list and the
//! directory are what the signature covers of them. A replica compares
//! block lists to fetch only the blocks of the head that changed
//! ([`crate::delta::Plan::head`]).

use std::ops::Range;

use sha2::{Digest, Sha256};

use super::{ArtifactError, DocumentEntry, IndexEntry, Metadata, PageSpans, SOURCE_LEN, Span};

/// Hands its last argument the table's bytes from the first, as many as
/// the second says, in the pieces they are held in.
pub(crate) type TableBytes<'a> = dyn Fn(u64, u64, &mut dyn FnMut(&[u8])) + Sync + 'a;

/// A length in a stored index entry: u32.
const LEN_LEN: usize = 4;
/// A block list entry: its entries (u32), its table bytes (u32), its
/// bodies' bytes (u64), and the SHA-256 of its stored index entries
/// followed by its table bytes.
pub(crate) const BLOCK_LEN: usize = 48;
/// A slug directory entry: the first [`KEY_LEN`] bytes of the SHA-256 of
/// a product's slug, then its entry's number (u32).
pub(crate) const DIRECTORY_ENTRY_LEN: usize = 20;
/// The bytes of a slug's SHA-256 that key it in the directory.
const KEY_LEN: usize = 16;
/// A block ends after an entry whose name's SHA-256 starts with a u32
/// that is a multiple of this (so about this many entries a block, and an
/// inserted or removed product moves no boundary but its own block's)…
const BLOCK_TARGET: u32 = 64;
/// …or when it holds this many (and a reader refuses a block of more).
const BLOCK_MAX: u32 = 256;

/// The length of a product's stored index entry: `modified`, the source
/// digest, then the length of each of its table spans and of each of its
/// bodies ([`IndexEntry::table_spans`], [`IndexEntry::body_spans`]).
pub(crate) fn entry_len(codings: usize, pages: bool) -> usize {
    8 + SOURCE_LEN + LEN_LEN * (2 + 2 * codings) * if pages { 2 } else { 1 }
}

/// The length of a site document's stored index entry: the lengths of its
/// name, its ETags and its bodies.
pub(crate) fn document_len(codings: usize) -> usize {
    LEN_LEN * (1 + 2 * codings)
}

/// The stored index's length for `metadata`; `None` past `u64::MAX`.
pub(crate) fn index_len(metadata: &Metadata) -> Option<u64> {
    let codings = metadata.codings.len();
    let documents = metadata.pages.as_ref().map_or(0, |pages| pages.documents);
    let products = metadata.products.checked_mul(entry_len(codings, metadata.pages.is_some()) as u64)?;
    products.checked_add(documents.checked_mul(document_len(codings) as u64)?)
}

/// Appends the stored form of the product `entry` to `stored`.
pub(crate) fn store_product(entry: &IndexEntry, stored: &mut Vec<u8>) {
    stored.extend_from_slice(&entry.modified.to_le_bytes());
    stored.extend_from_slice(&entry.source);
    lengths(stored, &mut entry.table_spans());
    lengths(stored, &mut entry.bodies());
}

/// Appends the stored form of each of `documents` to `stored`.
pub(crate) fn store_documents(documents: &[DocumentEntry], stored: &mut Vec<u8>) {
    for document in documents {
        lengths(stored, &mut document.table_spans());
        lengths(stored, &mut document.representations.iter().map(|&(body, _)| body));
    }
}

/// Appends each span's length to `stored`.
fn lengths(stored: &mut Vec<u8>, spans: &mut dyn Iterator<Item = Span>) {
    spans.for_each(|span| stored.extend_from_slice(&span.len.to_le_bytes()));
}

/// Where an entry's table run and body run start in the data region.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub(crate) struct Start {
    pub(crate) table: u64,
    pub(crate) bodies: u64,
}

/// One entry of a stored index, placed: its lengths read in place, and
/// where its runs start.
pub(crate) struct Entry<'a> {
    /// A product's `modified` and source digest; empty for a document.
    pub(crate) fixed: &'a [u8],
    table: &'a [u8],
    bodies: &'a [u8],
    start: Start,
    codings: usize,
    /// The position of the identity body inflated from gzip among the codings.
    inflated: Option<usize>,
}

/// The `n`th u32 length of `lengths`.
fn len_at(lengths: &[u8], n: usize) -> Option<u32> {
    let at = n.checked_mul(LEN_LEN)?;
    lengths.get(at..at + LEN_LEN).map(|len| u32::from_le_bytes([len[0], len[1], len[2], len[3]]))
}

/// The sum of the lengths of `lengths` before the `n`th, but those `skip` names.
fn sum_before(lengths: &[u8], n: usize, skip: impl Fn(usize) -> bool) -> u64 {
    (0..n).filter(|&k| !skip(k)).filter_map(|k| len_at(lengths, k)).map(u64::from).sum()
}

impl Entry<'_> {
    /// Where its bodies start in the data region.
    pub(crate) fn bodies_start(&self) -> u64 {
        self.start.bodies
    }

    /// Whether body `k` of the body run is the identity body inflated from gzip.
    fn is_inflated(&self, k: usize) -> bool {
        self.inflated.is_some_and(|inflated| k % self.codings.max(1) == inflated)
    }

    /// The `k`th span of the table run: for a product its slug, date,
    /// ETags, then its page's path, `lastmod` and ETags; for a document
    /// its name, then its ETags.
    pub(crate) fn table_span(&self, k: usize) -> Option<Span> {
        let len = len_at(self.table, k)?;
        Some(Span { offset: self.start.table + sum_before(self.table, k, |_| false), len })
    }

    /// The `k`th body of the body run (by coding; a product's, then its page's).
    pub(crate) fn body_span(&self, k: usize) -> Option<Span> {
        let len = len_at(self.bodies, k)?;
        if self.is_inflated(k) {
            return Some(Span::inflated(len));
        }
        Some(Span { offset: self.start.bodies + sum_before(self.bodies, k, |j| self.is_inflated(j)), len })
    }

    /// Every span of its table run, then every span of its body run.
    fn spans(&self) -> (Vec<Span>, Vec<Span>) {
        let lengths = |run: &[u8]| (0..run.len() / LEN_LEN).filter_map(|k| len_at(run, k)).collect::<Vec<_>>();
        let mut at = self.start.table;
        let table = lengths(self.table)
            .into_iter()
            .map(|len| {
                let span = Span { offset: at, len };
                at += u64::from(len);
                span
            })
            .collect();
        let mut at = self.start.bodies;
        let bodies = lengths(self.bodies)
            .into_iter()
            .enumerate()
            .map(|(k, len)| {
                if self.is_inflated(k) {
                    return Span::inflated(len);
                }
                let span = Span { offset: at, len };
                at += u64::from(len);
                span
            })
            .collect();
        (table, bodies)
    }

    /// The lengths of its runs: its table bytes, and its bodies stored.
    fn run_lengths(&self) -> (u64, u64) {
        let (tables, bodies) = (self.table.len() / LEN_LEN, self.bodies.len() / LEN_LEN);
        (sum_before(self.table, tables, |_| false), sum_before(self.bodies, bodies, |k| self.is_inflated(k)))
    }

    /// A product's entry, decoded.
    pub(crate) fn product(&self, pages: bool) -> IndexEntry {
        let (table, bodies) = self.spans();
        let codings = self.codings;
        let blank = Span { offset: 0, len: 0 };
        let span = |spans: &[Span], k: usize| spans.get(k).copied().unwrap_or(blank);
        let representations = |etags: usize, first: usize| {
            (0..codings).map(|c| (span(&bodies, first + c), span(&table, etags + c))).collect()
        };
        let mut source = [0; SOURCE_LEN];
        source.copy_from_slice(self.fixed.get(8..8 + SOURCE_LEN).unwrap_or(&[0; SOURCE_LEN]));
        IndexEntry {
            modified: self.fixed.get(..8).map_or(0, |m| u64::from_le_bytes(m.try_into().unwrap_or_default())),
            source,
            slug: span(&table, 0),
            last_modified: span(&table, 1),
            representations: representations(2, 0),
            page: pages.then(|| PageSpans {
                path: span(&table, 2 + codings),
                lastmod: span(&table, 3 + codings),
                representations: representations(4 + codings, codings),
            }),
        }
    }

    /// A site document's entry, decoded.
    pub(crate) fn document(&self) -> DocumentEntry {
        let (table, bodies) = self.spans();
        let blank = Span { offset: 0, len: 0 };
        let span = |spans: &[Span], k: usize| spans.get(k).copied().unwrap_or(blank);
        DocumentEntry {
            path: span(&table, 0),
            representations: (0..self.codings).map(|c| (span(&bodies, c), span(&table, 1 + c))).collect(),
        }
    }
}

/// Where entry `n` (products, then site documents) starts in the stored
/// index, and its length; `None` past `u64`.
fn index_place(metadata: &Metadata, n: usize) -> Option<(usize, usize)> {
    let codings = metadata.codings.len();
    let pages = metadata.pages.is_some();
    let products = usize::try_from(metadata.products).ok()?;
    if n < products {
        return Some((n.checked_mul(entry_len(codings, pages))?, entry_len(codings, pages)));
    }
    let documents_at = products.checked_mul(entry_len(codings, pages))?;
    Some((documents_at.checked_add((n - products).checked_mul(document_len(codings))?)?, document_len(codings)))
}

/// The stored entry of product `n` (below `metadata.products`), or of
/// site document `n - products`, placed from `start`, in `stored`: the
/// stored index from entry `first` on; `None` outside it.
pub(crate) fn entry<'a>(
    stored: &'a [u8],
    first: usize,
    metadata: &Metadata,
    n: usize,
    start: Start,
) -> Option<Entry<'a>> {
    let codings = metadata.codings.len();
    let pages = metadata.pages.is_some();
    let products = usize::try_from(metadata.products).ok()?;
    let (fixed, tables) =
        if n < products { (8 + SOURCE_LEN, (2 + codings) * if pages { 2 } else { 1 }) } else { (0, 1 + codings) };
    let (at, len) = index_place(metadata, n)?;
    let at = at.checked_sub(index_place(metadata, first)?.0)?;
    let bytes = stored.get(at..at.checked_add(len)?)?;
    let (fixed, lengths) = bytes.split_at(fixed);
    let (table, bodies) = lengths.split_at(tables * LEN_LEN);
    Some(Entry { fixed, table, bodies, start, codings, inflated: metadata.inflated_identity() })
}

/// Where each entry of `count` from entry `first` starts, its runs placed
/// one after another from `start`, in `stored` (the stored index from
/// `first` on); and where the last one's runs end.
pub(crate) fn place(
    stored: &[u8],
    metadata: &Metadata,
    first: usize,
    count: usize,
    mut start: Start,
) -> (Vec<Start>, Start) {
    let mut starts = Vec::with_capacity(count);
    for n in first..first.saturating_add(count) {
        let Some(entry) = entry(stored, first, metadata, n, start) else { break };
        starts.push(start);
        // At most 2^32 lengths of 2^32 bytes each: no overflow.
        let (table, bodies) = entry.run_lengths();
        start = Start { table: start.table + table, bodies: start.bodies + bodies };
    }
    (starts, start)
}

/// Where each entry of a stored index (checked to be [`index_len`]
/// long) starts, products' then site documents': its spans placed one
/// after another, the table's from 0, the bodies' from `table_len` (an
/// identity body inflated from gzip, [`Metadata::inflated_identity`],
/// nowhere). An error when they do not end at `table_len` and `data_len`.
pub(crate) fn load(
    stored: &[u8],
    metadata: &Metadata,
    table_len: u64,
    data_len: u64,
) -> Result<Vec<Start>, ArtifactError> {
    let products = usize::try_from(metadata.products).unwrap_or(usize::MAX);
    let documents = metadata.pages.as_ref().map_or(0, |pages| usize::try_from(pages.documents).unwrap_or(usize::MAX));
    if index_len(metadata) != Some(stored.len() as u64) {
        return Err(ArtifactError::Malformed(format!(
            "an index of {} bytes for {products} products and {documents} site documents",
            stored.len()
        )));
    }
    let (starts, end) = place(stored, metadata, 0, products + documents, Start { table: 0, bodies: table_len });
    let Start { table: table_at, bodies: body_at } = end;
    if table_at == table_len {
        untiled_bodies(body_at, data_len)?;
    }
    if table_at != table_len || body_at != data_len {
        return Err(ArtifactError::Malformed(format!(
            "the index's lengths add up to a table of {table_at} bytes and a data region of {body_at}, where the header says {table_len} and {data_len}"
        )));
    }
    Ok(starts)
}

/// Refuses bodies that end at `body_at`, short of a data region of
/// `data_len` bytes: the bytes after them belong to no product (what a
/// file with bytes appended, its lengths fixed up, holds). Checked where
/// the index places the bodies ([`load`]) and where the block list does
/// ([`blocks`]).
fn untiled_bodies(body_at: u64, data_len: u64) -> Result<(), ArtifactError> {
    if body_at < data_len {
        return Err(ArtifactError::Malformed(format!(
            "{} bytes at the end of the data region belong to no product",
            data_len - body_at
        )));
    }
    Ok(())
}

/// One block of the head: its entries (products, then site documents, as
/// numbered in the index), where its stored index entries and its table
/// bytes lie (from the start of the stored index and of the table), where
/// its bodies lie (in the data region), and the digest of its index
/// entries and table bytes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Block {
    pub(crate) entries: Range<u64>,
    pub(crate) index: Range<u64>,
    pub(crate) table: Range<u64>,
    pub(crate) bodies: Range<u64>,
    pub(crate) digest: [u8; 32],
}

/// Where the blocks of the block list `list` lie, checked to cover every
/// entry of `metadata`, every byte of a table of `table_len` bytes and
/// every body of a data region of `data_len` bytes, in order, each at
/// least one entry and at most [`BLOCK_MAX`], with at most
/// [`MAX_TABLE_PER_ENTRY`](super::layout::MAX_TABLE_PER_ENTRY) table
/// bytes an entry (what reading one block may take).
pub(crate) fn blocks(
    list: &[u8],
    metadata: &Metadata,
    table_len: u64,
    data_len: u64,
) -> Result<Vec<Block>, ArtifactError> {
    let codings = metadata.codings.len();
    let products = metadata.products;
    let documents = metadata.pages.as_ref().map_or(0, |pages| pages.documents);
    let (entry, document) = (entry_len(codings, metadata.pages.is_some()) as u64, document_len(codings) as u64);
    let malformed = |what: String| ArtifactError::Malformed(format!("the head's block list: {what}"));
    if !list.len().is_multiple_of(BLOCK_LEN) {
        return Err(malformed(format!("{} bytes", list.len())));
    }
    let total = products.checked_add(documents).ok_or_else(|| malformed("too many entries".to_owned()))?;
    // The stored index's offset of entry `n`.
    let index_at = |n: u64| n.min(products) * entry + n.saturating_sub(products) * document;
    let mut blocks = Vec::with_capacity(list.len() / BLOCK_LEN);
    let (mut first, mut table_at, mut body_at) = (0_u64, 0_u64, table_len);
    for stored in list.chunks_exact(BLOCK_LEN) {
        let count = u64::from(u32::from_le_bytes([stored[0], stored[1], stored[2], stored[3]]));
        let table = u64::from(u32::from_le_bytes([stored[4], stored[5], stored[6], stored[7]]));
        let bodies = u64::from_le_bytes([
            stored[8], stored[9], stored[10], stored[11], stored[12], stored[13], stored[14], stored[15],
        ]);
        let last = first + count;
        if count == 0 || count > u64::from(BLOCK_MAX) || last > total {
            return Err(malformed(format!("a block of {count} entries from entry {first} of {total}")));
        }
        if table > count * super::layout::MAX_TABLE_PER_ENTRY {
            return Err(malformed(format!("a block of {count} entries with {table} table bytes")));
        }
        let body_end = body_at.checked_add(bodies).filter(|&end| end <= data_len);
        let Some(body_end) = body_end else {
            return Err(malformed(format!("a block of {bodies} body bytes from {body_at} of {data_len}")));
        };
        let mut digest = [0; 32];
        digest.copy_from_slice(&stored[16..]);
        blocks.push(Block {
            entries: first..last,
            index: index_at(first)..index_at(last),
            table: table_at..table_at + table,
            bodies: body_at..body_end,
            digest,
        });
        (first, table_at, body_at) = (last, table_at + table, body_end);
    }
    if first == total && table_at == table_len {
        untiled_bodies(body_at, data_len)?;
    }
    if first != total || table_at != table_len || body_at != data_len {
        return Err(malformed(format!(
            "blocks of {first} entries, {table_at} table bytes and a data region of {body_at}, for {total} entries, {table_len} and {data_len}"
        )));
    }
    Ok(blocks)
}

/// The block list of an index (stored as `stored`) whose entries' names
/// have the keys `keys` ([`key_of`]: the first bytes of their digests)
/// and whose table runs are `runs` and body runs `bodies` (each entry's,
/// in order): blocks end where a name's digest says ([`BLOCK_TARGET`],
/// [`BLOCK_MAX`]), and each is named by the digest of its stored index
/// entries and table bytes, which `table` gives for a range of the table
/// (the blocks are hashed on all cores).
pub(crate) fn list(
    stored: &[u8],
    keys: &[[u8; KEY_LEN]],
    [runs, bodies]: [&[(u64, u64)]; 2],
    metadata: &Metadata,
    table: &TableBytes<'_>,
) -> Vec<u8> {
    let codings = metadata.codings.len();
    let products = metadata.products;
    let (entry, document) = (entry_len(codings, metadata.pages.is_some()) as u64, document_len(codings) as u64);
    let index_at =
        |n: u64| usize::try_from(n.min(products) * entry + n.saturating_sub(products) * document).unwrap_or(0);
    // Where each block ends, from its names' digests.
    let mut ranges = Vec::new();
    let (mut first, mut count) = (0, 0);
    for (n, key) in keys.iter().enumerate() {
        count += 1;
        let mark = u32::from_le_bytes([key[0], key[1], key[2], key[3]]);
        if mark % BLOCK_TARGET == 0 || count == BLOCK_MAX || n + 1 == keys.len() {
            ranges.push((first, n as u64 + 1));
            (first, count) = (n as u64 + 1, 0);
        }
    }
    // Each block's digest, on all cores; the list in order.
    let listed = crate::parallel::map(&ranges, |&(first, last)| {
        let start = runs.get(first as usize).map_or(0, |run| run.0);
        let end = runs.get(last as usize - 1).map_or(start, |run| run.0 + run.1);
        let body_bytes: u64 =
            bodies.get(first as usize..last as usize).unwrap_or_default().iter().map(|run| run.1).sum();
        let mut hasher = Sha256::new();
        hasher.update(&stored[index_at(first)..index_at(last)]);
        table(start, end - start, &mut |bytes| hasher.update(bytes));
        let mut block = Vec::with_capacity(BLOCK_LEN);
        block.extend_from_slice(&u32::try_from(last - first).unwrap_or(u32::MAX).to_le_bytes());
        block.extend_from_slice(&u32::try_from(end - start).unwrap_or(u32::MAX).to_le_bytes());
        block.extend_from_slice(&body_bytes.to_le_bytes());
        block.extend_from_slice(hasher.finalize().as_slice());
        block
    });
    listed.concat()
}

/// Where a head holds another's block, if it does: its block's ranges
/// of the stored index and of the table.
pub(crate) type Held = Option<(Range<u64>, Range<u64>)>;

/// Where a head whose blocks are `ours` holds each of `blocks` (another
/// head's, in order): the index and table ranges of its block with the
/// same digest and the same lengths, when it has one.
pub(crate) fn holding(ours: &[Block], blocks: &[Block]) -> Vec<Held> {
    let known: std::collections::HashMap<_, _> = ours.iter().map(|block| (block.digest, block)).collect();
    let len = |range: &Range<u64>| range.end - range.start;
    blocks
        .iter()
        .map(|block| {
            let found = known.get(&block.digest)?;
            (len(&found.index) == len(&block.index) && len(&found.table) == len(&block.table))
                .then(|| (found.index.clone(), found.table.clone()))
        })
        .collect()
}

/// Whether `block`'s digest names these stored index entries and table bytes.
pub(crate) fn names(block: &Block, index: &[u8], table: &TableBytes<'_>) -> bool {
    let mut hasher = Sha256::new();
    hasher.update(index);
    table(block.table.start, block.table.end - block.table.start, &mut |bytes| hasher.update(bytes));
    hasher.finalize().as_slice() == block.digest
}

/// The key of `slug` in a slug directory.
pub(crate) fn key_of(slug: &[u8]) -> [u8; KEY_LEN] {
    let mut key = [0; KEY_LEN];
    key.copy_from_slice(&Sha256::digest(slug)[..KEY_LEN]);
    key
}

/// The slug directory of products named `slugs` (in index order): each
/// one's key and number, sorted by key.
pub(crate) fn directory<'a>(slugs: impl ExactSizeIterator<Item = &'a [u8]>) -> Vec<u8> {
    directory_of_keys(slugs.map(key_of))
}

/// The slug directory of products whose slugs' keys ([`key_of`]) are
/// `keys` (in index order).
pub(crate) fn directory_of_keys(keys: impl ExactSizeIterator<Item = [u8; KEY_LEN]>) -> Vec<u8> {
    let mut keyed: Vec<([u8; KEY_LEN], u32)> =
        keys.enumerate().map(|(n, key)| (key, u32::try_from(n).unwrap_or(u32::MAX))).collect();
    keyed.sort_unstable();
    let mut directory = Vec::with_capacity(keyed.len() * DIRECTORY_ENTRY_LEN);
    for (key, n) in keyed {
        directory.extend_from_slice(&key);
        directory.extend_from_slice(&n.to_le_bytes());
    }
    directory
}

/// The entry the slug directory `directory` gives `slug`, if any (the
/// entry's own slug is the caller's to compare: two slugs may share a key).
pub(crate) fn find(directory: &[u8], slug: &[u8]) -> Option<usize> {
    let key = key_of(slug);
    let entries = directory.len() / DIRECTORY_ENTRY_LEN;
    let entry = |k: usize| &directory[k * DIRECTORY_ENTRY_LEN..(k + 1) * DIRECTORY_ENTRY_LEN];
    let (mut low, mut high) = (0, entries);
    while low < high {
        let middle = low + (high - low) / 2;
        match entry(middle)[..KEY_LEN].cmp(&key[..]) {
            std::cmp::Ordering::Less => low = middle + 1,
            std::cmp::Ordering::Greater => high = middle,
            std::cmp::Ordering::Equal => {
                let n = &entry(middle)[KEY_LEN..];
                return usize::try_from(u32::from_le_bytes([n[0], n[1], n[2], n[3]])).ok();
            }
        }
    }
    None
}

/// Checks the slug directory of `metadata`'s products: its digest (what
/// the signature covers of it), keys in strictly increasing order, and
/// every product numbered once. Whether each key is its product's slug's
/// is checked with the product's block ([`super::forms`]).
pub(crate) fn check_directory(directory: &[u8], metadata: &Metadata) -> Result<(), ArtifactError> {
    let malformed = |what: &str| ArtifactError::Malformed(format!("the slug directory: {what}"));
    if hex::encode(Sha256::digest(directory)) != metadata.directory_sha256 {
        return Err(malformed("does not match its digest in the metadata"));
    }
    let products = usize::try_from(metadata.products).map_err(|_| malformed("too many products"))?;
    if directory.len() != products.saturating_mul(DIRECTORY_ENTRY_LEN) {
        return Err(malformed("not one entry a product"));
    }
    let mut seen = vec![0_u64; products.div_ceil(64)];
    let mut previous: Option<&[u8]> = None;
    for entry in directory.chunks_exact(DIRECTORY_ENTRY_LEN) {
        let (key, n) = entry.split_at(KEY_LEN);
        if previous.is_some_and(|previous| previous >= key) {
            return Err(malformed("keys out of order, or a key twice"));
        }
        previous = Some(key);
        let n = u32::from_le_bytes([n[0], n[1], n[2], n[3]]) as usize;
        let Some(word) = seen.get_mut(n / 64).filter(|_| n < products) else {
            return Err(malformed("an entry past the products"));
        };
        if *word & (1 << (n % 64)) != 0 {
            return Err(malformed("a product named twice"));
        }
        *word |= 1 << (n % 64);
    }
    Ok(())
}

/// Entries of a head placed in memory, from entry `first`: their stored
/// index entries, their table bytes (from the table's byte `table_at`),
/// and where each one's runs start. A block ([`super::lazy`]), or a whole
/// head.
pub(crate) struct View<'a> {
    pub(crate) first: usize,
    pub(crate) index: &'a [u8],
    pub(crate) table: &'a [u8],
    pub(crate) table_at: u64,
    pub(crate) starts: &'a [Start],
}

impl<'a> View<'a> {
    /// The entries it holds.
    pub(crate) fn entries(&self) -> Range<usize> {
        self.first..self.first + self.starts.len()
    }

    /// Entry `n` (numbered in the whole index), if it holds it.
    pub(crate) fn entry(&self, metadata: &Metadata, n: usize) -> Option<Entry<'a>> {
        entry(self.index, self.first, metadata, n, *self.starts.get(n.checked_sub(self.first)?)?)
    }

    /// The bytes of a span of its table bytes.
    pub(crate) fn bytes(&self, span: Span) -> Option<&'a [u8]> {
        let from = usize::try_from(span.offset.checked_sub(self.table_at)?).ok()?;
        self.table.get(from..from.checked_add(span.len as usize)?)
    }
}
