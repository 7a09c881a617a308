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

use std::collections::HashMap;
use std::ffi::OsString;
use std::fmt::Write as _;
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

/// Appends `bytes` in lowercase hex to `text`, through `buffer`.
fn push_hex(text: &mut String, bytes: &[u8], buffer: &mut Vec<u8>) {
    buffer.clear();
    buffer.resize(bytes.len() * 2, 0);
    if hex::encode_to_slice(bytes, buffer).is_ok() {
        // Hex digits are ASCII.
        text.push_str(std::str::from_utf8(buffer).unwrap_or_default());
    }
}

/// The stamps of one build of one folder.
#[derive(Debug)]
pub(crate) struct Stamps {
    dir: PathBuf,
    /// When the build began (by this machine's clock; never written).
    started: SystemTime,
    files: HashMap<OsString, Stamp>,
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
}

impl Stamps {
    /// The stamp a build of `dir` recorded for `name`, as recorded (what
    /// [`Stamps::unchanged`] found it to be earlier in this build).
    pub(crate) fn recorded(&self, dir: &Path, name: &OsString) -> Option<&Stamp> {
        self.files.get(name).filter(|_| self.dir == dir)
    }

    /// The stamp a build of `dir` recorded for `name`, if the file still
    /// has its length, times and inode and had settled when that build
    /// began.
    pub(crate) fn unchanged(&self, dir: &Path, name: &OsString, metadata: &std::fs::Metadata) -> Option<&Stamp> {
        let stamp = self.recorded(dir, name)?;
        let now = Stamp::new(metadata, stamp.source)?;
        let changed = u64::try_from(stamp.changed.0).ok().and_then(|s| UNIX_EPOCH.checked_add(Duration::from_secs(s)));
        let settled = changed.and_then(|t| t.checked_add(SETTLED)).is_some_and(|t| t < self.started);
        (now == *stamp && settled).then_some(stamp)
    }
}

/// The first line of a stamps file.
const STAMPS_MAGIC: &str = "foundry-catalog stamps 2";

impl Stamps {
    /// The stamps as a file's text, bound to the artifact whose content
    /// digest is `content_sha256` and written to the file `artifact` (as
    /// it is once written): a line each for the format, the digest, the
    /// folder, the build's start and the artifact file's stamp (`none`
    /// when unknown), then one per file (its length, modification and
    /// change times, inode, device, source digest and name; names and the
    /// folder in hex, so any bytes round-trip).
    pub(crate) fn to_text(&self, content_sha256: &str, artifact: Option<&std::fs::Metadata>) -> String {
        use std::os::unix::ffi::OsStrExt;
        let since = |t: SystemTime| t.duration_since(UNIX_EPOCH).ok().map(|d| (d.as_secs(), d.subsec_nanos()));
        let Some((started, started_nanos)) = since(self.started) else { return String::new() };
        let stamp = artifact.and_then(|metadata| Stamp::new(metadata, [0; SOURCE_LEN]));
        let artifact = stamp.and_then(|stamp| {
            let (modified, modified_nanos) = since(stamp.modified)?;
            Some(format!(
                "{} {modified} {modified_nanos} {} {} {} {}",
                stamp.len, stamp.changed.0, stamp.changed.1, stamp.inode, stamp.device
            ))
        });
        let mut text = format!(
            "{STAMPS_MAGIC}\ncontent_sha256 {content_sha256}\ndir {}\nstarted {started} {started_nanos}\nartifact {}\n",
            hex::encode(self.dir.as_os_str().as_bytes()),
            artifact.as_deref().unwrap_or("none")
        );
        let mut files: Vec<(&OsString, &Stamp)> = self.files.iter().collect();
        files.sort_unstable_by(|a, b| a.0.cmp(b.0));
        // A line is written in place: at 100,000 manifests, a string and
        // two hex strings made per line were most of writing the file.
        text.reserve(files.len() * 160);
        let mut hex_buffer = Vec::new();
        for (name, stamp) in files {
            let Some((modified, modified_nanos)) = since(stamp.modified) else { continue };
            let _ = write!(
                text,
                "{} {modified} {modified_nanos} {} {} {} {} ",
                stamp.len, stamp.changed.0, stamp.changed.1, stamp.inode, stamp.device,
            );
            push_hex(&mut text, &stamp.source, &mut hex_buffer);
            text.push(' ');
            push_hex(&mut text, name.as_bytes(), &mut hex_buffer);
            text.push('\n');
        }
        text
    }

