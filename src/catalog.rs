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
use std::time::{Duration, SystemTime};

use bytes::Bytes;
use sha2::{Digest, Sha256};

use crate::artifact::{self, Artifact, ArtifactError, IndexEntry, Metadata, RecordTypeId, Span};
use crate::conformance::Violations;
pub use crate::encoding::ContentCoding;
use crate::manifest::ManifestError;
use crate::product::{ProductManifest, ProductRecord};

/// One representation of a body: its bytes and its strong ETag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Representation {
    body: Bytes,
    etag: Bytes,
}

impl Representation {
    /// The bytes: a cheap clone of shared bytes.
    pub fn body(&self) -> Bytes {
        self.body.clone()
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

/// One pre-built response: the body in every stored content coding, and
/// its modification time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogEntry {
    /// By the coding's position in [`ContentCoding::ALL`]; identity is always set.
    representations: [Option<Representation>; ContentCoding::ALL.len()],
    last_modified: Bytes,
    modified: SystemTime,
}

impl CatalogEntry {
    /// The body in `coding`, or as is when that coding is not stored.
    pub fn representation(&self, coding: ContentCoding) -> &Representation {
        let stored = |coding: ContentCoding| self.representations[slot(coding)].as_ref();
        // Identity is set for every entry a catalog holds (checked at load).
        stored(coding).or_else(|| stored(ContentCoding::Identity)).unwrap_or(&EMPTY)
    }

    /// The response body as is, `{"data": …}`: a cheap clone of shared bytes.
    pub fn body(&self) -> Bytes {
        self.representation(ContentCoding::Identity).body()
    }

    /// The strong ETag of the body as is.
    pub fn etag(&self) -> &str {
        self.representation(ContentCoding::Identity).etag()
    }

    /// `Last-Modified`: the record's `last_updated_at` as an IMF-fixdate
    /// (shared bytes, for header values).
    pub fn last_modified_bytes(&self) -> Bytes {
        self.last_modified.clone()
    }

