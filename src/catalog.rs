//! A catalog of pre-built responses, for serving
//! `GET /api/public/foundry/products/{slug}`.
//!
//! Every record is built and validated once, its body serialized once and
//! compressed once (gzip and brotli, see [`crate::encoding`]), and each
//! representation given a strong ETag, the SHA-256 of its bytes. A lookup is one
//! hash-map probe and returns the pre-built bytes as a [`Bytes`], whose
//! clone is a reference-count increment: nothing is serialized per request.

use std::collections::HashMap;
use std::fmt;
use std::path::Path;

use std::time::{Duration, SystemTime};

use bytes::Bytes;
use sha2::{Digest, Sha256};

use crate::conformance::Violations;
use crate::encoding::ContentCoding;
use crate::manifest::ManifestError;
use crate::product::{ProductManifest, ProductRecord};

/// One representation of a body: its bytes and its strong ETag.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Representation {
    body: Bytes,
    etag: Bytes,
}

impl Representation {
    fn new(mut body: Vec<u8>) -> Self {
        // Kept for the catalog's lifetime: no spare capacity.
        body.shrink_to_fit();
        let etag = format!("\"{}\"", hex::encode(Sha256::digest(&body).as_slice()));
        Representation { body: Bytes::from(body), etag: Bytes::from(etag) }
    }

    /// The bytes: a cheap clone of shared bytes.
    pub fn body(&self) -> Bytes {
        self.body.clone()
    }

    /// The strong ETag: the quoted lowercase hex SHA-256 of these bytes.
    pub fn etag(&self) -> &str {
        // Built from ASCII hex in `new`.
        std::str::from_utf8(&self.etag).unwrap_or_default()
    }

    /// The ETag as shared bytes (a cheap clone, for header values).
    pub fn etag_bytes(&self) -> Bytes {
        self.etag.clone()
    }
}

/// One pre-built response: the body in every content coding, and its
/// modification time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogEntry {
    /// The body as is.
    identity: Representation,
    /// The compressed codings of [`crate::encoding::available`].
    compressed: Vec<(ContentCoding, Representation)>,
    last_modified: Bytes,
    modified: SystemTime,
}

impl CatalogEntry {
    /// The body in `coding`, or as is when that coding is not stored
    /// (the `compression` feature is off).
    pub fn representation(&self, coding: ContentCoding) -> &Representation {
        self.compressed.iter().find(|(c, _)| *c == coding).map_or(&self.identity, |(_, r)| r)
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

/// A problem found while building a catalog; each names its file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CatalogError {
    /// A file or folder could not be read.
    #[error("{file}: cannot read: {reason}")]
    Read {
        /// The file or folder.
        file: String,
        /// What the operating system said.
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
}

/// Every problem found while building a catalog, one per line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogErrors(pub Vec<CatalogError>);

impl fmt::Display for CatalogErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let lines: Vec<String> = self.0.iter().map(|e| format!("error: {e}")).collect();
        f.write_str(&lines.join("\n"))
    }
}

impl std::error::Error for CatalogErrors {}

/// Pre-built responses by slug.
///
/// ```
/// let catalog = foundry_catalog::catalog::ResponseCatalog::embedded().unwrap();
/// let entry = catalog.get("crm-webhook-connector").unwrap();
/// assert!(entry.body().starts_with(b"{\"data\":{\"slug\":\"crm-webhook-connector\""));
/// assert_eq!(entry.etag().len(), 66);
/// ```
#[derive(Debug, Clone, Default)]
pub struct ResponseCatalog {
    entries: HashMap<String, CatalogEntry>,
    sources: HashMap<String, String>,
}

mod embedded {
    include!(concat!(env!("OUT_DIR"), "/default_catalog.rs"));
}

impl ResponseCatalog {
    /// The default catalog compiled into the library from
    /// `examples/catalog/*.json`.
    pub fn embedded() -> Result<Self, CatalogErrors> {
        Self::from_manifests(embedded::MANIFESTS.iter().map(|(file, text)| ((*file).to_owned(), (*text).to_owned())))
    }

