//! A stamps file's bytes (`<artifact>.stamps`, format 4): written a piece
//! at a time as a build ends, read whole by the next build. Binary, so
//! that neither side formats or parses a number or a hex digit: at
//! 100,000 manifests the text of format 2 took 0.04 s to write and as
//! much to read, on the two ends of a one-edit build.
//!
//! ```text
//! "foundry-catalog stamps 4\n"             the format, as a line
//! content_sha256                           64 bytes: the artifact's, in hex
//! started: u64 seconds, u32 nanoseconds    the build's start (Unix time)
//! dir: u32 length, bytes                   the folder built
//! a record a manifest, in name order:
//!   'f', length u64, modified u64 + u32, changed i64 + i64, inode u64,
//!   device u64, source digest (32 bytes), name: u16 length, bytes
//! last, the artifact file's own stamp:
//!   'a', 0 (unknown) or 1 and length, modified, changed, inode, device
//! ```
//!
//! Integers are little-endian. Anything else (a length past the end, a
//! name out of order or twice, bytes after the last record, no last
//! record: a file its build did not finish) makes the file unusable.

use std::ffi::OsString;
use std::os::unix::ffi::{OsStrExt, OsStringExt};
use std::path::PathBuf;
use std::sync::OnceLock;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use super::{Stamp, Stamps};
use crate::artifact::SOURCE_LEN;

/// The first line of a stamps file.
const MAGIC: &[u8] = b"foundry-catalog stamps 4\n";

/// A manifest's record, and the artifact's.
const FILE: u8 = b'f';
const ARTIFACT: u8 = b'a';

/// The longest stamps file a catalog of `manifests` manifests has: its
/// head (a folder's path is at most 4 KiB) and a record a manifest (at
/// most 342 bytes, a name being at most 255). A longer file is refused unread,
/// whatever the catalog's size: no fixed limit that a large catalog's own
/// stamps pass.
pub(crate) fn max_len(manifests: u64) -> u64 {
    (16 << 10) + manifests.saturating_mul(1 << 10)
}

/// A time as seconds and nanoseconds since 1970 (none before).
fn since(t: SystemTime) -> Option<(u64, u32)> {
    t.duration_since(UNIX_EPOCH).ok().map(|d| (d.as_secs(), d.subsec_nanos()))
}

/// A stamp's fields but its digest: length, modification and change
/// times, inode and device.
fn put_stamp(out: &mut Vec<u8>, stamp: &Stamp, (modified, modified_nanos): (u64, u32)) {
    out.extend_from_slice(&stamp.len.to_le_bytes());
    out.extend_from_slice(&modified.to_le_bytes());
    out.extend_from_slice(&modified_nanos.to_le_bytes());
    out.extend_from_slice(&stamp.changed.0.to_le_bytes());
    out.extend_from_slice(&stamp.changed.1.to_le_bytes());
    out.extend_from_slice(&stamp.inode.to_le_bytes());
    out.extend_from_slice(&stamp.device.to_le_bytes());
}

