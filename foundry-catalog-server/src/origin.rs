//! A catalog pulled from an origin: any web server, object store or CDN
//! that answers GET with an ETag. The artifact is downloaded into the
//! state folder, checked (size, signature, sequence, expiry) and only then
//! kept as the last good one, with its ETag; a download that fails or is
//! cut changes nothing. Polls ask `If-None-Match`, so an unchanged origin
//! costs one 304.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::time::Duration;

/// The last good artifact, in the state folder.
const LAST_GOOD: &str = "last-good.fcat";
/// Its ETag at the origin.
const LAST_GOOD_ETAG: &str = "last-good.etag";

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
}

/// What one poll of the origin found.
#[derive(Debug)]
pub(crate) enum Fetched {
    /// 304: the artifact held (being served, or the last good one) is current.
    Unchanged,
    /// A new artifact, downloaded whole into a file of the state folder
    /// (not yet checked), with its ETag.
    New(Download),
}

/// A downloaded artifact, removed when dropped unless kept.
#[derive(Debug)]
pub(crate) struct Download {
    path: PathBuf,
    etag: Option<String>,
}

impl Download {
    pub(crate) fn path(&self) -> &Path {
        &self.path
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
            .user_agent(concat!("foundry-catalog-server/", env!("CARGO_PKG_VERSION")))
            .build()
            .into();
        Origin { url: url.to_owned(), state_dir: state_dir.to_owned(), agent, refused: Default::default() }
    }

    /// The last good artifact kept in the state folder, if any.
    pub(crate) fn last_good(&self) -> Option<PathBuf> {
        let path = self.state_dir.join(LAST_GOOD);
        path.is_file().then_some(path)
    }

    /// Asks the origin for the artifact: `If-None-Match` with the last
    /// good one's ETag when `have` (an artifact is held that the ETag
    /// names), and with the ETag of the last one refused. A body over
    /// `max_len` bytes (by its `Content-Length`, or as it arrives), a
    /// status other than 200 or 304, a cut connection or a timeout is an
    /// error, and leaves no file behind; so is a 304 naming the artifact
    /// refused before (it is not downloaded again).
    pub(crate) fn fetch(&self, max_len: u64, have: bool) -> Result<Fetched, String> {
        let mut request = self.agent.get(&self.url);
        let good = std::fs::read_to_string(self.state_dir.join(LAST_GOOD_ETAG)).ok().filter(|_| have);
        let good = good.as_deref().map(str::trim).filter(|e| !e.is_empty());
        let refused = self.refused.lock().unwrap_or_else(std::sync::PoisonError::into_inner).clone();
        let known: Vec<&str> = good.into_iter().chain(refused.as_ref().map(|(etag, _)| etag.as_str())).collect();
        if !known.is_empty() {
            request = request.header("If-None-Match", known.join(", "));
        }
        let mut response = request.call().map_err(|e| format!("cannot reach the origin: {e}"))?;
        let status = response.status().as_u16();
        let etag = response
            .headers()
            .get("etag")
            .and_then(|v| v.to_str().ok())
            .filter(|v| v.len() <= 1024 && !v.contains(['\r', '\n']))
            .map(str::to_owned);
        match status {
            304 => {
                return match refused {
                    Some((refused, reason)) if etag.as_deref() == Some(&refused) || good.is_none() => {
                        Err(format!("the origin still holds the artifact refused before ({reason})"))
                    }
                    _ if good.is_some() => Ok(Fetched::Unchanged),
                    _ => Err("the origin answered 304 to nothing asked".to_owned()),
                };
            }
            200 => {}
            _ => return Err(format!("the origin answered {}", response.status())),
        }
        let announced = response.body().content_length();
        if let Some(len) = announced.filter(|&len| len > max_len) {
            return Err(format!(
                "the origin's artifact is {len} bytes, over the limit of {max_len}; not downloaded (--max-artifact-bytes)"
            ));
        }
        let (path, mut file) =
            create_download(&self.state_dir).map_err(|e| format!("cannot write the download: {e}"))?;
        let download = Download { path, etag };
        let reader = response.body_mut().with_config().limit(max_len.saturating_add(1)).reader();
        let copied = copy_at_most(reader, &mut file, max_len).map_err(|e| format!("the download failed: {e}"))?;
        if let Some(len) = announced.filter(|&len| len != copied) {
            return Err(format!("the download was cut: {copied} of {len} bytes"));
        }
        file.sync_all().map_err(|e| format!("cannot write the download: {e}"))?;
        Ok(Fetched::New(download))
    }

    /// Remembers that `download` was refused, and why: while the origin
    /// holds it, polls are answered 304 and fail with `reason`.
    pub(crate) fn refuse(&self, download: &Download, reason: String) {
        if let Some(etag) = &download.etag {
            *self.refused.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = Some((etag.clone(), reason));
        }
    }

    /// Keeps a checked download as the last good artifact, with its ETag.
    pub(crate) fn keep(&self, download: Download) -> io::Result<()> {
        *self.refused.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = None;
        let etag_file = self.state_dir.join(LAST_GOOD_ETAG);
        // The old ETag goes first: an ETag never names another file.
        match std::fs::remove_file(&etag_file) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        std::fs::rename(&download.path, self.state_dir.join(LAST_GOOD))?;
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

/// A new file for a download in `dir`, created exclusively.
fn create_download(dir: &Path) -> io::Result<(PathBuf, File)> {
    let mut attempt = 0u32;
    loop {
        let path = dir.join(format!(".download-{}-{attempt}.fcat", std::process::id()));
        match std::fs::OpenOptions::new().write(true).create_new(true).open(&path) {
            Ok(file) => return Ok((path, file)),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempt < 100 => attempt += 1,
            Err(e) => return Err(e),
        }
    }
}

/// Copies `reader` to `out`; more than `max_len` bytes is an error.
fn copy_at_most(reader: impl Read, out: &mut File, max_len: u64) -> io::Result<u64> {
    let copied = io::copy(&mut reader.take(max_len.saturating_add(1)), out)?;
    if copied > max_len {
        return Err(io::Error::other(format!("more than {max_len} bytes (--max-artifact-bytes)")));
    }
    Ok(copied)
}
