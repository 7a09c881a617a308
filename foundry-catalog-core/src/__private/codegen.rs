//! What generated code writes its field tables with: a `const` builder of
//! [`FieldDescriptor`]s that states only what differs from the defaults
//! (required, no hint, no format), so a field is one short line.
//!
//! ```
//! use foundry_catalog_core::__private::*;
//! const FIELDS: &[FieldDescriptor] = &[
//!     field("station", FieldType::String, "Station name.").text("station").build(),
//!     field("celsius", FieldType::Number, "Temperature.").optional().build(),
//!     field("tags", FieldType::Array, "Labels.")
//!         .items(const { &item(FieldType::String).build() })
//!         .max_items(5)
//!         .build(),
//! ];
//! assert_eq!(FIELDS[1].required, false);
//! assert_eq!(FIELDS[2].item_type().map(|i| i.field_type), Some(FieldType::String));
//! ```
//!
//! The builder is `Copy` and holds only `'static` references, which is what
//! lets every step be a `const fn` (a `const fn` cannot drop the owned
//! half of a [`Cow`]); [`Field::build`] makes the descriptor. Generated code
//! names this module once per table (`use <runtime>::__private::*;` inside
//! the constant's block), not once per call.

use std::borrow::Cow;

pub use crate::format::FieldFormat;
pub use crate::model::{EnumValue, FieldDescriptor, FieldType};
use crate::model::{FixtureHint, Items};

/// A field (or a list's item) being described; see the module docs.
#[derive(Debug, Clone, Copy)]
#[must_use = "a field is described by calling `.build()`"]
pub struct Field {
    name: &'static str,
    field_type: FieldType,
    required: bool,
    description: &'static str,
    hint: Option<Hint>,
    format: Option<FieldFormat>,
    items: Option<&'static FieldDescriptor>,
    min_items: Option<u32>,
    max_items: Option<u32>,
    fields: Option<&'static [FieldDescriptor]>,
    values: Option<&'static [EnumValue]>,
    minimum: Option<f64>,
    maximum: Option<f64>,
    nullable: bool,
}

