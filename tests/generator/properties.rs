//! Property tests over random valid definitions: they always generate,
//! their fixture rows validate against their own schema, have their
//! fields' formats and follow the suffix rule, and the hash changes
//! exactly when the contract does (never for prose, hints or formats).

use std::borrow::Cow;

use foundry_catalog::hash::schema_hash;
use foundry_catalog::{
    DigestLength, EnumValue, FieldDescriptor, FieldFormat, FieldType, FixtureHint, Items, fixture, json_schema,
};
use foundry_catalog_build::{Generator, Source};
use proptest::prelude::*;
use serde_json::{Value, json};

/// A hint that fits `ty` (or none), with valid parameters.
fn hint(ty: FieldType, required: bool) -> BoxedStrategy<Option<FixtureHint>> {
    let absent = if required { Just(None).boxed() } else { Just(Some(FixtureHint::Absent)).boxed() };
    let fitting = match ty {
        FieldType::String => prop_oneof![
            "[a-z]{1,8}( [a-z]{1,8}){0,2}".prop_map(|p| Some(FixtureHint::Text(Cow::Owned(p)))),
            "[a-z_]{1,12}".prop_map(|t| Some(FixtureHint::Token(Cow::Owned(t)))),
            (2000i32..2100, 1u8..13, 1u8..29)
                .prop_map(|(y, m, d)| Some(FixtureHint::Date(Cow::Owned(format!("{y:04}-{m:02}-{d:02}"))))),
            "[a-z]{1,10}(/[a-z0-9]{1,6}){0,2}".prop_map(|p| Some(FixtureHint::Url(Cow::Owned(format!("https://{p}"))))),
        ]
        .boxed(),
        FieldType::Number => prop_oneof![
            (0u16..1000).prop_map(|t| Some(FixtureHint::Fraction(f64::from(t) / 1000.0))),
            Just(Some(FixtureHint::Sequence)),
        ]
        .boxed(),
        FieldType::Integer | FieldType::Boolean => Just(Some(FixtureHint::Sequence)).boxed(),
        FieldType::Object => "[a-z_]{1,12}".prop_map(|m| Some(FixtureHint::Payload(Cow::Owned(m)))).boxed(),
        FieldType::Array => Just(None).boxed(),
    };
    prop_oneof![Just(None), fitting, absent].boxed()
}

/// A format that fits `ty` (or none) and a hint that fits both: the
/// format's seed kind, or none, or `absent` on an optional field.
pub(crate) fn format_and_hint(
    ty: FieldType,
    required: bool,
    any_hint: BoxedStrategy<Option<FixtureHint>>,
) -> BoxedStrategy<(Option<FieldFormat>, Option<FixtureHint>)> {
    let formats: Vec<FieldFormat> = FieldFormat::ALL.iter().copied().filter(|f| f.field_type() == ty).collect();
    let absent = if required { None } else { Some(FixtureHint::Absent) };
    let unformatted = any_hint.prop_map(|hint| (None, hint)).boxed();
    if formats.is_empty() {
        // Integers and booleans take no format.
        return unformatted;
    }
    let formatted = prop::sample::select(formats)
        .prop_flat_map(move |format| {
            let seed: BoxedStrategy<FixtureHint> = match format {
                FieldFormat::Date => (2000i32..2100, 1u8..13, 1u8..29)
                    .prop_map(|(y, m, d)| FixtureHint::Date(Cow::Owned(format!("{y:04}-{m:02}-{d:02}"))))
                    .boxed(),
                FieldFormat::Url => "[a-z]{1,10}(/[a-z0-9]{1,6}){0,2}"
                    .prop_map(|p| FixtureHint::Url(Cow::Owned(format!("https://{p}"))))
                    .boxed(),
                FieldFormat::Fraction => {
                    (0u16..1000).prop_map(|t| FixtureHint::Fraction(f64::from(t) / 1000.0)).boxed()
                }
                FieldFormat::Token => {
                    "[a-z][a-z0-9]{0,6}(_[a-z0-9]{1,4}){0,2}".prop_map(|t| FixtureHint::Token(Cow::Owned(t))).boxed()
                }
                FieldFormat::Key => "[A-Za-z0-9_.:-]{1,12}".prop_map(|t| FixtureHint::Token(Cow::Owned(t))).boxed(),
                FieldFormat::Payload => "[a-z_]{1,12}".prop_map(|m| FixtureHint::Payload(Cow::Owned(m))).boxed(),
                FieldFormat::Text => {
                    "[a-z]{1,8}( [a-z]{1,8}){0,2}".prop_map(|p| FixtureHint::Text(Cow::Owned(p))).boxed()
                }
            };
            let absent = absent.clone();
            prop_oneof![Just(None), seed.prop_map(Some), Just(absent)].prop_map(move |hint| (Some(format), hint))
        })
        .boxed();
    prop_oneof![unformatted, formatted].boxed()
}

/// Random fields with distinct wire and Rust names (the index suffix keeps
/// them apart), any type (lists and nested objects two deep), required or
/// not, and fitting hints.
fn fields() -> impl Strategy<Value = Vec<FieldDescriptor>> {
    nested_fields("[a-z][a-zA-Z]{0,8}", "[A-Za-z][A-Za-z ,.]{0,30}", hint, 1..10, 2)
}

/// A strategy for fitting hints of a type, required or not.
pub(crate) type HintFor = fn(FieldType, bool) -> BoxedStrategy<Option<FixtureHint>>;

