//! Product records: the catalog, the typed model, the builder's rules and
//! the conformance validator.

use std::path::Path;

use foundry_catalog::conformance::{Rule, validate};
use foundry_catalog::product::{AvailabilityStatus, Coverage, ProductManifest, ProductRecord, Route};
use foundry_catalog::response::ProductResponse;
use serde_json::{Value, json};

fn catalog() -> Vec<(String, ProductManifest)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/catalog");
    let mut files: Vec<_> = std::fs::read_dir(dir).expect("catalog").map(|e| e.expect("entry").path()).collect();
    files.sort();
    files
        .into_iter()
        .map(|path| {
            let stem = path.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_owned();
            let text = std::fs::read_to_string(&path).expect("readable");
            (stem, ProductManifest::from_json(&text).unwrap_or_else(|e| panic!("{}: {e}", path.display())))
        })
        .collect()
}

fn body(record: &ProductRecord) -> Value {
    serde_json::to_value(ProductResponse { data: record.clone() }).expect("serializes")
}

fn built(slug: &str) -> Value {
    let (_, manifest) = catalog().into_iter().find(|(s, _)| s == slug).expect("in the catalog");
    body(&manifest.build().expect("builds"))
}

#[test]
fn catalog_response_bodies() {
    let catalog = catalog();
    assert!(catalog.len() >= 3);
    for (stem, manifest) in catalog {
        assert_eq!(manifest.slug.as_str(), stem, "the file name is the slug");
        let record = manifest.build().unwrap_or_else(|v| panic!("{stem}:\n{v}"));
        let text = serde_json::to_string_pretty(&ProductResponse { data: record }).expect("serializes");
        insta::assert_snapshot!(format!("catalog_{stem}"), text);
    }
}

#[test]
fn catalog_covers_what_the_spec_shows() {
    let bodies: Vec<Value> = catalog().iter().map(|(_, m)| body(&m.build().expect("builds"))).collect();
    let all = |pointer: &str| -> Vec<Value> { bodies.iter().filter_map(|b| b.pointer(pointer).cloned()).collect() };
    let entries: Vec<Value> = all("/data/marketplace_availability")
        .into_iter()
        .flat_map(|a| a.as_array().cloned().unwrap_or_default())
        .collect();
    for status in AvailabilityStatus::VALUES {
        assert!(entries.iter().any(|e| e["status"] == *status), "status {status}");
    }
    for coverage in Coverage::VALUES {
        assert!(entries.iter().any(|e| e["coverage"] == *coverage), "coverage {coverage}");
    }
    for route in Route::VALUES {
        assert!(all("/data/route").contains(&json!(route)), "route {route}");
    }
    assert!(all("/data/primary_cta").contains(&Value::Null), "a product without listings");
    let paths: Vec<String> =
        all("/data/schema_preview/manifest_path").iter().filter_map(|p| p.as_str().map(str::to_owned)).collect();
    assert!(
        paths.iter().any(|p| p.starts_with("products/generated/")) && paths.iter().any(|p| p.contains("://actors/"))
    );
    let hash_lengths: Vec<usize> =
        all("/data/schema_preview/schema_hash").iter().filter_map(|h| h.as_str().map(str::len)).collect();
    assert!(hash_lengths.contains(&64) && hash_lengths.contains(&40));
}

#[test]
fn every_catalog_record_passes_the_validator_and_round_trips_byte_for_byte() {
    for (stem, manifest) in catalog() {
        let body = body(&manifest.build().expect("builds"));
        assert_eq!(validate(&body), vec![], "{stem}");
        let text = serde_json::to_string(&body).expect("serializes");
        let parsed: ProductResponse = serde_json::from_str(&text).expect("deserializes");
        assert_eq!(serde_json::to_string(&parsed).expect("serializes"), text, "{stem}");
    }
}

/// A valid body with one change, and the violation that change must cause.
fn breaks(slug: &str, pointer: &str, value: Value, expected_at: &str, rule: Rule) {
    let mut body = built(slug);
    *body.pointer_mut(pointer).unwrap_or_else(|| panic!("{pointer} exists")) = value;
    let violations = validate(&body);
    assert!(
        violations.iter().any(|v| v.pointer == expected_at && v.rule == rule),
        "setting {pointer} should break {} at {expected_at}; got:\n{}",
        rule.code(),
        violations.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n")
    );
}

