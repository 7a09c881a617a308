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
//! product), and a lookup is one hash-map probe, slug to position in the
//! index, whose [`CatalogEntry`] is a view that reads its spans from the
//! index in place and returns the bodies as a [`Bytes`], whose clone is a
//! reference-count increment: nothing is serialized per request.

use std::collections::HashMap;
use std::fmt;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use bytes::Bytes;

use crate::artifact::{self, Artifact, ArtifactError, IndexEntry, Metadata, Response};
pub use crate::encoding::ContentCoding;
use foundry_catalog::conformance::Violations;

mod blocks;
mod builder;
mod origin;
mod pages;
mod previous;
mod render;
mod stamps;

pub use builder::{Builder, DEFAULT_MAX_MANIFEST_LEN, Progress, UnavailableCoding};
pub use previous::{RecordTypeChange, RecordTypeChanges, Unusable};

/// One representation of a stored response: its bytes and its strong
/// ETag, borrowed from the catalog that holds it.
///
/// The bytes are in memory (a catalog built in this process, or an
/// artifact read whole), or in the artifact file the catalog was opened
/// from ([`ResponseCatalog::open`]): then they are read when first asked
/// for and checked against the ETag before they are handed out, and kept
/// while the catalog's [`BodyCache`] has room. Two representations are
/// equal when their ETags (which name the bytes) and lengths are.
#[derive(Clone)]
pub struct Representation<'a> {
    /// The ETag, and the buffer it lies in (to share it as a header value).
    etag: &'a [u8],
    etag_buffer: &'a Bytes,
    len: u32,
    body: Body<'a>,
    cache: &'a BodyCache,
}

#[derive(Clone)]
enum Body<'a> {
    /// Stored, in memory or in a file.
    Stored(Source<'a>),
    /// Not stored: its gzip representation (the `gzip`th coding of
    /// `response`, looked up only when it must be inflated), inflated
    /// (format 4 stores the bodies as is only where it stores no gzip),
    /// and kept once checked.
    Inflated { catalog: &'a ResponseCatalog, response: Response, gzip: usize, kept: &'a Kept },
    /// Where the index points at no bytes the catalog holds (never, in a
    /// catalog that loaded): an error, never bytes.
    Missing,
}

/// Where a stored body's bytes are.
#[derive(Debug, Clone)]
enum Source<'a> {
    /// In memory, known to hash to the ETag.
    Ready(Bytes),
    /// In an artifact file, at `offset` of its data region: read and
    /// checked against the ETag when asked for, then kept in `kept`.
    File { file: &'a artifact::BodyFile, offset: u64, kept: &'a Kept },
}

impl Source<'_> {
    /// The bytes: shared, or kept, or read and checked against `etag`
    /// (never handed out unchecked), then kept if `cache` has room.
    fn bytes(&self, etag: &[u8], len: u32, cache: &BodyCache) -> Result<Bytes, ArtifactError> {
        match self {
            Source::Ready(bytes) => Ok(bytes.clone()),
            &Source::File { file, offset, kept } => {
                let changed = |reason: String| ArtifactError::Changed { offset, len, reason };
                let read = || {
                    let bytes = file.read(offset, len as usize);
                    bytes.map_err(|e| cache.failed(changed(format!("cannot be read ({e})"))))
                };
                kept.get_or_check(cache, etag, read, || changed("does not match its ETag".to_owned()))
            }
        }
    }
}

/// A body's checked bytes, once made, kept while its cache has room (one
/// pointer while empty).
#[derive(Debug, Default)]
struct Kept(once_cell::race::OnceBox<Bytes>);

impl Kept {
    /// The bytes kept, or those `make` gives (its error as it is: it
    /// counts its own failures), checked against `etag` (counted in
    /// `cache` as a read, or a failure named `failure`: never handed out
    /// unchecked) and kept if `cache` has room.
    fn get_or_check(
        &self,
        cache: &BodyCache,
        etag: &[u8],
        make: impl FnOnce() -> Result<Vec<u8>, ArtifactError>,
        failure: impl FnOnce() -> ArtifactError,
    ) -> Result<Bytes, ArtifactError> {
        if let Some(kept) = self.0.get() {
            return Ok(kept.clone());
        }
        let bytes = make()?;
        if !artifact::etag_names(etag, &bytes) {
            return Err(cache.failed(failure()));
        }
        cache.0.reads.fetch_add(1, Ordering::Relaxed);
        let bytes = Bytes::from(bytes);
        if cache.take(bytes.len() as u64) && self.0.set(Box::new(bytes.clone())).is_err() {
            // Another request kept it first.
            cache.release(bytes.len() as u64);
        }
        Ok(bytes)
    }

    /// What it keeps, in bytes.
    fn len(&self) -> u64 {
        self.0.get().map_or(0, |bytes| bytes.len() as u64)
    }
}

/// One [`Kept`] per body a catalog may read from its file or inflate
/// (each coding of each product, page and site document, by position in
/// the index), and the cache they are counted against: what they keep is
/// given back when the last catalog sharing them is dropped.
#[derive(Debug)]
struct KeptBodies {
    cache: BodyCache,
    slots: Box<[Kept]>,
    codings: usize,
    /// Where the pages' slots start, then the site documents'.
    pages_at: usize,
    documents_at: usize,
}

impl KeptBodies {
    fn new(cache: &BodyCache, artifact: &Artifact) -> Self {
        let products = artifact.len();
        let pages = if artifact.metadata().pages.is_some() { products } else { 0 };
        let documents = artifact.documents().count();
        let codings = artifact.metadata().codings.len();
        let slots = (products + pages + documents).saturating_mul(codings);
        KeptBodies {
            cache: cache.clone(),
            slots: std::iter::repeat_with(Kept::default).take(slots).collect(),
            codings,
            pages_at: products,
            documents_at: products + pages,
        }
    }

