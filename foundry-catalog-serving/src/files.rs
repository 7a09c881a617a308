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

/// Reads a file of an input folder: a regular file (not a link, a FIFO,
/// a device or a socket) of at most `max_len` bytes. Opening never blocks
/// (a FIFO is refused, not waited on), and no more than `max_len + 1`
/// bytes are ever read, so a file that grows while read is refused too.
/// Returns its bytes and its metadata as opened.
pub(crate) fn read_regular(path: &Path, max_len: u64) -> Result<(Vec<u8>, std::fs::Metadata), String> {
    let flags = rustix::fs::OFlags::NOFOLLOW | rustix::fs::OFlags::NONBLOCK;
    let file = std::fs::OpenOptions::new().read(true).custom_flags(flags.bits() as i32).open(path);
    let file = match file {
        Ok(file) => file,
        // O_NOFOLLOW on a link: ELOOP.
        Err(e) if e.raw_os_error() == Some(rustix::io::Errno::LOOP.raw_os_error()) => {
            return Err("a symbolic link: a folder of manifests takes regular files only".to_owned());
        }
        Err(e) => return Err(e.to_string()),
    };
    let metadata = file.metadata().map_err(|e| e.to_string())?;
    if !metadata.is_file() {
        return Err(format!("{}: a folder of manifests takes regular files only", kind(&metadata)));
    }
    if metadata.len() > max_len {
        return Err(format!(
            "{} bytes, over the limit of {max_len} for a manifest; hint: raise --max-manifest-bytes if it is meant to be this large",
            metadata.len()
        ));
    }
    let mut bytes = Vec::new();
    bytes.try_reserve_exact(usize::try_from(metadata.len()).unwrap_or(0)).map_err(|e| e.to_string())?;
    file.take(max_len.saturating_add(1)).read_to_end(&mut bytes).map_err(|e| e.to_string())?;
    if bytes.len() as u64 > max_len {
        return Err(format!("grew past the limit of {max_len} bytes for a manifest while it was read"));
    }
    Ok((bytes, metadata))
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
