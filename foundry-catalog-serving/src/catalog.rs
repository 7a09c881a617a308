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
//! (no allocation per product), and a lookup is one hash-map probe that
//! returns them as a [`Bytes`], whose clone is a reference-count
//! increment: nothing is serialized per request.

use std::collections::HashMap;
use std::fmt;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, SystemTime};

use bytes::Bytes;

use crate::artifact::{self, Artifact, ArtifactError, IndexEntry, Metadata};
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

/// One representation of a body: its bytes and its strong ETag.
///
/// The bytes are in memory (a catalog built in this process, or an
/// artifact read whole), or in the artifact file the catalog was opened
/// from ([`ResponseCatalog::open`]): then they are read when first asked
/// for and checked against the ETag before they are handed out, and kept
/// while the catalog's [`BodyCache`] has room. Two representations are
/// equal when their ETags (which name the bytes) and lengths are.
#[derive(Debug, Clone)]
pub struct Representation {
    body: Body,
    etag: Bytes,
}

#[derive(Debug, Clone)]
enum Body {
    /// In memory, known to hash to the ETag.
    Ready(Bytes),
    /// In the artifact file.
    Stored(Stored),
    /// Not stored: its gzip representation, inflated (format 4 stores the
    /// bodies as is only where it stores no gzip).
    Inflated(Inflated),
}

/// A body's checked bytes, once made, kept while its cache has room.
#[derive(Debug)]
struct Kept {
    cache: BodyCache,
    bytes: std::sync::OnceLock<Bytes>,
}

impl Kept {
    fn new(cache: &BodyCache) -> Self {
        Kept { cache: cache.clone(), bytes: std::sync::OnceLock::new() }
    }

    /// The bytes kept, or those `make` gives (its error as it is: it
    /// counts its own failures), checked against `etag` (counted as a
    /// read, or a failure named `failure`: never handed out unchecked) and
    /// kept if the cache has room.
    fn get_or_check(
        &self,
        etag: &[u8],
        make: impl FnOnce() -> Result<Vec<u8>, ArtifactError>,
        failure: impl FnOnce() -> ArtifactError,
    ) -> Result<Bytes, ArtifactError> {
        if let Some(kept) = self.bytes.get() {
            return Ok(kept.clone());
        }
        let bytes = make()?;
        if !artifact::etag_names(etag, &bytes) {
            return Err(self.failed(failure()));
        }
        self.cache.0.reads.fetch_add(1, Ordering::Relaxed);
        let bytes = Bytes::from(bytes);
        if self.cache.take(bytes.len() as u64) && self.bytes.set(bytes.clone()).is_err() {
            // Another request kept it first.
            self.cache.release(bytes.len() as u64);
        }
        Ok(bytes)
    }

    /// Counts `error` as a failure of the cache's bodies.
    fn failed(&self, error: ArtifactError) -> ArtifactError {
        self.cache.0.failures.fetch_add(1, Ordering::Relaxed);
        error
    }
}

/// A clone keeps nothing: what it keeps is counted against the cache on its own.
impl Clone for Kept {
    fn clone(&self) -> Self {
        Kept::new(&self.cache)
    }
}

impl Drop for Kept {
    fn drop(&mut self) {
        if let Some(kept) = self.bytes.get() {
            self.cache.release(kept.len() as u64);
        }
    }
}

/// A body left in its artifact file, and its checked copy once read.
#[derive(Debug, Clone)]
struct Stored {
    file: Arc<artifact::BodyFile>,
    /// Where it is in the data region.
    offset: u64,
    len: u32,
    kept: Kept,
}

impl Stored {
    /// The bytes: kept, or read and checked against `etag` (never handed
    /// out unchecked), then kept if the cache has room.
    fn bytes(&self, etag: &[u8]) -> Result<Bytes, ArtifactError> {
        let changed = |reason: String| ArtifactError::Changed { offset: self.offset, len: self.len, reason };
        let read = || {
            let bytes = self.file.read(self.offset, self.len as usize);
            bytes.map_err(|e| self.kept.failed(changed(format!("cannot be read ({e})"))))
        };
        self.kept.get_or_check(etag, read, || changed("does not match its ETag".to_owned()))
    }
}

