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
//!
//! This file is compiled into both the library and `build.rs`.

use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::model::{DigestLength, FieldDescriptor};

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
/// use foundry_catalog::{FieldDescriptor, FieldType};
/// let fields = [FieldDescriptor::new("entityName", FieldType::String, true, "Who.", None)];
/// assert_eq!(
///     foundry_catalog::hash::canonical_json("example_record", &fields),
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
/// use foundry_catalog::{DigestLength, FieldDescriptor, FieldType};
/// let fields = [FieldDescriptor::new("entityName", FieldType::String, true, "Who.", None)];
/// let full = foundry_catalog::hash::schema_hash("example_record", &fields, DigestLength::Hex64);
/// let short = foundry_catalog::hash::schema_hash("example_record", &fields, DigestLength::Hex40);
/// assert_eq!(full.len(), 64);
/// assert!(full.starts_with(&short));
/// ```
pub fn schema_hash(record_label: &str, fields: &[FieldDescriptor], digest_length: DigestLength) -> String {
    let digest = Sha256::digest(canonical_json(record_label, fields).as_bytes());
    let mut hex = hex::encode(digest.as_slice());
    hex.truncate(digest_length.hex_chars());
    hex
}
