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
//! | `timestamp` | string | an RFC 3339 date and time with its offset, `YYYY-MM-DDTHH:MM:SS[.f]Z` or `±HH:MM` (upper-case `T` and `Z`, 1–9 fractional digits, no leap second) | [`Timestamp`] |
//! | `email` | string | an e-mail address: a dot-atom local part (RFC 5322's `atext`), `@`, a domain name of two or more labels (letters, digits, inner hyphens, at most 63 each), at most 254 characters | [`EmailAddress`] |
//! | `uuid` | string | a UUID in lower-case hex, `8-4-4-4-12` (RFC 9562's text form) | [`Uuid`] |
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
        /// An RFC 3339 date and time with its offset.
        Timestamp = "timestamp",
        /// An e-mail address, `local@domain`.
        Email = "email",
        /// A UUID in lower-case hex, `8-4-4-4-12`.
        Uuid = "uuid",
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

/// An RFC 3339 date and time: [`DATE_PATTERN`]'s date, `T`, a time of
/// day with optional fractional seconds, and `Z` or a numeric offset.
const TIMESTAMP_PATTERN: &str = concat!(
    "^([0-9]{3}[1-9]|[0-9]{2}[1-9][0-9]|[0-9][1-9][0-9]{2}|[1-9][0-9]{3})-(0[1-9]|1[0-2])-(0[1-9]|[12][0-9]|3[01])",
    "T([01][0-9]|2[0-3]):[0-5][0-9]:[0-5][0-9](\\.[0-9]{1,9})?(Z|[+-]([01][0-9]|2[0-3]):[0-5][0-9])$",
);

/// An e-mail address: a dot-atom of RFC 5322's `atext`, `@`, and a domain
/// name of two or more labels (the length bound is the schema's
/// `maxLength`).
const EMAIL_PATTERN: &str = concat!(
    "^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(\\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*",
    "@[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?(\\.[A-Za-z0-9]([A-Za-z0-9-]{0,61}[A-Za-z0-9])?)+$",
);

/// The most characters an e-mail address holds (RFC 5321's path limit,
/// less its angle brackets).
pub const MAX_EMAIL_LEN: usize = 254;

