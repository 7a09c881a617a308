//! A folder of manifests as a build reads it: its `.json` files, by name.

use std::ffi::OsString;
use std::path::{Path, PathBuf};

use super::{CatalogError, CatalogErrors};

/// The manifests of a folder, listed ([`Manifests::list`]) and not yet
/// read: what [`super::Builder::build_listed`] builds. Listing a large
/// folder takes a while (0.04 s at 100,000 files), so a caller may list
/// it while it does something else, such as opening the previous
/// artifact.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Manifests {
    pub(super) dir: PathBuf,
    /// Names only (each path is made when its file is read): at a million
    /// manifests, the paths would be 90 MB more.
    pub(super) names: Vec<OsString>,
}

impl Manifests {
    /// The entries of `dir` that are not folders and whose names end in
    /// `.json`, sorted by name (what comparing their paths gives). What
    /// each is (a regular file, a link) is found when it is read.
    pub fn list(dir: &Path) -> Result<Manifests, CatalogErrors> {
        let read = std::fs::read_dir(dir).map_err(|e| {
            CatalogErrors::from(CatalogError::Read { file: dir.display().to_string(), reason: e.to_string() })
        })?;
        let mut names: Vec<OsString> = read
            .filter_map(Result::ok)
            .filter(|e| e.file_type().is_ok_and(|t| !t.is_dir()))
            .map(|e| e.file_name())
            .filter(|name| Path::new(name).extension().is_some_and(|e| e == "json"))
            .collect();
        names.sort_unstable();
        Ok(Manifests { dir: dir.to_owned(), names })
    }

    /// The folder.
    pub fn dir(&self) -> &Path {
        &self.dir
    }

    /// How many manifests it lists.
    pub fn len(&self) -> usize {
        self.names.len()
    }

    /// Whether it lists none.
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}
