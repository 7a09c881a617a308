//! Rust names from wire names.
//!
//! Keyword policy (prost's): a field whose snake_case name is a Rust keyword
//! becomes a raw identifier (`type` → `r#type`, `gen` → `r#gen`), except
//! `self`, `super`, `crate` and `Self`, which cannot be raw and get a `_`
//! suffix (`self_`). A name that starts with a digit gets a `_` prefix
//! (`2fa` → `_2fa`). The wire name is always kept through
//! `#[serde(rename = "…")]` when it differs from the Rust name.
//!
//! A nested object's struct is named after its path, each field on the
//! way in UpperCamelCase, with `Item` for a list's items (`offers` › items
//! › `seller` → `OffersItemSeller`), and declared in a module named after
//! the record label (`price_observation::OffersItemSeller`), as prost puts
//! nested messages in a module named after their parent. Names therefore
//! never clash across record types; two paths of one record type that give
//! one name are an error naming both.

use foundry_catalog_core::FieldDescriptor;
use heck::{ToSnakeCase, ToUpperCamelCase};

/// Every Rust keyword, strict and reserved, up to edition 2024.
pub(crate) const KEYWORDS: &[&str] = &[
    "abstract", "as", "async", "await", "become", "box", "break", "const", "continue", "crate", "do", "dyn", "else",
    "enum", "extern", "false", "final", "fn", "for", "gen", "if", "impl", "in", "let", "loop", "macro", "match", "mod",
    "move", "mut", "override", "priv", "pub", "ref", "return", "self", "Self", "static", "struct", "super", "trait",
    "true", "try", "type", "typeof", "unsafe", "unsized", "use", "virtual", "where", "while", "yield",
];

/// Keywords that cannot be raw identifiers.
const NOT_RAW: &[&str] = &["self", "Self", "super", "crate"];

/// Whether a record label has the required `lowercase_underscore` form.
pub(crate) fn is_record_label(label: &str) -> bool {
    foundry_catalog_core::is_lowercase_underscore(label)
}

/// Whether a wire name can name a field: ASCII letters, digits, `_` and
/// `-`, with at least one letter or digit.
pub(crate) fn is_wire_name(name: &str) -> bool {
    name.bytes().any(|b| b.is_ascii_alphanumeric())
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_' || b == b'-')
}

/// The struct name of a record label: UpperCamelCase
/// (`regulatory_status_signal` → `RegulatoryStatusSignal`). `None` when
/// the name is a keyword (`self` → `Self`).
pub(crate) fn type_name(label: &str) -> Option<String> {
    let name = label.to_upper_camel_case();
    (!name.is_empty() && !KEYWORDS.contains(&name.as_str())).then_some(name)
}

/// The Rust field name of a wire name, as it is written in source
/// (possibly `r#…`). `None` when nothing usable is left.
pub(crate) fn field_name(wire: &str) -> Option<String> {
    let snake = wire.to_snake_case();
    let first = snake.chars().next()?;
    Some(if NOT_RAW.contains(&snake.as_str()) {
        format!("{snake}_")
    } else if KEYWORDS.contains(&snake.as_str()) {
        format!("r#{snake}")
    } else if first.is_ascii_digit() {
        format!("_{snake}")
    } else {
        snake
    })
}

/// An explicit `rust_name` from a definition, checked like any generated
/// name: a snake_case identifier (ASCII lowercase letters, digits and `_`,
/// not starting with a digit), a keyword only as a raw identifier
/// (`r#type`). Returned as written in source.
pub(crate) fn explicit_field_name(name: &str) -> Option<String> {
    let bare = name.strip_prefix("r#").unwrap_or(name);
    let snake = bare.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'_');
    (snake && is_identifier(name)).then(|| name.to_owned())
}

/// The name serde sees for a Rust field name (without `r#`).
pub(crate) fn unraw(name: &str) -> &str {
    name.strip_prefix("r#").unwrap_or(name)
}

/// Whether `name` is a Rust identifier as generated code writes one: ASCII
/// letters, digits and `_`, not starting with a digit, not `_` alone, and
/// either not a keyword or a raw identifier (`r#type`) of a keyword that
/// can be raw.
pub(crate) fn is_identifier(name: &str) -> bool {
    let (raw, bare) = match name.strip_prefix("r#") {
        Some(bare) => (true, bare),
        None => (false, name),
    };
    let well_formed = bare.bytes().next().is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && bare.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_')
        && bare != "_";
    well_formed && if raw { !NOT_RAW.contains(&bare) } else { !KEYWORDS.contains(&bare) }
}

/// The Rust name of a field: its `rust_name` when it has one (checked),
/// otherwise the one made from its wire name; or what is wrong, with a
/// hint.
pub(crate) fn rust_field_name(field: &FieldDescriptor) -> Result<String, (String, &'static str)> {
    match &field.rust_name {
        Some(explicit) => explicit_field_name(explicit).ok_or_else(|| {
            (
                format!("`rust_name` {explicit:?} is not a Rust field name"),
                "write a snake_case identifier such as `self_type`; a keyword that can be raw is written `r#type`",
            )
        }),
        None => {
            field_name(&field.name).ok_or(("the name leaves no Rust identifier".to_owned(), "use a name with letters"))
        }
    }
}

/// The struct of a nested object: its parent object's struct name (empty
/// for the record) followed by the field's name in UpperCamelCase (`` +
/// `seller` → `Seller`, `Seller` + `address` → `SellerAddress`). `None`
/// when that leaves no name, a keyword, or a name starting with a digit.
pub(crate) fn nested_type_name(parent: &str, field: &str) -> Option<String> {
    let name = format!("{parent}{}", field.to_upper_camel_case());
    is_identifier(&name).then_some(name)
}

/// The module that holds a record type's nested structs: its label, as
/// a field name would be written (`r#type` for a keyword label).
pub(crate) fn module_name(label: &str) -> Option<String> {
    field_name(label)
}

/// The struct of a list's object items: the list's name followed by
/// `Item` (`Offers` → `OffersItem`).
pub(crate) fn item_type_name(list: &str) -> String {
    format!("{list}Item")
}

/// The Rust variant of a closed set's value: its UpperCamelCase (`used` →
/// `Used`, `like-new` → `LikeNew`), with a `V` before a leading digit
/// (`2nd` → `V2nd`) and `Self_` for the one keyword an UpperCamelCase name
/// can be (`self` → `Self_`, as fields get `self_`). `None` when that
/// leaves no identifier (a value of punctuation only, or of letters outside
/// ASCII): the definition names it with `rust_name`.
pub(crate) fn variant_name(value: &str) -> Option<String> {
    let name = value.to_upper_camel_case();
    let name = if name.starts_with(|c: char| c.is_ascii_digit()) {
        format!("V{name}")
    } else if NOT_RAW.contains(&name.as_str()) {
        format!("{name}_")
    } else {
        name
    };
    is_identifier(&name).then_some(name)
}
