//! Where an artifact file's bytes are stored: in the file itself, or, for
//! a packed artifact, in packs the file names.
//!
//! A **packed artifact** is a small file (a *pack list*) at the artifact's
//! path, whose bytes are the artifact's as ranges of *packs*: files in the
//! folder `fcpacks` beside it, each named by the SHA-256 of its bytes
//! (`<hex>.fcpack`) and never changed once written. The artifact it holds
//! is the same bytes, byte for byte, as the one file a build writes
//! without packs: signed, checked and served alike. A build on a packed
//! artifact (`build --packs --previous`) writes two new packs (the head's
//! summary and the blocks that changed, and the bodies that changed) and
//! a new list naming the old packs' ranges for everything else, so an
//! edit writes what changed, not the catalog.
//!
//! A pack list, all integers little-endian:
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 8 | magic `89 46 43 50 0D 0A 1A 0A` (`\x89FCP\r\n\x1a\n`) |
//! | 8 | 4 | version, `1` |
//! | 12 | 4 | the number of ranges *n* (at least 1, at most [`MAX_RANGES`]) |
//! | 16 | 8 | the artifact's length |
//! | 24 | 48 × *n* | each range: its pack's SHA-256 (32 bytes), where it starts in the pack (u64), its length (u64, not 0) |
//! | 24 + 48 × *n* | 4 | CRC-32 of every byte before |
//!
//! The ranges follow each other: the artifact is their bytes in order, and
//! their lengths add up to its length. A list is read as an attacker could
//! have written it: its length is checked against *n* before anything is
//! allocated, a pack is opened by the name its digest gives, in `fcpacks`
//! beside the list (beside where a link at its path leads), never through
//! a link, at most 256 of them, and must be a regular file
//! holding every range named in it. A pack's bytes are not hashed when it
//! is opened: the artifact they make is checked as any artifact is (its
//! head against its CRC-32, block digests and signature, each body against
//! its ETag before it is served).

use std::fs::File;
use std::io;
use std::os::unix::fs::{FileExt, MetadataExt};
use std::path::Path;
use std::sync::Arc;

pub(crate) use super::layout::PACK_LIST_MAGIC;

/// The pack list format this crate writes and reads.
const PACK_LIST_VERSION: u32 = 1;

/// The most ranges a pack list holds: about 48 MiB of list.
pub(crate) const MAX_RANGES: u32 = 1 << 20;

/// The most packs a pack list a reader opens may name (a build names at
/// most 17): each is a file held open while the artifact is served.
pub(crate) const MAX_OPEN_PACKS: usize = 256;

/// The folder beside a packed artifact that holds its packs.
pub(crate) const PACKS_DIR: &str = "fcpacks";

/// What a pack's name ends with.
pub(crate) const PACK_SUFFIX: &str = ".fcpack";

const LIST_HEADER: usize = 24;
const RANGE_LEN: usize = 48;

/// One range of a packed artifact: `len` bytes of the pack `pack` (its
/// SHA-256), opened as `file`, from `at`: the artifact's bytes from `start`.
#[derive(Debug)]
struct Range {
    start: u64,
    file: Arc<File>,
    pack: [u8; 32],
    at: u64,
    len: u64,
}

/// Where some of a packed artifact's bytes are: the pack's SHA-256, the
/// pack as opened, where in it, how many bytes.
pub(crate) type InPack<'a> = ([u8; 32], &'a File, u64, u64);

/// Where some of a stored artifact's bytes are: a file, the pack it is
/// (if one), where in the file, how many bytes.
type Piece<'a> = (&'a File, Option<[u8; 32]>, u64, u64);

/// An artifact file's bytes as stored: the file itself, or the packs its
/// pack list names.
#[derive(Debug)]
pub(crate) struct StoredFile {
    /// The file opened at the artifact's path (the pack list, for a packed
    /// artifact): what says whether it was replaced or changed.
    opened: Arc<File>,
    /// A packed artifact's ranges, in order, and its packs folder (device
    /// and inode); none for a file that holds its bytes itself.
    packed: Option<(Vec<Range>, (u64, u64))>,
    len: u64,
}

