//! One contract, four judges: every row made here is put to the generated
//! Rust type (as a tolerant reader and as a strict one), the validator
//! (`conformance::validate_rows`) and the row JSON Schema under the Rust
//! `jsonschema` crate. Rows are made from each definition at every depth:
//! the fixture rows, rows that must be accepted (`null` in each nullable
//! place, each bound, lists at `min_items` and `max_items`, each optional
//! field left out) and rows with one fault each. The verdicts must agree,
//! except for the differences listed in the table of docs/record-types.md,
//! "One contract", which this test reads: a difference the table does not
//! list fails, and so does a line of the table that no row shows.

use std::borrow::Cow;
use std::collections::{BTreeMap, BTreeSet};

use foundry_catalog::{conformance, json_schema};
use foundry_catalog_compile_check::{corpus, strict};
use foundry_catalog_core::{
    FieldDescriptor, FieldFormat, FieldType, FixtureHint, Items, RecordSchema, RecordType, fixture,
};
use serde::de::DeserializeOwned;
use serde_json::{Value, json};

/// The slug the fixture rows are made for.
const SLUG: &str = "contract-check";

/// The judges, by the names the table uses.
const JUDGES: [&str; 4] = ["rust", "rust_strict", "validator", "json_schema"];

/// Whether the generated type `T` reads `row`, written as JSON text.
fn reads<T: DeserializeOwned>(row: &str) -> bool {
    serde_json::from_str::<T>(row).is_ok()
}

/// A record type and its two generated readers.
struct Type {
    schema: RecordSchema,
    tolerant: fn(&str) -> bool,
    strict: fn(&str) -> bool,
}

macro_rules! types {
    ($($name:ident),+ $(,)?) => {
        vec![$(Type {
            schema: corpus::$name::SCHEMA,
            tolerant: reads::<corpus::$name>,
            strict: reads::<strict::$name>,
        }),+]
    };
}

fn corpus_types() -> Vec<Type> {
    let types = types![
        AllHints,
        Formats,
        Keywords,
        MarkdownDocs,
        Minimal,
        PriceObservation,
        ShipmentEvent,
        StockCount,
        UpperSelf,
        WeatherReading,
    ];
    assert_eq!(types.len(), corpus::RECORD_TYPES.len(), "a new corpus definition needs a line above");
    types
}

/// One row and what it should get: `None` when every judge should accept
/// it, the fault's name when every judge should refuse it. `text` is the
/// row as written, when a parsed value cannot show it (a key twice).
struct Case {
    what: String,
    row: Value,
    text: Option<String>,
    fault: Option<&'static str>,
}

/// A value in a row: where it is, and the field or item that describes it.
struct Place<'a> {
    pointer: String,
    field: &'a FieldDescriptor,
    /// A field of an object (which may be left out or renamed), not a list's item.
    is_field: bool,
}

/// Every value of `object` (at `pointer` in its row) at every depth, with
/// its descriptor.
fn places<'a>(object: &Value, fields: &'a [FieldDescriptor], pointer: &str, out: &mut Vec<Place<'a>>) {
    for field in fields {
        let here = format!("{pointer}/{}", field.name);
        if let Some(value) = object.get(&*field.name) {
            out.push(Place { pointer: here.clone(), field, is_field: true });
            nested_places(value, field, &here, out);
        }
    }
}

fn nested_places<'a>(value: &Value, field: &'a FieldDescriptor, pointer: &str, out: &mut Vec<Place<'a>>) {
    if let (Some(fields), true) = (field.nested_fields(), value.is_object()) {
        places(value, fields, pointer, out);
    }
    if let (Some(item), Some(list)) = (field.item_type(), value.as_array()) {
        for (i, value) in list.iter().enumerate() {
            let here = format!("{pointer}/{i}");
            out.push(Place { pointer: here.clone(), field: item, is_field: false });
            nested_places(value, item, &here, out);
        }
    }
}

/// The descriptors without `absent` hints, so a fixture row holds every
/// field at every depth.
fn present(fields: &[FieldDescriptor]) -> Vec<FieldDescriptor> {
    fields.iter().map(present_field).collect()
}

fn present_field(field: &FieldDescriptor) -> FieldDescriptor {
    let mut field = field.clone();
    if field.fixture == Some(FixtureHint::Absent) {
        field.fixture = None;
    }
    field.fields = field.fields.as_deref().map(|fields| Cow::Owned(present(fields)));
    field.items = field.item_type().map(|item| Items::new(present_field(item)));
    field
}

