//! What a build places into a thread's data: a product made now or taken
//! from the previous artifact ([`Product`]), its table run and body run
//! written where the part's end, and its index entry as stored
//! ([`Part::place`]).

use std::sync::Arc;

use super::CatalogError;
use super::blocks::Data;
use super::pages::PreparedPage;
use super::previous::Previous;
use crate::artifact::{self, IndexEntry, PageSpans, SOURCE_LEN};

/// One product, ready to be written.
pub(super) enum Product {
    /// Rendered and compressed now.
    Built(Prepared),
    /// A product of the previous artifact, as it is.
    Reused {
        file: String,
        slug: String,
        /// Its entry in `from` (with the source digest of now).
        entry: IndexEntry,
        from: Arc<Previous>,
        /// Whether the manifest was rendered to find that out.
        rendered: bool,
    },
    /// A product of the previous artifact with its page rendered again:
    /// a product it links to as related changed.
    Repaged { file: String, slug: String, entry: IndexEntry, from: Arc<Previous>, page: PreparedPage },
}

impl Product {
    /// The digest of the source it was made from.
    pub(super) fn source(&self) -> [u8; SOURCE_LEN] {
        match self {
            Product::Built(prepared) => prepared.source,
            Product::Reused { entry, .. } | Product::Repaged { entry, .. } => entry.source,
        }
    }

    /// The file it was made from.
    pub(super) fn file(&self) -> &str {
        match self {
            Product::Built(prepared) => &prepared.file,
            Product::Reused { file, .. } | Product::Repaged { file, .. } => file,
        }
    }
}

/// A product made now: its slug, dates and representations.
pub(super) struct Prepared {
    pub(super) file: String,
    pub(super) slug: String,
    pub(super) source: [u8; SOURCE_LEN],
    pub(super) modified: u64,
    pub(super) last_modified: String,
    /// Bodies in the order of the codings this build makes (identity, gzip, brotli).
    pub(super) bodies: Vec<Vec<u8>>,
    /// Its page, when pages are built.
    pub(super) page: Option<PreparedPage>,
}

/// A product as written: its file and slug.
pub(super) type Written = (String, String);

/// What one thread built: its table and bodies, its products' files and
/// slugs (or problems), and their index entries as stored (lengths), each
/// placed where the one before it ended.
#[derive(Default)]
pub(super) struct Part {
    pub(super) data: Data,
    pub(super) written: Vec<Result<Written, CatalogError>>,
    pub(super) stored: Vec<u8>,
}

impl Part {
    /// Writes `product` (its table run and body run where the part's
    /// end) and its stored index entry: an error when its spans are not
    /// those two runs (a builder's bug).
    pub(super) fn place(&mut self, product: Product, inflated: Option<usize>) -> Result<Written, CatalogError> {
        let at = (self.data.table.written, self.data.bodies.written);
        let (file, slug, entry) = write_product(&mut self.data, product, inflated);
        let end = (self.data.table.written, self.data.bodies.written);
        let runs = (artifact::contiguous(entry.table_spans()), artifact::contiguous(entry.body_spans()));
        let tiled = runs.0 == Some((at.0, end.0 - at.0))
            && match runs.1 {
                Some(run) => run == (at.1, end.1 - at.1),
                None => end.1 == at.1,
            };
        if !tiled {
            let error = crate::artifact::ArtifactError::Malformed(format!("{file}: its spans are not tiled"));
            return Err(CatalogError::Artifact { file: "<built in memory>".to_owned(), error });
        }
        crate::artifact::store_product(&entry, &mut self.stored);
        Ok((file, slug))
    }
}

/// Appends each body (but the `inflated`th, identity inflated from
/// gzip, which only its length names), and its strong ETag to the
/// table; returns their spans.
pub(super) fn put_representations(
    data: &mut Data,
    bodies: &[Vec<u8>],
    inflated: Option<usize>,
) -> Vec<(artifact::Span, artifact::Span)> {
    let put = |data: &mut Data, n: usize, body: &[u8]| match inflated {
        Some(i) if i == n => artifact::Span::inflated(u32::try_from(body.len()).unwrap_or(u32::MAX)),
        _ => data.bodies.put(body),
    };
    bodies
        .iter()
        .enumerate()
        .map(|(n, body)| (put(data, n, body), data.table.put(artifact::etag_of(body).as_bytes())))
        .collect()
}

/// Appends a page's path, `lastmod` and representations to `data`.
fn put_page(data: &mut Data, page: &PreparedPage, inflated: Option<usize>) -> PageSpans {
    PageSpans {
        path: data.table.put(page.path.as_bytes()),
        lastmod: data.table.put(page.lastmod.as_bytes()),
        representations: put_representations(data, &page.bodies, inflated),
    }
}

/// Appends a product's bytes to `data` (a reused product's shared,
/// when they lie in one buffer of the previous artifact); returns its
/// file, slug and index entry (spans relative to the start of each part).
fn write_product(data: &mut Data, product: Product, inflated: Option<usize>) -> (String, String, IndexEntry) {
    match product {
        Product::Built(product) => {
            let slug = data.table.put(product.slug.as_bytes());
            let last_modified = data.table.put(product.last_modified.as_bytes());
            let representations = put_representations(data, &product.bodies, inflated);
            let page = product.page.as_ref().map(|page| put_page(data, page, inflated));
            let entry = IndexEntry {
                modified: product.modified,
                source: product.source,
                slug,
                last_modified,
                representations,
                page,
            };
            (product.file, product.slug, entry)
        }
        Product::Reused { file, slug, entry, from, .. } => {
            let entry = from.write(entry, data);
            (file, slug, entry)
        }
        Product::Repaged { file, slug, mut entry, from, page } => {
            // Its body and the rest of its table run as they are (its
            // page's bytes end both runs), then the page made now.
            entry.page = None;
            let mut entry = from.write(entry, data);
            entry.page = Some(put_page(data, &page, inflated));
            (file, slug, entry)
        }
    }
}

/// Moves each span `by` bytes.
pub(super) fn shift<'a>(spans: impl IntoIterator<Item = &'a mut artifact::Span>, by: u64) {
    for span in spans {
        span.offset += by;
    }
}
