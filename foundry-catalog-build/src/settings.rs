//! Generator settings that reach the generated code, as prost-build's
//! `type_attribute` / `field_attribute` and typify's `with_derive` give
//! them: extra derives on every generated type, and attributes on one
//! type or field addressed by its path.
//!
//! Everything is checked before it reaches the output: attribute text is
//! tokenized with `proc-macro2` and must be outer attributes of the form
//! `#[path]`, `#[path = literal]` or `#[path(…)]`; a derive must be a path,
//! and one of the standard derives is refused where a field's type cannot
//! have it (`Eq` beside an `f64`); an address that matches nothing is an
//! error. The attributes are printed the way prettyplease prints them.
//!
//! Addresses: a record type by its label (`price_observation`), a nested
//! object or a closed set by the field names on its path
//! (`price_observation.seller`, `price_observation.condition`), a list's
//! items with `[]` (`price_observation.offers[]`); a field by its object's
//! address and its name (`price_observation.seller.name`).

use std::collections::BTreeSet;

use proc_macro2::{Delimiter, TokenStream, TokenTree};

use crate::check::CheckedType;
use crate::error::DefinitionError;
use crate::layout::{Doc, List};
use crate::model::{Nested, Reach, Std};

/// The checked settings.
#[derive(Debug, Clone, Default)]
pub(crate) struct Settings {
    derives: Vec<Derive>,
    type_attributes: Vec<Attribute>,
    field_attributes: Vec<Attribute>,
    /// Every struct a strict reader (`deny_unknown_fields`).
    strict_readers: bool,
}

/// A derive added to every generated type.
#[derive(Debug, Clone)]
struct Derive {
    /// The setting as given, for errors.
    setting: String,
    /// The path written in the derive list.
    path: String,
    /// The standard derive it is, whose needs are checked.
    std: Option<Std>,
}

/// An attribute for one type or field.
#[derive(Debug, Clone)]
struct Attribute {
    setting: String,
    address: String,
    docs: Vec<Doc>,
    /// The standard derives its `#[derive(…)]` names, checked as
    /// [`Generator::derive`](crate::Generator::derive)'s are.
    derives: Vec<Std>,
}

/// The derives every struct has, and every enum.
pub(crate) const STRUCT_DERIVES: [&str; 5] =
    ["::std::fmt::Debug", "::std::clone::Clone", "::std::cmp::PartialEq", "::serde::Serialize", "::serde::Deserialize"];
pub(crate) const ENUM_DERIVES: [&str; 8] = [
    "::std::fmt::Debug",
    "::std::clone::Clone",
    "::std::marker::Copy",
    "::std::cmp::PartialEq",
    "::std::cmp::Eq",
    "::std::hash::Hash",
    "::serde::Serialize",
    "::serde::Deserialize",
];

fn setting_error(setting: &str, message: impl Into<String>, hint: impl Into<String>) -> DefinitionError {
    DefinitionError::Setting { setting: setting.to_owned(), message: message.into(), hint: hint.into() }
}

impl Settings {
    /// Checks the raw settings: derive paths and attribute text.
    pub(crate) fn new(
        derives: &[String],
        type_attributes: &[(String, String)],
        field_attributes: &[(String, String)],
        strict_readers: bool,
    ) -> Result<Settings, Vec<DefinitionError>> {
        let mut errors = Vec::new();
        let mut settings = Settings { strict_readers, ..Settings::default() };
        for derive in derives {
            let setting = format!("derive({derive:?})");
            match path_text(derive) {
                Some(path) => {
                    let std = Std::of(&path);
                    let path = std.map_or(path, |(_, full)| full.to_owned());
                    let last = |path: &str| path.rsplit("::").next().unwrap_or_default().to_owned();
                    if settings.derives.iter().any(|d| last(&d.path) == last(&path))
                        || STRUCT_DERIVES.iter().any(|d| last(d) == last(&path))
                    {
                        errors.push(setting_error(
                            &setting,
                            format!("`{path}` is already derived"),
                            "give each derive once; Debug, Clone, PartialEq, Serialize and Deserialize are always derived",
                        ));
                        continue;
                    }
                    settings.derives.push(Derive { setting, path, std: std.map(|(std, _)| std) });
                }
                None => errors.push(setting_error(
                    &setting,
                    format!("{derive:?} is not a path"),
                    "name a derive macro, such as \"Eq\" or \"schemars::JsonSchema\"",
                )),
            }
        }
        let std_derived = |std: Std| settings.derives.iter().any(|d| d.std == Some(std));
        if std_derived(Std::Ord) {
            for need in [Std::Eq, Std::PartialOrd] {
                if !std_derived(need) {
                    errors.push(setting_error(
                        "derive(\"Ord\")",
                        format!("`Ord` needs `{}`", need.name()),
                        format!("derive \"{}\" too", need.name()),
                    ));
                }
            }
        }
        for (list, raw, what) in [
            (&mut settings.type_attributes, type_attributes, "type_attribute"),
            (&mut settings.field_attributes, field_attributes, "field_attribute"),
        ] {
            for (address, text) in raw {
                let setting = format!("{what}({address:?}, {text:?})");
                match attributes(text) {
                    Ok(docs) => {
                        let derives = derived(text).into_iter().filter_map(|path| Std::of(&path)).map(|(std, _)| std);
                        list.push(Attribute { setting, address: address.clone(), derives: derives.collect(), docs });
                    }
                    Err((message, hint)) => errors.push(setting_error(&setting, message, hint)),
                }
            }
        }
        if errors.is_empty() { Ok(settings) } else { Err(errors) }
    }

