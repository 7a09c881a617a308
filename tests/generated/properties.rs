//! Property tests over random valid definitions: they always generate,
//! their fixture rows validate against their own schema, have their
//! fields' formats and follow the suffix rule, and the hash changes
//! exactly when the contract does (never for prose, hints or formats).

use std::borrow::Cow;

use foundry_catalog::json_schema;
use foundry_catalog_build::{Generator, Source};
use foundry_catalog_core::hash::schema_hash;
use foundry_catalog_core::{DigestLength, FieldDescriptor, FieldFormat, FieldType, FixtureHint, fixture};
use foundry_catalog_strategies::{hint, nested_fields};
use proptest::prelude::*;
use serde_json::{Value, json};

/// Random fields with distinct wire and Rust names (the index suffix keeps
/// them apart), any type (lists and nested objects two deep), required or
/// not, and fitting hints.
fn fields() -> impl Strategy<Value = Vec<FieldDescriptor>> {
    nested_fields("[a-z][a-zA-Z]{0,8}", "[A-Za-z][A-Za-z ,.]{0,30}", hint, 1..10, 2)
}

fn label() -> impl Strategy<Value = String> {
    "[a-z][a-z0-9]{0,6}(_[a-z0-9]{1,5}){0,2}".prop_filter("not a keyword", |l| l != "self")
}

fn definition(label: &str, fields: &[FieldDescriptor], rows: usize, digest: u64) -> String {
    json!({
        "record_label": label,
        "sample_type": "deterministic_executable_fixture",
        "digest_length": digest,
        "sample_rows": rows,
        "fields": fields,
    })
    .to_string()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 128, ..ProptestConfig::default() })]

    #[test]
    fn random_definitions_generate_and_their_rows_follow_the_rules(
        label in label(),
        fields in fields(),
        rows in 1usize..6,
        digest in prop_oneof![Just(64u64), Just(40u64)],
    ) {
        let text = definition(&label, &fields, rows, digest);
        let source = Source::new(format!("prop/{label}.json"), text);
        let generator = Generator::new().threads(1);
        let code = generator.generate(std::slice::from_ref(&source));
        // Random nested names may give two nested objects one struct name,
        // which is an error of its own (pinned in the corpus).
        prop_assume!(!code.as_ref().is_err_and(|e| e.to_string().contains("struct would be")));
        prop_assert!(code.is_ok(), "{:?}", code.err().map(|e| e.to_string()));
        let checked = generator.check(&[source]).map_err(|e| TestCaseError::fail(e.to_string()))?;
        let schema = &checked[0].schema;
        prop_assert_eq!(schema.schema_hash.len(), digest as usize);

        let row_schema = json_schema::record_type_schema(schema);
        let all = fixture::rows(schema, "prop-slug");
        prop_assert_eq!(all.len(), rows);
        let values: Vec<Value> = all.iter().cloned().map(Value::Object).collect();
        prop_assert_eq!(foundry_catalog::conformance::validate_rows(schema, &values, Some("prop-slug")), []);
        for (i, row) in all.iter().enumerate() {
            let n = i + 1;
            let row_value = Value::Object(row.clone());
            prop_assert!(fits(&row_schema, &row_value), "row {} does not fit its schema: {}", n, row_value);
            for field in schema.fields.iter() {
                let value = row.get(&*field.name);
                // One rule, its consumers agreeing: every value the fixture
                // generator makes has its field's format.
                if let (Some(values), Some(value)) = (field.values(), value) {
                    prop_assert!(values.iter().any(|v| Some(&*v.value) == value.as_str()), "{}: {}", field.name, value);
                    continue;
                }
                if let (Some(format), Some(value)) = (field.format, value) {
                    let checked = format.check(value, Some("prop-slug"));
                    prop_assert!(checked.is_ok(), "{}: {:?}", field.name, checked);
                }
                match &*fixture::effective_hint(field) {
                    FixtureHint::Absent => prop_assert!(value.is_none()),
                    // Keys, e-mail addresses and UUIDs differ on every row.
                    FixtureHint::Token(_)
                        if matches!(field.format, Some(FieldFormat::Key | FieldFormat::Email | FieldFormat::Uuid)) =>
                    {
                        let keys = all.iter().filter_map(|r| r.get(&*field.name));
                        prop_assert_eq!(foundry_catalog_core::format::check_unique(keys), None);
                    }
                    FixtureHint::Text(_) | FixtureHint::Token(_) => {
                        let first = all[0].get(&*field.name).and_then(Value::as_str).unwrap_or_default();
                        let expected = format!("{first}{}", fixture::row_suffix(n));
                        prop_assert_eq!(value.and_then(Value::as_str), Some(expected.as_str()));
                    }
                    FixtureHint::Fraction(_) => {
                        let f = value.and_then(Value::as_f64).unwrap_or(-1.0);
                        prop_assert!((0.0..1.0).contains(&f));
                    }
                    FixtureHint::Url(_) => {
                        let url = value.and_then(Value::as_str).unwrap_or_default();
                        prop_assert!(foundry_catalog_core::is_absolute_url(url), "{}", url);
                    }
                    _ => prop_assert!(value.is_some()),
                }
            }
        }
    }

    #[test]
    fn the_hash_follows_the_contract_and_ignores_prose(
        label in label(),
        fields in fields(),
        pick in any::<prop::sample::Index>(),
        other in any::<prop::sample::Index>(),
        description in "[a-z ]{0,20}",
    ) {
        let hash = |f: &[FieldDescriptor]| schema_hash(&label, f, DigestLength::Hex64);
        let base = hash(&fields);
        let i = pick.index(fields.len());

        let mut prose = fields.clone();
        prose[i].description = Cow::Owned(description);
        prose[i].fixture = None;
        prose[i].format = if prose[i].format.is_some() { None } else { FieldFormat::ALL.iter().copied().find(|f| f.field_type() == prose[i].field_type) };
        prop_assert_eq!(hash(&prose), base.clone());

        let mut renamed = fields.clone();
        renamed[i].name = Cow::Owned(format!("{}x", renamed[i].name));
        prop_assert_ne!(hash(&renamed), base.clone());

        let mut retyped = fields.clone();
        retyped[i].field_type = match retyped[i].field_type {
            FieldType::String => FieldType::Number,
            FieldType::Number => FieldType::Integer,
            FieldType::Integer => FieldType::Boolean,
            FieldType::Boolean => FieldType::Object,
            FieldType::Object => FieldType::String,
            FieldType::Array => FieldType::Object,
        };
        prop_assert_ne!(hash(&retyped), base.clone());

        let mut flipped = fields.clone();
        flipped[i].required = !flipped[i].required;
        prop_assert_ne!(hash(&flipped), base.clone());

        let j = other.index(fields.len());
        if i != j {
            let mut moved = fields.clone();
            moved.swap(i, j);
            prop_assert_ne!(hash(&moved), base);
        }
    }
}

