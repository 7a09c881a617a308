//! The vocabulary of a record type: field types, sample types, digest
//! lengths, fixture hints, field descriptors and the record schema.
//!
//! The generator and the runtime share this one definition of every term.

use std::borrow::Cow;

use serde::{Deserialize, Serialize};

use crate::format::FieldFormat;

/// 2^53, the largest whole number every JSON reader holds exactly: an
/// integer field's bounds and fixture values stay within ±2^53.
pub const MAX_SAFE_INTEGER: i64 = 1 << 53;

crate::wire_enum! {
    /// The JSON type of a field value, as written in a definition's `type` key
    /// and in `schema_preview.fields[].type`.
    pub enum FieldType {
        /// A JSON string (`::std::string::String` in generated code).
        String = "string",
        /// A JSON number (`f64` in generated code).
        Number = "number",
        /// A JSON number without a fraction (`i64` in generated code).
        Integer = "integer",
        /// `true` or `false` (`bool` in generated code).
        Boolean = "boolean",
        /// A JSON object: with `fields`, a struct of its own in generated
        /// code; without, an open `serde_json::Map<String, serde_json::Value>`.
        Object = "object",
        /// A JSON array of `items` (`Vec<T>` in generated code).
        Array = "array",
    }
}

crate::wire_enum! {
    /// How a product's sample rows were produced (`sample.sample_type`).
    pub enum SampleType {
        /// Public-source fixtures, shown with `valid_public_sample`.
        DeterministicPublicSourceFixture = "deterministic_public_source_fixture",
        /// Executable fixtures, shown with `valid_route_fixture`.
        DeterministicExecutableFixture = "deterministic_executable_fixture",
    }
}

crate::wire_enum! {
    /// Whether a sample is valid, and of which kind (`sample.sample_status`);
    /// always the one paired with the sample type.
    pub enum SampleStatus {
        /// Paired with public-source fixtures.
        ValidPublicSample = "valid_public_sample",
        /// Paired with executable fixtures.
        ValidRouteFixture = "valid_route_fixture",
    }
}

impl SampleType {
    /// The `sample.sample_status` that goes with this sample type
    /// (docs/record-types.md, "Adding a record type"):
    /// public-source fixtures are `valid_public_sample`, executable fixtures
    /// are `valid_route_fixture`.
    pub const fn sample_status(self) -> SampleStatus {
        match self {
            SampleType::DeterministicPublicSourceFixture => SampleStatus::ValidPublicSample,
            SampleType::DeterministicExecutableFixture => SampleStatus::ValidRouteFixture,
        }
    }
}

/// Length of the hexadecimal `schema_hash`: 64 or 40, a definition's
/// `digest_length` (docs/schema-hash.md).
///
/// Both are prefixes of the same SHA-256 digest; see [`crate::hash`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Default)]
pub enum DigestLength {
    /// The full SHA-256 digest: 64 hex characters (the default).
    #[default]
    Hex64,
    /// The first 40 hex characters of the SHA-256 digest.
    Hex40,
}

impl DigestLength {
    /// The number of hex characters.
    pub const fn hex_chars(self) -> usize {
        match self {
            DigestLength::Hex64 => 64,
            DigestLength::Hex40 => 40,
        }
    }

    /// The digest length with this many hex characters, if it is allowed.
    pub const fn from_hex_chars(chars: u64) -> Option<DigestLength> {
        match chars {
            64 => Some(DigestLength::Hex64),
            40 => Some(DigestLength::Hex40),
            _ => None,
        }
    }
}

impl Serialize for DigestLength {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        serializer.serialize_u64(self.hex_chars() as u64)
    }
}

impl<'de> Deserialize<'de> for DigestLength {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let chars = u64::deserialize(deserializer)?;
        DigestLength::from_hex_chars(chars).ok_or_else(|| {
            serde::de::Error::invalid_value(
                serde::de::Unexpected::Unsigned(chars),
                &"a digest length of 64 or 40 hex characters",
            )
        })
    }
}

