//! Schema evolution: one before/after pair per change kind, each report
//! pinned; and properties: a definition compared with itself reports
//! nothing, and a change that leaves the canonical form alone never
//! changes the hash nor counts as breaking.

use foundry_catalog_build::diff::{ChangeKind, Compatibility, diff, policy_table};
use foundry_catalog_build::{CheckedType, Generator, Source};
use serde_json::{Value, json};

fn base() -> Value {
    json!({
        "record_label": "shipment_event",
        "description": "A parcel moved.",
        "sample_type": "deterministic_public_source_fixture",
        "fields": [
            {"name": "parcelId", "type": "string", "format": "key", "required": true, "description": "Parcel."},
            {"name": "weightKg", "type": "number", "required": true, "description": "Weight."},
            {"name": "note", "type": "string", "required": false, "description": "Free text."},
            {"name": "route", "type": "object", "required": false, "description": "Legs."},
            {"name": "pieces", "type": "integer", "minimum": 1, "maximum": 100, "required": true, "description": "Parcels in the shipment."},
            {"name": "tags", "type": "array", "items": {"type": "string"}, "min_items": 1, "max_items": 5, "required": true, "description": "Labels."},
            {"name": "sender", "type": "object", "required": true, "description": "Who sent it.", "fields": [
                {"name": "name", "type": "string", "required": true, "description": "Sender's name."},
                {"name": "country", "type": "string", "required": false, "description": "Sender's country."}
            ]},
            {"name": "priority", "type": "string", "enum": ["low", "high"], "required": true, "description": "How urgent."},
            {"name": "memo", "type": "string", "nullable": true, "required": false, "description": "A remark or null."}
        ]
    })
}

fn checked(definitions: &[Value], side: &str) -> Vec<CheckedType> {
    let sources: Vec<Source> = definitions
        .iter()
        .map(|d| Source::new(format!("{side}/{}.json", d["record_label"].as_str().unwrap_or_default()), d.to_string()))
        .collect();
    Generator::new().check(&sources).unwrap_or_else(|e| panic!("{e}"))
}

fn fields(d: &mut Value) -> &mut Vec<Value> {
    d["fields"].as_array_mut().expect("fields")
}

/// An edit of the new side's definitions.
type Edit = Box<dyn Fn(&mut Vec<Value>)>;

/// One edit per change kind, applied to the base definition.
fn edits() -> Vec<(&'static str, Edit)> {
    let edit = |f: fn(&mut Value)| -> Edit { Box::new(move |set: &mut Vec<Value>| f(&mut set[0])) };
    vec![
        (
            "type_added",
            Box::new(|set: &mut Vec<Value>| {
                let mut other = base();
                other["record_label"] = json!("depot_event");
                set.push(other);
            }),
        ),
        ("type_removed", Box::new(|set: &mut Vec<Value>| set.clear())),
        (
            "required_field_added",
            edit(|d| {
                fields(d).push(json!({"name": "carrier", "type": "string", "required": true, "description": "Who."}))
            }),
        ),
        (
            "optional_field_added",
            edit(|d| {
                fields(d).push(json!({"name": "carrier", "type": "string", "required": false, "description": "Who."}))
            }),
        ),
        (
            "required_field_removed",
            edit(|d| {
                fields(d).remove(1);
            }),
        ),
        (
            "optional_field_removed",
            edit(|d| {
                fields(d).remove(2);
            }),
        ),
        ("field_retyped", edit(|d| fields(d)[1]["type"] = json!("string"))),
        ("field_widened", edit(|d| fields(d)[4]["type"] = json!("number"))),
        ("field_narrowed", edit(|d| fields(d)[1]["type"] = json!("integer"))),
        ("field_made_optional", edit(|d| fields(d)[0]["required"] = json!(false))),
        ("field_made_required", edit(|d| fields(d)[2]["required"] = json!(true))),
        ("field_moved", edit(|d| fields(d).swap(0, 1))),
        ("digest_length_changed", edit(|d| d["digest_length"] = json!(40))),
        ("sample_type_changed", edit(|d| d["sample_type"] = json!("deterministic_executable_fixture"))),
        ("sample_rows_changed", edit(|d| d["sample_rows"] = json!(5))),
        ("format_added", edit(|d| fields(d)[2]["format"] = json!("text"))),
        ("format_removed", edit(|d| drop(fields(d)[0].as_object_mut().and_then(|f| f.remove("format"))))),
        ("format_changed", edit(|d| fields(d)[0]["format"] = json!("token"))),
        ("rust_name_changed", edit(|d| fields(d)[0]["rust_name"] = json!("tracking_code"))),
        ("fixture_changed", edit(|d| fields(d)[2]["fixture"] = json!({"text": "courier remark"}))),
        ("description_changed", edit(|d| fields(d)[0]["description"] = json!("Tracking number."))),
        ("possible_rename", edit(|d| fields(d)[2]["name"] = json!("remark"))),
        ("list_bounds_loosened", edit(|d| fields(d)[5]["max_items"] = json!(10))),
        ("list_bounds_tightened", edit(|d| fields(d)[5]["max_items"] = json!(3))),
        (
            "list_bounds_changed",
            edit(|d| {
                fields(d)[5]["min_items"] = json!(2);
                fields(d)[5]["max_items"] = json!(10);
            }),
        ),
        ("items_retyped", edit(|d| fields(d)[5]["items"]["type"] = json!("integer"))),
        (
            "nested_field_added",
            edit(|d| {
                let city = json!({"name": "city", "type": "string", "required": false, "description": "City."});
                fields(&mut fields(d)[6]).push(city);
            }),
        ),
        ("nested_field_retyped", edit(|d| fields(&mut fields(d)[6])[0]["type"] = json!("integer"))),
        ("nested_field_made_required", edit(|d| fields(&mut fields(d)[6])[1]["required"] = json!(true))),
        ("value_bounds_loosened", edit(|d| fields(d)[4]["maximum"] = json!(1000))),
        ("value_bounds_tightened", edit(|d| fields(d)[4]["minimum"] = json!(2))),
        ("value_minimum_lowered", edit(|d| fields(d)[4]["minimum"] = json!(0))),
        ("list_minimum_lowered", edit(|d| fields(d)[5]["min_items"] = json!(0))),
        (
            "value_bounds_changed",
            edit(|d| {
                fields(d)[4]["minimum"] = json!(0);
                fields(d)[4]["maximum"] = json!(50);
            }),
        ),
        ("value_bounds_removed", edit(|d| drop(fields(d)[4].as_object_mut().and_then(|f| f.remove("maximum"))))),
        ("enum_value_added", edit(|d| fields(d)[7]["enum"] = json!(["low", "high", "urgent"]))),
        ("enum_value_removed", edit(|d| fields(d)[7]["enum"] = json!(["low"]))),
        ("string_given_closed_set", edit(|d| fields(d)[2]["enum"] = json!(["fragile", "urgent"]))),
        ("made_nullable", edit(|d| fields(d)[1]["nullable"] = json!(true))),
        ("made_non_nullable", edit(|d| fields(d)[8]["nullable"] = json!(false))),
        (
            "open_object_given_fields",
            edit(|d| {
                fields(d)[3]["fields"] =
                    json!([{"name": "legs", "type": "integer", "required": true, "description": "Legs."}])
            }),
        ),
    ]
}