const DATASET: &str = "eu-regulatory-status-signals";
const ACTOR: &str = "lead-signal-extractor";
const AUTOMATION: &str = "crm-webhook-connector";

#[test]
fn each_rule_has_a_record_that_breaks_it() {
    breaks(DATASET, "/data/slug", json!("EU Signals"), "/data/slug", Rule::Format);
    breaks(DATASET, "/data/category", json!("actor_product"), "/data/category", Rule::RouteCategory);
    breaks(DATASET, "/data/category", json!("bundle"), "/data/category", Rule::Type);
    breaks(DATASET, "/data/route", json!("bundles"), "/data/route", Rule::Type);
    breaks(
        DATASET,
        "/data/canonical_path",
        json!("/actors/eu-regulatory-status-signals"),
        "/data/canonical_path",
        Rule::Path,
    );
    breaks(DATASET, "/data/api_path", json!("/api/public/foundry/products/other"), "/data/api_path", Rule::Path);
    breaks(DATASET, "/data/content_score", json!(99), "/data/content_score", Rule::Derived);
    breaks(DATASET, "/data/member_count", json!(2), "/data/member_count", Rule::Derived);
    breaks(DATASET, "/data/title", json!(42), "/data/title", Rule::Type);
    breaks(DATASET, "/data/is_visible", json!("yes"), "/data/is_visible", Rule::Type);
    breaks(DATASET, "/data/freshness_label", json!("2026-11-02T09:15:42Z"), "/data/freshness_label", Rule::Format);
    breaks(DATASET, "/data/last_updated_at", json!("2026-11-02T09:15:42Z"), "/data/last_updated_at", Rule::Format);
    breaks(DATASET, "/data/pricing_hint/currency", json!("EURO"), "/data/pricing_hint/currency", Rule::Format);
    breaks(DATASET, "/data/pricing_hint/currency", json!("XYZ"), "/data/pricing_hint/currency", Rule::Format);
    breaks(DATASET, "/data/seo/noindex", json!(null), "/data/seo/noindex", Rule::Type);
    // Listings and primary_cta.
    breaks(DATASET, "/data/marketplaces/0/key", json!("Data-Exchange"), "/data/marketplaces/0/key", Rule::Format);
    breaks(
        DATASET,
        "/data/marketplaces/0/url",
        json!("data-exchange.example.com/x"),
        "/data/marketplaces/0/url",
        Rule::Format,
    );
    breaks(DATASET, "/data/marketplaces/0/status", json!("uploaded"), "/data/marketplaces/0/status", Rule::Type);
    breaks(DATASET, "/data/marketplaces/0/ctaLabel", json!("Other"), "/data/marketplaces/0/ctaLabel", Rule::Derived);
    breaks(DATASET, "/data/marketplaces/0/publicSafe", json!(false), "/data/marketplaces/0/publicSafe", Rule::Derived);
    breaks(DATASET, "/data/marketplaces/1/primary", json!(true), "/data/marketplaces", Rule::PrimaryCta);
    breaks(DATASET, "/data/marketplaces/0/primary", json!(false), "/data/marketplaces", Rule::PrimaryCta);
    breaks(DATASET, "/data/primary_cta", json!(null), "/data/primary_cta", Rule::PrimaryCta);
    breaks(DATASET, "/data/primary_cta", json!("data_exchange"), "/data/primary_cta", Rule::Type);
    breaks(DATASET, "/data/primary_cta/label", json!("Other"), "/data/primary_cta", Rule::PrimaryCta);
    breaks(
        AUTOMATION,
        "/data/primary_cta",
        built(DATASET)["data"]["marketplaces"][0].clone(),
        "/data/primary_cta",
        Rule::PrimaryCta,
    );
    // Availability.
    let a = "/data/marketplace_availability";
    breaks(DATASET, &format!("{a}/0/clickable"), json!(false), &format!("{a}/0/clickable"), Rule::Derived);
    breaks(DATASET, &format!("{a}/0/status"), json!("uploaded"), &format!("{a}/0/status"), Rule::Availability);
    breaks(DATASET, &format!("{a}/0/status"), json!("archived"), &format!("{a}/0/status"), Rule::Type);
    breaks(DATASET, &format!("{a}/0/coverage"), json!("everywhere"), &format!("{a}/0/coverage"), Rule::Type);
    breaks(
        DATASET,
        &format!("{a}/2/url"),
        json!("https://cloud.example.com/x"),
        &format!("{a}/2/url"),
        Rule::Availability,
    );
    breaks(
        DATASET,
        &format!("{a}/2/status_label"),
        json!("Published"),
        &format!("{a}/2/status_label"),
        Rule::Availability,
    );
    breaks(DATASET, &format!("{a}/0/status_label"), json!("Live"), &format!("{a}/0/status_label"), Rule::Availability);
    breaks(DATASET, &format!("{a}/0/url"), json!("not a url"), &format!("{a}/0/url"), Rule::Format);
    breaks(DATASET, &format!("{a}/0/key"), json!("somewhere_else"), a, Rule::FirstListing);
    breaks(
        ACTOR,
        &format!("{a}/1/status"),
        json!("partially_published"),
        &format!("{a}/1/status_label"),
        Rule::Availability,
    );
    // Sample and schema preview.
    let s = "/data/sample";
    let p = "/data/schema_preview";
    breaks(DATASET, &format!("{s}/row_count"), json!(4), &format!("{s}/row_count"), Rule::Derived);
    breaks(DATASET, &format!("{s}/title"), json!("Sample rows"), &format!("{s}/title"), Rule::Derived);
    breaks(DATASET, &format!("{s}/source"), json!("live"), &format!("{s}/source"), Rule::Type);
    breaks(
        DATASET,
        &format!("{s}/sample_status"),
        json!("valid_route_fixture"),
        &format!("{s}/sample_status"),
        Rule::Sample,
    );
    breaks(
        DATASET,
        &format!("{s}/record_label"),
        json!("actor_product_record"),
        &format!("{s}/record_label"),
        Rule::Sample,
    );
    breaks(DATASET, &format!("{s}/missing_reason"), json!("stale"), &format!("{s}/missing_reason"), Rule::Derived);
    breaks(DATASET, &format!("{s}/refreshed_at"), json!("yesterday"), &format!("{s}/refreshed_at"), Rule::Format);
    breaks(DATASET, &format!("{s}/fields/0"), json!("entity"), &format!("{s}/fields"), Rule::Sample);
    breaks(
        DATASET,
        &format!("{s}/rows/1/entityName"),
        json!("Deterministic fixture entity name"),
        &format!("{s}/rows/1/entityName"),
        Rule::Sample,
    );
    breaks(
        DATASET,
        &format!("{s}/rows/2/status"),
        json!("fixture_validated 2"),
        &format!("{s}/rows/2/status"),
        Rule::Sample,
    );
    breaks(
        DATASET,
        &format!("{s}/rows/0/effectiveAt"),
        json!(20260115),
        &format!("{s}/rows/0/effectiveAt"),
        Rule::Sample,
    );
    breaks(
        AUTOMATION,
        &format!("{s}/rows/0/triggerPayload"),
        json!("payload"),
        &format!("{s}/rows/0/triggerPayload"),
        Rule::Sample,
    );
    breaks(ACTOR, &format!("{s}/rows/0/confidence"), json!("0.91"), &format!("{s}/rows/0/confidence"), Rule::Sample);
    breaks(DATASET, &format!("{p}/field_count"), json!(9), &format!("{p}/field_count"), Rule::Derived);
    breaks(
        DATASET,
        &format!("{p}/required_fields"),
        json!(["entityName"]),
        &format!("{p}/required_fields"),
        Rule::Derived,
    );
    breaks(DATASET, &format!("{p}/fields/0/type"), json!("decimal"), &format!("{p}/fields/0/type"), Rule::Type);
    breaks(DATASET, &format!("{p}/fields/0/name"), json!("entity"), &format!("{p}/schema_hash"), Rule::SchemaHash);
    breaks(DATASET, &format!("{p}/schema_hash"), json!("ABC"), &format!("{p}/schema_hash"), Rule::Format);
    breaks(ACTOR, &format!("{p}/fields/3/required"), json!(true), &format!("{p}/schema_hash"), Rule::SchemaHash);
    breaks(
        DATASET,
        &format!("{p}/manifest_path"),
        json!("products/other/product.json"),
        &format!("{p}/manifest_path"),
        Rule::ManifestPath,
    );
    breaks(
        ACTOR,
        &format!("{p}/manifest_path"),
        json!("Actor Hub://actors/x/lead-signal-extractor"),
        &format!("{p}/manifest_path"),
        Rule::ManifestPath,
    );
}

