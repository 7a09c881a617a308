//! Writing a packed artifact ([`super::stored`]): a new pack of its head
//! (the blocks the artifact it replaces holds, named where they are) and
//! one of the bodies no pack beside it holds yet, a pack list naming every
//! range, and the packs no list beside it names any more removed.

use std::fs::File;
use std::io::{self, Write};
use std::os::unix::fs::MetadataExt;
use std::path::Path;

use sha2::{Digest, Sha256};

use super::stored::{self, PACK_SUFFIX, PACKS_DIR};
use super::{Artifact, Part};

/// What writing a packed artifact did.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct PackTally {
    /// The bytes of the new packs.
    pub written: u64,
    /// The bytes named in packs that were there before.
    pub kept: u64,
    /// How many ranges the pack list names.
    pub ranges: usize,
    /// How many packs no list names any more were removed.
    pub removed: usize,
    /// Whether the artifact was written as new packs again, its packs
    /// holding more than twice its bytes (or its ranges more than a list
    /// holds).
    pub compacted: bool,
    /// Why packs no list names were not all removed, if they were not
    /// (they are removed by the next build that can).
    pub cleanup: Option<String>,
}

/// Where a range of the new artifact is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum In {
    /// The new pack of its head (the header to the table): its summary,
    /// and the blocks the artifact replaced does not hold.
    Head,
    /// The new pack of the bodies no pack held.
    Bodies,
    /// A pack that was there, by its SHA-256.
    Pack([u8; 32]),
}

/// A range of the new artifact: where, from which byte, how long.
type Range = (In, u64, u64);

/// A range of the new artifact in a pack: its SHA-256, from which byte,
/// how long.
type Named = ([u8; 32], u64, u64);

/// A run of a new artifact's head that a previous artifact holds: where
/// in the new one, how many bytes, where in the previous one.
type HeadRun = (u64, u64, u64);

/// Whether the `expected.len()` bytes of `file` at `at` are `expected`
/// (read into `buffer`); a read that fails is not.
fn same_bytes(file: &File, at: u64, expected: &[u8], buffer: &mut Vec<u8>) -> bool {
    use std::os::unix::fs::FileExt;
    buffer.resize(expected.len(), 0);
    file.read_exact_at(buffer, at).is_ok() && buffer == expected
}

