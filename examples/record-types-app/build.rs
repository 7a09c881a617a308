//! Every `record-types/*.json` becomes a struct (with a module of nested
//! structs and enums), its fixtures and its schema_hash: the whole build
//! script of a crate with record types of its own. The record's struct
//! refuses keys it does not know when deserialized.

fn main() -> std::process::ExitCode {
    foundry_catalog_build::Generator::new()
        .type_attribute("listing_snapshot", "#[serde(deny_unknown_fields)]")
        .build_script("record-types", "records.rs")
}
