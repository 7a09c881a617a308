//! # foundry-catalog
//!
//! The build pipeline behind public product-catalog records. Each record
//! type is one JSON definition in `record-types/`; `build.rs` turns them
//! into typed structs (module [`records`]), a registry ([`record_types`],
//! [`record_type`]), deterministic fixture rows and `schema_hash` digests.
//! This library builds a product's `schema_preview` and `sample` objects
//! from them ([`OutputPreview`], [`SchemaPreview`], [`Sample`]).
//!
//! Where each step lives:
//!
//! | step | module |
//! |---|---|
//! | read and check a definition | [`codegen::definition`], [`codegen::check`] |
//! | Rust names from wire names | [`codegen::naming`] |
//! | emit Rust | `codegen::emit` (via [`codegen::Generator`]) |
//! | fixture values | [`fixture`] |
//! | schema hash | [`hash`] |
//! | `schema_preview` and `sample` | [`SchemaPreview`], [`Sample`] |
//!
//! ```
//! use foundry_catalog::{OutputPreview, ProductContext, Slug};
//! let schema = foundry_catalog::record_type("regulatory_status_signal").unwrap();
//! let ctx = ProductContext::new(Slug::new("eu-signals").unwrap(), "2026-03-01T08:30:00.000000Z".parse().unwrap());
//! let preview = OutputPreview::new(schema, &ctx);
//! assert_eq!(preview.sample.rows()[0]["entityName"], "Deterministic fixture entity name");
//! assert_eq!(preview.schema_preview.schema_hash(), schema.schema_hash);
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod catalog;
#[cfg(feature = "codegen")]
pub mod codegen;
pub mod fixture;
pub mod hash;
pub mod model;
mod preview;
pub mod product;
mod record_type;
pub mod serving;
mod slug;
mod timestamp;

/// The record types generated from `record-types/*.json` at build time.
pub mod records {
    include!(concat!(env!("OUT_DIR"), "/records.rs"));
}

pub use model::{DigestLength, FieldDescriptor, FieldType, FixtureHint, HashMismatch, RecordSchema, SampleType};
pub use preview::{
    FieldPreview, InvalidManifestLocation, ManifestLocation, OUTPUT_CONTRACT_SOURCE, OutputPreview, ProductContext,
    Sample, SchemaPreview,
};
pub use product::{ProductManifest, ProductRecord, ProductResponse, conformance, shape};
pub use record_type::{RecordType, record_type, record_types};
pub use slug::{InvalidSlug, MAX_SLUG_LEN, Slug};
pub use timestamp::{InvalidTimestamp, UTC_MICROS_FORMAT, UtcTimestamp};
