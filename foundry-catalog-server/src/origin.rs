//! A catalog pulled from an origin: any web server, object store or CDN
//! that answers GET with an ETag. The artifact is downloaded into the
//! state folder, checked (size, signature, sequence, expiry) and only then
//! kept as the last good one, with its ETag; a download that fails or is
//! cut changes nothing. Polls ask `If-None-Match`, so an unchanged origin
//! costs one 304.
//!
//! The last good artifact is a whole file ([`LAST_GOOD`]), or that file
//! as the base of a layered one: a delta pulled over it is written as a
//! sparse file whose bodies the base holds are holes, read from the base
//! ([`delta::open_layered`]), so a one-product edit writes that
//! product's bytes and the head, not a copy of every body. The delta is
//! named after its base's content digest (`last-good.<16 hex>.delta`): a
//! delta left beside another base (a crash between the two renames of a
//! whole download) is never read. Once a delta would hold more than
//! [`LAYERED_MAX_SHARE`] of its artifact, the pull writes the whole file
//! instead, which becomes the base.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use foundry_catalog_serving::artifact::{self, Artifact, ArtifactError};
use foundry_catalog_serving::catalog::{CatalogErrors, OpenOptions, ResponseCatalog};
use foundry_catalog_serving::{delta, files};

/// A response of the origin.
type Response = ureq::http::Response<ureq::Body>;

/// The last good artifact, in the state folder.
const LAST_GOOD: &str = "last-good.fcat";
/// Its ETag at the origin.
const LAST_GOOD_ETAG: &str = "last-good.etag";
/// A last good artifact that could not be served any more (below the
/// highest sequence served), kept for whoever wants to look at it.
const SET_ASIDE: &str = "set-aside.fcat";
/// A delta over [`LAST_GOOD`] holds at most this share of its artifact's
/// bytes (its head, and the bodies its base does not have): past it, a
/// pull writes the whole file, which becomes the base. An eighth bounds
/// the disk a layered state takes to 1.125 times the artifact, and what a
/// pull writes to an eighth of it, while edits that touch a few products
/// each write only those.
pub(crate) const LAYERED_MAX_SHARE: (u64, u64) = (1, 8);

/// A delta's name: these around the first [`DELTA_DIGITS`] hex digits of
/// its base's content digest.
const DELTA_NAME: (&str, &str) = ("last-good.", ".delta");
const DELTA_DIGITS: usize = 16;

/// Whether `digits` are what a delta's name carries of a digest.
fn names_a_base(digits: &str) -> bool {
    digits.len() == DELTA_DIGITS && digits.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The name of a delta over a base whose content digest is `digest`;
/// `None` for a digest that is not hex.
fn delta_name(digest: &str) -> Option<String> {
    let digits = digest.get(..DELTA_DIGITS).filter(|digits| names_a_base(digits))?;
    Some(format!("{}{digits}{}", DELTA_NAME.0, DELTA_NAME.1))
}

/// Whether `name` is a delta's name ([`delta_name`]).
fn is_delta_name(name: &str) -> bool {
    name.strip_prefix(DELTA_NAME.0).and_then(|rest| rest.strip_suffix(DELTA_NAME.1)).is_some_and(names_a_base)
}

/// The last good artifact as a pull reads it, layered over its base
/// ([`LAST_GOOD`]) when a delta is kept, and its base's content digest
/// (what names a delta over it).
#[derive(Debug, Clone)]
struct LastGood {
    artifact: Artifact,
    base_digest: String,
}

/// The last good artifact as this process kept it: the stamps of its
/// files then (the base, and the delta over it if any), and the artifact
/// as loaded, every body checked.
#[derive(Debug)]
struct Kept {
    stamps: (FileStamp, Option<FileStamp>),
    last_good: LastGood,
}
/// Why a load gave no catalog, as `/metrics` counts it
/// (`foundry_catalog_load_failures_total{reason=…}`) and the log says it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Failure {
    /// No answer: no connection, a timeout, a connection cut mid-answer.
    Unreachable = 0,
    /// An answer that is not an artifact's: a status other than 200, 206
    /// or 304, a wrong range, a length over the limit.
    OriginError = 1,
    /// An artifact (or a catalog) that fails its checks.
    Refused = 2,
    /// What this replica could not do: write its state folder, find the memory.
    Local = 3,
    /// A bug: the load panicked.
    Internal = 4,
}

impl Failure {
    /// Every one, in the order of their values.
    pub(crate) const ALL: [Failure; 5] =
        [Failure::Unreachable, Failure::OriginError, Failure::Refused, Failure::Local, Failure::Internal];

    /// The `reason` label of `/metrics`.
    pub(crate) fn label(self) -> &'static str {
        match self {
            Failure::Unreachable => "unreachable",
            Failure::OriginError => "origin_error",
            Failure::Refused => "refused",
            Failure::Local => "local",
            Failure::Internal => "internal",
        }
    }

    /// The words a log line and an error start with.
    pub(crate) fn words(self) -> &'static str {
        match self {
            Failure::Unreachable => "the origin is unreachable",
            Failure::OriginError => "the origin's answer is not an artifact's",
            Failure::Refused => "the artifact is refused",
            Failure::Local => "this replica cannot keep what it pulls (its state folder, or memory)",
            Failure::Internal => "the load failed (a bug)",
        }
    }
}

/// Whether `error` is what an artifact's own signed head says of it (its
/// signature, its key, its sequence, its expiry): the only refusals a
/// replica remembers under the artifact's ETag. Anything else (bytes that
/// do not add up, a body that does not match its ETag) may have happened
/// on the way, and is judged again at the next pull.
pub(crate) fn is_verdict(error: &ArtifactError) -> bool {
    matches!(
        error,
        ArtifactError::Unsigned { .. }
            | ArtifactError::WrongKey { .. }
            | ArtifactError::BadSignature
            | ArtifactError::Rollback { .. }
            | ArtifactError::NoSequence { .. }
            | ArtifactError::SequenceReused { .. }
            | ArtifactError::Expired { .. }
    )
}