impl StoredFile {
    /// The artifact stored at `path`: the file, or the packs of the pack
    /// list it is. It must be a regular file (never a FIFO, waited on); a
    /// pack list's packs are opened as the module says.
    pub(crate) fn open(path: &Path, max_len: u64) -> io::Result<StoredFile> {
        let file = crate::files::open_nonblocking(path)?;
        let metadata = file.metadata()?;
        if !metadata.is_file() {
            return Err(io::Error::new(io::ErrorKind::InvalidInput, "not a regular file"));
        }
        let Some(list) = list_in(&file, metadata.len())? else {
            return Ok(StoredFile::plain(file, metadata.len()));
        };
        if list.len > max_len {
            return Err(invalid(format!("the pack list names {} bytes, over the limit of {max_len}", list.len)));
        }
        // Beside the list itself: where a link at `path` leads.
        let real = std::fs::canonicalize(path)?;
        let dir = real.parent().unwrap_or(Path::new("/"));
        let packs_dir = open_packs_dir(dir)?;
        let packs_meta = packs_dir.metadata()?;
        let mut opened: std::collections::BTreeMap<[u8; 32], (Arc<File>, u64)> = std::collections::BTreeMap::new();
        let mut ranges = Vec::with_capacity(list.ranges.len());
        let mut start = 0u64;
        for (pack, at, len) in list.ranges {
            let (file, pack_len) = match opened.get(&pack) {
                Some((file, pack_len)) => (Arc::clone(file), *pack_len),
                None if opened.len() >= MAX_OPEN_PACKS => {
                    return Err(invalid(format!("a pack list names more than {MAX_OPEN_PACKS} packs")));
                }
                None => {
                    let file = Arc::new(open_pack(&packs_dir, &pack)?);
                    let metadata = file.metadata()?;
                    if !metadata.is_file() {
                        return Err(invalid(format!("pack {} is not a regular file", hex::encode(pack))));
                    }
                    opened.insert(pack, (Arc::clone(&file), metadata.len()));
                    (file, metadata.len())
                }
            };
            if at.checked_add(len).is_none_or(|end| end > pack_len) {
                return Err(invalid(format!(
                    "the pack list names bytes {at} to {} of pack {}, which has {pack_len}",
                    at.saturating_add(len),
                    hex::encode(pack)
                )));
            }
            ranges.push(Range { start, file, pack, at, len });
            start += len;
        }
        let packs = (packs_meta.dev(), packs_meta.ino());
        Ok(StoredFile { opened: Arc::new(file), packed: Some((ranges, packs)), len: list.len })
    }

    /// A file that holds the artifact's bytes itself, `len` of them when it
    /// was opened (a build's spool grows as it is written).
    pub(crate) fn plain(file: File, len: u64) -> StoredFile {
        StoredFile { opened: Arc::new(file), packed: None, len }
    }

    /// The artifact's length (when it was opened, for a plain file).
    pub(crate) fn len(&self) -> u64 {
        self.len
    }

    /// The device and inode of its packs folder, for a packed artifact.
    pub(crate) fn packs_dir(&self) -> Option<(u64, u64)> {
        self.packed.as_ref().map(|(_, dir)| *dir)
    }

    /// The metadata of the file opened at its path, as it is now.
    pub(crate) fn metadata(&self) -> io::Result<std::fs::Metadata> {
        self.opened.metadata()
    }

    /// The file itself, for one that holds its bytes (a build's spool
    /// writes to it).
    pub(crate) fn plain_file(&self) -> Option<&File> {
        self.packed.is_none().then_some(&*self.opened)
    }

