//! `schema_hash`: the canonical form of a record type's contract and its digest.
//!
//! The canonical form is the RFC 8785 (JCS) serialization of
//!
//! ```json
//! {"fields":[{"name":…,"required":…,"type":…},…],"record_label":…}
//! ```
//!
//! with the fields in definition order. Descriptions and fixture hints are
//! left out, so editing prose never changes the hash; renaming, retyping,
//! reordering a field or flipping `required` always does.
//!
//! `schema_hash` is the lowercase hex SHA-256 of the canonical form's UTF-8
//! bytes, cut to the first 40 characters when the definition asks for a
//! 40-character digest.
//!
//! Why plain `serde_json` output is JCS here: the object holds only strings
//! and booleans (no numbers, whose JCS form differs), its keys are ASCII and
//! are declared below in sorted order, and `serde_json` escapes strings
//! exactly as JCS does (`\"`, `\\`, `\b \f \n \r \t`, other control
//! characters as lowercase `\u00xx`, everything else verbatim).

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::model::{DigestLength, FieldDescriptor, RecordSchema};

/// One field in the canonical form. Keys are declared in JCS (sorted) order.
#[derive(Serialize)]
struct CanonicalField<'a> {
    name: &'a str,
    required: bool,
    #[serde(rename = "type")]
    field_type: &'static str,
}

/// The canonical form. Keys are declared in JCS (sorted) order.
#[derive(Serialize)]
struct Canonical<'a> {
    fields: Vec<CanonicalField<'a>>,
    record_label: &'a str,
}

/// The canonical JSON text that [`schema_hash`] digests.
///
/// ```
/// use foundry_catalog_core::{FieldDescriptor, FieldType};
/// let fields = [FieldDescriptor::new("entityName", FieldType::String, true, "Who.", None, None)];
/// assert_eq!(
///     foundry_catalog_core::hash::canonical_json("example_record", &fields),
///     r#"{"fields":[{"name":"entityName","required":true,"type":"string"}],"record_label":"example_record"}"#,
/// );
/// ```
pub fn canonical_json(record_label: &str, fields: &[FieldDescriptor]) -> String {
    let canonical = Canonical {
        fields: fields
            .iter()
            .map(|f| CanonicalField { name: &f.name, required: f.required, field_type: f.field_type.as_str() })
            .collect(),
        record_label,
    };
    // Serializing structs of strings and booleans into a String cannot fail.
    serde_json::to_string(&canonical).unwrap_or_default()
}

/// The `schema_hash` of a record type: lowercase hex SHA-256 of
/// [`canonical_json`], `digest_length` characters long.
///
/// ```
/// use foundry_catalog_core::{DigestLength, FieldDescriptor, FieldType};
/// let fields = [FieldDescriptor::new("entityName", FieldType::String, true, "Who.", None, None)];
/// let full = foundry_catalog_core::hash::schema_hash("example_record", &fields, DigestLength::Hex64);
/// let short = foundry_catalog_core::hash::schema_hash("example_record", &fields, DigestLength::Hex40);
/// assert_eq!(full.len(), 64);
/// assert!(full.starts_with(&short));
/// ```
pub fn schema_hash(record_label: &str, fields: &[FieldDescriptor], digest_length: DigestLength) -> String {
    let digest = Sha256::digest(canonical_json(record_label, fields).as_bytes());
    let mut hex = hex::encode(digest.as_slice());
    hex.truncate(digest_length.hex_chars());
    hex
}

impl RecordSchema {
    /// Recomputes the schema hash from the fields and compares it with the
    /// stored one.
    pub fn verify_schema_hash(&self) -> Result<(), HashMismatch> {
        let computed = schema_hash(&self.record_label, &self.fields, self.digest_length);
        if computed == self.schema_hash {
            Ok(())
        } else {
            Err(HashMismatch {
                record_label: self.record_label.to_string(),
                stored: self.schema_hash.to_string(),
                computed,
            })
        }
    }
}

/// A stored `schema_hash` that does not match its fields.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "record type `{record_label}`: stored schema_hash {stored} does not match the fields (computed {computed}); hint: regenerate the code from the definition"
)]
pub struct HashMismatch {
    /// The record type.
    pub record_label: String,
    /// The hash that was stored.
    pub stored: String,
    /// The hash the fields give.
    pub computed: String,
}