/// A body as is that is its gzip representation inflated, and its
/// checked copy once inflated.
#[derive(Debug, Clone)]
struct Inflated {
    gzip: Box<Representation>,
    len: u32,
    kept: Kept,
}

impl Inflated {
    /// The bytes: kept, or the gzip body (itself checked against its own
    /// ETag) inflated to at most its length and checked against `etag`,
    /// then kept if the cache has room.
    fn bytes(&self, etag: &[u8]) -> Result<Bytes, ArtifactError> {
        let inflated = || {
            ArtifactError::Malformed(format!(
                "a gzip body does not inflate to the {} bytes its identity ETag names",
                self.len
            ))
        };
        // A gzip body that fails its own check was counted by it.
        let inflate = || {
            let gzip = self.gzip.body()?;
            crate::encoding::gunzip(&gzip, self.len).ok_or_else(|| self.kept.failed(inflated()))
        };
        self.kept.get_or_check(etag, inflate, inflated)
    }
}

impl PartialEq for Representation {
    fn eq(&self, other: &Self) -> bool {
        self.etag == other.etag && self.len() == other.len()
    }
}

impl Eq for Representation {}

impl Representation {
    /// The bytes: a cheap clone of shared bytes, or, for a body left in the
    /// artifact file, the bytes read from it and checked against the ETag
    /// (an error when the file was changed in place since it was opened:
    /// answer it with 503, never with the bytes).
    pub fn body(&self) -> Result<Bytes, ArtifactError> {
        match &self.body {
            Body::Ready(bytes) => Ok(bytes.clone()),
            Body::Stored(stored) => stored.bytes(&self.etag),
            Body::Inflated(inflated) => inflated.bytes(&self.etag),
        }
    }

    /// The body's length, without reading it.
    pub fn len(&self) -> usize {
        match &self.body {
            Body::Ready(bytes) => bytes.len(),
            Body::Stored(stored) => stored.len as usize,
            Body::Inflated(inflated) => inflated.len as usize,
        }
    }

    /// Whether the body is empty.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The strong ETag: the quoted lowercase hex SHA-256 of these bytes.
    pub fn etag(&self) -> &str {
        // Checked to be ASCII when the catalog was loaded.
        std::str::from_utf8(&self.etag).unwrap_or_default()
    }

    /// The ETag as shared bytes (a cheap clone, for header values).
    pub fn etag_bytes(&self) -> Bytes {
        self.etag.clone()
    }
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

/// One pre-built response: the body in every stored content coding, and
/// its modification time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogEntry {
    /// By the coding's position in [`ContentCoding::ALL`]; identity is always set.
    representations: [Option<Representation>; ContentCoding::ALL.len()],
    last_modified: Bytes,
    modified: SystemTime,
    /// Its position in the artifact's index.
    index: usize,
}

impl CatalogEntry {
    /// The body in `coding`, or as is when that coding is not stored.
    pub fn representation(&self, coding: ContentCoding) -> &Representation {
        let stored = |coding: ContentCoding| self.representations[slot(coding)].as_ref();
        // Identity is set for every entry a catalog holds (checked at load).
        stored(coding).or_else(|| stored(ContentCoding::Identity)).unwrap_or(&EMPTY)
    }

    /// The response body as is, `{"data": …}` ([`Representation::body`]).
    pub fn body(&self) -> Result<Bytes, ArtifactError> {
        self.representation(ContentCoding::Identity).body()
    }

    /// The strong ETag of the body as is.
    pub fn etag(&self) -> &str {
        self.representation(ContentCoding::Identity).etag()
    }