impl Stamps {
    /// Writes the stamps as a stamps file to `out`, bound to the artifact
    /// whose content digest is `content_sha256`: the head, a record per
    /// file in name order, and last the stamp of the file the artifact
    /// was written to, which `artifact` is asked for once every other
    /// record is written (none: unknown): a caller writes the stamps
    /// while it writes the artifact, and says how the file is once renamed
    /// into place. An error from `artifact` is returned, and the file
    /// then has no last record (it reads as unusable). Written a piece at
    /// a time, never held whole (about 120 MB at 1,000,000 manifests).
    pub(crate) fn write_to(
        &self,
        out: &mut impl std::io::Write,
        content_sha256: &str,
        artifact: impl FnOnce() -> std::io::Result<Option<std::fs::Metadata>>,
    ) -> std::io::Result<()> {
        const PIECE: usize = 64 << 10;
        let invalid = |what: &str| std::io::Error::new(std::io::ErrorKind::InvalidInput, what.to_owned());
        let started = since(self.started).ok_or_else(|| invalid("a build begun before 1970"))?;
        let dir = self.dir.as_os_str().as_bytes();
        let dir_len = u32::try_from(dir.len()).map_err(|_| invalid("a folder's path over 4 GiB"))?;
        if content_sha256.len() != 64 {
            return Err(invalid("a content digest that is not 64 hex digits"));
        }
        let mut bytes = Vec::with_capacity(PIECE + 512);
        bytes.extend_from_slice(MAGIC);
        bytes.extend_from_slice(content_sha256.as_bytes());
        bytes.extend_from_slice(&started.0.to_le_bytes());
        bytes.extend_from_slice(&started.1.to_le_bytes());
        bytes.extend_from_slice(&dir_len.to_le_bytes());
        bytes.extend_from_slice(dir);
        for (name, stamp) in self.files() {
            // A file modified before 1970, or named by over 64 KiB, has
            // no record: it is read by the next build.
            let (Some(modified), Ok(name_len)) = (since(stamp.modified), u16::try_from(name.len())) else { continue };
            bytes.push(FILE);
            put_stamp(&mut bytes, stamp, modified);
            bytes.extend_from_slice(&stamp.source);
            bytes.extend_from_slice(&name_len.to_le_bytes());
            bytes.extend_from_slice(name.as_bytes());
            if bytes.len() >= PIECE {
                out.write_all(&bytes)?;
                bytes.clear();
            }
        }
        out.write_all(&bytes)?;
        bytes.clear();
        let stamp = artifact()?.and_then(|metadata| Stamp::new(&metadata, [0; SOURCE_LEN]));
        bytes.push(ARTIFACT);
        match stamp.and_then(|stamp| Some((stamp, since(stamp.modified)?))) {
            Some((stamp, modified)) => {
                bytes.push(1);
                put_stamp(&mut bytes, &stamp, modified);
            }
            None => bytes.push(0),
        }
        out.write_all(&bytes)
    }

    /// The stamps of the stamps file at `path`, if they are those of the
    /// artifact whose metadata is `metadata` (and the file is no longer
    /// than [`max_len`] of its products: a longer one is refused unread).
    pub(crate) fn read(path: &std::path::Path, metadata: &crate::artifact::Metadata) -> Result<Stamps, String> {
        let max = max_len(metadata.products);
        let (bytes, _) = crate::files::read_bounded(path, max, false).map_err(|e| e.to_string())?;
        Stamps::from_bytes(&bytes, &metadata.content_sha256)
    }

    /// The stamps a stamps file's `bytes` hold, if they are those of the
    /// artifact whose content digest is `content_sha256`; anything that
    /// does not read makes the whole file unusable (the build then reads
    /// every manifest), with the reason and where.
    pub(crate) fn from_bytes(bytes: &[u8], content_sha256: &str) -> Result<Stamps, String> {
        let mut reader = Reader { bytes, at: 0 };
        if reader.take(MAGIC.len()) != Some(MAGIC) {
            return Err("not a stamps file of this version".to_owned());
        }
        if reader.take(64) != Some(content_sha256.as_bytes()) {
            return Err("they are another artifact's".to_owned());
        }
        let head = |reader: &mut Reader<'_>| {
            let started = reader.time()?;
            let len = usize::try_from(reader.u32()?).ok()?;
            Some((started, PathBuf::from(OsString::from_vec(reader.take(len)?.to_vec()))))
        };
        let (started, dir) = head(&mut reader).ok_or("a head cut short")?;
        // At least 1 + 84 + 2 bytes a record: as many as the bytes allow.
        let mut names: Vec<OsString> = Vec::with_capacity(bytes.len() / 96);
        let mut stamps = Vec::with_capacity(bytes.len() / 96);
        let artifact = loop {
            let at = reader.at;
            match reader.u8() {
                Some(FILE) => {
                    let (name, stamp) = reader.file().ok_or_else(|| format!("the record at byte {at} is cut short"))?;
                    match names.last().map(|last| last.as_bytes().cmp(name)) {
                        Some(std::cmp::Ordering::Equal) => {
                            return Err(format!("{} is listed twice", String::from_utf8_lossy(name)));
                        }
                        Some(std::cmp::Ordering::Greater) => {
                            return Err(format!("the record at byte {at} is out of name order"));
                        }
                        _ => {}
                    }
                    names.push(OsString::from_vec(name.to_vec()));
                    stamps.push(OnceLock::from(stamp));
                }
                Some(ARTIFACT) => {
                    let stamp = match reader.u8() {
                        Some(0) => None,
                        Some(1) => Some(reader.stamp().ok_or("the artifact's record is cut short")?),
                        _ => return Err("the artifact's record does not read".to_owned()),
                    };
                    if reader.at != bytes.len() {
                        return Err(format!("bytes after the artifact's record, at byte {}", reader.at));
                    }
                    break stamp;
                }
                Some(_) => return Err(format!("the record at byte {at} does not read")),
                None => return Err("no artifact's record last: the file is cut short".to_owned()),
            }
        };
        Ok(Stamps { dir, started, names, stamps, artifact })
    }
}

