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

/// Appends `n` in decimal and a space to `text`, through `buffer`.
fn push_number(text: &mut String, buffer: &mut itoa::Buffer, n: impl itoa::Integer) {
    text.push_str(buffer.format(n));
    text.push(' ');
}

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
}

/// The first line of a stamps file.
const STAMPS_MAGIC: &str = "foundry-catalog stamps 3";

/// The longest stamps file a catalog of `manifests` manifests has: its
/// head (the folder's path in hex: at most 8 KiB) and a line a manifest
/// (its numbers, its digest and its name in hex: at most 1 KiB, a name
/// being at most 255 bytes). A longer file is refused unread, whatever
/// the catalog's size: no fixed limit that a large catalog's own stamps
/// pass.
pub(crate) fn max_text_len(manifests: u64) -> u64 {
    (16 << 10) + manifests.saturating_mul(1 << 10)
}

impl Stamps {
    /// Writes the stamps as a file's text to `out`, bound to the
    /// artifact whose content digest is `content_sha256`: a line each for
    /// the format, the digest, the folder and the build's start, then one
    /// per file in name order (its length, modification and change times,
    /// inode, device, source digest and name; names and the folder in
    /// hex, so any bytes round-trip), and last the stamp of the file the
    /// artifact was written to (`none` when unknown), which `artifact` is
    /// asked for once every other line is written: a caller writes the
    /// stamps while it writes the artifact, and says how the file is once
    /// renamed into place. An error from `artifact` is returned, and the
    /// text then has no last line (a file cut short reads as unusable).
    /// Written a piece at a time, never held whole (190 MB at 1,000,000
    /// manifests).
    pub(crate) fn write_text(
        &self,
        out: &mut impl std::io::Write,
        content_sha256: &str,
        artifact: impl FnOnce() -> std::io::Result<Option<std::fs::Metadata>>,
    ) -> std::io::Result<()> {
        use std::os::unix::ffi::OsStrExt;
        const PIECE: usize = 64 << 10;
        let since = |t: SystemTime| t.duration_since(UNIX_EPOCH).ok().map(|d| (d.as_secs(), d.subsec_nanos()));
        let Some((started, started_nanos)) = since(self.started) else { return Ok(()) };
        let mut text = format!(
            "{STAMPS_MAGIC}\ncontent_sha256 {content_sha256}\ndir {}\nstarted {started} {started_nanos}\n",
            hex::encode(self.dir.as_os_str().as_bytes()),
        );
        // A line is written in place: at 100,000 manifests, a string and
        // two hex strings made per line were most of writing the file,
        // then the formatting of its numbers.
        text.reserve(PIECE);
        let mut hex_buffer = Vec::new();
        let mut number = itoa::Buffer::new();
        for (name, stamp) in self.files() {
            let Some((modified, modified_nanos)) = since(stamp.modified) else { continue };
            for n in [stamp.len, modified, u64::from(modified_nanos)] {
                push_number(&mut text, &mut number, n);
            }
            for n in [stamp.changed.0, stamp.changed.1] {
                push_number(&mut text, &mut number, n);
            }
            for n in [stamp.inode, stamp.device] {
                push_number(&mut text, &mut number, n);
            }
            push_hex(&mut text, &stamp.source, &mut hex_buffer);
            text.push(' ');
            push_hex(&mut text, name.as_bytes(), &mut hex_buffer);
            text.push('\n');
            if text.len() >= PIECE {
                out.write_all(text.as_bytes())?;
                text.clear();
            }
        }
        out.write_all(text.as_bytes())?;
        let stamp = artifact()?.and_then(|metadata| Stamp::new(&metadata, [0; SOURCE_LEN]));
        let line = stamp.and_then(|stamp| {
            let (modified, modified_nanos) = since(stamp.modified)?;
            Some(format!(
                "{} {modified} {modified_nanos} {} {} {} {}",
                stamp.len, stamp.changed.0, stamp.changed.1, stamp.inode, stamp.device
            ))
        });
        writeln!(out, "artifact {}", line.as_deref().unwrap_or("none"))
    }