    /// The slot of `response`'s `c`th coding.
    fn slot(&self, response: Response, c: usize) -> Option<&Kept> {
        let n = match response {
            Response::Product(n) => n,
            Response::Page(n) => self.pages_at.checked_add(n)?,
            Response::Document(n) => self.documents_at.checked_add(n)?,
        };
        self.slots.get(n.checked_mul(self.codings)?.checked_add(c)?)
    }
}

impl Drop for KeptBodies {
    fn drop(&mut self) {
        self.cache.release(self.slots.iter().map(Kept::len).sum());
    }
}

impl PartialEq for Representation<'_> {
    fn eq(&self, other: &Self) -> bool {
        self.etag == other.etag && self.len == other.len
    }
}

impl Eq for Representation<'_> {}

impl<'a> Representation<'a> {
    /// The bytes: a cheap clone of shared bytes, or, for a body left in the
    /// artifact file, the bytes read from it and checked against the ETag
    /// (an error when the file was changed in place since it was opened:
    /// answer it with 503, never with the bytes), or, for a body as is
    /// not stored, its gzip body (so checked) inflated to at most its
    /// length and checked against its own ETag.
    pub fn body(&self) -> Result<Bytes, ArtifactError> {
        match &self.body {
            Body::Stored(source) => source.bytes(self.etag, self.len, self.cache),
            &Body::Inflated { catalog, response, gzip, kept } => {
                let gzip = || catalog.representation(response, gzip).map_or_else(|| Err(missing()), |gzip| gzip.body());
                inflated(kept, self.cache, self.etag, self.len, gzip)
            }
            Body::Missing => Err(missing()),
        }
    }

    /// The body's length, without reading it.
    pub fn len(&self) -> usize {
        self.len as usize
    }

    /// Whether the body is empty.
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// The strong ETag: the quoted lowercase hex SHA-256 of these bytes.
    pub fn etag(&self) -> &'a str {
        // Checked to be ASCII when the catalog was loaded.
        std::str::from_utf8(self.etag).unwrap_or_default()
    }

    /// The ETag as shared bytes (a cheap clone, for header values).
    pub fn etag_bytes(&self) -> Bytes {
        if self.etag.is_empty() { Bytes::new() } else { self.etag_buffer.slice_ref(self.etag) }
    }
}

/// Its ETag, length and where its bytes are (not the catalog an inflated
/// body is looked up in: that is the whole catalog).
impl fmt::Debug for Representation<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let body = match &self.body {
            Body::Stored(Source::Ready(_)) => "in memory",
            Body::Stored(Source::File { .. }) => "in the artifact file",
            Body::Inflated { .. } => "inflated from gzip",
            Body::Missing => "missing",
        };
        f.debug_struct("Representation")
            .field("etag", &self.etag())
            .field("len", &self.len)
            .field("body", &body)
            .finish()
    }
}

/// What a body the index points at but the catalog does not hold gives.
fn missing() -> ArtifactError {
    ArtifactError::Malformed("a body the index points at is not held".to_owned())
}

/// The body as is of `len` bytes and ETag `etag`: kept in `kept`, or the
/// gzip body `gzip` gives (itself checked against its own ETag, a failure
/// counted by it) inflated to at most `len` bytes and checked against
/// `etag` (never handed out unchecked), then kept if `cache` has room.
fn inflated(
    kept: &Kept,
    cache: &BodyCache,
    etag: &[u8],
    len: u32,
    gzip: impl FnOnce() -> Result<Bytes, ArtifactError>,
) -> Result<Bytes, ArtifactError> {
    let failure =
        || ArtifactError::Malformed(format!("a gzip body does not inflate to the {len} bytes its identity ETag names"));
    let inflate = || crate::encoding::gunzip(&gzip()?, len).ok_or_else(|| cache.failed(failure()));
    kept.get_or_check(cache, etag, inflate, failure)
}

/// How many bytes of bodies read from artifact files the catalogs sharing
/// it keep in memory, and what reading them has found. A body read from
/// the file and checked is kept while the cache has room; past its limit,
/// a body is read and checked again at each request (a system call and a
/// SHA-256 of its bytes, from the page cache). Kept bodies are given back
/// when their catalog is dropped. A clone is the same cache: give one to
/// every catalog a process loads in turn ([`OpenOptions::body_cache`]) and
/// a reload never holds more than the limit.
#[derive(Debug, Clone)]
pub struct BodyCache(Arc<CacheState>);

#[derive(Debug)]
struct CacheState {
    limit: u64,
    kept: AtomicU64,
    reads: AtomicU64,
    failures: AtomicU64,
}

impl BodyCache {
    /// The limit unless told otherwise: 1 GiB.
    pub const DEFAULT_LIMIT: u64 = 1 << 30;

    /// A cache keeping at most `limit` bytes of bodies (0: none).
    pub fn new(limit: u64) -> Self {
        BodyCache(Arc::new(CacheState {
            limit,
            kept: AtomicU64::new(0),
            reads: AtomicU64::new(0),
            failures: AtomicU64::new(0),
        }))
    }

    /// Its limit, in bytes.
    pub fn limit(&self) -> u64 {
        self.0.limit
    }

    /// The bytes of bodies it keeps now.
    pub fn kept_bytes(&self) -> u64 {
        self.0.kept.load(Ordering::Relaxed)
    }

    /// How many bodies were read from artifact files and matched their ETags.
    pub fn reads(&self) -> u64 {
        self.0.reads.load(Ordering::Relaxed)
    }

