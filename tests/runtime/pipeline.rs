//! The shipped record types end to end: generated source, hashes,
//! `schema_preview` and `sample` objects, and the fixture rules, checked
//! over the whole registry so a new definition is covered without a change
//! here.

use std::path::Path;

use foundry_catalog::preview::{OutputPreview, ProductContext};
use foundry_catalog_build::{Generator, Source};
use foundry_catalog_core::{FieldFormat, FieldType, FixtureHint, RecordSchema, Slug, fixture};
use serde_json::Value;

fn shipped_sources() -> Vec<Source> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    Source::read_dir(root, "record-types").expect("record-types/ is readable")
}

fn context(schema: &RecordSchema) -> ProductContext {
    let slug = Slug::new(schema.record_label.replace('_', "-")).expect("label makes a slug");
    ProductContext::new(slug, "2026-03-01T08:30:00.123456Z".parse().expect("timestamp"))
}

/// `records.rs` and its shards in `dir`, by name.
fn compiled_files(dir: &Path) -> Vec<(String, String)> {
    let shards = std::fs::read_dir(dir.join("records.d")).expect("shard folder").map(|e| e.expect("entry").path());
    let mut files: Vec<(String, String)> = shards
        .chain([dir.join("records.rs")])
        .map(|p| {
            let name = p.strip_prefix(dir).expect("inside").display().to_string();
            (name, std::fs::read_to_string(&p).expect("readable"))
        })
        .collect();
    files.sort();
    files
}

