//! What a folder build saw of each manifest file (length, modification
//! and change times, inode and content digest), kept with the artifact in
//! memory, and written beside the artifact file by `foundry-catalog build`
//! (`<artifact>.stamps`, never inside it: the artifact's bytes stay the
//! same on every machine): the next build of the same folder (a server's
//! reload, or `build --previous`) takes a file whose stamp is unchanged as
//! unchanged, without reading it, as git's index does. The change time
//! (ctime) is the kernel's: no program can set it back, so an edit that
//! keeps the length and restores the modification time (`cp -p`,
//! `touch -r`, `rsync -t --inplace`), a `chmod` or a file replaced by
//! another still changes the stamp.

use std::ffi::OsString;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use crate::artifact::SOURCE_LEN;

mod file;

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
    /// The folder's manifests by name, sorted (as a build lists them),
    /// and beside them each one's stamp, where the build recorded one: the
    /// build's own list, kept, where a map of names would copy it (and
    /// take 240 MB more at 1,000,000 manifests).
    names: Vec<OsString>,
    stamps: Vec<OnceLock<Stamp>>,
    /// The artifact file the build wrote, as it was once written (its
    /// source digest unused): read from a stamps file, never made here.
    pub(crate) artifact: Option<Stamp>,
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

    /// The stamp of the entry `name` of `folder` (the folder `dir`, open
    /// where the system can stat a name in an open folder: one name
    /// looked up, not every folder of the path), as [`Stamp::new`] makes
    /// it of the entry's metadata; a link is not followed. Its source
    /// digest zeros.
    pub(crate) fn of_entry(folder: &Folder, dir: &Path, name: &OsString) -> Option<Stamp> {
        #[cfg(target_os = "linux")]
        if let Some(fd) = &folder.0 {
            use rustix::fs::{AtFlags, StatxFlags};
            let stat = rustix::fs::statx(fd, name, AtFlags::SYMLINK_NOFOLLOW, StatxFlags::BASIC_STATS).ok()?;
            let time = |t: rustix::fs::StatxTimestamp| {
                let whole = Duration::from_secs(t.tv_sec.unsigned_abs());
                let seconds = if t.tv_sec < 0 { UNIX_EPOCH.checked_sub(whole) } else { UNIX_EPOCH.checked_add(whole) }?;
                seconds.checked_add(Duration::from_nanos(u64::from(t.tv_nsec)))
            };
            return Some(Stamp {
                len: stat.stx_size,
                modified: time(stat.stx_mtime)?,
                changed: (stat.stx_ctime.tv_sec, i64::from(stat.stx_ctime.tv_nsec)),
                inode: stat.stx_ino,
                device: rustix::fs::makedev(stat.stx_dev_major, stat.stx_dev_minor),
                source: [0; SOURCE_LEN],
            });
        }
        let _ = folder;
        Stamp::new(&std::fs::symlink_metadata(dir.join(name)).ok()?, [0; SOURCE_LEN])
    }
}

