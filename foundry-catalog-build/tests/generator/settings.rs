//! Generator settings: extra derives on every type and attributes on one
//! type or field by address. What they add is printed as prettyplease
//! prints it; what cannot apply fails naming the setting. (The corpus crate
//! `tests/compile-check` compiles code generated with settings and uses
//! what they add.)

use foundry_catalog_build::{Generator, Source};
use proptest::prelude::*;

use crate::format::assert_formatted_as_prettyplease;

/// Words that are no path segments.
const KEYWORDS: &[&str] = &[
    "as", "async", "await", "box", "break", "const", "continue", "crate", "do", "dyn", "else", "enum", "extern",
    "false", "final", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "macro", "match", "mod", "move", "mut",
    "override", "priv", "pub", "ref", "return", "self", "static", "struct", "super", "trait", "true", "try", "type",
    "typeof", "unsafe", "unsized", "use", "virtual", "where", "while", "yield", "abstract", "become",
];

const DEFINITION: &str = include_str!("../../../tests/corpus/good/price_observation.json");

fn source() -> Source {
    Source::new("tests/corpus/good/price_observation.json", DEFINITION)
}

/// Every error of generating with `generator`, one a line.
fn errors(generator: Generator) -> String {
    match generator.generate(&[source()]) {
        Ok(_) => "generated".to_owned(),
        Err(e) => e.to_string(),
    }
}

#[test]
fn attributes_land_on_the_addressed_type_and_field() {
    let code = Generator::new()
        .derive("schemars::JsonSchema")
        .type_attribute("price_observation", "#[serde(deny_unknown_fields)]")
        .type_attribute("price_observation.seller.address", "#[non_exhaustive] #[serde(rename_all = \"camelCase\")]")
        .type_attribute("price_observation.offers[]", "#[cfg_attr(feature = \"x\", derive(Default))]")
        .type_attribute("price_observation.condition", "#[repr(u8)]")
        .field_attribute("price_observation.seller.name", "#[serde(alias = \"displayName\")]")
        .field_attribute("price_observation.offers[].price", "#[allow(clippy::float_cmp)]")
        .generate(&[source()])
        .unwrap_or_else(|e| panic!("{e}"));
    assert_formatted_as_prettyplease(&code);
    let before = |marker: &str, item: &str| {
        let at = code.find(item).unwrap_or_else(|| panic!("{item} in the code"));
        code[..at]
            .rfind(marker)
            .is_some_and(|m| !code[m..at].contains("pub struct") && !code[m..at].contains("pub enum"))
    };
    assert!(before("#[serde(deny_unknown_fields)]", "pub struct PriceObservation {"));
    assert!(before("#[non_exhaustive]", "pub struct SellerAddress {"));
    assert!(before("#[serde(rename_all = \"camelCase\")]", "pub struct SellerAddress {"));
    assert!(before("#[cfg_attr(feature = \"x\", derive(Default))]", "pub struct OffersItem {"));
    assert!(before("#[repr(u8)]", "pub enum Condition {"));
    assert!(code.contains("#[serde(alias = \"displayName\")]\n        pub name: ::std::string::String,"));
    assert!(code.contains("#[allow(clippy::float_cmp)]\n        pub price: f64,"));
    assert_eq!(code.matches("schemars::JsonSchema").count(), 6, "every struct and enum derives it");
}

#[test]
fn settings_that_cannot_apply_fail_naming_the_setting() {
    insta::assert_snapshot!(
        "settings_errors",
        [
            errors(Generator::new().derive("Eq")),
            errors(Generator::new().derive("Ord").derive("Hash")),
            errors(Generator::new().derive("Default").derive("Copy")),
            errors(Generator::new().derive("not a path").derive("Debug")),
            errors(Generator::new().type_attribute("price_observation.sellr", "#[non_exhaustive]")),
            errors(Generator::new().field_attribute("price_observation.seller.nme", "#[serde(default)]")),
            errors(Generator::new().type_attribute("nothing_here", "#[non_exhaustive]")),
            errors(Generator::new().type_attribute("price_observation", "#[serde(deny_unknown_fields")),
            errors(Generator::new().type_attribute("price_observation", "serde(deny_unknown_fields)")),
            errors(Generator::new().type_attribute("price_observation", "#[doc = \"More.\"]")),
            errors(Generator::new().type_attribute("price_observation", "#[serde[x]]")),
            errors(Generator::new().field_attribute("price_observation.tags", "#[serde(, x)]")),
            errors(Generator::new().type_attribute("price_observation", "#[derive(Eq)]")),
            errors(Generator::new().type_attribute("price_observation.offers[]", "#[derive(::std::hash::Hash, Copy)]")),
            errors(Generator::new().type_attribute("price_observation.condition", "#[derive(Default)]")),
        ]
        .join("\n")
    );
}

