//! Files as this project reads and writes them, read as an attacker could
//! have written them: an output is written to a new file beside it,
//! created exclusively (never through a link someone planted, never over
//! another file), synced and renamed into place; an input folder's file is
//! read only if it is a regular file, not through a link, and within a
//! size limit.

use std::fs::File;
use std::io::{self, Read, Write};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// Writes `path` whole or not at all: `write` fills a new temporary file
/// beside it (`.<name>.tmp-<pid>-<n>`, created exclusively, mode 0644 less
/// the umask), which is synced and renamed over `path`. A reader of
/// `path` sees the old file or the new one, never half of one; a link at
/// a temporary name is never followed (another name is taken); on any
/// error the temporary file is removed and `path` is untouched.
pub fn replace(path: &Path, write: impl FnOnce(&mut File) -> io::Result<()>) -> io::Result<()> {
    let name = path.file_name().ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "not a file name"))?;
    let mut attempt = 0u32;
    let (temporary, mut file) = loop {
        let mut temporary = std::ffi::OsString::from(".");
        temporary.push(name);
        temporary.push(format!(".tmp-{}-{attempt}", std::process::id()));
        let temporary = path.with_file_name(temporary);
        match std::fs::OpenOptions::new().write(true).create_new(true).mode(0o644).open(&temporary) {
            Ok(file) => break (temporary, file),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists && attempt < 100 => attempt += 1,
            // Not "File exists": the file named is not what exists.
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                return Err(io::Error::new(
                    io::ErrorKind::AlreadyExists,
                    format!(
                        "every temporary name beside it (.{}.tmp-{}-0 to -{attempt}) is taken by another file or link; hint: remove them",
                        name.to_string_lossy(),
                        std::process::id()
                    ),
                ));
            }
            Err(e) => return Err(e),
        }
    };
    let written = write(&mut file).and_then(|()| file.flush()).and_then(|()| file.sync_all());
    match written.and_then(|()| std::fs::rename(&temporary, path)) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = std::fs::remove_file(&temporary);
            Err(e)
        }
    }
}

/// A new file in `dir` that no other process can open, for a build to
/// write bodies to as it makes them (`Builder::spool_bodies`): an unnamed
/// file (`O_TMPFILE`) where the file system has them, else one created
/// exclusively under a fresh name, removed at once. It is gone when the
/// last handle to it is closed, whatever happens to the process.
pub(crate) fn spool_in(dir: &Path) -> io::Result<File> {
    #[cfg(target_os = "linux")]
    {
        use rustix::fs::{Mode, OFlags};
        let flags = OFlags::TMPFILE | OFlags::RDWR | OFlags::CLOEXEC;
        match rustix::fs::open(dir, flags, Mode::from_raw_mode(0o600)) {
            Ok(fd) => return Ok(File::from(fd)),
            // Not supported here (another file system, an old kernel): named.
            Err(rustix::io::Errno::OPNOTSUPP | rustix::io::Errno::ISDIR | rustix::io::Errno::INVAL) => {}
            Err(e) => return Err(e.into()),
        }
    }
    for attempt in 0u32..100 {
        let path = dir.join(format!(".foundry-catalog-spool-{}-{attempt}", std::process::id()));
        match std::fs::OpenOptions::new().read(true).write(true).create_new(true).mode(0o600).open(&path) {
            Ok(file) => {
                std::fs::remove_file(&path)?;
                return Ok(file);
            }
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {}
            Err(e) => return Err(e),
        }
    }
    Err(io::Error::new(io::ErrorKind::AlreadyExists, "every spool name is taken by another file or link"))
}

