//! Deterministic fixture values: the rules that turn a field descriptor, a
//! product slug and a row number into a sample value.
//!
//! Rows are numbered from 1. Every value is a pure function of the field,
//! the slug and the row number: no clock, no randomness, no machine state.
//!
//! | hint | type | row 1 | row 2 |
//! |---|---|---|---|
//! | `{"text": "entity name"}` | string | `Deterministic fixture entity name` | `Deterministic fixture entity name 2` |
//! | `{"token": "fixture_validated"}` | string | `fixture_validated` | `fixture_validated 2` |
//! | `{"date": "2026-01-15"}` | string | `2026-01-15` | `2026-01-16` |
//! | `{"date": "2026-01-15"}` on a `timestamp` | string | `2026-01-15T00:00:00Z` | `2026-01-16T00:00:00Z` |
//! | `{"token": "recruiter"}` on an `email` | string | `recruiter@example.org` | `recruiter+2@example.org` |
//! | `{"token": "posting"}` on a `uuid` | string | a UUID made from the token, the slug and the row | another |
//! | `{"url": "https://x.example/r"}` | string | `https://x.example/r/<slug>/1` | `https://x.example/r/<slug>/2` |
//! | `{"fraction": 0.91}` | number | `0.91` | `0.9` |
//! | `"sequence"` | number | `1.0` | `2.0` |
//! | `{"payload": "mode"}` | object | `{"product": <slug>, "fixture_mode": "mode"}` | the same |
//! | `"absent"` | optional only | left out | left out |
//!
//! A field with a format ([`crate::format`](mod@crate::format)) gets its values from the
//! format's recipe, which the hint of the matching kind seeds (`date` and
//! `timestamp` by a `date` hint, `url` by `url`, `fraction` by `fraction`,
//! `token`, `key`, `email` and `uuid` by `token`, `payload` by `payload`,
//! `text` by `text`). Without a hint: 2026-01-01, `https://fixtures.example.org/records`, 0.5,
//! `fixture_<field name>`, `deterministic_fixture` and the field name in
//! words. A `key` differs on every row: `<token>_<row>` (`fixture_dedupe_key_1`).
//! A `timestamp` is midnight UTC of the date's row; an `email` is the token
//! at `example.org` (a domain reserved for examples, RFC 2606), `+<row>`
//! after row 1; a `uuid` is a version-8 UUID (RFC 9562) from the SHA-256 of
//! the token, the slug and the row, so it differs on every row and product.
//!
//! A field without a hint gets its type's default: strings are text whose
//! phrase is the field name in lowercase words (`entityName` →
//! `Deterministic fixture entity name`), numbers a sequence, objects a
//! payload with fixture mode `deterministic_fixture`. Optional fields are
//! filled like required ones unless their hint is `"absent"`.
//!
//! The generator uses [`check_hint`] to reject hints whose values cannot
//! work; the runtime makes every value through one function (untyped rows with
//! [`rows`], typed rows with `RecordType::fixture_rows`, which deserializes
//! the same values), so generated code holds no fixture code of its own.

use std::borrow::Cow;

use serde_json::{Map, Value};

use crate::date;
use crate::format::{FieldFormat, TEXT_PREFIX};
use crate::model::{FieldDescriptor, FieldType, FixtureHint, Kind, MAX_SAFE_INTEGER, RecordSchema};

/// The first date of a date hint, and of a date hint whose date is unusable.
pub(crate) const DEFAULT_DATE: &str = "2026-01-01";

/// The `fixture_mode` of an object field without a hint.
pub(crate) const DEFAULT_FIXTURE_MODE: &str = "deterministic_fixture";

/// The suffix of text values on `row`: empty on row 1, `" 2"`, `" 3"`, … after.
pub fn row_suffix(row: usize) -> String {
    if row <= 1 { String::new() } else { format!(" {row}") }
}

/// The domain of fixture e-mail addresses (reserved for examples, RFC 2606).
const EMAIL_DOMAIN: &str = "example.org";

/// A version-8 UUID (RFC 9562) from the SHA-256 of `token`, `slug` and
/// `row`, in lower-case hex.
fn uuid_on_row(token: &str, slug: &str, row: usize) -> String {
    use sha2::{Digest, Sha256};
    let digest = Sha256::digest(format!("foundry-catalog fixture uuid\0{token}\0{slug}\0{row}"));
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    bytes[6] = (bytes[6] & 0x0f) | 0x80;
    bytes[8] = (bytes[8] & 0x3f) | 0x80;
    let hex: String = bytes.iter().map(|b| format!("{b:02x}")).collect();
    format!("{}-{}-{}-{}-{}", &hex[..8], &hex[8..12], &hex[12..16], &hex[16..20], &hex[20..])
}

