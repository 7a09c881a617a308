//! Checking definitions: every rule a definition must follow, reported all
//! at once with the place and a hint. A definition that passes becomes a
//! [`CheckedType`], ready to emit.

use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::definition::RecordTypeDefinition;
use crate::error::{DefinitionError, Location, Path};
use crate::model::{EnumDef, FieldDef, Place, RustTypes, RustValue, Scalar, StructDef, Variant};
use crate::naming;
use crate::positions::Positions;
use foundry_catalog_core::fixture;
use foundry_catalog_core::hash::es_number;
use foundry_catalog_core::{
    EnumValue, FieldDescriptor, FieldFormat, FieldType, FixtureHint, Items, MAX_SAFE_INTEGER, RecordSchema,
};

/// The most sample rows a definition may ask for.
pub(crate) const MAX_SAMPLE_ROWS: u64 = 1000;

/// How deeply lists and nested objects may nest: a record's field is at
/// depth 1, a field of a nested object or a list's item one deeper.
pub const MAX_DEPTH: usize = 8;

/// The largest `min_items` a list may ask for (every fixture row holds at
/// least that many items).
pub const MAX_MIN_ITEMS: u32 = 100;

/// A definition that passed every check, with every Rust item it
/// generates resolved.
#[derive(Debug, Clone, PartialEq)]
pub struct CheckedType {
    /// The file it came from, as given to the generator.
    pub file: String,
    /// The record schema, hash included.
    pub schema: RecordSchema,
    /// Its structs and enums: names, fields, Rust types and places.
    pub(crate) types: RustTypes,
}

impl CheckedType {
    /// The record's struct name (`PriceObservation`).
    pub fn type_name(&self) -> &str {
        &self.types.record.name
    }

    /// The record schema as the generated code holds it (its
    /// `RecordType::SCHEMA`): [`CheckedType::schema`] without the Rust
    /// names a definition may give fields and closed-set values, which
    /// only name generated items. A record type read at run time is this.
    pub fn runtime_schema(&self) -> RecordSchema {
        fn strip(fields: &[FieldDescriptor]) -> Vec<FieldDescriptor> {
            fields
                .iter()
                .map(|field| FieldDescriptor {
                    rust_name: None,
                    items: field
                        .items
                        .as_ref()
                        .map(|items| Items::new(strip(std::slice::from_ref(items.get())).remove(0))),
                    fields: field.fields.as_deref().map(|fields| Cow::Owned(strip(fields))),
                    enum_values: field.enum_values.as_deref().map(|values| {
                        Cow::Owned(values.iter().map(|v| EnumValue { rust_name: None, ..v.clone() }).collect())
                    }),
                    ..field.clone()
                })
                .collect()
        }
        RecordSchema { fields: Cow::Owned(strip(&self.schema.fields)), ..self.schema.clone() }
    }
}