/// Reads a stamps file's bytes in order, each length checked.
struct Reader<'a> {
    bytes: &'a [u8],
    at: usize,
}

impl<'a> Reader<'a> {
    fn take(&mut self, len: usize) -> Option<&'a [u8]> {
        let taken = self.bytes.get(self.at..self.at.checked_add(len)?)?;
        self.at += len;
        Some(taken)
    }

    fn array<const N: usize>(&mut self) -> Option<[u8; N]> {
        self.take(N)?.try_into().ok()
    }

    fn u8(&mut self) -> Option<u8> {
        Some(self.array::<1>()?[0])
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.array()?))
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.array()?))
    }

    fn i64(&mut self) -> Option<i64> {
        Some(i64::from_le_bytes(self.array()?))
    }

    /// Seconds and nanoseconds since 1970.
    fn time(&mut self) -> Option<SystemTime> {
        let (secs, nanos) = (self.u64()?, self.u32()?);
        (nanos < 1_000_000_000).then_some(())?;
        UNIX_EPOCH.checked_add(Duration::new(secs, nanos))
    }

    /// A stamp's fields but its digest (zeros).
    fn stamp(&mut self) -> Option<Stamp> {
        Some(Stamp {
            len: self.u64()?,
            modified: self.time()?,
            changed: (self.i64()?, self.i64()?),
            inode: self.u64()?,
            device: self.u64()?,
            source: [0; SOURCE_LEN],
        })
    }

    /// A manifest's record after its tag: its name and stamp.
    fn file(&mut self) -> Option<(&'a [u8], Stamp)> {
        let mut stamp = self.stamp()?;
        stamp.source = self.array()?;
        let len = usize::from(u16::from_le_bytes(self.array()?));
        Some((self.take(len)?, stamp))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::catalog::stamps::Recorder;

    const DIGEST: &str = "0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcdef";

    /// The stamps of `count` files named `product-NNNNN.json` (every
    /// seventh left unrecorded) in `dir`, each a stamp of `metadata`.
    fn stamps(dir: &std::path::Path, count: usize, metadata: &std::fs::Metadata) -> (Stamps, Vec<OsString>) {
        let names: Vec<OsString> = (0..count).map(|n| OsString::from(format!("product-{n:05}.json"))).collect();
        let recorder = Recorder::new(dir, names.len());
        for at in (0..names.len()).filter(|at| at % 7 != 3) {
            let mut source = [0; SOURCE_LEN];
            source[..8].copy_from_slice(&(at as u64).to_le_bytes());
            recorder.record(at, Stamp::new(metadata, source).expect("a stamp"));
        }
        (recorder.finish(names.clone()), names)
    }

    fn written(stamps: &Stamps, artifact: Option<&std::fs::Metadata>) -> Vec<u8> {
        let mut bytes = Vec::new();
        stamps.write_to(&mut bytes, DIGEST, || Ok(artifact.cloned())).expect("written");
        bytes
    }

    /// What is written (in pieces, here many) reads back as the stamps
    /// it was written from, the artifact's own stamp with them; the
    /// artifact's record is the last, and without it (a file cut short)
    /// the file is unusable, as when `artifact` fails.
    #[test]
    fn stamps_written_read_back_with_the_artifacts_own_last() {
        let dir = PathBuf::from("/catalog");
        let metadata = std::fs::metadata(std::env::current_dir().expect("a folder")).expect("metadata");
        let (stamps, names) = stamps(&dir, 3000, &metadata);
        let bytes = written(&stamps, Some(&metadata));
        assert!(bytes.len() > 4 * (64 << 10), "written in several pieces");
        let read = Stamps::from_bytes(&bytes, DIGEST).expect("reads");
        for (at, name) in names.iter().enumerate() {
            // Wherever it is looked for first.
            for near in [at, 0, at + 1, usize::MAX] {
                assert_eq!(read.recorded(&dir, name, near), stamps.recorded(&dir, name, at), "{name:?}");
            }
            assert_eq!(read.recorded(&dir, name, at).is_some(), at % 7 != 3, "{name:?}");
        }
        assert!(read.artifact_unchanged(&metadata));
        let unknown = Stamps::from_bytes(&written(&stamps, None), DIGEST).expect("reads");
        assert!(!unknown.artifact_unchanged(&metadata));
        // The artifact's record: 'a', 1, then 52 bytes.
        let cut = &bytes[..bytes.len() - 54];
        assert_eq!(cut.last(), Some(&b'n'), "the last name's last byte");
        let error = Stamps::from_bytes(cut, DIGEST).err();
        assert_eq!(error.as_deref(), Some("no artifact's record last: the file is cut short"));
        let mut failed = Vec::new();
        let error = stamps.write_to(&mut failed, DIGEST, || Err(std::io::Error::other("not written")));
        assert_eq!(error.expect_err("failed").to_string(), "not written");
        assert_eq!(failed, cut);
    }

    /// Another artifact's stamps, another format, a head, a record or the
    /// artifact's record cut short, bytes after it, a record of no known
    /// kind, names out of order or twice: each makes the file unusable,
    /// with where; any cut of a good file is refused, never a panic.
    #[test]
    fn a_stamps_file_that_does_not_read_is_refused_with_where() {
        let dir = PathBuf::from("/catalog");
        let metadata = std::fs::metadata(std::env::current_dir().expect("a folder")).expect("metadata");
        let (stamps, _) = stamps(&dir, 20, &metadata);
        let bytes = written(&stamps, Some(&metadata));
        let refused = |bytes: &[u8]| Stamps::from_bytes(bytes, DIGEST).expect_err("refused");
        assert_eq!(
            Stamps::from_bytes(&bytes, &DIGEST.replace('0', "1")).err().as_deref(),
            Some("they are another artifact's")
        );
        let mut other = bytes.clone();
        other[MAGIC.len() - 2] = b'3';
        assert_eq!(refused(&other), "not a stamps file of this version");
        let head = MAGIC.len() + 64 + 12 + 4 + dir.as_os_str().len();
        assert_eq!(refused(&bytes[..head - 1]), "a head cut short");
        let first = head;
        assert_eq!(refused(&bytes[..first + 40]), format!("the record at byte {first} is cut short"));
        let mut unknown = bytes.clone();
        unknown[first] = b'x';
        assert_eq!(refused(&unknown), format!("the record at byte {first} does not read"));
        let mut after = bytes.clone();
        after.push(0);
        assert_eq!(refused(&after), format!("bytes after the artifact's record, at byte {}", bytes.len()));
        assert_eq!(refused(&bytes[..bytes.len() - 1]), "the artifact's record is cut short");
        let record = |at: usize| {
            let len = usize::from(u16::from_le_bytes([bytes[at + 85], bytes[at + 86]]));
            at..at + 87 + len
        };
        let (one, two) = (record(first), record(record(first).end));
        // The second record first: out of order; the first twice: twice.
        let swapped = [&bytes[..one.start], &bytes[two.clone()], &bytes[one.clone()], &bytes[two.end..]].concat();
        assert_eq!(refused(&swapped), format!("the record at byte {} is out of name order", first + two.len()));
        let twice = [&bytes[..one.end], &bytes[one.clone()], &bytes[one.end..]].concat();
        assert_eq!(refused(&twice), "product-00000.json is listed twice");
        for end in 0..bytes.len() {
            assert!(Stamps::from_bytes(&bytes[..end], DIGEST).is_err(), "cut at {end}");
        }
    }

    /// The longest file `write_to` writes (a folder's path of 4,095
    /// bytes, names of 255, every number at its largest) is within what
    /// `max_len` allows for its manifests.
    #[test]
    fn the_longest_stamps_file_is_within_its_limit() {
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
        let mut bytes = Vec::new();
        recorder.finish(names).write_to(&mut bytes, DIGEST, || Ok(None)).expect("written");
        assert!(bytes.len() as u64 > 100 * 340, "the records are long: {}", bytes.len());
        assert!(bytes.len() as u64 <= max_len(100), "{} bytes", bytes.len());
    }
}
