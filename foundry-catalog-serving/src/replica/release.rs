//! Which artifact a replica may serve, by its place in a series of
//! releases: never one below the highest sequence it has served (kept in
//! the state folder across restarts), never an expired one.

use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::SystemTime;

use crate::artifact::{ArtifactError, HighestServed, Metadata};
use crate::catalog::{CatalogError, CatalogErrors, ResponseCatalog};
use crate::files::ReadError;

/// The file of the state folder that holds the highest sequence served,
/// and the content digest of the artifact served under it: `8 3f…\n` (a
/// file written before the digest was kept holds the number alone).
pub(crate) const SEQUENCE_FILE: &str = "highest-sequence";
/// The most [`SEQUENCE_FILE`] may hold: a u64, a space, a SHA-256 in hex
/// and a newline are 86 bytes.
pub(crate) const MAX_SEQUENCE_FILE_LEN: u64 = 128;
/// What every refusal of [`SEQUENCE_FILE`] ends with.
pub(crate) const SEQUENCE_FILE_HINT: &str = "hint: it holds the highest sequence served, so rollbacks stay refused across restarts: restore it, or remove it to trust the next artifact";

/// The highest sequence this replica has served, the content digest of
/// the artifact it served under it (when known), and where they are kept.
#[derive(Debug)]
pub struct Releases {
    pub(crate) highest: Mutex<Option<HighestServed>>,
    pub(crate) file: Option<PathBuf>,
}

impl Releases {
    /// The highest sequence served, read from `state_dir` (made if
    /// missing); a file that does not hold a number is an error, never a
    /// reset.
    pub fn open(state_dir: Option<&Path>) -> Result<Releases, String> {
        let Some(dir) = state_dir else {
            return Ok(Releases { highest: Mutex::new(None), file: None });
        };
        std::fs::create_dir_all(dir).map_err(|e| format!("{}: cannot make the state folder: {e}", dir.display()))?;
        let file = dir.join(SEQUENCE_FILE);
        // Written by this server: a regular file of a number, never read
        // through a link, never waited on.
        let highest = match crate::files::read_bounded(&file, MAX_SEQUENCE_FILE_LEN, false) {
            Ok((bytes, _)) => {
                let text = String::from_utf8_lossy(&bytes);
                Some(HighestServed::parse(&text).ok_or_else(|| {
                    format!(
                        "{}: not a sequence number and a content digest ({:?}); {SEQUENCE_FILE_HINT}",
                        file.display(),
                        text.chars().take(40).collect::<String>()
                    )
                })?)
            }
            Err(ReadError::NotFound) => None,
            Err(e) => {
                return Err(format!("{}: cannot read: {e}; {SEQUENCE_FILE_HINT}", file.display()));
            }
        };
        Ok(Releases { highest: Mutex::new(highest), file: Some(file) })
    }

    /// Where the highest sequence is kept, for messages.
    pub fn file_name(&self) -> String {
        self.file.as_ref().map_or_else(|| SEQUENCE_FILE.to_owned(), |file| file.display().to_string())
    }

    /// The highest sequence served.
    pub fn highest(&self) -> Option<u64> {
        self.highest.lock().unwrap_or_else(std::sync::PoisonError::into_inner).as_ref().map(|highest| highest.sequence)
    }

    /// Whether `next` may be served after `current` (see
    /// [`Metadata::admissible`]), and is not another artifact under the
    /// highest sequence served (known across restarts by its digest).
    pub fn admit(&self, next: &Metadata, current: Option<&Metadata>) -> Result<(), ArtifactError> {
        next.admissible(self.highest(), current, SystemTime::now())?;
        let highest = self.highest.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        match (&*highest, next.sequence) {
            (Some(highest), Some(sequence)) if highest.reused_by(next) => {
                Err(ArtifactError::SequenceReused { sequence })
            }
            _ => Ok(()),
        }
    }

    /// `catalog`, read from `file`, if it may be served after `current`
    /// ([`Releases::admit`]); else its problem, naming `file`.
    pub fn admitted(
        &self,
        catalog: ResponseCatalog,
        file: &str,
        current: Option<&ResponseCatalog>,
    ) -> Result<ResponseCatalog, CatalogErrors> {
        self.admit(catalog.metadata(), current.map(ResponseCatalog::metadata))
            .map_err(|error| CatalogErrors::from(CatalogError::Artifact { file: file.to_owned(), error }))?;
        Ok(catalog)
    }

    /// Records that `metadata` is being served: its sequence, if higher,
    /// becomes the highest (written to the state folder before it is
    /// served, so a restart keeps refusing what came before).
    pub fn activate(&self, metadata: &Metadata) -> Result<(), String> {
        let mut highest = self.highest.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        // A higher sequence, or the highest one's digest where it was not kept.
        let new = |sequence: u64| match &*highest {
            None => true,
            Some(h) => sequence > h.sequence || (sequence == h.sequence && h.content_sha256.is_none()),
        };
        let Some(sequence) = metadata.sequence.filter(|&s| new(s)) else {
            return Ok(());
        };
        let served = HighestServed { sequence, content_sha256: Some(metadata.content_sha256.clone()) };
        if let Some(file) = &self.file {
            let text = served.to_text();
            crate::files::replace(file, |out| std::io::Write::write_all(out, text.as_bytes()))
                .map_err(|e| format!("{}: cannot record sequence {sequence}: {e}", file.display()))?;
        }
        *highest = Some(served);
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use crate::artifact::HighestServed;

    #[test]
    fn the_highest_sequence_file_holds_a_number_and_a_digest_or_is_refused() {
        let digest = "ab".repeat(32);
        let served = HighestServed { sequence: 8, content_sha256: Some(digest.clone()) };
        assert_eq!(HighestServed::parse(&format!("8 {digest}\n")), Some(served.clone()));
        assert_eq!(HighestServed::parse(&served.to_text()), Some(served));
        let old = HighestServed::parse("8\n").expect("as written before the digest was kept");
        assert_eq!((old.sequence, old.content_sha256), (8, None));
        for bad in [
            "",
            "\n",
            "eight\n",
            "8 \n",
            "8 xyz\n",
            &format!("8 {digest} 9\n"),
            &format!("-1 {digest}\n"),
            "+8\n",
            "8\n\n",
        ] {
            assert_eq!(HighestServed::parse(bad), None, "{bad:?}");
        }
    }
}
