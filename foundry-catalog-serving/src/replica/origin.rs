//! An origin: any web server, object store or CDN that answers GET
//! with an ETag. A poll asks `If-None-Match` (an unchanged origin costs a
//! 304) and, with a last good artifact, the first [`PROBE`] bytes
//! (`Range`): a new artifact is pulled as a delta of it
//! (`super::delta_pull`), else whole, into a file of the state folder,
//! not yet checked. A delta that fails for anything but this replica's
//! own disk is asked for again whole at once; an origin without a strong
//! ETag is told unchanged by the summary's content digest.

use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use ureq::ResponseExt;

use crate::artifact::{self, Artifact, ArtifactError};
use crate::files;

use super::download::{CopyError, Counted, Download, PullCounters, copy_at_most, create_download};
use super::failure::{Failure, PullError};
use super::last_good::{LAST_GOOD_ETAG, LastGoodFiles, MAX_ETAG_FILE_LEN};

/// A response of the origin.
pub(crate) type Response = ureq::http::Response<ureq::Body>;

/// How long a start with a last good artifact waits for the origin's
/// answer before it serves that artifact (and keeps polling): far below
/// `--origin-timeout`, the bound of a whole download.
pub(crate) const START_ANSWER: Duration = Duration::from_secs(5);

/// An origin and the state folder its downloads go to.
#[derive(Debug)]
pub(crate) struct Origin {
    pub(crate) url: String,
    pub(crate) state_dir: PathBuf,
    pub(crate) agent: ureq::Agent,
    /// The ETag of the last artifact refused, and why: asked with
    /// `If-None-Match` too, so an origin that still holds it answers 304
    /// and it is not downloaded again at every poll.
    pub(crate) refused: std::sync::Mutex<Option<(String, String)>>,
    pub(crate) counters: PullCounters,
    /// The bounds of a connection and of a whole exchange, to name them
    /// when one is reached.
    pub(crate) connect_timeout: Duration,
    pub(crate) timeout: Duration,
    /// The last good files of its state folder.
    pub(crate) files: LastGoodFiles,
    /// The number of the next download's file.
    pub(crate) downloads: AtomicU64,
}

/// A check of a new artifact's head before its bodies are fetched.
pub(crate) use crate::artifact::CheckSummary as CheckHead;

/// The most of a whole download read to judge its summary before the
/// rest: the summary of a catalog of about 60 million products (its
/// block list, about 1 KiB per 1,000 products, is bounded by the metadata).
pub(crate) const MAX_SUMMARY: u64 = 64 << 20;