    /// How many bodies could not be read from their file, or did not match
    /// their ETags (each answered without its bytes).
    pub fn failures(&self) -> u64 {
        self.0.failures.load(Ordering::Relaxed)
    }

    /// Takes room for `len` bytes, if there is.
    fn take(&self, len: u64) -> bool {
        let limit = self.0.limit;
        self.0
            .kept
            .fetch_update(Ordering::AcqRel, Ordering::Acquire, |kept| kept.checked_add(len).filter(|&k| k <= limit))
            .is_ok()
    }

    fn release(&self, len: u64) {
        self.0.kept.fetch_sub(len, Ordering::AcqRel);
    }

    /// Counts `error` as a failure of the cache's bodies.
    fn failed(&self, error: ArtifactError) -> ArtifactError {
        self.0.failures.fetch_add(1, Ordering::Relaxed);
        error
    }
}

impl Default for BodyCache {
    fn default() -> Self {
        BodyCache::new(BodyCache::DEFAULT_LIMIT)
    }
}

/// The same cache.
impl PartialEq for BodyCache {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.0, &other.0)
    }
}

impl Eq for BodyCache {}

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
        representation.unwrap_or(Representation {
            etag: &[],
            etag_buffer: &EMPTY,
            len: 0,
            body: Body::Missing,
            cache: &self.catalog.kept.cache,
        })
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

/// The buffer of an empty ETag.
static EMPTY: Bytes = Bytes::new();

/// The pages an artifact holds, by path, and its site documents.
#[derive(Debug, Default)]
struct SiteEntries {
    /// Each product's page, by `canonical_path`: its product's position.
    pages: HashMap<Bytes, usize>,
    /// `/robots.txt` and the sitemap files, by path: their positions
    /// among the site documents.
    documents: HashMap<Bytes, usize>,
    /// The not-found page's.
    not_found: Option<usize>,
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
}

/// A problem found while building or loading a catalog; each names its file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CatalogError {
    /// A file or folder could not be read, or a manifest is not UTF-8.
    #[error("{file}: cannot read: {reason}")]
    Read {
        /// The file or folder.
        file: String,
        /// What the operating system said, or where the text is not UTF-8.
        reason: String,
    },
    /// A manifest is not valid JSON.
    #[error("{file}:{line}:{column}: {message}; hint: see schema/product-manifest.schema.json")]
    Manifest {
        /// The file.
        file: String,
        /// Line, from 1.
        line: usize,
        /// Column, from 1.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// A manifest's file name is not its slug.
    #[error("{file}: the file name should be the slug `{slug}.json`; hint: rename the file")]
    FileName {
        /// The file.
        file: String,
        /// The slug in the manifest.
        slug: String,
    },
    /// The manifest, or the record it builds, breaks rules of the spec.
    #[error("{file}: the manifest breaks the spec:\n{violations}")]
    Invalid {
        /// The file.
        file: String,
        /// Every violation.
        violations: Violations,
    },
    /// Two sources have the same slug.
    #[error("{file}: slug `{slug}` is also served from {other}; hint: give every product its own slug")]
    DuplicateSlug {
        /// The later source.
        file: String,
        /// The earlier source.
        other: String,
        /// The slug.
        slug: String,
    },
    /// A product's page (or the site's not-found page) cannot be rendered:
    /// a template failed.
    #[error("{file}: cannot render its page: {error}")]
    Page {
        /// The manifest, or `<templates>` for the not-found page.
        file: String,
        /// The template's error: its file, line and a hint.
        error: String,
    },
    /// A manifest's bytes changed while the build was reading them (its
    /// two passes over the manifests saw other bytes): the catalog would
    /// link to what it does not serve.
    #[error("{file}: changed while the build read it; hint: build again once it is written")]
    Changed {
        /// The file.
        file: String,
    },
    /// An artifact file cannot be loaded.
    #[error("{file}: {error}")]
    Artifact {
        /// The file.
        file: String,
        /// Why.
        error: ArtifactError,
    },
}

impl CatalogError {
    /// The file the problem is in.
    pub fn file(&self) -> &str {
        match self {
            CatalogError::Read { file, .. }
            | CatalogError::Manifest { file, .. }
            | CatalogError::FileName { file, .. }
            | CatalogError::Invalid { file, .. }
            | CatalogError::DuplicateSlug { file, .. }
            | CatalogError::Page { file, .. }
            | CatalogError::Changed { file }
            | CatalogError::Artifact { file, .. } => file,
        }
    }

    /// How many problems this error reports (every violation counts).
    pub fn problems(&self) -> usize {
        match self {
            CatalogError::Invalid { violations, .. } => violations.len().max(1),
            _ => 1,
        }
    }
}

/// Every problem found while building a catalog, one per line, and how
/// many manifests were read: displayed with a closing summary such as
/// `error: 3 of 10,000 manifests are invalid: 5 problems`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogErrors {
    /// Every problem, in the order of the files.
    pub errors: Vec<CatalogError>,
    /// How many manifests (or artifact files) were read.
    pub sources: usize,
}

/// One problem with one source (a folder, or an artifact file).
impl From<CatalogError> for CatalogErrors {
    fn from(error: CatalogError) -> Self {
        CatalogErrors { errors: vec![error], sources: 1 }
    }
}

impl CatalogErrors {
    /// How many distinct files have a problem.
    pub fn invalid_files(&self) -> usize {
        let mut files: Vec<&str> = self.errors.iter().map(CatalogError::file).collect();
        files.sort_unstable();
        files.dedup();
        files.len()
    }

    /// How many problems in all (every violation counts).
    pub fn problems(&self) -> usize {
        self.errors.iter().map(CatalogError::problems).sum()
    }