#[test]
fn a_type_attribute_derives_what_its_type_can_have() {
    let code = Generator::new()
        .type_attribute("price_observation.seller.address", "#[derive(Eq, Hash, Default)]")
        .type_attribute("price_observation.condition", "#[derive(PartialOrd, Ord)]")
        .generate(&[source()])
        .expect("the address's fields can have them");
    assert!(code.contains("#[derive(Eq, Hash, Default)]\n    pub struct SellerAddress"), "{code}");
    // A struct holding another derives what it does only when that one does.
    let both = Generator::new()
        .type_attribute("price_observation.seller", "#[derive(Eq)]")
        .type_attribute("price_observation.seller.address", "#[derive(Eq)]")
        .generate(&[source()]);
    assert!(both.is_ok(), "{both:?}");
    let one = errors(Generator::new().type_attribute("price_observation.seller", "#[derive(Eq)]"));
    assert!(
        one.contains("`price_observation.seller.address` is the struct `SellerAddress`, which does not derive `Eq`"),
        "{one}"
    );
}

#[test]
fn a_type_that_can_have_a_derive_gets_it() {
    let definition = r#"{"record_label": "tally", "sample_type": "deterministic_executable_fixture", "fields": [
        {"name": "count", "type": "integer", "required": true, "description": "How many."},
        {"name": "label", "type": "string", "enum": ["a", "b"], "required": false, "description": "Which."},
        {"name": "when", "type": "string", "format": "date", "required": true, "description": "Day."},
        {"name": "parts", "type": "array", "items": {"type": "object", "fields": [
            {"name": "code", "type": "string", "required": true, "description": "Code."}]}, "required": true, "description": "Parts."}]}"#;
    let generator = Generator::new().derive("Eq").derive("Hash").derive("PartialOrd").derive("Ord");
    let code = generator.generate(&[Source::new("t/tally.json", definition)]).unwrap_or_else(|e| panic!("{e}"));
    assert_formatted_as_prettyplease(&code);
    assert_eq!(code.matches("::std::cmp::Ord").count(), 3, "the record, the part struct and the closed set");
    // The closed set has Eq and Hash already, and gets them once.
    let enum_at = code.find("pub enum").unwrap_or(0);
    let enum_derive = &code[code[..enum_at].rfind("#[derive(").unwrap_or(0)..enum_at];
    assert_eq!(enum_derive.matches("::std::cmp::Eq").count(), 1, "{enum_derive}");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 64, failure_persistence: None, ..ProptestConfig::default() })]

    /// Attribute text of every shape, at every length, is printed as
    /// prettyplease prints it.
    #[test]
    fn attributes_are_printed_as_prettyplease_prints_them(
        words in prop::collection::vec("[a-z][a-z_]{0,29}".prop_filter("not a keyword", |w| !KEYWORDS.contains(&w.as_str())), 1..6),
        value in "[a-zA-Z ]{0,60}",
        nested in any::<bool>(),
    ) {
        let mut args: Vec<String> = words.iter().map(|w| format!("{w} = \"{value}\"")).collect();
        if nested {
            args.push(format!("{}({})", words[0], words.join(", ")));
        }
        let attribute = format!("#[{}({})] #[{}]", words[0], args.join(", "), words.join("::"));
        let code = Generator::new()
            .type_attribute("price_observation.seller", attribute.clone())
            .field_attribute("price_observation.offers[].price", attribute)
            .generate(&[source()]);
        let code = code.map_err(|e| TestCaseError::fail(e.to_string()))?;
        assert_formatted_as_prettyplease(&code);
    }
}

/// A nested type is named after the Rust names of the fields on its path:
/// a `rust_name` on a nested object renames its struct too, which is how
/// two nested objects whose wire names make the same struct name are told
/// apart without changing the wire.
#[test]
fn a_rust_name_names_a_nested_objects_struct() {
    let definition = include_str!("../../../tests/corpus/bad/nested_struct_collision.json");
    let collides = Generator::new().generate(&[Source::new("nested_struct_collision.json", definition)]);
    let error = collides.err().map(|e| e.to_string()).unwrap_or_default();
    assert!(error.contains("already is") && error.contains("rust_name"), "{error}");
    let renamed = definition.replacen(
        "{ \"name\": \"seller_address\", \"type\": \"object\",",
        "{ \"name\": \"seller_address\", \"rust_name\": \"mailing_address\", \"type\": \"object\",",
        1,
    );
    assert_ne!(renamed, definition);
    let code = Generator::new()
        .generate(&[Source::new("nested_struct_collision.json", renamed.as_str())])
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(code.contains("pub struct SellerAddress {"), "the nested one keeps its name");
    assert!(code.contains("pub struct MailingAddress {"), "the renamed one is named after its rust_name");
    assert!(code.contains("pub mailing_address: nested_struct_collision::MailingAddress"), "{code}");
    assert!(code.contains("#[serde(rename = \"seller_address\")]"), "the wire name is kept");
}