/// `row` with the value at `pointer` replaced.
fn with(row: &Value, pointer: &str, value: Value) -> Value {
    let mut row = row.clone();
    *row.pointer_mut(pointer).expect("the place exists") = value;
    row
}

/// `row` without the key at `pointer`.
fn without(row: &Value, pointer: &str) -> Value {
    let mut row = row.clone();
    let (parent, key) = pointer.rsplit_once('/').expect("a key's pointer");
    row.pointer_mut(parent).and_then(Value::as_object_mut).expect("an object").remove(key);
    row
}

/// A whole number as JSON (exact, not through `f64`).
fn whole(n: f64) -> Value {
    json!(n as i64)
}

/// The bound `n` stepped by `by` as a value of the field's type.
fn beside(field: &FieldDescriptor, n: f64, by: i64) -> Value {
    if field.field_type == FieldType::Integer { json!(n as i64 + by) } else { json!(n + by as f64) }
}

/// A value of another JSON type than the field's.
fn wrong_type(field: &FieldDescriptor) -> Value {
    match field.field_type {
        FieldType::String => json!(7),
        _ => json!("text"),
    }
}

/// A value that breaks the format, and the fault's name.
fn bad_format(place: &Place<'_>) -> Option<(Value, &'static str)> {
    let item = !place.is_field;
    Some(match place.field.format? {
        FieldFormat::Date if item => (json!("2026-02-30"), "bad_date_item"),
        FieldFormat::Date => (json!("2026-02-30"), "bad_date"),
        FieldFormat::Url if item => (json!("not a url"), "bad_url_item"),
        FieldFormat::Url => (json!("not a url"), "bad_url"),
        FieldFormat::Token => (json!("Not A Token"), "bad_token"),
        FieldFormat::Key => (json!("has a space"), "bad_key"),
        FieldFormat::Text => (json!("plain words"), "bad_text"),
        FieldFormat::Fraction => (json!(1.0), "bad_fraction"),
        FieldFormat::Payload => (json!({"product": SLUG}), "bad_payload"),
        FieldFormat::Timestamp => (json!("2026-01-15 09:30:00"), "bad_timestamp"),
        FieldFormat::Email => (json!("recruiter at example.org"), "bad_email"),
        FieldFormat::Uuid => (json!("0B3E1C9A-5D2F-8A41-9C6E-2F4B7D0A1E35"), "bad_uuid"),
    })
}