/// A UUID's text form in lower-case hex.
const UUID_PATTERN: &str = "^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$";

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
            FieldFormat::Date | FieldFormat::Timestamp => "date",
            FieldFormat::Url => "url",
            FieldFormat::Fraction => "fraction",
            FieldFormat::Token | FieldFormat::Key | FieldFormat::Email | FieldFormat::Uuid => "token",
            FieldFormat::Payload => "payload",
            FieldFormat::Text => "text",
        }
    }

    /// The runtime's type that generated fields of this format hold, when
    /// it is a string checked as it is read ([`AbsoluteUrl`],
    /// [`Timestamp`], [`EmailAddress`], [`Uuid`]), with what it is in
    /// words; `None` for the others.
    pub const fn checked_type(self) -> Option<(&'static str, &'static str)> {
        match self {
            FieldFormat::Url => Some(("AbsoluteUrl", "a URL")),
            FieldFormat::Timestamp => Some(("Timestamp", "a timestamp")),
            FieldFormat::Email => Some(("EmailAddress", "an e-mail address")),
            FieldFormat::Uuid => Some(("Uuid", "a UUID")),
            _ => None,
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
            FieldFormat::Timestamp => {
                "an RFC 3339 date and time with its offset, such as \"2026-01-15T09:30:00Z\" or \"2026-01-15T10:30:00.5+01:00\""
            }
            FieldFormat::Email => "an e-mail address local@domain, such as \"recruiter@example.org\"",
            FieldFormat::Uuid => {
                "a UUID in lower-case hex 8-4-4-4-12, such as \"0b3e1c9a-5d2f-8a41-9c6e-2f4b7d0a1e35\""
            }
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
            (FieldFormat::Timestamp, Value::String(text)) => is_timestamp(text),
            (FieldFormat::Email, Value::String(text)) => is_email(text),
            (FieldFormat::Uuid, Value::String(text)) => is_uuid(text),
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
            FieldFormat::Timestamp => with_format(TIMESTAMP_PATTERN, "date-time"),
            FieldFormat::Email => {
                let mut schema = with_format(EMAIL_PATTERN, "email");
                schema["maxLength"] = json!(MAX_EMAIL_LEN);
                schema
            }
            FieldFormat::Uuid => with_format(UUID_PATTERN, "uuid"),
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

/// Whether `text` is a `timestamp`: `YYYY-MM-DD` (a calendar date, as
/// `date` checks it), `T`, `HH:MM:SS` (hours to 23, minutes and seconds to
/// 59), optionally `.` and 1 to 9 digits, then `Z` or `+HH:MM`/`-HH:MM`.
pub fn is_timestamp(text: &str) -> bool {
    let two = |at: usize, max: u8| {
        let digits = text.as_bytes().get(at..at + 2).filter(|d| d.iter().all(u8::is_ascii_digit));
        digits.is_some_and(|d| (d[0] - b'0') * 10 + (d[1] - b'0') <= max)
    };
    let byte = |at: usize| text.as_bytes().get(at).copied();
    let time_of_day = byte(10) == Some(b'T')
        && two(11, 23)
        && byte(13) == Some(b':')
        && two(14, 59)
        && byte(16) == Some(b':')
        && two(17, 59);
    if !(text.is_char_boundary(10) && date::parse(&text[..10]).is_some() && time_of_day) {
        return false;
    }
    let rest = &text.as_bytes()[19..];
    let fraction = match rest.strip_prefix(b".") {
        Some(digits) => digits.iter().take_while(|b| b.is_ascii_digit()).count(),
        None => 0,
    };
    if rest.first() == Some(&b'.') && !(1..=9).contains(&fraction) {
        return false;
    }
    let offset_at = 19 + if fraction > 0 { 1 + fraction } else { 0 };
    match &text.as_bytes()[offset_at..] {
        b"Z" => true,
        [b'+' | b'-', _, _, b':', _, _] => two(offset_at + 1, 23) && two(offset_at + 4, 59),
        _ => false,
    }
}

/// Whether `c` is RFC 5322's `atext`: a letter, a digit or one of
/// `` !#$%&'*+-/=?^_`{|}~ ``.
fn is_atext(c: u8) -> bool {
    c.is_ascii_alphanumeric() || b"!#$%&'*+-/=?^_`{|}~".contains(&c)
}

/// Whether `text` is an `email`: at most [`MAX_EMAIL_LEN`] characters, a
/// local part of `atext` runs joined by single dots, `@`, and a domain of
/// two or more labels, each 1 to 63 letters, digits and inner hyphens.
pub fn is_email(text: &str) -> bool {
    let Some((local, domain)) = text.split_once('@') else { return false };
    let label = |label: &str| {
        let bytes = label.as_bytes();
        (1..=63).contains(&bytes.len())
            && bytes.iter().all(|b| b.is_ascii_alphanumeric() || *b == b'-')
            && bytes.first() != Some(&b'-')
            && bytes.last() != Some(&b'-')
    };
    text.len() <= MAX_EMAIL_LEN
        && local.split('.').all(|atom| !atom.is_empty() && atom.bytes().all(is_atext))
        && domain.split('.').count() >= 2
        && domain.split('.').all(label)
}

/// Whether `text` is a `uuid`: 32 lower-case hex digits in groups of 8,
/// 4, 4, 4 and 12 joined by hyphens.
pub fn is_uuid(text: &str) -> bool {
    let bytes = text.as_bytes();
    bytes.len() == 36
        && bytes.iter().enumerate().all(|(at, &b)| match at {
            8 | 13 | 18 | 23 => b == b'-',
            _ => b.is_ascii_digit() || (b'a'..=b'f').contains(&b),
        })
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

/// A string of a format checked when made ([`FieldFormat::check`]): the
/// Rust type of that format's fields. It serializes as the text it was
/// made from, so a row's wire form does not change.
macro_rules! checked_text {
    ($(#[$doc:meta])* $name:ident, $format:expr, $check:path) => {
        $(#[$doc])*
        #[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
        pub struct $name(String);

        impl $name {
            /// Checks and wraps a value.
            pub fn new(text: impl Into<String>) -> Result<$name, InvalidFormat> {
                let text = text.into();
                if $check(&text) { Ok($name(text)) } else { Err(InvalidFormat { text, format: $format }) }
            }

            /// The value as written.
            pub fn as_str(&self) -> &str {
                &self.0
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(&self.0)
            }
        }

        impl std::str::FromStr for $name {
            type Err = InvalidFormat;
            fn from_str(text: &str) -> Result<Self, Self::Err> {
                $name::new(text)
            }
        }

        crate::serde_via_str!($name);
    };
}

/// A string that is not of its field's format.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidFormat {
    /// The rejected text.
    pub text: String,
    /// The format it is not of.
    pub format: FieldFormat,
}

impl fmt::Display for InvalidFormat {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?} is not {}", self.text, self.format.describe())
    }
}

impl std::error::Error for InvalidFormat {}

checked_text!(
    /// An RFC 3339 date and time with its offset ([`is_timestamp`]), kept as
    /// written: the Rust type of `timestamp` fields.
    ///
    /// ```
    /// use foundry_catalog_core::Timestamp;
    /// assert_eq!(Timestamp::new("2026-01-15T09:30:00Z").unwrap().as_str(), "2026-01-15T09:30:00Z");
    /// assert!(Timestamp::new("2026-01-15T10:30:00.125+01:00").is_ok());
    /// assert!(Timestamp::new("2026-01-15 09:30:00").is_err()); // no `T`, no offset
    /// assert!(Timestamp::new("2026-02-30T09:30:00Z").is_err()); // no such day
    /// ```
    Timestamp,
    FieldFormat::Timestamp,
    is_timestamp
);

checked_text!(
    /// An e-mail address ([`is_email`]), kept as written: the Rust type of
    /// `email` fields.
    ///
    /// ```
    /// use foundry_catalog_core::EmailAddress;
    /// assert!(EmailAddress::new("recruiter+jobs@example.org").is_ok());
    /// assert!(EmailAddress::new("recruiter@localhost").is_err()); // one label
    /// assert!(EmailAddress::new("a..b@example.org").is_err());
    /// ```
    EmailAddress,
    FieldFormat::Email,
    is_email
);

checked_text!(
    /// A UUID in lower-case hex ([`is_uuid`]): the Rust type of `uuid` fields.
    ///
    /// ```
    /// use foundry_catalog_core::Uuid;
    /// assert!(Uuid::new("0b3e1c9a-5d2f-8a41-9c6e-2f4b7d0a1e35").is_ok());
    /// assert!(Uuid::new("0B3E1C9A-5D2F-8A41-9C6E-2F4B7D0A1E35").is_err()); // upper case
    /// ```
    Uuid,
    FieldFormat::Uuid,
    is_uuid
);

#[cfg(test)]
mod tests {
    use super::{MAX_EMAIL_LEN, is_email, is_uuid};

    /// The length limit is inclusive: an address of exactly 254
    /// characters is one, of 255 is not.
    #[test]
    fn an_email_of_the_longest_length_is_one_and_one_longer_is_not() {
        let domain = "@example.com";
        let at_most = format!("{}{domain}", "a".repeat(MAX_EMAIL_LEN - domain.len()));
        assert_eq!(at_most.len(), 254);
        assert!(is_email(&at_most));
        assert!(!is_email(&format!("a{at_most}")));
        assert!(!is_email("a@b"), "a domain of one label");
        assert!(!is_email("a..b@example.com"), "an empty atom");
        assert!(!is_email("a@-example.com"), "a label that starts with a hyphen");
    }

    /// A UUID is exactly 36 characters: a 37th digit, or one fewer, or an
    /// upper-case digit, is not one.
    #[test]
    fn a_uuid_has_exactly_its_digits() {
        let uuid = "123e4567-e89b-12d3-a456-426614174000";
        assert!(is_uuid(uuid));
        assert!(!is_uuid(&format!("{uuid}0")));
        assert!(!is_uuid(&uuid[..35]));
        assert!(!is_uuid(&uuid.replace('e', "E")));
        assert!(!is_uuid(&uuid.replace('-', "0")));
    }
}
