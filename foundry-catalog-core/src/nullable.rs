//! Fields that are optional *and* nullable: `Option<Option<T>>`, where an
//! absent key is `None`, `null` is `Some(None)` and a value `Some(Some(v))`,
//! so the wire form round-trips exactly (serde alone reads `null` and an
//! absent key alike as `None`). Generated code uses this module with
//! `#[serde(default, skip_serializing_if = "Option::is_none", with = "…::nullable")]`.
//!
//! ```
//! #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
//! struct Row {
//!     #[serde(default, skip_serializing_if = "Option::is_none", with = "foundry_catalog_core::nullable")]
//!     note: Option<Option<String>>,
//! }
//! for text in [r#"{}"#, r#"{"note":null}"#, r#"{"note":"x"}"#] {
//!     let row: Row = serde_json::from_str(text).unwrap();
//!     assert_eq!(serde_json::to_string(&row).unwrap(), text);
//! }
//! ```
//!
//! A field that is required and nullable is a plain `Option<T>` (always
//! written, `null` for `None`); one that is optional and not nullable is an
//! `Option<T>` skipped when `None`.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// Serializes `Some(Some(v))` as `v` and `Some(None)` as `null` (`None` is
/// skipped by the field's `skip_serializing_if`).
pub fn serialize<T: Serialize, S: Serializer>(value: &Option<Option<T>>, serializer: S) -> Result<S::Ok, S::Error> {
    match value {
        Some(Some(value)) => value.serialize(serializer),
        _ => serializer.serialize_none(),
    }
}

/// Deserializes a present value: `null` as `Some(None)`, anything else as
/// `Some(Some(v))` (an absent key is `None` through the field's `default`).
pub fn deserialize<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
    deserializer: D,
) -> Result<Option<Option<T>>, D::Error> {
    Option::<T>::deserialize(deserializer).map(Some)
}