    /// `Last-Modified`: the record's `last_updated_at` as an IMF-fixdate
    /// (shared bytes, for header values).
    pub(crate) fn last_modified_bytes(&self) -> Bytes {
        self.last_modified.clone()
    }

    /// The record's `last_updated_at`, to whole seconds.
    pub fn modified(&self) -> SystemTime {
        self.modified
    }

    /// The representations stored for `codings` (from an index entry):
    /// bodies left in the artifact's file are read from it when asked for,
    /// kept in `cache`.
    fn representations(
        artifact: &Artifact,
        spans: &[(artifact::Span, artifact::Span)],
        check: bool,
        cache: &BodyCache,
        name: &dyn Fn() -> String,
    ) -> Result<[Option<Representation>; ContentCoding::ALL.len()], ArtifactError> {
        let mut stored: [Option<Representation>; ContentCoding::ALL.len()] = Default::default();
        let mut inflated = None;
        for (&coding, &(body, etag)) in artifact.metadata().codings.iter().zip(spans) {
            let etag = artifact.slice(etag)?;
            if check && !artifact::is_strong_etag(&etag) {
                return Err(ArtifactError::Malformed(format!("`{}` has a malformed {coding} ETag", name())));
            }
            if body.is_inflated() {
                inflated = Some((coding, body.len, etag));
                continue;
            }
            // In the artifact's file (its span lies in the bodies' part:
            // checked by the tiling), in another's (a build's, taken from
            // its previous artifact unread), or in memory.
            let elsewhere = match artifact.body_file() {
                Some(file) => Some((file, body.offset)),
                None => artifact.stored_elsewhere(body),
            };
            let body = match elsewhere {
                Some((file, offset)) => {
                    Body::Stored(Stored { file: Arc::clone(file), offset, len: body.len, kept: Kept::new(cache) })
                }
                None => Body::Ready(artifact.slice(body)?),
            };
            stored[slot(coding)] = Some(Representation { body, etag });
        }
        if let Some((coding, len, etag)) = inflated {
            let gzip = stored[slot(ContentCoding::Gzip)].clone().ok_or_else(|| {
                ArtifactError::Malformed(format!("`{}` has an inflated body and no gzip one", name()))
            })?;
            let body = Body::Inflated(Inflated { gzip: Box::new(gzip), len, kept: Kept::new(cache) });
            stored[slot(coding)] = Some(Representation { body, etag });
        }
        Ok(stored)
    }
}

/// The pages an artifact holds, by path, and its site documents.
#[derive(Debug, Default)]
struct SiteEntries {
    /// Each product's page, by `canonical_path`.
    pages: HashMap<Bytes, CatalogEntry>,
    /// `/robots.txt` and the sitemap files, by path.
    documents: HashMap<Bytes, CatalogEntry>,
    /// The not-found page.
    not_found: Option<CatalogEntry>,
}