/// The first URL base of a `url` field without a hint.
pub(crate) const DEFAULT_URL_BASE: &str = "https://fixtures.example.org/records";

/// The first value of a `fraction` field without a hint.
pub(crate) const DEFAULT_FRACTION: f64 = 0.5;

/// The hint used when a field has none: its format's default recipe, or
/// (without a format) text named after the field for strings, a sequence
/// for numbers, integers and booleans, a default payload for open objects.
/// Lists and nested objects take none: their items and fields have their
/// own. `name` names the value (a list's items are named after the list).
fn default_hint_named(field: &FieldDescriptor, name: &str) -> FixtureHint {
    match field.format {
        Some(FieldFormat::Date | FieldFormat::Timestamp) => FixtureHint::date(DEFAULT_DATE),
        Some(FieldFormat::Url) => FixtureHint::url(DEFAULT_URL_BASE),
        Some(FieldFormat::Fraction) => FixtureHint::Fraction(DEFAULT_FRACTION),
        Some(FieldFormat::Token | FieldFormat::Key | FieldFormat::Email | FieldFormat::Uuid) => {
            FixtureHint::Token(Cow::Owned(default_token(name)))
        }
        Some(FieldFormat::Payload) => FixtureHint::payload(DEFAULT_FIXTURE_MODE),
        Some(FieldFormat::Text) => FixtureHint::Text(Cow::Owned(words(name))),
        None => match field.field_type {
            FieldType::String => FixtureHint::Text(Cow::Owned(words(name))),
            FieldType::Number | FieldType::Integer | FieldType::Boolean | FieldType::Array => FixtureHint::Sequence,
            FieldType::Object => FixtureHint::payload(DEFAULT_FIXTURE_MODE),
        },
    }
}

/// How many items a list holds in every fixture row: [`LIST_ITEMS`], moved
/// into the field's `min_items`..=`max_items`.
pub(crate) fn list_len(field: &FieldDescriptor) -> usize {
    let len = LIST_ITEMS.max(field.min_items.unwrap_or(0)).min(field.max_items.unwrap_or(u32::MAX));
    usize::try_from(len).unwrap_or(usize::MAX)
}

/// The number of items of a fixture list whose bounds allow it.
pub(crate) const LIST_ITEMS: u32 = 2;

/// `fixture_<field name in snake_case>`, a `lowercase_underscore` token.
fn default_token(name: &str) -> String {
    let token = format!("fixture_{}", heck::ToSnakeCase::to_snake_case(name));
    if crate::is_lowercase_underscore(&token) { token } else { "fixture_value".to_owned() }
}

/// Whether a hint may make this field's values: it makes values of the
/// field's type and, when the field has a format, it is the format's seed
/// kind.
pub fn hint_fits(hint: &FixtureHint, field: &FieldDescriptor) -> bool {
    !matches!(hint, FixtureHint::Absent)
        && hint.fits_type(field.field_type)
        && field.format.is_none_or(|f| f.hint_kind() == hint.kind())
}

/// The hint that makes this field's values: its own if it fits the field,
/// otherwise the default. (A hint that does not fit is rejected by the build;
/// this fallback only keeps hand-made descriptors from panicking.)
pub fn effective_hint(field: &FieldDescriptor) -> Cow<'_, FixtureHint> {
    effective_hint_named(field, &field.name)
}

fn effective_hint_named<'a>(field: &'a FieldDescriptor, name: &str) -> Cow<'a, FixtureHint> {
    match &field.fixture {
        Some(FixtureHint::Absent) if !field.required => Cow::Owned(FixtureHint::Absent),
        Some(hint) if hint_fits(hint, field) => Cow::Borrowed(hint),
        _ => Cow::Owned(default_hint_named(field, name)),
    }
}

/// The field's value on `row`, or `None` when the field is left out
/// (an optional field with the `"absent"` hint).
///
/// A list holds [`list_len`] items, each the value its item type has on
/// `row` (text items are named after the list); a nested object holds its
/// fields' values on `row`, as a row does; a closed set gives its values
/// in turn (row 1 the first). A nullable value is never `null` here: a
/// sample shows the value's shape.
pub(crate) fn value(field: &FieldDescriptor, slug: &str, row: usize) -> Option<Value> {
    value_named(field, &field.name, slug, row)
}