/// A fixture hint as the builder holds it (`Copy`, `'static`).
#[derive(Debug, Clone, Copy)]
enum Hint {
    Text(&'static str),
    Token(&'static str),
    Date(&'static str),
    Url(&'static str),
    Fraction(f64),
    Sequence,
    Payload(&'static str),
    Absent,
}

/// A required field with this wire name, type and description.
pub const fn field(name: &'static str, field_type: FieldType, description: &'static str) -> Field {
    Field {
        name,
        field_type,
        required: true,
        description,
        hint: None,
        format: None,
        items: None,
        min_items: None,
        max_items: None,
        fields: None,
        values: None,
        minimum: None,
        maximum: None,
        nullable: false,
    }
}

/// One value of a closed set.
pub const fn value(value: &'static str) -> EnumValue {
    EnumValue::new(value)
}

/// A list's item of this type: no name, no description, always present.
pub const fn item(field_type: FieldType) -> Field {
    field("", field_type, "")
}

impl Field {
    /// The field may be left out.
    pub const fn optional(self) -> Field {
        Field { required: false, ..self }
    }

    /// The value may be `null`.
    pub const fn nullable(self) -> Field {
        Field { nullable: true, ..self }
    }

    /// A closed set of values.
    pub const fn values(self, values: &'static [EnumValue]) -> Field {
        Field { values: Some(values), ..self }
    }

    /// The least value allowed.
    pub const fn minimum(self, minimum: f64) -> Field {
        Field { minimum: Some(minimum), ..self }
    }

    /// The greatest value allowed.
    pub const fn maximum(self, maximum: f64) -> Field {
        Field { maximum: Some(maximum), ..self }
    }

    /// A `text` fixture hint.
    pub const fn text(self, phrase: &'static str) -> Field {
        Field { hint: Some(Hint::Text(phrase)), ..self }
    }

    /// A `token` fixture hint.
    pub const fn token(self, token: &'static str) -> Field {
        Field { hint: Some(Hint::Token(token)), ..self }
    }

    /// A `date` fixture hint.
    pub const fn date(self, first: &'static str) -> Field {
        Field { hint: Some(Hint::Date(first)), ..self }
    }

    /// A `url` fixture hint.
    pub const fn url(self, base: &'static str) -> Field {
        Field { hint: Some(Hint::Url(base)), ..self }
    }

    /// A `fraction` fixture hint.
    pub const fn fraction(self, first: f64) -> Field {
        Field { hint: Some(Hint::Fraction(first)), ..self }
    }

    /// The `sequence` fixture hint.
    pub const fn sequence(self) -> Field {
        Field { hint: Some(Hint::Sequence), ..self }
    }

    /// A `payload` fixture hint.
    pub const fn payload(self, fixture_mode: &'static str) -> Field {
        Field { hint: Some(Hint::Payload(fixture_mode)), ..self }
    }

    /// The `absent` fixture hint: left out of every row.
    pub const fn absent(self) -> Field {
        Field { hint: Some(Hint::Absent), ..self }
    }

    /// A format.
    pub const fn format(self, format: FieldFormat) -> Field {
        Field { format: Some(format), ..self }
    }

    /// A list's item type.
    pub const fn items(self, item: &'static FieldDescriptor) -> Field {
        Field { items: Some(item), ..self }
    }

    /// A list's `min_items`.
    pub const fn min_items(self, min: u32) -> Field {
        Field { min_items: Some(min), ..self }
    }

    /// A list's `max_items`.
    pub const fn max_items(self, max: u32) -> Field {
        Field { max_items: Some(max), ..self }
    }

    /// A nested object's fields.
    pub const fn fields(self, fields: &'static [FieldDescriptor]) -> Field {
        Field { fields: Some(fields), ..self }
    }

    /// The descriptor.
    pub const fn build(self) -> FieldDescriptor {
        FieldDescriptor {
            name: Cow::Borrowed(self.name),
            field_type: self.field_type,
            required: self.required,
            description: Cow::Borrowed(self.description),
            fixture: match self.hint {
                None => None,
                Some(Hint::Text(phrase)) => Some(FixtureHint::text(phrase)),
                Some(Hint::Token(token)) => Some(FixtureHint::token(token)),
                Some(Hint::Date(first)) => Some(FixtureHint::date(first)),
                Some(Hint::Url(base)) => Some(FixtureHint::url(base)),
                Some(Hint::Fraction(first)) => Some(FixtureHint::Fraction(first)),
                Some(Hint::Sequence) => Some(FixtureHint::Sequence),
                Some(Hint::Payload(mode)) => Some(FixtureHint::payload(mode)),
                Some(Hint::Absent) => Some(FixtureHint::Absent),
            },
            format: self.format,
            rust_name: None,
            items: match self.items {
                Some(item) => Some(Items::borrowed(item)),
                None => None,
            },
            min_items: self.min_items,
            max_items: self.max_items,
            fields: match self.fields {
                Some(fields) => Some(Cow::Borrowed(fields)),
                None => None,
            },
            minimum: self.minimum,
            maximum: self.maximum,
            enum_values: match self.values {
                Some(values) => Some(Cow::Borrowed(values)),
                None => None,
            },
            nullable: self.nullable,
        }
    }
}

/// The value of a closed set whose wire spelling is `text`: what a
/// generated enum's `FromStr` and `TryFrom<&str>` call, with the enum's
/// `ALL` and `VALUES` (one spelling per variant, in the same order).
///
/// ```
/// use foundry_catalog_core::__private::closed_set_value;
/// #[derive(Debug, Clone, Copy, PartialEq)]
/// enum Condition { New, Used }
/// const ALL: &[Condition] = &[Condition::New, Condition::Used];
/// const VALUES: &[&str] = &["new", "used"];
/// assert_eq!(closed_set_value(ALL, VALUES, "used"), Ok(Condition::Used));
/// assert_eq!(closed_set_value(ALL, VALUES, "old").unwrap_err().expected, VALUES);
/// ```
pub fn closed_set_value<T: Copy>(
    all: &[T],
    values: &'static [&'static str],
    text: &str,
) -> Result<T, crate::UnknownValue> {
    values
        .iter()
        .position(|value| *value == text)
        .and_then(|index| all.get(index).copied())
        .ok_or_else(|| crate::UnknownValue { text: text.to_owned(), expected: values })
}
