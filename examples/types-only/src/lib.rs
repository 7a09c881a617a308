//! Generated record types and nothing else: this crate depends on
//! `foundry-catalog-core` and serde, with the generator as a
//! build-dependency (the README's "Record types of your own").

#![forbid(unsafe_code)]

/// The record types generated from `../record-types-app/record-types`.
#[allow(missing_docs)]
pub mod records {
    include!(concat!(env!("OUT_DIR"), "/records.rs"));
}
