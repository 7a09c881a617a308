//! Field formats: what a field's values look like beyond their JSON type,
//! each rule written once and used by all four consumers: the fixture
//! generator ([`crate::fixture`] makes values that satisfy it), the
//! conformance validator ([`FieldFormat::check`] on every sample row), the
//! generated JSON Schemas ([`FieldFormat::json_schema`]) and the generated
//! Rust types (the table below; the generator's resolved model decides
//! them, as it decides every Rust type).
//!
//! | format | type | values | Rust |
//! |---|---|---|---|
//! | `date` | string | a calendar date `YYYY-MM-DD` | `time::Date` (through the hidden serde helpers generated code names) |
//! | `url` | string | an absolute http(s) URL (RFC 3986) | [`AbsoluteUrl`] |
//! | `fraction` | number | `0 ≤ x < 1` | `f64` |
//! | `token` | string | a `lowercase_underscore` token, with the optional `" N"` row suffix | `String` |
//! | `key` | string | a deterministic key of `A-Z a-z 0-9 _ . : -`, no spaces, unique per row | `String` |
//! | `payload` | object | exactly `product` (the product's slug) and `fixture_mode` (a string) | `serde_json::Map` |
//! | `text` | string | `Deterministic fixture <phrase>`, with the optional `" N"` row suffix | `String` |
//!
//! Patterns are written to mean the same in ECMA-262 (with the `u` flag),
//! Python's `re` and Rust's `regex`: no lookaround, no `\z`, no class set
//! operators. Python's `$` also matches before a final line feed, so every
//! pattern's schema adds `"not": {"pattern": "\n"}` ([`pattern_schema`]):
//! no accepted value contains one.

use std::fmt;

use serde_json::{Value, json};

use crate::date;

crate::wire_enum! {
    /// The format of a field's values, as written in a definition's
    /// `format` key.
    pub enum FieldFormat {
        /// A calendar date, `YYYY-MM-DD`.
        Date = "date",
        /// An absolute http(s) URL (RFC 3986).
        Url = "url",
        /// A number in `[0, 1)`.
        Fraction = "fraction",
        /// A `lowercase_underscore` token with the optional `" N"` row suffix.
        Token = "token",
        /// An object `{"product": <the product's slug>, "fixture_mode": <string>}`.
        Payload = "payload",
        /// A `Deterministic fixture …` phrase with the optional `" N"` row suffix.
        Text = "text",
        /// A public-safe deterministic key: no spaces, unique per row.
        Key = "key",
    }
}

/// Every text value starts with these words (docs/fixtures.md).
pub const TEXT_PREFIX: &str = "Deterministic fixture";

/// Whether `c` hides or reorders the text around it without being seen:
/// the bidirectional embeddings, overrides and isolates (U+202A–U+202E,
/// U+2066–U+2069: the "Trojan Source" characters), the zero-width space
/// (U+200B), the word joiner and invisible operators (U+2060–U+2064) and
/// the zero-width no-break space (U+FEFF). Text that reaches a page or a
/// log must not hold them. The zero-width joiners (U+200C, U+200D: emoji
/// sequences, Persian and Indic scripts) and the direction marks (U+200E,
/// U+200F: right-to-left text) have legitimate uses and are not among them.
///
/// ```
/// use foundry_catalog_core::hides_or_reorders;
/// assert!(hides_or_reorders('\u{202e}') && hides_or_reorders('\u{200b}'));
/// assert!(!hides_or_reorders('\u{200d}') && !hides_or_reorders('a'));
/// ```
pub fn hides_or_reorders(c: char) -> bool {
    matches!(c, '\u{200b}' | '\u{202a}'..='\u{202e}' | '\u{2060}'..='\u{2064}' | '\u{2066}'..='\u{2069}' | '\u{feff}')
}

/// Whether `text` is `lowercase_underscore`: a lowercase letter, then
/// lowercase letters and digits in words joined by single underscores.
/// Record labels and marketplace keys follow this rule.
pub fn is_lowercase_underscore(text: &str) -> bool {
    let starts_with_letter = text.as_bytes().first().is_some_and(u8::is_ascii_lowercase);
    starts_with_letter
        && text.split('_').all(|w| !w.is_empty() && w.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()))
}

/// The pattern of a slug (see [`crate::Slug`]).
pub const SLUG_PATTERN: &str = "^[a-z0-9]+(-[a-z0-9]+)*$";

/// The pattern of a `lowercase_underscore` identifier
/// ([`crate::is_lowercase_underscore`]).
pub const LOWERCASE_UNDERSCORE_PATTERN: &str = "^[a-z][a-z0-9]*(_[a-z0-9]+)*$";

