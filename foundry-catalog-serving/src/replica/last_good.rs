//! The last good artifact in the state folder: a whole file
//! ([`LAST_GOOD`]), or that file as the base of a layered one. A delta
//! pulled over it is written as a sparse file whose bodies and blocks of
//! head the base holds are holes, read from the base
//! ([`crate::delta::open_layered`]), so a one-product edit writes that
//! product's bytes, its block of the head and the head's summary and slug
//! directory, not a copy of every body nor the whole head. The delta is named after its base's content digest
//! (`last-good.<16 hex>.delta`): a delta left beside another base (a
//! crash between the two renames of a whole download) is never read.
//! Once a delta would hold more than [`LAYERED_MAX_SHARE`] of its
//! artifact, the pull writes the whole file instead, which becomes the
//! base. Kept with its ETag (`last-good.etag`); one that cannot be served
//! any more is set aside (`set-aside.fcat`).

use std::io::{self, Write};
use std::path::{Path, PathBuf};
use std::sync::atomic::Ordering;

use crate::artifact::Artifact;
use crate::catalog::{CatalogErrors, OpenOptions, ResponseCatalog};

use super::download::Download;

/// The last good artifact, in the state folder.
pub(crate) const LAST_GOOD: &str = "last-good.fcat";

/// Its ETag at the origin.
pub(crate) const LAST_GOOD_ETAG: &str = "last-good.etag";

/// A last good artifact that could not be served any more (below the
/// highest sequence served), kept for whoever wants to look at it.
pub(crate) const SET_ASIDE: &str = "set-aside.fcat";

/// A delta over [`LAST_GOOD`] holds at most this share of its artifact's
/// bytes (its head, and the bodies its base does not have): past it, a
/// pull writes the whole file, which becomes the base. An eighth bounds
/// the disk a layered state takes to 1.125 times the artifact, and what a
/// pull writes to an eighth of it, while edits that touch a few products
/// each write only those.
pub(crate) const LAYERED_MAX_SHARE: (u64, u64) = (1, 8);

/// A delta's name: these around the first [`DELTA_DIGITS`] hex digits of
/// its base's content digest.
pub(crate) const DELTA_NAME: (&str, &str) = ("last-good.", ".delta");

pub(crate) const DELTA_DIGITS: usize = 16;

/// Whether `digits` are what a delta's name carries of a digest.
pub(crate) fn names_a_base(digits: &str) -> bool {
    digits.len() == DELTA_DIGITS && digits.bytes().all(|b| b.is_ascii_hexdigit())
}

/// The name of a delta over a base whose content digest is `digest`;
/// `None` for a digest that is not hex.
pub(crate) fn delta_name(digest: &str) -> Option<String> {
    let digits = digest.get(..DELTA_DIGITS).filter(|digits| names_a_base(digits))?;
    Some(format!("{}{digits}{}", DELTA_NAME.0, DELTA_NAME.1))
}

/// Whether `name` is a delta's name ([`delta_name`]).
pub(crate) fn is_delta_name(name: &str) -> bool {
    name.strip_prefix(DELTA_NAME.0).and_then(|rest| rest.strip_suffix(DELTA_NAME.1)).is_some_and(names_a_base)
}

/// The last good artifact as a pull reads it, layered over its base
/// ([`LAST_GOOD`]) when a delta is kept, and its base's content digest
/// (what names a delta over it).
#[derive(Debug, Clone)]
pub(crate) struct LastGood {
    pub(crate) artifact: Artifact,
    pub(crate) base_digest: String,
}

/// The last good artifact as this process kept it: the stamps of its
/// files then (the base, and the delta over it if any), and the artifact
/// as loaded, every body checked.
#[derive(Debug)]
pub(crate) struct Kept {
    pub(crate) stamps: (FileStamp, Option<FileStamp>),
    pub(crate) last_good: LastGood,
}

/// The most [`LAST_GOOD_ETAG`] may hold: an origin's entity tag.
pub(crate) const MAX_ETAG_FILE_LEN: u64 = 1 << 10;

/// What identifies a file's contents without reading them: its length,
/// modification and change times, inode and device (the change time is
/// the kernel's: any write, truncation or rename sets it).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct FileStamp {
    pub(crate) len: u64,
    pub(crate) modified: (i64, i64),
    pub(crate) changed: (i64, i64),
    pub(crate) inode: u64,
    pub(crate) device: u64,
}