/// What the first ranged request asks for: the header, the metadata and,
/// for most catalogs, the signature.
pub(crate) const PROBE: u64 = 64 << 10;

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
            files: LastGoodFiles::new(state_dir),
            downloads: AtomicU64::new(0),
        }
    }

    /// Sends `request` and reads its answer's head; a redirect is
    /// followed (as a CDN's or an object store's are) and logged, with
    /// every place it went through.
    pub(crate) fn exchange(
        &self,
        request: ureq::RequestBuilder<ureq::typestate::WithoutBody>,
    ) -> Result<Response, PullError> {
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
    pub(crate) fn described(&self, error: &ureq::Error) -> String {
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
    pub(crate) fn read_at_most(&self, response: &mut Response, len: u64) -> Result<Vec<u8>, PullError> {
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
    pub(crate) fn copy(&self, reader: impl Read, out: &mut impl Write, limit: u64) -> Result<u64, PullError> {
        copy_at_most(reader, out, limit).map_err(|error| match error {
            CopyError::Read(e) => PullError::unreachable(format!("the download failed: {}", self.read_failure(&e))),
            CopyError::Write(e) => PullError::local(format!("cannot write the download: {e}")),
        })
    }

    /// [`Origin::described`], for an error met while reading an answer's body.
    pub(crate) fn read_failure(&self, error: &io::Error) -> String {
        match error.get_ref().and_then(|inner| inner.downcast_ref::<ureq::Error>()) {
            Some(error) => self.described(error),
            None => error.to_string(),
        }
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
        let whole = self.files.whole_next.swap(false, Ordering::Relaxed);
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
        let still_refused = |reason: &str| PullError {
            failure: Failure::Refused,
            message: format!("the origin still holds the artifact refused before ({reason})"),
        };
        match status {
            304 => match refused {
                Some((refused, reason)) if etag.as_deref() == Some(&refused) || good.is_none() => {
                    Err(still_refused(&reason))
                }
                _ if good.is_some() => Ok(Fetched::Unchanged),
                _ => Err("the origin answered 304 to nothing asked".to_owned().into()),
            },
            // The artifact refused before, by its strong ETag, sent whole or
            // in part (a CDN answers 304 only to a single ETag, Varnish
            // for one): its body is not read.
            200 | 206
                if let Some((_, reason)) = refused
                    .as_ref()
                    .filter(|(refused, _)| !refused.starts_with("W/") && etag.as_deref() == Some(refused)) =>
            {
                Err(still_refused(reason))
            }
            200 => {
                // Without a strong ETag, the last good artifact's digest
                // tells an unchanged origin from its first bytes.
                let same_as = match etag.as_deref() {
                    Some(etag) if !etag.starts_with("W/") => None,
                    _ if have => self.files.last_good_digest(max_len),
                    _ => None,
                };
                self.whole(response, etag, max_len, same_as.as_deref(), check)
            }
            206 => match (delta, etag.filter(|e| !e.starts_with("W/"))) {
                // A last good artifact of format 4 to pull a delta of.
                (true, Some(etag)) => match self.files.last_good_with_head(max_len) {
                    // A delta that fails, for anything but this replica's
                    // own disk or memory, is never held against the
                    // artifact: a range can be corrupted, cut or of another
                    // version on the way. The whole artifact is asked for
                    // at once, and judged by itself.
                    Some(old) => match self.pull_delta(response, etag, old, max_len, check) {
                        Err(error) if error.failure != Failure::Local => self.whole_after_delta(&error, max_len, check),
                        Ok(Fetched::Refused { error, .. }) => self.whole_after_delta(&error, max_len, check),
                        pulled => pulled,
                    },
                    None => self.whole_again(max_len, None, check),
                },
                // No strong ETag to ask If-Range with, nor to tell
                // versions by: the summary's content digest tells an
                // unchanged origin (these first bytes are all a poll
                // costs); a changed one is downloaded whole.
                (true, None) => {
                    let (mut response, digest) = (response, self.files.last_good_digest(max_len));
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
                            PROBE,
                        )?,
                        None => Err(ArtifactError::Malformed("no Content-Range".to_owned())),
                    };
                    match (probed, digest) {
                        (Ok(summary), Some(digest)) if summary.metadata().content_sha256 == digest => {
                            Ok(Fetched::Unchanged)
                        }
                        // A pack list: its artifact's summary is read
                        // through it, the rest only when it changed.
                        (Err(ArtifactError::Packed), digest) => self.whole_again(max_len, digest.as_deref(), check),
                        _ => self.whole_again(max_len, None, check),
                    }
                }
                // No Range asked: the whole artifact, once more.
                (false, _) => self.whole_again(max_len, None, check),
            },
            _ => Err(format!("the origin answered {}", response.status()).into()),
        }
    }

    /// [`Origin::whole_again`], after a delta that failed for `why` (said
    /// at WARN, and counted).
    pub(crate) fn whole_after_delta(
        &self,
        why: &dyn std::fmt::Display,
        max_len: u64,
        check: &CheckHead<'_>,
    ) -> Result<Fetched, PullError> {
        self.counters.deltas_failed.fetch_add(1, Ordering::Relaxed);
        tracing::warn!(origin = %self, "the delta failed ({why}); downloading the artifact whole");
        self.whole_again(max_len, None, check)
    }

    /// The summary of an artifact of `total` bytes whose first bytes are
    /// `prefix` and then `reader`'s, read into `prefix` (at most
    /// `at_most` bytes of it): an artifact error for first bytes that are
    /// not a summary, or one longer than `at_most`; a pull error when the
    /// answer is cut.
    pub(crate) fn summary_from(
        &self,
        mut reader: impl Read,
        prefix: &mut Vec<u8>,
        total: u64,
        at_most: u64,
    ) -> Result<Result<artifact::Summary, ArtifactError>, PullError> {
        loop {
            let needed = match artifact::Summary::len_needed(prefix, total) {
                Ok(needed) if needed <= at_most => needed,
                Ok(needed) => {
                    return Ok(Err(ArtifactError::Malformed(format!(
                        "a summary of {needed} bytes, over the {at_most} a replica reads before judging it"
                    ))));
                }
                Err(error) => return Ok(Err(error)),
            };
            if needed <= prefix.len() as u64 {
                return Ok(artifact::Summary::parse(prefix, total));
            }
            let want = needed - prefix.len() as u64;
            let read = (&mut reader)
                .take(want)
                .read_to_end(prefix)
                .map_err(|e| PullError::unreachable(format!("the download failed: {}", self.read_failure(&e))))?;
            if (read as u64) < want {
                return Err(PullError::unreachable(format!(
                    "the download was cut: {} of the {needed} bytes of its summary",
                    prefix.len()
                )));
            }
        }
    }

    /// The artifact asked for again, whole (no `Range`, no
    /// `If-None-Match`): unchanged when its summary's content digest is
    /// `same_as`.
    pub(crate) fn whole_again(
        &self,
        max_len: u64,
        same_as: Option<&str>,
        check: &CheckHead<'_>,
    ) -> Result<Fetched, PullError> {
        let response = self.exchange(self.agent.get(&self.url))?;
        match response.status().as_u16() {
            200 => {
                let etag = etag_of(&response);
                self.whole(response, etag, max_len, same_as, check)
            }
            _ => Err(format!("the origin answered {}", response.status()).into()),
        }
    }

    /// A 200's body, the whole artifact, into a new file of the state
    /// folder: abandoned at its first bytes when they are not an
    /// artifact's header, or claim more than `max_len` bytes; at its
    /// summary when `check` refuses it; at its head when the head does not
    /// add up to what the header claims of the bodies (CRC-32, lengths,
    /// each block against the block list the summary's signature covers).
    /// So what the bodies take of the disk is what signed bytes say. A
    /// pack list (`super::packs`) is read whole, then the artifact it
    /// names, from its packs, judged alike.
    pub(crate) fn whole(
        &self,
        mut response: Response,
        etag: Option<String>,
        max_len: u64,
        same_as: Option<&str>,
        check: &CheckHead<'_>,
    ) -> Result<Fetched, PullError> {
        let announced = response.body().content_length();
        if let Some(len) = announced.filter(|&len| len > max_len) {
            return Err(over_the_limit(len, max_len).into());
        }
        let download = create_download(&self.state_dir, &self.downloads)
            .map_err(|e| PullError::local(format!("cannot write the download: {e}")))?;
        let download = (Download::whole(download.0, etag), download.1);
        let uri = response.get_uri().clone();
        let reader = response.body_mut().with_config().limit(max_len.saturating_add(1)).reader();
        let mut reader = Counted::new(reader, &self.counters.fetched);
        // The header first: what is not an artifact is not downloaded.
        let prefix = self.first_bytes(&mut reader, artifact::HEADER_LEN as u64)?;
        if !prefix.starts_with(&artifact::stored::PACK_LIST_MAGIC) {
            let reader = io::Cursor::new(prefix).chain(reader);
            return self.whole_from(reader, announced, download, max_len, same_as, check);
        }
        // A pack list: the artifact it names, piece by piece; its length
        // announced (the artifact's header must say it too).
        match self.listed_artifact(prefix, reader, announced, &uri, max_len)? {
            Ok((reader, len)) => self.whole_from(reader, Some(len), download, max_len, same_as, check),
            Err(error) => Ok(Fetched::Refused { etag: download.0.etag.clone(), error }),
        }
    }

    /// At most the first `len` bytes `reader` gives (fewer when it ends).
    pub(crate) fn first_bytes(&self, reader: impl Read, len: u64) -> Result<Vec<u8>, PullError> {
        let mut bytes = Vec::with_capacity(usize::try_from(len).unwrap_or(0).min(1 << 20));
        reader
            .take(len)
            .read_to_end(&mut bytes)
            .map_err(|e| PullError::unreachable(format!("the download failed: {}", self.read_failure(&e))))?;
        Ok(bytes)
    }

    /// [`Origin::whole`] of the artifact's bytes `reader` gives (not a
    /// pack list's), `announced` their length when the origin said it.
    fn whole_from(
        &self,
        mut reader: impl Read,
        announced: Option<u64>,
        (download, mut file): (Download, std::fs::File),
        max_len: u64,
        same_as: Option<&str>,
        check: &CheckHead<'_>,
    ) -> Result<Fetched, PullError> {
        let mut prefix = self.first_bytes(&mut reader, artifact::HEADER_LEN as u64)?;
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
        // The summary first, judged before the rest is fetched (its
        // signature, with verify keys). No strong ETag to tell versions
        // by: its content digest does; the same as the last good one's is
        // an unchanged origin (the rest is not read).
        let summary = match self.summary_from(&mut reader, &mut prefix, len, MAX_SUMMARY)? {
            Ok(summary) if same_as.is_some_and(|digest| summary.metadata().content_sha256 == digest) => {
                return Ok(Fetched::Unchanged);
            }
            Ok(summary) => match check(&summary) {
                Ok(()) => summary,
                Err(error) => return Ok(Fetched::Refused { etag: download.etag.clone(), error }),
            },
            Err(error) => return Ok(Fetched::Refused { etag: download.etag.clone(), error }),
        };
        // The rest of the head (bounded by the metadata), checked before
        // the bodies are downloaded: the index's lengths must add up to
        // the bodies' length the header claims. It is written as it
        // arrives, its CRC-32 computed, and held in memory only once the
        // CRC holds: a head whose claims nothing signed costs its
        // reading, not its claims (as `Artifact::open` reads a file's).
        let local = |e: std::io::Error| PullError::local(format!("cannot write the download: {e}"));
        let head_len = summary.head_len();
        file.write_all(&prefix).map_err(local)?;
        let mut crc = summary.head_crc();
        crc.update(&prefix);
        let mut buffer = vec![0; 1 << 20];
        let mut at = prefix.len() as u64;
        while at < head_len {
            let want = buffer.len().min(usize::try_from(head_len - at).unwrap_or(usize::MAX));
            let read = reader
                .read(&mut buffer[..want])
                .map_err(|e| PullError::unreachable(format!("the download failed: {}", self.read_failure(&e))))?;
            if read == 0 {
                return Err(PullError::unreachable(format!(
                    "the download was cut: {at} of the {head_len} bytes of its head"
                )));
            }
            file.write_all(&buffer[..read]).map_err(local)?;
            crc.update(&buffer[..read]);
            at += read as u64;
        }
        if let Err(error) = summary.check_head_crc(crc) {
            return Ok(Fetched::Refused { etag: download.etag.clone(), error });
        }
        let mut head = Vec::new();
        let size = usize::try_from(head_len).map_err(|_| PullError::local(format!("a head of {head_len} bytes")))?;
        head.try_reserve_exact(size)
            .map_err(|_| PullError::local(format!("cannot take {head_len} bytes of memory")))?;
        head.resize(size, 0);
        std::os::unix::fs::FileExt::read_exact_at(&file, &mut head, 0).map_err(local)?;
        if let Err(error) = Artifact::from_head(head, len).and_then(|head| head.check_blocks()) {
            return Ok(Fetched::Refused { etag: download.etag.clone(), error });
        }
        let rest = len - head_len;
        let copied = self.copy(reader, &mut file, rest.saturating_add(1))?;
        if copied > rest {
            return Err(format!("the origin sent more than the {len} bytes its artifact's header says").into());
        }
        if copied != rest {
            return Err(PullError::unreachable(format!("the download was cut: {} of {len} bytes", copied + head_len)));
        }
        file.sync_all().map_err(|e| PullError::local(format!("cannot write the download: {e}")))?;
        self.counters.count(len, false);
        Ok(Fetched::New(download))
    }

    /// Remembers that the artifact with this ETag was refused, and why:
    /// while the origin holds it, polls are answered 304 and fail with
    /// `reason`.
    pub(crate) fn refuse(&self, etag: Option<&str>, reason: String) {
        if let Some(etag) = etag {
            *self.refused.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some((etag.to_owned(), reason));
        }
    }

    /// Keeps a checked download as the last good artifact
    /// ([`LastGoodFiles::keep`]); no artifact is remembered as refused
    /// from then on.
    pub(crate) fn keep(&self, download: Download, artifact: &Artifact) -> io::Result<()> {
        *self.refused.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = None;
        self.files.keep(download, artifact)
    }

    /// What this origin's pulls have fetched.
    pub(crate) fn counters(&self) -> &PullCounters {
        &self.counters
    }
}

impl std::fmt::Display for Origin {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.url)
    }
}

/// The response's ETag, when it is one a header can carry on.
pub(crate) fn etag_of(response: &Response) -> Option<String> {
    response
        .headers()
        .get("etag")
        .and_then(|v| v.to_str().ok())
        .filter(|v| v.len() <= 1024 && !v.contains(['\r', '\n']))
        .map(str::to_owned)
}

/// `Content-Range: bytes <first>-<last>/<total>`, as numbers.
pub(crate) fn content_range(response: &Response) -> Option<(u64, u64, u64)> {
    let value = response.headers().get("content-range")?.to_str().ok()?;
    let (range, total) = value.strip_prefix("bytes ")?.split_once('/')?;
    let (first, last) = range.split_once('-')?;
    let (first, last, total) = (first.parse().ok()?, last.parse().ok()?, total.parse().ok()?);
    (first <= last && last < total).then_some((first, last, total))
}

/// The error of an artifact over `--max-artifact-bytes`.
pub(crate) fn over_the_limit(len: u64, max_len: u64) -> String {
    format!("the origin's artifact is {len} bytes, over the limit of {max_len}; not downloaded (--max-artifact-bytes)")
}
