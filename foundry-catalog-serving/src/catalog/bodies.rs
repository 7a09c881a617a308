//! A catalog's bodies: each representation's bytes and ETag, in memory
//! or read from the artifact's file, checked against the ETag before they
//! are handed out, and kept in a body cache while it has room.

use std::fmt;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use bytes::Bytes;

use crate::artifact::{self, Artifact, ArtifactError, Response};
use crate::encoding::ContentCoding;

/// One representation of a stored response: its bytes and its strong
/// ETag, borrowed from the catalog that holds it.
///
/// The bytes are in memory (a catalog built in this process, or an
/// artifact read whole), or in the artifact file the catalog was opened
/// from ([`ResponseCatalog::open`](super::ResponseCatalog::open)): then they are read when first asked
/// for and checked against the ETag before they are handed out, and kept
/// while the catalog's [`BodyCache`] has room. Two representations are
/// equal when their ETags (which name the bytes) and lengths are.
#[derive(Clone)]
pub struct Representation<'a> {
    /// The ETag, and the buffer it lies in (to share it as a header value).
    pub(super) etag: &'a [u8],
    pub(super) etag_buffer: &'a Bytes,
    pub(super) len: u32,
    pub(super) body: Body<'a>,
    pub(super) cache: &'a BodyCache,
}

#[derive(Clone)]
pub(super) enum Body<'a> {
    /// Stored, in memory or in a file.
    Stored(Source<'a>),
    /// Not stored: its gzip representation (the `gzip`th coding of
    /// `response`, looked up only when it must be inflated), inflated
    /// (format 4 stores the bodies as is only where it stores no gzip),
    /// and kept once checked.
    Inflated { stored: Stored<'a>, response: Response, gzip: usize, kept: &'a Kept },
    /// Where the index points at no bytes the catalog holds (never, in a
    /// catalog that loaded): an error, never bytes.
    Missing,
}

/// A catalog's stored responses: its artifact, and the bodies kept of it.
#[derive(Clone, Copy)]
pub(super) struct Stored<'a> {
    pub(super) artifact: &'a Artifact,
    pub(super) kept: &'a KeptBodies,
}

impl<'a> Stored<'a> {
    /// The `c`th coding of `response` (in the artifact's codings' order),
    /// from the index in place; `None` where the index points at nothing
    /// held (never, in a catalog that loaded: its spans were checked).
    pub(super) fn representation(self, response: Response, c: usize) -> Option<Representation<'a>> {
        let artifact = self.artifact;
        let (span, etag) = artifact.response_spans(response, c)?;
        let (etag_buffer, etag) = artifact.memory_of(etag)?;
        let kept = self.kept.slot(response, c)?;
        let body = if span.is_inflated() {
            let gzip = artifact.metadata().codings.iter().position(|&coding| coding == ContentCoding::Gzip)?;
            Body::Inflated { stored: self, response, gzip, kept }
        } else {
            Body::Stored(self.source(span, kept)?)
        };
        Some(Representation { etag, etag_buffer, len: span.len, body, cache: &self.kept.cache })
    }

    /// Where a stored body is: in the artifact's file (its span lies in
    /// the bodies' part: the index's lengths place it there), in another's
    /// (a build's spool, or its previous artifact's, taken unread), or in
    /// memory.
    fn source(self, body: artifact::Span, kept: &'a Kept) -> Option<Source<'a>> {
        let elsewhere = match self.artifact.body_file() {
            Some(file) => Some((file, body.offset)),
            None => self.artifact.stored_elsewhere(body),
        };
        match elsewhere {
            Some((file, offset)) => Some(Source::File { file, offset, kept }),
            None => self.artifact.slice(body).ok().map(Source::Ready),
        }
    }
}

/// Where a stored body's bytes are.
#[derive(Debug, Clone)]
pub(super) enum Source<'a> {
    /// In memory, known to hash to the ETag.
    Ready(Bytes),
    /// In an artifact file, at `offset` of its data region: read and
    /// checked against the ETag when asked for, then kept in `kept`.
    File { file: &'a artifact::BodyFile, offset: u64, kept: &'a Kept },
}