    /// Where its `len` bytes from `at` are: each a file, where in it, the
    /// pack it is (if one), and how many bytes; an error past a packed
    /// artifact's end (a plain file's reads say so themselves).
    fn pieces(&self, at: u64, len: u64) -> io::Result<Vec<Piece<'_>>> {
        let Some((ranges, _)) = &self.packed else {
            return Ok(if len == 0 { Vec::new() } else { vec![(&*self.opened, None, at, len)] });
        };
        let end = at.checked_add(len).filter(|&end| end <= self.len).ok_or(io::ErrorKind::UnexpectedEof)?;
        let mut pieces = Vec::new();
        let first = ranges.partition_point(|range| range.start + range.len <= at);
        for range in &ranges[first..] {
            if range.start >= end {
                break;
            }
            let (from, to) = (at.max(range.start), end.min(range.start + range.len));
            pieces.push((&*range.file, Some(range.pack), range.at + (from - range.start), to - from));
        }
        Ok(pieces)
    }

    /// Reads exactly `buf.len()` bytes from `at`: an error, never a short
    /// read, past its end or when a file has become shorter.
    pub(crate) fn read_exact_at(&self, buf: &mut [u8], at: u64) -> io::Result<()> {
        let mut done = 0;
        for (file, _, in_file, len) in self.pieces(at, buf.len() as u64)? {
            let len = len as usize;
            file.read_exact_at(&mut buf[done..done + len], in_file)?;
            done += len;
        }
        Ok(())
    }

    /// Copies `len` bytes from `at` to the end of `out`, in the kernel
    /// where it can (`copy_file_range`), else through a buffer.
    pub(crate) fn copy_to(&self, at: u64, len: u64, out: &mut File) -> io::Result<()> {
        use std::io::Write;
        for (file, _, in_file, len) in self.pieces(at, len)? {
            let mut from = in_file;
            let mut left = len;
            while left > 0 {
                let chunk = usize::try_from(left.min(1 << 30)).unwrap_or(1 << 30);
                match rustix::fs::copy_file_range(file, Some(&mut from), &*out, None, chunk) {
                    Ok(0) => return Err(io::ErrorKind::UnexpectedEof.into()),
                    Ok(copied) => left -= copied as u64,
                    // Not between these files (another filesystem, an old
                    // kernel): through a buffer.
                    Err(_) => {
                        through_buffer(
                            from,
                            left,
                            |buf, at| file.read_exact_at(buf, at),
                            |bytes| out.write_all(bytes),
                        )?;
                        left = 0;
                    }
                }
            }
        }
        Ok(())
    }

    /// The packs that hold `len` bytes from `at`, in order: each pack's
    /// SHA-256, the pack as opened, where in it, and how many bytes; none
    /// when it is not a packed artifact.
    pub(crate) fn in_packs(&self, at: u64, len: u64) -> Option<Vec<InPack<'_>>> {
        self.packed.as_ref()?;
        let pieces = self.pieces(at, len).ok()?;
        pieces.into_iter().map(|(file, pack, in_file, len)| Some((pack?, file, in_file, len))).collect()
    }
}

/// Reads `len` bytes from `at` with `read` (a buffer and where to read
/// into it) and hands them to `write` in order, 8 MiB at most at a time.
pub(crate) fn through_buffer(
    at: u64,
    len: u64,
    read: impl Fn(&mut [u8], u64) -> io::Result<()>,
    mut write: impl FnMut(&[u8]) -> io::Result<()>,
) -> io::Result<()> {
    let mut buffer = vec![0; usize::try_from(len.min(8 << 20)).unwrap_or(8 << 20)];
    let (mut at, mut left) = (at, len);
    while left > 0 {
        let piece = usize::try_from(left).unwrap_or(usize::MAX).min(buffer.len());
        read(&mut buffer[..piece], at)?;
        write(&buffer[..piece])?;
        at += piece as u64;
        left -= piece as u64;
    }
    Ok(())
}

