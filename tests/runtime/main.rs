//! Integration tests of the runtime (`foundry-catalog`), in one binary so a
//! cold `cargo test` links it once: the shipped record types end to end,
//! product records and the validator, the JSON Schemas, the catalog, the
//! hash and the value types.

mod catalog;
#[cfg(feature = "compression")]
mod encoding;
mod formats;
mod hash;
mod incremental;
mod json_schemas;
mod pipeline;
mod product;
#[cfg(feature = "signing")]
mod signing;
mod values;