/// How the fixture value of a field is made (see [`crate::fixture`] for the
/// rules and the defaults used when a field has no hint).
///
/// In a definition file a hint is written `{"text": "entity name"}`,
/// `{"token": "fixture_validated"}`, `{"date": "2026-01-15"}`,
/// `{"url": "https://registry.example.org/records"}`, `{"fraction": 0.91}`,
/// `"sequence"`, `{"payload": "public_safe_example"}` or `"absent"`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum FixtureHint {
    /// String: `"Deterministic fixture <phrase>"`, suffixed `" 2"`, `" 3"` on later rows.
    Text(Cow<'static, str>),
    /// String: the token itself, suffixed `" 2"`, `" 3"` on later rows.
    Token(Cow<'static, str>),
    /// String: a `YYYY-MM-DD` date, this one on row 1 and one day later on each later row.
    Date(Cow<'static, str>),
    /// String: an absolute URL `<base>/<slug>/<row>`.
    Url(Cow<'static, str>),
    /// Number: a decimal in `[0, 1)` with at most three decimals on row 1,
    /// 0.01 lower on each later row (wrapping below zero).
    Fraction(f64),
    /// Number: the row number (1, 2, 3, …).
    Sequence,
    /// Object: `{"product": <slug>, "fixture_mode": <mode>}`.
    Payload(Cow<'static, str>),
    /// Optional fields only: the field is left out of every fixture row.
    Absent,
}

impl FixtureHint {
    /// A [`FixtureHint::Text`] hint, usable in constants.
    pub const fn text(phrase: &'static str) -> Self {
        FixtureHint::Text(Cow::Borrowed(phrase))
    }

    /// A [`FixtureHint::Token`] hint, usable in constants.
    pub const fn token(token: &'static str) -> Self {
        FixtureHint::Token(Cow::Borrowed(token))
    }

    /// A [`FixtureHint::Date`] hint, usable in constants.
    pub const fn date(date: &'static str) -> Self {
        FixtureHint::Date(Cow::Borrowed(date))
    }

    /// A [`FixtureHint::Url`] hint, usable in constants.
    pub const fn url(base: &'static str) -> Self {
        FixtureHint::Url(Cow::Borrowed(base))
    }

    /// A [`FixtureHint::Payload`] hint, usable in constants.
    pub const fn payload(fixture_mode: &'static str) -> Self {
        FixtureHint::Payload(Cow::Borrowed(fixture_mode))
    }

    /// The hint's key in a definition file.
    pub const fn kind(&self) -> &'static str {
        match self {
            FixtureHint::Text(_) => "text",
            FixtureHint::Token(_) => "token",
            FixtureHint::Date(_) => "date",
            FixtureHint::Url(_) => "url",
            FixtureHint::Fraction(_) => "fraction",
            FixtureHint::Sequence => "sequence",
            FixtureHint::Payload(_) => "payload",
            FixtureHint::Absent => "absent",
        }
    }

    /// The field type this hint makes values for; `None` for
    /// [`FixtureHint::Absent`], which fits any optional field.
    pub const fn field_type(&self) -> Option<FieldType> {
        match self {
            FixtureHint::Text(_) | FixtureHint::Token(_) | FixtureHint::Date(_) | FixtureHint::Url(_) => {
                Some(FieldType::String)
            }
            FixtureHint::Fraction(_) | FixtureHint::Sequence => Some(FieldType::Number),
            FixtureHint::Payload(_) => Some(FieldType::Object),
            FixtureHint::Absent => None,
        }
    }

    /// Whether this hint makes values for fields of `field_type`:
    /// [`FixtureHint::Sequence`] counts rows for numbers and integers and
    /// alternates `true`, `false` for booleans; [`FixtureHint::Absent`]
    /// fits any (optional) field.
    pub fn fits_type(&self, field_type: FieldType) -> bool {
        match self {
            FixtureHint::Sequence => {
                matches!(field_type, FieldType::Number | FieldType::Integer | FieldType::Boolean)
            }
            FixtureHint::Absent => true,
            hint => hint.field_type() == Some(field_type),
        }
    }

    /// The hint kinds that fit a field type, for error hints.
    pub const fn kinds_for(field_type: FieldType) -> &'static [&'static str] {
        match field_type {
            FieldType::String => &["text", "token", "date", "url"],
            FieldType::Number => &["fraction", "sequence"],
            FieldType::Integer | FieldType::Boolean => &["sequence"],
            FieldType::Object => &["payload"],
            FieldType::Array => &[],
        }
    }
}

/// One field of a record type: its wire name, type, required flag,
/// description and optional fixture hint.
///
/// The same type is read from a definition file (owned strings) and stored
/// in generated constants (borrowed `'static` strings).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FieldDescriptor {
    /// The wire name, exactly as it appears in JSON.
    pub name: Cow<'static, str>,
    /// The JSON type of the value.
    #[serde(rename = "type")]
    pub field_type: FieldType,
    /// Whether every record carries the field.
    pub required: bool,
    /// What the field means; becomes the doc comment and the
    /// `schema_preview` description. Not part of the schema hash.
    pub description: Cow<'static, str>,
    /// How fixture values are made; `None` uses the format's or the type's
    /// default. Not part of the schema hash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fixture: Option<FixtureHint>,
    /// What the values look like beyond their JSON type (see
    /// [`crate::format`](mod@crate::format)); checked by the validator, stated in the JSON
    /// Schemas and typed in generated Rust. Not part of the schema hash.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub format: Option<FieldFormat>,
    /// The Rust field name to use instead of the one made from the wire
    /// name (to resolve a collision without touching the wire). Read from
    /// definitions only; generated constants leave it out.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rust_name: Option<Cow<'static, str>>,
    /// `array` fields: the type of every item.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub items: Option<Items>,
    /// `array` fields: the fewest items a list may hold.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub min_items: Option<u32>,
    /// `array` fields: the most items a list may hold.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_items: Option<u32>,
    /// `object` fields: the fields of the nested object, in wire order;
    /// `None` for an open object (any keys, any values).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub fields: Option<Cow<'static, [FieldDescriptor]>>,
    /// `integer` and `number` fields: the least value allowed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub minimum: Option<f64>,
    /// `integer` and `number` fields: the greatest value allowed.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub maximum: Option<f64>,
    /// `string` fields: the closed set of values, in definition order.
    #[serde(rename = "enum", default, skip_serializing_if = "Option::is_none")]
    pub enum_values: Option<Cow<'static, [EnumValue]>>,
    /// Whether the value may be `null`. Distinct from `required`: an
    /// optional field may be absent, a nullable one may be `null`, and a
    /// field may be both.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub nullable: bool,
}

/// One value of a closed set (`"enum"` of a `string` field): the wire
/// value and, from a definition, the Rust variant name to use instead of
/// the one made from the value. In a definition it is written as the
/// value itself, or `{"value": "…", "rust_name": "…"}`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnumValue {
    /// The value, exactly as it appears in JSON.
    pub value: Cow<'static, str>,
    /// The Rust variant name to use instead of the one made from the value.
    pub rust_name: Option<Cow<'static, str>>,
}

