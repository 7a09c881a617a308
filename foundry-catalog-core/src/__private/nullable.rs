//! Fields that are optional *and* nullable: `Option<Option<T>>`, where an
//! absent key is `None`, `null` is `Some(None)` and a value `Some(Some(v))`,
//! so the wire form round-trips exactly (serde alone reads `null` and an
//! absent key alike as `None`). Generated code uses this module with
//! `#[serde(default, skip_serializing_if = "Option::is_none", with = "…::nullable")]`.
//!
//! ```
//! #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
//! struct Row {
//!     #[serde(default, skip_serializing_if = "Option::is_none", with = "foundry_catalog_core::__private::nullable")]
//!     note: Option<Option<String>>,
//! }
//! for text in [r#"{}"#, r#"{"note":null}"#, r#"{"note":"x"}"#] {
//!     let row: Row = serde_json::from_str(text).unwrap();
//!     assert_eq!(serde_json::to_string(&row).unwrap(), text);
//! }
//! ```
//!
//! A field that is required and nullable is an `Option<T>` through
//! [`required`] (always written, `null` for `None`, a missing key an
//! error); one that is optional and not nullable is an `Option<T>` skipped
//! when `None`.

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

/// Fields that are required *and* nullable: `Option<T>`, where `null` is
/// `None` and a missing key is an error. serde alone reads a missing
/// `Option` field as `None`; a field read through a function is never
/// defaulted, so generated code writes
/// `#[serde(deserialize_with = "…::nullable::required::deserialize")]`
/// (serde writes `None` as `null` by itself).
///
/// ```
/// #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
/// struct Row {
///     #[serde(deserialize_with = "foundry_catalog_core::__private::nullable::required::deserialize")]
///     rating: Option<i64>,
/// }
/// for text in [r#"{"rating":null}"#, r#"{"rating":4}"#] {
///     let row: Row = serde_json::from_str(text).unwrap();
///     assert_eq!(serde_json::to_string(&row).unwrap(), text);
/// }
/// assert!(serde_json::from_str::<Row>("{}").is_err(), "a missing key is an error");
/// ```
pub mod required {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    /// Serializes `Some(v)` as `v` and `None` as `null`.
    pub fn serialize<T: Serialize, S: Serializer>(value: &Option<T>, serializer: S) -> Result<S::Ok, S::Error> {
        value.serialize(serializer)
    }

    /// Deserializes `null` as `None` and anything else as `Some(v)`.
    pub fn deserialize<'de, T: Deserialize<'de>, D: Deserializer<'de>>(deserializer: D) -> Result<Option<T>, D::Error> {
        Option::<T>::deserialize(deserializer)
    }
}

/// Optional fields of a strict reader (`Generator::strict_readers`):
/// `Option<T>` where an absent key is `None` (through the field's
/// `default`) and `null` is an error, as the validator and the row JSON
/// Schema have it. A tolerant reader reads `null` as `None`, as serde does.
///
/// ```
/// #[derive(serde::Serialize, serde::Deserialize, Debug, PartialEq)]
/// struct Row {
///     #[serde(default, skip_serializing_if = "Option::is_none", with = "foundry_catalog_core::__private::nullable::not_null")]
///     rating: Option<i64>,
/// }
/// assert_eq!(serde_json::from_str::<Row>("{}").unwrap(), Row { rating: None });
/// assert_eq!(serde_json::from_str::<Row>(r#"{"rating":4}"#).unwrap(), Row { rating: Some(4) });
/// assert!(serde_json::from_str::<Row>(r#"{"rating":null}"#).is_err(), "null is an error");
/// ```
pub mod not_null {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};

    /// Serializes `Some(v)` as `v` (`None` is skipped by the field's
    /// `skip_serializing_if`).
    pub fn serialize<T: Serialize, S: Serializer>(value: &Option<T>, serializer: S) -> Result<S::Ok, S::Error> {
        value.serialize(serializer)
    }

    /// Deserializes a present value, never `null`.
    pub fn deserialize<'de, T: Deserialize<'de>, D: Deserializer<'de>>(deserializer: D) -> Result<Option<T>, D::Error> {
        T::deserialize(deserializer).map(Some)
    }
}