    /// The closing line: `3 of 10,000 manifests are invalid: 5 problems`
    /// (`1 of 1 artifact is invalid: 1 problem` when artifact files were
    /// read).
    pub fn summary(&self) -> String {
        let (invalid, problems) = (self.invalid_files(), self.problems());
        let artifacts =
            !self.errors.is_empty() && self.errors.iter().all(|e| matches!(e, CatalogError::Artifact { .. }));
        let noun = match (artifacts, self.sources == 1) {
            (true, true) => "artifact",
            (true, false) => "artifacts",
            (false, true) => "manifest",
            (false, false) => "manifests",
        };
        format!(
            "{} of {} {} {}: {} {}",
            thousands(invalid),
            thousands(self.sources),
            noun,
            if invalid == 1 { "is invalid" } else { "are invalid" },
            thousands(problems),
            if problems == 1 { "problem" } else { "problems" },
        )
    }
}

impl fmt::Display for CatalogErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for error in &self.errors {
            writeln!(f, "error: {error}")?;
        }
        write!(f, "error: {}", self.summary())
    }
}

impl std::error::Error for CatalogErrors {}

/// `10000` as `10,000`.
fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
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
    /// Each product's position in the index, by slug; shared, so that a
    /// clone (a reload's previous catalog) is cheap.
    entries: Arc<HashMap<Bytes, usize>>,
    /// The artifact the entries share their bytes with (an incremental
    /// build reads its index).
    artifact: Artifact,
    /// What this process remembers for a build on this catalog: the
    /// artifact files its bytes can be copied from, and what the folder
    /// build that made it saw of each file. Not part of the artifact.
    origins: Vec<Arc<origin::Origin>>,
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

    /// Opens an artifact file ([`Artifact::open`]: the bodies stay in
    /// the file) and loads it ([`ResponseCatalog::from_artifact`]).
    pub fn open(path: &Path) -> Result<Self, CatalogErrors> {
        Self::open_with(path, &OpenOptions::default())
    }

    /// Opens an artifact file ([`Artifact::open`]), verifies it when
    /// verify keys are given, and loads it. What is checked before the
    /// catalog is returned is read from the file (its header, metadata,
    /// signature, index and table); its bodies stay in the file, in the
    /// page cache, and each is read and checked against its ETag when it
    /// is first asked for ([`Representation::body`]), then kept in
    /// [`OpenOptions::body_cache`] while it has room. The file stays open
    /// as long as the catalog (or a body of it being sent) lives, so a new
    /// file renamed over its path changes nothing it serves; one written
    /// into in place (`cp new.fcat catalog.fcat`, a truncation) is never
    /// served: each body read from it then fails its check, an error.
    pub fn open_with(path: &Path, options: &OpenOptions) -> Result<Self, CatalogErrors> {
        let artifact = Artifact::open_checked(path, options.max_len, &|summary| options.check_summary(summary))
            .map_err(|error| opening(path, error))?;
        Self::verified(artifact, options).map_err(|error| opening(path, error))
    }

    /// Opens a layered artifact ([`crate::delta::open_layered`]: the file at
    /// `path`, its bodies read from `base`'s file where `base` holds them)
    /// and loads it as [`ResponseCatalog::open_with`] does: its own
    /// signature is verified when verify keys are given (`base` is trusted
    /// for nothing but bytes, each checked against the layered artifact's
    /// ETags before it is served). An error names `path`.
    pub fn open_layered_with(path: &Path, base: &Artifact, options: &OpenOptions) -> Result<Self, CatalogErrors> {
        let artifact = crate::delta::open_layered(path, base, options.max_len).map_err(|error| opening(path, error))?;
        Self::verified(artifact, options).map_err(|error| opening(path, error))
    }

    /// Verifies `artifact` when `options` gives verify keys, and loads it.
    fn verified(artifact: Artifact, options: &OpenOptions) -> Result<Self, ArtifactError> {
        #[cfg(feature = "signing")]
        if !options.verify_keys.is_empty() {
            // Which key signed is known at once: a wrong key costs nothing more.
            let verify = |artifact: &Artifact| artifact.verify_any(&options.verify_keys);
            artifact.signer_trusted(&options.verify_keys)?;
            return Self::load_verified(artifact, &options.body_cache, Some(&verify));
        }
        Self::load(artifact, &options.body_cache)
    }

    /// Opens an artifact file as [`ResponseCatalog::open`] does and keeps
    /// it open, so that a catalog built on this one ([`Builder::previous`])
    /// takes the bodies it shares with it without reading them into
    /// memory, and writes them by copying them file to file
    /// ([`ResponseCatalog::write_file`]); an artifact of format 1 to 3 is
    /// read whole. The error does not name the file: the caller knows it.
    pub fn open_to_build_on(path: &Path) -> Result<Self, ArtifactError> {
        let (artifact, origin) = origin::open(path)?;
        let mut catalog = Self::from_artifact(artifact)?;
        catalog.origins.extend(origin);
        Ok(catalog)
    }

    /// Writes the artifact file as [`Artifact::write_to`] does, to a
    /// file: the bytes it shares with a catalog opened by
    /// [`ResponseCatalog::open_to_build_on`] (the previous one of an
    /// incremental build) are copied file to file by the kernel
    /// (`copy_file_range`: a copy in the page cache, never through user
    /// space), not written from memory. A previous
    /// file that changed since it was read is not copied from.
    pub fn write_file(&self, out: &mut std::fs::File) -> std::io::Result<()> {
        origin::write_file(&self.artifact, &self.origins, out)
    }

    /// Loads an artifact: checks every span, slug, ETag and date and the
    /// content digest, and indexes the products. The bodies are not
    /// copied: the catalog shares the artifact's buffers.
    ///
    /// An artifact a [`Builder`] built in this process wrote its slugs,
    /// dates, ETags and digest itself: those are not checked again.
    ///
    /// The bodies of a version-4 artifact are not covered by its CRC-32:
    /// those in memory are checked against their ETags here (on all
    /// cores), those left in the artifact's file ([`Artifact::open`]) as
    /// they are read, and kept in a cache of their own
    /// ([`BodyCache::default`]).
    pub fn from_artifact(artifact: Artifact) -> Result<Self, ArtifactError> {
        Self::load(artifact, &BodyCache::default())
    }

    /// [`ResponseCatalog::from_artifact`] with `options`: the artifact's
    /// signature verified when verify keys are given (as
    /// [`ResponseCatalog::open_with`] verifies it), bodies read from its
    /// files kept in the options' cache. A replica loads what it pulled so
    /// ([`crate::delta::written`]).
    pub fn from_artifact_with(artifact: Artifact, options: &OpenOptions) -> Result<Self, ArtifactError> {
        Self::verified(artifact, options)
    }

    /// [`ResponseCatalog::from_artifact`], keeping bodies read from the
    /// artifact's file in `cache`.
    fn load(artifact: Artifact, cache: &BodyCache) -> Result<Self, ArtifactError> {
        Self::load_verified(artifact, cache, None)
    }

    /// [`ResponseCatalog::load`], with `verify` (the signature check) run
    /// beside the content digest and the indexing: each reads the whole
    /// head once, on a core of its own. A failed signature is reported
    /// first, then the digest, then what the indexing found.
    fn load_verified(
        artifact: Artifact,
        cache: &BodyCache,
        verify: Option<&Verify<'_>>,
    ) -> Result<Self, ArtifactError> {
        let check = !artifact.built_here();
        let join = |handle: std::thread::ScopedJoinHandle<'_, Result<(), ArtifactError>>| {
            handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        };
        let (entries, site) = std::thread::scope(|scope| {
            let verified = verify.map(|verify| scope.spawn(|| verify(&artifact)));
            // The head's blocks against their digests (a verify checks them with the signature).
            let digest = check.then(|| {
                scope.spawn(|| {
                    artifact.check_content_digest()?;
                    if verify.is_none() { artifact.check_blocks() } else { Ok(()) }
                })
            });
            let indexed = if check {
                artifact.check_tiling().and_then(|()| Self::index(&artifact, check))
            } else {
                Self::index(&artifact, check)
            };
            verified.map_or(Ok(()), join)?;
            digest.map_or(Ok(()), join)?;
            indexed
        })?;
        if check && artifact.table_len().is_some() && !artifact.bodies_in_files() {
            artifact.check_bodies()?;
        }
        Ok(ResponseCatalog {
            entries: Arc::new(entries),
            kept: Arc::new(KeptBodies::new(cache, &artifact)),
            artifact,
            origins: Vec::new(),
            stamps: None,
            site: site.map(Arc::new),
        })
    }

    /// Every product, page and site document of `artifact`, by slug and
    /// by path, as positions in its index (each slug, date, path, name and
    /// ETag checked when `check`).
    fn index(artifact: &Artifact, check: bool) -> Result<(HashMap<Bytes, usize>, Option<SiteEntries>), ArtifactError> {
        let metadata = artifact.metadata();
        let malformed = |what: String| ArtifactError::Malformed(what);
        let mut entries = HashMap::with_capacity(artifact.len());
        let mut site = metadata
            .pages
            .as_ref()
            .map(|_| SiteEntries { pages: HashMap::with_capacity(artifact.len()), ..SiteEntries::default() });
        for (index, IndexEntry { modified, slug, last_modified, representations, page, .. }) in
            artifact.entries().enumerate()
        {
            let slug = artifact.slice(slug)?;
            let name = || String::from_utf8_lossy(&slug).into_owned();
            if check && !std::str::from_utf8(&slug).is_ok_and(|s| foundry_catalog_core::Slug::check(s).is_ok()) {
                return Err(malformed(format!("{:?} is not a slug", name())));
            }
            let last_modified = artifact.slice(last_modified)?;
            if check && !artifact::is_http_date_of(&last_modified, modified) {
                return Err(malformed(format!("`{}` has a malformed or inconsistent modification date", name())));
            }
            check_representations(artifact, &representations, check, &name)?;
            if let (Some(site), Some(page)) = (&mut site, page) {
                let path = artifact.slice(page.path)?;
                if check && !is_page_path(&path, &slug) {
                    return Err(malformed(format!("the page of `{}` is not at /<route>/{}", name(), name())));
                }
                if check && !is_lastmod(&artifact.slice(page.lastmod)?) {
                    return Err(malformed(format!("the page of `{}` has a malformed sitemap lastmod", name())));
                }
                check_representations(artifact, &page.representations, check, &name)?;
                if site.pages.insert(path, index).is_some() {
                    return Err(malformed(format!("the page of `{}` is indexed twice", name())));
                }
            }
            if entries.insert(slug.clone(), index).is_some() {
                return Err(malformed(format!("slug `{}` is indexed twice", name())));
            }
        }
        if let Some(site) = &mut site {
            for (index, document) in artifact.documents().enumerate() {
                let path = artifact.slice(document.path)?;
                let name = || String::from_utf8_lossy(&path).into_owned();
                if check && !is_document_name(&path) {
                    return Err(malformed(format!("{:?} is not the name of a site document", name())));
                }
                check_representations(artifact, &document.representations, check, &name)?;
                let twice = if &path[..] == artifact::NOT_FOUND_DOCUMENT.as_bytes() {
                    site.not_found.replace(index).is_some()
                } else {
                    site.documents.insert(path.clone(), index).is_some()
                };
                if twice {
                    return Err(malformed(format!("site document {:?} is indexed twice", name())));
                }
            }
        }
        Ok((entries, site))
    }

    /// Writes what the folder build that made this catalog saw of each
    /// manifest (its length, times, inode and digest: git's index for
    /// manifests) as a stamps file's text, bound to this catalog's
    /// artifact, with the stamp of the file the artifact was written to
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
        let Some(stamps) = &self.stamps else { return Ok(false) };
        out.write_all(stamps.to_text(&self.metadata().content_sha256, written).as_bytes())?;
        Ok(true)
    }

    /// Takes the stamps file at `path` (written by
    /// [`ResponseCatalog::write_stamps`] for this catalog's artifact), so
    /// that a build on this catalog ([`Builder::previous`]) takes a
    /// manifest whose length, modification and change times and inode are
    /// the ones recorded, and whose change time was at least two seconds
    /// before that build began, as unchanged without reading it. A file
    /// that is missing, not a regular file, over 256 MiB, another
    /// artifact's or unreadable in any line is refused with the reason
    /// (the build then reads every manifest).
    ///
    /// Returns whether the artifact file this catalog was opened from
    /// ([`ResponseCatalog::open_to_build_on`]) has the stamp recorded when
    /// it was written: then its bodies are taken as that build wrote them
    /// (it checked each against its ETag), not read and hashed again. A
    /// file written into since, truncated, or replaced has another stamp,
    /// and each body taken from it is checked as before.
    pub fn read_stamps(&mut self, path: &Path) -> Result<bool, String> {
        const MAX_STAMPS_LEN: u64 = 256 << 20;
        let (bytes, _) = crate::files::read_bounded(path, MAX_STAMPS_LEN, false).map_err(|e| e.to_string())?;
        let text = std::str::from_utf8(&bytes).map_err(|_| "not UTF-8 text".to_owned())?;
        let stamps = stamps::Stamps::from_text(text, &self.metadata().content_sha256)?;
        let opened = self.artifact.body_file().and_then(|file| file.metadata().ok());
        let unchanged = opened.is_some_and(|metadata| stamps.artifact_unchanged(&metadata));
        if unchanged {
            self.artifact.trust_bodies();
        }
        self.stamps = Some(Arc::new(stamps));
        Ok(unchanged)
    }

    /// With what the build that made it remembers: the files shared bytes
    /// can be copied from, and its folder's stamps.
    fn remembering(mut self, origins: Vec<Arc<origin::Origin>>, stamps: Option<stamps::Stamps>) -> Self {
        self.origins = origins;
        self.stamps = stamps.map(Arc::new);
        self
    }

    /// The position of `slug` in the artifact's index.
    pub(crate) fn position(&self, slug: &str) -> Option<usize> {
        self.entries.get(slug.as_bytes()).copied()
    }

    /// The pre-built response for a slug.
    pub fn get(&self, slug: &str) -> Option<CatalogEntry<'_>> {
        self.position(slug).map(|n| self.entry(Response::Product(n)))
    }

    fn entry(&self, response: Response) -> CatalogEntry<'_> {
        CatalogEntry { catalog: self, response }
    }

    /// The `c`th coding of `response` (in [`Metadata::codings`] order),
    /// from the index in place; `None` where the index points at nothing
    /// held (never, in a catalog that loaded: its spans were checked).
    fn representation(&self, response: Response, c: usize) -> Option<Representation<'_>> {
        let artifact = &self.artifact;
        let (span, etag) = artifact.response_spans(response, c)?;
        let (etag_buffer, etag) = artifact.memory_of(etag)?;
        let kept = self.kept.slot(response, c)?;
        let body = if span.is_inflated() {
            let gzip = self.codings().iter().position(|&coding| coding == ContentCoding::Gzip)?;
            Body::Inflated { catalog: self, response, gzip, kept }
        } else {
            Body::Stored(self.source(span, kept)?)
        };
        Some(Representation { etag, etag_buffer, len: span.len, body, cache: &self.kept.cache })
    }

    /// Where a stored body is: in the artifact's file (its span lies in
    /// the bodies' part: checked by the tiling), in another's (a build's,
    /// taken from its previous artifact unread), or in memory.
    fn source<'a>(&'a self, body: artifact::Span, kept: &'a Kept) -> Option<Source<'a>> {
        let elsewhere = match self.artifact.body_file() {
            Some(file) => Some((file, body.offset)),
            None => self.artifact.stored_elsewhere(body),
        };
        match elsewhere {
            Some((file, offset)) => Some(Source::File { file, offset, kept }),
            None => self.artifact.slice(body).ok().map(Source::Ready),
        }
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
        if let Some(&n) = site.pages.get(path.as_bytes()) {
            return Some(SiteResource::Page(self.entry(Response::Page(n))));
        }
        if let Some(&n) = site.documents.get(path.as_bytes()) {
            return Some(SiteResource::Document(self.entry(Response::Document(n))));
        }
        site.not_found.map(|n| SiteResource::NotFound(self.entry(Response::Document(n))))
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
    /// without pages; the not-found page has none).
    pub fn page_paths(&self) -> Vec<&str> {
        let mut paths: Vec<&str> = self
            .site
            .iter()
            .flat_map(|site| site.pages.keys().chain(site.documents.keys()))
            .filter(|k| k.starts_with(b"/"))
            .filter_map(|k| std::str::from_utf8(k).ok())
            .collect();
        paths.sort_unstable();
        paths
    }

    /// Every slug served, sorted.
    pub fn slugs(&self) -> Vec<&str> {
        // Keys were checked to be slugs, hence UTF-8, at load.
        let mut slugs: Vec<&str> = self.entries.keys().filter_map(|k| std::str::from_utf8(k).ok()).collect();
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

    /// Reads an artifact file, verifies it with `key`
    /// ([`Artifact::verify`]) and loads it
    /// ([`ResponseCatalog::open_with`] with one key).
    #[cfg(feature = "signing")]
    #[cfg_attr(docsrs, doc(cfg(feature = "signing")))]
    pub fn open_verified(path: &Path, key: &crate::signing::VerifyKey) -> Result<Self, CatalogErrors> {
        Self::open_with(path, &OpenOptions::default().verify_keys(vec![*key]))
    }

    /// The number of products.
    pub fn len(&self) -> usize {
        self.entries.len()
    }

    /// Whether the catalog serves nothing.
    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }
}

