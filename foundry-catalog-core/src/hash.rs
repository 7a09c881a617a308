//! `schema_hash`: the canonical form of a record type's contract and its digest.
//!
//! The canonical form is the RFC 8785 (JCS) serialization of
//!
//! ```json
//! {"fields":[{"name":…,"required":…,"type":…},…],"record_label":…}
//! ```
//!
//! with the fields in definition order. A list field adds `items` (its item
//! type: `type` and, as it has them, the keys below) and its own
//! `min_items` / `max_items`; a nested object adds `fields`, each written
//! as a top-level field is; a closed set adds `enum`, its values sorted by
//! code point without repeats (a set: reordering it changes nothing); a
//! nullable value adds `"nullable": true`. A key a field does not have is
//! left out, so a definition without these constructs has the canonical
//! form it always had. Descriptions, fixture hints, formats and Rust names
//! are left out, so editing prose never changes the hash; renaming,
//! retyping, reordering a field at any depth, changing an item type, a list
//! bound, a closed set or `nullable`, or flipping `required` always does.
//!
//! `schema_hash` is the lowercase hex SHA-256 of the canonical form's UTF-8
//! bytes, cut to the first 40 characters when the definition asks for a
//! 40-character digest.
//!
//! [`canonical_json`] writes the form as JCS requires: keys in sorted order,
//! strings escaped by `serde_json` (exactly as JCS escapes: `\"`, `\\`,
//! `\b \f \n \r \t`, other control characters as lowercase `\u00xx`,
//! everything else verbatim), numbers (list bounds, `minimum`, `maximum`)
//! as ECMAScript writes them, through `ryu-js`, a maintained port of that
//! algorithm; `tests/runtime/hash.rs` holds it to RFC 8785's number
//! examples.

use sha2::{Digest, Sha256};

use crate::model::{DigestLength, FieldDescriptor, RecordSchema};

/// One field in the canonical form. Keys are declared in JCS (sorted) order;
/// those a field without nesting lacks are left out, so a definition that
/// uses only strings, numbers, integers, booleans and open objects has the
/// canonical form it always had.
struct CanonicalField<'a> {
    enum_values: Option<Vec<&'a str>>,
    fields: Option<Vec<CanonicalField<'a>>>,
    items: Option<Box<CanonicalField<'a>>>,
    max_items: Option<u32>,
    maximum: Option<f64>,
    min_items: Option<u32>,
    minimum: Option<f64>,
    name: Option<&'a str>,
    nullable: bool,
    required: Option<bool>,
    field_type: &'static str,
}

impl<'a> CanonicalField<'a> {
    /// A named field: its name and required flag, then its type.
    fn field(field: &'a FieldDescriptor) -> Self {
        CanonicalField { name: Some(&field.name), required: Some(field.required), ..CanonicalField::value(field) }
    }

    /// A value's type: the JSON type, and for a list its items and bounds,
    /// for a nested object its fields.
    fn value(field: &'a FieldDescriptor) -> Self {
        CanonicalField {
            // A set: sorted (by code point, as UTF-8 bytes sort), so
            // reordering the values changes nothing on the wire or here.
            enum_values: field.values().map(|values| {
                let mut values: Vec<&str> = values.iter().map(|v| &*v.value).collect();
                values.sort_unstable();
                values.dedup();
                values
            }),
            fields: field.nested_fields().map(|fields| fields.iter().map(CanonicalField::field).collect()),
            items: field.item_type().map(|item| Box::new(CanonicalField::value(item))),
            max_items: field.max_items,
            maximum: field.maximum,
            min_items: field.min_items,
            minimum: field.minimum,
            name: None,
            nullable: field.nullable,
            required: None,
            field_type: field.field_type.as_str(),
        }
    }
}

/// The canonical form. Keys are declared in JCS (sorted) order.
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
    let canonical = Canonical { fields: fields.iter().map(CanonicalField::field).collect(), record_label };
    let mut out = String::with_capacity(64 + 64 * fields.len());
    canonical.write(&mut out);
    out
}

