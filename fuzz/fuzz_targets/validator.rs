//! Arbitrary JSON → the conformance validator and the typed parse: never a
//! panic; the two agree on every body: one the validator accepts always
//! reads into the typed model and serializes back to an equal JSON value
//! (integers compared as JSON Schema counts them: `3.0` is written back as
//! `3`), and one the typed parse refuses always has a violation, the same
//! ones the parse reports.
#![no_main]

use foundry_catalog::response::ProductResponse;
use foundry_catalog::conformance::validate;
use libfuzzer_sys::fuzz_target;

/// A serving crate's own record type with every construct (lists,
/// nested objects, closed sets, null, bounds), read once.
fn rich() -> &'static foundry_catalog_core::RecordSchema {
    static RICH: std::sync::OnceLock<foundry_catalog_core::RecordSchema> = std::sync::OnceLock::new();
    RICH.get_or_init(|| {
        let text = include_str!("../../examples/record-types-app/record-types/listing_snapshot.json");
        let source = foundry_catalog_build::Source::new("listing_snapshot.json", text);
        let checked = foundry_catalog_build::Generator::new().threads(1).check(&[source]).expect("the example reads");
        checked.into_iter().next().expect("one type").schema
    })
}

fuzz_target!(|data: &[u8]| {
    let Ok(body) = serde_json::from_slice::<serde_json::Value>(data) else { return };
    // Rows (an array) against the rich type, at every depth; bodies with
    // it known.
    if let Some(rows) = body.as_array() {
        for v in foundry_catalog::conformance::validate_rows(rich(), rows, Some("listing-watch")) {
            assert!(v.pointer.starts_with('/'), "{v}");
        }
    }
    for v in foundry_catalog::conformance::validate_with(&body, std::slice::from_ref(rich())) {
        assert!(v.pointer.is_empty() || v.pointer.starts_with('/'), "{v}");
    }
    let violations = validate(&body);
    for v in &violations {
        assert!(v.pointer.is_empty() || v.pointer.starts_with('/'), "{v}");
    }
    match ProductResponse::from_value(&body) {
        Ok(response) => {
            assert!(violations.is_empty());
            let again = serde_json::to_value(&response).expect("serializes");
            assert_eq!(whole(again), whole(body.clone()), "a valid body round-trips");
        }
        Err(refused) => {
            assert!(!violations.is_empty(), "the typed parse refused a body the validator accepts: {refused}");
            assert_eq!(refused.as_slice(), &violations[..], "the typed parse reports the validator's violations");
        }
    }
});

/// The value with every integral float written as an integer.
fn whole(value: serde_json::Value) -> serde_json::Value {
    use serde_json::Value;
    match value {
        Value::Number(n) => match n.as_f64() {
            Some(f) if n.is_f64() && f.fract() == 0.0 && f.abs() <= 9_007_199_254_740_992.0 => Value::from(f as i64),
            _ => Value::Number(n),
        },
        Value::Array(items) => Value::Array(items.into_iter().map(whole).collect()),
        Value::Object(object) => Value::Object(object.into_iter().map(|(k, v)| (k, whole(v))).collect()),
        other => other,
    }
}
