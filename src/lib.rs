//! # foundry-catalog
//!
//! The runtime of foundry-catalog: the record types generated from
//! `record-types/*.json` ([`records`], [`RecordType`], [`record_types`]),
//! the `schema_preview` and `sample` objects built from them
//! ([`preview`]), full product records built from manifests
//! ([`product`], [`manifest`]), the conformance validator for any response
//! body ([`conformance`]), the JSON Schemas ([`json_schema`]), and the
//! pre-built catalog with its framework-free request logic ([`catalog`],
//! [`serving`]).
//!
//! It compiles no code generator: the generator is `foundry-catalog-build`,
//! a build-dependency of this crate (and of any crate that generates its
//! own record types). The vocabulary both share (field types, fixture
//! hints, record schemas, [`hash`], [`fixture`], [`Slug`], timestamps) is
//! `foundry-catalog-core`, re-exported here, so users depend on this crate
//! alone.
//!
//! The guides ([`guide`]) are the long form: the definition format and
//! field formats, the fixture rules, the `schema_hash` recipe, the
//! evolution policy, and the HTTP behaviour with the server's operations.
//!
//! ```
//! use foundry_catalog::{preview::{OutputPreview, ProductContext}};
//! use foundry_catalog_core::Slug;
//! let schema = foundry_catalog::record_type("regulatory_status_signal").unwrap();
//! let ctx = ProductContext::new(Slug::new("eu-signals").unwrap(), "2026-03-01T08:30:00.000000Z".parse().unwrap());
//! let preview = OutputPreview::new(schema, &ctx);
//! assert_eq!(preview.sample.rows[0]["entityName"], "Deterministic fixture entity name");
//! assert_eq!(preview.schema_preview.schema_hash, schema.schema_hash);
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

// Generated code names this crate `::foundry_catalog`, in this crate as in
// any other.
extern crate self as foundry_catalog;

pub mod artifact;
pub mod catalog;
pub mod conformance;
mod currency;
mod encoding;
pub mod examples;
pub mod guide;
pub mod json_schema;
pub mod manifest;
mod parallel;
pub mod preview;
pub mod product;
mod record_type;
pub mod response;
#[cfg(feature = "http")]
pub mod service;
pub mod serving;
mod shape;
#[cfg(feature = "signing")]
pub mod signing;

/// The record types generated from `record-types/*.json` at build time.
pub mod records {
    include!(concat!(env!("OUT_DIR"), "/records.rs"));
}

pub use currency::{Currency, InvalidCurrency};
// The vocabulary, for this crate's modules (users name it from
// `foundry_catalog_core`, its one path).
use foundry_catalog_core::{
    FieldDescriptor, FieldFormat, FieldType, Kind, MAX_SAFE_INTEGER, OffsetTimestamp, RecordSchema, SampleStatus,
    SampleType, Slug, UtcTimestamp, fixture, format, hash, is_absolute_url, is_lowercase_underscore,
};
pub use record_type::{record_type, record_types};