/// The pack list `file` (of `file_len` bytes) is, read and checked
/// ([`read_list`]); none when it does not start with a pack list's magic
/// (a file that holds an artifact itself, or anything else).
pub(crate) fn list_in(file: &File, file_len: u64) -> io::Result<Option<List>> {
    let mut magic = [0; 8];
    if file_len < 8 {
        return Ok(None);
    }
    file.read_exact_at(&mut magic, 0)?;
    if magic != PACK_LIST_MAGIC {
        return Ok(None);
    }
    read_list(file, file_len).map(Some)
}

/// The length of the pack list whose first bytes are `first` (at least
/// its first 16), from the count of ranges it claims: an error for what is
/// not a pack list, or claims no range or more than [`MAX_RANGES`]. What
/// a reader of a list from the network reads before it takes memory for it.
#[cfg_attr(not(feature = "replica"), allow(dead_code))]
pub(crate) fn list_len(first: &[u8]) -> io::Result<u64> {
    if first.len() < 16 || first[..8] != PACK_LIST_MAGIC {
        return Err(invalid("not a pack list".to_owned()));
    }
    let count = u32::from_le_bytes(first[12..16].try_into().unwrap_or_default());
    if count == 0 || count > MAX_RANGES {
        return Err(invalid(format!("a pack list of {count} ranges")));
    }
    Ok((LIST_HEADER + RANGE_LEN * count as usize + 4) as u64)
}

/// The pack list `bytes` (all of them), read and checked as [`list_in`]
/// reads a file's.
pub(crate) fn list_from(bytes: &[u8]) -> io::Result<List> {
    if bytes.len() < LIST_HEADER + 4 {
        return Err(invalid(format!("a pack list of {} bytes", bytes.len())));
    }
    parse_list(&bytes[..LIST_HEADER], bytes.len() as u64, |out| {
        out.copy_from_slice(bytes);
        Ok(())
    })
}

/// A pack list as read: its ranges (pack, where, length) and the
/// artifact's length.
pub(crate) struct List {
    pub(crate) ranges: Vec<([u8; 32], u64, u64)>,
    pub(crate) len: u64,
}

fn invalid(message: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, message)
}

/// Reads and checks the pack list `file` of `file_len` bytes: its length
/// against its count before the ranges are read, its CRC-32, and ranges
/// that follow each other to the artifact's length.
fn read_list(file: &File, file_len: u64) -> io::Result<List> {
    let mut header = [0; LIST_HEADER];
    if file_len < (LIST_HEADER + 4) as u64 {
        return Err(invalid(format!("a pack list of {file_len} bytes")));
    }
    file.read_exact_at(&mut header, 0)?;
    parse_list(&header, file_len, |bytes| file.read_exact_at(bytes, 0))
}

/// Reads and checks a pack list from its first [`LIST_HEADER`] bytes
/// `header`, its length `file_len`, and `read` filling a buffer with its
/// whole bytes.
fn parse_list(header: &[u8], file_len: u64, read: impl FnOnce(&mut [u8]) -> io::Result<()>) -> io::Result<List> {
    let u32_at = |at: usize| u32::from_le_bytes(header[at..at + 4].try_into().unwrap_or_default());
    let u64_at = |bytes: &[u8], at: usize| u64::from_le_bytes(bytes[at..at + 8].try_into().unwrap_or_default());
    if header[..8] != PACK_LIST_MAGIC {
        return Err(invalid("not a pack list".to_owned()));
    }
    let version = u32_at(8);
    if version != PACK_LIST_VERSION {
        return Err(invalid(format!(
            "a pack list of version {version}; this build reads {PACK_LIST_VERSION}; hint: rebuild it"
        )));
    }
    let count = u32_at(12);
    if count == 0 || count > MAX_RANGES {
        return Err(invalid(format!("a pack list of {count} ranges")));
    }
    let expected = (LIST_HEADER + RANGE_LEN * count as usize + 4) as u64;
    if file_len != expected {
        return Err(invalid(format!("a pack list of {count} ranges is {expected} bytes, not {file_len}")));
    }
    let mut bytes = vec![0; expected as usize];
    read(&mut bytes)?;
    let (body, crc) = bytes.split_at(expected as usize - 4);
    if super::header::crc32(&[body]) != u32::from_le_bytes(crc.try_into().unwrap_or_default()) {
        return Err(invalid("the pack list does not match its CRC-32".to_owned()));
    }
    let len = u64_at(body, 16);
    let mut ranges = Vec::with_capacity(count as usize);
    let mut total = 0u64;
    for entry in body[LIST_HEADER..].chunks_exact(RANGE_LEN) {
        let pack: [u8; 32] = entry[..32].try_into().unwrap_or_default();
        let (at, range_len) = (u64_at(entry, 32), u64_at(entry, 40));
        if range_len == 0 {
            return Err(invalid("a pack list names an empty range".to_owned()));
        }
        total = total.checked_add(range_len).ok_or_else(|| invalid("a pack list past 2^64 bytes".to_owned()))?;
        ranges.push((pack, at, range_len));
    }
    if total != len {
        return Err(invalid(format!("a pack list's ranges add up to {total} bytes, not {len}")));
    }
    Ok(List { ranges, len })
}