impl Artifact {
    /// Writes it as a packed artifact at `path`: the bytes that packs in
    /// the folder `fcpacks` beside `path` hold already (those of a previous
    /// packed artifact there, which a build took unread) are named, not
    /// copied, and so are the blocks of its head that the packed artifact
    /// at `path` holds (the same digest and lengths in its block list, and
    /// the same bytes in its pack, compared); the rest goes to two new
    /// packs, each named by its SHA-256: one of its head (the header to
    /// the table), one of the bodies no pack held; then the pack list
    /// replaces `path` (written beside it, synced and renamed, as
    /// [`crate::files::replace`] does), and the packs that no pack list in
    /// `path`'s folder names (nor the list it replaced) are removed. When
    /// the packs it would name hold more than twice its bytes (old
    /// versions of edited products and blocks), or it would need more
    /// ranges than a list holds, it is written as two new packs instead;
    /// when it would name more than 16 packs, the ranges of all but the
    /// one that holds the most go to the new packs. Builds writing
    /// into one folder take turns (a lock on `fcpacks`, waited for at
    /// most 5 minutes), and a pack is
    /// named only if the file at its name is still the one read (else its
    /// bytes are copied), so that no build names a pack another removed.
    /// An error in removing packs is told in [`PackTally::cleanup`], not
    /// returned: the artifact is written.
    pub fn write_packed(&self, path: &Path) -> io::Result<PackTally> {
        let dir = path.parent().filter(|dir| !dir.as_os_str().is_empty()).unwrap_or(Path::new("."));
        match std::fs::create_dir(dir.join(PACKS_DIR)) {
            Err(e) if e.kind() != io::ErrorKind::AlreadyExists => return Err(e),
            _ => {}
        }
        let packs = stored::open_packs_dir(dir)?;
        take_turn(&packs, dir)?;
        let meta = packs.metadata()?;
        let here = (meta.dev(), meta.ino());
        // The packed artifact this one replaces, in this folder: the head
        // blocks it holds are named where they are.
        let replacing = Artifact::open(path, u64::MAX).ok();
        let replacing = replacing.as_ref().and_then(|old| {
            let file = &old.body_file()?.file;
            (file.packs_dir() == Some(here)).then(|| (file, self.head_runs(old)))
        });
        let previous = replacing.as_ref().map(|(file, runs)| (*file, runs.as_slice()));
        let mut tally = PackTally::default();
        let (mut ranges, new) = self.pack_ranges(Some(here), previous, &|_| true, &packs, &mut tally)?;
        let named = distinct(&ranges);
        let too_many = ranges.len() > stored::MAX_RANGES as usize;
        if too_many || (tally.kept > 0 && pack_bytes(&packs, &named) > self.file_len().saturating_mul(2)) {
            tally = PackTally { compacted: true, ..PackTally::default() };
            ranges = self.pack_ranges(None, None, &|_| false, &packs, &mut tally)?.0;
        } else if named.len() > MAX_PACKS {
            // The packs of earlier edits, each small, into the new one; the
            // earlier pack that holds the most stays named.
            let held = |pack: &&[u8; 32]| ranges.iter().filter(|r| r.0 == **pack).map(|r| r.2).sum::<u64>();
            let most = named.iter().filter(|pack| !new.contains(pack)).max_by_key(held).copied();
            tally = PackTally::default();
            ranges = self.pack_ranges(Some(here), previous, &|pack| Some(*pack) == most, &packs, &mut tally)?.0;
        }
        let list = stored::list_bytes(&ranges)?;
        // The packs of the list this one replaces stay until the next build.
        let replaced: Vec<[u8; 32]> = crate::files::open_nonblocking(path)
            .and_then(|file| {
                let len = file.metadata()?.len();
                stored::list_in(&file, len)
            })
            .ok()
            .flatten()
            .map(|list| list.ranges.into_iter().map(|(pack, _, _)| pack).collect())
            .unwrap_or_default();
        crate::files::replace(path, |file| file.write_all(&list))?;
        // The list's new name on disk before any pack it no longer names
        // is removed: after a crash, the list found names packs that are
        // there.
        std::fs::File::open(dir).and_then(|dir| dir.sync_all())?;
        tally.ranges = ranges.len();
        match remove_unnamed(dir, &packs, replaced) {
            Ok(removed) => tally.removed = removed,
            Err(e) => tally.cleanup = Some(format!("packs no list names were not all removed: {e}")),
        }
        Ok(tally)
    }

    /// Where the artifact `old` holds this one's head: runs of (where in
    /// this artifact, how many bytes, where in `old`), in order. The slug
    /// directory when its digest and length are the same, each block of
    /// index entries and of table bytes when `old` has a block of the same
    /// digest and lengths.
    fn head_runs(&self, old: &Artifact) -> Vec<HeadRun> {
        let mut runs = Vec::new();
        if old.has_directory(&self.metadata().directory_sha256, self.directory_len()) {
            runs.push((self.directory_at(), self.directory_len(), old.directory_at()));
        }
        let mut table = Vec::new();
        let blocks = self.blocks();
        for (block, found) in blocks.iter().zip(old.holding(&blocks)) {
            let Some((index, old_table)) = found else { continue };
            let index_at = self.stored_index_at() + block.index.start;
            runs.push((index_at, block.index.end - block.index.start, old.stored_index_at() + index.start));
            let table_at = self.data_at() + block.table.start;
            table.push((table_at, block.table.end - block.table.start, old.data_at() + old_table.start));
        }
        runs.extend(table);
        runs.retain(|run| run.1 > 0);
        runs
    }