/// A check of a whole artifact run beside its indexing (its signature).
type Verify<'a> = dyn Fn(&Artifact) -> Result<(), ArtifactError> + Sync + 'a;

/// How [`ResponseCatalog::open_with`] opens an artifact file.
///
/// ```
/// use foundry_catalog_serving::catalog::OpenOptions;
/// let options = OpenOptions::default().max_len(1 << 30);
/// assert_eq!(options.max_len, 1 << 30);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct OpenOptions {
    /// The largest file accepted, in bytes
    /// ([`crate::artifact::DEFAULT_MAX_FILE_LEN`] unless set): a larger one
    /// is refused before anything is allocated.
    pub max_len: u64,
    /// With keys, only an artifact signed by one of them loads
    /// ([`Artifact::verify_any`]); without, an artifact loads unverified.
    #[cfg(feature = "signing")]
    #[cfg_attr(docsrs, doc(cfg(feature = "signing")))]
    pub verify_keys: Vec<crate::signing::VerifyKey>,
    /// Where bodies read from the file are kept (a new
    /// [`BodyCache::default`] unless set): give every catalog a process
    /// loads in turn the same one.
    pub body_cache: BodyCache,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            max_len: artifact::DEFAULT_MAX_FILE_LEN,
            #[cfg(feature = "signing")]
            verify_keys: Vec::new(),
            body_cache: BodyCache::default(),
        }
    }
}