/// Why a pull from the origin gave no artifact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PullError {
    pub(crate) failure: Failure,
    pub(crate) message: String,
}

impl PullError {
    fn unreachable(message: String) -> PullError {
        PullError { failure: Failure::Unreachable, message }
    }

    fn local(message: String) -> PullError {
        PullError { failure: Failure::Local, message }
    }
}

/// A message of the origin's answer: [`Failure::OriginError`].
impl From<String> for PullError {
    fn from(message: String) -> PullError {
        PullError { failure: Failure::OriginError, message }
    }
}

impl std::fmt::Display for PullError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.failure.words(), self.message)
    }
}

/// How long a start with a last good artifact waits for the origin's
/// answer before it serves that artifact (and keeps polling): far below
/// `--origin-timeout`, the bound of a whole download.
pub(crate) const START_ANSWER: Duration = Duration::from_secs(5);
/// The most [`LAST_GOOD_ETAG`] may hold: an origin's entity tag.
const MAX_ETAG_FILE_LEN: u64 = 1 << 10;

/// An origin and the state folder its downloads go to.
#[derive(Debug)]
pub(crate) struct Origin {
    url: String,
    state_dir: PathBuf,
    agent: ureq::Agent,
    /// The ETag of the last artifact refused, and why: asked with
    /// `If-None-Match` too, so an origin that still holds it answers 304
    /// and it is not downloaded again at every poll.
    refused: std::sync::Mutex<Option<(String, String)>>,
    counters: PullCounters,
    /// The bounds of a connection and of a whole exchange, to name them
    /// when one is reached.
    connect_timeout: Duration,
    timeout: Duration,
    /// The last good artifact as this process kept it, every body
    /// checked: while its files keep their stamps, a delta's bytes copied
    /// or read from them are not checked again, and its head is not read
    /// again (the artifact kept is the one served: it costs no memory).
    checked: std::sync::Mutex<Option<Kept>>,
    /// Whether the next pull is a whole download (the last good file was
    /// found damaged).
    whole_next: std::sync::atomic::AtomicBool,
    /// The number of the next download's file.
    downloads: AtomicU64,
}

/// What identifies a file's contents without reading them: its length,
/// modification and change times, inode and device (the change time is
/// the kernel's: any write, truncation or rename sets it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct FileStamp {
    len: u64,
    modified: (i64, i64),
    changed: (i64, i64),
    inode: u64,
    device: u64,
}

impl FileStamp {
    fn of(path: &Path) -> Option<FileStamp> {
        use std::os::unix::fs::MetadataExt;
        let metadata = std::fs::symlink_metadata(path).ok().filter(std::fs::Metadata::is_file)?;
        Some(FileStamp {
            len: metadata.len(),
            modified: (metadata.mtime(), metadata.mtime_nsec()),
            changed: (metadata.ctime(), metadata.ctime_nsec()),
            inode: metadata.ino(),
            device: metadata.dev(),
        })
    }
}

/// What the pulls of new artifacts have cost: bytes fetched from the
/// origin against the bytes of the artifacts pulled, and how many were
/// pulled as deltas and whole.
#[derive(Debug, Default)]
pub(crate) struct PullCounters {
    pub(crate) fetched: AtomicU64,
    pub(crate) artifacts: AtomicU64,
    pub(crate) deltas: AtomicU64,
    pub(crate) wholes: AtomicU64,
    /// Deltas that failed (then asked for whole).
    pub(crate) deltas_failed: AtomicU64,
}

impl PullCounters {
    /// A new artifact of `artifact` bytes pulled (its bytes fetched are
    /// counted as they arrive, [`Counted`], failed pulls' too).
    fn count(&self, artifact: u64, delta: bool) {
        self.artifacts.fetch_add(artifact, Ordering::Relaxed);
        if delta { &self.deltas } else { &self.wholes }.fetch_add(1, Ordering::Relaxed);
    }
}

/// A check of a new artifact's head before its bodies are fetched.
pub(crate) type CheckHead<'a> = dyn Fn(&Artifact) -> Result<(), ArtifactError> + 'a;

/// What the first ranged request asks for: the header, the metadata and,
/// for most catalogs, the signature.
const PROBE: u64 = 64 << 10;

/// A ranged request's answer.
enum Ranged {
    /// The bytes asked for.
    Bytes(Vec<u8>),
    /// The whole artifact (a 200).
    Whole(Box<Response>),
}

/// What one poll of the origin found.
#[derive(Debug)]
pub(crate) enum Fetched {
    /// 304: the artifact held (being served, or the last good one) is current.
    Unchanged,
    /// A new artifact, downloaded into a file of the state folder (not
    /// yet checked), with its ETag.
    New(Download),
    /// A new artifact refused from its first bytes or its head (not an
    /// artifact, a head that fails its checks or its signature): nothing
    /// more of it was fetched.
    Refused {
        /// Its ETag at the origin.
        etag: Option<String>,
        /// Why.
        error: ArtifactError,
    },
}

/// A downloaded artifact, removed when dropped unless kept.
#[derive(Debug)]
pub(crate) struct Download {
    path: PathBuf,
    etag: Option<String>,
    /// For a delta whose copied bytes come from a last good file this
    /// process checked and that has not changed since: the ranges fetched
    /// (file offsets), whose bodies alone need checking. `None`: every
    /// body is checked.
    fetched: Option<Vec<(u64, u64)>>,
    /// Whether it is a delta (bytes copied from the last good file).
    delta: bool,
    /// For a layered download, the content digest of the base it is
    /// layered over (whose bodies it has as holes).
    base_digest: Option<String>,
    /// For a delta, the artifact written: its head as pulled and checked,
    /// its bodies in the file (and its base's, when layered).
    written: Option<Box<Artifact>>,
}

impl Download {
    fn whole(path: PathBuf, etag: Option<String>) -> Download {
        Download { path, etag, fetched: None, delta: false, base_digest: None, written: None }
    }

