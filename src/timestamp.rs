//! UTC timestamps with microseconds (`sample.refreshed_at`,
//! `freshness_label`), parsed and formatted by `jiff`.

use std::fmt;
use std::str::FromStr;

/// A UTC instant with microsecond precision, written
/// `YYYY-MM-DDTHH:MM:SS.ffffffZ` (always six fractional digits).
///
/// ```
/// use foundry_catalog::UtcTimestamp;
/// let t: UtcTimestamp = "2026-03-01T08:30:00.250000Z".parse().unwrap();
/// assert_eq!(t.to_string(), "2026-03-01T08:30:00.250000Z");
/// assert!("2026-03-01T08:30:00Z".parse::<UtcTimestamp>().is_err()); // no microseconds
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct UtcTimestamp(jiff::Timestamp);

/// The strftime format of [`UtcTimestamp`].
pub const UTC_MICROS_FORMAT: &str = "%Y-%m-%dT%H:%M:%S%.6fZ";

/// Why a string is not a [`UtcTimestamp`].
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{text:?} is not a UTC timestamp with microseconds: {reason}; hint: write it as YYYY-MM-DDTHH:MM:SS.ffffffZ, such as \"2026-03-01T08:30:00.000000Z\"")]
pub struct InvalidTimestamp {
    /// The rejected text.
    pub text: String,
    /// What is wrong with it.
    pub reason: String,
}

impl UtcTimestamp {
    /// The instant, cut to whole microseconds.
    pub fn from_timestamp(timestamp: jiff::Timestamp) -> Self {
        let micros = timestamp.as_microsecond();
        // Cutting precision keeps the instant within jiff's range.
        UtcTimestamp(jiff::Timestamp::from_microsecond(micros).unwrap_or(timestamp))
    }

    /// The instant.
    pub fn as_timestamp(self) -> jiff::Timestamp {
        self.0
    }
}

impl fmt::Display for UtcTimestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(&self.0.strftime(UTC_MICROS_FORMAT), f)
    }
}

impl FromStr for UtcTimestamp {
    type Err = InvalidTimestamp;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let invalid = |reason: String| InvalidTimestamp { text: text.to_owned(), reason };
        let parsed: jiff::Timestamp = text.parse().map_err(|e: jiff::Error| invalid(e.to_string()))?;
        let timestamp = UtcTimestamp::from_timestamp(parsed);
        // Only the one shape is accepted: the value must print back as given.
        if timestamp.to_string() == text {
            Ok(timestamp)
        } else {
            Err(invalid(format!("it is not in the canonical form {timestamp}")))
        }
    }
}

impl serde::Serialize for UtcTimestamp {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.collect_str(self)
    }
}

impl<'de> serde::Deserialize<'de> for UtcTimestamp {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let text = String::deserialize(deserializer)?;
        text.parse().map_err(serde::de::Error::custom)
    }
}
