//! Field formats (`foundry_catalog_core::format`): the validator rejects every
//! sample-row value that breaks a declared format, with a pointer and the
//! `field_format` rule; integers follow JSON Schema (`3.0` is an
//! integer); typed rows keep their wire form.

use foundry_catalog::conformance::validate;
use foundry_catalog::records::{ActorProductRecord, AutomationTriggerActionPayload, RegulatoryStatusSignal};
use foundry_catalog_core::{AbsoluteUrl, FieldFormat, RecordType, Slug};
use serde_json::{Value, json};

use crate::json_schemas::body;

/// The violations of `slug`'s body with `pointer` set to `value`, as
/// `pointer: [rule]` strings.
fn violations_with(slug: &str, pointer: &str, value: Value) -> Vec<String> {
    let mut body = body(slug);
    *body.pointer_mut(pointer).expect("the pointer exists") = value;
    validate(&body).iter().map(|v| format!("{}: [{}]", v.pointer, v.rule.code())).collect()
}

#[test]
fn the_three_values_an_independent_mutation_test_found_are_rejected() {
    let rows = "/data/sample/rows/0";
    assert_eq!(
        violations_with("lead-signal-extractor", &format!("{rows}/confidence"), json!(1.5)),
        [format!("{rows}/confidence: [field_format]")]
    );
    assert_eq!(
        violations_with("eu-regulatory-status-signals", &format!("{rows}/effectiveAt"), json!("15/01/2026")),
        [format!("{rows}/effectiveAt: [field_format]")]
    );
    assert_eq!(
        violations_with(
            "crm-webhook-connector",
            &format!("{rows}/triggerPayload"),
            json!({"product": "another-product", "fixture_mode": "trigger_example"})
        ),
        [format!("{rows}/triggerPayload: [field_format]")]
    );
}

#[test]
fn every_declared_format_is_checked_in_rows() {
    let rows = "/data/sample/rows";
    for (slug, pointer, value) in [
        ("eu-regulatory-status-signals", "0/effectiveAt", json!("2026-02-30")),
        ("eu-regulatory-status-signals", "0/effectiveAt", json!("0000-01-01")),
        ("eu-regulatory-status-signals", "0/sourceUrl", json!("https://[::1/x")),
        ("eu-regulatory-status-signals", "0/status", json!("Fixture Validated")),
        ("eu-regulatory-status-signals", "0/entityName", json!("Entity name")),
        ("lead-signal-extractor", "0/evidenceUrl", json!("evidence")),
        ("lead-signal-extractor", "0/confidence", json!(-0.01)),
        ("crm-webhook-connector", "0/actionPayload", json!({"product": "crm-webhook-connector"})),
        ("crm-webhook-connector", "0/dedupeKey", json!("fixture dedupe key")),
    ] {
        let at = format!("{rows}/{pointer}");
        let found = violations_with(slug, &at, value.clone());
        assert!(found.contains(&format!("{at}: [field_format]")), "{slug} {at} = {value}: {found:?}");
    }
    // A key repeated on a later row.
    let mut body = body("crm-webhook-connector");
    body["data"]["sample"]["rows"][2]["dedupeKey"] = body["data"]["sample"]["rows"][0]["dedupeKey"].clone();
    let found: Vec<String> = validate(&body).iter().map(|v| format!("{}: [{}]", v.pointer, v.rule.code())).collect();
    assert_eq!(found, [format!("{rows}/2/dedupeKey: [field_format]")]);
}

#[test]
fn a_known_record_type_lists_its_own_fields() {
    let mut body = body("lead-signal-extractor");
    body["data"]["schema_preview"]["fields"][3]["required"] = json!(true);
    let found: Vec<String> = validate(&body).iter().map(|v| format!("{}: [{}]", v.pointer, v.rule.code())).collect();
    assert!(found.contains(&"/data/schema_preview/fields: [sample]".to_owned()), "{found:?}");
}