impl EnumValue {
    /// A value without an explicit Rust name, usable in constants.
    pub const fn new(value: &'static str) -> Self {
        EnumValue { value: Cow::Borrowed(value), rust_name: None }
    }
}

impl Serialize for EnumValue {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        match &self.rust_name {
            None => serializer.serialize_str(&self.value),
            Some(rust_name) => {
                let mut map = serializer.serialize_map(Some(2))?;
                map.serialize_entry("value", &self.value)?;
                map.serialize_entry("rust_name", rust_name)?;
                map.end()
            }
        }
    }
}

impl<'de> Deserialize<'de> for EnumValue {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = EnumValue;

            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("a value (a string) or {\"value\": …, \"rust_name\": …}")
            }

            fn visit_str<E: serde::de::Error>(self, value: &str) -> Result<EnumValue, E> {
                Ok(EnumValue { value: Cow::Owned(value.to_owned()), rust_name: None })
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<EnumValue, A::Error> {
                const KEYS: &[&str] = &["value", "rust_name"];
                let (mut value, mut rust_name) = (None, None);
                while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                    match &*key {
                        "value" if value.is_none() => value = Some(map.next_value::<String>()?),
                        "rust_name" if rust_name.is_none() => rust_name = Some(map.next_value::<String>()?),
                        "value" => return Err(serde::de::Error::duplicate_field("value")),
                        "rust_name" => return Err(serde::de::Error::duplicate_field("rust_name")),
                        other => return Err(serde::de::Error::unknown_field(other, KEYS)),
                    }
                }
                let value = value.ok_or_else(|| serde::de::Error::missing_field("value"))?;
                Ok(EnumValue { value: Cow::Owned(value), rust_name: rust_name.map(Cow::Owned) })
            }
        }
        deserializer.deserialize_any(Visitor)
    }
}

