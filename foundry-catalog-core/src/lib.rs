//! # foundry-catalog-core
//!
//! What generated record types target, and the vocabulary the generator
//! and the runtime share. A crate that only uses generated record types
//! depends on this crate (and serde); the generator
//! (`foundry-catalog-build`, in build scripts) writes code that names it,
//! as `prost-build`'s code names `prost`. It depends on no code generator
//! and on nothing that serves: a crate of record types compiles neither
//! `syn` beyond serde's nor an HTTP stack.
//!
//! | concern | items |
//! |---|---|
//! | the trait every generated record type implements | [`RecordType`] |
//! | field types, sample types, digest lengths, fixture hints, field descriptors, record schemas | [`FieldType`], [`SampleType`], [`DigestLength`], [`FixtureHint`], [`FieldDescriptor`], [`Kind`], [`RecordSchema`] |
//! | the canonical form and `schema_hash` | [`hash`] |
//! | fixture values | [`fixture`] |
//! | field formats: one rule each for fixtures, the validator and JSON Schemas | [`format`](mod@format), [`FieldFormat`] |
//! | product slugs | [`Slug`] |
//! | UTC timestamps with microseconds, timestamps with a numeric offset | [`UtcTimestamp`], [`OffsetTimestamp`] |
//! | absolute http(s) URLs (RFC 3986) | [`AbsoluteUrl`], [`is_absolute_url`] |
//! | the values of `timestamp`, `email` and `uuid` fields | [`Timestamp`], [`EmailAddress`], [`Uuid`] |
//! | the `time` crate, whose `Date` generated `date` fields hold | [`time`] |
//!
//! Generated code also calls support that is not public API: the `const`
//! builder of its field tables, the serde helpers of optional, nullable
//! and date fields, and the closed-set parser. They live in a hidden
//! module, as serde's derive support does, and may change in any release
//! together with the generator that writes the calls.
//!
//! No Cargo features. This crate does not turn on serde_json's
//! `preserve_order`; `foundry-catalog` does (docs/architecture.md says why).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod date;
pub mod fixture;
pub mod format;
pub mod hash;
mod model;
mod record_type;
mod slug;
mod timestamp;
mod url;
mod wire_enum;

pub use format::{
    AbsoluteUrl, EmailAddress, FieldFormat, InvalidFormat, InvalidUrl, Timestamp, Uuid, hides_or_reorders,
    is_lowercase_underscore,
};
pub use model::{
    DigestLength, EnumValue, FieldDescriptor, FieldType, FixtureHint, Items, Kind, MAX_SAFE_INTEGER, RecordSchema,
    SampleStatus, SampleType,
};
pub use record_type::RecordType;
pub use slug::{InvalidSlug, MAX_SLUG_LEN, Slug};
/// The `time` crate, so generated `date` fields (`time::Date`) name it
/// through this crate.
pub use time;
pub use timestamp::{InvalidOffsetTimestamp, InvalidTimestamp, OffsetTimestamp, UtcTimestamp};
pub use url::is_absolute_url;
pub use wire_enum::UnknownValue;

#[doc(hidden)]
pub mod __private;