    /// The record's `last_updated_at`, to whole seconds.
    pub fn modified(&self) -> SystemTime {
        self.modified
    }
}

/// What [`CatalogEntry::representation`] falls back to for an entry
/// without identity, which a loaded catalog never has.
static EMPTY: Representation = Representation { body: Bytes::new(), etag: Bytes::new() };

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
            | CatalogError::Artifact { file, .. } => file,
        }
    }

    /// How many problems this error reports (every violation counts).
    pub fn problems(&self) -> usize {
        match self {
            CatalogError::Invalid { violations, .. } => violations.0.len().max(1),
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

    /// The closing line: `3 of 10,000 manifests are invalid: 5 problems`.
    pub fn summary(&self) -> String {
        let (invalid, problems) = (self.invalid_files(), self.problems());
        format!(
            "{} of {} {} {}: {} {}",
            thousands(invalid),
            thousands(self.sources),
            if self.sources == 1 { "manifest" } else { "manifests" },
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
/// # let examples = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/catalog");
/// let catalog = foundry_catalog::catalog::ResponseCatalog::from_dir(&examples).unwrap();
/// let entry = catalog.get("crm-webhook-connector").unwrap();
/// assert!(entry.body().starts_with(b"{\"data\":{\"slug\":\"crm-webhook-connector\""));
/// assert_eq!(entry.etag().len(), 66);
/// ```
#[derive(Debug, Clone)]
pub struct ResponseCatalog {
    entries: HashMap<Bytes, CatalogEntry>,
    metadata: Metadata,
}

impl ResponseCatalog {
    /// Builds the manifests `*.json` in a folder in memory ([`Builder::build_dir`]).
    pub fn from_dir(dir: &Path) -> Result<Self, CatalogErrors> {
        Self::built(Builder::new().build_dir(dir)?)
    }

    /// Builds manifests `(file, text)` in memory ([`Builder::build`]).
    pub fn from_manifests(sources: impl IntoIterator<Item = (String, String)>) -> Result<Self, CatalogErrors> {
        Self::built(Builder::new().build(sources)?)
    }

    /// Serves already-built records `(source name, record)` ([`Builder::build_records`]).
    pub fn from_records(records: impl IntoIterator<Item = (String, ProductRecord)>) -> Result<Self, CatalogErrors> {
        Self::built(Builder::new().build_records(records)?)
    }

    /// Reads an artifact file once ([`Artifact::read`]) and loads it ([`ResponseCatalog::load`]).
    pub fn open(path: &Path) -> Result<Self, CatalogErrors> {
        Artifact::read(path)
            .and_then(|artifact| Self::load(&artifact))
            .map_err(|error| CatalogErrors::from(CatalogError::Artifact { file: path.display().to_string(), error }))
    }

    fn built(artifact: Artifact) -> Result<Self, CatalogErrors> {
        let products = artifact.len();
        Self::load(&artifact).map_err(|error| CatalogErrors {
            errors: vec![CatalogError::Artifact { file: "<built in memory>".to_owned(), error }],
            sources: products,
        })
    }

    /// Loads an artifact: checks every span, slug, ETag and date and the
    /// content digest, and indexes the products. The bodies are not
    /// copied: the catalog shares the artifact's buffers.
    pub fn load(artifact: &Artifact) -> Result<Self, ArtifactError> {
        artifact.check_content_digest()?;
        let metadata = artifact.metadata().clone();
        let malformed = |what: String| ArtifactError::Malformed(what);
        let mut entries = HashMap::with_capacity(artifact.len());
        for IndexEntry { modified, slug, last_modified, representations } in artifact.entries() {
            let slug = artifact.slice(slug)?;
            let name = std::str::from_utf8(&slug).ok().filter(|s| crate::Slug::check(s).is_ok());
            let Some(name) = name else {
                return Err(malformed(format!("{:?} is not a slug", String::from_utf8_lossy(&slug))));
            };
            let last_modified = artifact.slice(last_modified)?;
            if !artifact::is_http_date(&last_modified) || modified > LAST_HTTP_DATE {
                return Err(malformed(format!("`{name}` has a malformed modification date")));
            }
            let mut stored: [Option<Representation>; ContentCoding::ALL.len()] = Default::default();
            for (&coding, (body, etag)) in metadata.codings.iter().zip(representations) {
                let etag = artifact.slice(etag)?;
                if !artifact::is_strong_etag(&etag) {
                    return Err(malformed(format!("`{name}` has a malformed {coding} ETag")));
                }
                stored[slot(coding)] = Some(Representation { body: artifact.slice(body)?, etag });
            }
            let entry = CatalogEntry {
                representations: stored,
                last_modified,
                modified: SystemTime::UNIX_EPOCH + Duration::from_secs(modified),
            };
            if entries.insert(slug.clone(), entry).is_some() {
                return Err(malformed(format!("slug `{name}` is indexed twice")));
            }
        }
        Ok(ResponseCatalog { entries, metadata })
    }

    /// The pre-built response for a slug.
    pub fn get(&self, slug: &str) -> Option<&CatalogEntry> {
        self.entries.get(slug.as_bytes())
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
        &self.metadata.codings
    }

    /// What the artifact behind this catalog says about itself: the
    /// generator, the record types and the content digest.
    pub fn metadata(&self) -> &Metadata {
        &self.metadata
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

/// The last instant an HTTP date can say: 9999-12-31T23:59:59Z.
const LAST_HTTP_DATE: u64 = 253_402_300_799;

/// Builds catalogs into [`Artifact`]s, like `prost_build::Config`:
/// configure, then build from a folder, from manifests or from records.
///
/// ```
/// use foundry_catalog::catalog::{Builder, ContentCoding};
/// let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/catalog");
/// let artifact = Builder::new().codings(&[ContentCoding::Identity]).unwrap().build_dir(&dir).unwrap();
/// assert_eq!(artifact.len(), 3);
/// assert_eq!(artifact.metadata().codings, [ContentCoding::Identity]);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Builder {
    codings: Vec<ContentCoding>,
}

impl Default for Builder {
    fn default() -> Self {
        Builder { codings: crate::encoding::available().to_vec() }
    }
}

/// A content coding asked of a [`Builder`] that this build cannot make.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot store `{0}` bodies: this build of foundry-catalog makes {available}; hint: turn on the `compression` feature", available = crate::encoding::available().iter().map(|c| c.as_str()).collect::<Vec<_>>().join(", "))]
pub struct UnavailableCoding(pub ContentCoding);

impl Builder {
    /// A builder storing every coding this build can make
    /// (identity, and with the `compression` feature gzip and brotli).
    pub fn new() -> Self {
        Self::default()
    }

    /// Stores these codings of each body (identity is always stored), for
    /// example identity alone when a CDN in front compresses.
    pub fn codings(mut self, codings: &[ContentCoding]) -> Result<Self, UnavailableCoding> {
        let available = crate::encoding::available();
        if let Some(&missing) = codings.iter().find(|c| !available.contains(c)) {
            return Err(UnavailableCoding(missing));
        }
        self.codings =
            available.iter().copied().filter(|c| *c == ContentCoding::Identity || codings.contains(c)).collect();
        Ok(self)
    }

    /// Builds the manifests `*.json` in a folder (sorted by name), read by
    /// the threads that build them. Every file is read; one that cannot
    /// be read or is not UTF-8 is one problem among the others, never a
    /// stop.
    pub fn build_dir(&self, dir: &Path) -> Result<Artifact, CatalogErrors> {
        let mut paths: Vec<_> = std::fs::read_dir(dir)
            .map_err(|e| {
                CatalogErrors::from(CatalogError::Read { file: dir.display().to_string(), reason: e.to_string() })
            })?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "json") && !p.is_dir())
            .collect();
        paths.sort();
        self.assemble(&paths, |path| {
            let file = path.display().to_string();
            match std::fs::read(path) {
                Ok(bytes) => self.prepare(&file, &build_manifest(&file, &bytes)?),
                Err(e) => Err(CatalogError::Read { file, reason: e.to_string() }),
            }
        })
    }

    /// Builds manifests `(file name, text)`: each is read, checked against
    /// its file name, built into its record and prepared as
    /// [`Builder::build_records`] does. Every problem of every file is
    /// reported, in the order of the sources.
    pub fn build(&self, sources: impl IntoIterator<Item = (String, String)>) -> Result<Artifact, CatalogErrors> {
        let sources: Vec<(String, String)> = sources.into_iter().collect();
        self.assemble(&sources, |(file, text)| self.prepare(file, &build_manifest(file, text.as_bytes())?))
    }

    /// Serves already-built records `(source name, record)`: each is
    /// checked against the spec, serialized once and compressed once.
    pub fn build_records(
        &self,
        records: impl IntoIterator<Item = (String, ProductRecord)>,
    ) -> Result<Artifact, CatalogErrors> {
        let records: Vec<(String, ProductRecord)> = records.into_iter().collect();
        self.assemble(&records, |(file, record)| self.prepare(file, record))
    }
}

/// One product, ready to be written: its slug, dates and representations.
struct Prepared {
    file: String,
    slug: String,
    modified: u64,
    last_modified: String,
    /// Bodies in the order of the codings this build makes (identity, gzip, brotli).
    bodies: Vec<Vec<u8>>,
}

/// What one thread built: its data and its products' entries (or problems).
type Part = (Blocks, Vec<Result<(String, String, IndexEntry), CatalogError>>);

/// One thread's data: bytes appended to blocks of [`Blocks::SIZE`], so
/// that growing never copies what was written (as doubling a `Vec` would)
/// and no product is an allocation of its own. A block's unused tail is
/// never written, so it takes address space but no memory.
#[derive(Default)]
struct Blocks {
    full: Vec<Vec<u8>>,
    current: Vec<u8>,
    /// Bytes written so far: the offset of the next span.
    written: u64,
}

impl Blocks {
    const SIZE: usize = 4 << 20;

    /// Appends `bytes` within one block; returns their span.
    fn put(&mut self, bytes: &[u8]) -> Span {
        if self.current.capacity() - self.current.len() < bytes.len() {
            let next = Vec::with_capacity(Self::SIZE.max(bytes.len()));
            let full = std::mem::replace(&mut self.current, next);
            if !full.is_empty() {
                self.full.push(full);
            }
        }
        let span = Span { offset: self.written, len: u32::try_from(bytes.len()).unwrap_or(u32::MAX) };
        self.current.extend_from_slice(bytes);
        self.written += bytes.len() as u64;
        span
    }

    fn finish(mut self) -> impl Iterator<Item = Bytes> {
        self.full.push(self.current);
        self.full.into_iter().filter(|block| !block.is_empty()).map(Bytes::from)
    }
}

impl Builder {
    /// Prepares every item on all cores, each thread writing its products'
    /// bytes into one buffer of its own (so no product is an allocation of
    /// its own), then checks slugs for duplicates and assembles the artifact.
    fn assemble<T: Sync>(
        &self,
        items: &[T],
        prepare: impl Fn(&T) -> Result<Prepared, CatalogError> + Sync,
    ) -> Result<Artifact, CatalogErrors> {
        let parts: Vec<Part> = crate::parallel::chunks(items, |chunk| {
            let mut blocks = Blocks::default();
            let entries = chunk.iter().map(|item| prepare(item).map(|p| write_product(&mut blocks, p))).collect();
            (blocks, entries)
        });
        let mut errors = Vec::new();
        let mut seen: HashMap<String, String> = HashMap::with_capacity(items.len());
        let mut index = Vec::with_capacity(items.len());
        let mut buffers = Vec::with_capacity(parts.len());
        let mut base = 0u64;
        for (blocks, entries) in parts {
            for entry in entries {
                match entry {
                    Ok((file, slug, mut entry)) => {
                        if let Some(other) = seen.get(&slug) {
                            errors.push(CatalogError::DuplicateSlug { file, other: other.clone(), slug });
                            continue;
                        }
                        for span in std::iter::once(&mut entry.slug)
                            .chain(std::iter::once(&mut entry.last_modified))
                            .chain(entry.representations.iter_mut().flat_map(|(body, etag)| [body, etag]))
                        {
                            span.offset += base;
                        }
                        seen.insert(slug, file);
                        index.push(entry);
                    }
                    Err(error) => errors.push(error),
                }
            }
            base += blocks.written;
            buffers.extend(blocks.finish());
        }
        if !errors.is_empty() {
            return Err(CatalogErrors { errors, sources: items.len() });
        }
        let record_types = crate::record_types()
            .iter()
            .map(|t| RecordTypeId { record_label: t.record_label.to_string(), schema_hash: t.schema_hash.to_string() })
            .collect();
        let generator = format!("foundry-catalog {}", env!("CARGO_PKG_VERSION"));
        Ok(Artifact::new(generator, self.codings.clone(), record_types, &index, buffers))
    }

    /// Serializes one record, validates it (once) and compresses it.
    fn prepare(&self, file: &str, record: &ProductRecord) -> Result<Prepared, CatalogError> {
        let body = crate::response::body_bytes(record);
        let violations = crate::manifest::record_violations(&body);
        if !violations.0.is_empty() {
            return Err(CatalogError::Invalid { file: file.to_owned(), violations });
        }
        let seconds =
            u64::try_from(record.last_updated_at.as_datetime().unix_timestamp()).unwrap_or(0).min(LAST_HTTP_DATE);
        let modified = SystemTime::UNIX_EPOCH + Duration::from_secs(seconds);
        // The codings were checked to be available when they were chosen.
        // Each coding's bytes, identity included (`encode` copies it);
        // the codings were checked to be available when they were chosen.
        let bodies = self.codings.iter().map(|&coding| coding.encode(&body).unwrap_or_default()).collect();
        Ok(Prepared {
            file: file.to_owned(),
            slug: record.slug.to_string(),
            modified: seconds,
            last_modified: httpdate::fmt_http_date(modified),
            bodies,
        })
    }
}

/// Appends a product's bytes to `blocks`; returns its file, slug and
/// index entry (spans relative to the thread's first block).
fn write_product(blocks: &mut Blocks, product: Prepared) -> (String, String, IndexEntry) {
    let mut put = |bytes: &[u8]| blocks.put(bytes);
    let slug = put(product.slug.as_bytes());
    let last_modified = put(product.last_modified.as_bytes());
    let representations = product
        .bodies
        .iter()
        .map(|body| {
            let etag = format!("\"{}\"", hex::encode(Sha256::digest(body).as_slice()));
            (put(body), put(etag.as_bytes()))
        })
        .collect();
    (product.file, product.slug, IndexEntry { modified: product.modified, slug, last_modified, representations })
}

/// Reads and builds one manifest.
fn build_manifest(file: &str, bytes: &[u8]) -> Result<ProductRecord, CatalogError> {
    let file = file.to_owned();
    let text = std::str::from_utf8(bytes).map_err(|e| CatalogError::Read {
        reason: format!("not UTF-8 text: invalid byte at offset {}", e.valid_up_to()),
        file: file.clone(),
    })?;
    let manifest = match ProductManifest::from_json(text) {
        Ok(manifest) => manifest,
        Err(ManifestError::Syntax(e)) => {
            let message = e.to_string();
            let message = message.split(" at line ").next().unwrap_or(&message).to_owned();
            return Err(CatalogError::Manifest { file, line: e.line(), column: e.column().max(1), message });
        }
        Err(ManifestError::Invalid(violations)) => return Err(CatalogError::Invalid { file, violations }),
    };
    let stem = Path::new(&file).file_stem().and_then(|s| s.to_str()).unwrap_or_default();
    if stem != manifest.slug.as_str() {
        return Err(CatalogError::FileName { slug: manifest.slug.to_string(), file });
    }
    manifest.assemble().map_err(|violations| CatalogError::Invalid { file, violations })
}
