//! The bodies of `GET /api/public/foundry/products/<slug>`
//! (docs/serving.md): the envelope `{"data": <product record>}` of a 200
//! answer, and every error the endpoint answers with ([`ErrorKind`]).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::RecordSchema;
use crate::conformance::{Rule, Violation, Violations, validate_with};
use crate::product::ProductRecord;
use crate::shape::{Field, Role, Shape};

/// A response body: `{"data": <product record>}`.
///
/// Deserializing one validates the whole body with
/// [`crate::conformance::validate`] and fails with every violation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProductResponse {
    /// The product record.
    pub data: ProductRecord,
}

/// The body `{"data": record}` as bytes, serialized straight from the
/// typed record, exactly as [`ProductResponse`] serializes.
fn body_bytes(record: &ProductRecord) -> Vec<u8> {
    #[derive(Serialize)]
    struct Envelope<'a> {
        data: &'a ProductRecord,
    }
    // Serializing a typed record into a Vec cannot fail.
    serde_json::to_vec(&Envelope { data: record }).unwrap_or_default()
}

/// Every violation of a serialized response body `{"data": record}`,
/// with pointers relative to the record (as the manifest's keys are).
fn record_violations(body: &[u8], record_types: &[RecordSchema]) -> Violations {
    let body: Value = match serde_json::from_slice(body) {
        Ok(body) => body,
        Err(e) => {
            return Violations(vec![Violation::new("", Rule::Type, format!("the record does not serialize: {e}"))]);
        }
    };
    Violations(
        validate_with(&body, record_types)
            .into_iter()
            .map(|v| Violation { pointer: v.pointer.strip_prefix("/data").unwrap_or(&v.pointer).to_owned(), ..v })
            .collect(),
    )
}

/// Every string of `body` (JSON) holding a character that hides or
/// reorders text, as a violation at its pointer (relative to the record).
/// The characters are at least three bytes in UTF-8, starting 0xE2 or
/// 0xEF (JSON writes them as they are), so a body without those bytes is
/// passed at the cost of one scan.
fn hidden_characters(body: &[u8]) -> Vec<Violation> {
    if !body.iter().any(|&b| b == 0xE2 || b == 0xEF) {
        return Vec::new();
    }
    let Ok(value) = serde_json::from_slice::<Value>(body) else { return Vec::new() };
    let mut found = Vec::new();
    fn walk(value: &Value, pointer: &mut String, found: &mut Vec<Violation>) {
        match value {
            Value::String(text) => {
                if let Some(c) = text.chars().find(|&c| foundry_catalog_core::hides_or_reorders(c)) {
                    found.push(Violation::new(
                        pointer.strip_prefix("/data").unwrap_or(pointer),
                        Rule::Format,
                        format!(
                            "holds U+{:04X}, a character that hides or reorders the text around it on a page; hint: remove it (the zero-width joiners and the direction marks are allowed)",
                            u32::from(c)
                        ),
                    ));
                }
            }
            Value::Array(items) => {
                for (n, item) in items.iter().enumerate() {
                    let len = pointer.len();
                    pointer.push_str(&format!("/{n}"));
                    walk(item, pointer, found);
                    pointer.truncate(len);
                }
            }
            Value::Object(fields) => {
                for (key, item) in fields {
                    let len = pointer.len();
                    pointer.push('/');
                    pointer.push_str(&key.replace('~', "~0").replace('/', "~1"));
                    walk(item, pointer, found);
                    pointer.truncate(len);
                }
            }
            _ => {}
        }
    }
    walk(&value, &mut String::new(), &mut found);
    found
}

impl ProductResponse {
    /// The body `{"data": record}` as bytes, serialized straight from the
    /// typed record, and checked against the spec (knowing `record_types`
    /// besides the shipped ones): the body, or every violation, with
    /// pointers relative to the record (as a manifest's keys are).
    ///
    /// Beyond the spec, a built body's text holds no character that hides
    /// or reorders what a page shows ([`foundry_catalog_core::hides_or_reorders`]:
    /// bidirectional overrides, zero-width spaces): each such string is a
    /// [`Rule::Format`] violation at its pointer.
    pub fn body(record: &ProductRecord, record_types: &[RecordSchema]) -> Result<Vec<u8>, Violations> {
        let body = body_bytes(record);
        let mut violations = record_violations(&body, record_types);
        violations.0.extend(hidden_characters(&body));
        if violations.0.is_empty() { Ok(body) } else { Err(violations) }
    }

    /// The envelope's one key.
    pub const KEYS: &'static [Field] =
        &[Field { name: "data", shape: ProductRecord::SHAPE, role: Role::Stored, doc: "The product record." }];

    /// The envelope's shape.
    pub(crate) const SHAPE: Shape = Shape::Object("ProductResponse", Self::KEYS);

    /// Checks a response body against every rule of the spec and, if it
    /// passes, reads it into the typed model (the derived keys, checked by
    /// the validator, are dropped).
    pub fn from_value(body: &Value) -> Result<ProductResponse, Violations> {
        ProductResponse::from_value_with(body, &[])
    }

    /// [`ProductResponse::from_value`], knowing `record_types` besides the
    /// shipped ones (as [`crate::conformance::validate_with`] does).
    pub fn from_value_with(body: &Value, record_types: &[RecordSchema]) -> Result<ProductResponse, Violations> {
        let violations = crate::conformance::validate_with(body, record_types);
        if !violations.is_empty() {
            return Err(Violations(violations));
        }
        let mut stored = body.clone();
        drop_derived(&mut stored, &Self::SHAPE);
        #[derive(Deserialize)]
        #[serde(deny_unknown_fields)]
        struct Envelope {
            data: ProductRecord,
        }
        serde_json::from_value::<Envelope>(stored).map(|e| ProductResponse { data: e.data }).map_err(|e| {
            Violations(vec![Violation::new(
                "/data",
                Rule::Type,
                format!("the record does not fit the typed model: {e}"),
            )])
        })
    }
}

