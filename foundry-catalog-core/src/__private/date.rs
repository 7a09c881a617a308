//! `date` fields: `time::Date` written `YYYY-MM-DD`. Generated code uses
//! this module with `#[serde(with = "…::__private::date")]` (and
//! `…::__private::date::option` for optional fields).

use serde::{Deserialize, Deserializer, Serializer};

use crate::date::{parse, to_text};

/// Serializes a date as `YYYY-MM-DD`.
pub fn serialize<S: Serializer>(date: &time::Date, serializer: S) -> Result<S::Ok, S::Error> {
    let text = to_text(*date).ok_or_else(|| serde::ser::Error::custom("a date outside years 0001-9999"))?;
    serializer.serialize_str(&text)
}

/// Deserializes a `YYYY-MM-DD` date.
pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<time::Date, D::Error> {
    let text = <std::borrow::Cow<'de, str>>::deserialize(deserializer)?;
    parse(&text).ok_or_else(|| serde::de::Error::custom(format!("{text:?} is not a calendar date written YYYY-MM-DD")))
}

/// The same for `Option<time::Date>` (with `default` and
/// `skip_serializing_if = "Option::is_none"`).
pub mod option {
    use serde::{Deserialize, Deserializer, Serializer};

    /// Serializes `Some(date)` as `YYYY-MM-DD`, `None` as null.
    pub fn serialize<S: Serializer>(date: &Option<time::Date>, serializer: S) -> Result<S::Ok, S::Error> {
        match date {
            Some(date) => super::serialize(date, serializer),
            None => serializer.serialize_none(),
        }
    }

    /// Deserializes a `YYYY-MM-DD` date or null.
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<time::Date>, D::Error> {
        let text = <Option<std::borrow::Cow<'de, str>>>::deserialize(deserializer)?;
        text.map(|text| {
            crate::date::parse(&text)
                .ok_or_else(|| serde::de::Error::custom(format!("{text:?} is not a calendar date written YYYY-MM-DD")))
        })
        .transpose()
    }
}

/// The same for an optional date of a strict reader: `Option<time::Date>`
/// where `null` is an error (see `nullable::not_null`).
pub mod not_null {
    use serde::{Deserializer, Serializer};

    /// Serializes `Some(date)` as `YYYY-MM-DD` (`None` is skipped).
    pub fn serialize<S: Serializer>(date: &Option<time::Date>, serializer: S) -> Result<S::Ok, S::Error> {
        super::option::serialize(date, serializer)
    }

    /// Deserializes a present `YYYY-MM-DD` date, never `null`.
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<time::Date>, D::Error> {
        super::deserialize(deserializer).map(Some)
    }
}

/// The same for an optional, nullable date: `Option<Option<time::Date>>`
/// (with `default` and `skip_serializing_if = "Option::is_none"`):
/// absent is `None`, null `Some(None)` (see `nullable`).
pub mod nullable {
    use serde::{Deserializer, Serializer};

    /// Serializes `Some(Some(date))` as `YYYY-MM-DD`, `Some(None)` as null.
    pub fn serialize<S: Serializer>(date: &Option<Option<time::Date>>, serializer: S) -> Result<S::Ok, S::Error> {
        super::option::serialize(&date.flatten(), serializer)
    }

    /// Deserializes a present `YYYY-MM-DD` date or null.
    pub fn deserialize<'de, D: Deserializer<'de>>(deserializer: D) -> Result<Option<Option<time::Date>>, D::Error> {
        super::option::deserialize(deserializer).map(Some)
    }
}
