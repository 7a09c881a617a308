//! What a folder build saw of each manifest file (length, modification
//! and change times, inode and content digest), kept with the artifact in
//! memory and never written: the next build of the same folder in this
//! process (a server's reload) takes a file whose stamp is unchanged as
//! unchanged, without reading it, as git's index does. The change time
//! (ctime) is the kernel's: no program can set it back, so an edit that
//! keeps the length and restores the modification time (`cp -p`,
//! `touch -r`, `rsync -t --inplace`), a `chmod` or a file replaced by
//! another still changes the stamp.

use std::collections::HashMap;
use std::ffi::OsString;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::artifact::SOURCE_LEN;

/// How long before a build a file's change time must be for its stamp to
/// be trusted by the next build: a file written while (or just before) a
/// build read it may change again within the same timestamp tick (git's
/// "racily clean" entries), so it is read again. Two seconds cover the
/// coarsest file times in use (FAT's).
const SETTLED: Duration = Duration::from_secs(2);

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
    /// The change time: seconds and nanoseconds since 1970.
    changed: (i64, i64),
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
            changed: (metadata.ctime(), metadata.ctime_nsec()),
            inode: metadata.ino(),
            device: metadata.dev(),
            source,
        })
    }
}

impl Stamps {
    /// The stamp a build of `dir` recorded for `name`, if the file still
    /// has its length, times and inode and had settled when that build
    /// began.
    pub(crate) fn unchanged(&self, dir: &Path, name: &OsString, metadata: &std::fs::Metadata) -> Option<&Stamp> {
        let stamp = self.files.get(name).filter(|_| self.dir == dir)?;
        let now = Stamp::new(metadata, stamp.source)?;
        let changed = u64::try_from(stamp.changed.0).ok().map(|s| UNIX_EPOCH + Duration::from_secs(s));
        let settled = changed.and_then(|t| t.checked_add(SETTLED)).is_some_and(|t| t < self.started);
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