impl FieldDescriptor {
    /// A descriptor from `'static` parts, usable in constants.
    pub const fn new(
        name: &'static str,
        field_type: FieldType,
        required: bool,
        description: &'static str,
        fixture: Option<FixtureHint>,
        format: Option<FieldFormat>,
    ) -> Self {
        FieldDescriptor {
            name: Cow::Borrowed(name),
            field_type,
            required,
            description: Cow::Borrowed(description),
            fixture,
            format,
            rust_name: None,
            items: None,
            min_items: None,
            max_items: None,
            fields: None,
            minimum: None,
            maximum: None,
            enum_values: None,
            nullable: false,
        }
    }

    /// The items of an `array` field.
    pub fn item_type(&self) -> Option<&FieldDescriptor> {
        self.items.as_ref().map(Items::get)
    }

    /// The closed set of a `string` field that has one.
    pub fn values(&self) -> Option<&[EnumValue]> {
        self.enum_values.as_deref()
    }

    /// The nested fields of an `object` field that has them.
    pub fn nested_fields(&self) -> Option<&[FieldDescriptor]> {
        self.fields.as_deref()
    }

    /// What the values are, as one value to match on: every consumer of a
    /// descriptor (fixtures, the validator, the JSON Schemas) matches on it
    /// exhaustively, so a new construct is a compile error in each until
    /// it is handled.
    ///
    /// ```
    /// use foundry_catalog_core::{FieldDescriptor, FieldType, Kind};
    /// let count = FieldDescriptor { minimum: Some(0.0), ..FieldDescriptor::new("n", FieldType::Integer, true, "N.", None, None) };
    /// assert!(matches!(count.kind(), Kind::Integer { minimum: Some(0.0), maximum: None }));
    /// ```
    pub fn kind(&self) -> Kind<'_> {
        let (minimum, maximum, format) = (self.minimum, self.maximum, self.format);
        match self.field_type {
            FieldType::String => match self.values() {
                Some(values) => Kind::ClosedSet(values),
                None => Kind::Text { format },
            },
            FieldType::Number => Kind::Number { minimum, maximum, format },
            FieldType::Integer => Kind::Integer { minimum, maximum },
            FieldType::Boolean => Kind::Boolean,
            FieldType::Object => match self.nested_fields() {
                Some(fields) => Kind::Object(fields),
                None => Kind::OpenObject { format },
            },
            FieldType::Array => {
                Kind::List { item: self.item_type(), min_items: self.min_items, max_items: self.max_items }
            }
        }
    }

    /// How deeply values of this field nest: 0 for a scalar or an open
    /// object, one more than its deepest part for a list or a nested
    /// object.
    pub fn depth(&self) -> usize {
        let items = self.item_type().map_or(0, |item| 1 + item.depth());
        let fields = self.nested_fields().map_or(0, |fields| 1 + fields.iter().map(Self::depth).max().unwrap_or(0));
        items.max(fields)
    }
}

/// What a field's or a list item's values are ([`FieldDescriptor::kind`]):
/// its type with what the type takes (bounds, a format, a closed set,
/// fields, items).
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Kind<'a> {
    /// A string from a closed set (`enum`).
    ClosedSet(&'a [EnumValue]),
    /// Any other string, with its format.
    Text {
        /// `date`, `url`, `token`, `key` or `text`, if any.
        format: Option<FieldFormat>,
    },
    /// A number.
    Number {
        /// The least value allowed.
        minimum: Option<f64>,
        /// The greatest value allowed.
        maximum: Option<f64>,
        /// `fraction`, if any.
        format: Option<FieldFormat>,
    },
    /// A whole number.
    Integer {
        /// The least value allowed (whole, within ±2^53).
        minimum: Option<f64>,
        /// The greatest value allowed (whole, within ±2^53).
        maximum: Option<f64>,
    },
    /// `true` or `false`.
    Boolean,
    /// An object with its own fields (a struct of its own in Rust).
    Object(&'a [FieldDescriptor]),
    /// An object with any keys, with its format.
    OpenObject {
        /// `payload`, if any.
        format: Option<FieldFormat>,
    },
    /// A list.
    List {
        /// What every item is (a checked definition always says).
        item: Option<&'a FieldDescriptor>,
        /// The fewest items.
        min_items: Option<u32>,
        /// The most items.
        max_items: Option<u32>,
    },
}

/// The item type of an `array` field: one descriptor without a name of its
/// own (`name` is empty, `required` is true, the description empty). In a
/// definition it is written with the type keys only: `type`, and
/// `fixture`, `format`, `items`, `min_items`, `max_items`, `fields`,
/// `minimum`, `maximum`, `enum` or `nullable` as its type takes them.
#[derive(Debug, Clone, PartialEq)]
pub struct Items(Cow<'static, [FieldDescriptor]>);

impl Items {
    /// Items described by a descriptor in a constant.
    pub const fn borrowed(item: &'static FieldDescriptor) -> Self {
        Items(Cow::Borrowed(std::slice::from_ref(item)))
    }

    /// Items described by `item`.
    pub fn new(item: FieldDescriptor) -> Self {
        Items(Cow::Owned(vec![item]))
    }

    /// The item descriptor.
    pub fn get(&self) -> &FieldDescriptor {
        // Both constructors hold exactly one descriptor.
        &self.0[0]
    }
}

/// An item as a definition writes it: the type keys of a field.
#[derive(Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct ItemKeys {
    #[serde(rename = "type")]
    field_type: FieldType,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    fixture: Option<FixtureHint>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    format: Option<FieldFormat>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    items: Option<Items>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    min_items: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    max_items: Option<u32>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    fields: Option<Cow<'static, [FieldDescriptor]>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    minimum: Option<f64>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    maximum: Option<f64>,
    #[serde(rename = "enum", default, skip_serializing_if = "Option::is_none")]
    enum_values: Option<Cow<'static, [EnumValue]>>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    nullable: bool,
}

impl Serialize for Items {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        let item = self.get().clone();
        ItemKeys {
            field_type: item.field_type,
            fixture: item.fixture,
            format: item.format,
            items: item.items,
            min_items: item.min_items,
            max_items: item.max_items,
            fields: item.fields,
            minimum: item.minimum,
            maximum: item.maximum,
            enum_values: item.enum_values,
            nullable: item.nullable,
        }
        .serialize(serializer)
    }
}

