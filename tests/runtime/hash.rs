//! The schema-hash rule: what changes the hash and what does not.

use std::borrow::Cow;

use foundry_catalog::hash::{canonical_json, schema_hash};
use foundry_catalog::{DigestLength, FieldDescriptor, FieldType, FixtureHint};

fn fields() -> Vec<FieldDescriptor> {
    vec![
        FieldDescriptor::new("entityName", FieldType::String, true, "Who.", None, None),
        FieldDescriptor::new(
            "confidence",
            FieldType::Number,
            true,
            "How sure.",
            Some(FixtureHint::Fraction(0.5)),
            None,
        ),
        FieldDescriptor::new("payload", FieldType::Object, false, "What.", None, None),
    ]
}

fn hash(fields: &[FieldDescriptor]) -> String {
    schema_hash("example_record", fields, DigestLength::Hex64)
}

#[test]
fn prose_and_fixture_hints_do_not_change_the_hash() {
    let base = hash(&fields());
    let mut f = fields();
    f[0].description = Cow::Borrowed("Someone else entirely.");
    assert_eq!(hash(&f), base);
    f[1].fixture = Some(FixtureHint::Sequence);
    f[2].fixture = Some(FixtureHint::Absent);
    assert_eq!(hash(&f), base);
}

#[test]
fn every_contract_change_changes_the_hash() {
    let base = hash(&fields());
    let mut renamed = fields();
    renamed[0].name = Cow::Borrowed("entity_name");
    let mut retyped = fields();
    retyped[1].field_type = FieldType::String;
    let mut reordered = fields();
    reordered.swap(0, 1);
    let mut optional = fields();
    optional[0].required = false;
    let mut dropped = fields();
    dropped.pop();
    for changed in [renamed, retyped, reordered, optional, dropped] {
        assert_ne!(hash(&changed), base);
    }
    assert_ne!(schema_hash("other_record", &fields(), DigestLength::Hex64), base);
}

#[test]
fn a_40_character_digest_is_the_prefix_of_the_64_character_one() {
    let full = hash(&fields());
    let short = schema_hash("example_record", &fields(), DigestLength::Hex40);
    assert_eq!(full.len(), 64);
    assert_eq!(short.len(), 40);
    assert!(full.starts_with(&short));
    assert!(full.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b)));
}

#[test]
fn canonical_form_is_jcs_for_awkward_strings() {
    // Control characters escape as lowercase \u00xx, non-ASCII and DEL stay verbatim (RFC 8785 §3.2.2.2).
    let f = [FieldDescriptor::new("a\"b\\c\u{1f}\u{7f}é\u{2028}", FieldType::String, true, "x", None, None)];
    assert_eq!(
        canonical_json("l", &f),
        "{\"fields\":[{\"name\":\"a\\\"b\\\\c\\u001f\u{7f}é\u{2028}\",\"required\":true,\"type\":\"string\"}],\"record_label\":\"l\"}"
    );
}
