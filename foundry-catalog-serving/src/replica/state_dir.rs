//! The state folder of a replica: one process at a time (an exclusive
//! lock on its `lock` file, released by the kernel when the process ends,
//! `kill -9` included), and nothing left over from a process that ended
//! mid-write: the partial downloads (`.download-*`) and temporary files
//! (`.<name>.tmp-*`) an earlier process left are removed when the next
//! one opens it.

use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};

/// The lock file of a state folder.
pub(crate) const LOCK: &str = "lock";
/// What a partial download's name starts with.
pub(crate) const DOWNLOAD_PREFIX: &str = ".download-";

/// A state folder this process holds.
#[derive(Debug)]
pub struct StateDir {
    pub(crate) path: PathBuf,
    /// Held open: the lock lasts as long as this process holds it.
    pub(crate) _lock: File,
}

impl StateDir {
    /// Makes `path` if missing, locks it (another process holding it is an
    /// error naming the folder) and removes what an earlier process left
    /// half written. Returns it and the names removed.
    pub fn open(path: &Path) -> Result<(StateDir, Vec<String>), String> {
        let hint = "hint: each replica needs a state folder of its own";
        std::fs::create_dir_all(path).map_err(|e| format!("{}: cannot make the state folder: {e}", path.display()))?;
        let lock_path = path.join(LOCK);
        let lock = open_lock(&lock_path).map_err(|e| format!("{}: cannot open: {e}", lock_path.display()))?;
        match rustix::fs::flock(&lock, rustix::fs::FlockOperation::NonBlockingLockExclusive) {
            Ok(()) => {}
            Err(rustix::io::Errno::WOULDBLOCK) => {
                return Err(format!("{}: another process is using this state folder; {hint}", path.display()));
            }
            Err(e) => return Err(format!("{}: cannot lock: {e}", lock_path.display())),
        }
        let removed = remove_leftovers(path).map_err(|e| format!("{}: cannot clean: {e}", path.display()))?;
        Ok((StateDir { path: path.to_owned(), _lock: lock }, removed))
    }

    /// Its path.
    pub fn path(&self) -> &Path {
        &self.path
    }
}

/// The lock file, made if missing, never through a link.
pub(crate) fn open_lock(path: &Path) -> io::Result<File> {
    use std::os::unix::fs::OpenOptionsExt;
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        .truncate(false)
        .mode(0o644)
        .custom_flags(rustix::fs::OFlags::NOFOLLOW.bits() as i32)
        .open(path)
}

/// Whether `name` is a file a process writes before renaming it, or
/// removes: a partial download, or a temporary file of
/// `crate::files::replace`.
pub(crate) fn is_leftover(name: &str) -> bool {
    name.starts_with(DOWNLOAD_PREFIX) || (name.starts_with('.') && name.contains(".tmp-"))
}

/// Removes every leftover ([`is_leftover`]) of `dir` (a link is removed,
/// never followed); returns their names, sorted.
pub(crate) fn remove_leftovers(dir: &Path) -> io::Result<Vec<String>> {
    let mut removed = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let Some(name) = entry.file_name().to_str().filter(|name| is_leftover(name)).map(str::to_owned) else {
            continue;
        };
        if entry.file_type()?.is_dir() {
            continue;
        }
        std::fs::remove_file(entry.path())?;
        removed.push(name);
    }
    removed.sort();
    Ok(removed)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn leftovers_are_downloads_and_temporary_files_only() {
        for name in [".download-7-100.fcat", ".download-3.fcat", ".last-good.etag.tmp-1-0", ".highest-sequence.tmp-9-2"]
        {
            assert!(is_leftover(name), "{name}");
        }
        for name in ["last-good.fcat", "last-good.etag", "highest-sequence", "lock", "last-good.0123456789abcdef.delta"]
        {
            assert!(!is_leftover(name), "{name}");
        }
    }

    #[test]
    fn a_second_process_is_refused_and_leftovers_are_removed() {
        let dir = std::env::temp_dir().join(format!("foundry-state-dir-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("made");
        for name in (0..150).map(|n| format!(".download-1-{n}.fcat")).chain([".last-good.etag.tmp-1-0".to_owned()]) {
            std::fs::write(dir.join(name), b"partial").expect("written");
        }
        std::fs::write(dir.join("last-good.etag"), b"\"kept\"").expect("written");
        let (held, removed) = StateDir::open(&dir).expect("opens");
        assert_eq!(removed.len(), 151);
        let left: Vec<_> = std::fs::read_dir(&dir).expect("reads").map(|e| e.expect("entry").file_name()).collect();
        assert_eq!(left.len(), 2, "{left:?}");
        // flock locks belong to an open file description: a second open in
        // this process is refused as another process would be.
        let error = StateDir::open(&dir).expect_err("held");
        assert!(error.contains("another process is using this state folder"), "{error}");
        drop(held);
        StateDir::open(&dir).expect("free again");
        let _ = std::fs::remove_dir_all(&dir);
    }
}