impl Canonical<'_> {
    /// Writes the form as JCS writes it (keys in sorted order, ECMAScript
    /// numbers), without building a JSON value.
    fn write(&self, out: &mut String) {
        out.push_str("{\"fields\":");
        write_list(&self.fields, out);
        out.push_str(",\"record_label\":");
        write_string(self.record_label, out);
        out.push('}');
    }
}

impl CanonicalField<'_> {
    fn write(&self, out: &mut String) {
        // Keys in JCS order: enum, fields, items, max_items, maximum,
        // min_items, minimum, name, nullable, required, type.
        let mut first = true;
        let mut key = |name: &str, out: &mut String| {
            out.push_str(if first { "{\"" } else { ",\"" });
            out.push_str(name);
            out.push_str("\":");
            first = false;
        };
        if let Some(values) = &self.enum_values {
            key("enum", out);
            write_array(values, out, |value, out| write_string(value, out));
        }
        if let Some(fields) = &self.fields {
            key("fields", out);
            write_list(fields, out);
        }
        if let Some(items) = &self.items {
            key("items", out);
            items.write(out);
        }
        let numbers = [
            ("max_items", self.max_items.map(f64::from)),
            ("maximum", self.maximum),
            ("min_items", self.min_items.map(f64::from)),
            ("minimum", self.minimum),
        ];
        for (name, number) in numbers {
            if let Some(number) = number {
                key(name, out);
                out.push_str(&es_number(number));
            }
        }
        if let Some(name) = self.name {
            key("name", out);
            write_string(name, out);
        }
        if self.nullable {
            key("nullable", out);
            out.push_str("true");
        }
        if let Some(required) = self.required {
            key("required", out);
            out.push_str(if required { "true" } else { "false" });
        }
        key("type", out);
        write_string(self.field_type, out);
        out.push('}');
    }
}

fn write_list(fields: &[CanonicalField<'_>], out: &mut String) {
    write_array(fields, out, CanonicalField::write);
}

/// `[a,b,…]`, each item written by `write`.
fn write_array<T>(items: &[T], out: &mut String, write: impl Fn(&T, &mut String)) {
    out.push('[');
    for (i, item) in items.iter().enumerate() {
        if i > 0 {
            out.push(',');
        }
        write(item, out);
    }
    out.push(']');
}

/// A JSON string as JCS writes it (`serde_json`'s escaping is JCS's).
fn write_string(text: &str, out: &mut String) {
    if text.bytes().any(|b| b < 0x20 || b == b'"' || b == b'\\') {
        // Serializing a string cannot fail.
        out.push_str(&serde_json::to_string(text).unwrap_or_default());
    } else {
        out.push('"');
        out.push_str(text);
        out.push('"');
    }
}

/// A finite number as ECMAScript's `Number.prototype.toString` writes it
/// (RFC 8785 §3.2.2.3); JSON holds no other kind.
pub fn es_number(number: f64) -> String {
    ryu_js::Buffer::new().format(number).to_owned()
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
    // Lowercase hex of the digest's leading bytes.
    digest.iter().flat_map(|byte| [byte >> 4, byte & 0xf]).take(digest_length.hex_chars()).map(hex_digit).collect()
}

/// The lowercase hex digit of a value below 16.
fn hex_digit(nibble: u8) -> char {
    char::from_digit(u32::from(nibble), 16).unwrap_or('0')
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
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HashMismatch {
    /// The record type.
    pub record_label: String,
    /// The hash that was stored.
    pub stored: String,
    /// The hash the fields give.
    pub computed: String,
}

impl std::fmt::Display for HashMismatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let HashMismatch { record_label, stored, computed } = self;
        write!(
            f,
            "record type `{record_label}`: stored schema_hash {stored} does not match the fields (computed {computed}); hint: regenerate the code from the definition"
        )
    }
}

impl std::error::Error for HashMismatch {}