/// JSON Schema counts `3.0` as an integer, so the validator does too.
#[test]
fn integers_written_with_a_decimal_point_are_integers() {
    assert!(violations_with("crm-webhook-connector", "/data/sample/row_count", json!(3.0)).is_empty());
    assert!(violations_with("crm-webhook-connector", "/data/content_score", json!(100.0)).is_empty());
    assert_eq!(
        violations_with("crm-webhook-connector", "/data/sample/row_count", json!(3.5)),
        ["/data/sample/row_count: [type]", "/data/sample/row_count: [derived]"]
    );
    // The typed model reads what the validator and the schemas accept, and
    // writes the integer back as an integer.
    let mut manifest: Value = serde_json::from_str(
        &std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/examples/catalog/crm-webhook-connector.json"))
            .expect("the manifest"),
    )
    .expect("JSON");
    manifest["quality"]["content_score"] = json!(100.0);
    assert!(foundry_catalog::conformance::validate_manifest(&manifest).is_empty());
    let record = foundry_catalog::product::ProductManifest::from_value(&manifest)
        .and_then(|m| m.build())
        .expect("a manifest with 100.0 builds");
    assert_eq!(serde_json::to_value(&record).expect("serializes")["quality"]["content_score"], json!(100));
    let mut body = body("crm-webhook-connector");
    body["data"]["quality"]["content_score"] = json!(100.0);
    body["data"]["content_score"] = json!(100.0);
    assert!(foundry_catalog::response::ProductResponse::from_value(&body).is_ok(), "the typed read accepts 100.0");
    assert_eq!(
        violations_with("crm-webhook-connector", "/data/member_count", json!(-1)),
        ["/data/member_count: [type]", "/data/member_count: [derived]"]
    );
}

/// Typed rows: a `date` field is a `time::Date`, a `url` field an
/// `AbsoluteUrl`; serializing them gives exactly the untyped fixture rows.
#[test]
fn typed_rows_round_trip_to_the_same_wire_form() {
    let slug = Slug::new("eu-signals").expect("a slug");
    fn same<T: RecordType>(slug: &Slug) {
        let typed = serde_json::to_value(T::fixture_rows(slug)).expect("serializes");
        let untyped =
            serde_json::to_value(foundry_catalog_core::fixture::rows(&T::SCHEMA, slug.as_str())).expect("JSON");
        assert_eq!(typed, untyped, "{}", T::LABEL);
        let again: Vec<T> = serde_json::from_value(typed).expect("reads back");
        assert_eq!(again, T::fixture_rows(slug));
    }
    same::<RegulatoryStatusSignal>(&slug);
    same::<ActorProductRecord>(&slug);
    same::<AutomationTriggerActionPayload>(&slug);

    let rows = RegulatoryStatusSignal::fixture_rows(&slug);
    assert_eq!(rows[1].effective_at, time::macros::date!(2026 - 01 - 16));
    assert_eq!(rows[0].source_url.as_str(), "https://registry.example.org/records/eu-signals/1");
    let mut bad = serde_json::to_value(&rows[0]).expect("serializes");
    bad["effectiveAt"] = json!("15/01/2026");
    assert!(serde_json::from_value::<RegulatoryStatusSignal>(bad.clone()).is_err(), "an invalid date cannot be read");
    bad["effectiveAt"] = json!("2026-01-15");
    bad["sourceUrl"] = json!("https://[::1/x");
    assert!(serde_json::from_value::<RegulatoryStatusSignal>(bad).is_err(), "an invalid URL cannot be read");
    assert!(AbsoluteUrl::new("https://[::1/x").is_err());
}

/// Each format's JSON Schema and Rust check agree on its own fixtures and
/// on a broken value of each kind.
#[test]
fn every_format_rejects_a_broken_value() {
    for format in FieldFormat::ALL {
        let bad = match format {
            FieldFormat::Date => json!("0000-01-01"),
            FieldFormat::Url => json!("https://exa mple.org/"),
            FieldFormat::Fraction => json!(1.0),
            FieldFormat::Token => json!("fixture_validated  2"),
            FieldFormat::Payload => json!({"product": "x", "fixture_mode": "m", "more": 1}),
            FieldFormat::Text => json!("Deterministic fixture"),
            FieldFormat::Key => json!("a key"),
            FieldFormat::Timestamp => json!("2026-01-15T09:30:00"),
            FieldFormat::Email => json!("recruiter@localhost"),
            FieldFormat::Uuid => json!("0b3e1c9a5d2f8a419c6e2f4b7d0a1e35"),
        };
        assert!(format.check(&bad, None).is_err(), "{format}: accepts {bad}");
        assert_eq!(format.json_schema()["type"], json!(format.field_type().as_str()), "{format}");
    }
}