    /// Writes the new packs in `packs` and returns every range of the
    /// artifact, each new range named by its new pack's digest, and those
    /// digests; bytes in a pack of the folder `here` (device, inode) that
    /// `keep` keeps are named where they are, when the file at the pack's
    /// name is the one they were read from; the rest are copied. So are
    /// the head's bytes that `previous` (the packed artifact replaced, and
    /// [`Artifact::head_runs`] of it) holds, when its bytes are the same.
    fn pack_ranges(
        &self,
        here: Option<(u64, u64)>,
        previous: Option<(&stored::StoredFile, &[HeadRun])>,
        keep: &dyn Fn(&[u8; 32]) -> bool,
        packs: &File,
        tally: &mut PackTally,
    ) -> io::Result<(Vec<Named>, Vec<[u8; 32]>)> {
        // The head in a pack of its own, the bodies in another: an edit
        // writes its summary and the head blocks that changed.
        let mut head = NewPack::create(packs)?;
        let mut bodies = match NewPack::create(packs) {
            Ok(bodies) => bodies,
            Err(e) => {
                head.discard(packs);
                return Err(e);
            }
        };
        let mut ranges: Vec<Range> = Vec::new();
        let push = |range: Range, ranges: &mut Vec<Range>| match ranges.last_mut() {
            _ if range.2 == 0 => {}
            Some((pack, at, len)) if *pack == range.0 && *at + *len == range.1 => *len += range.2,
            _ => ranges.push(range),
        };
        // Whether the file at each pack's name is the one read.
        let mut still: std::collections::BTreeMap<[u8; 32], bool> = std::collections::BTreeMap::new();
        // Where the next part starts in the artifact, and a buffer to
        // compare the previous artifact's head bytes with.
        let (mut next_at, mut compared) = (0u64, Vec::new());
        let written = self.write_parts(|part| {
            let from = next_at;
            next_at += match &part {
                Part::Head(bytes) => bytes.len() as u64,
                Part::Data(bytes) => bytes.len() as u64,
                Part::File(_, _, len) => *len,
            };
            let (new, slot, bytes): (&mut NewPack, In, &[u8]) = match part {
                // Runs of the head the previous artifact holds, when its
                // bytes are these: named in its packs.
                Part::Head(bytes) if let Some((old, runs)) = previous => {
                    let mut write = |slice: &[u8], ranges: &mut Vec<Range>| -> io::Result<()> {
                        let at = head.len;
                        head.write(slice)?;
                        push((In::Head, at, slice.len() as u64), ranges);
                        Ok(())
                    };
                    let (mut at, end) = (from, next_at);
                    let mut next = runs.partition_point(|&(start, len, _)| start + len <= at);
                    while at < end {
                        let (upto, old_at) = match runs.get(next) {
                            Some(&(start, len, old)) if start <= at => ((start + len).min(end), Some(old + at - start)),
                            Some(&(start, ..)) => (start.min(end), None),
                            None => (end, None),
                        };
                        let slice = &bytes[(at - from) as usize..(upto - from) as usize];
                        match old_at.and_then(|old_at| old.in_packs(old_at, slice.len() as u64)) {
                            Some(pieces) => {
                                let mut done = 0;
                                for (pack, opened, pack_at, len) in pieces {
                                    let part = &slice[done..done + len as usize];
                                    let there = *still.entry(pack).or_insert_with(|| same_file(packs, &pack, opened));
                                    if there && keep(&pack) && same_bytes(opened, pack_at, part, &mut compared) {
                                        tally.kept += len;
                                        push((In::Pack(pack), pack_at, len), &mut ranges);
                                    } else {
                                        write(part, &mut ranges)?;
                                    }
                                    done += len as usize;
                                }
                            }
                            None => write(slice, &mut ranges)?,
                        }
                        if runs.get(next).is_some_and(|&(start, len, _)| start + len <= upto) {
                            next += 1;
                        }
                        at = upto;
                    }
                    return Ok(());
                }
                Part::Head(bytes) => (&mut head, In::Head, bytes),
                Part::Data(bytes) => (&mut bodies, In::Bodies, bytes),
                Part::File(file, at, len) => {
                    let from = file.data_at.checked_add(at).ok_or(io::ErrorKind::InvalidInput)?;
                    let same_folder = here.is_some() && file.file.packs_dir() == here;
                    let in_packs = file.file.in_packs(from, len).filter(|_| same_folder);
                    let mut cursor = from;
                    let mut copy = |cursor: u64, len: u64, ranges: &mut Vec<Range>| -> io::Result<()> {
                        let at = bodies.len;
                        bodies.copy_from(&file.file, cursor, len)?;
                        push((In::Bodies, at, len), ranges);
                        Ok(())
                    };
                    let Some(in_packs) = in_packs else { return copy(from, len, &mut ranges) };
                    for (pack, opened, at, len) in in_packs {
                        let there = *still.entry(pack).or_insert_with(|| same_file(packs, &pack, opened));
                        if there && keep(&pack) {
                            tally.kept += len;
                            push((In::Pack(pack), at, len), &mut ranges);
                        } else {
                            copy(cursor, len, &mut ranges)?;
                        }
                        cursor += len;
                    }
                    return Ok(());
                }
            };
            if !bytes.is_empty() {
                let at = new.len;
                new.write(bytes)?;
                push((slot, at, bytes.len() as u64), &mut ranges);
            }
            Ok(())
        });
        if let Err(e) = written {
            head.discard(packs);
            bodies.discard(packs);
            return Err(e);
        }
        tally.written = head.len + bodies.len;
        let bodies = if bodies.len == 0 {
            bodies.discard(packs);
            None
        } else {
            match bodies.finish(packs) {
                Ok(digest) => Some(digest),
                Err(e) => {
                    head.discard(packs);
                    return Err(e);
                }
            }
        };
        let head = head.finish(packs)?;
        let ranges = ranges
            .into_iter()
            .map(|(slot, at, len)| match slot {
                In::Head => (head, at, len),
                // A range of bodies was written: they have a pack.
                In::Bodies => (bodies.unwrap_or(head), at, len),
                In::Pack(pack) => (pack, at, len),
            })
            .collect();
        Ok((ranges, [Some(head), bodies].into_iter().flatten().collect()))
    }
}