    /// The stamps a stamps file holds, if they are those of the artifact
    /// whose content digest is `content_sha256`; any line that does not
    /// read makes the whole file unusable (the build then reads every
    /// manifest), with the reason.
    pub(crate) fn from_text(text: &str, content_sha256: &str) -> Result<Stamps, String> {
        use std::os::unix::ffi::OsStringExt;
        // Four lines of head, then the manifests', then the artifact's
        // (lines end in `\n`, as `str::lines` reads them).
        let mut lines = text.splitn(5, '\n').map(|line| line.strip_suffix('\r').unwrap_or(line));
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
        let started =
            started.split_once(' ').and_then(|(s, n)| time_of(s, n)).ok_or("a start time that does not read")?;
        // The artifact's line is the last, ended as every line is: a file
        // its build did not finish writing has none.
        let rest = text.splitn(5, '\n').nth(4).unwrap_or_default();
        let (rest, last) = match rest.strip_suffix('\n').map(|rest| rest.rsplit_once('\n').unwrap_or(("", rest))) {
            Some((rest, last)) if last.starts_with("artifact ") => (rest, last),
            _ => return Err("no `artifact` line last".to_owned()),
        };
        let last = last.strip_suffix('\r').unwrap_or(last);
        let artifact = match &last["artifact ".len()..] {
            "none" => None,
            line => {
                let mut parts = line.split(' ');
                let stamp = stamp_of(&mut parts).filter(|_| parts.next().is_none());
                Some(stamp.ok_or("an artifact line that does not read")?)
            }
        };
        // One line a manifest, read on all cores: the text is cut at line
        // ends into a piece a core.
        let pieces = pieces(rest, std::thread::available_parallelism().map_or(1, usize::from));
        let read = crate::parallel::map(&pieces, |piece| {
            piece.lines().enumerate().map(|(n, line)| file_line(line).ok_or(n)).collect::<Result<Vec<_>, _>>()
        });
        let mut files = Vec::with_capacity(rest.len() / 128);
        let mut before = 0;
        for (piece, read) in pieces.iter().zip(read) {
            match read {
                Ok(read) => files.extend(read),
                Err(n) => return Err(format!("line {} does not read", 5 + before + n)),
            }
            before += piece.lines().count();
        }
        files.sort_unstable_by(|a, b| a.0.cmp(&b.0));
        if let Some(twice) = files.windows(2).find(|pair| pair[0].0 == pair[1].0) {
            return Err(format!("{} is listed twice", twice[0].0.display()));
        }
        let (names, stamps) = files.into_iter().map(|(name, stamp)| (name, OnceLock::from(stamp))).unzip();
        Ok(Stamps { dir, started, names, stamps, artifact })
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

/// `text` cut into `count` pieces of about one size, each (but the last)
/// ending at a line's end: any bytes, a character of several bytes too.
fn pieces(text: &str, count: usize) -> Vec<&str> {
    let mut pieces = Vec::with_capacity(count);
    let mut start = 0;
    for n in 1..=count {
        let end = if n == count {
            text.len()
        } else {
            // A newline byte is a character of its own: cut after it.
            let at = (text.len() / count * n).max(start);
            text.as_bytes()[at..].iter().position(|&b| b == b'\n').map_or(text.len(), |newline| at + newline + 1)
        };
        pieces.push(&text[start..end]);
        start = end;
    }
    pieces
}

/// A stamps file's line for one manifest: its stamp and name, if it reads.
fn file_line(line: &str) -> Option<(OsString, Stamp)> {
    use std::os::unix::ffi::OsStringExt;
    let mut parts = line.split(' ');
    let mut stamp = stamp_of(&mut parts)?;
    let [source, name] = [parts.next()?, parts.next()?];
    if parts.next().is_some() {
        return None;
    }
    hex::decode_to_slice(source, &mut stamp.source).ok()?;
    Some((OsString::from_vec(hex::decode(name).ok()?), stamp))
}

/// A stamp's first fields as a stamps file writes them (length,
/// modification and change times, inode and device), taken from
/// `parts`; its source digest zeros. The artifact's line is these alone.
fn stamp_of<'t>(parts: &mut impl Iterator<Item = &'t str>) -> Option<Stamp> {
    let mut next = || parts.next();
    let [len, modified, modified_nanos, changed, changed_nanos, inode, device] =
        [next()?, next()?, next()?, next()?, next()?, next()?, next()?];
    Some(Stamp {
        len: len.parse().ok()?,
        modified: time_of(modified, modified_nanos)?,
        changed: (changed.parse().ok()?, changed_nanos.parse().ok()?),
        inode: inode.parse().ok()?,
        device: device.parse().ok()?,
        source: [0; SOURCE_LEN],
    })
}

/// A time written as its seconds and nanoseconds since 1970.
fn time_of(secs: &str, nanos: &str) -> Option<SystemTime> {
    let nanos: u32 = nanos.parse().ok().filter(|&n| n < 1_000_000_000)?;
    UNIX_EPOCH.checked_add(Duration::new(secs.parse().ok()?, nanos))
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

    /// The artifact's own line reads back as the stamp of the file it
    /// was written for; a field too many or too few makes it unusable.
    #[test]
    fn the_artifacts_line_reads_back_and_a_broken_one_is_refused() {
        let dir = PathBuf::from("/catalog");
        let metadata = std::fs::metadata(std::env::current_dir().expect("a folder")).expect("metadata");
        let mut text = Vec::new();
        let recorder = Recorder::new(&dir, 1);
        recorder.record(0, Stamp::new(&metadata, [7; SOURCE_LEN]).expect("a stamp"));
        let stamps = recorder.finish(vec![OsString::from("a.json")]);
        stamps.write_text(&mut text, "digest", || Ok(Some(metadata.clone()))).expect("written");
        let text = String::from_utf8(text).expect("text");
        let read = Stamps::from_text(&text, "digest").expect("reads");
        assert!(read.artifact_unchanged(&metadata));
        let line = text.lines().last().expect("the artifact's line");
        assert!(line.starts_with("artifact "), "{line}");
        // Without it (a file cut short), or with it elsewhere, the file is
        // unusable; an error from `artifact` ends the text before it.
        let cut = &text[..text.len() - line.len() - 1];
        let lines: Vec<&str> = text.lines().collect();
        let moved = format!("{}\n{line}\n{}\n", lines[..4].join("\n"), lines[4]);
        for unusable in [cut, &moved] {
            assert_eq!(Stamps::from_text(unusable, "digest").err().as_deref(), Some("no `artifact` line last"));
        }
        let mut failed = Vec::new();
        let error = stamps.write_text(&mut failed, "digest", || Err(std::io::Error::other("not written")));
        assert_eq!(error.expect_err("failed").to_string(), "not written");
        assert_eq!(failed, cut.as_bytes());
        let (fewer, _) = line.rsplit_once(' ').expect("fields");
        for broken in [format!("{line} 7"), fewer.to_owned(), "artifact 1 2 x 3 4 5 6".to_owned()] {
            let error = Stamps::from_text(&text.replace(line, &broken), "digest").expect_err("refused");
            assert_eq!(error, "an artifact line that does not read", "{broken}");
        }
    }

    /// Text is cut at line ends only, whatever characters it holds and
    /// however many pieces are asked for.
    #[test]
    fn text_is_cut_into_pieces_at_line_ends_only() {
        for text in ["", "\n", "é€ab\ncd\n\n€€€", &"é€𝄞\n".repeat(50), &"x".repeat(99)] {
            for count in 1..=9 {
                let pieces = pieces(text, count);
                assert_eq!(pieces.len(), count);
                assert_eq!(pieces.concat(), text, "{count} pieces of {text:?}");
                // Each cut is after a newline, or at the end.
                for k in 1..count {
                    let before = pieces[..k].concat();
                    assert!(before.is_empty() || before.ends_with('\n') || before == text, "{pieces:?}");
                }
            }
        }
    }

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

    /// The longest text `write_text` writes (a folder's path of 4,095
    /// bytes, names of 255, every number at its largest) is within what
    /// `max_text_len` allows for its manifests.
    #[test]
    fn the_longest_stamps_text_is_within_its_limit() {
        use std::os::unix::ffi::OsStringExt;
        let dir = PathBuf::from(OsString::from_vec(vec![0xFF; 4095]));
        let mut stamp = Stamp::new(&std::fs::metadata("/").expect("metadata"), [0xFF; SOURCE_LEN]).expect("a stamp");
        stamp.len = u64::MAX;
        stamp.changed = (i64::MIN, i64::MIN);
        stamp.inode = u64::MAX;
        stamp.device = u64::MAX;
        stamp.modified = UNIX_EPOCH + Duration::new(u64::MAX / 2, 999_999_999);
        let names: Vec<OsString> = (1..=100u8).map(|n| OsString::from_vec(vec![n; 255])).collect();
        let recorder = Recorder::new(&dir, names.len());
        (0..names.len()).for_each(|at| recorder.record(at, stamp));
        let mut text = Vec::new();
        recorder.finish(names).write_text(&mut text, &"f".repeat(64), || Ok(None)).expect("written");
        assert!(text.len() as u64 > 100 * 600, "the lines are long: {}", text.len());
        assert!(text.len() as u64 <= max_text_len(100), "{} bytes", text.len());
    }

    /// The text `write_text` writes (in pieces, here many) reads back as
    /// the stamps it was written from, whatever order its lines are in;
    /// a name listed twice makes the file unusable, with the name.
    #[test]
    fn stamps_written_read_back_in_any_order_and_a_name_twice_is_refused() {
        let dir = PathBuf::from("/catalog");
        let metadata = std::fs::metadata(std::env::current_dir().expect("a folder")).expect("metadata");
        let names: Vec<OsString> = (0..3000).map(|n| OsString::from(format!("product-{n:05}.json"))).collect();
        let recorder = Recorder::new(&dir, names.len());
        for at in (0..names.len()).filter(|at| at % 7 != 3) {
            let mut source = [0; SOURCE_LEN];
            source[..8].copy_from_slice(&(at as u64).to_le_bytes());
            recorder.record(at, Stamp::new(&metadata, source).expect("a stamp"));
        }
        let stamps = recorder.finish(names.clone());
        let mut text = Vec::new();
        stamps.write_text(&mut text, "digest", || Ok(None)).expect("written");
        let text = String::from_utf8(text).expect("text");
        assert!(text.len() > 4 * (64 << 10), "written in several pieces");
        let (head, lines) = text.split_at(text.match_indices('\n').nth(3).expect("a head").0 + 1);
        let (lines, last) = lines.split_at(lines.trim_end().rfind('\n').expect("the artifact's line") + 1);
        assert_eq!(last, "artifact none\n");
        let reversed =
            format!("{head}{}{last}", lines.lines().rev().map(|line| format!("{line}\n")).collect::<String>());
        for text in [&text, &reversed] {
            let read = Stamps::from_text(text, "digest").expect("reads");
            for (at, name) in names.iter().enumerate() {
                // Wherever it is looked for first.
                for near in [at, 0, at + 1, usize::MAX] {
                    assert_eq!(read.recorded(&dir, name, near), stamps.recorded(&dir, name, at), "{name:?}");
                }
                assert_eq!(read.recorded(&dir, name, at).is_some(), at % 7 != 3, "{name:?}");
            }
        }
        let line = lines.lines().nth(10).expect("a line");
        let name = hex::decode(line.rsplit(' ').next().expect("a name")).expect("hex");
        let error = Stamps::from_text(&format!("{head}{line}\n{lines}{last}"), "digest").expect_err("refused");
        assert_eq!(error, format!("{} is listed twice", String::from_utf8_lossy(&name)));
        // A line that does not read is named by its number in the file,
        // wherever it is (the lines are read a piece a core), and so is
        // one with a field too many or too few.
        let count = lines.lines().count();
        for (at, broken) in [(0, "x"), (count / 2 + 1, "1 2"), (count - 1, &*format!("{line} extra"))] {
            let mut edited: Vec<&str> = lines.lines().collect();
            edited[at] = broken;
            let edited = format!("{head}{}\n{last}", edited.join("\n"));
            let error = Stamps::from_text(&edited, "digest").expect_err("refused");
            assert_eq!(error, format!("line {} does not read", at + 5), "{broken:?}");
        }
    }
}