impl<'de> Deserialize<'de> for ProductResponse {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let body = Value::deserialize(deserializer)?;
        ProductResponse::from_value(&body).map_err(serde::de::Error::custom)
    }
}

/// Removes every derived key from `value`, following `shape`.
fn drop_derived(value: &mut Value, shape: &Shape) {
    match (shape, value) {
        (Shape::Nullable(inner), value) => drop_derived(value, inner),
        (Shape::Array(item), Value::Array(items)) => items.iter_mut().for_each(|v| drop_derived(v, item)),
        (Shape::Object(_, fields), Value::Object(object)) => {
            for field in fields.iter() {
                if field.role == Role::Derived {
                    object.remove(field.name);
                } else if let Some(value) = object.get_mut(field.name) {
                    drop_derived(value, &field.shape);
                }
            }
        }
        _ => {}
    }
}

/// Every error the product path answers with: its status, its code and
/// its fixed message (no request input is ever echoed). The OpenAPI
/// document lists them from here.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum ErrorKind {
    /// 400: the slug is not a slug.
    InvalidSlug,
    /// 400: an HTTP/1.1 request without exactly one valid `Host`.
    BadHost,
    /// 404: nothing is served at this path.
    NoResource,
    /// 404: no product has this slug.
    NoProduct,
    /// 405: a method other than GET and HEAD.
    MethodNotAllowed,
    /// 406: `Accept-Encoding` excludes every stored coding.
    NotAcceptable,
    /// 412: `If-Match` does not match.
    PreconditionFailed,
    /// 503: the stored response cannot be served right now (its bytes no
    /// longer match what was checked; the server is reloading).
    Unavailable,
}

impl ErrorKind {
    /// Every error, in status order.
    pub const ALL: [ErrorKind; 8] = [
        ErrorKind::InvalidSlug,
        ErrorKind::BadHost,
        ErrorKind::NoResource,
        ErrorKind::NoProduct,
        ErrorKind::MethodNotAllowed,
        ErrorKind::NotAcceptable,
        ErrorKind::PreconditionFailed,
        ErrorKind::Unavailable,
    ];

    /// The HTTP status.
    pub const fn status(self) -> u16 {
        match self {
            ErrorKind::InvalidSlug | ErrorKind::BadHost => 400,
            ErrorKind::NoResource | ErrorKind::NoProduct => 404,
            ErrorKind::MethodNotAllowed => 405,
            ErrorKind::NotAcceptable => 406,
            ErrorKind::PreconditionFailed => 412,
            ErrorKind::Unavailable => 503,
        }
    }

    /// The `code` of the error body.
    pub const fn code(self) -> &'static str {
        match self {
            ErrorKind::InvalidSlug => "invalid_slug",
            ErrorKind::BadHost => "bad_host",
            ErrorKind::NoResource | ErrorKind::NoProduct => "not_found",
            ErrorKind::MethodNotAllowed => "method_not_allowed",
            ErrorKind::NotAcceptable => "not_acceptable",
            ErrorKind::PreconditionFailed => "precondition_failed",
            ErrorKind::Unavailable => "unavailable",
        }
    }

    /// The fixed `message` of the error body.
    pub const fn message(self) -> &'static str {
        match self {
            ErrorKind::InvalidSlug => {
                "a slug is lowercase letters and digits joined by single hyphens, at most 200 bytes"
            }
            ErrorKind::BadHost => "an HTTP/1.1 request needs exactly one valid Host",
            ErrorKind::NoResource => "no resource at this path",
            ErrorKind::NoProduct => "no product with this slug",
            ErrorKind::MethodNotAllowed => "only GET and HEAD are allowed here",
            ErrorKind::NotAcceptable => "none of br, gzip or identity is acceptable",
            ErrorKind::PreconditionFailed => "the product does not match If-Match",
            ErrorKind::Unavailable => "the response cannot be served right now; try again",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::preview::{Sample, SchemaPreview};
    use crate::product::{AvailabilityEntry, MarketplaceListing, ProductManifest, ProductRecord};
    use crate::shape::Field;

    /// The typed serializer writes exactly the keys of the shape table, in order.
    #[test]
    fn typed_keys_follow_the_shape_table() {
        fn keys(value: &serde_json::Value) -> Vec<&str> {
            value.as_object().map(|o| o.keys().map(String::as_str).collect()).unwrap_or_default()
        }
        fn names(fields: &[Field]) -> Vec<&str> {
            fields.iter().map(|f| f.name).collect()
        }
        let (_, text) = crate::examples::MANIFESTS
            .iter()
            .find(|(name, _)| *name == "eu-regulatory-status-signals.json")
            .expect("an example");
        let manifest: ProductManifest = serde_json::from_str(text).expect("a manifest");
        let body = serde_json::to_value(ProductResponse { data: manifest.build().expect("builds") }).expect("JSON");
        let data = &body["data"];
        assert_eq!(keys(&body), names(ProductResponse::KEYS));
        assert_eq!(keys(data), names(ProductRecord::KEYS));
        assert_eq!(keys(&data["marketplaces"][0]), names(MarketplaceListing::KEYS));
        assert_eq!(keys(&data["primary_cta"]), names(MarketplaceListing::KEYS));
        assert_eq!(keys(&data["marketplace_availability"][0]), names(AvailabilityEntry::KEYS));
        assert_eq!(keys(&data["sample"]), names(Sample::KEYS));
        assert_eq!(keys(&data["schema_preview"]), names(SchemaPreview::KEYS));
    }
}