/// Fields named from `name` (plus their index), described from
/// `description`, `count` of them, each a scalar with a fitting format
/// and hint, or (while `depth` allows) a list or a nested object of such
/// fields.
pub(crate) fn nested_fields(
    name: &'static str,
    description: &'static str,
    hint: HintFor,
    count: std::ops::Range<usize>,
    depth: u32,
) -> BoxedStrategy<Vec<FieldDescriptor>> {
    prop::collection::vec(
        (name, value(name, description, hint, depth), any::<bool>(), any::<bool>(), description),
        count,
    )
    .prop_flat_map(move |specs| {
        specs
            .into_iter()
            .enumerate()
            .map(|(i, (base, value, required, leave_out, text))| {
                // Lists, objects, closed sets and bounded numbers keep
                // what their value strategy made.
                let nests = value.items.is_some()
                    || value.fields.is_some()
                    || value.enum_values.is_some()
                    || value.minimum.is_some()
                    || value.maximum.is_some();
                let named = FieldDescriptor {
                    name: Cow::Owned(format!("{base}{i}")),
                    required,
                    description: Cow::Owned(text),
                    fixture: if nests && !required && leave_out { Some(FixtureHint::Absent) } else { None },
                    ..value
                };
                if nests {
                    return Just(named).boxed();
                }
                let ty = named.field_type;
                format_and_hint(ty, required, hint(ty, required))
                    .prop_map(move |(format, fixture)| FieldDescriptor { format, fixture, ..named.clone() })
                    .boxed()
            })
            .collect::<Vec<_>>()
    })
    .boxed()
}

/// An unnamed value: a scalar (with a fitting format and hint), or while
/// `depth` allows a list of values (with bounds around the fixture
/// length, or none) or an object of fields.
fn value_shape(
    name: &'static str,
    description: &'static str,
    hint: HintFor,
    depth: u32,
) -> BoxedStrategy<FieldDescriptor> {
    // Every type but a list (an object here is open), or a closed set.
    let scalars: Vec<FieldType> = FieldType::ALL.iter().copied().filter(|t| *t != FieldType::Array).collect();
    let scalar = prop::sample::select(scalars)
        .prop_flat_map(move |ty| {
            format_and_hint(ty, true, hint(ty, true))
                .prop_map(move |(format, fixture)| FieldDescriptor::new("", ty, true, "", fixture, format))
        })
        .boxed();
    let closed = prop::collection::btree_set("[a-z]{1,6}", 1..5).prop_map(|values| FieldDescriptor {
        enum_values: Some(values.into_iter().map(|v| EnumValue { value: Cow::Owned(v), rust_name: None }).collect()),
        ..FieldDescriptor::new("", FieldType::String, true, "", None, None)
    });
    // Integers and numbers between bounds (either may be missing).
    let bound = || prop_oneof![Just(None), (-20i32..20).prop_map(|b| Some(f64::from(b) / 4.0))];
    let bounded = (prop_oneof![Just(FieldType::Integer), Just(FieldType::Number)], bound(), bound())
        .prop_filter("a bound", |(_, min, max)| min.is_some() || max.is_some())
        .prop_map(|(ty, min, max)| {
            let whole = |b: Option<f64>| if ty == FieldType::Integer { b.map(f64::round) } else { b };
            let (minimum, maximum) = match (whole(min), whole(max)) {
                (Some(a), Some(b)) => (Some(a.min(b)), Some(a.max(b))),
                other => other,
            };
            FieldDescriptor { minimum, maximum, ..FieldDescriptor::new("", ty, true, "", None, None) }
        });
    let scalar = prop_oneof![6 => scalar, 1 => closed, 1 => bounded].boxed();
    if depth == 0 {
        return scalar;
    }
    let bound = prop_oneof![Just(None), (0u32..4).prop_map(Some)];
    let list = (value(name, description, hint, depth - 1), bound.clone(), bound).prop_map(|(item, min, max)| {
        let (min_items, max_items) = match (min, max) {
            (Some(a), Some(b)) => (Some(a.min(b)), Some(a.max(b))),
            other => other,
        };
        FieldDescriptor {
            items: Some(Items::new(item)),
            min_items,
            max_items,
            ..FieldDescriptor::new("", FieldType::Array, true, "", None, None)
        }
    });
    let object = nested_fields(name, description, hint, 1..4, depth - 1).prop_map(|fields| FieldDescriptor {
        fields: Some(Cow::Owned(fields)),
        ..FieldDescriptor::new("", FieldType::Object, true, "", None, None)
    });
    prop_oneof![2 => scalar, 1 => list, 1 => object].boxed()
}

/// A value: one of [`value_shape`]'s, nullable or not.
fn value(name: &'static str, description: &'static str, hint: HintFor, depth: u32) -> BoxedStrategy<FieldDescriptor> {
    (value_shape(name, description, hint, depth), any::<bool>())
        .prop_map(|(value, nullable)| FieldDescriptor { nullable, ..value })
        .boxed()
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
                    FixtureHint::Token(_) if field.format == Some(FieldFormat::Key) => {
                        let keys = all.iter().filter_map(|r| r.get(&*field.name));
                        prop_assert_eq!(foundry_catalog::format::check_unique(keys), None);
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
                        prop_assert!(foundry_catalog::is_absolute_url(url), "{}", url);
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
