//! A download in the state folder (removed unless kept), and what
//! downloads cost: bytes counted as they arrive, a copy whose failures
//! tell the origin's side from this replica's disk.

use std::fs::File;
use std::io::{self, Read, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use crate::artifact::Artifact;
use crate::catalog::{CatalogErrors, OpenOptions, ResponseCatalog};

/// A downloaded artifact, removed when dropped unless kept.
#[derive(Debug)]
pub(crate) struct Download {
    pub(crate) path: PathBuf,
    pub(crate) etag: Option<String>,
    /// For a delta whose copied bytes come from a last good file this
    /// process checked and that has not changed since: the ranges fetched
    /// (file offsets), whose bodies alone need checking. `None`: every
    /// body is checked.
    pub(crate) fetched: Option<Vec<(u64, u64)>>,
    /// Whether it is a delta (bytes copied from the last good file).
    pub(crate) delta: bool,
    /// For a layered download, the content digest of the base it is
    /// layered over (whose bodies it has as holes).
    pub(crate) base_digest: Option<String>,
    /// For a delta, the artifact written: its head as pulled and checked,
    /// its bodies in the file (and its base's, when layered).
    pub(crate) written: Option<Box<Artifact>>,
}

impl Download {
    pub(crate) fn whole(path: PathBuf, etag: Option<String>) -> Download {
        Download { path, etag, fetched: None, delta: false, base_digest: None, written: None }
    }

    /// Loads it: a delta as written (its head not read back), a whole
    /// download opened from its file.
    pub(crate) fn open(&self, options: &OpenOptions) -> Result<ResponseCatalog, CatalogErrors> {
        match &self.written {
            Some(written) => ResponseCatalog::from_artifact_with(Artifact::clone(written), options).map_err(|error| {
                CatalogErrors::from(crate::catalog::CatalogError::Artifact {
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

/// A new file for a download in `dir`, created exclusively, named by
/// `counter`'s next value. The state folder is this process's alone
/// (`crate::state_dir`): a file already at that name was left by a process
/// that ended mid-pull with the same counter (PID 1 in a container starts
/// at the same place every time), and is removed, never a reason to fail.
pub(crate) fn create_download(dir: &Path, counter: &AtomicU64) -> io::Result<(PathBuf, File)> {
    let path =
        dir.join(format!("{}{}.fcat", super::state_dir::DOWNLOAD_PREFIX, counter.fetch_add(1, Ordering::Relaxed)));
    let create = || std::fs::OpenOptions::new().read(true).write(true).create_new(true).open(&path);
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
pub(crate) struct Counted<'a, R> {
    pub(crate) inner: R,
    pub(crate) counter: &'a AtomicU64,
}

impl<'a, R: Read> Counted<'a, R> {
    pub(crate) fn new(inner: R, counter: &'a AtomicU64) -> Self {
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

/// Why a copy from the origin's answer to a file stopped.
#[derive(Debug)]
pub(crate) enum CopyError {
    /// Reading the answer failed: the origin's side.
    Read(io::Error),
    /// Writing the file failed: this replica's side (a full disk, a
    /// read-only file system).
    Write(io::Error),
}

/// Copies at most `limit` bytes of `reader` to `out`; returns how many.
pub(crate) fn copy_at_most(mut reader: impl Read, out: &mut impl Write, limit: u64) -> Result<u64, CopyError> {
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

/// What pulls have cost: bytes fetched from the origin (failed pulls'
/// too) against the bytes of the new artifacts pulled, how many were
/// pulled as deltas and whole, and how many deltas failed (each then
/// asked for whole).
#[derive(Debug, Default)]
pub struct PullCounters {
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
    pub(crate) fn count(&self, artifact: u64, delta: bool) {
        self.artifacts.fetch_add(artifact, Ordering::Relaxed);
        if delta { &self.deltas } else { &self.wholes }.fetch_add(1, Ordering::Relaxed);
    }

    /// Bytes fetched from the origin's answers, whatever became of them.
    pub fn fetched_bytes(&self) -> u64 {
        self.fetched.load(Ordering::Relaxed)
    }

    /// Bytes of the new artifacts pulled (what fetching each whole would have cost).
    pub fn artifact_bytes(&self) -> u64 {
        self.artifacts.load(Ordering::Relaxed)
    }

    /// New artifacts pulled as deltas of the last good one.
    pub fn deltas(&self) -> u64 {
        self.deltas.load(Ordering::Relaxed)
    }

    /// New artifacts pulled whole.
    pub fn wholes(&self) -> u64 {
        self.wholes.load(Ordering::Relaxed)
    }

    /// Deltas that failed, each then asked for whole.
    pub fn deltas_failed(&self) -> u64 {
        self.deltas_failed.load(Ordering::Relaxed)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A writer whose disk is full.
    struct Full;

    impl Write for Full {
        fn write(&mut self, _: &[u8]) -> io::Result<usize> {
            Err(io::Error::from_raw_os_error(28))
        }

        fn flush(&mut self) -> io::Result<()> {
            Ok(())
        }
    }

    /// A reader whose connection is cut after `0` bytes.
    struct Cut(usize);

    impl Read for Cut {
        fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
            if self.0 == 0 {
                return Err(io::Error::from(io::ErrorKind::ConnectionReset));
            }
            let n = self.0.min(buf.len());
            buf[..n].fill(7);
            self.0 -= n;
            Ok(n)
        }
    }

    #[test]
    fn a_full_disk_is_this_replicas_fault_and_a_cut_is_the_origins() {
        assert!(matches!(copy_at_most(&[1u8; 10][..], &mut Full, 10), Err(CopyError::Write(_))));
        assert!(matches!(copy_at_most(Cut(5), &mut Vec::new(), 10), Err(CopyError::Read(_))));
        let mut out = Vec::new();
        assert_eq!(copy_at_most(&[1u8; 10][..], &mut out, 4).ok(), Some(4), "at most the limit");
        assert_eq!(out, [1; 4]);
    }

    #[test]
    fn a_name_left_by_an_earlier_process_never_blocks_a_download() {
        let dir = std::env::temp_dir().join(format!("foundry-create-download-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("made");
        // What a process with the same counter left (PID 1 in a container starts at 0 every time).
        for n in 0..200 {
            std::fs::write(dir.join(format!(".download-{n}.fcat")), b"partial").expect("written");
        }
        let counter = AtomicU64::new(0);
        for n in 0..200 {
            let (path, mut file) = create_download(&dir, &counter).expect("a download's file");
            assert_eq!(path, dir.join(format!(".download-{n}.fcat")));
            file.write_all(b"new").expect("written");
            assert_eq!(std::fs::read(&path).expect("read"), b"new", "created afresh");
        }
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn bytes_are_counted_as_they_arrive_whatever_becomes_of_them() {
        let counter = AtomicU64::new(0);
        let failed = copy_at_most(Counted::new(Cut(100_000), &counter), &mut Vec::new(), 1 << 20);
        assert!(matches!(failed, Err(CopyError::Read(_))));
        assert_eq!(counter.load(Ordering::Relaxed), 100_000, "a failed pull's bytes count");
        let counter = AtomicU64::new(0);
        let failed = copy_at_most(Counted::new(Cut(5), &counter), &mut Full, 10);
        assert!(matches!(failed, Err(CopyError::Write(_))));
        assert_eq!(counter.load(Ordering::Relaxed), 5);
    }
}