impl Source<'_> {
    /// The bytes: shared, or kept, or read and checked against `etag`
    /// (never handed out unchecked), then kept if `cache` has room.
    pub(super) fn bytes(&self, etag: &[u8], len: u32, cache: &BodyCache) -> Result<Bytes, ArtifactError> {
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
pub(super) struct Kept(once_cell::race::OnceBox<Bytes>);

impl Kept {
    /// The bytes kept, or those `make` gives (its error as it is: it
    /// counts its own failures), checked against `etag` (counted in
    /// `cache` as a read, or a failure named `failure`: never handed out
    /// unchecked) and kept if `cache` has room.
    pub(super) fn get_or_check(
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
    pub(super) fn len(&self) -> u64 {
        self.0.get().map_or(0, |bytes| bytes.len() as u64)
    }
}

/// One [`Kept`] per body a catalog may read from its file or inflate
/// (each coding of each product, page and site document, by position in
/// the index), and the cache they are counted against: what they keep is
/// given back when the last catalog sharing them is dropped.
#[derive(Debug)]
pub(super) struct KeptBodies {
    pub(super) cache: BodyCache,
    pub(super) slots: Box<[Kept]>,
    pub(super) codings: usize,
    /// Where the pages' slots start, then the site documents'.
    pub(super) pages_at: usize,
    pub(super) documents_at: usize,
}

impl KeptBodies {
    pub(super) fn new(cache: &BodyCache, artifact: &Artifact) -> Self {
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
    pub(super) fn slot(&self, response: Response, c: usize) -> Option<&Kept> {
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

/// The buffer of an empty ETag.
static EMPTY: Bytes = Bytes::new();

impl<'a> Representation<'a> {
    /// What the index points at where it holds nothing (never, in a
    /// catalog that loaded): no ETag, and an error for its body.
    pub(super) fn missing(cache: &'a BodyCache) -> Self {
        Representation { etag: &[], etag_buffer: &EMPTY, len: 0, body: Body::Missing, cache }
    }

    /// The bytes: a cheap clone of shared bytes, or, for a body left in the
    /// artifact file, the bytes read from it and checked against the ETag
    /// (an error when the file was changed in place since it was opened:
    /// answer it with 503, never with the bytes), or, for a body as is
    /// not stored, its gzip body (so checked) inflated to at most its
    /// length and checked against its own ETag.
    pub fn body(&self) -> Result<Bytes, ArtifactError> {
        match &self.body {
            Body::Stored(source) => source.bytes(self.etag, self.len, self.cache),
            &Body::Inflated { stored, response, gzip, kept } => {
                let gzip = || stored.representation(response, gzip).map_or_else(|| Err(missing()), |gzip| gzip.body());
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
pub(super) fn missing() -> ArtifactError {
    ArtifactError::Malformed("a body the index points at is not held".to_owned())
}

/// The body as is of `len` bytes and ETag `etag`: kept in `kept`, or the
/// gzip body `gzip` gives (itself checked against its own ETag, a failure
/// counted by it) inflated to at most `len` bytes and checked against
/// `etag` (never handed out unchecked), then kept if `cache` has room.
pub(super) fn inflated(
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
/// every catalog a process loads in turn ([`OpenOptions::body_cache`](super::OpenOptions::body_cache)) and
/// a reload never holds more than the limit.
#[derive(Debug, Clone)]
pub struct BodyCache(Arc<CacheState>);

#[derive(Debug)]
pub(super) struct CacheState {
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
    /// their ETags (each answered without its bytes), and how many lookups
    /// found a block of a head read from its file that could not be read
    /// or did not match its digest (each answered 503): what a replica
    /// repairs its last good artifact for.
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

    /// Counts `error` as a failure of the cache's bodies (or of a block of
    /// the head naming them).
    pub(super) fn failed(&self, error: ArtifactError) -> ArtifactError {
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

#[cfg(test)]
#[cfg(test)]
mod tests {
    use super::{BodyCache, Kept};
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
}
