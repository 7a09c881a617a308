//! The file side of generation, for build scripts: finding definition
//! files, reading them, and replacing a file whole.

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
        read_sources(root, &names, crate::emit::available_threads()).map_err(Errors)
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

/// Reads each file (relative to `root`) into a [`Source`], on up to
/// `threads` threads; every file that cannot be read is an error.
pub(crate) fn read_sources(root: &Path, files: &[String], threads: usize) -> Result<Vec<Source>, Vec<DefinitionError>> {
    let read = |file: &String| {
        Ok(fs::read(root.join(file))
            .map(|bytes| Source::new(file.clone(), bytes))
            .map_err(|e| DefinitionError::Read { file: file.clone(), reason: e.to_string() }))
    };
    let results = crate::emit::in_parallel(files, threads, read).map_err(|e| vec![e])?;
    let mut sources = Vec::with_capacity(files.len());
    let mut errors = Vec::new();
    for result in results {
        match result {
            Ok(source) => sources.push(source),
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() { Ok(sources) } else { Err(errors) }
}

/// The file a new version of `path` is written to before it is renamed
/// over `path`.
pub(crate) fn temp_path(path: &Path) -> PathBuf {
    let mut temp = path.to_owned();
    temp.as_mut_os_string().push(".tmp");
    temp
}

/// Puts the file `temp` in the place of `path`. The old file is removed
/// first: renaming over an existing file makes ext4 write the new one out
/// at once (its `auto_da_alloc` safeguard for programs that do not sync),
/// which costs about 10 ms for a 12 MB output. A reader sees the old file,
/// none or the new one, never half a file. Not synced: like cargo's own
/// outputs, a build's outputs are remade, not recovered.
pub(crate) fn rename_over(temp: &Path, path: &Path) -> std::io::Result<()> {
    match fs::remove_file(path) {
        Err(e) if e.kind() != std::io::ErrorKind::NotFound => return Err(e),
        _ => {}
    }
    fs::rename(temp, path)
}

/// Writes `contents` to `path` unless the file already holds exactly those
/// bytes; returns whether it wrote.
pub(crate) fn write_if_changed(path: &Path, contents: &[u8]) -> std::io::Result<bool> {
    if fs::read(path).is_ok_and(|old| old == contents) {
        return Ok(false);
    }
    replace(path, contents)?;
    Ok(true)
}

/// Writes `contents` to `path` by way of [`temp_path`] and [`rename_over`].
pub(crate) fn replace(path: &Path, contents: &[u8]) -> std::io::Result<()> {
    let temp = temp_path(path);
    let mut file = fs::File::create(&temp)?;
    file.write_all(contents)?;
    drop(file);
    rename_over(&temp, path)
}
