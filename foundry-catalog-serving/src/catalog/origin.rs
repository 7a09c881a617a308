//! Previous artifact files kept open by the process that builds on them,
//! so that a new artifact's shared bytes are copied file to file: what
//! one process remembers between builds, beside the stamps.

use std::io::Write;
use std::path::Path;
use std::sync::Arc;

use bytes::Bytes;

use super::stamps::Stamp;
use crate::artifact::{Artifact, ArtifactError, Part, SOURCE_LEN};

/// An artifact file kept open, and where its data region is in it.
#[derive(Debug)]
pub(super) struct Origin {
    /// Behind a lock: a copy seeks it.
    file: std::sync::Mutex<std::fs::File>,
    /// Where the data region starts in the file.
    data_offset: u64,
    /// The data region as read: a buffer inside its address range is a
    /// part of the file.
    data: Bytes,
    /// The file's stamp when it was read (length, times, inode: the rule
    /// a folder rebuild uses to tell a changed manifest).
    stamp: Option<Stamp>,
}

impl Origin {
    fn stamp(file: &std::fs::File) -> Option<Stamp> {
        Stamp::new(&file.metadata().ok()?, [0; SOURCE_LEN])
    }

    /// Whether the file is as it was when read.
    fn unchanged(&self) -> bool {
        self.stamp.is_some() && self.file.lock().is_ok_and(|file| Origin::stamp(&file) == self.stamp)
    }

    /// The offset in the file of `bytes`, when they are a slice of the
    /// data read from it (compared by address).
    fn offset_of(&self, bytes: &Bytes) -> Option<u64> {
        let start = self.data.as_ptr() as usize;
        let at = (bytes.as_ptr() as usize).checked_sub(start)?;
        (at + bytes.len() <= self.data.len()).then_some(self.data_offset + at as u64)
    }

    /// Copies `len` bytes of the file from `offset` to `out`, in the
    /// kernel where it can (`std::io::copy` between files).
    fn copy(&self, offset: u64, len: u64, out: &mut std::fs::File) -> std::io::Result<()> {
        let file = self.file.lock().map_err(|_| std::io::Error::other("a copy panicked"))?;
        let mut file = &*file;
        std::io::Seek::seek(&mut file, std::io::SeekFrom::Start(offset))?;
        let copied = std::io::copy(&mut std::io::Read::take(file, len), out)?;
        if copied == len { Ok(()) } else { Err(std::io::ErrorKind::UnexpectedEof.into()) }
    }
}

/// Opens an artifact file to build on: one of format 4 as
/// [`Artifact::open`] does (its head read, its bodies left in the file, to
/// be copied from it unread); an older one read whole as
/// [`Artifact::read`] does, with the file kept open to copy from.
pub(super) fn open(path: &Path) -> Result<(Artifact, Option<Arc<Origin>>), ArtifactError> {
    if let Some(artifact) = Artifact::open_head(path, crate::artifact::DEFAULT_MAX_FILE_LEN)? {
        return Ok((artifact, None));
    }
    let file = crate::files::open_nonblocking(path).map_err(|e| ArtifactError::Read(e.to_string()))?;
    let stamp = Origin::stamp(&file);
    let artifact = Artifact::read_open(&file, crate::artifact::DEFAULT_MAX_FILE_LEN)?;
    let origin = artifact.data_region().map(|data| {
        let data_offset = artifact.file_len() - data.len() as u64;
        Arc::new(Origin { file: std::sync::Mutex::new(file), data_offset, data: data.clone(), stamp })
    });
    Ok((artifact, origin))
}

/// Writes `artifact` to a file as [`Artifact::write_to`] does, copying
/// the bytes it shares with a file in `origins` file to file.
pub(super) fn write_file(artifact: &Artifact, origins: &[Arc<Origin>], out: &mut std::fs::File) -> std::io::Result<()> {
    let origins: Vec<&Origin> = origins.iter().map(|o| &**o).filter(|o| o.unchanged()).collect();
    // (A file changed after this check makes a copy that does not match
    // the CRC-32 computed from memory: refused when loaded, never served.)
    artifact.write_parts(|part| match part {
        Part::Data(bytes) => match origins.iter().find_map(|origin| Some((origin, origin.offset_of(bytes)?))) {
            Some((origin, offset)) => origin.copy(offset, bytes.len() as u64, out),
            None => out.write_all(bytes),
        },
        Part::File(file, at, len) => file.copy_to(at, len, out),
        Part::Head(bytes) => out.write_all(bytes),
    })?;
    out.flush()
}