/// Every case of one record type.
fn cases(schema: &RecordSchema) -> Vec<Case> {
    let mut out = Vec::new();
    let mut case =
        |what: String, row: Value, fault: Option<&'static str>| out.push(Case { what, row, text: None, fault });
    let fields = present(&schema.fields);
    for (i, row) in fixture::rows(schema, SLUG).into_iter().enumerate() {
        case(format!("fixture row {}", i + 1), Value::Object(row), None);
    }
    let base = Value::Object(fixture::row(&fields, SLUG, 1));
    case("every field present".to_owned(), base.clone(), None);
    let mut all = Vec::new();
    places(&base, &fields, "", &mut all);
    for place in &all {
        let (at, field) = (&place.pointer, place.field);
        if field.nullable {
            case(format!("{at} null"), with(&base, at, Value::Null), None);
        } else if place.is_field && !field.required {
            case(format!("{at} null"), with(&base, at, Value::Null), Some("null_in_optional"));
        } else {
            case(format!("{at} null"), with(&base, at, Value::Null), Some("null_not_nullable"));
        }
        if place.is_field && !field.required {
            case(format!("{at} left out"), without(&base, at), None);
        }
        if place.is_field && field.required {
            case(format!("{at} left out"), without(&base, at), Some("missing_key"));
        }
        case(format!("{at} of the wrong type"), with(&base, at, wrong_type(field)), Some("wrong_type"));
        if field.field_type == FieldType::Integer {
            case(format!("{at} 1.5"), with(&base, at, json!(1.5)), Some("fraction_for_integer"));
            let value = base.pointer(at).and_then(Value::as_i64).expect("an integer");
            case(format!("{at} as {value}.0"), with(&base, at, json!(value as f64)), Some("whole_float_for_integer"));
            // 2^63: a whole number JSON allows and no `i64` holds.
            case(format!("{at} as 2^63"), with(&base, at, json!(1u64 << 63)), Some("past_i64"));
        }
        if let Some(minimum) = field.minimum {
            let exact = if field.field_type == FieldType::Integer { whole(minimum) } else { json!(minimum) };
            case(format!("{at} at the minimum"), with(&base, at, exact), None);
            case(format!("{at} below the minimum"), with(&base, at, beside(field, minimum, -1)), Some("below_minimum"));
        }
        if let Some(maximum) = field.maximum {
            let exact = if field.field_type == FieldType::Integer { whole(maximum) } else { json!(maximum) };
            case(format!("{at} at the maximum"), with(&base, at, exact), None);
            case(format!("{at} above the maximum"), with(&base, at, beside(field, maximum, 1)), Some("above_maximum"));
        }
        if let Some(values) = field.values() {
            for value in values.iter() {
                case(format!("{at} {:?}", value.value), with(&base, at, json!(value.value)), None);
            }
            case(
                format!("{at} outside the closed set"),
                with(&base, at, json!("not-listed")),
                Some("outside_closed_set"),
            );
        }
        if let Some((value, fault)) = bad_format(place) {
            case(format!("{at} breaking its format"), with(&base, at, value), Some(fault));
        }
        if let (Some(list), Some(_)) = (base.pointer(at).and_then(Value::as_array), field.item_type()) {
            let item = list.first().cloned().expect("fixture lists hold items");
            let of = |n: usize| Value::Array(vec![item.clone(); n]);
            let min = field.min_items.unwrap_or(0) as usize;
            case(format!("{at} with {min} items"), with(&base, at, of(min)), None);
            if min > 0 {
                case(format!("{at} with {} items", min - 1), with(&base, at, of(min - 1)), Some("too_few_items"));
            }
            if let Some(max) = field.max_items.map(|max| max as usize) {
                case(format!("{at} with {max} items"), with(&base, at, of(max)), None);
                case(format!("{at} with {} items", max + 1), with(&base, at, of(max + 1)), Some("too_many_items"));
            }
        }
        if field.nested_fields().is_some() && base.pointer(at).is_some_and(Value::is_object) {
            let mut row = base.clone();
            let object = row.pointer_mut(at).and_then(Value::as_object_mut).expect("an object");
            object.insert("unlistedKey".to_owned(), json!(1));
            case(format!("{at} with an unknown key"), row, Some("unknown_key"));
        }
    }
    let mut row = base.clone();
    row.as_object_mut().expect("a row is an object").insert("unlistedKey".to_owned(), json!(1));
    case("the row with an unknown key".to_owned(), row, Some("unknown_key"));
    // A field's key twice, both values valid: the row as text.
    if let Some((key, value)) = base.as_object().and_then(|row| row.iter().next()) {
        let written = base.to_string();
        let text = format!("{{{}:{value},{}", Value::from(key.as_str()), &written[1..]);
        out.push(Case {
            what: format!("/{key} twice"),
            row: base.clone(),
            text: Some(text),
            fault: Some("duplicate_key"),
        });
    }
    out
}

/// The table of documented differences: (fault, judge) → the judge's
/// verdict, from docs/record-types.md, "One contract".
fn documented() -> BTreeMap<(String, String), bool> {
    let doc = include_str!("../../../docs/record-types.md");
    let section = doc.split("\n## One contract").nth(1).expect("docs/record-types.md has a section \"One contract\"");
    let section = section.split("\n## ").next().unwrap_or(section);
    let mut table = BTreeMap::new();
    for line in section.lines().filter(|l| l.starts_with("| `")) {
        let cells: Vec<&str> = line.trim_matches('|').split('|').map(str::trim).collect();
        let [fault, judges, verdict, ..] = cells[..] else { panic!("a table line has four cells: {line}") };
        let accepts = match verdict {
            "accepts" => true,
            "refuses" => false,
            other => panic!("a verdict is `accepts` or `refuses`, not {other:?}: {line}"),
        };
        for judge in judges.split(',').map(|j| j.trim().trim_matches('`')) {
            assert!(JUDGES.contains(&judge), "unknown judge {judge:?} in: {line}");
            table.insert((fault.trim_matches('`').to_owned(), judge.to_owned()), accepts);
        }
    }
    assert!(!table.is_empty(), "the table of differences reads");
    table
}

fn compile(schema: &Value) -> jsonschema::Validator {
    jsonschema::options()
        .with_draft(jsonschema::Draft::Draft202012)
        .should_validate_formats(true)
        .with_pattern_options(jsonschema::PatternOptions::regex())
        .build(schema)
        .expect("the row schema compiles")
}