impl<'de> Deserialize<'de> for Items {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let keys = ItemKeys::deserialize(deserializer)?;
        Ok(Items::new(FieldDescriptor {
            name: Cow::Borrowed(""),
            field_type: keys.field_type,
            required: true,
            description: Cow::Borrowed(""),
            fixture: keys.fixture,
            format: keys.format,
            rust_name: None,
            items: keys.items,
            min_items: keys.min_items,
            max_items: keys.max_items,
            fields: keys.fields,
            minimum: keys.minimum,
            maximum: keys.maximum,
            enum_values: keys.enum_values,
            nullable: keys.nullable,
        }))
    }
}

/// Everything known about one record type: what a definition file says,
/// plus its schema hash. Generated code holds one per record type (as
/// `RecordType::SCHEMA` in the runtime); a definition read at run time
/// gives an owned one.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct RecordSchema {
    /// The record label (`snake_case`), e.g. `regulatory_status_signal`.
    pub record_label: Cow<'static, str>,
    /// What a record of this type is; may be empty.
    pub description: Cow<'static, str>,
    /// How the sample rows were produced.
    pub sample_type: SampleType,
    /// Length of the hex `schema_hash`.
    pub digest_length: DigestLength,
    /// How many fixture rows a sample holds (at least 1).
    pub sample_rows: usize,
    /// The fields, in wire order.
    pub fields: Cow<'static, [FieldDescriptor]>,
    /// The schema hash, as computed by [`crate::hash::schema_hash`] when the
    /// schema was made.
    pub schema_hash: Cow<'static, str>,
}

impl RecordSchema {
    /// The names of the required fields, in field order.
    pub fn required_fields(&self) -> impl Iterator<Item = &str> {
        self.fields.iter().filter(|f| f.required).map(|f| &*f.name)
    }

    /// The field with this wire name.
    pub fn field(&self, name: &str) -> Option<&FieldDescriptor> {
        self.fields.iter().find(|f| f.name == name)
    }
}

impl FieldFormat {
    /// The JSON type of values of this format.
    pub const fn field_type(self) -> FieldType {
        match self {
            FieldFormat::Fraction => FieldType::Number,
            FieldFormat::Payload => FieldType::Object,
            FieldFormat::Date
            | FieldFormat::Url
            | FieldFormat::Token
            | FieldFormat::Text
            | FieldFormat::Key
            | FieldFormat::Timestamp
            | FieldFormat::Email
            | FieldFormat::Uuid => FieldType::String,
        }
    }

    /// The formats of a field type, for error hints.
    pub fn formats_for(field_type: FieldType) -> Vec<&'static str> {
        FieldFormat::ALL.iter().filter(|f| f.field_type() == field_type).map(|f| f.as_str()).collect()
    }
}