    /// The manifests `*.json` in a folder (sorted by name).
    pub fn from_dir(dir: &Path) -> Result<Self, CatalogErrors> {
        let read_error = |e: std::io::Error| {
            CatalogErrors(vec![CatalogError::Read { file: dir.display().to_string(), reason: e.to_string() }])
        };
        let mut paths: Vec<_> = std::fs::read_dir(dir)
            .map_err(read_error)?
            .filter_map(Result::ok)
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|e| e == "json") && p.is_file())
            .collect();
        paths.sort();
        let mut sources = Vec::with_capacity(paths.len());
        let mut errors = Vec::new();
        for path in paths {
            match std::fs::read_to_string(&path) {
                Ok(text) => sources.push((path.display().to_string(), text)),
                Err(e) => errors.push(CatalogError::Read { file: path.display().to_string(), reason: e.to_string() }),
            }
        }
        if !errors.is_empty() {
            return Err(CatalogErrors(errors));
        }
        Self::from_manifests(sources)
    }

    /// Builds every manifest `(file, text)`, on all cores; all problems
    /// are reported, in the order of the sources.
    pub fn from_manifests(sources: impl IntoIterator<Item = (String, String)>) -> Result<Self, CatalogErrors> {
        let sources: Vec<(String, String)> = sources.into_iter().collect();
        let built =
            parallel_map(&sources, |(file, text)| build_manifest(file, text).map(|record| (file.clone(), record)));
        let mut records = Vec::with_capacity(built.len());
        let mut errors = Vec::new();
        for result in built {
            match result {
                Ok(record) => records.push(record),
                Err(error) => errors.push(error),
            }
        }
        match Self::from_records(records) {
            Ok(catalog) if errors.is_empty() => Ok(catalog),
            Ok(_) => Err(CatalogErrors(errors)),
            Err(CatalogErrors(more)) => {
                errors.extend(more);
                Err(CatalogErrors(errors))
            }
        }
    }

    /// Serves already-built records `(source name, record)`: each is
    /// checked against the spec once more, serialized once and compressed
    /// once, on all cores.
    pub fn from_records(records: impl IntoIterator<Item = (String, ProductRecord)>) -> Result<Self, CatalogErrors> {
        let records: Vec<(String, ProductRecord)> = records.into_iter().collect();
        let entries = parallel_map(&records, |(file, record)| prepare(file, record));
        let mut catalog = ResponseCatalog::default();
        let mut errors = Vec::new();
        for ((file, record), entry) in records.into_iter().zip(entries) {
            let slug = record.slug.to_string();
            if let Some(other) = catalog.sources.get(&slug) {
                errors.push(CatalogError::DuplicateSlug { file, other: other.clone(), slug });
                continue;
            }
            match entry {
                Ok(entry) => {
                    catalog.entries.insert(slug.clone(), entry);
                    catalog.sources.insert(slug, file);
                }
                Err(error) => errors.push(error),
            }
        }
        if errors.is_empty() { Ok(catalog) } else { Err(CatalogErrors(errors)) }
    }

    /// The pre-built response for a slug.
    pub fn get(&self, slug: &str) -> Option<&CatalogEntry> {
        self.entries.get(slug)
    }

    /// Every slug served, sorted.
    pub fn slugs(&self) -> Vec<&str> {
        let mut slugs: Vec<&str> = self.entries.keys().map(String::as_str).collect();
        slugs.sort_unstable();
        slugs
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

/// An instant as a `SystemTime` to whole seconds, clamped to 1970…9999
/// (what an HTTP date can say).
fn system_time(timestamp: &crate::OffsetTimestamp) -> SystemTime {
    const LAST_HTTP_DATE: u64 = 253_402_300_799; // 9999-12-31T23:59:59Z
    let seconds = u64::try_from(timestamp.as_datetime().unix_timestamp()).unwrap_or(0).min(LAST_HTTP_DATE);
    SystemTime::UNIX_EPOCH + Duration::from_secs(seconds)
}

/// Reads and builds one manifest.
fn build_manifest(file: &str, text: &str) -> Result<ProductRecord, CatalogError> {
    let file = file.to_owned();
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
    manifest.build().map_err(|violations| CatalogError::Invalid { file, violations })
}

/// Validates, serializes and compresses one record.
fn prepare(file: &str, record: &ProductRecord) -> Result<CatalogEntry, CatalogError> {
    let modified = system_time(&record.last_updated_at);
    let body = serde_json::to_vec(&ResponseRef { data: record }).unwrap_or_default();
    let value: serde_json::Value = serde_json::from_slice(&body).unwrap_or_default();
    let violations = crate::conformance::validate(&value);
    if !violations.is_empty() {
        return Err(CatalogError::Invalid { file: file.to_owned(), violations: Violations(violations) });
    }
    let compressed = crate::encoding::available()
        .iter()
        .filter(|&&coding| coding != ContentCoding::Identity)
        .filter_map(|&coding| coding.encode(&body).map(|bytes| (coding, Representation::new(bytes))))
        .collect();
    let last_modified = Bytes::from(httpdate::fmt_http_date(modified));
    Ok(CatalogEntry { identity: Representation::new(body), compressed, last_modified, modified })
}

/// The response envelope around a borrowed record, serialized exactly as
/// `ProductResponse` is.
#[derive(serde::Serialize)]
struct ResponseRef<'a> {
    data: &'a ProductRecord,
}

/// `f` over every item on the available cores, results in item order (so
/// the outcome never depends on scheduling).
fn parallel_map<T: Sync, R: Send>(items: &[T], f: impl Fn(&T) -> R + Sync) -> Vec<R> {
    let threads = std::thread::available_parallelism().map_or(1, usize::from);
    if threads < 2 || items.len() < 64 {
        return items.iter().map(f).collect();
    }
    let chunk = items.len().div_ceil(threads);
    std::thread::scope(|scope| {
        let workers: Vec<_> =
            items.chunks(chunk).map(|part| scope.spawn(|| part.iter().map(&f).collect::<Vec<R>>())).collect();
        // A worker panics only if `f` does; then so does the caller, as it would have serially.
        workers.into_iter().flat_map(|w| w.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))).collect()
    })
}