#[test]
fn a_missing_required_row_field_and_an_unknown_one_are_reported() {
    let mut body = built(AUTOMATION);
    let row = body.pointer_mut("/data/sample/rows/0").and_then(Value::as_object_mut).expect("row");
    row.remove("dedupeKey");
    row.insert("extra".to_owned(), json!(1));
    let violations = validate(&body);
    assert!(
        violations.iter().any(|v| v.pointer == "/data/sample/rows/0" && v.message.contains("`dedupeKey` is missing"))
    );
    assert!(violations.iter().any(|v| v.pointer == "/data/sample/rows/0/extra" && v.rule == Rule::Sample));
}

#[test]
fn envelope_missing_and_unknown_keys() {
    let data = built(DATASET)["data"].clone();
    let codes = |body: &Value| validate(body).iter().map(|v| (v.pointer.clone(), v.rule)).collect::<Vec<_>>();
    assert_eq!(codes(&json!([])), [(String::new(), Rule::Envelope)]);
    assert_eq!(codes(&json!({})), [(String::new(), Rule::Envelope)]);
    assert!(codes(&json!({"data": data.clone(), "meta": {}})).contains(&("/meta".to_owned(), Rule::Envelope)));
    let mut extra = data.clone();
    extra["flags_v2"] = json!([]);
    assert!(codes(&json!({"data": extra})).contains(&("/data/flags_v2".to_owned(), Rule::UnknownField)));
    let mut missing = data;
    missing.as_object_mut().expect("object").remove("seo");
    assert!(codes(&json!({"data": missing})).contains(&("/data".to_owned(), Rule::MissingField)));
}

