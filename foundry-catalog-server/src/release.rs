//! Which artifact a replica may serve, by its place in a series of
//! releases: never one below the highest sequence it has served (kept in
//! the state folder across restarts), never an expired one.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use foundry_catalog_serving::artifact::{ArtifactError, Metadata};
use foundry_catalog_serving::files::ReadError;

/// The file of the state folder that holds the highest sequence served.
const SEQUENCE_FILE: &str = "highest-sequence";
/// The most [`SEQUENCE_FILE`] may hold: a u64 and a newline are 21 bytes.
const MAX_SEQUENCE_FILE_LEN: u64 = 64;

/// The highest sequence this replica has served, and where it is kept.
#[derive(Debug)]
pub(crate) struct Releases {
    highest: Mutex<Option<u64>>,
    file: Option<PathBuf>,
}

impl Releases {
    /// The highest sequence served, read from `state_dir` (made if
    /// missing); a file that does not hold a number is an error, never a
    /// reset.
    pub(crate) fn open(state_dir: Option<&Path>) -> Result<Releases, String> {
        let Some(dir) = state_dir else {
            return Ok(Releases { highest: Mutex::new(None), file: None });
        };
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: cannot make the state folder: {e}", dir.display()))?;
        let file = dir.join(SEQUENCE_FILE);
        // Written by this server: a regular file of a number, never read
        // through a link, never waited on.
        let highest = match foundry_catalog_serving::files::read_bounded(&file, MAX_SEQUENCE_FILE_LEN, false) {
            Ok((bytes, _)) => {
                let text = String::from_utf8_lossy(&bytes);
                Some(text.trim().parse::<u64>().map_err(|_| {
                    format!(
                        "{}: not a sequence number ({:?}); hint: it holds the highest sequence served, so rollbacks stay refused across restarts: restore it, or remove it to trust the next artifact",
                        file.display(),
                        text.chars().take(40).collect::<String>()
                    )
                })?)
            }
            Err(ReadError::NotFound) => None,
            Err(e) => {
                return Err(format!(
                    "{}: cannot read: {e}; hint: it holds the highest sequence served, so rollbacks stay refused across restarts: restore it, or remove it to trust the next artifact",
                    file.display()
                ));
            }
        };
        Ok(Releases { highest: Mutex::new(highest), file: Some(file) })
    }

    /// The highest sequence served.
    pub(crate) fn highest(&self) -> Option<u64> {
        *self.highest.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
    }

    /// Whether `next` may be served after `current` (see
    /// [`Metadata::admissible`]).
    pub(crate) fn admit(&self, next: &Metadata, current: Option<&Metadata>) -> Result<(), ArtifactError> {
        next.admissible(self.highest(), current, SystemTime::now())
    }

    /// Records that `metadata` is being served: its sequence, if higher,
    /// becomes the highest (written to the state folder before it is
    /// served, so a restart keeps refusing what came before).
    pub(crate) fn activate(&self, metadata: &Metadata) -> Result<(), String> {
        let mut highest = self.highest.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        let Some(sequence) = metadata.sequence.filter(|&s| highest.is_none_or(|h| s > h)) else {
            return Ok(());
        };
        if let Some(file) = &self.file {
            let text = format!("{sequence}\n");
            foundry_catalog_serving::files::replace(file, |out| std::io::Write::write_all(out, text.as_bytes()))
                .map_err(|e| format!("{}: cannot record sequence {sequence}: {e}", file.display()))?;
        }
        *highest = Some(sequence);
        Ok(())
    }
}