impl OpenOptions {
    /// Judges an artifact's summary before the rest of its head is read
    /// or fetched: with verify keys, its signature
    /// (`Summary::verify_any`); without, nothing more
    /// than its lengths, which parsing it checked.
    pub fn check_summary(&self, summary: &crate::artifact::Summary) -> Result<(), crate::artifact::ArtifactError> {
        #[cfg(feature = "signing")]
        if !self.verify_keys.is_empty() {
            return summary.verify_any(&self.verify_keys);
        }
        let _ = summary;
        Ok(())
    }

    /// Sets [`OpenOptions::max_len`].
    #[must_use]
    pub fn max_len(mut self, max_len: u64) -> Self {
        self.max_len = max_len;
        self
    }

    /// Sets [`OpenOptions::body_cache`].
    #[must_use]
    pub fn body_cache(mut self, cache: BodyCache) -> Self {
        self.body_cache = cache;
        self
    }

    /// Sets [`OpenOptions::verify_keys`].
    #[cfg(feature = "signing")]
    #[cfg_attr(docsrs, doc(cfg(feature = "signing")))]
    #[must_use]
    pub fn verify_keys(mut self, keys: Vec<crate::signing::VerifyKey>) -> Self {
        self.verify_keys = keys;
        self
    }
}

/// Whether `path` is `/<route>/<slug>` for one of the records' routes.
/// Checks what a request will need of one product's, page's or site
/// document's representations (`spans`, from its index entry): an ETag
/// held in memory (strong, when `check`), and a gzip body beside an
/// identity body inflated from it; the error names `name()`.
fn check_representations(
    artifact: &Artifact,
    spans: &[(artifact::Span, artifact::Span)],
    check: bool,
    name: &dyn Fn() -> String,
) -> Result<(), ArtifactError> {
    let codings = &artifact.metadata().codings;
    for (&coding, &(body, etag)) in codings.iter().zip(spans) {
        let etag = artifact.bytes_of(etag);
        if etag.is_none() || check && !etag.is_some_and(artifact::is_strong_etag) {
            return Err(ArtifactError::Malformed(format!("`{}` has a malformed {coding} ETag", name())));
        }
        if body.is_inflated() && !codings.contains(&ContentCoding::Gzip) {
            return Err(ArtifactError::Malformed(format!("`{}` has an inflated body and no gzip one", name())));
        }
    }
    Ok(())
}

