//! Lists and nested objects, end to end from a definition: the fixture rows
//! fit the validator and the row JSON Schema at every depth, the validator
//! points into the row at the place of each fault, and the canonical form
//! covers every nested part of the contract and nothing else.

use foundry_catalog::conformance::validate_rows;
use foundry_catalog_build::{Generator, Source};
use foundry_catalog_core::hash::canonical_json;
use foundry_catalog_core::{RecordSchema, fixture};
use serde_json::{Value, json};

const DEFINITION: &str = include_str!("../corpus/good/price_observation.json");

fn schema_of(text: &str) -> RecordSchema {
    let source = Source::new("tests/corpus/good/price_observation.json", text);
    let checked = Generator::new().check(&[source]).unwrap_or_else(|e| panic!("{e}"));
    checked[0].schema.clone()
}

fn rows(schema: &RecordSchema) -> Vec<Value> {
    fixture::rows(schema, "nested-slug").into_iter().map(Value::Object).collect()
}

/// The pointers of every violation, sorted.
fn pointers(schema: &RecordSchema, rows: &[Value]) -> Vec<String> {
    let mut out: Vec<String> =
        validate_rows(schema, rows, Some("nested-slug")).into_iter().map(|v| v.pointer).collect();
    out.sort();
    out
}

#[test]
fn fixture_rows_pass_the_validator_at_every_depth() {
    let schema = schema_of(DEFINITION);
    let rows = rows(&schema);
    assert_eq!(validate_rows(&schema, &rows, Some("nested-slug")), []);
    assert_eq!(rows[2]["seller"]["address"]["city"], "Deterministic fixture city 3");
    assert_eq!(rows[0]["offers"][1]["links"], json!(["https://fixtures.example.org/records/nested-slug/1"]));
    assert_eq!(rows[0]["grid"], Value::Null, "an absent optional list is left out");
}

#[test]
fn the_validator_points_at_each_fault_inside_the_row() {
    let schema = schema_of(DEFINITION);
    let mut rows = rows(&schema);
    rows[1]["seller"]["address"]["lines"][1] = json!(5);
    rows[0]["offers"][0]["links"] = json!(["https://a.example/x", "https://a.example/y"]);
    rows[0]["offers"][1]["seenOn"] = json!("2026-13-01");
    rows[2]["seller"].as_object_mut().map(|s| s.remove("name"));
    rows[2]["seller"]["zip"] = json!("10115");
    rows[2]["tags"] = json!([]);
    rows[1]["offers"][1] = json!("not an object");
    rows[0]["condition"] = json!("broken");
    rows[1]["offers"][0]["channel"] = json!("phone");
    rows[2]["quantity"] = Value::Null;
    rows[2]["ratings"] = json!([1, null, "five"]);
    // Null where a value is nullable is no fault, absent or not.
    rows[0]["discount"] = Value::Null;
    rows[1]["note"] = Value::Null;
    assert_eq!(
        pointers(&schema, &rows),
        [
            "/0/condition",
            "/0/offers/0/links",
            "/0/offers/1/seenOn",
            "/1/offers/0/channel",
            "/1/offers/1",
            "/1/seller/address/lines/1",
            "/2/quantity",
            "/2/ratings/2",
            "/2/seller",
            "/2/seller/zip",
            "/2/tags",
        ]
    );
}

#[test]
fn the_canonical_form_covers_nested_contract_and_leaves_prose_out() {
    let base: Value = serde_json::from_str(DEFINITION).expect("JSON");
    let canonical = |definition: &Value| {
        let schema = schema_of(&definition.to_string());
        canonical_json(&schema.record_label, &schema.fields)
    };
    let original = canonical(&base);
    assert!(original.contains(r#"{"fields":[{"name":"city","required":true,"type":"string"},{"items":{"type":"string"},"name":"lines","required":true,"type":"array"}],"name":"address","required":false,"type":"object"}"#), "{original}");
    assert!(
        original.contains(
            r#"{"items":{"type":"string"},"max_items":5,"min_items":1,"name":"tags","required":true,"type":"array"}"#
        ),
        "{original}"
    );

    let edit = |f: fn(&mut Value)| {
        let mut copy = base.clone();
        f(&mut copy);
        canonical(&copy)
    };
    // Prose, hints and formats at depth leave it alone.
    assert_eq!(edit(|d| d["fields"][4]["fields"][2]["fields"][0]["description"] = json!("Town.")), original);
    assert_eq!(edit(|d| d["fields"][3]["items"]["fixture"] = json!({"text": "label"})), original);
    assert_eq!(edit(|d| d["fields"][5]["items"]["fields"][2]["items"]["format"] = json!("text")), original);
    // The contract at depth changes it.
    assert_ne!(edit(|d| d["fields"][4]["fields"][2]["fields"][0]["required"] = json!(false)), original);
    assert_ne!(edit(|d| d["fields"][4]["fields"][2]["fields"][1]["items"]["type"] = json!("integer")), original);
    assert_ne!(edit(|d| d["fields"][6]["items"]["min_items"] = json!(2)), original);
    assert_ne!(edit(|d| d["fields"][3]["max_items"] = json!(6)), original);
    assert_ne!(edit(|d| d["fields"][4]["fields"][0]["name"] = json!("title")), original);
    assert_ne!(edit(|d| d["fields"][9]["nullable"] = json!(false)), original);
    assert_ne!(edit(|d| d["fields"][12]["items"]["nullable"] = json!(false)), original);
    assert_ne!(edit(|d| d["fields"][8]["enum"][4] = json!("spare")), original);
    // A closed set is a set: its order and its values' Rust names are not contract.
    assert_eq!(edit(|d| d["fields"][8]["enum"] = json!(["self", "used", "new", "2nd-hand", "for parts"])), original);
    assert_eq!(edit(|d| d["fields"][8]["enum"][3]["rust_name"] = json!("Spares")), original);
}

/// The preview and sample of a definition with every construct, pinned: the
/// preview lists the top-level fields with their JSON types (a closed set is
/// a `string`, a nested object an `object`, a list an `array`), the sample
/// holds the rows at every depth.
#[test]
fn the_preview_and_sample_of_every_construct_are_pinned() {
    use foundry_catalog::preview::{ProductContext, Sample, SchemaPreview};
    use foundry_catalog_core::Slug;
    let schema = schema_of(DEFINITION);
    let ctx = ProductContext::new(
        Slug::new("nested-slug").expect("a slug"),
        "2026-03-01T08:30:00.123456Z".parse().expect("a timestamp"),
    );
    let preview = serde_json::to_value(SchemaPreview::new(&schema, &ctx)).expect("serializes");
    let types: Vec<&str> =
        preview["fields"].as_array().into_iter().flatten().filter_map(|f| f["type"].as_str()).collect();
    assert_eq!(
        types,
        [
            "string", "integer", "boolean", "array", "object", "array", "array", "object", "string", "number",
            "string", "string", "array"
        ]
    );
    insta::assert_json_snapshot!("price_observation_preview", preview);
    insta::assert_json_snapshot!("price_observation_sample", Sample::new(&schema, &ctx));
}