/// Whether a value fits the JSON Schema generated for its record type:
/// every required key present, no key the schema lacks, each value of the
/// schema's type, lists within their bounds, at every depth. (Independent
/// validators check the shipped types' rows against the shipped schema
/// files in CI.)
fn fits(schema: &Value, value: &Value) -> bool {
    if let Some(branches) = schema["anyOf"].as_array() {
        return branches.iter().any(|branch| fits(branch, value));
    }
    if let Some(values) = schema["enum"].as_array()
        && !values.contains(value)
    {
        return false;
    }
    let typed = match schema["type"].as_str() {
        Some("null") => value.is_null(),
        Some("string") => value.is_string(),
        Some("number") => value.is_number(),
        Some("integer") => value.is_i64() || value.is_u64(),
        Some("boolean") => value.is_boolean(),
        Some("object") => value.is_object(),
        Some("array") => value.is_array(),
        // A format's schema (`anyOf`, `pattern`) is checked by the format's
        // own rule above.
        _ => true,
    };
    if !typed {
        return false;
    }
    if let Some(number) = value.as_f64()
        && (schema["minimum"].as_f64().is_some_and(|min| number < min)
            || schema["maximum"].as_f64().is_some_and(|max| number > max))
    {
        return false;
    }
    if let (Some(list), Some(items)) = (value.as_array(), schema.get("items")) {
        let len = list.len() as u64;
        return schema["minItems"].as_u64().is_none_or(|min| len >= min)
            && schema["maxItems"].as_u64().is_none_or(|max| len <= max)
            && list.iter().all(|item| fits(items, item));
    }
    let (Some(object), Some(properties)) = (value.as_object(), schema["properties"].as_object()) else { return true };
    let required = schema["required"].as_array().map(Vec::as_slice).unwrap_or_default();
    schema["additionalProperties"] == Value::Bool(false)
        && required.iter().all(|k| k.as_str().is_some_and(|k| object.contains_key(k)))
        && object.iter().all(|(k, v)| properties.get(k).is_some_and(|p| fits(p, v)))
}
