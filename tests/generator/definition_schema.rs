//! `schema/record-type.schema.json`, the JSON Schema of the definition
//! format, agrees with the generator: it accepts every definition the
//! generator accepts and rejects every bad one, except the faults only the
//! generator's own checks can see.

use std::path::Path;

use serde_json::Value;

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn validator() -> jsonschema::Validator {
    let text = std::fs::read_to_string(root().join("schema/record-type.schema.json")).expect("schema is readable");
    let schema: Value = serde_json::from_str(&text).expect("schema is JSON");
    jsonschema::draft202012::new(&schema).expect("schema is a valid 2020-12 schema")
}

fn json_files(dir: &str) -> Vec<(String, Option<Value>)> {
    let mut files: Vec<_> = std::fs::read_dir(root().join(dir))
        .expect("folder is readable")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let name = p.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
            let value = std::fs::read(&p).ok().and_then(|b| serde_json::from_slice(&b).ok());
            (name, value)
        })
        .collect()
}

#[test]
fn schema_accepts_every_good_definition() {
    let validator = validator();
    for dir in ["record-types", "tests/corpus/good"] {
        for (name, value) in json_files(dir) {
            let value = value.unwrap_or_else(|| panic!("{dir}/{name} is JSON"));
            let errors: Vec<String> =
                validator.iter_errors(&value).map(|e| format!("{} at {}", e, e.instance_path())).collect();
            assert!(errors.is_empty(), "{dir}/{name}: {errors:#?}");
        }
    }
}

/// Faults that need more than JSON Schema: uniqueness of names, Rust
/// identifier collisions, the file name and calendar validity.
const ONLY_THE_GENERATOR_SEES: &[&str] = &[
    "colliding_hyphen_names.json",
    "colliding_rust_names.json",
    "duplicate_field_names.json",
    "file_name_differs.json",
    "hint_bad_date.json",
];

#[test]
fn schema_rejects_bad_definitions() {
    let validator = validator();
    let mut accepted = Vec::new();
    for (name, value) in json_files("tests/corpus/bad") {
        // Files that are not JSON at all (syntax, encoding) are rejected before any schema.
        let Some(value) = value else { continue };
        if validator.is_valid(&value) {
            accepted.push(name);
        }
    }
    assert_eq!(accepted, ONLY_THE_GENERATOR_SEES);
}
