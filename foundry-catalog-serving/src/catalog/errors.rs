//! Why a catalog did not build or load: every problem of every file.

use std::fmt;
use std::path::Path;

use foundry_catalog::conformance::Violations;

use crate::artifact::ArtifactError;

/// A problem found while building or loading a catalog; each names its file.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum CatalogError {
    /// A file or folder could not be read, or a manifest is not UTF-8.
    #[error("{file}: cannot read: {reason}")]
    Read {
        /// The file or folder.
        file: String,
        /// What the operating system said, or where the text is not UTF-8.
        reason: String,
    },
    /// A manifest is not valid JSON.
    #[error("{file}:{line}:{column}: {message}; hint: see schema/product-manifest.schema.json")]
    Manifest {
        /// The file.
        file: String,
        /// Line, from 1.
        line: usize,
        /// Column, from 1.
        column: usize,
        /// What is wrong.
        message: String,
    },
    /// A manifest's file name is not its slug.
    #[error("{file}: the file name should be the slug `{slug}.json`; hint: rename the file")]
    FileName {
        /// The file.
        file: String,
        /// The slug in the manifest.
        slug: String,
    },
    /// The manifest, or the record it builds, breaks rules of the spec.
    #[error("{file}: the manifest breaks the spec:\n{violations}")]
    Invalid {
        /// The file.
        file: String,
        /// Every violation.
        violations: Violations,
    },
    /// Two sources have the same slug.
    #[error("{file}: slug `{slug}` is also served from {other}; hint: give every product its own slug")]
    DuplicateSlug {
        /// The later source.
        file: String,
        /// The earlier source.
        other: String,
        /// The slug.
        slug: String,
    },
    /// A product's page (or the site's not-found page) cannot be rendered:
    /// a template failed.
    #[error("{file}: cannot render its page: {error}")]
    Page {
        /// The manifest, or `<templates>` for the not-found page.
        file: String,
        /// The template's error: its file, line and a hint.
        error: String,
    },
    /// A manifest's bytes changed while the build was reading them (its
    /// two passes over the manifests saw other bytes): the catalog would
    /// link to what it does not serve.
    #[error("{file}: changed while the build read it; hint: build again once it is written")]
    Changed {
        /// The file.
        file: String,
    },
    /// The folder a build writes bodies to as it makes them
    /// ([`Builder::spool_bodies`](super::Builder::spool_bodies)) could not
    /// take them.
    #[error(
        "{dir}: cannot write the build's bodies there: {reason}; hint: give the output a folder with room, writable by this user"
    )]
    Spool {
        /// The folder.
        dir: String,
        /// The system's words.
        reason: String,
    },
    /// An artifact file cannot be loaded.
    #[error("{file}: {error}")]
    Artifact {
        /// The file.
        file: String,
        /// Why.
        error: ArtifactError,
    },
}

impl CatalogError {
    /// The file the problem is in.
    pub fn file(&self) -> &str {
        match self {
            CatalogError::Read { file, .. }
            | CatalogError::Manifest { file, .. }
            | CatalogError::FileName { file, .. }
            | CatalogError::Invalid { file, .. }
            | CatalogError::DuplicateSlug { file, .. }
            | CatalogError::Page { file, .. }
            | CatalogError::Changed { file }
            | CatalogError::Artifact { file, .. }
            | CatalogError::Spool { dir: file, .. } => file,
        }
    }

    /// How many problems this error reports (every violation counts).
    pub fn problems(&self) -> usize {
        match self {
            CatalogError::Invalid { violations, .. } => violations.len().max(1),
            _ => 1,
        }
    }
}

/// Every problem found while building a catalog, one per line, and how
/// many manifests were read: displayed with a closing summary such as
/// `error: 3 of 10,000 manifests are invalid: 5 problems`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CatalogErrors {
    /// Every problem, in the order of the files.
    pub errors: Vec<CatalogError>,
    /// How many manifests (or artifact files) were read.
    pub sources: usize,
}

/// One problem with one source (a folder, or an artifact file).
impl From<CatalogError> for CatalogErrors {
    fn from(error: CatalogError) -> Self {
        CatalogErrors { errors: vec![error], sources: 1 }
    }
}

impl CatalogErrors {
    /// How many distinct files have a problem.
    pub fn invalid_files(&self) -> usize {
        let mut files: Vec<&str> = self.errors.iter().map(CatalogError::file).collect();
        files.sort_unstable();
        files.dedup();
        files.len()
    }

    /// How many problems in all (every violation counts).
    pub fn problems(&self) -> usize {
        self.errors.iter().map(CatalogError::problems).sum()
    }

    /// The closing line: `3 of 10,000 manifests are invalid: 5 problems`
    /// (`1 of 1 artifact is invalid: 1 problem` when artifact files were
    /// read).
    pub fn summary(&self) -> String {
        let (invalid, problems) = (self.invalid_files(), self.problems());
        let artifacts =
            !self.errors.is_empty() && self.errors.iter().all(|e| matches!(e, CatalogError::Artifact { .. }));
        let noun = match (artifacts, self.sources == 1) {
            (true, true) => "artifact",
            (true, false) => "artifacts",
            (false, true) => "manifest",
            (false, false) => "manifests",
        };
        format!(
            "{} of {} {} {}: {} {}",
            thousands(invalid),
            thousands(self.sources),
            noun,
            if invalid == 1 { "is invalid" } else { "are invalid" },
            thousands(problems),
            if problems == 1 { "problem" } else { "problems" },
        )
    }
}

impl fmt::Display for CatalogErrors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for error in &self.errors {
            writeln!(f, "error: {error}")?;
        }
        write!(f, "error: {}", self.summary())
    }
}

impl std::error::Error for CatalogErrors {}

/// `10000` as `10,000`.
pub(super) fn thousands(n: usize) -> String {
    let digits = n.to_string();
    let mut out = String::with_capacity(digits.len() + digits.len() / 3);
    for (i, digit) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i).is_multiple_of(3) {
            out.push(',');
        }
        out.push(digit);
    }
    out
}

/// A problem opening the artifact file at `path`, as a build's.
pub(super) fn opening(path: &Path, error: ArtifactError) -> CatalogErrors {
    CatalogErrors::from(CatalogError::Artifact { file: path.display().to_string(), error })
}