/// A folder of manifests, open to stat its entries by name
/// ([`Stamp::of_entry`]) where the system can; else its path is used.
pub(crate) struct Folder(#[cfg(target_os = "linux")] Option<rustix::fd::OwnedFd>);

impl Folder {
    /// `dir`, opened to look up its entries (a folder that does not open
    /// is looked up by path).
    pub(crate) fn open(dir: &Path) -> Folder {
        #[cfg(target_os = "linux")]
        {
            use rustix::fs::{Mode, OFlags};
            let flags = OFlags::PATH | OFlags::DIRECTORY | OFlags::CLOEXEC;
            Folder(rustix::fs::open(dir, flags, Mode::empty()).ok())
        }
        #[cfg(not(target_os = "linux"))]
        {
            let _ = dir;
            Folder()
        }
    }
}

impl Stamps {
    /// The stamp a build of `dir` recorded for `name`, as recorded (what
    /// [`Stamps::unchanged`] found it to be earlier in this build);
    /// looked for first at `near`, the name's place in this build's sorted
    /// list (its place in these when the folder holds the same files).
    pub(crate) fn recorded(&self, dir: &Path, name: &OsString, near: usize) -> Option<&Stamp> {
        if self.dir != dir {
            return None;
        }
        let at = match self.names.get(near) {
            Some(there) if there == name => near,
            _ => self.names.binary_search(name).ok()?,
        };
        self.stamps.get(at)?.get()
    }

    /// Each recorded stamp under its name, in name order.
    fn files(&self) -> impl Iterator<Item = (&OsString, &Stamp)> {
        self.names.iter().zip(&self.stamps).filter_map(|(name, stamp)| Some((name, stamp.get()?)))
    }

    /// The stamp a build of `dir` recorded for `name` (looked for first
    /// at `near`, as [`Stamps::recorded`] does), if the file still has its
    /// length, times and inode (`now`: its stamp now, digest aside) and
    /// had settled when that build began.
    pub(crate) fn unchanged(&self, dir: &Path, name: &OsString, near: usize, now: Stamp) -> Option<&Stamp> {
        let stamp = self.recorded(dir, name, near)?;
        let now = Stamp { source: stamp.source, ..now };
        let changed = u64::try_from(stamp.changed.0).ok().and_then(|s| UNIX_EPOCH.checked_add(Duration::from_secs(s)));
        let settled = changed.and_then(|t| t.checked_add(SETTLED)).is_some_and(|t| t < self.started);
        (now == *stamp && settled).then_some(stamp)
    }

    /// Whether the artifact file opened with `metadata` is the one the
    /// build that wrote these stamps wrote, unchanged since: the same
    /// length, modification and change times, inode and device. The
    /// change time is the kernel's: a write into the file, a truncation,
    /// a `chmod` or another file renamed into its place changes it.
    pub(crate) fn artifact_unchanged(&self, metadata: &std::fs::Metadata) -> bool {
        self.artifact.is_some_and(|stamp| Stamp::new(metadata, [0; SOURCE_LEN]) == Some(stamp))
    }

    /// Whether `artifact` was opened from the file the build that wrote
    /// these stamps wrote, unchanged since ([`Stamps::artifact_unchanged`]
    /// of the file it reads): that build made its head and checked or
    /// made its bodies.
    pub(crate) fn wrote(&self, artifact: &crate::artifact::Artifact) -> bool {
        let opened = artifact.body_file().and_then(|file| file.metadata().ok());
        opened.is_some_and(|metadata| self.artifact_unchanged(&metadata))
    }
}

/// Collects the stamps of a build as its threads read the files, each
/// in its name's place in the build's sorted list of names (not a copy
/// of the name: a million of them would be 60 MB), which
/// [`Recorder::finish`] is given.
pub(crate) struct Recorder {
    dir: PathBuf,
    started: SystemTime,
    stamps: Vec<OnceLock<Stamp>>,
}

impl Recorder {
    /// A recorder for a build of `files` manifests of `dir`.
    pub(crate) fn new(dir: &Path, files: usize) -> Recorder {
        Recorder {
            dir: dir.to_owned(),
            started: SystemTime::now(),
            stamps: (0..files).map(|_| OnceLock::new()).collect(),
        }
    }

    /// Records the stamp of the `at`th of the build's names (the first
    /// recorded is kept).
    pub(crate) fn record(&self, at: usize, stamp: Stamp) {
        if let Some(place) = self.stamps.get(at) {
            let _ = place.set(stamp);
        }
    }

    /// The stamps recorded, under their names: `names`, the build's
    /// sorted list, which the places recorded index.
    pub(crate) fn finish(self, names: Vec<OsString>) -> Stamps {
        Stamps { dir: self.dir, started: self.started, names, stamps: self.stamps, artifact: None }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file's stamp is trusted only if the file had settled (its change
    /// time `SETTLED` or more before) when the build that recorded it
    /// began, however long ago that build was: a file changed just before
    /// a build read it may change again within its timestamp's tick.
    #[test]
    fn a_stamp_is_trusted_only_if_the_file_had_settled_when_its_build_began() {
        let dir = std::env::temp_dir().join(format!("foundry-stamps-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("folder");
        let file = dir.join("a.json");
        std::fs::write(&file, b"{}").expect("write");
        let metadata = std::fs::metadata(&file).expect("metadata");
        let stamp = Stamp::new(&metadata, [7; SOURCE_LEN]).expect("a stamp");
        let changed = UNIX_EPOCH + Duration::new(stamp.changed.0.unsigned_abs(), 0);
        let name = OsString::from("a.json");
        let built = |started: SystemTime| Stamps {
            dir: dir.clone(),
            started,
            names: vec![name.clone()],
            stamps: vec![OnceLock::from(stamp)],
            artifact: None,
        };
        let now = Stamp::of_entry(&Folder::open(&dir), &dir, &name).expect("a stamp");
        // Begun long after the change: trusted.
        let settled = built(changed + SETTLED + Duration::from_secs(60));
        assert_eq!(settled.unchanged(&dir, &name, 0, now), Some(&stamp));
        // Begun within SETTLED of the change: read again, today and ever.
        let racy = built(changed + SETTLED / 2);
        assert_eq!(racy.unchanged(&dir, &name, 0, now), None);
        // Another folder's stamps are not this folder's.
        assert_eq!(settled.unchanged(&dir.join("other"), &name, 0, now), None);
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// A folder's entry stamped by name in the open folder is stamped as
    /// its metadata stamps it (the file a build read, stamped from the
    /// open file, is found unchanged by the next build), in the folder open
    /// or not; a link is stamped as itself, not as its target; a missing
    /// name has no stamp.
    #[test]
    fn an_entry_stamped_in_its_open_folder_is_stamped_as_its_metadata_stamp_it() {
        let dir = std::env::temp_dir().join(format!("foundry-stamps-entry-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("folder");
        let file = dir.join("a.json");
        std::fs::write(&file, b"{\"a\": 1}").expect("write");
        // Modified long before its change, to the nanosecond.
        let modified = UNIX_EPOCH + Duration::new(1_600_000_000, 123_456_789);
        std::fs::File::options().write(true).open(&file).and_then(|f| f.set_modified(modified)).expect("set");
        std::os::unix::fs::symlink(&file, dir.join("link.json")).expect("a link");
        let opened = std::fs::File::open(&file).expect("open").metadata().expect("metadata");
        let link = std::fs::symlink_metadata(dir.join("link.json")).expect("metadata");
        for folder in [Folder::open(&dir), Folder::open(&dir.join("missing"))] {
            let stamp = |name: &str| Stamp::of_entry(&folder, &dir, &OsString::from(name));
            assert_eq!(stamp("a.json"), Stamp::new(&opened, [0; SOURCE_LEN]));
            assert_eq!(stamp("a.json").map(|stamp| stamp.modified), Some(modified));
            assert_eq!(stamp("link.json"), Stamp::new(&link, [0; SOURCE_LEN]));
            assert_ne!(stamp("link.json"), stamp("a.json"));
            assert_eq!(stamp("none.json"), None);
        }
        let _ = std::fs::remove_dir_all(&dir);
    }
}