impl FileStamp {
    pub(crate) fn of(path: &Path) -> Option<FileStamp> {
        use std::os::unix::fs::MetadataExt;
        let metadata = std::fs::symlink_metadata(path).ok().filter(std::fs::Metadata::is_file)?;
        Some(FileStamp {
            len: metadata.len(),
            modified: (metadata.mtime(), metadata.mtime_nsec()),
            changed: (metadata.ctime(), metadata.ctime_nsec()),
            inode: metadata.ino(),
            device: metadata.dev(),
        })
    }
}

/// The last good files of a state folder, and what this process knows
/// of them.
#[derive(Debug)]
pub(crate) struct LastGoodFiles {
    pub(crate) state_dir: PathBuf,
    /// The last good artifact as this process kept it, every body
    /// checked: while its files keep their stamps, a delta's bytes copied
    /// or read from them are not checked again, and its head is not read
    /// again (the artifact kept is the one served: it costs no memory).
    pub(crate) checked: std::sync::Mutex<Option<Kept>>,
    /// Whether the next pull is a whole download, even of an unchanged
    /// artifact (the last good file is not to be trusted).
    pub(crate) whole_next: std::sync::atomic::AtomicBool,
}

impl LastGoodFiles {
    /// The last good files of `state_dir`.
    pub(crate) fn new(state_dir: &Path) -> LastGoodFiles {
        LastGoodFiles {
            state_dir: state_dir.to_owned(),
            checked: std::sync::Mutex::new(None),
            whole_next: std::sync::atomic::AtomicBool::new(false),
        }
    }

    /// Whether the last good files are as this process kept them, every
    /// body checked (files it did not keep, or changed since, are not).
    pub(crate) fn last_good_checked(&self, delta: Option<&Path>) -> bool {
        let kept = self.checked.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        kept.as_ref().is_some_and(|kept| self.stamps_hold(kept, delta))
    }

    /// Whether the last good files are the ones `kept` names: the base,
    /// and `delta` (the delta kept over it, if any), with the stamps they
    /// had when kept.
    pub(crate) fn stamps_hold(&self, kept: &Kept, delta: Option<&Path>) -> bool {
        let stamps = (FileStamp::of(&self.state_dir.join(LAST_GOOD)), delta.and_then(FileStamp::of));
        stamps == (Some(kept.stamps.0), kept.stamps.1)
    }

    /// The delta kept over a base whose content digest is `digest`, if any
    /// (a regular file, never a link).
    pub(crate) fn delta_over(&self, digest: &str) -> Option<PathBuf> {
        let path = self.state_dir.join(delta_name(digest)?);
        std::fs::symlink_metadata(&path).ok().filter(std::fs::Metadata::is_file).map(|_| path)
    }

    /// Opens the last good artifact and loads it ([`LastGoodFiles::last_good`]
    /// says whether there is one): layered over its base when a delta is
    /// kept for it, else the whole file.
    pub(crate) fn open_last_good(&self, options: &OpenOptions) -> Result<ResponseCatalog, CatalogErrors> {
        match self.base_and_delta(options.max_len) {
            Some((base, Some(delta))) => ResponseCatalog::open_layered_with(&delta, &base, options),
            _ => ResponseCatalog::open_with(&self.state_dir.join(LAST_GOOD), options),
        }
    }

    /// The head of [`LAST_GOOD`] when it opens (a file of an older format
    /// is refused from its header, and the next pull downloads the
    /// artifact whole), and the delta kept over it, if any.
    pub(crate) fn base_and_delta(&self, max_len: u64) -> Option<(Artifact, Option<PathBuf>)> {
        let base = Artifact::open(&self.last_good()?, max_len).ok()?;
        let delta = self.delta_over(&base.metadata().content_sha256);
        Some((base, delta))
    }

    /// The last good file may hold bodies that do not match their ETags
    /// (one failed its check while served, or a delta copied from it
    /// failed its check): it is not copied from, and the next pull
    /// downloads the artifact whole, even when the origin's is unchanged.
    pub(crate) fn distrust_last_good(&self) {
        *self.checked.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = None;
        self.whole_next.store(true, Ordering::Relaxed);
    }

