//! What goes wrong rendering pages, and where.

use std::path::PathBuf;

/// Why pages could not be rendered.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum PageError {
    /// A templates folder or file could not be read.
    #[error("{}: {reason}", file.display())]
    Read {
        /// The file or folder.
        file: PathBuf,
        /// What went wrong.
        reason: String,
    },
    /// A template does not parse, or failed while rendering.
    #[error("{file}:{line}: {message}{}; hint: {hint}", slug.as_ref().map(|s| format!(" (rendering the page of {s})")).unwrap_or_default())]
    Template {
        /// The template's file (its path when read from a folder, else
        /// its name among the defaults).
        file: String,
        /// The line (1-based; 0 when the engine does not say).
        line: usize,
        /// What is wrong.
        message: String,
        /// What to do about it.
        hint: &'static str,
        /// The product being rendered, when it failed while rendering.
        slug: Option<String>,
    },
    /// A product's `seo.title` or `seo.description` cannot make a page's
    /// head: empty (an empty `<title>` is invalid HTML) or longer than
    /// search engines show.
    #[error("the page of {slug}: {field} {message}; hint: {hint}")]
    Seo {
        /// The product.
        slug: String,
        /// `seo.title` or `seo.description`.
        field: &'static str,
        /// What is wrong.
        message: String,
        /// What to do about it.
        hint: &'static str,
    },
}