#[test]
fn every_change_kind_has_a_pinned_report() {
    let old = checked(&[base()], "old");
    let mut seen = Vec::new();
    for (name, edit) in edits() {
        let mut definitions = vec![base()];
        edit(&mut definitions);
        let report = diff(&old, &checked(&definitions, "new"));
        assert!(!report.changes.is_empty(), "{name}: no change reported");
        seen.extend(report.changes.iter().map(|c| c.kind));
        insta::assert_snapshot!(format!("diff_{name}"), report.to_text());
    }
    for kind in ChangeKind::ALL {
        assert!(seen.contains(kind), "no pair for {kind}");
    }
}

#[test]
fn a_rename_is_reported_as_both_with_a_note() {
    let mut renamed = base();
    fields(&mut renamed)[2]["name"] = json!("remark");
    let report = diff(&checked(&[base()], "old"), &checked(&[renamed], "new"));
    let kinds: Vec<ChangeKind> = report.changes.iter().map(|c| c.kind).collect();
    assert_eq!(kinds, [ChangeKind::OptionalFieldAdded, ChangeKind::OptionalFieldRemoved]);
    assert!(report.changes.iter().all(|c| c.note.as_deref().is_some_and(|n| n.contains("possible rename"))));
}

#[test]
fn reordering_a_closed_set_changes_nothing() {
    let mut reordered = base();
    fields(&mut reordered)[7]["enum"] = json!(["high", "low"]);
    let (old, new) = (checked(&[base()], "old"), checked(&[reordered], "new"));
    let report = diff(&old, &new);
    assert_eq!(report.changes, [], "a closed set is a set");
    assert_eq!(old[0].schema.schema_hash, new[0].schema.schema_hash);
}

#[test]
fn modes_gate_what_they_forbid() {
    let mut added = base();
    fields(&mut added).push(json!({"name": "carrier", "type": "string", "required": false, "description": "Who."}));
    let report = diff(&checked(&[base()], "old"), &checked(&[added], "new"));
    assert_eq!(report.violations(Compatibility::Full, true).len(), 1, "strict readers reject the new key");
    assert!(report.violations(Compatibility::Backward, true).is_empty());
    assert_eq!(report.violations(Compatibility::Forward, true).len(), 1);
    assert!(report.violations(Compatibility::Full, false).is_empty(), "tolerant readers ignore it");
}

/// docs/evolution.md's policy table sits between these two marker lines and
/// is written by `diff::policy_table()`, never by hand.
const EVOLUTION_DOC: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../docs/evolution.md");
const POLICY_BEGIN: &str = "<!-- BEGIN policy table:";
const POLICY_END: &str = "<!-- END policy table -->";
/// The one way the doc is written.
const POLICY_BLESS: &str = "FOUNDRY_CATALOG_BLESS=1 cargo test -p foundry-catalog-build --test generator the_evolution_policy_shows_the_policy_table";