fn is_page_path(path: &[u8], slug: &[u8]) -> bool {
    foundry_catalog::product::Route::ALL.iter().any(|route| {
        path.strip_prefix(b"/")
            .and_then(|p| p.strip_prefix(route.as_str().as_bytes()))
            .and_then(|p| p.strip_prefix(b"/"))
            .is_some_and(|p| p == slug)
    })
}

/// Whether `lastmod` is empty (not listed) or an RFC 3339 date-time, as
/// `last_updated_at` is.
fn is_lastmod(lastmod: &[u8]) -> bool {
    lastmod.is_empty()
        || std::str::from_utf8(lastmod)
            .is_ok_and(|text| time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339).is_ok())
}

/// Whether `name` is one a build gives a site document.
fn is_document_name(name: &[u8]) -> bool {
    let numbered = name
        .strip_prefix(b"/sitemap-")
        .and_then(|n| n.strip_suffix(b".xml"))
        .is_some_and(|n| !n.is_empty() && n.len() <= 9 && n[0] != b'0' && n.iter().all(u8::is_ascii_digit));
    let fixed = [
        &b"/robots.txt"[..],
        b"/sitemap.xml",
        artifact::NOT_FOUND_DOCUMENT.as_bytes(),
        artifact::ICON_DOCUMENT.as_bytes(),
        // Every card in one document, as earlier builds kept them (an
        // artifact of theirs still loads).
        artifact::CARDS_DOCUMENT.as_bytes(),
    ];
    // A route page's cards (`cards/datasets/page/2`, the
    // `catalog::pages::cards_document` of its path).
    let cards = name
        .strip_prefix(artifact::CARDS_DOCUMENT.as_bytes())
        .and_then(|path| std::str::from_utf8(path).ok())
        .is_some_and(|path| {
            path != foundry_catalog::product::HOME_PATH && foundry_catalog::product::is_list_path(path)
        });
    numbered
        || cards
        || fixed.contains(&name)
        || std::str::from_utf8(name).is_ok_and(foundry_catalog::product::is_list_path)
}

