//! The file side of generation, for build scripts: finding definition
//! files, reading them, and writing output only when its bytes change.

use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};

use crate::error::{DefinitionError, Errors};

/// One definition's bytes and the path used to name it in messages and in
/// the generated header (relative to the crate root, with `/`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Source {
    /// Path as shown to the user, e.g. `record-types/regulatory_status_signal.json`.
    pub path: String,
    /// The file's bytes, exactly as read.
    pub bytes: Vec<u8>,
}

impl Source {
    /// A source from a display path and its bytes.
    pub fn new(path: impl Into<String>, bytes: impl Into<Vec<u8>>) -> Self {
        Source { path: path.into(), bytes: bytes.into() }
    }

    /// Every `*.json` file directly in `root/dir`, sorted by name, each
    /// named `dir/<name>.json` (what [`Generator::build_script`](crate::Generator::build_script)
    /// reads). Every file that cannot be read is reported.
    pub fn read_dir(root: &Path, dir: &str) -> Result<Vec<Source>, Errors> {
        let names = definition_files(root, dir)?;
        read_sources(root, &names).map_err(Errors)
    }
}

/// The `*.json` files directly in `root/dir`, sorted by name, as paths
/// relative to `root` (`dir/<name>.json`).
pub(crate) fn definition_files(root: &Path, dir: &str) -> Result<Vec<String>, DefinitionError> {
    let read_error = |e: std::io::Error| DefinitionError::Read { file: dir.to_owned(), reason: e.to_string() };
    let mut names = Vec::new();
    for entry in fs::read_dir(root.join(dir)).map_err(read_error)? {
        let entry = entry.map_err(read_error)?;
        let path = entry.path();
        if path.extension().is_some_and(|e| e == "json") && entry.file_type().map_err(read_error)?.is_file() {
            match entry.file_name().into_string() {
                Ok(name) => names.push(name),
                Err(name) => {
                    return Err(DefinitionError::Read {
                        file: format!("{dir}/{}", name.to_string_lossy()),
                        reason: "the file name is not UTF-8".to_owned(),
                    });
                }
            }
        }
    }
    names.sort();
    Ok(names.into_iter().map(|name| format!("{dir}/{name}")).collect())
}

/// Reads each file (relative to `root`) into a [`Source`]; every file that
/// cannot be read is an error.
pub(crate) fn read_sources(root: &Path, files: &[String]) -> Result<Vec<Source>, Vec<DefinitionError>> {
    let mut sources = Vec::with_capacity(files.len());
    let mut errors = Vec::new();
    for file in files {
        match fs::read(root.join(file)) {
            Ok(bytes) => sources.push(Source::new(file.clone(), bytes)),
            Err(e) => errors.push(DefinitionError::Read { file: file.clone(), reason: e.to_string() }),
        }
    }
    if errors.is_empty() { Ok(sources) } else { Err(errors) }
}

/// Writes `contents` to `path` unless the file already holds exactly those
/// bytes. The new file is written beside the old one and renamed over it,
/// so a reader never sees half a file. Returns whether it wrote.
pub(crate) fn write_if_changed(path: &Path, contents: &[u8]) -> std::io::Result<bool> {
    if fs::read(path).is_ok_and(|old| old == contents) {
        return Ok(false);
    }
    let mut temp = PathBuf::from(path);
    temp.as_mut_os_string().push(".tmp");
    let mut file = fs::File::create(&temp)?;
    file.write_all(contents)?;
    file.sync_all()?;
    drop(file);
    fs::rename(&temp, path)?;
    Ok(true)
}