#[test]
fn the_rust_types_the_validator_and_the_json_schema_agree_on_every_row() {
    let table = documented();
    let mut seen = BTreeSet::new();
    let mut disagreements = Vec::new();
    let (mut rows, mut faults) = (0, BTreeSet::new());
    for t in corpus_types() {
        let schema = &t.schema;
        let row_schema = compile(&json_schema::record_type_schema(schema));
        let sample: Vec<Value> = fixture::rows(schema, SLUG).into_iter().map(Value::Object).collect();
        let violations = conformance::validate_rows(schema, &sample, Some(SLUG));
        assert!(violations.is_empty(), "{}: the fixture sample breaks the rules: {violations:?}", schema.record_label);
        for case in cases(schema) {
            rows += 1;
            // Each judge reads the row as written (the validator's text
            // check first, as `foundry-catalog check` runs it).
            let text = case.text.clone().unwrap_or_else(|| case.row.to_string());
            let parsed: Value = serde_json::from_str(&text).expect("a row is JSON");
            let verdicts = [
                (t.tolerant)(&text),
                (t.strict)(&text),
                conformance::duplicate_keys(text.as_bytes()).is_empty()
                    && conformance::validate_rows(schema, std::slice::from_ref(&parsed), None).is_empty(),
                row_schema.is_valid(&parsed),
            ];
            let fault = case.fault.unwrap_or("none");
            faults.insert(fault);
            for (judge, accepts) in JUDGES.iter().zip(verdicts) {
                let expected = match table.get(&(fault.to_owned(), (*judge).to_owned())) {
                    Some(&documented) => {
                        seen.insert((fault.to_owned(), (*judge).to_owned()));
                        documented
                    }
                    None => case.fault.is_none(),
                };
                if accepts != expected {
                    let verdict = if accepts { "accepts" } else { "refuses" };
                    disagreements.push(format!(
                        "{}: {} ({fault}): {judge} {verdict}: {}",
                        schema.record_label, case.what, case.row
                    ));
                }
            }
        }
    }
    assert!(
        disagreements.is_empty(),
        "{} verdicts differ from the contract (docs/record-types.md, \"One contract\", lists the allowed differences):\n{}",
        disagreements.len(),
        disagreements.join("\n")
    );
    let unseen: Vec<_> = table.keys().filter(|key| !seen.contains(*key)).collect();
    assert!(unseen.is_empty(), "documented differences that no row shows (remove them from the table): {unseen:?}");
    for fault in [
        "none",
        "missing_key",
        "unknown_key",
        "null_not_nullable",
        "null_in_optional",
        "outside_closed_set",
        "below_minimum",
        "above_maximum",
        "wrong_type",
        "fraction_for_integer",
        "too_few_items",
        "too_many_items",
        "bad_date",
        "bad_url",
        "bad_timestamp",
        "bad_email",
        "bad_uuid",
    ] {
        assert!(faults.contains(fault), "no row has the fault {fault}");
    }
    assert!(rows > 500, "{rows} rows");
}

/// A required nullable field of every type refuses a missing key in Rust,
/// takes `null` as `None` and writes it back as `null`.
#[test]
fn a_required_nullable_field_of_every_type_needs_its_key() {
    let typed = corpus::ShipmentEvent::fixture_rows(&foundry_catalog_core::Slug::new(SLUG).expect("a slug"));
    let row = serde_json::to_value(&typed[0]).expect("serializes");
    for key in ["trackingUrl", "shippedOn", "weightKg", "pieces", "signed", "status", "labels", "route"] {
        let field = corpus::ShipmentEvent::SCHEMA.field(key).cloned().expect("a field");
        assert!(field.required && field.nullable, "{key} is required and nullable");
        let missing = without(&row, &format!("/{key}"));
        assert!(serde_json::from_value::<corpus::ShipmentEvent>(missing).is_err(), "{key} missing is refused");
        let null = with(&row, &format!("/{key}"), Value::Null);
        let read: corpus::ShipmentEvent = serde_json::from_value(null.clone()).expect("null reads");
        assert_eq!(serde_json::to_value(&read).expect("writes"), null, "{key}: null round-trips");
    }
}

/// Generated enums parse and print their wire names.
#[test]
fn closed_sets_parse_and_print_their_wire_values() {
    use corpus::shipment_event::{RouteLegsItemMode, Status};
    assert_eq!(Status::VALUES, ["created", "in-transit", "delivered", "returned to sender"]);
    assert_eq!(Status::ALL.len(), Status::VALUES.len());
    for (value, text) in Status::ALL.iter().zip(Status::VALUES) {
        assert_eq!(value.as_str(), *text);
        assert_eq!(value.to_string(), *text);
        assert_eq!(text.parse::<Status>(), Ok(*value));
        assert_eq!(Status::try_from(*text), Ok(*value));
        assert_eq!(serde_json::to_value(value).expect("serializes"), json!(text), "serde agrees");
    }
    assert_eq!(Status::Returned.to_string(), "returned to sender");
    let error = "lost".parse::<Status>().expect_err("not a value");
    assert_eq!(error.text, "lost");
    assert_eq!(error.expected, Status::VALUES);
    assert!(RouteLegsItemMode::try_from("Road").is_err(), "values are case-sensitive");
    assert_eq!(RouteLegsItemMode::ALL.iter().map(ToString::to_string).collect::<Vec<_>>(), ["road", "rail", "air"]);
}

