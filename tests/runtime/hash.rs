//! The schema-hash rule: what changes the hash and what does not.

use std::borrow::Cow;

use foundry_catalog_core::hash::{canonical_json, schema_hash};
use foundry_catalog_core::{DigestLength, FieldDescriptor, FieldType, FixtureHint};

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

/// RFC 8785 Appendix B: IEEE 754 doubles (by their bits) and how JCS
/// writes them, the numbers `minimum` and `maximum` bring into the
/// canonical form.
#[test]
fn canonical_numbers_are_written_as_rfc_8785_shows() {
    let examples: [(u64, &str); 24] = [
        (0x0000000000000000, "0"),
        (0x8000000000000000, "0"),
        (0x0000000000000001, "5e-324"),
        (0x8000000000000001, "-5e-324"),
        (0x7fefffffffffffff, "1.7976931348623157e+308"),
        (0xffefffffffffffff, "-1.7976931348623157e+308"),
        (0x4340000000000000, "9007199254740992"),
        (0xc340000000000000, "-9007199254740992"),
        (0x4430000000000000, "295147905179352830000"),
        (0x44b52d02c7e14af5, "9.999999999999997e+22"),
        (0x44b52d02c7e14af6, "1e+23"),
        (0x44b52d02c7e14af7, "1.0000000000000001e+23"),
        (0x444b1ae4d6e2ef4e, "999999999999999700000"),
        (0x444b1ae4d6e2ef4f, "999999999999999900000"),
        (0x444b1ae4d6e2ef50, "1e+21"),
        (0x3eb0c6f7a0b5ed8c, "9.999999999999997e-7"),
        (0x3eb0c6f7a0b5ed8d, "0.000001"),
        (0x41b3de4355555553, "333333333.3333332"),
        (0x41b3de4355555554, "333333333.33333325"),
        (0x41b3de4355555555, "333333333.3333333"),
        (0x41b3de4355555556, "333333333.3333334"),
        (0x41b3de4355555557, "333333333.33333343"),
        (0xbecbf647612f3696, "-0.0000033333333333333333"),
        (0x43143ff3c1cb0959, "1424953923781206.2"),
    ];
    for (bits, expected) in examples {
        assert_eq!(foundry_catalog_core::hash::es_number(f64::from_bits(bits)), expected, "{bits:016x}");
    }
}

#[test]
fn bounds_enter_the_canonical_form_as_jcs_numbers() {
    let mut fields = fields();
    fields[1].minimum = Some(0.000001);
    fields[1].maximum = Some(1e21);
    let canonical = canonical_json("example_record", &fields);
    assert!(
        canonical
            .contains(r#"{"maximum":1e+21,"minimum":0.000001,"name":"confidence","required":true,"type":"number"}"#),
        "{canonical}"
    );
}
