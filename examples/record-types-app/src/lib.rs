//! A serving crate with record types of its own.
//!
//! `record-types/*.json` are this crate's definitions; `build.rs` turns
//! them into [`records`] with `foundry-catalog-build`, as `prost-build`
//! turns `.proto` files into messages. The definitions use every construct
//! a definition has: integers and booleans, bounds, formats, lists (of
//! lists and of objects), nested objects three deep, closed sets, and
//! values that are optional, nullable or both. A product manifest naming
//! one of them renders into a product record with [`render`], checked at
//! every depth against the definition.

use foundry_catalog::product::{ProductManifest, ProductRecord};

/// The record types generated from `record-types/`.
pub mod records {
    include!(concat!(env!("OUT_DIR"), "/records.rs"));
}

/// The product record of a manifest (JSON text) that may name this
/// crate's record types, checked against every rule of the spec and, for
/// its sample, against the record type's definition at every depth.
pub fn render(manifest: &str) -> Result<ProductRecord, String> {
    let manifest = ProductManifest::from_json(manifest).map_err(|e| e.to_string())?;
    manifest
        .build_with(records::RECORD_TYPES)
        .map_err(|violations| violations.as_slice().iter().map(ToString::to_string).collect::<Vec<_>>().join("\n"))
}

/// The response body `{"data": …}` of a product record.
pub fn body(record: &ProductRecord) -> String {
    serde_json::to_string_pretty(&serde_json::json!({ "data": record })).unwrap_or_default()
}