/// How long a build waits for another writing packs into its folder.
const TURN_WAIT: std::time::Duration = std::time::Duration::from_secs(300);

/// Takes the folder's turn (an exclusive lock on `packs`, held until it is
/// closed, and let go by the kernel when a build dies), waiting at most
/// [`TURN_WAIT`] for another build to finish: past it, an error naming
/// the folder.
fn take_turn(packs: &File, dir: &Path) -> io::Result<()> {
    let started = std::time::Instant::now();
    loop {
        match rustix::fs::flock(packs, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => return Ok(()),
            Err(rustix::io::Errno::WOULDBLOCK) if started.elapsed() < TURN_WAIT => {
                std::thread::sleep(std::time::Duration::from_millis(50));
            }
            Err(rustix::io::Errno::WOULDBLOCK) => {
                return Err(io::Error::new(
                    io::ErrorKind::WouldBlock,
                    format!(
                        "another build has been writing packs into {} for {TURN_WAIT:?}; hint: wait for it to end, or write elsewhere",
                        dir.join(PACKS_DIR).display()
                    ),
                ));
            }
            Err(e) => return Err(e.into()),
        }
    }
}

/// Whether the file named by `pack` in `packs` is `opened` (the same
/// device and inode): a pack another build removed, or replaced, is not.
fn same_file(packs: &File, pack: &[u8; 32], opened: &File) -> bool {
    let named = rustix::fs::statat(packs, stored::pack_name(pack).as_str(), rustix::fs::AtFlags::SYMLINK_NOFOLLOW);
    let opened = rustix::fs::fstat(opened);
    match (named, opened) {
        (Ok(named), Ok(opened)) => named.st_dev == opened.st_dev && named.st_ino == opened.st_ino,
        _ => false,
    }
}

/// A pack being written: a new file in the packs folder, hashed as it is
/// written.
struct NewPack {
    file: File,
    name: String,
    hash: Sha256,
    len: u64,
}

impl NewPack {
    /// A new file in `packs`, created exclusively under a name no pack
    /// has (never through a link).
    fn create(packs: &File) -> io::Result<NewPack> {
        use rustix::fs::{Mode, OFlags};
        let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        for attempt in 0..100 {
            let name = format!(".new-{}-{attempt}{PACK_SUFFIX}.tmp", std::process::id());
            match rustix::fs::openat(packs, name.as_str(), flags, Mode::from_raw_mode(0o644)) {
                Ok(fd) => return Ok(NewPack { file: File::from(fd), name, hash: Sha256::new(), len: 0 }),
                Err(rustix::io::Errno::EXIST) => {}
                Err(e) => return Err(e.into()),
            }
        }
        Err(io::Error::new(io::ErrorKind::AlreadyExists, "every temporary pack name is taken; hint: remove them"))
    }

    fn write(&mut self, bytes: &[u8]) -> io::Result<()> {
        self.file.write_all(bytes)?;
        self.hash.update(bytes);
        self.len += bytes.len() as u64;
        Ok(())
    }

    /// Copies `len` bytes of `from` at `at` into the pack, through a
    /// buffer (they are hashed).
    fn copy_from(&mut self, from: &stored::StoredFile, at: u64, len: u64) -> io::Result<()> {
        stored::through_buffer(at, len, |buf, at| from.read_exact_at(buf, at), |bytes| self.write(bytes))
    }