/// The bytes of a pack list naming `ranges` (pack, where, length) of an
/// artifact of their total length, read back as a reader reads them: an
/// error for ranges no reader takes (none, more than [`MAX_RANGES`], an
/// empty one).
pub(crate) fn list_bytes(ranges: &[([u8; 32], u64, u64)]) -> io::Result<Vec<u8>> {
    if ranges.is_empty() || ranges.len() > MAX_RANGES as usize {
        return Err(invalid(format!("a pack list of {} ranges", ranges.len())));
    }
    let len: u64 = ranges.iter().map(|(_, _, len)| len).sum();
    let mut out = Vec::with_capacity(LIST_HEADER + RANGE_LEN * ranges.len() + 4);
    out.extend_from_slice(&PACK_LIST_MAGIC);
    out.extend_from_slice(&PACK_LIST_VERSION.to_le_bytes());
    out.extend_from_slice(&(ranges.len() as u32).to_le_bytes());
    out.extend_from_slice(&len.to_le_bytes());
    for (pack, at, len) in ranges {
        out.extend_from_slice(pack);
        out.extend_from_slice(&at.to_le_bytes());
        out.extend_from_slice(&len.to_le_bytes());
    }
    let crc = super::header::crc32(&[&out]);
    out.extend_from_slice(&crc.to_le_bytes());
    list_from(&out)?;
    Ok(out)
}

/// The packs folder beside an artifact in `dir`, opened as a folder, never
/// through a link.
pub(crate) fn open_packs_dir(dir: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc_flags::O_DIRECTORY | libc_flags::O_NOFOLLOW)
        .open(dir.join(PACKS_DIR))
}

/// The name of the pack whose SHA-256 is `pack`.
pub(crate) fn pack_name(pack: &[u8; 32]) -> String {
    format!("{}{PACK_SUFFIX}", hex::encode(pack))
}

/// Opens the pack `pack` in the packs folder `packs` (opened), never
/// through a link, without waiting on a FIFO.
fn open_pack(packs: &File, pack: &[u8; 32]) -> io::Result<File> {
    use rustix::fs::{Mode, OFlags};
    let flags = OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::NONBLOCK | OFlags::CLOEXEC;
    let fd = rustix::fs::openat(packs, pack_name(pack).as_str(), flags, Mode::empty())
        .map_err(|e| io::Error::new(io::Error::from(e).kind(), format!("pack {}: {e}", hex::encode(pack))))?;
    Ok(File::from(fd))
}

/// `open(2)` flags, as `std` spells them nowhere.
mod libc_flags {
    pub(super) const O_DIRECTORY: i32 = rustix::fs::OFlags::DIRECTORY.bits() as i32;
    pub(super) const O_NOFOLLOW: i32 = rustix::fs::OFlags::NOFOLLOW.bits() as i32;
}
