//! Integration tests of the runtime (`foundry-catalog`), in one binary so a
//! cold `cargo test` links it once: the shipped record types end to end,
//! product records and the validator, the JSON Schemas, the hash and the
//! value types.

mod formats;
mod hash;
mod json_schemas;
mod pipeline;
mod product;
mod values;
