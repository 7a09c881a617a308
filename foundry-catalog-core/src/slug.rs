//! Product slugs.

use std::fmt;

/// The longest slug accepted, in bytes.
pub const MAX_SLUG_LEN: usize = 200;

/// A product slug: lowercase ASCII letters and digits in words joined by
/// single hyphens (`eu-regulatory-signals`), at most [`MAX_SLUG_LEN`] bytes.
///
/// ```
/// use foundry_catalog_core::Slug;
/// assert!(Slug::new("eu-regulatory-signals").is_ok());
/// assert!(Slug::new("EU signals").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Slug(String);

/// Why a string is not a slug.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidSlug {
    /// The rejected text.
    pub text: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

impl std::fmt::Display for InvalidSlug {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let InvalidSlug { text, reason } = self;
        write!(
            f,
            "{text:?} is not a slug: {reason}; hint: use lowercase letters and digits in words joined by single hyphens, such as \"eu-regulatory-signals\""
        )
    }
}

impl std::error::Error for InvalidSlug {}

impl Slug {
    /// Checks and wraps a slug.
    pub fn new(text: impl Into<String>) -> Result<Slug, InvalidSlug> {
        let text = text.into();
        match Slug::check(&text) {
            Err(reason) => Err(InvalidSlug { text, reason }),
            Ok(()) => Ok(Slug(text)),
        }
    }

    /// Checks text without wrapping (or copying) it: why it is not a slug.
    ///
    /// ```
    /// # use foundry_catalog_core::Slug;
    /// assert!(Slug::check("eu-signals").is_ok());
    /// assert_eq!(Slug::check("eu--signals"), Err("it starts or ends with a hyphen or has two in a row"));
    /// ```
    pub fn check(text: &str) -> Result<(), &'static str> {
        if text.is_empty() {
            Err("it is empty")
        } else if text.len() > MAX_SLUG_LEN {
            Err("it is longer than 200 bytes")
        } else if !text.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-') {
            Err("it has characters other than a-z, 0-9 and -")
        } else if text.starts_with('-') || text.ends_with('-') || text.as_bytes().windows(2).any(|w| w == b"--") {
            Err("it starts or ends with a hyphen or has two in a row")
        } else {
            Ok(())
        }
    }

    /// The slug text.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for Slug {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::str::FromStr for Slug {
    type Err = InvalidSlug;
    fn from_str(s: &str) -> Result<Self, Self::Err> {
        Slug::new(s)
    }
}

crate::serde_via_str!(Slug);