/// Replace every value in a valid body, one at a time, by values of every
/// JSON type: the validator never panics, and reports something whenever
/// the type changed (except where the spec allows both: a nullable value
/// that was null, and the inside of a row's object field, whose shape the
/// record type does not fix).
#[test]
fn the_validator_never_panics_and_notices_every_type_change() {
    fn pointers(value: &Value, at: String, out: &mut Vec<String>) {
        match value {
            Value::Object(o) => o
                .iter()
                .for_each(|(k, v)| pointers(v, format!("{at}/{}", k.replace('~', "~0").replace('/', "~1")), out)),
            Value::Array(a) => a.iter().enumerate().for_each(|(i, v)| pointers(v, format!("{at}/{i}"), out)),
            _ => {}
        }
        out.push(at);
    }
    let replacements =
        [json!(null), json!(true), json!(7), json!(0.5), json!("x"), json!([]), json!({}), json!([[[[{"a": [1]}]]]])];
    for slug in [DATASET, ACTOR, AUTOMATION] {
        let body = built(slug);
        let mut all = Vec::new();
        pointers(&body, String::new(), &mut all);
        for at in all.iter().filter(|p| !p.is_empty()) {
            let inside_row_object = at.starts_with("/data/sample/rows/") && at.split('/').count() > 6;
            for replacement in &replacements {
                let mut broken = body.clone();
                let Some(slot) = broken.pointer_mut(at) else { continue };
                let same_type = std::mem::discriminant(slot) == std::mem::discriminant(replacement)
                    || (slot.is_number() && replacement.is_number())
                    || slot.is_null()
                    || inside_row_object;
                *slot = replacement.clone();
                let violations = validate(&broken);
                if !same_type {
                    assert!(!violations.is_empty(), "{slug}: {at} = {replacement} went unnoticed");
                }
            }
        }
    }
}