#[test]
fn generated_source_is_what_the_build_script_wrote() {
    let sources = shipped_sources();
    let code = Generator::new().generate(&sources).expect("shipped definitions generate");
    assert!(!code.contains(env!("CARGO_MANIFEST_DIR")), "no absolute path of the build machine");
    insta::assert_snapshot!("generated_records_rs", code);
    // The build script compiled the same definitions into the same files.
    // (`foundry-catalog-build/tests/generator/incremental.rs` holds compiled files to `generate`.)
    let dir = std::env::temp_dir().join(format!("foundry-catalog-pipeline-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp folder");
    Generator::new().compile(&sources, &dir.join("records.rs")).expect("shipped definitions compile");
    let (ours, build_script) = (compiled_files(&dir), compiled_files(Path::new(env!("OUT_DIR"))));
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(ours, build_script);
}

#[test]
fn shipped_schema_hashes() {
    let hashes: String = foundry_catalog::record_types()
        .iter()
        .map(|t| {
            t.verify_schema_hash().expect("stored hash matches the fields");
            format!("{} {}\n", t.record_label, t.schema_hash)
        })
        .collect();
    insta::assert_snapshot!(hashes, @r"
    actor_product_record bc3a72c15d18ae641ab6e201dd99cb1b768c2a94
    automation_trigger_action_payload 04aad2917bb459cd735dd90c51c3551eb31bdb4dc0ba1728723d2b6402465613
    regulatory_status_signal d6fa868b4a4bdeca2777da5e58d2470340becb5f8e3ec0f6ab8c7217210686fc
    ");
}

#[test]
fn readme_worked_example_canonical_form() {
    let t = foundry_catalog::record_type("actor_product_record").expect("shipped");
    insta::assert_snapshot!(foundry_catalog_core::hash::canonical_json(&t.record_label, &t.fields), @r#"{"fields":[{"name":"entityName","required":true,"type":"string"},{"name":"signalType","required":true,"type":"string"},{"name":"summary","required":true,"type":"string"},{"name":"evidenceUrl","required":false,"type":"string"},{"name":"confidence","required":true,"type":"number"},{"name":"recommendedAction","required":true,"type":"string"}],"record_label":"actor_product_record"}"#);
}

#[test]
fn preview_of_every_shipped_type() {
    for schema in foundry_catalog::record_types() {
        let preview = OutputPreview::new(schema, &context(schema));
        insta::assert_json_snapshot!(format!("preview_{}", schema.record_label), preview);
    }
}

#[test]
fn preview_derived_values_agree_with_the_spec() {
    for schema in foundry_catalog::record_types() {
        let json = serde_json::to_value(OutputPreview::new(schema, &context(schema))).expect("serializes");
        let (preview, sample) = (&json["schema_preview"], &json["sample"]);
        let label = &*schema.record_label;
        assert_eq!(preview["field_count"], schema.fields.len());
        assert_eq!(preview["record_label"], label);
        assert_eq!(sample["record_label"], label);
        assert_eq!(preview["source"], "product_output_contract");
        assert_eq!(sample["source"], "product_output_contract");
        assert_eq!(sample["title"], format!("{label} sample rows"));
        assert_eq!(sample["row_count"], sample["rows"].as_array().expect("rows").len());
        assert_eq!(sample["row_count"], schema.sample_rows);
        assert_eq!(sample["sample_type"], schema.sample_type.as_str());
        assert_eq!(sample["sample_status"], schema.sample_type.sample_status().as_str());
        assert_eq!(sample["missing_reason"], Value::Null);
        assert_eq!(sample["sample_available"], true);
        assert_eq!(sample["refreshed_at"], "2026-03-01T08:30:00.123456Z");
        assert_eq!(preview["manifest_path"], format!("products/generated/{}/product.json", label.replace('_', "-")));
        assert_eq!(preview["schema_hash"].as_str().map(str::len), Some(schema.digest_length.hex_chars()));
        let names: Vec<&str> = schema.fields.iter().map(|f| &*f.name).collect();
        assert_eq!(sample["fields"], serde_json::json!(names));
        let required: Vec<&str> = schema.required_fields().collect();
        assert_eq!(preview["required_fields"], serde_json::json!(required));
        let descriptor_keys: Vec<&str> =
            preview["fields"][0].as_object().expect("descriptor").keys().map(String::as_str).collect();
        assert_eq!(descriptor_keys, ["name", "type", "required", "description"]);
    }
}

#[test]
fn sample_and_preview_keys_are_in_the_spec_table_order() {
    let schema = foundry_catalog::record_type("regulatory_status_signal").expect("shipped");
    let json = serde_json::to_value(OutputPreview::new(schema, &context(schema))).expect("serializes");
    let keys = |v: &Value| v.as_object().expect("object").keys().cloned().collect::<Vec<_>>();
    assert_eq!(
        keys(&json["sample"]),
        [
            "rows",
            "title",
            "fields",
            "source",
            "row_count",
            "sample_type",
            "record_label",
            "refreshed_at",
            "sample_status",
            "missing_reason",
            "sample_available"
        ]
    );
    assert_eq!(
        keys(&json["schema_preview"]),
        ["fields", "source", "field_count", "schema_hash", "record_label", "manifest_path", "required_fields"]
    );
}

/// Every fixture row of every registered type follows the fixture rules
/// (docs/fixtures.md): each required field present with its schema type, text
/// starting "Deterministic fixture", the " N" suffix on later rows, valid
/// URLs, dates and fractions, payloads carrying the slug.
#[test]
fn fixture_rows_follow_the_rules_for_every_registered_type() {
    for schema in foundry_catalog::record_types() {
        let ctx = context(schema);
        let rows = fixture::rows(schema, ctx.slug.as_str());
        assert_eq!(rows.len(), schema.sample_rows);
        for (i, row) in rows.iter().enumerate() {
            let n = i + 1;
            let suffix = if n == 1 { String::new() } else { format!(" {n}") };
            let keys: Vec<&str> = row.keys().map(String::as_str).collect();
            let in_order: Vec<&str> =
                schema.fields.iter().map(|f| &*f.name).filter(|name| row.contains_key(*name)).collect();
            assert_eq!(keys, in_order, "{}: keys in field order", schema.record_label);
            for field in schema.fields.iter() {
                let at = format!("{} row {n} `{}`", schema.record_label, field.name);
                let Some(value) = row.get(&*field.name) else {
                    assert!(!field.required, "{at}: required field missing");
                    continue;
                };
                match field.field_type {
                    FieldType::String => assert!(value.is_string(), "{at}: not a string"),
                    FieldType::Number => assert!(value.is_number(), "{at}: not a number"),
                    FieldType::Integer => assert!(value.is_i64() || value.is_u64(), "{at}: not an integer"),
                    FieldType::Boolean => assert!(value.is_boolean(), "{at}: not a boolean"),
                    FieldType::Object => assert!(value.is_object(), "{at}: not an object"),
                    FieldType::Array => assert!(value.is_array(), "{at}: not an array"),
                }
                if let Some(format) = field.format {
                    assert_eq!(format.check(value, Some(ctx.slug.as_str())), Ok(()), "{at}: format {format}");
                }
                match &*fixture::effective_hint(field) {
                    FixtureHint::Text(_) => {
                        let text = value.as_str().unwrap_or_default();
                        assert!(text.starts_with("Deterministic fixture "), "{at}: {text}");
                        assert!(
                            text.ends_with(&suffix) && !text[..text.len() - suffix.len()].ends_with(char::is_numeric),
                            "{at}: {text}"
                        );
                    }
                    FixtureHint::Token(token) if field.format == Some(FieldFormat::Key) => {
                        assert_eq!(value, &format!("{token}_{n}"), "{at}: a key differs on every row")
                    }
                    FixtureHint::Token(token) => assert_eq!(value, &format!("{token}{suffix}"), "{at}"),
                    FixtureHint::Url(_) => {
                        let url = value.as_str().unwrap_or_default();
                        assert!(url.starts_with("https://") || url.starts_with("http://"), "{at}: {url}");
                        assert!(!url.contains(char::is_whitespace), "{at}: {url}");
                        assert!(url.ends_with(&format!("/{}/{n}", ctx.slug)), "{at}: {url}");
                    }
                    FixtureHint::Date(_) => {
                        let date = value.as_str().unwrap_or_default();
                        let format = time::macros::format_description!("[year]-[month]-[day]");
                        let parsed = time::Date::parse(date, format).expect("a date");
                        assert_eq!(parsed.format(format).expect("formats"), date, "{at}: YYYY-MM-DD");
                    }
                    FixtureHint::Fraction(_) => {
                        let f = value.as_f64().unwrap_or(-1.0);
                        assert!((0.0..1.0).contains(&f), "{at}: {f}");
                    }
                    FixtureHint::Payload(_) => assert_eq!(value["product"], ctx.slug.as_str(), "{at}"),
                    // Booleans alternate; numbers count rows, moved into their bounds.
                    FixtureHint::Sequence if field.field_type == FieldType::Boolean => {
                        assert_eq!(value.as_bool(), Some(n % 2 == 1), "{at}")
                    }
                    FixtureHint::Sequence if field.minimum.is_none() && field.maximum.is_none() => {
                        assert_eq!(value.as_f64(), Some(n as f64), "{at}")
                    }
                    FixtureHint::Sequence => {
                        let x = value.as_f64().unwrap_or(f64::NAN);
                        assert!(
                            field.minimum.is_none_or(|m| x >= m) && field.maximum.is_none_or(|m| x <= m),
                            "{at}: {x}"
                        );
                    }
                    FixtureHint::Absent => panic!("{at}: an absent field has a value"),
                }
            }
        }
    }
}

#[test]
fn generation_is_deterministic() {
    let sources = shipped_sources();
    let first = Generator::new().generate(&sources).expect("generates");
    for _ in 0..10 {
        assert_eq!(Generator::new().generate(&sources).expect("generates"), first);
    }
    let mut reversed = sources.clone();
    reversed.reverse();
    assert_eq!(Generator::new().generate(&reversed).expect("generates"), first);
    let mut rotated = sources.clone();
    rotated.rotate_left(1);
    assert_eq!(Generator::new().generate(&rotated).expect("generates"), first);
    for threads in [1, 2, 3, 8] {
        assert_eq!(
            Generator::new().threads(threads).generate(&sources).expect("generates"),
            first,
            "{threads} threads"
        );
    }
}

/// A record type the crate does not ship works end to end at run time:
/// read and check its definition, then build its preview, with no Rust
/// written for it.
#[test]
fn a_definition_the_crate_does_not_ship_works_at_run_time() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/corpus/good/weather_reading.json");
    let source = Source::new("tests/corpus/good/weather_reading.json", std::fs::read(path).expect("readable"));
    let checked = Generator::new().check(&[source]).expect("checks");
    let schema = &checked[0].schema;
    assert!(foundry_catalog::record_type(&schema.record_label).is_none(), "not shipped");
    assert_eq!(checked[0].type_name(), "WeatherReading");
    schema.verify_schema_hash().expect("hash matches");
    insta::assert_json_snapshot!("preview_weather_reading", OutputPreview::new(schema, &context(schema)));
}