    /// Moves the last good artifact aside, as [`SET_ASIDE`] (replacing
    /// one set aside before), with the deltas over it and its ETag, so the
    /// next pull downloads the origin's artifact whole; returns where.
    pub(crate) fn set_aside_last_good(&self) -> io::Result<PathBuf> {
        let aside = self.state_dir.join(SET_ASIDE);
        std::fs::rename(self.state_dir.join(LAST_GOOD), &aside)?;
        for entry in std::fs::read_dir(&self.state_dir)? {
            let entry = entry?;
            if entry.file_name().to_str().is_some_and(|name| is_delta_name(name) || name == LAST_GOOD_ETAG) {
                std::fs::remove_file(entry.path())?;
            }
        }
        *self.checked.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = None;
        Ok(aside)
    }

    /// [`LastGoodFiles::distrust_last_good`] for a body of it that failed its
    /// check while served; `true` when a repair was not already asked for
    /// (the next pull asks for it).
    pub(crate) fn repair_once(&self) -> bool {
        if self.whole_next.load(Ordering::Relaxed) {
            return false;
        }
        self.distrust_last_good();
        true
    }

    /// The last good artifact kept in the state folder, if any.
    pub(crate) fn last_good(&self) -> Option<PathBuf> {
        let path = self.state_dir.join(LAST_GOOD);
        path.is_file().then_some(path)
    }

    /// The last good artifact's head, layered over its base when a delta
    /// is kept, when it is of format 4 (judged from its header: an older
    /// one is not read).
    ///
    /// The one this process kept is taken as it is held while its files
    /// are unchanged: nothing is read.
    pub(crate) fn last_good_with_head(&self, max_len: u64) -> Option<LastGood> {
        {
            let kept = self.checked.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            if let Some(kept) = kept.as_ref() {
                let delta = self.delta_over(&kept.last_good.base_digest);
                if self.stamps_hold(kept, delta.as_deref()) {
                    return Some(kept.last_good.clone());
                }
            }
        }
        let (base, delta) = self.base_and_delta(max_len)?;
        let artifact = match delta {
            Some(delta) => crate::delta::open_layered(&delta, &base, max_len).ok()?,
            None => base.clone(),
        };
        Some(LastGood { artifact, base_digest: base.metadata().content_sha256.clone() })
    }

    /// The content digest of the last good artifact, if there is one.
    pub(crate) fn last_good_digest(&self, max_len: u64) -> Option<String> {
        self.last_good_with_head(max_len).map(|last_good| last_good.artifact.metadata().content_sha256.clone())
    }

    /// Keeps a checked download as the last good artifact, with its ETag:
    /// a layered one as the delta over its base, a whole one as the base,
    /// every delta over the base it replaces then removed.
    pub(crate) fn keep(&self, download: Download, artifact: &Artifact) -> io::Result<()> {
        let etag_file = self.state_dir.join(LAST_GOOD_ETAG);
        // The old ETag goes first: an ETag never names another file.
        match std::fs::remove_file(&etag_file) {
            Err(e) if e.kind() != io::ErrorKind::NotFound => return Err(e),
            _ => {}
        }
        let base = self.state_dir.join(LAST_GOOD);
        let delta = match &download.base_digest {
            Some(over) => {
                let name = delta_name(over)
                    .ok_or_else(|| io::Error::other("a layered download over a base without a digest"))?;
                Some(self.state_dir.join(name))
            }
            None => None,
        };
        std::fs::rename(&download.path, delta.as_ref().unwrap_or(&base))?;
        // Deltas over another base are never read: removed.
        for entry in std::fs::read_dir(&self.state_dir)? {
            let entry = entry?;
            let stale = entry.file_name().to_str().is_some_and(is_delta_name)
                && delta.as_ref().is_none_or(|delta| entry.path() != *delta);
            if stale {
                std::fs::remove_file(entry.path())?;
            }
        }
        // Every body of it was checked (or copied from a file that was).
        let base_digest = download.base_digest.clone().unwrap_or_else(|| artifact.metadata().content_sha256.clone());
        let last_good = LastGood { artifact: artifact.clone(), base_digest };
        // Kept as held when its bodies are read from its files (format 4).
        *self.checked.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = FileStamp::of(&base)
            .filter(|_| artifact.bodies_in_files())
            .map(|base| Kept { stamps: (base, delta.as_deref().and_then(FileStamp::of)), last_good });
        if let Some(etag) = &download.etag {
            crate::files::replace(&etag_file, |out| out.write_all(etag.as_bytes()))?;
        }
        Ok(())
    }
}
