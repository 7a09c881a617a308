//! Checking definitions: every rule a definition must follow, reported all
//! at once with the place and a hint. A definition that passes becomes a
//! [`CheckedType`], ready to emit.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::Path;

use crate::definition::RecordTypeDefinition;
use crate::error::{DefinitionError, Location};
use crate::naming;
use foundry_catalog_core::fixture;
use foundry_catalog_core::{FieldFormat, FieldType, FixtureHint, RecordSchema};

/// The most sample rows a definition may ask for.
pub(crate) const MAX_SAMPLE_ROWS: u64 = 1000;

/// A definition that passed every check, with its Rust names.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckedType {
    /// The file it came from, as given to the generator.
    pub file: String,
    /// The record schema, hash included.
    pub schema: RecordSchema,
    /// The struct name.
    pub type_name: String,
    /// The Rust field names, in field order (possibly `r#…`).
    pub field_names: Vec<String>,
}

/// Checks one parsed definition read from `file`.
pub(crate) fn check(file: &str, definition: RecordTypeDefinition) -> Result<CheckedType, Vec<DefinitionError>> {
    let mut errors = Vec::new();
    let label = definition.record_label.clone();
    let mut invalid = |location: Location, message: String, hint: &str| {
        errors.push(DefinitionError::Invalid {
            file: file.to_owned(),
            record_label: label.clone(),
            location: Box::new(location),
            message,
            hint: hint.to_owned(),
        });
    };

    let type_name = naming::type_name(&label);
    if !naming::is_record_label(&label) {
        invalid(
            Location::RecordLabel,
            format!("`{label}` is not lowercase_underscore"),
            "start with a lowercase letter and use lowercase letters, digits and single underscores, such as `regulatory_status_signal`",
        );
    } else if type_name.is_none() {
        invalid(
            Location::RecordLabel,
            format!("`{label}` makes a struct name that is a Rust keyword"),
            "choose another record label",
        );
    }
    let stem = Path::new(file).file_stem().and_then(|s| s.to_str()).unwrap_or_default();
    if stem != label {
        invalid(
            Location::RecordLabel,
            format!("the label `{label}` differs from the file name `{stem}`"),
            "name the file after the label: `<record_label>.json`",
        );
    }
    if !(1..=MAX_SAMPLE_ROWS).contains(&definition.sample_rows) {
        invalid(
            Location::SampleRows,
            format!("{} sample rows is out of range", definition.sample_rows),
            "ask for between 1 and 1000 rows, or leave the key out for 3",
        );
    }
    if definition.fields.is_empty() {
        invalid(
            Location::Fields,
            "the field list is empty".to_owned(),
            "add at least one field: {\"name\", \"type\", \"required\", \"description\"}",
        );
    }

    let mut field_names = Vec::with_capacity(definition.fields.len());
    let mut wire_seen: BTreeMap<&str, usize> = BTreeMap::new();
    let mut rust_seen: BTreeMap<String, (usize, &str)> = BTreeMap::new();
    for (index, field) in definition.fields.iter().enumerate() {
        let at = || Location::Field { index, name: field.name.to_string() };
        if !naming::is_wire_name(&field.name) {
            invalid(
                at(),
                format!("the name {:?} cannot name a field", field.name),
                "use ASCII letters, digits, `_` and `-`, with at least one letter or digit",
            );
        } else if let Some(&first) = wire_seen.get(&*field.name) {
            invalid(at(), format!("the name is already used by fields[{first}]"), "give every field a different name");
        } else {
            wire_seen.insert(&field.name, index);
            let rust = match &field.rust_name {
                Some(explicit) => naming::explicit_field_name(explicit).ok_or_else(|| {
                    (
                        format!("`rust_name` {explicit:?} is not a Rust field name"),
                        "write a snake_case identifier such as `self_type`; a keyword that can be raw is written `r#type`",
                    )
                }),
                None => naming::field_name(&field.name)
                    .ok_or(("the name leaves no Rust identifier".to_owned(), "use a name with letters")),
            };
            match rust {
                Ok(rust) => {
                    let key = naming::unraw(&rust).to_owned();
                    if let Some(&(first, first_wire)) = rust_seen.get(&key) {
                        invalid(
                            at(),
                            format!(
                                "`{}` and fields[{first}] `{first_wire}` both become the Rust field `{key}`",
                                field.name
                            ),
                            "rename one of the two fields, or give one a `rust_name` (such as \"rust_name\": \"other_name\"), which keeps the wire name",
                        );
                    } else {
                        rust_seen.insert(key, (index, &field.name));
                    }
                    field_names.push(rust);
                }
                Err((message, hint)) => invalid(at(), message, hint),
            }
        }
        if field.description.trim().is_empty() {
            invalid(
                at(),
                "the description is empty".to_owned(),
                "describe what the field means; it becomes the doc comment and the schema_preview description",
            );
        }
        if let Some(format) = field.format
            && format.field_type() != field.field_type
        {
            invalid(
                at(),
                format!(
                    "format `{format}` is for {} fields but the field is {}",
                    format.field_type(),
                    a(field.field_type)
                ),
                &match FieldFormat::formats_for(field.field_type) {
                    formats if formats.is_empty() => {
                        format!("remove the format: {} fields take none", field.field_type)
                    }
                    formats => format!("for {} field use one of: {}", a(field.field_type), formats.join(", ")),
                },
            );
        }
        if let Some(hint) = &field.fixture {
            match hint.field_type() {
                Some(fits) if !hint.fits_type(field.field_type) => invalid(
                    at(),
                    format!(
                        "fixture hint `{}` makes {fits} values but the field is {}",
                        hint.kind(),
                        a(field.field_type)
                    ),
                    &format!(
                        "for {} field use one of: {}",
                        a(field.field_type),
                        FixtureHint::kinds_for(field.field_type).join(", ")
                    ),
                ),
                None if field.required => invalid(
                    at(),
                    "fixture hint `absent` on a required field".to_owned(),
                    "every row carries every required field: remove the hint or make the field optional",
                ),
                Some(_)
                    if field.format.is_some_and(|f| f.field_type() == field.field_type)
                        && !fixture::hint_fits(hint, field) =>
                {
                    let format = field.format.map(FieldFormat::as_str).unwrap_or_default();
                    let kind = field.format.map(FieldFormat::hint_kind).unwrap_or_default();
                    invalid(
                        at(),
                        format!("fixture hint `{}` cannot seed values of format `{format}`", hint.kind()),
                        &format!("seed a `{format}` field with a `{kind}` hint, or leave the hint out"),
                    )
                }
                _ => {
                    if let Err(problem) = fixture::check_hint(hint) {
                        invalid(at(), problem.message, &problem.hint);
                    } else if let (Some(FieldFormat::Token), FixtureHint::Token(token)) = (field.format, hint)
                        && !foundry_catalog_core::is_lowercase_underscore(token)
                    {
                        invalid(
                            at(),
                            format!("token {token:?} is not lowercase_underscore, as the `token` format needs"),
                            "use lowercase letters, digits and single underscores, such as \"fixture_validated\"",
                        );
                    }
                }
            }
        }
    }

    if !errors.is_empty() {
        return Err(errors);
    }
    let (Some(type_name), Ok(sample_rows)) = (type_name, usize::try_from(definition.sample_rows)) else {
        return Err(vec![DefinitionError::Internal {
            file: file.to_owned(),
            message: "checked names missing".to_owned(),
        }]);
    };
    let schema_hash = foundry_catalog_core::hash::schema_hash(&label, &definition.fields, definition.digest_length);
    let schema = RecordSchema {
        record_label: Cow::Owned(label),
        description: Cow::Owned(definition.description),
        sample_type: definition.sample_type,
        digest_length: definition.digest_length,
        sample_rows,
        fields: Cow::Owned(definition.fields),
        schema_hash: Cow::Owned(schema_hash),
    };
    Ok(CheckedType { file: file.to_owned(), schema, type_name, field_names })
}