fn manifest_breaks(slug: &str, edit: impl FnOnce(&mut Value), expected_at: &str, rule: Rule) {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("examples/catalog/{slug}.json"));
    let mut manifest: Value = serde_json::from_str(&std::fs::read_to_string(path).expect("readable")).expect("JSON");
    edit(&mut manifest);
    let violations = match ProductManifest::from_value(&manifest) {
        Ok(manifest) => manifest.build().expect_err("must not build").into_iter().collect::<Vec<_>>(),
        Err(violations) => violations.into_iter().collect(),
    };
    assert!(
        violations.iter().any(|v| v.pointer == expected_at && v.rule == rule),
        "expected {} at {expected_at}; got:\n{}",
        rule.code(),
        violations.iter().map(ToString::to_string).collect::<Vec<_>>().join("\n")
    );
}

#[test]
fn building_rejects_what_the_spec_forbids() {
    manifest_breaks(DATASET, |m| m["slug"] = json!("EU_Signals"), "/slug", Rule::Format);
    manifest_breaks(
        DATASET,
        |m| m["marketplaces"][0]["key"] = json!("DataExchange"),
        "/marketplaces/0/key",
        Rule::Format,
    );
    manifest_breaks(DATASET, |m| m["marketplaces"][1]["primary"] = json!(true), "/marketplaces", Rule::PrimaryCta);
    manifest_breaks(DATASET, |m| m["marketplaces"][0]["primary"] = json!(false), "/marketplaces", Rule::PrimaryCta);
    manifest_breaks(
        DATASET,
        |m| m["marketplace_availability"][0]["status"] = json!("under_review"),
        "/marketplace_availability/0/status",
        Rule::Availability,
    );
    manifest_breaks(
        DATASET,
        |m| m["marketplace_availability"][0]["url"] = json!(null),
        "/marketplace_availability/0",
        Rule::Availability,
    );
    manifest_breaks(
        DATASET,
        |m| m["marketplace_availability"][0]["key"] = json!("elsewhere"),
        "/marketplace_availability",
        Rule::FirstListing,
    );
    manifest_breaks(
        DATASET,
        |m| m["marketplace_availability"][2]["url"] = json!("https://cloud.example.com/x"),
        "/marketplace_availability/2/url",
        Rule::Availability,
    );
    manifest_breaks(
        DATASET,
        |m| m["marketplace_availability"][2]["status_label"] = json!("Done"),
        "/marketplace_availability/2/status_label",
        Rule::Availability,
    );
    manifest_breaks(
        DATASET,
        |m| m["marketplaces"][0]["url"] = json!("/listings/x"),
        "/marketplaces/0/url",
        Rule::Format,
    );
    manifest_breaks(DATASET, |m| m["pricing_hint"]["currency"] = json!("EU"), "/pricing_hint/currency", Rule::Format);
    manifest_breaks(DATASET, |m| m["record_label"] = json!("weather_reading"), "/record_label", Rule::RecordType);
    manifest_breaks(
        DATASET,
        |m| m["freshness_label"] = json!("2026-11-02T09:15:42.12Z"),
        "/freshness_label",
        Rule::Format,
    );
    manifest_breaks(
        DATASET,
        |m| m["last_updated_at"] = json!("2026-11-02T09:15:42Z"),
        "/last_updated_at",
        Rule::Format,
    );
    manifest_breaks(
        ACTOR,
        |m| m["actor_manifest"]["scheme"] = json!("Actor Hub"),
        "/actor_manifest",
        Rule::ManifestPath,
    );
}

#[test]
fn building_lists_every_problem_at_once() {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(format!("examples/catalog/{DATASET}.json"));
    let mut m: Value = serde_json::from_str(&std::fs::read_to_string(path).expect("readable")).expect("JSON");
    m["marketplaces"][1]["primary"] = json!(true);
    m["marketplaces"][0]["key"] = json!("Bad Key");
    m["marketplace_availability"][2]["url"] = json!("https://cloud.example.com/x");
    let manifest = ProductManifest::from_value(&m).expect("manifest");
    let violations: Vec<_> = manifest.build().expect_err("broken").into_iter().collect();
    assert!(violations.len() >= 4, "{violations:#?}");
}

#[test]
fn a_broken_response_body_does_not_deserialize() {
    let mut body = built(DATASET);
    body["data"]["content_score"] = json!(1);
    let error = serde_json::from_value::<ProductResponse>(body).expect_err("rejected").to_string();
    assert!(error.contains("/data/content_score: [derived]"), "{error}");
}