fn value_named(field: &FieldDescriptor, name: &str, slug: &str, row: usize) -> Option<Value> {
    let hint = effective_hint_named(field, name);
    if matches!(*hint, FixtureHint::Absent) {
        return None;
    }
    Some(match field.kind() {
        // A closed set's values in turn, row by row.
        Kind::ClosedSet(values) => match values.get((row.max(1) - 1) % values.len().max(1)) {
            Some(value) => Value::String(value.value.to_string()),
            None => Value::String(string_from(&hint, field, name, slug, row)),
        },
        Kind::Text { .. } => Value::String(string_from(&hint, field, name, slug, row)),
        Kind::Number { .. } => number_value(number_from(&hint, field, row)),
        // Rows count 1, 2, 3… (within the bounds) and alternate true,
        // false… (the `sequence` hint).
        Kind::Integer { .. } => Value::from(counted(field, row)),
        Kind::Boolean => Value::Bool(row % 2 == 1),
        Kind::Object(fields) => Value::Object(self::row(fields, slug, row)),
        Kind::OpenObject { .. } => Value::Object(object_from(&hint, slug)),
        Kind::List { item, .. } => {
            let item = item?;
            Value::Array((0..list_len(field)).filter_map(|_| value_named(item, name, slug, row)).collect())
        }
    })
}

/// One fixture row as a JSON object whose keys are in field order.
pub fn row(fields: &[FieldDescriptor], slug: &str, row: usize) -> Map<String, Value> {
    fields.iter().filter_map(|field| value(field, slug, row).map(|v| (field.name.to_string(), v))).collect()
}

/// All fixture rows of a record type for a product slug.
pub fn rows(schema: &RecordSchema, slug: &str) -> Vec<Map<String, Value>> {
    (1..=schema.sample_rows).map(|n| row(&schema.fields, slug, n)).collect()
}

fn string_from(hint: &FixtureHint, field: &FieldDescriptor, name: &str, slug: &str, row: usize) -> String {
    match hint {
        FixtureHint::Text(phrase) => format!("{TEXT_PREFIX} {phrase}{}", row_suffix(row)),
        // A key differs on every row, row 1 included, and has no space.
        FixtureHint::Token(token) if field.format == Some(FieldFormat::Key) => format!("{token}_{row}"),
        FixtureHint::Token(token) if field.format == Some(FieldFormat::Email) => match row {
            ..=1 => format!("{token}@{EMAIL_DOMAIN}"),
            _ => format!("{token}+{row}@{EMAIL_DOMAIN}"),
        },
        FixtureHint::Token(token) if field.format == Some(FieldFormat::Uuid) => uuid_on_row(token, slug, row),
        FixtureHint::Date(first) if field.format == Some(FieldFormat::Timestamp) => {
            format!("{}T00:00:00Z", date_on_row(first, row))
        }
        FixtureHint::Token(token) => format!("{token}{}", row_suffix(row)),
        FixtureHint::Date(first) => date_on_row(first, row),
        FixtureHint::Url(base) => format!("{}/{slug}/{row}", base.trim_end_matches('/')),
        _ => format!("{TEXT_PREFIX} {}{}", words(name), row_suffix(row)),
    }
}

fn number_from(hint: &FixtureHint, field: &FieldDescriptor, row: usize) -> f64 {
    match hint {
        FixtureHint::Fraction(first) => {
            // Whole thousandths keep the printed value short and exact-looking.
            let first = (first * 1000.0).round() as i64;
            let step = 10 * (row.saturating_sub(1) as i64 % 100);
            let value = (first - step).rem_euclid(1000) as f64 / 1000.0;
            // Moved into the bounds, if they leave it out.
            let (lo, hi) = (field.minimum.unwrap_or(f64::MIN), field.maximum.unwrap_or(f64::MAX));
            if lo <= hi { value.clamp(lo, hi) } else { value }
        }
        _ => {
            // Counted like an integer when the bounds hold one; otherwise
            // the least value the bounds allow.
            let whole = |bound: Option<f64>, round: fn(f64) -> f64| bound.map(round);
            match (whole(field.minimum, f64::ceil), whole(field.maximum, f64::floor)) {
                (Some(lo), Some(hi)) if lo > hi => field.minimum.unwrap_or(lo),
                _ => counted(field, row) as f64,
            }
        }
    }
}