/// What a request at a path outside the product endpoint finds among a
/// catalog's pages.
#[derive(Debug, Clone, Copy)]
pub enum SiteResource<'a> {
    /// A product's page (`text/html`).
    Page(&'a CatalogEntry),
    /// A site document: `robots.txt` (`text/plain`) or a sitemap file
    /// (`application/xml`); it has no `Last-Modified`.
    Document(&'a CatalogEntry),
    /// Nothing at that path: the not-found page (`text/html`), to send with 404.
    NotFound(&'a CatalogEntry),
}

/// What [`CatalogEntry::representation`] falls back to for an entry
/// without identity, which a loaded catalog never has.
static EMPTY: Representation = Representation { body: Body::Ready(Bytes::new()), etag: Bytes::new() };

fn slot(coding: ContentCoding) -> usize {
    ContentCoding::ALL.iter().position(|&c| c == coding).unwrap_or_default()
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
    /// Shared, so that a clone (a reload's previous catalog) is cheap.
    entries: Arc<HashMap<Bytes, CatalogEntry>>,
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
    /// Where bodies read from the artifact's file are kept.
    body_cache: BodyCache,
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
        let artifact = Artifact::open(path, options.max_len).map_err(|error| opening(path, error))?;
        #[cfg(feature = "signing")]
        if !options.verify_keys.is_empty() {
            // Which key signed is known at once: a wrong key costs nothing more.
            let verify = |artifact: &Artifact| artifact.verify_any(&options.verify_keys);
            artifact.signer_trusted(&options.verify_keys).map_err(|error| opening(path, error))?;
            return Self::load_verified(artifact, &options.body_cache, Some(&verify))
                .map_err(|error| opening(path, error));
        }
        Self::load(artifact, &options.body_cache).map_err(|error| opening(path, error))
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
    /// (`copy_file_range`: a copy in the page cache, or shared extents on
    /// filesystems that clone them), not written from memory. A previous
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
                artifact.check_tiling().and_then(|()| Self::index(&artifact, cache, check))
            } else {
                Self::index(&artifact, cache, check)
            };
            verified.map_or(Ok(()), join)?;
            digest.map_or(Ok(()), join)?;
            indexed
        })?;
        if check && artifact.table_len().is_some() && artifact.body_file().is_none() {
            artifact.check_bodies()?;
        }
        Ok(ResponseCatalog {
            entries: Arc::new(entries),
            artifact,
            origins: Vec::new(),
            stamps: None,
            site: site.map(Arc::new),
            body_cache: cache.clone(),
        })
    }

    /// Every product, page and site document of `artifact`, by slug and
    /// by path (each slug, date, path and name checked when `check`).
    fn index(
        artifact: &Artifact,
        cache: &BodyCache,
        check: bool,
    ) -> Result<(HashMap<Bytes, CatalogEntry>, Option<SiteEntries>), ArtifactError> {
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
            let entry = CatalogEntry {
                representations: CatalogEntry::representations(artifact, &representations, check, cache, &name)?,
                last_modified,
                modified: SystemTime::UNIX_EPOCH + Duration::from_secs(modified),
                index,
            };
            if let (Some(site), Some(page)) = (&mut site, page) {
                let path = artifact.slice(page.path)?;
                if check && !is_page_path(&path, &slug) {
                    return Err(malformed(format!("the page of `{}` is not at /<route>/{}", name(), name())));
                }
                if check && !is_lastmod(&artifact.slice(page.lastmod)?) {
                    return Err(malformed(format!("the page of `{}` has a malformed sitemap lastmod", name())));
                }
                let representations =
                    CatalogEntry::representations(artifact, &page.representations, check, cache, &name)?;
                let page = CatalogEntry {
                    representations,
                    last_modified: entry.last_modified.clone(),
                    modified: entry.modified,
                    index,
                };
                if site.pages.insert(path, page).is_some() {
                    return Err(malformed(format!("the page of `{}` is indexed twice", name())));
                }
            }
            if entries.insert(slug.clone(), entry).is_some() {
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
                let entry = CatalogEntry {
                    representations: CatalogEntry::representations(
                        artifact,
                        &document.representations,
                        check,
                        cache,
                        &name,
                    )?,
                    last_modified: Bytes::new(),
                    modified: SystemTime::UNIX_EPOCH,
                    index,
                };
                let twice = if &path[..] == artifact::NOT_FOUND_DOCUMENT.as_bytes() {
                    site.not_found.replace(entry).is_some()
                } else {
                    site.documents.insert(path.clone(), entry).is_some()
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
    /// artifact; `false` (nothing written) for a catalog not built from a
    /// folder. `foundry-catalog build -o OUT` writes it to `OUT.stamps`,
    /// beside the artifact, never in it.
    pub fn write_stamps(&self, out: &mut impl std::io::Write) -> std::io::Result<bool> {
        let Some(stamps) = &self.stamps else { return Ok(false) };
        out.write_all(stamps.to_text(&self.metadata().content_sha256).as_bytes())?;
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
    pub fn read_stamps(&mut self, path: &Path) -> Result<(), String> {
        const MAX_STAMPS_LEN: u64 = 256 << 20;
        let (bytes, _) = crate::files::read_regular(path, MAX_STAMPS_LEN)?;
        let text = std::str::from_utf8(&bytes).map_err(|_| "not UTF-8 text".to_owned())?;
        let stamps = stamps::Stamps::from_text(text, &self.metadata().content_sha256)?;
        self.stamps = Some(Arc::new(stamps));
        Ok(())
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
        self.entries.get(slug.as_bytes()).map(|entry| entry.index)
    }

    /// The pre-built response for a slug.
    pub fn get(&self, slug: &str) -> Option<&CatalogEntry> {
        self.entries.get(slug.as_bytes())
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
        if let Some(page) = site.pages.get(path.as_bytes()) {
            return Some(SiteResource::Page(page));
        }
        if let Some(document) = site.documents.get(path.as_bytes()) {
            return Some(SiteResource::Document(document));
        }
        site.not_found.as_ref().map(SiteResource::NotFound)
    }

    /// Every path of a page or site document served, sorted (empty
    /// without pages; the not-found page has none).
    pub fn page_paths(&self) -> Vec<&str> {
        let mut paths: Vec<&str> = self
            .site
            .iter()
            .flat_map(|site| site.pages.keys().chain(site.documents.keys()))
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
        self.artifact.body_file().is_some()
    }

    /// Where bodies read from the artifact's file are kept, and what
    /// reading them has found.
    pub fn body_cache(&self) -> &BodyCache {
        &self.body_cache
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
    numbered || [&b"/robots.txt"[..], b"/sitemap.xml", artifact::NOT_FOUND_DOCUMENT.as_bytes()].contains(&name)
}

/// A problem opening the artifact file at `path`, as a build's.
fn opening(path: &Path, error: ArtifactError) -> CatalogErrors {
    CatalogErrors::from(CatalogError::Artifact { file: path.display().to_string(), error })
}

#[cfg(test)]
mod tests {
    use super::{Body, BodyCache, Inflated, Kept, Representation, is_document_name, is_lastmod, is_page_path};
    use crate::artifact::etag_of;
    use bytes::Bytes;

    /// A body as is inflated from `gzip`, which its ETag names, with
    /// `etag` as its own and `len` as its length.
    fn inflated(gzip: Vec<u8>, len: u32, etag: &str, cache: &BodyCache) -> Representation {
        let gzip = Representation { etag: Bytes::from(etag_of(&gzip)), body: Body::Ready(Bytes::from(gzip)) };
        let body = Body::Inflated(Inflated { gzip: Box::new(gzip), len, kept: Kept::new(cache) });
        Representation { body, etag: Bytes::from(etag.to_owned()) }
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
        let good = inflated(gzip(b"{\"data\":1}"), 10, &etag_of(b"{\"data\":1}"), &cache);
        assert_eq!(good.body().expect("inflated and checked"), Bytes::from_static(b"{\"data\":1}"));
        assert_eq!((good.len(), cache.reads(), cache.kept_bytes()), (10, 1, 10), "kept once checked");
        let other = inflated(gzip(b"{\"data\":2}"), 10, &etag_of(b"{\"data\":1}"), &cache);
        assert!(other.body().is_err(), "bytes its ETag does not name");
        let bomb = vec![0; 1 << 20];
        let long = inflated(gzip(&bomb), 10, &etag_of(&bomb[..10]), &cache);
        assert!(long.body().is_err(), "a gzip body inflating past the length");
        let short = inflated(gzip(b"{}"), 10, &etag_of(b"{}"), &cache);
        assert!(short.body().is_err(), "a gzip body inflating short of the length");
        assert_eq!(cache.failures(), 3);
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