    /// Loads it: a delta as written (its head not read back), a whole
    /// download opened from its file.
    pub(crate) fn open(&self, options: &OpenOptions) -> Result<ResponseCatalog, CatalogErrors> {
        match &self.written {
            Some(written) => ResponseCatalog::from_artifact_with(Artifact::clone(written), options).map_err(|error| {
                CatalogErrors::from(foundry_catalog_serving::catalog::CatalogError::Artifact {
                    file: self.path.display().to_string(),
                    error,
                })
            }),
            None => ResponseCatalog::open_with(&self.path, options),
        }
    }

    /// The ranges whose bodies must be checked ([`Download::fetched`]);
    /// `None`: all of them.
    pub(crate) fn fetched(&self) -> Option<&[(u64, u64)]> {
        self.fetched.as_deref()
    }

    /// Whether bytes of it were copied from the last good file.
    pub(crate) fn is_delta(&self) -> bool {
        self.delta
    }

    /// Its ETag at the origin.
    pub(crate) fn etag(&self) -> Option<&str> {
        self.etag.as_deref()
    }
}

impl Drop for Download {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

impl Origin {
    /// An origin at `url` (`http://` or `https://`), downloading into
    /// `state_dir` with `timeout` for a whole download.
    pub(crate) fn new(url: &str, state_dir: &Path, connect_timeout: Duration, timeout: Duration) -> Origin {
        let agent = ureq::Agent::config_builder()
            .http_status_as_error(false)
            .timeout_connect(Some(connect_timeout))
            .timeout_global(Some(timeout))
            .save_redirect_history(true)
            .user_agent(concat!("foundry-catalog-server/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Origin {
            url: url.to_owned(),
            state_dir: state_dir.to_owned(),
            agent,
            refused: Default::default(),
            counters: PullCounters::default(),
            connect_timeout,
            timeout,
            checked: std::sync::Mutex::new(None),
            whole_next: std::sync::atomic::AtomicBool::new(false),
            downloads: AtomicU64::new(0),
        }
    }

    /// Whether the last good files are as this process kept them, every
    /// body checked (files it did not keep, or changed since, are not).
    fn last_good_checked(&self, delta: Option<&Path>) -> bool {
        let kept = self.checked.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        kept.as_ref().is_some_and(|kept| self.stamps_hold(kept, delta))
    }

    /// Whether the last good files are the ones `kept` names: the base,
    /// and `delta` (the delta kept over it, if any), with the stamps they
    /// had when kept.
    fn stamps_hold(&self, kept: &Kept, delta: Option<&Path>) -> bool {
        let stamps = (FileStamp::of(&self.state_dir.join(LAST_GOOD)), delta.and_then(FileStamp::of));
        stamps == (Some(kept.stamps.0), kept.stamps.1)
    }

    /// The delta kept over a base whose content digest is `digest`, if any
    /// (a regular file, never a link).
    fn delta_over(&self, digest: &str) -> Option<PathBuf> {
        let path = self.state_dir.join(delta_name(digest)?);
        std::fs::symlink_metadata(&path).ok().filter(std::fs::Metadata::is_file).map(|_| path)
    }

    /// Opens the last good artifact and loads it ([`Origin::last_good`]
    /// says whether there is one): layered over its base when a delta is
    /// kept for it, else the whole file.
    pub(crate) fn open_last_good(&self, options: &OpenOptions) -> Result<ResponseCatalog, CatalogErrors> {
        match self.base_and_delta(options.max_len) {
            Some((base, Some(delta))) => ResponseCatalog::open_layered_with(&delta, &base, options),
            _ => ResponseCatalog::open_with(&self.state_dir.join(LAST_GOOD), options),
        }
    }

    /// The head of [`LAST_GOOD`] when it is of format 4 (judged from its
    /// header: an older one is not read), and the delta kept over it, if any.
    fn base_and_delta(&self, max_len: u64) -> Option<(Artifact, Option<PathBuf>)> {
        let base = Artifact::open_head(&self.last_good()?, max_len).ok()??;
        let delta = self.delta_over(&base.metadata().content_sha256);
        Some((base, delta))
    }

    /// The last good file may hold bodies that do not match their ETags
    /// (one failed its check while served, or a delta copied from it
    /// failed its check): it is not copied from, and the next pull
    /// downloads the artifact whole, even when the origin's is unchanged.
    pub(crate) fn distrust_last_good(&self) {
        *self.checked.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = None;
        self.whole_next.store(true, Ordering::Relaxed);
    }

    /// Moves the last good artifact aside, as [`SET_ASIDE`] (replacing
    /// one set aside before), with the deltas over it and its ETag, so the
    /// next pull downloads the origin's artifact whole; returns where.
    pub(crate) fn set_aside_last_good(&self) -> io::Result<PathBuf> {
        let aside = self.state_dir.join(SET_ASIDE);
        std::fs::rename(self.state_dir.join(LAST_GOOD), &aside)?;
        for entry in std::fs::read_dir(&self.state_dir)? {
            let entry = entry?;
            if entry.file_name().to_str().is_some_and(|name| is_delta_name(name) || name == LAST_GOOD_ETAG) {
                std::fs::remove_file(entry.path())?;
            }
        }
        *self.checked.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = None;
        Ok(aside)
    }

    /// [`Origin::distrust_last_good`] for a body of it that failed its
    /// check while served; `true` when a repair was not already asked for
    /// (the next pull asks for it).
    pub(crate) fn repair_once(&self) -> bool {
        if self.whole_next.load(Ordering::Relaxed) {
            return false;
        }
        self.distrust_last_good();
        true
    }

    /// Sends `request` and reads its answer's head; a redirect is
    /// followed (as a CDN's or an object store's are) and logged, with
    /// every place it went through.
    fn exchange(&self, request: ureq::RequestBuilder<ureq::typestate::WithoutBody>) -> Result<Response, PullError> {
        use ureq::ResponseExt;
        let response = request
            .call()
            .map_err(|e| PullError::unreachable(format!("cannot reach the origin: {}", self.described(&e))))?;
        if let Some(history) = response.get_redirect_history().filter(|history| history.len() > 1) {
            let chain: Vec<String> = history.iter().map(ToString::to_string).collect();
            tracing::warn!(
                origin = %self.url,
                redirects = %chain.join(" -> "),
                "the origin redirected, and the redirect was followed: point --catalog at {} to save the round trip",
                response.get_uri()
            );
        }
        Ok(response)
    }

    /// What went wrong in an exchange with the origin, a timeout named by
    /// the flag that set it.
    fn described(&self, error: &ureq::Error) -> String {
        let span = |d: Duration| format!("{d:?}");
        match error {
            ureq::Error::Timeout(ureq::Timeout::Connect | ureq::Timeout::Resolve) => format!(
                "no connection within {} (a tenth of --origin-timeout, at most 10 s)",
                span(self.connect_timeout)
            ),
            ureq::Error::Timeout(ureq::Timeout::RecvResponse) => format!(
                "no answer within {} (a start's first attempt, with a last good artifact to serve)",
                span(START_ANSWER.min(self.timeout))
            ),
            ureq::Error::Timeout(_) => {
                format!("no whole answer within {} (--origin-timeout)", span(self.timeout))
            }
            other => other.to_string(),
        }
    }

    /// At most `len` bytes of a response's body (more is an error).
    fn read_at_most(&self, response: &mut Response, len: u64) -> Result<Vec<u8>, PullError> {
        let mut bytes = Vec::new();
        let reader = response.body_mut().with_config().limit(len.saturating_add(1)).reader();
        let read = Counted::new(reader, &self.counters.fetched).take(len.saturating_add(1)).read_to_end(&mut bytes);
        read.map_err(|e| PullError::unreachable(format!("the download failed: {}", self.read_failure(&e))))?;
        if bytes.len() as u64 > len {
            return Err(format!("the origin sent more than the {len} bytes asked for").into());
        }
        Ok(bytes)
    }

    /// [`copy_at_most`], its failures told apart: the origin's answer
    /// (unreachable) from this replica's disk (local).
    fn copy(&self, reader: impl Read, out: &mut impl Write, limit: u64) -> Result<u64, PullError> {
        copy_at_most(reader, out, limit).map_err(|error| match error {
            CopyError::Read(e) => PullError::unreachable(format!("the download failed: {}", self.read_failure(&e))),
            CopyError::Write(e) => PullError::local(format!("cannot write the download: {e}")),
        })
    }

    /// [`Origin::described`], for an error met while reading an answer's body.
    fn read_failure(&self, error: &io::Error) -> String {
        match error.get_ref().and_then(|inner| inner.downcast_ref::<ureq::Error>()) {
            Some(error) => self.described(error),
            None => error.to_string(),
        }
    }

    /// The last good artifact kept in the state folder, if any.
    pub(crate) fn last_good(&self) -> Option<PathBuf> {
        let path = self.state_dir.join(LAST_GOOD);
        path.is_file().then_some(path)
    }

    /// Asks the origin for the artifact: `If-None-Match` with the last
    /// good one's ETag when `have` (an artifact is held that the ETag
    /// names), and with the ETag of the last one refused. When `have`, the
    /// request asks for the first bytes only (`Range`), and a new artifact
    /// is pulled as a delta of a last good artifact of format 4
    /// ([`Origin::pull_delta`]), or asked again whole without one; an
    /// origin that ignores `Range` (a 200) sends it whole. A body over `max_len` bytes (by its
    /// `Content-Length`, its `Content-Range` or its header, or as it
    /// arrives), one whose first bytes are not an artifact's header, a
    /// status other than 200, 206 or 304, a cut connection or a timeout is
    /// an error, and leaves no file behind; so is a 304 naming the artifact
    /// refused before (it is not downloaded again). `check` judges a new
    /// artifact's head (its signature) before its bodies are fetched.
    /// With `answer_within`, an answer's head that does not come within it
    /// is an error too (a start with a last good artifact to serve meanwhile).
    pub(crate) fn fetch(
        &self,
        max_len: u64,
        have: bool,
        answer_within: Option<Duration>,
        check: &CheckHead<'_>,
    ) -> Result<Fetched, PullError> {
        let mut request = self.agent.get(&self.url);
        if let Some(within) = answer_within {
            request = request.config().timeout_recv_response(Some(within)).build();
        }
        // A last good file not to be trusted (found damaged, or a delta of
        // it failed): the artifact whole, even an unchanged one (a repair).
        let whole = self.whole_next.swap(false, Ordering::Relaxed);
        // Written by this server: never read through a link, never waited
        // on, at most an entity tag's length (any other is not used).
        let good = (have && !whole)
            .then(|| files::read_bounded(&self.state_dir.join(LAST_GOOD_ETAG), MAX_ETAG_FILE_LEN, false));
        let good = good.and_then(Result::ok).and_then(|(bytes, _)| String::from_utf8(bytes).ok());
        let good = good.as_deref().map(str::trim).filter(|e| !e.is_empty());
        let refused = self.refused.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
        let known: Vec<&str> = good.into_iter().chain(refused.as_ref().map(|(etag, _)| etag.as_str())).collect();
        if !known.is_empty() {
            request = request.header("If-None-Match", known.join(", "));
        }
        // Its head is read only once the origin has a new artifact (a
        // 206): a poll answered 304 reads nothing of it.
        let delta = have && !whole;
        if delta {
            request = request.header("Range", format!("bytes=0-{}", PROBE - 1));
        }
        let response = self.exchange(request)?;
        let status = response.status().as_u16();
        let etag = etag_of(&response);
        match status {
            304 => match refused {
                Some((refused, reason)) if etag.as_deref() == Some(&refused) || good.is_none() => Err(PullError {
                    failure: Failure::Refused,
                    message: format!("the origin still holds the artifact refused before ({reason})"),
                }),
                _ if good.is_some() => Ok(Fetched::Unchanged),
                _ => Err("the origin answered 304 to nothing asked".to_owned().into()),
            },
            200 => {
                // Without a strong ETag, the last good artifact's digest
                // tells an unchanged origin from its first bytes.
                let same_as = match etag.as_deref() {
                    Some(etag) if !etag.starts_with("W/") => None,
                    _ if have => self.last_good_digest(max_len),
                    _ => None,
                };
                self.whole(response, etag, max_len, same_as.as_deref())
            }
            206 => match (delta, etag.filter(|e| !e.starts_with("W/"))) {
                // A last good artifact of format 4 to pull a delta of.
                (true, Some(etag)) => match self.last_good_with_head(max_len) {
                    // A delta that fails, for anything but this replica's
                    // own disk or memory, is never held against the
                    // artifact: a range can be corrupted, cut or of another
                    // version on the way. The whole artifact is asked for
                    // at once, and judged by itself.
                    Some(old) => match self.pull_delta(response, etag, old, max_len, check) {
                        Err(error) if error.failure != Failure::Local => self.whole_after_delta(&error, max_len),
                        Ok(Fetched::Refused { error, .. }) => self.whole_after_delta(&error, max_len),
                        pulled => pulled,
                    },
                    None => self.whole_again(max_len),
                },
                // No strong ETag to ask If-Range with, nor to tell
                // versions by: the summary's content digest tells an
                // unchanged origin (these first bytes are all a poll
                // costs); a changed one is downloaded whole.
                (true, None) => {
                    let (mut response, digest) = (response, self.last_good_digest(max_len));
                    let total = content_range(&response).filter(|&(first, ..)| first == 0).map(|(.., total)| total);
                    let mut head = Vec::new();
                    let probed = match total {
                        Some(total) => self.summary_from(
                            Counted::new(
                                response.body_mut().with_config().limit(PROBE + 1).reader(),
                                &self.counters.fetched,
                            ),
                            &mut head,
                            total,
                        )?,
                        None => None,
                    };
                    match (probed, digest) {
                        (Some(summary), Some(digest)) if summary.metadata().content_sha256 == digest => {
                            Ok(Fetched::Unchanged)
                        }
                        _ => self.whole_again(max_len),
                    }
                }
                // No Range asked: the whole artifact, once more.
                (false, _) => self.whole_again(max_len),
            },
            _ => Err(format!("the origin answered {}", response.status()).into()),
        }
    }

    /// The last good artifact's head, layered over its base when a delta
    /// is kept, when it is of format 4 (judged from its header: an older
    /// one is not read).
    ///
    /// The one this process kept is taken as it is held while its files
    /// are unchanged: nothing is read.
    fn last_good_with_head(&self, max_len: u64) -> Option<LastGood> {
        {
            let kept = self.checked.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if let Some(kept) = kept.as_ref() {
                let delta = self.delta_over(&kept.last_good.base_digest);
                if self.stamps_hold(kept, delta.as_deref()) {
                    return Some(kept.last_good.clone());
                }
            }
        }
        let (base, delta) = self.base_and_delta(max_len)?;
        let artifact = match delta {
            Some(delta) => foundry_catalog_serving::delta::open_layered(&delta, &base, max_len).ok()?,
            None => base.clone(),
        };
        Some(LastGood { artifact, base_digest: base.metadata().content_sha256.clone() })
    }

    /// [`Origin::whole_again`], after a delta that failed for `why` (said
    /// at WARN, and counted).
    fn whole_after_delta(&self, why: &dyn std::fmt::Display, max_len: u64) -> Result<Fetched, PullError> {
        self.counters.deltas_failed.fetch_add(1, Ordering::Relaxed);
        tracing::warn!(origin = %self, "the delta failed ({why}); downloading the artifact whole");
        self.whole_again(max_len)
    }

    /// The content digest of the last good artifact, if there is one.
    fn last_good_digest(&self, max_len: u64) -> Option<String> {
        self.last_good_with_head(max_len).map(|last_good| last_good.artifact.metadata().content_sha256.clone())
    }

    /// The summary of an artifact of `total` bytes whose first bytes are
    /// `prefix` and then `reader`'s, read into `prefix` up to
    /// [`PROBE`] bytes; `None` when it does not parse within them (a
    /// version without one, or a long block list).
    fn summary_from(
        &self,
        mut reader: impl Read,
        prefix: &mut Vec<u8>,
        total: u64,
    ) -> Result<Option<artifact::Summary>, PullError> {
        loop {
            let needed = match artifact::Summary::len_needed(prefix, total) {
                Ok(Some(needed)) if needed <= PROBE => needed,
                _ => return Ok(None),
            };
            if needed <= prefix.len() as u64 {
                return Ok(artifact::Summary::parse(prefix, total).ok());
            }
            let want = needed - prefix.len() as u64;
            let read = (&mut reader)
                .take(want)
                .read_to_end(prefix)
                .map_err(|e| PullError::unreachable(format!("the download failed: {}", self.read_failure(&e))))?;
            if (read as u64) < want {
                return Ok(None);
            }
        }
    }

    /// The artifact asked for again, whole (no `Range`, no `If-None-Match`).
    fn whole_again(&self, max_len: u64) -> Result<Fetched, PullError> {
        let response = self.exchange(self.agent.get(&self.url))?;
        match response.status().as_u16() {
            200 => {
                let etag = etag_of(&response);
                self.whole(response, etag, max_len, None)
            }
            _ => Err(format!("the origin answered {}", response.status()).into()),
        }
    }

    /// A 200's body, the whole artifact, into a new file of the state
    /// folder: abandoned at its first bytes when they are not an
    /// artifact's header, or claim more than `max_len` bytes.
    fn whole(
        &self,
        mut response: Response,
        etag: Option<String>,
        max_len: u64,
        same_as: Option<&str>,
    ) -> Result<Fetched, PullError> {
        let announced = response.body().content_length();
        if let Some(len) = announced.filter(|&len| len > max_len) {
            return Err(over_the_limit(len, max_len).into());
        }
        let (path, mut file) = create_download(&self.state_dir, &self.downloads)
            .map_err(|e| PullError::local(format!("cannot write the download: {e}")))?;
        let download = Download::whole(path, etag);
        let reader = response.body_mut().with_config().limit(max_len.saturating_add(1)).reader();
        let mut reader = Counted::new(reader, &self.counters.fetched);
        // The header first: what is not an artifact is not downloaded.
        let mut prefix = Vec::with_capacity(artifact::HEADER_LEN);
        (&mut reader)
            .take(artifact::HEADER_LEN as u64)
            .read_to_end(&mut prefix)
            .map_err(|e| PullError::unreachable(format!("the download failed: {}", self.read_failure(&e))))?;
        let len = match artifact::file_len_of(&prefix) {
            Ok(len) => len,
            Err(error) => return Ok(Fetched::Refused { etag: download.etag.clone(), error }),
        };
        if len > max_len {
            return Err(over_the_limit(len, max_len).into());
        }
        if let Some(announced) = announced.filter(|&announced| announced != len) {
            return Err(format!("the origin's artifact is {announced} bytes, and its header says {len}").into());
        }
        // No strong ETag to tell versions by: the summary's content digest
        // does, within the first PROBE bytes; the same as the last good
        // one's is an unchanged origin (the rest is not read).
        if let Some(digest) = same_as
            && let Some(summary) = self.summary_from(&mut reader, &mut prefix, len)?
            && summary.metadata().content_sha256 == digest
        {
            return Ok(Fetched::Unchanged);
        }
        file.write_all(&prefix).map_err(|e| PullError::local(format!("cannot write the download: {e}")))?;
        let rest = len - prefix.len() as u64;
        let copied = self.copy(reader, &mut file, rest.saturating_add(1))?;
        if copied > rest {
            return Err(format!("the origin sent more than the {len} bytes its artifact's header says").into());
        }
        if copied != rest {
            return Err(PullError::unreachable(format!(
                "the download was cut: {} of {len} bytes",
                copied + prefix.len() as u64
            )));
        }
        file.sync_all().map_err(|e| PullError::local(format!("cannot write the download: {e}")))?;
        self.counters.count(len, false);
        Ok(Fetched::New(download))
    }

    /// A new artifact pulled as a delta, from a 206 to its first bytes:
    /// its head fetched (a range or two more) and checked, then written as
    /// [`delta::Plan`] says: each product's and document's bytes copied
    /// from the last good file when their ETags are the same, the rest
    /// fetched in at most [`delta::Plan::MAX_RANGES`] ranges, each asked
    /// `If-Range` the new artifact's ETag. An origin that answers a range
    /// with the whole artifact (it changed since, or ignores `Range`)
    /// gives a whole download.
    fn pull_delta(
        &self,
        mut first: Response,
        etag: String,
        last_good: LastGood,
        max_len: u64,
        check: &CheckHead<'_>,
    ) -> Result<Fetched, PullError> {
        let old = &last_good.artifact;
        let Some((0, _, total)) = content_range(&first) else {
            return Err("the origin answered 206 without a range of the artifact".to_owned().into());
        };
        if total > max_len {
            return Err(over_the_limit(total, max_len).into());
        }
        let mut head = self.read_at_most(&mut first, PROBE)?;
        if head.len() as u64 == total {
            // The first range was the whole artifact.
            return self.write_whole(&head, etag);
        }
        let mut fetched = head.len() as u64;
        let refused = |error| Ok(Fetched::Refused { etag: Some(etag.clone()), error });
        let summary_len = loop {
            let needed = match artifact::Summary::len_needed(&head, total) {
                Ok(needed) => needed,
                Err(error) => return refused(error),
            };
            match needed {
                Some(needed) if needed > head.len() as u64 => {
                    let more = match self.range_or_whole(&etag, head.len() as u64, needed, total, max_len)? {
                        Ok(more) => more,
                        Err(whole) => return Ok(whole),
                    };
                    fetched += more.len() as u64;
                    head.extend_from_slice(&more);
                }
                Some(needed) => break needed,
                // An artifact of an older format: whole.
                None => return self.whole_again(max_len),
            }
        };
        // What the first ranges brought past the summary, used before anything is fetched again.
        let probed = head.split_off(summary_len as usize);
        let summary = match artifact::Summary::parse(&head, total) {
            Ok(summary) => summary,
            Err(error) => return refused(error),
        };
        // The rest of the head: the blocks the last good artifact holds
        // copied from it, the others fetched; then checked whole.
        let head_plan = delta::Plan::head(&summary, old, delta::Plan::MAX_RANGES);
        head.try_reserve_exact((summary.head_len() - summary.len()) as usize)
            .map_err(|_| PullError::local(format!("cannot take memory for a head of {} bytes", summary.head_len())))?;
        for run in head_plan.runs() {
            match run.source {
                delta::Source::Old { at } => {
                    if !old.head_bytes_into(at, run.len, &mut head) {
                        return Err(PullError::local(
                            "the last good artifact's head is not what its index says".to_owned(),
                        ));
                    }
                }
                delta::Source::Origin if run.at + run.len <= summary_len + probed.len() as u64 => {
                    let from = (run.at - summary_len) as usize;
                    head.extend_from_slice(&probed[from..from + run.len as usize]);
                }
                delta::Source::Origin => {
                    let more = match self.range_or_whole(&etag, run.at, run.at + run.len, total, max_len)? {
                        Ok(more) => more,
                        Err(whole) => return Ok(whole),
                    };
                    fetched += more.len() as u64;
                    head.extend_from_slice(&more);
                }
            }
        }
        let head = bytes::Bytes::from(head);
        let new = match Artifact::from_head(head.clone(), total).and_then(|new| check(&new).map(|()| new)) {
            Ok(new) => new,
            Err(error) => return refused(error),
        };
        let plan = delta::Plan::new(&new, old, delta::Plan::MAX_RANGES);
        // Layered over the base when that writes at most a share of the
        // artifact (the head, what is fetched, and what is copied from a
        // delta kept over the base); the whole file otherwise.
        let base_digest = &last_good.base_digest;
        let kept_delta = self.delta_over(base_digest);
        let copied: u64 = plan
            .runs()
            .iter()
            .filter_map(|run| match run.source {
                delta::Source::Old { at } => Some(old.bytes_to_copy(at, run.len, Some(old))),
                delta::Source::Origin => None,
            })
            .sum::<io::Result<u64>>()
            .map_err(|e| PullError::local(format!("cannot copy from the last good artifact: {e}")))?;
        let written = head.len() as u64 + plan.fetched() + copied;
        let (share, of) = LAYERED_MAX_SHARE;
        let layered = delta_name(base_digest).is_some() && written.saturating_mul(of) <= total.saturating_mul(share);
        let (path, mut file) = create_download(&self.state_dir, &self.downloads)
            .map_err(|e| PullError::local(format!("cannot write the download: {e}")))?;
        // Bytes copied from a last good file this process checked, unchanged
        // since, need no second check: only what is fetched does.
        let trusted = self.last_good_checked(kept_delta.as_deref());
        let fetched_ranges = trusted.then(|| {
            plan.runs()
                .iter()
                .filter(|run| run.source == delta::Source::Origin)
                .map(|run| (run.at, run.at + run.len))
                .collect()
        });
        let holes_for = layered.then_some(old);
        let base_digest = layered.then(|| base_digest.clone());
        let mut download = Download {
            path,
            etag: Some(etag.clone()),
            fetched: fetched_ranges,
            delta: true,
            base_digest,
            written: None,
        };
        let write_error = |e: io::Error| PullError::local(format!("cannot write the download: {e}"));
        file.write_all(&head).map_err(write_error)?;
        for run in plan.runs() {
            match run.source {
                delta::Source::Old { at } => {
                    old.copy_range(at, run.len, &mut file, holes_for)
                        .map_err(|e| PullError::local(format!("cannot copy from the last good artifact: {e}")))?;
                }
                delta::Source::Origin => {
                    if let Some(response) = self.range_to(&etag, run.at, run.at + run.len, total, &mut file)? {
                        drop(download);
                        let etag = etag_of(&response);
                        return self.whole(*response, etag, max_len, None);
                    }
                    fetched += run.len;
                }
            }
        }
        // A hole at the end is the file's length.
        file.set_len(total).and_then(|()| file.sync_all()).map_err(write_error)?;
        drop(file);
        // Its head as pulled and checked, its bodies where they were written.
        match delta::written(new, &download.path, old, &plan, layered) {
            Ok(written) => download.written = Some(Box::new(written)),
            Err(error) => return Err(PullError::local(format!("cannot open the download: {error}"))),
        }
        tracing::info!(
            origin = %self,
            fetched,
            artifact = total,
            written = if layered { written } else { total },
            layered,
            ranges = head_plan.ranges() + plan.ranges(),
            "pulled the origin's artifact as a delta of the last good one"
        );
        self.counters.count(total, true);
        Ok(Fetched::New(download))
    }

    /// [`Origin::range`]'s bytes, or the whole artifact it answered with
    /// instead, downloaded ([`Origin::whole`]).
    fn range_or_whole(
        &self,
        etag: &str,
        from: u64,
        to: u64,
        total: u64,
        max_len: u64,
    ) -> Result<Result<Vec<u8>, Fetched>, PullError> {
        match self.range(etag, from, to, total)? {
            Ranged::Bytes(bytes) => Ok(Ok(bytes)),
            Ranged::Whole(response) => {
                let etag = etag_of(&response);
                self.whole(*response, etag, max_len, None).map(Err)
            }
        }
    }

    /// A whole artifact's bytes, in hand, into a new file of the state folder.
    fn write_whole(&self, bytes: &[u8], etag: String) -> Result<Fetched, PullError> {
        let (path, mut file) = create_download(&self.state_dir, &self.downloads)
            .map_err(|e| PullError::local(format!("cannot write the download: {e}")))?;
        let download = Download::whole(path, Some(etag));
        file.write_all(bytes)
            .and_then(|()| file.sync_all())
            .map_err(|e| PullError::local(format!("cannot write the download: {e}")))?;
        self.counters.count(bytes.len() as u64, false);
        Ok(Fetched::New(download))
    }

    /// Bytes `from..to` of the artifact whose ETag is `etag`, asked with
    /// `If-Range`: a 206 of exactly that range, or the whole artifact (a
    /// 200: it changed since, or the origin ignores `Range`).
    fn range(&self, etag: &str, from: u64, to: u64, total: u64) -> Result<Ranged, PullError> {
        let mut bytes = Vec::new();
        let ranged = self.range_to(etag, from, to, total, &mut bytes)?;
        Ok(ranged.map_or(Ranged::Bytes(bytes), Ranged::Whole))
    }

    /// [`Origin::range`], its bytes written to `out` as they arrive (a
    /// range of bodies can be most of the artifact: it is never held in
    /// memory); `Some` with the whole artifact's response instead.
    fn range_to(
        &self,
        etag: &str,
        from: u64,
        to: u64,
        total: u64,
        out: &mut impl Write,
    ) -> Result<Option<Box<Response>>, PullError> {
        let request =
            self.agent.get(&self.url).header("Range", format!("bytes={from}-{}", to - 1)).header("If-Range", etag);
        let mut response = self.exchange(request)?;
        match response.status().as_u16() {
            206 if content_range(&response) == Some((from, to - 1, total)) => {
                let len = to - from;
                let reader = response.body_mut().with_config().limit(len.saturating_add(1)).reader();
                let reader = Counted::new(reader, &self.counters.fetched);
                let copied = self.copy(reader, out, len)?;
                if copied != len {
                    return Err(PullError::unreachable(format!(
                        "the download was cut: {copied} of {len} bytes of a range"
                    )));
                }
                Ok(None)
            }
            206 => Err(format!("the origin answered bytes {from}-{} with another range", to - 1).into()),
            200 => Ok(Some(Box::new(response))),
            _ => Err(format!("the origin answered {}", response.status()).into()),
        }
    }

    /// What this origin's pulls have fetched.
    pub(crate) fn counters(&self) -> &PullCounters {
        &self.counters
    }

    /// Remembers that the artifact with this ETag was refused, and why:
    /// while the origin holds it, polls are answered 304 and fail with
    /// `reason`.
    pub(crate) fn refuse(&self, etag: Option<&str>, reason: String) {
        if let Some(etag) = etag {
            *self.refused.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some((etag.to_owned(), reason));
        }
    }

    /// Keeps a checked download as the last good artifact, with its ETag:
    /// a layered one as the delta over its base, a whole one as the base,
    /// every delta over the base it replaces then removed.
    pub(crate) fn keep(&self, download: Download, artifact: &Artifact) -> io::Result<()> {
        *self.refused.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = None;
        let etag_file = self.state_dir.join(LAST_GOOD_ETAG);
        // The old ETag goes first: an ETag never names another file.
        match std::fs::remove_file(&etag_file) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        let base = self.state_dir.join(LAST_GOOD);
        let delta = match &download.base_digest {
            Some(over) => {
                let name = delta_name(over)
                    .ok_or_else(|| io::Error::other("a layered download over a base without a digest"))?;
                Some(self.state_dir.join(name))
            }
            None => None,
        };
        std::fs::rename(&download.path, delta.as_ref().unwrap_or(&base))?;
        // Deltas over another base are never read: removed.
        for entry in std::fs::read_dir(&self.state_dir)? {
            let entry = entry?;
            let stale = entry.file_name().to_str().is_some_and(is_delta_name)
                && delta.as_ref().is_none_or(|delta| entry.path() != *delta);
            if stale {
                std::fs::remove_file(entry.path())?;
            }
        }
        // Every body of it was checked (or copied from a file that was).
        let base_digest = download.base_digest.clone().unwrap_or_else(|| artifact.metadata().content_sha256.clone());
        let last_good = LastGood { artifact: artifact.clone(), base_digest };
        // Kept as held when its bodies are read from its files (format 4).
        *self.checked.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = FileStamp::of(&base)
            .filter(|_| artifact.bodies_in_files())
            .map(|base| Kept { stamps: (base, delta.as_deref().and_then(FileStamp::of)), last_good });
        if let Some(etag) = &download.etag {
            foundry_catalog_serving::files::replace(&etag_file, |out| out.write_all(etag.as_bytes()))?;
        }
        Ok(())
    }
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.url)
    }
}