/// A problem opening the artifact file at `path`, as a build's.
fn opening(path: &Path, error: ArtifactError) -> CatalogErrors {
    CatalogErrors::from(CatalogError::Artifact { file: path.display().to_string(), error })
}

#[cfg(test)]
mod tests {
    use super::{BodyCache, Kept, is_document_name, is_lastmod, is_page_path};
    use crate::artifact::{ArtifactError, etag_of};
    use bytes::Bytes;

    /// A body as is of `len` bytes inflated from `gzip`, with `etag` as
    /// its own: what asking for it gives, twice.
    fn inflated(gzip: Vec<u8>, len: u32, etag: &str, cache: &BodyCache) -> [Result<Bytes, ArtifactError>; 2] {
        let (kept, gzip) = (Kept::default(), Bytes::from(gzip));
        let body = || super::inflated(&kept, cache, etag.as_bytes(), len, || Ok(gzip.clone()));
        [body(), body()]
    }

    fn gzip(body: &[u8]) -> Vec<u8> {
        use std::io::Write;
        let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::default());
        encoder.write_all(body).expect("in memory");
        encoder.finish().expect("in memory")
    }

    /// What a gzip body inflates to is served as is only when its own
    /// ETag names it, and only up to its length: never unchecked bytes,
    /// never a bomb's.
    #[test]
    fn a_body_inflated_from_gzip_is_checked_against_its_own_etag_and_length() {
        let cache = BodyCache::new(1 << 20);
        let [good, again] = inflated(gzip(b"{\"data\":1}"), 10, &etag_of(b"{\"data\":1}"), &cache);
        assert_eq!(good.expect("inflated and checked"), Bytes::from_static(b"{\"data\":1}"));
        assert_eq!(again.expect("kept"), Bytes::from_static(b"{\"data\":1}"));
        assert_eq!((cache.reads(), cache.kept_bytes()), (1, 10), "inflated and checked once, then kept");
        let other = inflated(gzip(b"{\"data\":2}"), 10, &etag_of(b"{\"data\":1}"), &cache);
        assert!(other.iter().all(Result::is_err), "bytes its ETag does not name");
        let bomb = vec![0; 1 << 20];
        let long = inflated(gzip(&bomb), 10, &etag_of(&bomb[..10]), &cache);
        assert!(long.iter().all(Result::is_err), "a gzip body inflating past the length");
        let short = inflated(gzip(b"{}"), 10, &etag_of(b"{}"), &cache);
        assert!(short.iter().all(Result::is_err), "a gzip body inflating short of the length");
        assert_eq!(cache.failures(), 6);
    }

    /// Two site documents under one name (which no build writes) are
    /// refused, whichever the name.
    #[test]
    fn a_site_document_indexed_twice_is_refused() {
        use crate::artifact::Artifact;
        let artifact = Artifact::example_v3();
        assert!(super::ResponseCatalog::index(&artifact, true).is_ok());
        let documents: Vec<_> = artifact.documents().collect();
        assert!(documents.len() >= 2, "robots.txt and the not-found page at least");
        for (to, from) in [(1, 0), (0, 1)] {
            let twice = artifact.with_index(|index, entry_len, document_len| {
                let products = artifact.len() * entry_len;
                let (to, from) = (products + to * document_len, products + from * document_len);
                let path = index[from..from + 12].to_vec();
                index[to..to + 12].copy_from_slice(&path);
            });
            let Err(error) = super::ResponseCatalog::index(&twice, true) else { panic!("{to} as {from}: accepted") };
            assert!(error.to_string().contains("is indexed twice"), "{error}");
        }
    }

    #[test]
    fn only_the_names_a_build_gives_are_site_documents() {
        for name in ["/robots.txt", "/sitemap.xml", "/sitemap-1.xml", "/sitemap-20.xml", "404"] {
            assert!(is_document_name(name.as_bytes()), "{name}");
        }
        for name in ["/sitemap-0.xml", "/sitemap-01.xml", "/sitemap-.xml", "/sitemap-1.xml/", "/404", "/index.html", ""]
        {
            assert!(!is_document_name(name.as_bytes()), "{name}");
        }
    }

    #[test]
    fn a_page_is_at_its_own_products_route_path() {
        assert!(is_page_path(b"/datasets/eu-signals", b"eu-signals"));
        assert!(is_page_path(b"/automation/eu-signals", b"eu-signals"));
        assert!(!is_page_path(b"/datasets/other", b"eu-signals"));
        assert!(!is_page_path(b"/blog/eu-signals", b"eu-signals"));
        assert!(!is_page_path(b"/datasets/eu-signals/", b"eu-signals"));
        assert!(!is_page_path(b"datasets/eu-signals", b"eu-signals"));
    }

    #[test]
    fn a_lastmod_is_empty_or_a_date_time() {
        assert!(is_lastmod(b"") && is_lastmod(b"2026-11-04T07:45:10-05:00"));
        assert!(!is_lastmod(b"yesterday") && !is_lastmod(b"<lastmod>"));
    }
}