/// Checks a set of definitions against each other: no two share a label or
/// a struct name. `types` is (file, record label, struct name) in
/// generation order; the later one is blamed.
pub(crate) fn check_set<'a>(types: impl Iterator<Item = (&'a str, &'a str, &'a str)>) -> Vec<DefinitionError> {
    let mut errors = Vec::new();
    let mut labels: BTreeMap<&str, &str> = BTreeMap::new();
    let mut names: BTreeMap<&str, (&str, &str)> = BTreeMap::new();
    for (file, label, type_name) in types {
        if let Some(other) = labels.insert(label, file) {
            errors.push(DefinitionError::Conflict {
                file: file.to_owned(),
                record_label: label.to_owned(),
                other_file: other.to_owned(),
                message: "is also defined in".to_owned(),
                hint: "keep one definition per record label".to_owned(),
            });
        } else if let Some((other_file, other_label)) = names.insert(type_name, (file, label)) {
            errors.push(DefinitionError::Conflict {
                file: file.to_owned(),
                record_label: label.to_owned(),
                other_file: other_file.to_owned(),
                message: format!("and `{other_label}` both become the struct `{type_name}`; the other is"),
                hint: "rename one of the two record labels".to_owned(),
            });
        }
    }
    errors
}

/// The type with its article: `a string`, `an integer`.
fn a(field_type: FieldType) -> String {
    let article = if field_type.as_str().starts_with(['a', 'e', 'i', 'o', 'u']) { "an" } else { "a" };
    format!("{article} {field_type}")
}