/// A new file for a download in `dir`, created exclusively, named by
/// `counter`'s next value. The state folder is this process's alone
/// (`crate::state_dir`): a file already at that name was left by a process
/// that ended mid-pull with the same counter (PID 1 in a container starts
/// at the same place every time), and is removed, never a reason to fail.
fn create_download(dir: &Path, counter: &AtomicU64) -> io::Result<(PathBuf, File)> {
    let path =
        dir.join(format!("{}{}.fcat", crate::state_dir::DOWNLOAD_PREFIX, counter.fetch_add(1, Ordering::Relaxed)));
    let create = || std::fs::OpenOptions::new().write(true).create_new(true).open(&path);
    match create() {
        Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
            std::fs::remove_file(&path)?;
            create().map(|file| (path.clone(), file))
        }
        other => other.map(|file| (path.clone(), file)),
    }
}

/// A reader of an origin's answer that counts every byte it reads, so that
/// `/metrics` says what was fetched whatever became of it.
struct Counted<'a, R> {
    inner: R,
    counter: &'a AtomicU64,
}

impl<'a, R: Read> Counted<'a, R> {
    fn new(inner: R, counter: &'a AtomicU64) -> Self {
        Counted { inner, counter }
    }
}

impl<R: Read> Read for Counted<'_, R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let read = self.inner.read(buf)?;
        self.counter.fetch_add(read as u64, Ordering::Relaxed);
        Ok(read)
    }
}

