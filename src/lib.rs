//! # foundry-catalog
//!
//! Product records: the record types shipped in `record-types/*.json`
//! ([`records`], [`record_types`], [`record_type`]), the `schema_preview`
//! and `sample` objects of any record type ([`preview`]), full product
//! records built from manifests ([`product`], [`manifest`]), the response
//! envelope and the endpoint's error bodies ([`response`]), the
//! conformance validator for any response body ([`conformance`]), the JSON
//! Schemas and the OpenAPI document ([`json_schema`]), and the example
//! catalog ([`examples`]).
//!
//! | crate | for |
//! |---|---|
//! | `foundry-catalog-core` | what generated record types target: `RecordType`, field descriptors, `Slug`, timestamps (every item named here from the core has its one path there) |
//! | `foundry-catalog` (this crate) | product records and their contract |
//! | `foundry-catalog-serving` | pre-built catalogs, artifacts, the endpoint's HTTP rules and `tower::Service` |
//!
//! No Cargo features. This crate turns on serde_json's `preserve_order`
//! for the whole build that uses it: bodies, previews and schemas are
//! written in their declared key order.
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

pub mod conformance;
mod currency;
pub mod examples;
pub mod guide;
pub mod json_schema;
mod locations;
pub mod manifest;
pub mod preview;
pub mod product;
mod record_type;
pub mod response;
mod shape;

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