/// Where the generated section of `doc` starts (the line after the BEGIN
/// marker) and ends (the END marker).
fn policy_section(doc: &str) -> std::ops::Range<usize> {
    let (Some(begin), Some(end)) = (doc.find(POLICY_BEGIN), doc.find(POLICY_END)) else {
        panic!(
            "docs/evolution.md lacks the marker lines `{POLICY_BEGIN} …` and `{POLICY_END}` around the policy table"
        );
    };
    let start = doc[begin..].find('\n').map_or(doc.len(), |i| begin + i + 1);
    assert!(start <= end, "docs/evolution.md: `{POLICY_END}` comes before `{POLICY_BEGIN} …`");
    start..end
}

/// `cargo test` only compares the section between the markers with
/// `policy_table()`, exactly (not "contains": text pasted around the table
/// passed that); with `FOUNDRY_CATALOG_BLESS=1` it first writes the section,
/// and nothing else of the doc. A failure names the first differing line,
/// not the whole table, so its output (with `RUST_BACKTRACE` set, a
/// backtrace follows the message) offers nothing to paste into the doc,
/// which is how three backtraces once got there; and test output anywhere
/// in the doc fails the test.
#[test]
fn the_evolution_policy_shows_the_policy_table() {
    let mut doc = std::fs::read_to_string(EVOLUTION_DOC).expect("docs/evolution.md");
    let expected = format!("\n{}\n", policy_table());
    let mut section = policy_section(&doc);

    if std::env::var_os("FOUNDRY_CATALOG_BLESS").is_some_and(|v| v == "1") && doc[section.clone()] != expected {
        doc = format!("{}{expected}{}", &doc[..section.start], &doc[section.end..]);
        // The whole file or nothing: written beside the doc, then renamed over it.
        let tmp = format!("{EVOLUTION_DOC}.tmp");
        std::fs::write(&tmp, &doc).expect("write docs/evolution.md.tmp");
        std::fs::rename(&tmp, EVOLUTION_DOC).expect("replace docs/evolution.md");
        eprintln!("wrote docs/evolution.md's policy table from diff::policy_table()");
        section = policy_section(&doc);
    }

    let pasted = ["stack backtrace:", "panicked at", "rust_begin_unwind"];
    if let Some(found) = pasted.iter().find(|p| doc.contains(*p)) {
        panic!(
            "docs/evolution.md holds pasted test output (`{found}`): delete it (inside the policy table's markers, \
             `{POLICY_BLESS}` does)"
        );
    }
    if doc[section.clone()] != expected {
        let (doc_lines, code_lines): (Vec<&str>, Vec<&str>) =
            (doc[section].lines().collect(), expected.lines().collect());
        let at = doc_lines
            .iter()
            .zip(&code_lines)
            .position(|(d, c)| d != c)
            .unwrap_or(doc_lines.len().min(code_lines.len()));
        let line = |lines: &[&str]| lines.get(at).map_or_else(|| "(nothing)".to_owned(), |l| format!("{l:?}"));
        panic!(
            "docs/evolution.md's policy table is not what diff::policy_table() writes; first difference, line {} \
             after the BEGIN marker:\n  doc:  {}\n  code: {}\nThe table is generated, not edited by hand: \
             regenerate it with `{POLICY_BLESS}` and commit the result.",
            at + 1,
            line(&doc_lines),
            line(&code_lines),
        );
    }
}

mod properties {
    use foundry_catalog_build::diff::{Compatibility, diff};
    use proptest::prelude::*;
    use serde_json::json;

    use super::{base, checked, fields};

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]

        #[test]
        fn a_definition_compared_with_itself_reports_nothing(pick in 0usize..4, required in any::<bool>()) {
            let mut d = base();
            fields(&mut d)[pick]["required"] = json!(required);
            let side = checked(&[d], "same");
            let report = diff(&side, &side);
            prop_assert!(report.changes.is_empty() && report.hashes.is_empty());
        }

        #[test]
        fn prose_fixture_and_sample_edits_keep_the_hash_and_break_no_reader(
            pick in 0usize..4,
            description in "[A-Za-z][A-Za-z ]{0,20}",
            rows in 1u64..10,
            executable in any::<bool>(),
        ) {
            let mut new = base();
            fields(&mut new)[pick]["description"] = json!(description);
            new["description"] = json!(format!("{description}."));
            new["sample_rows"] = json!(rows);
            if executable {
                new["sample_type"] = json!("deterministic_executable_fixture");
            }
            let (old, new) = (checked(&[base()], "old"), checked(&[new], "new"));
            prop_assert_eq!(&old[0].schema.schema_hash, &new[0].schema.schema_hash);
            let report = diff(&old, &new);
            prop_assert!(report.hashes.is_empty());
            prop_assert!(report.changes.iter().all(|c| !c.changes_hash && c.strict == Compatibility::Full));
        }
    }
}