/// Why [`read_bounded`] did not read a file.
#[derive(Debug)]
#[non_exhaustive]
pub enum ReadError {
    /// There is nothing at the path.
    NotFound,
    /// A symbolic link, where links are not followed.
    Link,
    /// Not a regular file: a FIFO, a device, a socket or a folder.
    NotRegular(&'static str),
    /// Larger than the limit, as opened.
    TooLarge {
        /// Its length as opened.
        len: u64,
        /// The limit.
        max_len: u64,
    },
    /// Grown past the limit while read.
    Grew {
        /// The limit.
        max_len: u64,
    },
    /// Any other error of the system.
    Io(io::Error),
}

impl std::fmt::Display for ReadError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ReadError::NotFound => f.write_str("no such file"),
            ReadError::Link => f.write_str("a symbolic link, not followed here: only a regular file is read"),
            ReadError::NotRegular(kind) => write!(f, "{kind}: only a regular file is read"),
            ReadError::TooLarge { len, max_len } => write!(f, "{len} bytes, over the limit of {max_len} for this file"),
            ReadError::Grew { max_len } => write!(f, "grew past the limit of {max_len} bytes while it was read"),
            ReadError::Io(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ReadError {}

/// Reads a regular file (not a FIFO, a device, a socket or a folder) of
/// at most `max_len` bytes, as every file from outside is read: opening
/// never blocks (a FIFO is refused, not waited on), no more than
/// `max_len + 1` bytes are ever read (a file that grows while read, or a
/// link to `/dev/zero`, is refused too), and a link at `path` itself is
/// followed only when `follow_link` (a file the operator named, or a key
/// mounted through links as container secrets are; never a file of a
/// folder this project writes). Returns its bytes and its metadata as
/// opened.
pub fn read_bounded(path: &Path, max_len: u64, follow_link: bool) -> Result<(Vec<u8>, std::fs::Metadata), ReadError> {
    let mut flags = rustix::fs::OFlags::NONBLOCK;
    if !follow_link {
        flags |= rustix::fs::OFlags::NOFOLLOW;
    }
    let file = match std::fs::OpenOptions::new().read(true).custom_flags(flags.bits() as i32).open(path) {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(ReadError::NotFound),
        // O_NOFOLLOW on a link: ELOOP.
        Err(e) if !follow_link && e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) => {
            return Err(ReadError::Link);
        }
        Err(e) => return Err(ReadError::Io(e)),
    };
    let metadata = file.metadata().map_err(ReadError::Io)?;
    if !metadata.is_file() {
        return Err(ReadError::NotRegular(kind(&metadata)));
    }
    if metadata.len() > max_len {
        return Err(ReadError::TooLarge { len: metadata.len(), max_len });
    }
    let mut bytes = Vec::new();
    bytes
        .try_reserve_exact(usize::try_from(metadata.len()).unwrap_or(0))
        .map_err(|e| ReadError::Io(io::Error::other(e)))?;
    file.take(max_len.saturating_add(1)).read_to_end(&mut bytes).map_err(ReadError::Io)?;
    if bytes.len() as u64 > max_len {
        return Err(ReadError::Grew { max_len });
    }
    Ok((bytes, metadata))
}

/// Reads a file of an input folder ([`read_bounded`], never through a
/// link), in the words of a folder of manifests.
pub(crate) fn read_regular(path: &Path, max_len: u64) -> Result<(Vec<u8>, std::fs::Metadata), String> {
    read_bounded(path, max_len, false).map_err(|e| match e {
        ReadError::Link => "a symbolic link: a folder of manifests takes regular files only".to_owned(),
        ReadError::NotRegular(kind) => format!("{kind}: a folder of manifests takes regular files only"),
        ReadError::TooLarge { len, max_len } => format!(
            "{len} bytes, over the limit of {max_len} for a manifest; hint: raise --max-manifest-bytes if it is meant to be this large"
        ),
        ReadError::Grew { max_len } => format!("grew past the limit of {max_len} bytes for a manifest while it was read"),
        other => other.to_string(),
    })
}

/// Opens `path` to read without waiting: a FIFO with no writer opens at
/// once (and is then refused as not a regular file) instead of blocking.
/// A link the caller named is followed (`current.fcat` pointing at a
/// release is a common layout).
pub(crate) fn open_nonblocking(path: &Path) -> io::Result<File> {
    let flags = rustix::fs::OFlags::NONBLOCK;
    std::fs::OpenOptions::new().read(true).custom_flags(flags.bits() as i32).open(path)
}

/// What a file that is not a regular one is, for a message.
fn kind(metadata: &std::fs::Metadata) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    let kind = metadata.file_type();
    if kind.is_fifo() {
        "a FIFO"
    } else if kind.is_char_device() || kind.is_block_device() {
        "a device"
    } else if kind.is_socket() {
        "a socket"
    } else if kind.is_dir() {
        "a folder"
    } else {
        "not a regular file"
    }
}

#[cfg(test)]
mod tests {
    use super::{ReadError, read_bounded, replace};

    /// With every temporary name taken, the error says so, not that the
    /// output (which does not exist) exists; nothing is written.
    #[test]
    fn a_replace_whose_temporary_names_are_taken_says_so() {
        let dir = std::env::temp_dir().join(format!("foundry-catalog-replace-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        for n in 0..=100 {
            std::fs::write(dir.join(format!(".out.fcat.tmp-{}-{n}", std::process::id())), b"").expect("taken");
        }
        let error = replace(&dir.join("out.fcat"), |_| Ok(())).expect_err("no name left");
        let text = error.to_string();
        assert!(text.contains("every temporary name beside it") && !text.contains("File exists"), "{text}");
        assert!(!dir.join("out.fcat").exists());
        let _ = std::fs::remove_dir_all(&dir);
    }

    /// Every way a file from outside can be something else than a small
    /// regular file is refused without waiting or reading on.
    #[test]
    fn only_a_regular_file_within_its_limit_is_read() {
        let dir = std::env::temp_dir().join(format!("foundry-catalog-read-bounded-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).expect("temp dir");
        let (file, fifo, zero, link) = (dir.join("file"), dir.join("fifo"), dir.join("zero"), dir.join("link"));
        std::fs::write(&file, b"1234").expect("write");
        assert!(std::process::Command::new("mkfifo").arg(&fifo).status().expect("mkfifo runs").success());
        std::os::unix::fs::symlink("/dev/zero", &zero).expect("link");
        std::os::unix::fs::symlink(&file, &link).expect("link");

        assert_eq!(read_bounded(&file, 4, false).expect("read").0, b"1234");
        assert!(matches!(read_bounded(&file, 3, false), Err(ReadError::TooLarge { len: 4, max_len: 3 })));
        assert!(matches!(read_bounded(&dir.join("none"), 4, false), Err(ReadError::NotFound)));
        assert!(matches!(read_bounded(&fifo, 4, true), Err(ReadError::NotRegular("a FIFO"))));
        assert!(matches!(read_bounded(&zero, 4, true), Err(ReadError::NotRegular("a device"))));
        assert!(matches!(read_bounded(&zero, 4, false), Err(ReadError::Link)));
        assert!(matches!(read_bounded(&link, 4, false), Err(ReadError::Link)));
        assert_eq!(read_bounded(&link, 4, true).expect("followed").0, b"1234");
        assert!(matches!(read_bounded(&dir, 4, true), Err(ReadError::NotRegular("a folder"))));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