/// The row number counted into the field's bounds: 1, 2, 3… when they
/// allow it; otherwise from the first whole value the bounds allow, and
/// back to the least one after the greatest (`minimum` 5, `maximum` 6: 5,
/// 6, 5).
fn counted(field: &FieldDescriptor, row: usize) -> i64 {
    // Whole bounds within ±2^53 (no bound is ±2^53), so every value is one
    // every JSON reader holds exactly and the arithmetic is exact in i128.
    let safe = i128::from(MAX_SAFE_INTEGER);
    let bound = |b: Option<f64>, round: fn(f64) -> f64, none: i128| {
        b.map_or(none, |b| round(b).clamp(-(safe as f64), safe as f64) as i128)
    };
    let (lo, hi) = (bound(field.minimum, f64::ceil, -safe), bound(field.maximum, f64::floor, safe));
    let step = i128::try_from(row.saturating_sub(1)).unwrap_or(0);
    let value = if lo > hi {
        lo
    } else {
        // From 1 if the bounds hold it, else from the bound nearest to it;
        // back to the least value after the greatest.
        let start = 1i128.clamp(lo, hi);
        lo + (start - lo + step) % (hi - lo + 1)
    };
    i64::try_from(value).unwrap_or(i64::MAX)
}

fn object_from(hint: &FixtureHint, slug: &str) -> Map<String, Value> {
    let mode = match hint {
        FixtureHint::Payload(mode) => mode,
        _ => DEFAULT_FIXTURE_MODE,
    };
    let mut object = Map::new();
    object.insert("product".to_owned(), Value::String(slug.to_owned()));
    object.insert("fixture_mode".to_owned(), Value::String(mode.to_owned()));
    object
}

fn number_value(n: f64) -> Value {
    serde_json::Number::from_f64(n).map_or(Value::Null, Value::Number)
}

fn date_on_row(first: &str, row: usize) -> String {
    let days = i64::try_from(row.saturating_sub(1)).unwrap_or(0);
    date::parse(first)
        .or_else(|| date::parse(DEFAULT_DATE))
        .and_then(|d| date::to_text(d.checked_add(time::Duration::days(days)).unwrap_or(d)))
        .unwrap_or_else(|| DEFAULT_DATE.to_owned())
}

/// A field name as lowercase words: `entityName` → `entity name`.
pub(crate) fn words(name: &str) -> String {
    heck::ToSnakeCase::to_snake_case(name).replace('_', " ")
}

/// Why a hint's value cannot make valid fixtures.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HintProblem {
    /// What is wrong.
    pub message: String,
    /// How to fix it.
    pub hint: String,
}

fn problem(message: impl Into<String>, hint: impl Into<String>) -> Result<(), HintProblem> {
    Err(HintProblem { message: message.into(), hint: hint.into() })
}

/// Checks that a hint's own value can make valid fixtures (whether it fits
/// its field's type and format is checked separately, with [`hint_fits`]).
pub fn check_hint(hint: &FixtureHint) -> Result<(), HintProblem> {
    match hint {
        FixtureHint::Text(phrase) => {
            if phrase.trim().is_empty() || phrase.trim() != phrase || phrase.chars().any(char::is_control) {
                return problem(
                    format!("text phrase {phrase:?} is empty, padded or has control characters"),
                    "write a short phrase such as \"entity name\"",
                );
            }
        }
        FixtureHint::Token(token) | FixtureHint::Payload(token) => {
            if !is_token(token) {
                return problem(
                    format!("{} {token:?} is not a token", hint.kind()),
                    "use ASCII letters, digits, `_`, `-`, `.` or `:`, such as \"fixture_validated\"",
                );
            }
        }
        FixtureHint::Date(date) => {
            if date::parse(date).is_none() {
                return problem(
                    format!("date {date:?} is not a calendar date"),
                    "write the first date as YYYY-MM-DD, such as \"2026-01-15\"",
                );
            }
        }
        FixtureHint::Url(base) => {
            if !is_base_url(base) {
                return problem(
                    format!("url base {base:?} is not an absolute http(s) URL without query, fragment or spaces"),
                    "write a base such as \"https://registry.example.org/records\"; rows append /<slug>/<row>",
                );
            }
        }
        FixtureHint::Fraction(first) => {
            let thousandths = first * 1000.0;
            if !first.is_finite() || *first < 0.0 || *first >= 1.0 || (thousandths - thousandths.round()).abs() > 1e-6 {
                return problem(
                    format!("fraction {first} is not in [0, 1) with at most three decimals"),
                    "write the first row's value, such as 0.91",
                );
            }
        }
        FixtureHint::Sequence | FixtureHint::Absent => {}
    }
    Ok(())
}

fn is_token(text: &str) -> bool {
    !text.is_empty() && text.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.' | b':'))
}

/// A URL base: an absolute http(s) URL (the one rule of
/// [`crate::is_absolute_url`]) without query or fragment, since rows append
/// `/<slug>/<row>` to it.
fn is_base_url(text: &str) -> bool {
    crate::is_absolute_url(text) && !text.contains(['?', '#'])
}