    /// The stamps a stamps file holds, if they are those of the artifact
    /// whose content digest is `content_sha256`; any line that does not
    /// read makes the whole file unusable (the build then reads every
    /// manifest), with the reason.
    pub(crate) fn from_text(text: &str, content_sha256: &str) -> Result<Stamps, String> {
        use std::os::unix::ffi::OsStringExt;
        let mut lines = text.lines();
        if lines.next() != Some(STAMPS_MAGIC) {
            return Err("not a stamps file of this version".to_owned());
        }
        let mut field = |name: &str| {
            lines
                .next()
                .and_then(|line| line.strip_prefix(name))
                .and_then(|rest| rest.strip_prefix(' '))
                .ok_or_else(|| format!("no `{name}` line"))
        };
        if field("content_sha256")? != content_sha256 {
            return Err("they are another artifact's".to_owned());
        }
        let dir = PathBuf::from(OsString::from_vec(hex::decode(field("dir")?).map_err(|_| "a folder not in hex")?));
        let started = field("started")?;
        let time = |secs: &str, nanos: &str| -> Option<SystemTime> {
            let nanos: u32 = nanos.parse().ok().filter(|&n| n < 1_000_000_000)?;
            UNIX_EPOCH.checked_add(Duration::new(secs.parse().ok()?, nanos))
        };
        let started = started.split_once(' ').and_then(|(s, n)| time(s, n)).ok_or("a start time that does not read")?;
        let artifact = match field("artifact")? {
            "none" => None,
            line => {
                let parts: Vec<&str> = line.split(' ').collect();
                let [len, modified, modified_nanos, changed, changed_nanos, inode, device] = parts[..] else {
                    return Err("an artifact line that does not read".to_owned());
                };
                let bad = || "an artifact line that does not read".to_owned();
                Some(Stamp {
                    len: len.parse().map_err(|_| bad())?,
                    modified: time(modified, modified_nanos).ok_or_else(bad)?,
                    changed: (changed.parse().map_err(|_| bad())?, changed_nanos.parse().map_err(|_| bad())?),
                    inode: inode.parse().map_err(|_| bad())?,
                    device: device.parse().map_err(|_| bad())?,
                    source: [0; SOURCE_LEN],
                })
            }
        };
        let mut files = HashMap::new();
        for (n, line) in lines.enumerate() {
            let bad = || format!("line {} does not read", n + 6);
            let parts: Vec<&str> = line.split(' ').collect();
            let [len, modified, modified_nanos, changed, changed_nanos, inode, device, source, name] = parts[..] else {
                return Err(bad());
            };
            let mut digest = [0; SOURCE_LEN];
            hex::decode_to_slice(source, &mut digest).map_err(|_| bad())?;
            let stamp = Stamp {
                len: len.parse().map_err(|_| bad())?,
                modified: time(modified, modified_nanos).ok_or_else(bad)?,
                changed: (changed.parse().map_err(|_| bad())?, changed_nanos.parse().map_err(|_| bad())?),
                inode: inode.parse().map_err(|_| bad())?,
                device: device.parse().map_err(|_| bad())?,
                source: digest,
            };
            files.insert(OsString::from_vec(hex::decode(name).map_err(|_| bad())?), stamp);
        }
        Ok(Stamps { dir, started, files, artifact })
    }

    /// Whether the artifact file opened with `metadata` is the one the
    /// build that wrote these stamps wrote, unchanged since: the same
    /// length, modification and change times, inode and device. The
    /// change time is the kernel's: a write into the file, a truncation,
    /// a `chmod` or another file renamed into its place changes it.
    pub(crate) fn artifact_unchanged(&self, metadata: &std::fs::Metadata) -> bool {
        self.artifact.is_some_and(|stamp| Stamp::new(metadata, [0; SOURCE_LEN]) == Some(stamp))
    }
}

/// Collects the stamps of a build as its threads read the files, each
/// under its name's place in the build's list of names (not a copy of
/// the name: a million of them would be 60 MB), which
/// [`Recorder::finish`] is given.
pub(crate) struct Recorder {
    dir: PathBuf,
    started: SystemTime,
    files: Mutex<Vec<(usize, Stamp)>>,
}

impl Recorder {
    pub(crate) fn new(dir: &Path) -> Recorder {
        Recorder { dir: dir.to_owned(), started: SystemTime::now(), files: Mutex::new(Vec::new()) }
    }

    /// Records the stamp of the `at`th of the build's names.
    pub(crate) fn record(&self, at: usize, stamp: Stamp) {
        if let Ok(mut files) = self.files.lock() {
            files.push((at, stamp));
        }
    }

    /// The stamps recorded, under their names, taken from `names` (the
    /// build's list, which the places recorded index).
    pub(crate) fn finish(self, mut names: Vec<OsString>) -> Stamps {
        let files = self.files.into_inner().unwrap_or_else(std::sync::PoisonError::into_inner);
        let files =
            files.into_iter().filter_map(|(at, stamp)| Some((std::mem::take(names.get_mut(at)?), stamp))).collect();
        Stamps { dir: self.dir, started: self.started, files, artifact: None }
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
            files: HashMap::from([(name.clone(), stamp)]),
            artifact: None,
        };
        // Begun long after the change: trusted.
        let settled = built(changed + SETTLED + Duration::from_secs(60));
        assert_eq!(settled.unchanged(&dir, &name, &metadata), Some(&stamp));
        // Begun within SETTLED of the change: read again, today and ever.
        let racy = built(changed + SETTLED / 2);
        assert_eq!(racy.unchanged(&dir, &name, &metadata), None);
        // Another folder's stamps are not this folder's.
        assert_eq!(settled.unchanged(&dir.join("other"), &name, &metadata), None);
        let _ = std::fs::remove_dir_all(&dir);
    }
}