/// Fixture integers stay within the bounds and within ±2^53.
#[test]
fn fixture_integers_stay_within_their_bounds_and_2_pow_53() {
    let rows = corpus::ShipmentEvent::fixture_rows(&foundry_catalog_core::Slug::new(SLUG).expect("a slug"));
    let safe = foundry_catalog_core::MAX_SAFE_INTEGER;
    assert_eq!(rows.iter().map(|r| r.counter).collect::<Vec<_>>(), [safe - 1, safe, safe - 1]);
    assert!(rows.iter().all(|r| r.offset.is_some_and(|o| (-safe..=-safe + 2).contains(&o))));
    assert!(rows.iter().all(|r| (0.25..=0.5).contains(&r.progress)), "a fraction hint is moved into the bounds");
}

/// The validator holds a sample to the `" N"` row suffix at every depth,
/// where the fixtures apply it.
#[test]
fn the_row_suffix_is_checked_at_every_depth() {
    let schema = corpus::ShipmentEvent::SCHEMA;
    let mut rows: Vec<Value> = fixture::rows(&schema, SLUG).into_iter().map(Value::Object).collect();
    assert_eq!(rows[1]["route"]["legs"][1]["scans"][0]["scanner"], "Deterministic fixture scanner 2");
    rows[1]["route"]["legs"][1]["scans"][0]["scanner"] = json!("Deterministic fixture scanner 3");
    rows[2]["labels"][1] = json!("Deterministic fixture label");
    let pointers: Vec<String> =
        conformance::validate_rows(&schema, &rows, Some(SLUG)).into_iter().map(|v| v.pointer).collect();
    assert_eq!(pointers, ["/1/route/legs/1/scans/0/scanner", "/2/labels/1"]);
}

/// The response schema knowing a record type of one's own
/// (`json_schema::response_schema_with`) judges that type's rows as its
/// row schema does, and its preview by its definition: a body of each
/// corpus type (an example manifest relabelled, built as a catalog build
/// builds it) passes; a body whose first row is each case gets the row
/// schema's verdict; a preview with another description fails it. The
/// shipped response schema, which does not know the type, refuses its
/// rows (each row is one of the known record types' rows).
#[test]
fn the_response_schema_with_a_loaded_type_judges_its_rows_as_its_row_schema_does() {
    use foundry_catalog::product::ProductManifest;
    use foundry_catalog::response::ProductResponse;
    let shipped_only = compile(&json_schema::response_schema());
    let mut judged = 0;
    for t in corpus_types() {
        let types = std::slice::from_ref(&t.schema);
        let mut manifest: Value =
            serde_json::from_str(foundry_catalog::examples::MANIFESTS[0].1).expect("an example is JSON");
        manifest["record_label"] = json!(t.schema.record_label);
        let record = ProductManifest::from_json(&manifest.to_string())
            .expect("reads")
            .build_with(types)
            .unwrap_or_else(|e| panic!("{}: {e}", t.schema.record_label));
        let body: Value =
            serde_json::from_slice(&ProductResponse::body(&record, types).expect("conforms")).expect("JSON");
        let response = compile(&json_schema::response_schema_with(types));
        let rows = compile(&json_schema::record_type_schema(&t.schema));
        assert!(response.is_valid(&body), "{}: {:?}", t.schema.record_label, response.iter_errors(&body).next());
        for case in cases(&t.schema) {
            let mut one = body.clone();
            one["data"]["sample"]["rows"][0] = case.row.clone();
            assert_eq!(
                response.is_valid(&one),
                rows.is_valid(&case.row),
                "{}: {}: {}",
                t.schema.record_label,
                case.what,
                case.row
            );
            judged += 1;
        }
        let mut preview = body.clone();
        preview["data"]["schema_preview"]["fields"][0]["description"] = json!("Another meaning.");
        assert!(!response.is_valid(&preview), "{}: the preview is the definition's", t.schema.record_label);
        // Its rows are of no type the shipped schema knows: refused, as
        // `check` refuses a record type it does not know.
        assert!(!shipped_only.is_valid(&body), "{}: the shipped schema knows no such rows", t.schema.record_label);
    }
    assert!(judged > 500, "{judged} rows");
}
