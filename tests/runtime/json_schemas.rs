//! The shipped JSON Schemas: generated from the code's own tables and
//! current on disk. Independent validators (python-jsonschema and ajv)
//! check them against `tests/json-schema/cases.json` in CI
//! (`.ci/json-schemas`); the same format strings are checked against the
//! Rust format checks by `json_schema`'s unit tests, so the patterns and
//! the code agree.

use std::path::Path;

use foundry_catalog::json_schema;
use foundry_catalog::product::ProductManifest;
use foundry_catalog::response::ProductResponse;
use serde_json::Value;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
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

/// The example catalog's body for `slug` (`examples/catalog/<slug>.json`
/// built and serialized as a catalog build does), as JSON.
pub(crate) fn body(slug: &str) -> Value {
    let (_, text) = foundry_catalog::examples::MANIFESTS
        .iter()
        .find(|(name, _)| name.strip_suffix(".json") == Some(slug))
        .unwrap_or_else(|| panic!("no product {slug}"));
    let record = ProductManifest::from_json(text)
        .and_then(|m| m.build().map_err(foundry_catalog::manifest::ManifestError::Invalid))
        .expect("an example builds");
    serde_json::from_slice(&ProductResponse::body(&record, &[]).expect("an example conforms")).expect("a body is JSON")
}

fn cases() -> Value {
    let text = std::fs::read_to_string(root().join("tests/json-schema/cases.json")).expect("cases.json");
    serde_json::from_str(&text).expect("cases.json is JSON")
}

/// A mutation case of `cases.json`: the instances it is made on (paths or
/// patterns) and its (pointer, value) settings.
struct Mutation {
    instances: Vec<String>,
    sets: Vec<(String, Value)>,
}

/// The mutations of `cases.json` made on instances of `schema`.
fn mutations(schema: &str) -> Vec<Mutation> {
    let cases = cases();
    let strings = |list: &Value| -> Vec<String> {
        list.as_array().expect("a list").iter().map(|v| v.as_str().expect("a string").to_owned()).collect()
    };
    let sets = |list: &Value| -> Vec<(String, Value)> {
        let sets = list.as_array().expect("set").iter();
        sets.map(|set| (set[0].as_str().expect("a pointer").to_owned(), set[1].clone())).collect()
    };
    let all = cases["mutations"].as_array().expect("mutations").iter();
    all.filter(|case| case["schema"] == schema)
        .map(|case| Mutation { instances: strings(&case["instances"]), sets: sets(&case["set"]) })
        .collect()
}

/// `document` with the value at `pointer` set (or added, as the last key
/// of an existing object), as the JSON Schema checkers mutate it.
fn mutate(document: &Value, pointer: &str, value: Value) -> Value {
    let mut mutated = document.clone();
    match mutated.pointer_mut(pointer) {
        Some(target) => *target = value,
        None => {
            let (parent, key) = pointer.rsplit_once('/').expect("a key");
            mutated
                .pointer_mut(parent)
                .and_then(Value::as_object_mut)
                .unwrap_or_else(|| panic!("no object at {parent}"))
                .insert(key.to_owned(), value);
        }
    }
    mutated
}

/// Every response mutation in `cases.json` (which the three JSON Schema
/// validators must reject) is rejected by the conformance validator too:
/// the validator never accepts what the schemas reject.
#[test]
fn the_validator_rejects_every_mutation_the_schemas_reject() {
    let mut checked = 0;
    for Mutation { instances, sets } in mutations("product-response.schema.json") {
        for pattern in &instances {
            let slugs: Vec<String> = match pattern.strip_prefix("generated/bodies/") {
                Some("*.json") => foundry_catalog::examples::slugs().map(str::to_owned).collect(),
                Some(file) => vec![file.trim_end_matches(".json").to_owned()],
                None => panic!("response mutations are made on rendered bodies, not {pattern}"),
            };
            for slug in slugs {
                let original = body(&slug);
                assert!(foundry_catalog::conformance::validate(&original).is_empty(), "{slug} conforms");
                for (pointer, value) in &sets {
                    let mutated = mutate(&original, pointer, value.clone());
                    let violations = foundry_catalog::conformance::validate(&mutated);
                    assert!(!violations.is_empty(), "{slug} with {pointer} = {value}: the validator accepts it");
                    checked += 1;
                }
            }
        }
    }
    assert!(checked > 50, "only {checked} mutations checked");
}

/// Every manifest mutation the schemas reject fails to build too.
#[test]
fn every_manifest_mutation_the_schemas_reject_fails_to_build() {
    let mut checked = 0;
    for Mutation { instances, sets } in mutations("product-manifest.schema.json") {
        for file in &instances {
            let original: Value =
                serde_json::from_str(&std::fs::read_to_string(root().join(file)).expect("a manifest")).expect("JSON");
            for (pointer, value) in &sets {
                let mutated = mutate(&original, pointer, value.clone());
                let built = foundry_catalog::product::ProductManifest::from_value(&mutated).and_then(|m| m.build());
                assert!(built.is_err(), "{file} with {pointer} = {value}: it builds");
                checked += 1;
            }
        }
    }
    assert!(checked >= 10, "only {checked} manifest mutations checked");
}
