//! What a folder build saw of each manifest file (length, modification
//! time, inode and content digest), kept with the artifact in memory and
//! never written: the next build of the same folder in this process (a
//! server's reload) takes a file whose stamp is unchanged as unchanged,
//! without reading it, as `make` and git's index do.

use std::collections::HashMap;
use std::ffi::OsString;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime};

use crate::artifact::SOURCE_LEN;

/// How long before a build a file's modification time must be for its
/// stamp to be trusted by the next build: a file written while (or just
/// before) a build read it may change again within the same timestamp
/// tick (git's "racily clean" entries), so it is read again.
const SETTLED: Duration = Duration::from_secs(1);

/// The stamps of one build of one folder.
#[derive(Debug)]
pub(crate) struct Stamps {
    dir: PathBuf,
    /// When the build began (by this machine's clock; never written).
    started: SystemTime,
    files: HashMap<OsString, Stamp>,
}

/// One file as a build saw it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Stamp {
    len: u64,
    modified: SystemTime,
    inode: u64,
    device: u64,
    /// The SHA-256 of the bytes the build read.
    pub(crate) source: [u8; SOURCE_LEN],
}

impl Stamp {
    /// The stamp of a file with `metadata` whose bytes have digest `source`.
    pub(crate) fn new(metadata: &std::fs::Metadata, source: [u8; SOURCE_LEN]) -> Option<Stamp> {
        Some(Stamp {
            len: metadata.len(),
            modified: metadata.modified().ok()?,
            inode: metadata.ino(),
            device: metadata.dev(),
            source,
        })
    }
}

impl Stamps {
    /// The stamp a build of `dir` recorded for `name`, if the file still
    /// has its length, modification time and inode and was settled when
    /// that build began.
    pub(crate) fn unchanged(&self, dir: &Path, name: &OsString, metadata: &std::fs::Metadata) -> Option<&Stamp> {
        let stamp = self.files.get(name).filter(|_| self.dir == dir)?;
        let now = Stamp::new(metadata, stamp.source)?;
        let settled = stamp.modified.checked_add(SETTLED).is_some_and(|t| t < self.started);
        (now == *stamp && settled).then_some(stamp)
    }
}

/// Collects the stamps of a build as its threads read the files.
pub(crate) struct Recorder {
    dir: PathBuf,
    started: SystemTime,
    files: Mutex<Vec<(OsString, Stamp)>>,
}

impl Recorder {
    pub(crate) fn new(dir: &Path) -> Recorder {
        Recorder { dir: dir.to_owned(), started: SystemTime::now(), files: Mutex::new(Vec::new()) }
    }

    pub(crate) fn record(&self, name: OsString, stamp: Stamp) {
        if let Ok(mut files) = self.files.lock() {
            files.push((name, stamp));
        }
    }

    pub(crate) fn finish(self) -> Stamps {
        let files = self.files.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
        Stamps { dir: self.dir, started: self.started, files: files.into_iter().collect() }
    }
}
