//! # foundry-catalog-core
//!
//! The vocabulary both sides of foundry-catalog need, and nothing else: the
//! generator (`foundry-catalog-build`, in build scripts) and the runtime
//! (`foundry-catalog`, in serving crates) depend on it; it depends on no
//! code generator, so a serving crate never compiles `syn`.
//!
//! | concern | module |
//! |---|---|
//! | field types, sample types, digest lengths, fixture hints, field descriptors, record schemas | [`FieldType`], [`SampleType`], [`DigestLength`], [`FixtureHint`], [`FieldDescriptor`], [`RecordSchema`] |
//! | the canonical form and `schema_hash` | [`hash`] |
//! | fixture values | [`fixture`] |
//! | the `const` builder generated field tables are written with | [`codegen`] |
//! | optional and nullable fields: absent, `null` and a value kept apart | [`nullable`] |
//! | product slugs | [`Slug`] |
//! | UTC timestamps with microseconds, timestamps with a numeric offset | [`UtcTimestamp`], [`OffsetTimestamp`] |
//! | absolute http(s) URLs (RFC 3986) | [`is_absolute_url`], [`AbsoluteUrl`] |
//! | field formats: one rule each for fixtures, validator, JSON Schemas and Rust types | [`format`](mod@format), [`FieldFormat`] |
//! | enums with one spelling per variant | [`wire_enum!`] |
//!
//! Users normally depend on `foundry-catalog`, which re-exports all of this.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod codegen;
pub mod fixture;
pub mod format;
pub mod hash;
mod model;
pub mod nullable;
mod slug;
mod timestamp;
mod url;
mod wire_enum;

pub use format::{AbsoluteUrl, FieldFormat, InvalidUrl};
pub use model::{
    DigestLength, EnumValue, FieldDescriptor, FieldType, FixtureHint, Items, Kind, MAX_SAFE_INTEGER, RecordSchema,
    SampleStatus, SampleType, is_lowercase_underscore,
};
pub use slug::{InvalidSlug, MAX_SLUG_LEN, Slug};
/// The `time` crate, so generated `date` fields (`time::Date`) name it through the runtime.
pub use time;
pub use timestamp::{InvalidOffsetTimestamp, InvalidTimestamp, OffsetTimestamp, UTC_MICROS_FORMAT, UtcTimestamp};
pub use url::is_absolute_url;
pub use wire_enum::UnknownValue;