/// The pattern of an absolute http(s) URL: RFC 3986's `http-URI` grammar
/// (an IP literal or registered name, port, path, query, fragment,
/// percent-encodings) without user information, which
/// [`crate::is_absolute_url`] refuses, so `https://[::1/x`, `https://a b/`
/// and `https://user@host/` fail.
/// [`crate::is_absolute_url`] (`iri-string`) is the full rule; this pattern
/// is never looser on the shapes it lets through except inside an IP
/// literal's brackets, which `format: uri` checks.
pub const ABSOLUTE_URL_PATTERN: &str = concat!(
    "^[Hh][Tt][Tt][Pp][Ss]?://",
    "(\\[[0-9A-Fa-f:.]+\\]|\\[[vV][0-9A-Fa-f]+\\.[A-Za-z0-9._~!$&'()*+,;=:-]+\\]|(%[0-9A-Fa-f]{2}|[A-Za-z0-9._~!$&'()*+,;=-])+)",
    "(:[0-9]*)?",
    "(/(%[0-9A-Fa-f]{2}|[A-Za-z0-9._~!$&'()*+,;=:@-])*)*",
    "(\\?(%[0-9A-Fa-f]{2}|[A-Za-z0-9._~!$&'()*+,;=:@/?-])*)?",
    "(#(%[0-9A-Fa-f]{2}|[A-Za-z0-9._~!$&'()*+,;=:@/?-])*)?$",
);

/// A `YYYY-MM-DD` date in years 0001–9999 (Python's `date` has no year 0)
/// with a month 01–12 and a day 01–31; the calendar (30 February) is
/// `format: date`'s job and the Rust check's.
const DATE_PATTERN: &str =
    "^([0-9]{3}[1-9]|[0-9]{2}[1-9][0-9]|[0-9][1-9][0-9]{2}|[1-9][0-9]{3})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])$";

/// A token with the optional row suffix.
const TOKEN_PATTERN: &str = "^[a-z][a-z0-9]*(_[a-z0-9]+)*( [1-9][0-9]*)?$";

/// A key: one or more of `A-Z a-z 0-9 _ . : -`.
const KEY_PATTERN: &str = "^[A-Za-z0-9_.:-]+$";

/// Fixture text: the prefix, a space, then a phrase without control characters.
const TEXT_PATTERN: &str = "^Deterministic fixture [^\\u0000-\\u001f\\u007f]+$";

/// `{"type": "string", "pattern": pattern}` with the line-feed guard that
/// makes `$` mean the end of the text in Python too.
pub fn pattern_schema(pattern: &str) -> Value {
    json!({"type": "string", "pattern": pattern, "not": {"type": "string", "pattern": "\n"}})
}

/// The schema of a slug ([`crate::Slug`]): its pattern and length.
pub fn slug_schema() -> Value {
    let mut schema = pattern_schema(SLUG_PATTERN);
    schema["minLength"] = json!(1);
    schema["maxLength"] = json!(crate::MAX_SLUG_LEN);
    schema
}

/// Why a value does not have its field's format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FormatProblem(pub String);