/// Checks one parsed definition read from `file`.
pub(crate) fn check(
    file: &str,
    definition: RecordTypeDefinition,
    positions: &Positions<'_>,
) -> Result<CheckedType, Vec<DefinitionError>> {
    let mut errors = Vec::new();
    let label = definition.record_label.clone();
    let mut invalid = |location: Location, message: String, hint: &str| {
        let (line, column) = match &location {
            Location::Key { .. } => positions.key_of(&location.pointer()),
            _ => positions.of(&location.pointer()),
        };
        errors.push(DefinitionError::Invalid {
            file: file.to_owned(),
            line,
            column,
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
    let stem = std::path::Path::new(file).file_stem().and_then(|s| s.to_str()).unwrap_or_default();
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

    let mut structs = BTreeMap::new();
    let mut object = Object { invalid: &mut invalid, structs: &mut structs, positions };
    let record = Place::record(&label);
    let fields = object.fields(&definition.fields, &Path::root(), &record, "", 1);
    if !errors.is_empty() {
        return Err(errors);
    }
    let (Some(type_name), Some(module), Ok(sample_rows)) =
        (type_name, naming::module_name(&label), usize::try_from(definition.sample_rows))
    else {
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
    let record = StructDef { name: type_name, at: record, description: String::new(), fields };
    Ok(CheckedType { file: file.to_owned(), schema, types: RustTypes { module, record } })
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

/// Reports a problem at a place with a hint.
type Invalid<'a> = dyn FnMut(Location, String, &str) + 'a;

/// Checks the fields of one object (the record or a nested object) and
/// the values they hold, at every depth.
struct Object<'a, 'b, 'p> {
    invalid: &'a mut Invalid<'b>,
    /// Every struct name taken so far, with the place that took it.
    structs: &'a mut BTreeMap<String, String>,
    /// The file's text, where a bound is read exactly.
    positions: &'a Positions<'p>,
}

impl Object<'_, '_, '_> {
    /// Checks `fields`, the fields of the struct `struct_name` (empty for
    /// the record's own) at `path` (`at`), at `depth`; returns them
    /// resolved (in order, those that passed).
    fn fields(
        &mut self,
        fields: &[FieldDescriptor],
        path: &Path,
        at: &Place,
        struct_name: &str,
        depth: usize,
    ) -> Vec<FieldDef> {
        let mut resolved = Vec::with_capacity(fields.len());
        let mut wire_seen: BTreeMap<&str, usize> = BTreeMap::new();
        let mut rust_seen: BTreeMap<String, (usize, &str)> = BTreeMap::new();
        for (index, field) in fields.iter().enumerate() {
            let here = path.field(index, &field.name);
            let place = at.field(&field.name);
            let mut rust_name = None;
            if !naming::is_wire_name(&field.name) {
                (self.invalid)(
                    here.key("name"),
                    format!("the name {:?} cannot name a field", field.name),
                    "use ASCII letters, digits, `_` and `-`, with at least one letter or digit",
                );
            } else if let Some(&first) = wire_seen.get(&*field.name) {
                (self.invalid)(
                    here.key("name"),
                    format!("the name is already used by fields[{first}]"),
                    "give every field of an object a different name",
                );
            } else {
                wire_seen.insert(&field.name, index);
                match naming::rust_field_name(field) {
                    Ok(rust) => {
                        let key = naming::unraw(&rust).to_owned();
                        if let Some(&(first, first_wire)) = rust_seen.get(&key) {
                            (self.invalid)(
                                here.key(if field.rust_name.is_some() { "rust_name" } else { "name" }),
                                format!(
                                    "`{}` and fields[{first}] `{first_wire}` both become the Rust field `{key}`",
                                    field.name
                                ),
                                "rename one of the two fields, or give one a `rust_name` (such as \"rust_name\": \"other_name\"), which keeps the wire name",
                            );
                        } else {
                            rust_seen.insert(key, (index, &field.name));
                        }
                        rust_name = Some(rust);
                    }
                    Err((message, hint)) => (self.invalid)(
                        here.key(if field.rust_name.is_some() { "rust_name" } else { "name" }),
                        message,
                        hint,
                    ),
                }
            }
            if field.description.trim().is_empty() {
                (self.invalid)(
                    here.key("description"),
                    "the description is empty".to_owned(),
                    "describe what the field means; it becomes the doc comment and the schema_preview description",
                );
            }
            // Only a list, a nested object or a closed set names a type:
            // after the fields on its path, by their Rust names.
            let named = field.rust_name.as_deref().unwrap_or(&field.name);
            let nested = nests(field).then(|| naming::nested_type_name(struct_name, named)).flatten();
            let value = self.value(field, &here, &place, nested.as_deref(), depth, true);
            if let (Some(rust), Some(value)) = (rust_name, value) {
                resolved.push(FieldDef {
                    wire: field.name.to_string(),
                    rust,
                    description: field.description.to_string(),
                    required: field.required,
                    nullable: field.nullable,
                    value,
                    at: place,
                });
            }
        }
        resolved
    }

    /// Checks what a field (`own_field`) or a list's item holds: its
    /// type's keys, its format and fixture hint, and what it nests; returns
    /// its Rust type when it passed. `struct_name` is the name its nested
    /// object's struct or closed set's enum takes.
    fn value(
        &mut self,
        field: &FieldDescriptor,
        here: &Path,
        place: &Place,
        struct_name: Option<&str>,
        depth: usize,
        own_field: bool,
    ) -> Option<RustValue> {
        let at = || here.location();
        let ty = field.field_type;
        if depth > MAX_DEPTH {
            (self.invalid)(
                at(),
                format!("lists and objects nest {depth} deep here, over the limit of {MAX_DEPTH}"),
                "flatten the record: move deep values into fields of their own, or use an open object (`object` without `fields`)",
            );
            return None;
        }
        let misplaced = [
            ("items", field.items.is_some(), FieldType::Array),
            ("min_items", field.min_items.is_some(), FieldType::Array),
            ("max_items", field.max_items.is_some(), FieldType::Array),
            ("fields", field.fields.is_some(), FieldType::Object),
            ("enum", field.enum_values.is_some(), FieldType::String),
        ];
        for (key, present, owner) in misplaced {
            if present && ty != owner {
                (self.invalid)(
                    here.key(key),
                    format!("`{key}` is for {} fields but the field is {}", owner, a(ty)),
                    &format!("remove `{key}`, or make the field's type `{owner}`"),
                );
            }
        }
        self.bounds(field, here);
        self.format_and_hint(field, here);
        if let Some(values) = field.values() {
            let variants = self.closed_set(values, here, struct_name)?;
            let name = struct_name?.to_owned();
            let description = field.description.to_string();
            return Some(RustValue::Enum(Box::new(EnumDef { name, at: place.clone(), description, variants })));
        }
        match ty {
            FieldType::Array => {
                if let (Some(min), Some(max)) = (field.min_items, field.max_items)
                    && min > max
                {
                    (self.invalid)(
                        here.key("min_items"),
                        format!("min_items {min} is over max_items {max}"),
                        "make min_items at most max_items",
                    );
                }
                if field.min_items.is_some_and(|min| min > MAX_MIN_ITEMS) {
                    (self.invalid)(
                        here.key("min_items"),
                        format!("min_items {} is over {MAX_MIN_ITEMS}", field.min_items.unwrap_or_default()),
                        &format!("every fixture row holds that many items: ask for at most {MAX_MIN_ITEMS}"),
                    );
                }
                match field.item_type() {
                    Some(item) => {
                        let item_name = struct_name.map(naming::item_type_name);
                        let value =
                            self.value(item, &here.items(), &place.items(), item_name.as_deref(), depth + 1, false)?;
                        Some(RustValue::List { item: Box::new(value), nullable: item.nullable })
                    }
                    None => {
                        (self.invalid)(
                            at(),
                            "an array field has no `items`".to_owned(),
                            "say what the list holds, such as \"items\": {\"type\": \"string\"}",
                        );
                        None
                    }
                }
            }
            FieldType::Object => {
                let Some(fields) = field.nested_fields() else { return Some(RustValue::Scalar(Scalar::OpenObject)) };
                if fields.is_empty() {
                    (self.invalid)(
                        here.key("fields"),
                        "the nested field list is empty".to_owned(),
                        "add fields, or leave `fields` out for an open object (any keys)",
                    );
                    return None;
                }
                let Some(struct_name) = struct_name else {
                    (self.invalid)(
                        at(),
                        "the nested object's name leaves no Rust struct name".to_owned(),
                        "name the field with letters",
                    );
                    return None;
                };
                if self.structs.contains_key(struct_name) {
                    self.take_name(struct_name, here);
                    return None;
                }
                self.take_name(struct_name, here);
                let fields = self.fields(fields, here, place, struct_name, depth + 1);
                let (name, description) = (struct_name.to_owned(), field.description.to_string());
                Some(RustValue::Struct(Box::new(StructDef { name, at: place.clone(), description, fields })))
            }
            FieldType::String => Some(RustValue::Scalar(match field.format {
                // A list of dates holds their text: no serde `with` module
                // reaches into a `Vec`.
                Some(FieldFormat::Date) if own_field => Scalar::Date,
                Some(format) if format.checked_type().is_some() => Scalar::Checked(format),
                _ => Scalar::String,
            })),
            FieldType::Number => Some(RustValue::Scalar(Scalar::F64)),
            FieldType::Integer => Some(RustValue::Scalar(Scalar::I64)),
            FieldType::Boolean => Some(RustValue::Scalar(Scalar::Bool)),
        }
    }

    /// Checks `minimum` and `maximum`: on integers and numbers only, in
    /// order, and on integers whole numbers that `i64` and every JSON
    /// reader hold exactly (within ±2^53).
    fn bounds(&mut self, field: &FieldDescriptor, here: &Path) {
        let numeric = matches!(field.field_type, FieldType::Integer | FieldType::Number);
        for (key, bound) in [("minimum", field.minimum), ("maximum", field.maximum)] {
            let Some(bound) = bound else { continue };
            if !numeric {
                (self.invalid)(
                    here.key(key),
                    format!("`{key}` is for integer and number fields but the field is {}", a(field.field_type)),
                    &format!("remove `{key}`, or make the field's type `integer` or `number`"),
                );
            } else if let Some(shown) =
                (field.field_type == FieldType::Integer).then(|| self.unsafe_integer(bound, here, key)).flatten()
            {
                (self.invalid)(
                    here.key(key),
                    format!("`{key}` {shown} is not a whole number within ±2^53"),
                    "an integer's bounds are whole numbers every JSON reader holds exactly, such as 0 or 100",
                );
            }
        }
        if field.format == Some(FieldFormat::Fraction)
            && (field.minimum.is_some_and(|min| min >= 1.0) || field.maximum.is_some_and(|max| max < 0.0))
        {
            let key = if field.minimum.is_some_and(|min| min >= 1.0) { "minimum" } else { "maximum" };
            (self.invalid)(
                here.key(key),
                "the bounds leave no value of format `fraction` (0 <= x < 1)".to_owned(),
                "bound a fraction within [0, 1), or remove the format",
            );
        }
        if let (Some(min), Some(max)) = (field.minimum, field.maximum)
            && min > max
        {
            let (min, max) = (es_number(min), es_number(max));
            (self.invalid)(
                here.key("minimum"),
                format!("minimum {min} is over maximum {max}"),
                "make minimum at most maximum",
            );
        }
    }

    /// Whether an integer's bound is a whole number within ±2^53, read
    /// from its text in the file, not from the `f64` that may have rounded
    /// it; `None` when it is, else the bound as the file writes it.
    fn unsafe_integer(&self, bound: f64, here: &Path, key: &str) -> Option<String> {
        // An f64 holds 15-17 significant digits: `9007199254740993` and
        // `5.0000000000000001` read as whole numbers within the bounds.
        let pointer = format!("{}/{key}", here.location().pointer());
        // Written as an integer, the parsed tree holds it exactly; only a
        // bound written with a fraction or an exponent needs its text.
        if let Some(integer) = self.positions.integer(&pointer) {
            return (integer.abs() > i128::from(MAX_SAFE_INTEGER)).then(|| integer.to_string());
        }
        let text = self.positions.scalar_text(&pointer);
        let safe = match text {
            Some(text) => exact_integer(text).is_some_and(|n| n.abs() <= i128::from(MAX_SAFE_INTEGER)),
            // A definition made in code has no text: its f64 is the bound.
            None => bound.fract() == 0.0 && bound.abs() <= MAX_SAFE_INTEGER as f64,
        };
        (!safe).then(|| text.map_or_else(|| es_number(bound), str::to_owned))
    }

    /// Checks a closed set: values, each once, whose Rust variants are
    /// identifiers that differ; its enum takes the name `enum_name`.
    /// Returns its variants when it passed.
    fn closed_set(&mut self, values: &[EnumValue], here: &Path, enum_name: Option<&str>) -> Option<Vec<Variant>> {
        let at = || here.location();
        if values.is_empty() {
            (self.invalid)(
                here.key("enum"),
                "the closed set is empty".to_owned(),
                "list the values, such as \"enum\": [\"new\", \"used\"]",
            );
            return None;
        }
        let mut resolved = Vec::with_capacity(values.len());
        let mut seen: BTreeMap<&str, usize> = BTreeMap::new();
        let mut variants: BTreeMap<String, &str> = BTreeMap::new();
        for (index, value) in values.iter().enumerate() {
            if let Some(first) = seen.insert(&value.value, index) {
                (self.invalid)(
                    here.key(&format!("enum/{index}")),
                    format!("the value {:?} is listed twice (enum[{first}] and enum[{index}])", value.value),
                    "list every value once",
                );
                continue;
            }
            let variant = match &value.rust_name {
                Some(explicit) if naming::is_identifier(explicit) => explicit.to_string(),
                Some(explicit) => {
                    (self.invalid)(
                        here.key(&format!("enum/{index}")),
                        format!("`rust_name` {explicit:?} of the value {:?} is not a Rust identifier", value.value),
                        "write an UpperCamelCase identifier such as `SecondHand`",
                    );
                    continue;
                }
                None => match naming::variant_name(&value.value) {
                    Some(variant) => variant,
                    None => {
                        (self.invalid)(
                            here.key(&format!("enum/{index}")),
                            format!("the value {:?} leaves no Rust variant name", value.value),
                            "name its variant: {\"value\": \"…\", \"rust_name\": \"SomeName\"}",
                        );
                        continue;
                    }
                },
            };
            if let Some(other) = variants.insert(variant.clone(), &value.value) {
                (self.invalid)(
                    here.key(&format!("enum/{index}")),
                    format!("the values {other:?} and {:?} both become the Rust variant `{variant}`", value.value),
                    "give one of them a `rust_name`: {\"value\": \"…\", \"rust_name\": \"OtherName\"}, which keeps the wire value",
                );
            }
            resolved.push(Variant { rust: variant, wire: value.value.to_string() });
        }
        match enum_name {
            Some(name) => self.take_name(name, here),
            None => (self.invalid)(
                at(),
                "the field's name leaves no Rust enum name".to_owned(),
                "name the field with letters",
            ),
        }
        // (A set that broke a rule fails the build; its variants go unused.)
        Some(resolved)
    }

    /// Takes a type name in the record type's module for the value at
    /// `here`, or reports that another value has it.
    fn take_name(&mut self, name: &str, here: &Path) {
        if let Some(taken) = self.structs.get(name) {
            (self.invalid)(
                here.location(),
                format!("its Rust type would be `{name}`, which {taken} already is"),
                "give one of the two fields a `rust_name` (such as \"rust_name\": \"mailing_address\"), which names its type and keeps the wire name: a nested type is named after the Rust names of the fields on its path",
            );
        } else {
            self.structs.insert(name.to_owned(), here.location().to_string());
        }
    }

    /// Checks a value's format and fixture hint against its type.
    fn format_and_hint(&mut self, field: &FieldDescriptor, here: &Path) {
        if let Some(format) = field.format
            && (format.field_type() != field.field_type || field.fields.is_some())
        {
            let message = if format.field_type() == field.field_type {
                format!("format `{format}` is for open objects but the object has `fields`")
            } else {
                format!(
                    "format `{format}` is for {} fields but the field is {}",
                    format.field_type(),
                    a(field.field_type)
                )
            };
            (self.invalid)(
                here.key("format"),
                message,
                &match FieldFormat::formats_for(field.field_type) {
                    _ if field.fields.is_some() => "remove the format: a nested object takes none".to_owned(),
                    formats if formats.is_empty() => {
                        format!("remove the format: {} fields take none", field.field_type)
                    }
                    formats => format!("for {} field use one of: {}", a(field.field_type), formats.join(", ")),
                },
            );
        }
        if let (Some(format), Some(_)) = (field.format, field.values()) {
            (self.invalid)(
                here.key("format"),
                format!("format `{format}` on a closed set"),
                "remove the format: the values are the closed set's, listed in `enum`",
            );
        }
        let Some(hint) = &field.fixture else { return };
        let nests = field.field_type == FieldType::Array || field.fields.is_some() || field.values().is_some();
        match hint.field_type() {
            None if field.required => (self.invalid)(
                here.key("fixture"),
                "fixture hint `absent` on a required field".to_owned(),
                "every row carries every required field: remove the hint or make the field optional",
            ),
            Some(_) if nests => (self.invalid)(
                here.key("fixture"),
                format!("fixture hint `{}` on {} field", hint.kind(), describe(field)),
                "a list's or nested object's values come from its items' or fields' hints, a closed set's from its values in turn: remove the hint (only `absent` fits here)",
            ),
            Some(fits) if !hint.fits_type(field.field_type) => (self.invalid)(
                here.key("fixture"),
                format!("fixture hint `{}` makes {fits} values but the field is {}", hint.kind(), a(field.field_type)),
                &format!(
                    "for {} field use one of: {}",
                    a(field.field_type),
                    FixtureHint::kinds_for(field.field_type).join(", ")
                ),
            ),
            Some(_)
                if field.format.is_some_and(|f| f.field_type() == field.field_type)
                    && !fixture::hint_fits(hint, field) =>
            {
                let format = field.format.map(FieldFormat::as_str).unwrap_or_default();
                let kind = field.format.map(FieldFormat::hint_kind).unwrap_or_default();
                (self.invalid)(
                    here.key("fixture"),
                    format!("fixture hint `{}` cannot seed values of format `{format}`", hint.kind()),
                    &format!("seed a `{format}` field with a `{kind}` hint, or leave the hint out"),
                )
            }
            _ => {
                if let Err(problem) = fixture::check_hint(hint) {
                    (self.invalid)(here.key("fixture"), problem.message, &problem.hint);
                } else if let (Some(format @ (FieldFormat::Token | FieldFormat::Email)), FixtureHint::Token(token)) =
                    (field.format, hint)
                    && !foundry_catalog_core::is_lowercase_underscore(token.as_ref())
                {
                    (self.invalid)(
                        here.key("fixture"),
                        format!("token {token:?} is not lowercase_underscore, as the `{format}` format needs"),
                        "use lowercase letters, digits and single underscores, such as \"fixture_validated\"",
                    );
                }
            }
        }
    }
}

/// Whether a value names a Rust type of its own (or its items may): a
/// list, a nested object or a closed set.
pub(crate) fn nests(field: &FieldDescriptor) -> bool {
    field.field_type == FieldType::Array || field.fields.is_some() || field.enum_values.is_some()
}

/// `a list`, `a nested object` or the type with its article.
fn describe(field: &FieldDescriptor) -> String {
    match field.field_type {
        FieldType::Array => "a list".to_owned(),
        FieldType::Object if field.fields.is_some() => "a nested object".to_owned(),
        FieldType::String if field.values().is_some() => "a closed set".to_owned(),
        ty => a(ty),
    }
}

/// The value of a JSON number's text when it is a whole number of at most
/// 20 digits, computed from the digits (no `f64` rounding): `1e3` and
/// `1000.0` are 1000, `1.5` and `1e-3` are not whole (`None`), nor is a
/// number too large to matter here.
pub(crate) fn exact_integer(text: &str) -> Option<i128> {
    let (negative, rest) = match text.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, text),
    };
    let (mantissa, exponent) = match rest.find(['e', 'E']) {
        Some(cut) => (&rest[..cut], rest[cut + 1..].parse::<i64>().ok()?),
        None => (rest, 0),
    };
    let (whole, fraction) = mantissa.split_once('.').unwrap_or((mantissa, ""));
    if whole.is_empty() || !whole.bytes().chain(fraction.bytes()).all(|b| b.is_ascii_digit()) {
        return None;
    }
    // The digits with the point moved `exponent` places right.
    let digits = format!("{whole}{fraction}");
    let digits = digits.trim_start_matches('0');
    let mut scale = exponent.checked_sub(i64::try_from(fraction.len()).ok()?)?;
    let significant = digits.trim_end_matches('0');
    if significant.is_empty() {
        return Some(0);
    }
    scale = scale.checked_add(i64::try_from(digits.len() - significant.len()).ok()?)?;
    if scale < 0 {
        return None;
    }
    if i64::try_from(significant.len()).ok()?.checked_add(scale)? > 20 {
        return None;
    }
    let mut value: i128 = significant.parse().ok()?;
    while scale > 0 {
        value *= 10;
        scale -= 1;
    }
    Some(if negative { -value } else { value })
}

#[cfg(test)]
mod tests {
    use super::exact_integer;

    #[test]
    fn a_number_is_read_from_its_digits() {
        assert_eq!(exact_integer("9007199254740993"), Some(9_007_199_254_740_993));
        assert_eq!(exact_integer("-9007199254740993"), Some(-9_007_199_254_740_993));
        assert_eq!(exact_integer("9.007199254740993e15"), Some(9_007_199_254_740_993));
        assert_eq!(exact_integer("90071992547409930e-1"), Some(9_007_199_254_740_993));
        assert_eq!(exact_integer("1000.000"), Some(1000));
        assert_eq!(exact_integer("1E3"), Some(1000));
        assert_eq!(exact_integer("0"), Some(0));
        assert_eq!(exact_integer("-0.0"), Some(0));
        assert_eq!(exact_integer("5.0000000000000001"), None, "not whole, though its f64 is");
        assert_eq!(exact_integer("1.5"), None);
        assert_eq!(exact_integer("1e-3"), None);
        assert_eq!(exact_integer("1e300"), None, "too large to matter");
        assert_eq!(exact_integer("true"), None);
    }
}
