//! This crate's own record type, as a serving crate uses it: typed rows at
//! every depth, and a product record that the conformance validator
//! accepts, checking the sample against the definition at every depth.

use foundry_catalog::conformance;
use foundry_catalog_core::{RecordType, Slug};
use foundry_catalog_record_types_app::records::listing_snapshot::{
    Condition, SellerAddress, SellerAddressChannelsItem,
};
use foundry_catalog_record_types_app::records::{ListingSnapshot, RECORD_TYPES};
use foundry_catalog_record_types_app::{body, render};
use serde_json::Value;

const MANIFEST: &str = include_str!("../products/listing-watch.json");

#[test]
fn rows_are_typed_at_every_depth() {
    let rows = ListingSnapshot::fixture_rows(&Slug::new("listing-watch").expect("a slug"));
    assert_eq!(rows.len(), 3);
    let row = &rows[2];
    assert_eq!(row.condition, Condition::Refurbished, "the closed set's third value on row 3");
    assert_eq!(row.units_available, 3);
    assert_eq!(row.discount, Some(0.23), "required and nullable: Option<f64>");
    assert_eq!(row.note, Some(Some("Deterministic fixture note 3".to_owned())), "optional and nullable");
    let SellerAddress { city, channels, .. } = &row.seller.address;
    assert_eq!(city, "Deterministic fixture city 3");
    assert_eq!(channels, &[SellerAddressChannelsItem::Phone, SellerAddressChannelsItem::Phone]);
    let history = row.price_history.as_ref().expect("filled");
    assert_eq!(history[0].ratings, [Some(3), Some(3)]);
    assert_eq!(history[0].changed_on.map(|d| d.to_string()), Some("2026-01-03".to_owned()));
    assert!(row.raw.is_none(), "an absent optional object is left out");
    // The struct refuses what its definition does not name (a type_attribute
    // of build.rs).
    let mut json = serde_json::to_value(row).expect("serializes");
    json["extra"] = Value::Bool(true);
    assert!(serde_json::from_value::<ListingSnapshot>(json).is_err());
}

#[test]
fn the_product_record_is_accepted_and_its_sample_checked_at_every_depth() {
    let record = render(MANIFEST).unwrap_or_else(|e| panic!("{e}"));
    let mut body: Value = serde_json::from_str(&body(&record)).expect("JSON");
    assert_eq!(conformance::validate_with(&body, RECORD_TYPES), []);
    let preview = &body["data"]["schema_preview"];
    let types: Vec<&str> =
        preview["fields"].as_array().expect("fields").iter().filter_map(|f| f["type"].as_str()).collect();
    assert!(types.contains(&"array") && types.contains(&"object") && types.contains(&"integer"), "{types:?}");
    assert_eq!(preview["schema_hash"], ListingSnapshot::SCHEMA_HASH);

    body["data"]["sample"]["rows"][0]["seller"]["address"]["channels"][1] = Value::from("fax");
    body["data"]["sample"]["rows"][2]["priceHistory"][0]["ratings"][0] = Value::from(9);
    let pointers: Vec<String> =
        conformance::validate_with(&body, RECORD_TYPES).into_iter().map(|v| v.pointer).collect();
    assert_eq!(
        pointers,
        ["/data/sample/rows/0/seller/address/channels/1", "/data/sample/rows/2/priceHistory/0/ratings/0"]
    );
}

#[test]
fn a_manifest_naming_no_record_type_lists_this_crates_types() {
    let manifest = MANIFEST.replace("\"listing_snapshot\"", "\"listing_snapshots\"");
    let error = render(&manifest).expect_err("an unknown record type");
    assert!(error.contains("no record type `listing_snapshots`"), "{error}");
    assert!(error.contains("listing_snapshot,"), "the crate's own types are listed: {error}");
}