    /// A digest of everything here that reaches the output, for the
    /// incremental index's identity.
    pub(crate) fn identity(&self) -> String {
        let mut text = String::new();
        if self.strict_readers {
            text.push_str("strict_readers\n");
        }
        for derive in &self.derives {
            text.push_str(&format!("derive {}\n", derive.path));
        }
        for (what, list) in [("type", &self.type_attributes), ("field", &self.field_attributes)] {
            for attribute in list {
                text.push_str(&format!("{what} {} {:?}\n", attribute.address, attribute.docs));
            }
        }
        format!("{:08x}", crc32fast::hash(text.as_bytes()))
    }

    /// Whether there is nothing to add.
    pub(crate) fn is_empty(&self) -> bool {
        self.derives.is_empty() && self.type_attributes.is_empty() && self.field_attributes.is_empty()
    }

    /// Whether every struct is a strict reader.
    pub(crate) fn strict_readers(&self) -> bool {
        self.strict_readers
    }

    /// The attributes every struct has beyond its derives: none, or
    /// `#[serde(deny_unknown_fields)]` for strict readers.
    pub(crate) fn struct_attributes(&self) -> Option<Doc> {
        self.strict_readers.then(|| Doc::attribute("serde", vec![Doc::text("deny_unknown_fields")]))
    }

    /// The derives of a struct: the built-in ones, then the settings'.
    pub(crate) fn struct_derives(&self) -> Vec<String> {
        let mut all: Vec<String> = STRUCT_DERIVES.iter().map(|d| (*d).to_owned()).collect();
        all.extend(self.derives.iter().map(|d| d.path.clone()));
        all
    }

    /// The derives of a closed set's enum: the built-in ones, then the
    /// settings' that it does not have already.
    pub(crate) fn enum_derives(&self) -> Vec<String> {
        let mut all: Vec<String> = ENUM_DERIVES.iter().map(|d| (*d).to_owned()).collect();
        all.extend(self.derives.iter().filter(|d| !ENUM_DERIVES.contains(&d.path.as_str())).map(|d| d.path.clone()));
        all
    }

    /// The attributes for the type at `address`.
    pub(crate) fn type_attributes(&self, address: &str) -> impl Iterator<Item = &Doc> {
        self.type_attributes.iter().filter(move |a| a.address == address).flat_map(|a| &a.docs)
    }

    /// The attributes for the field at `address`.
    pub(crate) fn field_attributes(&self, address: &str) -> impl Iterator<Item = &Doc> {
        self.field_attributes.iter().filter(move |a| a.address == address).flat_map(|a| &a.docs)
    }

