//! The shipped JSON Schemas: generated from the code's own tables, current
//! on disk, and accepted by a real validator (`jsonschema`) for every
//! catalog record, manifest and fixture row, while broken ones fail.

use std::path::Path;

use foundry_catalog::json_schema;
use foundry_catalog::product::ProductManifest;
use foundry_catalog::response::ProductResponse;
use foundry_catalog::shape::Format;
use foundry_catalog::{Slug, fixture};
use serde_json::{Value, json};

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn validator(schema: &Value) -> jsonschema::Validator {
    jsonschema::draft202012::new(schema).expect("a valid 2020-12 schema")
}

fn errors(validator: &jsonschema::Validator, value: &Value) -> Vec<String> {
    validator.iter_errors(value).map(|e| format!("{} at {}", e, e.instance_path())).collect()
}

fn manifests() -> Vec<(String, Value)> {
    let mut files: Vec<_> = std::fs::read_dir(root().join("examples/catalog"))
        .expect("catalog")
        .map(|e| e.expect("entry").path())
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            (
                p.display().to_string(),
                serde_json::from_str(&std::fs::read_to_string(&p).expect("readable")).expect("JSON"),
            )
        })
        .collect()
}

#[test]
fn committed_schema_files_are_current() {
    for (path, contents) in json_schema::schema_files() {
        let on_disk = std::fs::read_to_string(root().join("schema").join(&path)).unwrap_or_default();
        assert!(
            on_disk == contents,
            "{path} is stale: run `cargo run --bin foundry-catalog -- schemas` and commit the result"
        );
    }
}

#[test]
fn catalog_records_and_manifests_validate() {
    let response = validator(&json_schema::response_schema());
    let manifest_schema = validator(&json_schema::manifest_schema());
    for (path, manifest) in manifests() {
        assert_eq!(errors(&manifest_schema, &manifest), Vec::<String>::new(), "{path}");
        let record = ProductManifest::from_value(&manifest).expect("manifest").build().expect("builds");
        let body = serde_json::to_value(ProductResponse { data: record }).expect("serializes");
        assert_eq!(errors(&response, &body), Vec::<String>::new(), "{path}");

        for (pointer, broken) in [
            ("/data/slug", json!("Not A Slug")),
            ("/data/route", json!("bundles")),
            ("/data/is_visible", json!("yes")),
            ("/data/freshness_label", json!("2026-11-02")),
            ("/data/pricing_hint/currency", json!("euro")),
            ("/data/schema_preview/schema_hash", json!("xyz")),
            ("/data/sample/source", json!("live")),
        ] {
            let mut bad = body.clone();
            if let Some(slot) = bad.pointer_mut(pointer) {
                *slot = broken;
            }
            assert!(!response.is_valid(&bad), "{path}: {pointer} broken but valid");
        }
        let mut extra = body.clone();
        extra["data"]["unexpected"] = json!(1);
        assert!(!response.is_valid(&extra), "{path}: unknown key accepted");
    }
}

#[test]
fn manifests_with_derived_or_unknown_keys_fail() {
    let manifest_schema = validator(&json_schema::manifest_schema());
    let (_, manifest) = manifests()
        .into_iter()
        .find(|(_, m)| m["marketplaces"].as_array().is_some_and(|l| !l.is_empty()))
        .expect("a manifest with listings");
    for (pointer, key) in [("", "category"), ("", "api_path"), ("", "primary_cta"), ("/marketplaces/0", "ctaLabel")] {
        let mut bad = manifest.clone();
        bad.pointer_mut(pointer).and_then(Value::as_object_mut).expect("object").insert(key.to_owned(), json!("x"));
        assert!(!manifest_schema.is_valid(&bad), "{pointer}/{key} accepted by the schema");
        assert!(serde_json::from_value::<ProductManifest>(bad).is_err(), "{pointer}/{key} accepted by the reader");
    }
}

#[test]
fn every_fixture_row_validates_against_its_record_type_schema() {
    let slug = Slug::new("schema-check").expect("slug");
    for schema in foundry_catalog::record_types() {
        let validator = validator(&json_schema::record_type_schema(schema));
        for row in fixture::rows(schema, slug.as_str()) {
            let row = Value::Object(row);
            assert_eq!(errors(&validator, &row), Vec::<String>::new(), "{}", schema.record_label);
            let mut missing = row.clone();
            let required = schema.required_fields().next().expect("a required field");
            missing.as_object_mut().expect("object").remove(required);
            assert!(!validator.is_valid(&missing), "{}: missing {required} accepted", schema.record_label);
            let mut retyped = row.clone();
            retyped[required] = json!([1, 2]);
            assert!(!validator.is_valid(&retyped), "{}: wrong type accepted", schema.record_label);
        }
    }
}

/// Each format's JSON Schema pattern agrees with its Rust check on good
/// and bad examples (the Rust check may be stricter: calendar dates,
/// currency list, URL grammar).
#[test]
fn format_patterns_agree_with_the_rust_checks() {
    let cases: &[(Format, &[&str], &[&str])] = &[
        (Format::Slug, &["a", "eu-signals-2"], &["", "A", "a--b", "-a", "a_b"]),
        (Format::Key, &["data_exchange", "hub2"], &["Data", "2hub", "a__b", "a-b"]),
        (
            Format::UtcMicros,
            &["2026-11-02T09:15:42.120000Z"],
            &["2026-11-02T09:15:42Z", "2026-11-02T09:15:42.12Z", "2026-11-02 09:15:42.120000Z"],
        ),
        (
            Format::OffsetTime,
            &["2026-11-02T09:15:42+00:00", "2026-11-02T09:15:42.5-05:00"],
            &["2026-11-02T09:15:42Z", "2026-11-02"],
        ),
        (
            Format::AbsoluteUrl,
            &["https://x.example.com/a?b=1", "http://localhost:8080"],
            &["/relative", "x.example.com", "ftp://x.example.com", "https://"],
        ),
        (Format::Currency, &["EUR", "USD"], &["eur", "EURO", "E1R"]),
        (Format::HexDigest, &[&"a".repeat(64), &"0".repeat(40)], &["ABC", &"a".repeat(63), &"g".repeat(64)]),
    ];
    for (format, good, bad) in cases {
        let pattern = validator(&json!({"type": "string", "pattern": format.pattern().expect("a pattern")}));
        for text in *good {
            assert!(format.check(text).is_ok(), "{format:?} rejects {text:?}");
            assert!(pattern.is_valid(&json!(text)), "{format:?} pattern rejects {text:?}");
        }
        for text in *bad {
            assert!(format.check(text).is_err(), "{format:?} accepts {text:?}");
            assert!(!pattern.is_valid(&json!(text)), "{format:?} pattern accepts {text:?}");
        }
    }
}