/// The response's ETag, when it is one a header can carry on.
fn etag_of(response: &Response) -> Option<String> {
    response
        .headers()
        .get("etag")
        .and_then(|v| v.to_str().ok())
        .filter(|v| v.len() <= 1024 && !v.contains(['\r', '\n']))
        .map(str::to_owned)
}

/// `Content-Range: bytes <first>-<last>/<total>`, as numbers.
fn content_range(response: &Response) -> Option<(u64, u64, u64)> {
    let value = response.headers().get("content-range")?.to_str().ok()?;
    let (range, total) = value.strip_prefix("bytes ")?.split_once('/')?;
    let (first, last) = range.split_once('-')?;
    let (first, last, total) = (first.parse().ok()?, last.parse().ok()?, total.parse().ok()?);
    (first <= last && last < total).then_some((first, last, total))
}

/// The error of an artifact over `--max-artifact-bytes`.
fn over_the_limit(len: u64, max_len: u64) -> String {
    format!("the origin's artifact is {len} bytes, over the limit of {max_len}; not downloaded (--max-artifact-bytes)")
}

/// Why a copy from the origin's answer to a file stopped.
#[derive(Debug)]
enum CopyError {
    /// Reading the answer failed: the origin's side.
    Read(io::Error),
    /// Writing the file failed: this replica's side (a full disk, a
    /// read-only file system).
    Write(io::Error),
}

/// Copies at most `limit` bytes of `reader` to `out`; returns how many.
fn copy_at_most(mut reader: impl Read, out: &mut impl Write, limit: u64) -> Result<u64, CopyError> {
    let mut buffer = vec![0; 64 << 10];
    let mut copied = 0;
    while copied < limit {
        let want = usize::try_from(limit - copied).map_or(buffer.len(), |left| left.min(buffer.len()));
        let read = match reader.read(&mut buffer[..want]) {
            Ok(0) => break,
            Ok(read) => read,
            Err(e) if e.kind() == io::ErrorKind::Interrupted => continue,
            Err(e) => return Err(CopyError::Read(e)),
        };
        out.write_all(&buffer[..read]).map_err(CopyError::Write)?;
        copied += read as u64;
    }
    Ok(copied)
}