    /// The errors of the settings against the record types: a standard
    /// derive a type's fields cannot have, an address that matches nothing.
    /// `checked` are the types read in this run, `reused` the labels of those
    /// whose code was kept (checked, with these settings, when it was made).
    pub(crate) fn check(&self, checked: &[&CheckedType], reused: &BTreeSet<&str>) -> Vec<DefinitionError> {
        let mut errors = Vec::new();
        let mut types = BTreeSet::new();
        let mut fields = BTreeSet::new();
        for t in checked {
            let label = &*t.schema.record_label;
            let (type_addresses, field_addresses) = t.types.addresses();
            types.extend(type_addresses.into_iter().map(str::to_owned));
            fields.extend(field_addresses.into_iter().map(str::to_owned));
            for derive in &self.derives {
                let Some(std) = derive.std else { continue };
                if let Some(reason) = t.types.lacks_everywhere(std) {
                    errors.push(setting_error(
                        &derive.setting,
                        format!("record type `{label}` cannot derive `{}`: {reason}", std.name()),
                        format!(
                            "leave `{}` out, or add it to the types that can have it with type_attribute",
                            std.name()
                        ),
                    ));
                }
            }
        }
        for attribute in &self.type_attributes {
            for &std in &attribute.derives {
                // A nested type has the derive when every type gets it, or
                // an attribute at its address gives it.
                let gets = |address: &str| {
                    self.derives.iter().any(|d| d.std == Some(std))
                        || self.type_attributes.iter().any(|a| a.address == address && a.derives.contains(&std))
                };
                let reason = checked.iter().find_map(|t| match t.types.type_at(&attribute.address)? {
                    Nested::Struct(s) => s.lacks(std, Reach::Only(&gets)),
                    Nested::Enum(e) => e.lacks(std),
                });
                if let Some(reason) = reason {
                    errors.push(setting_error(
                        &attribute.setting,
                        format!("`{}` cannot derive `{}`: {reason}", attribute.address, std.name()),
                        format!(
                            "leave `{}` out of this type's derives, or give it to the types named here too",
                            std.name()
                        ),
                    ));
                }
            }
        }
        for (list, known, what) in [(&self.type_attributes, &types, "type"), (&self.field_attributes, &fields, "field")]
        {
            for attribute in list {
                let label = attribute.address.split(['.', '[']).next().unwrap_or_default();
                if known.contains(&attribute.address) || reused.contains(label) {
                    continue;
                }
                // The addresses beside the one given: in the deepest object
                // of its path that exists, or at the top of its record type.
                let mut parent = attribute.address.as_str();
                let near: Vec<&str> = loop {
                    parent = parent.rfind('.').map_or("", |cut| &parent[..cut]);
                    let beside: Vec<&str> = known
                        .iter()
                        .filter(|a| {
                            let child = a.strip_prefix(parent).and_then(|rest| rest.strip_prefix('.'));
                            child.is_some_and(|rest| !rest.trim_end_matches("[]").contains(['.', '[']))
                                || (*a == parent && what == "type")
                        })
                        .map(String::as_str)
                        .collect();
                    if !beside.is_empty() || parent.is_empty() {
                        break beside;
                    }
                };
                let hint = if near.is_empty() {
                    "start the address with a record label, then field names joined by `.` (`[]` for a list's items)"
                        .to_owned()
                } else {
                    format!("the {what} addresses there are: {}", near.join(", "))
                };
                errors.push(setting_error(
                    &attribute.setting,
                    format!("`{}` matches no {what}", attribute.address),
                    hint,
                ));
            }
        }
        errors
    }
}

/// The paths a `#[derive(…)]` in attribute `text` names.
fn derived(text: &str) -> Vec<String> {
    let Ok(tokens) = text.parse::<TokenStream>() else { return Vec::new() };
    let mut out = Vec::new();
    for tree in tokens {
        let TokenTree::Group(group) = tree else { continue };
        let mut inner = group.stream().into_iter();
        let (Some(TokenTree::Ident(name)), Some(TokenTree::Group(list))) = (inner.next(), inner.next()) else {
            continue;
        };
        if name != "derive" {
            continue;
        }
        let text = list.stream().to_string();
        out.extend(text.split(',').map(|p| p.split_whitespace().collect::<String>()).filter(|p| !p.is_empty()));
    }
    out
}

/// The text of `text` as a Rust path (`Eq`, `::serde::Serialize`), or
/// `None` when it is not one.
fn path_text(text: &str) -> Option<String> {
    let tokens: Vec<TokenTree> = text.parse::<TokenStream>().ok()?.into_iter().collect();
    let mut out = String::new();
    let mut expect_ident = true;
    let mut i = 0;
    while i < tokens.len() {
        match (&tokens[i], expect_ident) {
            (TokenTree::Ident(ident), true) => {
                let segment = ident.to_string();
                // `_` and keywords are no path segments (`crate`, `self`
                // and `super` may lead; a raw `r#kw` is an identifier).
                let leads = out.is_empty() && matches!(segment.as_str(), "crate" | "self" | "super");
                if segment == "_" || (!leads && crate::naming::KEYWORDS.contains(&segment.as_str())) {
                    return None;
                }
                out.push_str(&segment);
                expect_ident = false;
                i += 1;
            }
            (TokenTree::Punct(a), _) if a.as_char() == ':' && (i == 0 || !expect_ident) => {
                let Some(TokenTree::Punct(b)) = tokens.get(i + 1) else { return None };
                if b.as_char() != ':' {
                    return None;
                }
                out.push_str("::");
                expect_ident = true;
                i += 2;
            }
            _ => return None,
        }
    }
    (!out.is_empty() && !expect_ident).then_some(out)
}