    /// Syncs it and names it by its SHA-256 (a pack of that name holds
    /// the same bytes: it is kept, and this one removed); returns the
    /// digest.
    fn finish(self, packs: &File) -> io::Result<[u8; 32]> {
        let digest: [u8; 32] = self.hash.clone().finalize().into();
        // Over any file of that name: a pack of the same bytes (readers
        // that hold it open keep reading it), or anything else.
        let renamed = self.file.sync_all().and_then(|()| {
            let name = stored::pack_name(&digest);
            rustix::fs::renameat(packs, self.name.as_str(), packs, name.as_str())?;
            Ok(())
        });
        if renamed.is_err() {
            let _ = rustix::fs::unlinkat(packs, self.name.as_str(), rustix::fs::AtFlags::empty());
        }
        renamed?;
        rustix::fs::fsync(packs)?;
        Ok(digest)
    }

    fn discard(self, packs: &File) {
        let _ = rustix::fs::unlinkat(packs, self.name.as_str(), rustix::fs::AtFlags::empty());
    }
}

/// The most packs a list names before the small ones are written into
/// one: each is a file a server holds open.
const MAX_PACKS: usize = 16;

/// The packs `ranges` name, each once.
fn distinct(ranges: &[Named]) -> Vec<[u8; 32]> {
    let mut packs: Vec<[u8; 32]> = ranges.iter().map(|(pack, _, _)| *pack).collect();
    packs.sort_unstable();
    packs.dedup();
    packs
}

/// The bytes of the packs `named` (in the folder `packs`).
fn pack_bytes(packs: &File, named: &[[u8; 32]]) -> u64 {
    named
        .iter()
        .filter_map(|pack| {
            rustix::fs::statat(packs, stored::pack_name(pack).as_str(), rustix::fs::AtFlags::SYMLINK_NOFOLLOW).ok()
        })
        .map(|stat| u64::try_from(stat.st_size).unwrap_or(0))
        .sum()
}

/// Removes the packs in `packs` that no pack list in `dir` names, nor
/// the list just replaced (`replaced`: a reader that opened it a moment
/// before finds its packs; they go with the next build); returns how
/// many. A file in `dir` is a pack list when it is a regular file
/// (not a link) that starts with the pack list's magic; one that does but
/// does not read as a list names nothing, and a pack is kept unless it is
/// named nowhere and its name is a pack's.
fn remove_unnamed(dir: &Path, packs: &File, replaced: Vec<[u8; 32]>) -> io::Result<usize> {
    let mut named = replaced;
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        if !entry.file_type().is_ok_and(|t| t.is_file()) {
            continue;
        }
        let Ok(file) = crate::files::open_nonblocking(&entry.path()) else { continue };
        let Ok(metadata) = file.metadata() else { continue };
        if !metadata.is_file() {
            continue;
        }
        match stored::list_in(&file, metadata.len()) {
            Ok(Some(list)) => named.extend(list.ranges.into_iter().map(|(pack, _, _)| pack)),
            Ok(None) => {}
            // A list being written, or broken: keep every pack, to be safe.
            Err(_) => return Ok(0),
        }
    }
    named.sort_unstable();
    named.dedup();
    let mut removed = 0;
    for entry in std::fs::read_dir(dir.join(PACKS_DIR))? {
        let entry = entry?;
        let name = entry.file_name();
        // A pack a build left half written when it stopped: builds take
        // turns, so none is writing it now.
        if name.to_str().is_some_and(|name| name.starts_with(".new-") && name.ends_with(".fcpack.tmp")) {
            rustix::fs::unlinkat(packs, name.as_os_str(), rustix::fs::AtFlags::empty())?;
            continue;
        }
        let Some(hex) = name.to_str().and_then(|name| name.strip_suffix(PACK_SUFFIX)) else { continue };
        let Some(pack) = hex::decode(hex).ok().and_then(|bytes| <[u8; 32]>::try_from(bytes).ok()) else { continue };
        if hex.len() == 64 && named.binary_search(&pack).is_err() {
            rustix::fs::unlinkat(packs, name.as_os_str(), rustix::fs::AtFlags::empty())?;
            removed += 1;
        }
    }
    Ok(removed)
}
