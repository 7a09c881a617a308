//! The generated types work with the core alone: fixtures, the registry
//! and serde, with no records or serving crate in the build.

use foundry_catalog_core::{RecordType, Slug};
use foundry_catalog_types_only_app::records::{ListingSnapshot, RECORD_TYPES};

#[test]
fn fixtures_round_trip_through_json() {
    let rows = ListingSnapshot::fixture_rows(&Slug::new("listing-watch").expect("a slug"));
    assert_eq!(rows.len(), ListingSnapshot::SAMPLE_ROWS);
    for row in &rows {
        let text = serde_json::to_string(row).expect("serializes");
        let back: ListingSnapshot = serde_json::from_str(&text).expect("reads back");
        assert_eq!(&back, row);
    }
    assert_eq!(RECORD_TYPES.len(), 1);
    assert_eq!(RECORD_TYPES[0].schema_hash, ListingSnapshot::SCHEMA_HASH);
    RECORD_TYPES[0].verify_schema_hash().expect("the hash is the definition's");
}

#[test]
fn a_row_missing_a_required_field_is_refused() {
    let row = serde_json::to_value(&ListingSnapshot::fixture_rows(&Slug::new("x").expect("a slug"))[0]).expect("JSON");
    let mut broken = row.as_object().expect("an object").clone();
    let first_required = ListingSnapshot::REQUIRED_FIELDS[0];
    broken.remove(first_required);
    assert!(serde_json::from_value::<ListingSnapshot>(serde_json::Value::Object(broken)).is_err());
}
