//! A catalog of pre-built responses, for serving
//! `GET /api/public/foundry/products/{slug}`.
//!
//! Building (a [`Builder`]) turns every
//! manifest into its record, validates the record once, serializes its
//! body once, compresses it once per content coding (see
//! [`ContentCoding`]) and gives each representation a strong ETag, the
//! SHA-256 of its bytes; the result is an [`Artifact`], which can be
//! written to a file and loaded later without any of that work. A
//! [`ResponseCatalog`] is loaded from an artifact, built in memory or read
//! from a file: its bodies are slices of the artifact's few large buffers
//! or bodies read from its file and checked once (no allocation per
//! product), and a lookup is a binary search of the artifact's slug
//! directory, slug to position in the index, whose [`CatalogEntry`] is a
//! view that reads its spans from the index in place and returns the
//! bodies as a [`Bytes`], whose clone is a reference-count increment:
//! nothing is serialized per request.

use std::collections::HashMap;
use std::fmt;
use std::path::Path;
use std::sync::Arc;
use std::time::{Duration, SystemTime};

use bytes::Bytes;

use crate::artifact::{self, Artifact, ArtifactError, Metadata, Response};
pub use crate::encoding::ContentCoding;

mod blocks;
mod bodies;
mod builder;
mod errors;
mod load;
mod manifests;
mod pages;
mod place;
mod previous;
mod render;
mod search;
mod stamps;

pub use bodies::{BodyCache, Representation};
use bodies::{KeptBodies, Stored};
pub use builder::{Builder, DEFAULT_MAX_MANIFEST_LEN, Progress, UnavailableCoding};
pub use errors::{CatalogError, CatalogErrors};
pub use load::OpenOptions;
pub use manifests::Manifests;
pub use previous::{RecordTypeChange, RecordTypeChanges, Unusable};
pub use search::{SEARCH_PATH, SearchPage};

/// One pre-built response of a catalog (a product's body, its page, or a
/// site document): the body in every stored content coding, and its
/// modification time. A view into the catalog: a copy costs nothing, and
/// holding one holds nothing apart from the catalog's own memory.
#[derive(Clone, Copy)]
pub struct CatalogEntry<'a> {
    catalog: &'a ResponseCatalog,
    response: Response,
}

/// Which response it is and its ETag (not the catalog it is a view into).
impl fmt::Debug for CatalogEntry<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("CatalogEntry").field("response", &self.response).field("etag", &self.etag()).finish()
    }
}

/// Equal when every representation, the date and the position are.
impl PartialEq for CatalogEntry<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.response == other.response
            && self.last_modified_bytes() == other.last_modified_bytes()
            && self.modified() == other.modified()
            && ContentCoding::ALL.iter().all(|&coding| self.representation(coding) == other.representation(coding))
    }
}

impl Eq for CatalogEntry<'_> {}

impl<'a> CatalogEntry<'a> {
    /// The body in `coding`, or as is when that coding is not stored.
    pub fn representation(&self, coding: ContentCoding) -> Representation<'a> {
        let codings = self.catalog.codings();
        let stored = |coding: ContentCoding| codings.iter().position(|&c| c == coding);
        // Identity is stored in every artifact a catalog holds (checked at load).
        let c = stored(coding).or_else(|| stored(ContentCoding::Identity));
        let representation = c.and_then(|c| self.catalog.representation(self.response, c));
        representation.unwrap_or_else(|| Representation::missing(&self.catalog.kept.cache))
    }

    /// The response body as is, `{"data": …}` ([`Representation::body`]).
    pub fn body(&self) -> Result<Bytes, ArtifactError> {
        self.representation(ContentCoding::Identity).body()
    }

    /// The strong ETag of the body as is.
    pub fn etag(&self) -> &'a str {
        self.representation(ContentCoding::Identity).etag()
    }

    /// The product's date: its modification time and `Last-Modified`
    /// (a product's or its page's; a site document has none).
    fn date(&self) -> Option<(u64, artifact::Span)> {
        match self.response {
            Response::Product(n) | Response::Page(n) => self.catalog.artifact.product_date(n),
            Response::Document(_) => None,
        }
    }

    /// `Last-Modified`: the record's `last_updated_at` as an IMF-fixdate
    /// (shared bytes, for header values); empty for a site document.
    pub(crate) fn last_modified_bytes(&self) -> Bytes {
        let memory = self.date().and_then(|(_, span)| self.catalog.artifact.memory_of(span));
        memory.map_or_else(Bytes::new, |(buffer, date)| buffer.slice_ref(date))
    }

    /// The record's `last_updated_at`, to whole seconds.
    pub fn modified(&self) -> SystemTime {
        let seconds = self.date().map_or(0, |(modified, _)| modified);
        // Checked to be an HTTP date's (at most year 9999) at load.
        SystemTime::UNIX_EPOCH.checked_add(Duration::from_secs(seconds)).unwrap_or(SystemTime::UNIX_EPOCH)
    }
}