impl fmt::Display for FormatProblem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FieldFormat {
    /// The fixture hint kind that may seed values of this format
    /// (`absent` fits any optional field besides).
    pub const fn hint_kind(self) -> &'static str {
        match self {
            FieldFormat::Date => "date",
            FieldFormat::Url => "url",
            FieldFormat::Fraction => "fraction",
            FieldFormat::Token | FieldFormat::Key => "token",
            FieldFormat::Payload => "payload",
            FieldFormat::Text => "text",
        }
    }

    /// What the format is, in words.
    pub const fn describe(self) -> &'static str {
        match self {
            FieldFormat::Date => "a calendar date YYYY-MM-DD",
            FieldFormat::Url => "an absolute http(s) URL",
            FieldFormat::Fraction => "a number in [0, 1)",
            FieldFormat::Token => "a lowercase_underscore token with an optional \" N\" suffix",
            FieldFormat::Payload => {
                "an object with exactly `product` (the product's slug) and `fixture_mode` (a string)"
            }
            FieldFormat::Text => "\"Deterministic fixture <phrase>\" with an optional \" N\" suffix",
            FieldFormat::Key => "a key of letters, digits, `_`, `.`, `:` and `-` (no spaces)",
        }
    }

    /// Checks one value. `slug` is the product's slug when it is known
    /// (a payload's `product` must equal it). Uniqueness of keys across
    /// rows is [`check_unique`]'s job.
    pub fn check(self, value: &Value, slug: Option<&str>) -> Result<(), FormatProblem> {
        let ok = match (self, value) {
            (FieldFormat::Date, Value::String(text)) => date::parse(text).is_some(),
            (FieldFormat::Url, Value::String(text)) => crate::is_absolute_url(text),
            (FieldFormat::Token, Value::String(text)) => is_token_value(text),
            (FieldFormat::Key, Value::String(text)) => is_key(text),
            (FieldFormat::Text, Value::String(text)) => text
                .strip_prefix(TEXT_PREFIX)
                .and_then(|rest| rest.strip_prefix(' '))
                .is_some_and(|phrase| !phrase.is_empty() && !phrase.chars().any(|c| c.is_ascii_control())),
            (FieldFormat::Fraction, Value::Number(n)) => n.as_f64().is_some_and(|x| (0.0..1.0).contains(&x)),
            (FieldFormat::Payload, Value::Object(object)) => {
                let product = object.get("product").and_then(Value::as_str);
                let mode = object.get("fixture_mode").and_then(Value::as_str);
                match (product, mode) {
                    (Some(product), Some(_mode)) if object.len() == 2 => {
                        if let Some(slug) = slug
                            && product != slug
                        {
                            return Err(FormatProblem(format!(
                                "`product` is {product:?}, not the product's slug {slug:?}"
                            )));
                        }
                        crate::Slug::check(product).is_ok()
                    }
                    _ => false,
                }
            }
            _ => false,
        };
        if ok { Ok(()) } else { Err(FormatProblem(format!("{value} is not {}", self.describe()))) }
    }

    /// The JSON Schema (2020-12) of a value of this format: its type, its
    /// pattern or bounds, and the `format` annotation where one exists.
    pub fn json_schema(self) -> Value {
        let with_format = |pattern: &str, format: &str| {
            let mut schema = pattern_schema(pattern);
            schema["format"] = json!(format);
            schema
        };
        match self {
            FieldFormat::Date => with_format(DATE_PATTERN, "date"),
            FieldFormat::Url => with_format(ABSOLUTE_URL_PATTERN, "uri"),
            FieldFormat::Fraction => json!({"type": "number", "minimum": 0, "exclusiveMaximum": 1}),
            FieldFormat::Token => pattern_schema(TOKEN_PATTERN),
            FieldFormat::Key => pattern_schema(KEY_PATTERN),
            FieldFormat::Text => pattern_schema(TEXT_PATTERN),
            FieldFormat::Payload => json!({
                "type": "object",
                "properties": {
                    "product": slug_schema(),
                    "fixture_mode": {"type": "string"},
                },
                "required": ["product", "fixture_mode"],
                "additionalProperties": false,
            }),
        }
    }
}

/// Keys must differ from row to row: the first row (from 1) that repeats
/// an earlier row's value, and that row.
pub fn check_unique<'a>(values: impl Iterator<Item = &'a Value>) -> Option<(usize, usize)> {
    let mut seen: Vec<&Value> = Vec::new();
    for (i, value) in values.enumerate() {
        if let Some(first) = seen.iter().position(|v| *v == value) {
            return Some((first, i));
        }
        seen.push(value);
    }
    None
}

/// A token value: `lowercase_underscore`, then optionally `" N"` (N ≥ 1,
/// without leading zeros).
fn is_token_value(text: &str) -> bool {
    let (token, suffix) = match text.split_once(' ') {
        Some((token, suffix)) => (token, Some(suffix)),
        None => (text, None),
    };
    is_lowercase_underscore(token)
        && suffix.is_none_or(|n| {
            n.bytes().all(|b| b.is_ascii_digit()) && n.bytes().next().is_some_and(|b| (b'1'..=b'9').contains(&b))
        })
}

/// A key: at least one of `A-Z a-z 0-9 _ . : -`.
pub fn is_key(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':'))
}

/// An absolute http(s) URL, checked when made: the Rust type of `url`
/// fields. It serializes as the text it was made from, so a row's wire
/// form does not change.
///
/// ```
/// use foundry_catalog_core::AbsoluteUrl;
/// let url = AbsoluteUrl::new("https://registry.example.org/records/1").unwrap();
/// assert_eq!(url.as_str(), "https://registry.example.org/records/1");
/// assert!(AbsoluteUrl::new("https://[::1/x").is_err());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct AbsoluteUrl(String);

/// A string that is not an absolute http(s) URL.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidUrl(pub String);

impl std::fmt::Display for InvalidUrl {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{:?} is not an absolute http(s) URL (RFC 3986); hint: write it like \"https://registry.example.org/records/1\"",
            self.0
        )
    }
}

impl std::error::Error for InvalidUrl {}

impl AbsoluteUrl {
    /// Checks and wraps a URL.
    pub fn new(text: impl Into<String>) -> Result<AbsoluteUrl, InvalidUrl> {
        let text = text.into();
        if crate::is_absolute_url(&text) { Ok(AbsoluteUrl(text)) } else { Err(InvalidUrl(text)) }
    }

    /// The URL as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for AbsoluteUrl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::str::FromStr for AbsoluteUrl {
    type Err = InvalidUrl;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        AbsoluteUrl::new(text)
    }
}

crate::serde_via_str!(AbsoluteUrl);