/// The attributes in `text` (one or more `#[…]`), each as a line of
/// code, or what is wrong with the text and a hint.
fn attributes(text: &str) -> Result<Vec<Doc>, (String, String)> {
    let tokens: TokenStream = text
        .parse()
        .map_err(|e| (format!("does not tokenize: {e}"), "check brackets, quotes and literals".to_owned()))?;
    let tokens: Vec<TokenTree> = tokens.into_iter().collect();
    let not_outer = || {
        (
            "is not an outer attribute `#[…]`".to_owned(),
            "write the attribute as it would stand on the item, such as \"#[serde(deny_unknown_fields)]\"".to_owned(),
        )
    };
    if tokens.is_empty() || !tokens.len().is_multiple_of(2) {
        return Err(not_outer());
    }
    let mut docs = Vec::new();
    for pair in tokens.chunks(2) {
        let (TokenTree::Punct(hash), TokenTree::Group(group)) = (&pair[0], &pair[1]) else { return Err(not_outer()) };
        if hash.as_char() != '#' || group.delimiter() != Delimiter::Bracket {
            return Err(not_outer());
        }
        docs.push(meta(group.stream())?);
    }
    Ok(docs)
}

/// One attribute's content as prettyplease prints it: `#[path]`,
/// `#[path = literal]` or `#[path(…)]`.
fn meta(stream: TokenStream) -> Result<Doc, (String, String)> {
    let tokens: Vec<TokenTree> = stream.into_iter().collect();
    let bad = |what: &str| {
        (
            format!("is not an attribute of the form `#[path]`, `#[path = literal]` or `#[path(…)]`: {what}"),
            "write a path with optional `= literal` or `(…)` arguments, such as \"#[serde(rename_all = \\\"camelCase\\\")]\""
                .to_owned(),
        )
    };
    let split = tokens.iter().position(|t| !matches!(t, TokenTree::Ident(_) | TokenTree::Punct(_)) || is_eq(t));
    let (head, rest) = tokens.split_at(split.unwrap_or(tokens.len()));
    let head_text: String = head.iter().map(ToString::to_string).collect();
    let path = path_text(&head_text).ok_or_else(|| bad("it does not start with a path"))?;
    if path == "doc" {
        return Err((
            "sets a doc comment".to_owned(),
            "a generated item's doc comment is the definition's description: edit that".to_owned(),
        ));
    }
    match rest {
        [] => Ok(Doc::text(format!("#[{path}]"))),
        [eq, TokenTree::Literal(literal)] if is_eq(eq) => Ok(Doc::text(format!("#[{path} = {literal}]"))),
        [TokenTree::Group(group)] if group.delimiter() == Delimiter::Parenthesis => {
            let list = arguments(group.stream()).map_err(|what| bad(&what))?;
            Ok(Doc::Seq(vec![Doc::text(format!("#[{path}")), Doc::List(list), Doc::text("]")]))
        }
        _ => Err(bad("it has more after the path than `= literal` or `(…)`")),
    }
}

fn is_eq(token: &TokenTree) -> bool {
    matches!(token, TokenTree::Punct(p) if p.as_char() == '=')
}

/// The arguments of a `(…)` group: items between commas, each printed as
/// prettyplease prints attribute tokens (words apart by a space, `=` with
/// a space on each side, nested `(…)` groups as lists of their own).
fn arguments(stream: TokenStream) -> Result<List, String> {
    let tokens: Vec<TokenTree> = stream.into_iter().collect();
    let trailing_comma = matches!(tokens.last(), Some(TokenTree::Punct(p)) if p.as_char() == ',');
    let mut items = Vec::new();
    let mut item: Vec<Doc> = Vec::new();
    let mut text = String::new();
    // After a word or literal, the next word or literal gets a space.
    let mut after_word = false;
    for token in &tokens {
        match token {
            TokenTree::Punct(p) if p.as_char() == ',' => {
                flush(&mut text, &mut item);
                if item.is_empty() {
                    return Err("an empty argument between commas".to_owned());
                }
                items.push(Doc::Seq(std::mem::take(&mut item)));
                after_word = false;
            }
            TokenTree::Punct(p) if p.as_char() == '=' => {
                text.push_str(if after_word { " = " } else { "= " });
                after_word = false;
            }
            TokenTree::Punct(p) => {
                text.push(p.as_char());
                after_word = false;
            }
            TokenTree::Ident(_) | TokenTree::Literal(_) => {
                if after_word {
                    text.push(' ');
                }
                text.push_str(&token.to_string());
                after_word = true;
            }
            TokenTree::Group(group) if group.delimiter() == Delimiter::Parenthesis => {
                flush(&mut text, &mut item);
                item.push(Doc::List(arguments(group.stream())?));
                after_word = false;
            }
            TokenTree::Group(_) => return Err("a `[…]` or `{…}` group in the arguments".to_owned()),
        }
    }
    flush(&mut text, &mut item);
    if !item.is_empty() {
        items.push(Doc::Seq(item));
    }
    Ok(List { open: "(", items, close: ")", trailing_comma })
}

fn flush(text: &mut String, item: &mut Vec<Doc>) {
    if !text.is_empty() {
        item.push(Doc::text(std::mem::take(text)));
    }
}
