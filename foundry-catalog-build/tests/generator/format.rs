//! prettyplease is the formatter of record: the generator writes its text
//! directly (no tokens, no `syn` parse, no prettyplease at build time), and
//! these tests hold that text to what prettyplease prints for it, byte for
//! byte, on the corpus, on widths swept across every line-breaking
//! boundary, and on random definitions.

use std::borrow::Cow;

use foundry_catalog_build::{Generator, Source};
use foundry_catalog_core::{FieldDescriptor, FieldType, FixtureHint};
use proptest::prelude::*;
use serde_json::json;

/// Generated code without its `//` header and the blank lines between
/// items, which prettyplease does not print (it drops comments and
/// separates items by a line break only).
fn without_header_and_blank_lines(code: &str) -> String {
    code.lines()
        .filter(|l| !l.is_empty() && (!l.starts_with("//") || l.starts_with("///")))
        .map(|l| format!("{l}\n"))
        .collect()
}

/// Fails with the first differing line when prettyplease would print the
/// generated code differently.
pub(crate) fn assert_formatted_as_prettyplease(code: &str) {
    let file = syn::parse_file(code).unwrap_or_else(|e| panic!("generated code parses: {e}\n{code}"));
    let expected = prettyplease::unparse(&file);
    let written = without_header_and_blank_lines(code);
    if written != expected {
        let at = written.lines().zip(expected.lines()).position(|(a, b)| a != b).unwrap_or(0);
        let context = |text: &str| text.lines().skip(at.saturating_sub(3)).take(8).collect::<Vec<_>>().join("\n");
        panic!(
            "generated text differs from prettyplease at line {}:\n--- written\n{}\n--- prettyplease\n{}",
            at + 1,
            context(&written),
            context(&expected)
        );
    }
}

fn definition(label: &str, description: &str, fields: &[FieldDescriptor]) -> String {
    json!({
        "record_label": label,
        "description": description,
        "sample_type": "deterministic_executable_fixture",
        "fields": fields,
    })
    .to_string()
}

/// A field descriptor without a format or Rust name.
pub(crate) fn field(
    name: &str,
    field_type: FieldType,
    required: bool,
    description: &str,
    fixture: Option<FixtureHint>,
) -> FieldDescriptor {
    FieldDescriptor {
        name: Cow::Owned(name.to_owned()),
        description: Cow::Owned(description.to_owned()),
        ..FieldDescriptor::new("", field_type, required, "", fixture, None)
    }
}

#[test]
fn corpus_output_is_what_prettyplease_prints() {
    let root = crate::root();
    let sources = Source::read_dir(root, "tests/corpus/good").expect("corpus reads");
    for runtime in ["::foundry_catalog", "crate", "::a_runtime_path_long_enough::to_push_every_line::past_the_margin"] {
        let code = Generator::new().runtime_path(runtime).generate(&sources).expect("corpus generates");
        assert_formatted_as_prettyplease(&code);
    }
    let shipped = Source::read_dir(root, "record-types").expect("shipped types read");
    assert_formatted_as_prettyplease(&Generator::new().generate(&shipped).expect("shipped types generate"));
}

/// Every construct that may break (the serde attribute, a field's type, a
/// descriptor call and its nested hint, the impl header, the registry)
/// at every width from well inside to well past the margin.
#[test]
fn every_width_across_the_margin_is_what_prettyplease_prints() {
    let hints = |width: usize| {
        let text = "x".repeat(width);
        [
            None,
            Some(FixtureHint::Text(Cow::Owned(format!("p {text}")))),
            Some(FixtureHint::Token(Cow::Owned(text.clone()))),
            Some(FixtureHint::Url(Cow::Owned(format!("https://{text}.example")))),
            Some(FixtureHint::Payload(Cow::Owned(text))),
            Some(FixtureHint::Fraction(0.125)),
            Some(FixtureHint::Sequence),
        ]
    };
    for width in 1..=90 {
        let name = format!("f{}", "a".repeat(width));
        let mut fields = Vec::new();
        for (i, hint) in hints(width).into_iter().enumerate() {
            let field_type = match &hint {
                Some(FixtureHint::Payload(_)) => FieldType::Object,
                Some(FixtureHint::Fraction(_) | FixtureHint::Sequence) => FieldType::Number,
                _ => FieldType::String,
            };
            let description = format!("D{}.", "d".repeat(width));
            fields.push(field(&format!("{name}{i}"), field_type, i % 2 == 0, &description, hint.clone()));
            fields.push(field(&format!("{name}Opt{i}"), field_type, false, "Optional.", hint));
        }
        fields.push(field(&format!("{name}Obj"), FieldType::Object, false, "An object.", None));
        let label = format!("t_{}", "l".repeat(width));
        let source = Source::new(format!("w/{label}.json"), definition(&label, "Swept widths.", &fields));
        for runtime in ["::foundry_catalog", "crate"] {
            let code = Generator::new()
                .runtime_path(runtime)
                .generate(std::slice::from_ref(&source))
                .unwrap_or_else(|e| panic!("width {width} generates: {e}"));
            assert_formatted_as_prettyplease(&code);
        }
    }
}

/// Hints with phrases, tokens and URLs up to past the margin.
fn hint(ty: FieldType, required: bool) -> BoxedStrategy<Option<FixtureHint>> {
    foundry_catalog_strategies::hint_sized(ty, required, true)
}

/// Fields with names and descriptions of any length up to past the margin,
/// descriptions with quotes, backslashes, Markdown and non-ASCII text,
/// lists and nested objects two deep.
fn fields() -> impl Strategy<Value = Vec<FieldDescriptor>> {
    foundry_catalog_strategies::nested_fields(
        "[a-zA-Z][a-zA-Z0-9_-]{0,90}",
        "[A-Za-z][A-Za-z0-9 ,.\"\\\\<>\\[\\]`é€]{0,120}",
        hint,
        1..8,
        2,
    )
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, failure_persistence: None, ..ProptestConfig::default() })]

    #[test]
    fn random_definitions_are_what_prettyplease_prints(
        label in "[a-z][a-z0-9]{0,40}(_[a-z0-9]{1,20}){0,3}",
        description in "[A-Za-z .]{0,200}",
        fields in fields(),
        runtime in prop_oneof![Just("::foundry_catalog"), Just("crate"), Just("::r::s"), Just("::some_crate::with_a_long::runtime_module_path")],
    ) {
        let source = Source::new(format!("p/{label}.json"), definition(&label, &description, &fields));
        let code = Generator::new().runtime_path(runtime).generate(&[source]);
        // Random names may collide or be keywords as struct names; only
        // what generates is compared.
        if let Ok(code) = code {
            assert_formatted_as_prettyplease(&code);
        }
    }
}
