//! The response envelope `{"data": <product record>}`: the body of a 200
//! answer to `GET /api/public/foundry/products/<slug>` (docs/serving.md).

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::conformance::{Rule, Violation, Violations};
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
pub(crate) fn body_bytes(record: &ProductRecord) -> Vec<u8> {
    #[derive(Serialize)]
    struct Envelope<'a> {
        data: &'a ProductRecord,
    }
    // Serializing a typed record into a Vec cannot fail.
    serde_json::to_vec(&Envelope { data: record }).unwrap_or_default()
}

impl ProductResponse {
    /// The envelope's one key.
    pub const KEYS: &'static [Field] = &[Field {
        name: "data",
        shape: Shape::Object(ProductRecord::KEYS),
        role: Role::Stored,
        doc: "The product record.",
    }];

    /// Checks a response body against every rule of the spec and, if it
    /// passes, reads it into the typed model (the derived keys, checked by
    /// the validator, are dropped).
    pub fn from_value(body: &Value) -> Result<ProductResponse, Violations> {
        let violations = crate::conformance::validate(body);
        if !violations.is_empty() {
            return Err(Violations(violations));
        }
        let mut stored = body.clone();
        drop_derived(&mut stored, &Shape::Object(Self::KEYS));
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
        (Shape::Object(fields), Value::Object(object)) => {
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