/// An artifact's site documents, by name (its pages are found by their
/// products' slugs).
#[derive(Debug, Default)]
struct SiteEntries {
    /// `/robots.txt`, the sitemap files, list pages and the rest, by name:
    /// their positions among the site documents.
    documents: HashMap<Bytes, usize>,
    /// The not-found page's.
    not_found: Option<usize>,
    /// The site search, once a search has read it. Unwind-safe as the
    /// rest of the catalog is: nothing in it changes once it is made
    /// (the template engine's closures are only called).
    #[cfg(feature = "pages")]
    search: once_cell::race::OnceBox<std::panic::AssertUnwindSafe<search::SiteSearch>>,
}

/// What a request at a path outside the product endpoint finds among a
/// catalog's pages.
#[derive(Debug, Clone, Copy)]
pub enum SiteResource<'a> {
    /// A product's page (`text/html`).
    Page(CatalogEntry<'a>),
    /// A site document: `robots.txt` (`text/plain`) or a sitemap file
    /// (`application/xml`); it has no `Last-Modified`.
    Document(CatalogEntry<'a>),
    /// Nothing at that path: the not-found page (`text/html`), to send with 404.
    NotFound(CatalogEntry<'a>),
    /// What would say whether a page is at that path cannot be read now:
    /// the block of the artifact's head that holds it fails its checks
    /// (its file was written into in place). Answered 503, never 404.
    Unavailable,
}

/// Pre-built responses by slug.
///
/// ```
/// let catalog = foundry_catalog_serving::catalog::ResponseCatalog::examples();
/// let entry = catalog.get("crm-webhook-connector").unwrap();
/// assert!(entry.body().unwrap().starts_with(b"{\"data\":{\"slug\":\"crm-webhook-connector\""));
/// assert_eq!(entry.etag().len(), 66);
/// ```
#[derive(Debug, Clone)]
pub struct ResponseCatalog {
    /// The artifact the entries share their bytes with (an incremental
    /// build reads its index).
    artifact: Artifact,
    /// What this process remembers for a build on this catalog: what the
    /// folder build that made it saw of each file. Not part of the
    /// artifact.
    stamps: Option<Arc<stamps::Stamps>>,
    /// The pages and site documents, when the artifact holds them.
    site: Option<Arc<SiteEntries>>,
    /// The bodies read from the artifact's file or inflated, once
    /// checked, and the cache they are counted against.
    kept: Arc<KeptBodies>,
}

impl ResponseCatalog {
    /// The example catalog (`foundry_catalog::examples`, one product per
    /// shipped record type), built in memory: what the server serves when
    /// given no catalog, and a catalog for tests in one call.
    pub fn examples() -> Self {
        let sources =
            foundry_catalog::examples::MANIFESTS.iter().map(|(name, text)| (name.to_string(), text.to_string()));
        Builder::new().build(sources).expect("the example catalog builds (tests/serving checks it)")
    }

    /// Writes the artifact file as [`Artifact::write_to`] does, to a
    /// file: the bytes it shares with a catalog opened by
    /// [`ResponseCatalog::open_to_build_on`] (the previous one of an
    /// incremental build) are copied file to file by the kernel
    /// (`copy_file_range`: a copy in the page cache, never through user
    /// space), not written from memory. (A previous file written into in
    /// place since makes a copy whose bodies do not match their ETags:
    /// refused when served, never served.)
    pub fn write_file(&self, out: &mut std::fs::File) -> std::io::Result<()> {
        use std::io::Write;
        self.artifact.write_parts(|part| match part {
            artifact::Part::Head(bytes) => out.write_all(bytes),
            artifact::Part::Data(bytes) => out.write_all(bytes),
            artifact::Part::File(file, at, len) => file.copy_to(at, len, out),
        })?;
        out.flush()
    }

    /// Writes its artifact as a packed artifact at `path`
    /// ([`Artifact::write_packed`]): the bytes that packs beside `path`
    /// hold already (a previous packed artifact's there, which a build on
    /// it took unread) are named, not copied.
    pub fn write_packed(&self, path: &std::path::Path) -> std::io::Result<artifact::PackTally> {
        self.artifact.write_packed(path)
    }

    /// Writes what the folder build that made this catalog saw of each
    /// manifest (its length, times, inode and digest: git's index for
    /// manifests) as a stamps file (binary: `catalog::stamps::file`),
    /// bound to this catalog's artifact, with the stamp of the file the
    /// artifact was written to
    /// (`written`: its metadata once written and renamed into place), so
    /// that the next build on it trusts its bodies while it keeps that
    /// stamp ([`ResponseCatalog::read_stamps`]); `false` (nothing
    /// written) for a catalog not built from a folder.
    /// `foundry-catalog build -o OUT` writes it to `OUT.stamps`, beside
    /// the artifact, never in it.
    pub fn write_stamps(
        &self,
        out: &mut impl std::io::Write,
        written: Option<&std::fs::Metadata>,
    ) -> std::io::Result<bool> {
        self.write_stamps_then(out, || Ok(written.cloned()))
    }

    /// [`ResponseCatalog::write_stamps`] while the artifact is written:
    /// the artifact file's stamp is the file's last record, and `written`
    /// is called for its metadata once every manifest's record is written
    /// (on a thread of its own, this waits for the artifact to be renamed
    /// into place). An error from `written` is returned, and the file then
    /// ends before that record: such a file reads as unusable.
    pub fn write_stamps_then(
        &self,
        out: &mut impl std::io::Write,
        written: impl FnOnce() -> std::io::Result<Option<std::fs::Metadata>>,
    ) -> std::io::Result<bool> {
        let Some(stamps) = &self.stamps else { return Ok(false) };
        stamps.write_to(out, &self.metadata().content_sha256, written)?;
        Ok(true)
    }

    /// Takes the stamps file at `path` (written by
    /// [`ResponseCatalog::write_stamps`] for this catalog's artifact), so
    /// that a build on this catalog ([`Builder::previous`]) takes a
    /// manifest whose length, modification and change times and inode are
    /// the ones recorded, and whose change time was at least two seconds
    /// before that build began, as unchanged without reading it. A file
    /// that is missing, not a regular file, longer than the stamps of as
    /// many manifests as the catalog has products can be (1 KiB a
    /// manifest), another
    /// artifact's or unreadable in any record is refused with the reason
    /// (the build then reads every manifest).
    ///
    /// Returns whether the artifact file this catalog was opened from
    /// ([`ResponseCatalog::open_to_build_on`]) has the stamp recorded when
    /// it was written: then its bodies are taken as that build wrote them
    /// (it checked each against its ETag), not read and hashed again. A
    /// file written into since, truncated, or replaced has another stamp,
    /// and each body taken from it is checked as before.
    pub fn read_stamps(&mut self, path: &Path) -> Result<bool, String> {
        let stamps = stamps::Stamps::read(path, self.metadata())?;
        Ok(self.take_stamps(stamps))
    }

    /// Takes `stamps`, read for this catalog's artifact, as
    /// [`ResponseCatalog::read_stamps`] does.
    fn take_stamps(&mut self, stamps: stamps::Stamps) -> bool {
        let unchanged = stamps.wrote(&self.artifact);
        if unchanged {
            self.artifact.trust_bodies();
        }
        self.stamps = Some(Arc::new(stamps));
        unchanged
    }

    /// With what the build that made it remembers: its folder's stamps.
    fn remembering(mut self, stamps: Option<stamps::Stamps>) -> Self {
        self.stamps = stamps.map(Arc::new);
        self
    }

    /// The position of `slug` in the artifact's index (`None` when the
    /// block that would hold it cannot be read: [`ResponseCatalog::lookup`]
    /// says so).
    pub(crate) fn position(&self, slug: &str) -> Option<usize> {
        self.artifact.position(slug.as_bytes()).ok().flatten()
    }

    /// [`ResponseCatalog::position`], looking first at `near`
    /// ([`Artifact::position_near`]).
    pub(crate) fn position_near(&self, slug: &str, near: usize) -> Option<usize> {
        self.artifact.position_near(slug.as_bytes(), near).ok().flatten()
    }

    /// The pre-built response for a slug; `None` for a slug it does not
    /// hold, and for one it cannot read now ([`ResponseCatalog::lookup`]
    /// tells them apart).
    pub fn get(&self, slug: &str) -> Option<CatalogEntry<'_>> {
        self.lookup(slug).ok().flatten()
    }

    /// The pre-built response for a slug, by the artifact's slug
    /// directory; an error when the block of its head that would hold it
    /// cannot be read or fails its checks (an artifact opened from its
    /// file reads each block when it is first used), which a server
    /// answers with 503.
    pub fn lookup(&self, slug: &str) -> Result<Option<CatalogEntry<'_>>, ArtifactError> {
        let position = self.artifact.position(slug.as_bytes()).map_err(|e| self.kept.cache.failed(e))?;
        Ok(position.map(|n| self.entry(Response::Product(n))))
    }

    fn entry(&self, response: Response) -> CatalogEntry<'_> {
        CatalogEntry { catalog: self, response }
    }

    /// The `c`th coding of `response` (in [`Metadata::codings`] order).
    fn representation(&self, response: Response, c: usize) -> Option<Representation<'_>> {
        Stored { artifact: &self.artifact, kept: &self.kept }.representation(response, c)
    }

    /// Whether it serves pages ([`Metadata::pages`]).
    pub fn has_pages(&self) -> bool {
        self.site.is_some()
    }

    /// The same catalog serving no pages: outside the product endpoint,
    /// every path is 404 `not_found` (its artifact keeps them).
    #[must_use]
    pub fn without_pages(mut self) -> Self {
        self.site = None;
        self
    }

    /// What a request for `path` (decoded, outside the product endpoint)
    /// finds among the pages: a page, a site document, or the not-found
    /// page; `None` in a catalog without pages.
    pub fn site_resource(&self, path: &str) -> Option<SiteResource<'_>> {
        let site = self.site.as_deref()?;
        match self.page_position(path) {
            Ok(Some(n)) => return Some(SiteResource::Page(self.entry(Response::Page(n)))),
            Ok(None) => {}
            Err(error) => {
                self.kept.cache.failed(error);
                return Some(SiteResource::Unavailable);
            }
        }
        if let Some(&n) = site.documents.get(path.as_bytes()) {
            return Some(SiteResource::Document(self.entry(Response::Document(n))));
        }
        site.not_found.map(|n| SiteResource::NotFound(self.entry(Response::Document(n))))
    }

    /// The product whose page is at `path` (`/<route>/<slug>`): its
    /// slug's, when that product's page path is `path`.
    fn page_position(&self, path: &str) -> Result<Option<usize>, ArtifactError> {
        let Some((_, slug)) = path.rsplit_once('/') else { return Ok(None) };
        if foundry_catalog_core::Slug::check(slug).is_err() {
            return Ok(None);
        }
        let Some(n) = self.artifact.position(slug.as_bytes())? else { return Ok(None) };
        let page = self.artifact.entry(n).and_then(|entry| entry.page).map(|page| page.path);
        Ok(page.and_then(|path| self.artifact.bytes_of(path)).filter(|&page| page == path.as_bytes()).map(|_| n))
    }

    /// The bytes of the site document named `name` (a path, or a name
    /// that is not one, as the cards'), as is; none without it.
    #[cfg_attr(not(feature = "pages"), allow(dead_code))]
    pub(crate) fn document(&self, name: &str) -> Option<Result<Bytes, ArtifactError>> {
        let &n = self.site.as_deref()?.documents.get(name.as_bytes())?;
        Some(self.entry(Response::Document(n)).body())
    }

    /// The index entry of the site document named `name`.
    #[cfg_attr(not(feature = "pages"), allow(dead_code))]
    pub(crate) fn document_entry(&self, name: &str) -> Option<artifact::DocumentEntry> {
        let &n = self.site.as_deref()?.documents.get(name.as_bytes())?;
        self.artifact.document(n)
    }

    /// Every path of a page or site document served, sorted (empty
    /// without pages; the not-found page has none). It reads the whole
    /// index.
    pub fn page_paths(&self) -> Vec<String> {
        let Some(site) = self.site.as_deref() else { return Vec::new() };
        let pages = self.artifact.entries().filter_map(|entry| entry.page).map(|page| page.path);
        let pages = pages.filter_map(|path| self.artifact.bytes_of(path));
        let mut paths: Vec<String> = pages
            .chain(site.documents.keys().map(|k| &k[..]))
            .filter(|k| k.starts_with(b"/"))
            .filter_map(|k| std::str::from_utf8(k).ok().map(str::to_owned))
            .collect();
        paths.sort_unstable();
        paths
    }

    /// Every slug served, sorted. It reads the whole index.
    pub fn slugs(&self) -> Vec<String> {
        // Checked to be slugs, hence UTF-8, with their blocks.
        let slugs = self.artifact.entries().filter_map(|entry| self.artifact.bytes_of(entry.slug));
        let mut slugs: Vec<String> = slugs.filter_map(|k| std::str::from_utf8(k).ok().map(str::to_owned)).collect();
        slugs.sort_unstable();
        slugs
    }

    /// The content codings every product is stored in (identity first).
    pub fn codings(&self) -> &[ContentCoding] {
        &self.artifact.metadata().codings
    }

    /// What the artifact behind this catalog says about itself: the
    /// generator, the record types and the content digest.
    pub fn metadata(&self) -> &Metadata {
        self.artifact.metadata()
    }

    /// The artifact behind this catalog (its bodies are the catalog's).
    pub fn artifact(&self) -> &Artifact {
        &self.artifact
    }

    /// Whether its bodies are read from the artifact file as they are
    /// asked for ([`ResponseCatalog::open`]), rather than held in memory.
    pub fn reads_bodies_from_file(&self) -> bool {
        self.artifact.bodies_in_files()
    }

    /// Where bodies read from the artifact's file are kept, and what
    /// reading them has found.
    pub fn body_cache(&self) -> &BodyCache {
        &self.kept.cache
    }

    /// Signs the artifact behind this catalog
    /// ([`Artifact::sign`]: a signature changes no byte the entries
    /// share), as `foundry-catalog build --sign-key` does before writing it.
    #[cfg(feature = "signing")]
    #[cfg_attr(docsrs, doc(cfg(feature = "signing")))]
    pub fn sign(&mut self, key: &crate::signing::SigningKey) {
        self.artifact.sign(key);
    }

    /// The number of products.
    pub fn len(&self) -> usize {
        self.artifact.len()
    }

    /// Whether the catalog serves nothing.
    pub fn is_empty(&self) -> bool {
        self.artifact.is_empty()
    }
}
