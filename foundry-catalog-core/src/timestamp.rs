//! Timestamps, parsed and formatted by the `time` crate: UTC with
//! microseconds (`sample.refreshed_at`, `freshness_label`) and ISO 8601
//! with a numeric offset (`last_updated_at`).

use std::fmt;
use std::str::FromStr;
use std::sync::LazyLock;

use time::format_description::BorrowedFormatItem;

/// A UTC instant with microsecond precision, written
/// `YYYY-MM-DDTHH:MM:SS.ffffffZ` (always six fractional digits).
///
/// ```
/// use foundry_catalog_core::UtcTimestamp;
/// let t: UtcTimestamp = "2026-03-01T08:30:00.250000Z".parse().unwrap();
/// assert_eq!(t.to_string(), "2026-03-01T08:30:00.250000Z");
/// assert!("2026-03-01T08:30:00Z".parse::<UtcTimestamp>().is_err()); // no microseconds
/// ```
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct UtcTimestamp(time::OffsetDateTime);

/// The exact form of a UTC timestamp: `YYYY-MM-DDTHH:MM:SS.ffffffZ`
/// (parsed once, without `time`'s macros).
static UTC_MICROS_FORMAT: LazyLock<Vec<BorrowedFormatItem<'static>>> = LazyLock::new(|| {
    time::format_description::parse_borrowed::<1>("[year]-[month]-[day]T[hour]:[minute]:[second].[subsecond digits:6]Z")
        .unwrap_or_default()
});

/// Why a string is not a [`UtcTimestamp`].
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidTimestamp {
    /// The rejected text.
    pub text: String,
    /// What is wrong with it.
    pub reason: String,
}

impl std::fmt::Display for InvalidTimestamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let InvalidTimestamp { text, reason } = self;
        write!(
            f,
            "{text:?} is not a UTC timestamp with microseconds: {reason}; hint: write it as YYYY-MM-DDTHH:MM:SS.ffffffZ, such as \"2026-03-01T08:30:00.000000Z\""
        )
    }
}

impl std::error::Error for InvalidTimestamp {}

impl UtcTimestamp {
    /// The instant in UTC, cut to whole microseconds.
    pub fn from_datetime(datetime: time::OffsetDateTime) -> Self {
        let utc = datetime.to_offset(time::UtcOffset::UTC);
        // Cutting sub-microsecond digits always gives a valid nanosecond value.
        UtcTimestamp(utc.replace_nanosecond(utc.nanosecond() / 1000 * 1000).unwrap_or(utc))
    }

    /// The instant, in UTC.
    pub fn as_datetime(self) -> time::OffsetDateTime {
        self.0
    }
}

impl fmt::Display for UtcTimestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // Years outside 0000-9999 cannot be parsed back, so they are never made.
        let text = self.0.format(&*UTC_MICROS_FORMAT).map_err(|_| fmt::Error)?;
        f.write_str(&text)
    }
}

impl FromStr for UtcTimestamp {
    type Err = InvalidTimestamp;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        let invalid = |reason: String| InvalidTimestamp { text: text.to_owned(), reason };
        let parsed = time::PrimitiveDateTime::parse(text, &UTC_MICROS_FORMAT).map_err(|e| invalid(e.to_string()))?;
        let timestamp = UtcTimestamp(parsed.assume_utc());
        // Only the one shape is accepted: the value must print back as given.
        if timestamp.to_string() == text {
            Ok(timestamp)
        } else {
            Err(invalid(format!("it is not in the canonical form {timestamp}")))
        }
    }
}

/// An ISO 8601 timestamp with a numeric UTC offset (`last_updated_at`),
/// such as `2026-03-01T08:30:00+00:00`. Kept as written, so a body
/// round-trips byte for byte.
///
/// ```
/// use foundry_catalog_core::OffsetTimestamp;
/// assert!(OffsetTimestamp::new("2026-03-01T08:30:00+01:00").is_ok());
/// assert!(OffsetTimestamp::new("2026-03-01T08:30:00Z").is_err()); // not numeric
/// ```
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct OffsetTimestamp(String);

/// A string that is not a timestamp with a numeric offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InvalidOffsetTimestamp {
    /// The rejected text.
    pub text: String,
    /// What is wrong.
    pub reason: String,
}

impl std::fmt::Display for InvalidOffsetTimestamp {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let InvalidOffsetTimestamp { text, reason } = self;
        write!(
            f,
            "{text:?} is not an ISO 8601 timestamp with a numeric UTC offset: {reason}; hint: write it like \"2026-03-01T08:30:00+00:00\""
        )
    }
}

impl std::error::Error for InvalidOffsetTimestamp {}

impl OffsetTimestamp {
    /// Parses with the `time` crate's RFC 3339 parser and requires a
    /// numeric offset (`+HH:MM` or `-HH:MM`, not `Z`).
    pub fn new(text: impl Into<String>) -> Result<OffsetTimestamp, InvalidOffsetTimestamp> {
        let text = text.into();
        let reason = match time::OffsetDateTime::parse(&text, &time::format_description::well_known::Rfc3339) {
            Err(e) => Some(e.to_string()),
            Ok(_) if text.ends_with(['Z', 'z']) => Some("the offset is `Z`, not numeric".to_owned()),
            Ok(_) => None,
        };
        match reason {
            Some(reason) => Err(InvalidOffsetTimestamp { text, reason }),
            None => Ok(OffsetTimestamp(text)),
        }
    }

    /// The instant `text` names when it is an offset timestamp
    /// ([`OffsetTimestamp::new`] takes it): what
    /// `OffsetTimestamp::new(text)?.as_datetime()` gives, parsed once and
    /// not copied.
    ///
    /// ```
    /// use foundry_catalog_core::OffsetTimestamp;
    /// let instant = OffsetTimestamp::instant_of("2026-11-04T07:45:10-05:00").unwrap();
    /// assert_eq!(instant.unix_timestamp(), 1_793_796_310);
    /// assert!(OffsetTimestamp::instant_of("2026-11-04T12:45:10Z").is_none());
    /// ```
    pub fn instant_of(text: &str) -> Option<time::OffsetDateTime> {
        let instant = time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339).ok()?;
        (!text.ends_with(['Z', 'z'])).then_some(instant)
    }

    /// The timestamp as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The instant (checked when the value was made, so it always parses).
    pub fn as_datetime(&self) -> time::OffsetDateTime {
        time::OffsetDateTime::parse(&self.0, &time::format_description::well_known::Rfc3339)
            .unwrap_or(time::OffsetDateTime::UNIX_EPOCH)
    }
}

impl fmt::Display for OffsetTimestamp {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl FromStr for OffsetTimestamp {
    type Err = InvalidOffsetTimestamp;
    fn from_str(text: &str) -> Result<Self, Self::Err> {
        OffsetTimestamp::new(text)
    }
}

crate::serde_via_str!(UtcTimestamp);

crate::serde_via_str!(OffsetTimestamp);
