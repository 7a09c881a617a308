//! The resolved record type: every Rust item a definition generates, with
//! its name, its fields' Rust names and types, and its place, decided
//! once by the checker (as typify resolves a schema into its `TypeEntry`
//! model before any output). Emit writes it; the settings read its
//! addresses and what each type can derive. Nothing else names a Rust item.

use std::fmt::Write as _;

use foundry_catalog_core::FieldFormat;

/// The Rust items of one record type: its struct, and the nested structs
/// and enums that hang off it (declared in the module `module`).
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct RustTypes {
    /// The module of the nested types: the record label as a field name
    /// (`price_observation`, `r#type`).
    pub(crate) module: String,
    /// The record's struct.
    pub(crate) record: StructDef,
}

/// A struct: the record's, or a nested object's.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct StructDef {
    /// Its name (`PriceObservation`, `SellerAddress`).
    pub(crate) name: String,
    /// Where it is (the record label for the record's struct).
    pub(crate) at: Place,
    /// The description of the field that holds it (empty for the record
    /// and for a list's items).
    pub(crate) description: String,
    /// Its fields, in wire order.
    pub(crate) fields: Vec<FieldDef>,
}

/// A closed set's enum.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct EnumDef {
    /// Its name (`Condition`, `OffersItemChannel`).
    pub(crate) name: String,
    /// Where it is.
    pub(crate) at: Place,
    /// The description of the field that holds it (empty for a list's items).
    pub(crate) description: String,
    /// Each value's Rust variant and wire value, in definition order.
    pub(crate) variants: Vec<Variant>,
}

/// One variant of a closed set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Variant {
    /// The variant (`ForParts`, `V2ndHand`).
    pub(crate) rust: String,
    /// The wire value (`for parts`, `2nd-hand`).
    pub(crate) wire: String,
}

/// One field of a struct.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct FieldDef {
    /// The wire name.
    pub(crate) wire: String,
    /// The Rust name as written in source (`r#type`, `self_`).
    pub(crate) rust: String,
    /// What it means: the doc comment.
    pub(crate) description: String,
    /// Whether every object carries it.
    pub(crate) required: bool,
    /// Whether its value may be `null`.
    pub(crate) nullable: bool,
    /// The Rust type of its values (before `Option` for absent or null).
    pub(crate) value: RustValue,
    /// Where it is.
    pub(crate) at: Place,
}

/// The Rust type of a field's or a list item's values.
#[derive(Debug, Clone, PartialEq)]
pub(crate) enum RustValue {
    /// A type of the runtime, std or serde_json.
    Scalar(Scalar),
    /// A nested object's struct.
    Struct(Box<StructDef>),
    /// A closed set's enum.
    Enum(Box<EnumDef>),
    /// A list: `Vec<T>`, or `Vec<Option<T>>` when its items are nullable.
    List {
        /// The items' type.
        item: Box<RustValue>,
        /// Whether an item may be `null`.
        nullable: bool,
    },
}

/// The Rust types that are not generated.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Scalar {
    /// `String`: text, and every string format but `date` and those of a
    /// checked type (and a list's dates: no serde `with` module reaches
    /// into a `Vec`).
    String,
    /// `f64`: numbers, fractions.
    F64,
    /// `i64`: integers, whatever their bounds.
    I64,
    /// `bool`.
    Bool,
    /// `serde_json::Map<String, serde_json::Value>`: an open object, a payload.
    OpenObject,
    /// `time::Date` through the runtime's `format::date` module: a date field.
    Date,
    /// The runtime's type of a string format checked as it is read
    /// ([`FieldFormat::checked_type`]: `AbsoluteUrl`, `Timestamp`,
    /// `EmailAddress`, `Uuid`).
    Checked(FieldFormat),
}

impl Scalar {
    /// What the type is, when it lacks `std`.
    fn lacks(self, std: Std) -> Option<String> {
        let checked = |format: FieldFormat| format.checked_type().unwrap_or(("String", "a string"));
        match (self, std) {
            (Scalar::F64, Std::Eq | Std::Hash | Std::Ord) => Some("a number (f64)".to_owned()),
            (Scalar::Date, Std::Default) => Some("a date (time::Date), which has no default".to_owned()),
            (Scalar::Checked(format), Std::Default) => {
                let (ty, what) = checked(format);
                Some(format!("{what} ({ty}), which has no default"))
            }
            (Scalar::Checked(format), Std::Copy) => {
                let (ty, what) = checked(format);
                Some(format!("{what} ({ty})"))
            }
            (Scalar::String, Std::Copy) => Some("a string (String)".to_owned()),
            (Scalar::OpenObject, Std::PartialOrd | Std::Ord | Std::Copy) => {
                Some("an open object (serde_json::Map)".to_owned())
            }
            (Scalar::F64, _)
            | (Scalar::Date, _)
            | (Scalar::Checked(_), _)
            | (Scalar::String, _)
            | (Scalar::OpenObject, _)
            | (Scalar::I64 | Scalar::Bool, _) => None,
        }
    }
}

/// Where a generated item or field is: its address, as the settings name
/// it (`price_observation.seller.name`, `price_observation.offers[]`),
/// and its wire path from the record (`seller.name`, `offers[]`; empty for
/// the record).
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Place {
    /// The length of the record label, the address's first part.
    label_len: usize,
    /// The address.
    address: String,
}

impl Place {
    /// The record itself.
    pub(crate) fn record(label: &str) -> Place {
        Place { label_len: label.len(), address: label.to_owned() }
    }

    /// The field `wire` of the object here.
    pub(crate) fn field(&self, wire: &str) -> Place {
        let mut address = String::with_capacity(self.address.len() + wire.len() + 1);
        let _ = write!(address, "{}.{wire}", self.address);
        Place { label_len: self.label_len, address }
    }

    /// The items of the list here.
    pub(crate) fn items(&self) -> Place {
        Place { label_len: self.label_len, address: format!("{}[]", self.address) }
    }

    /// The address (`price_observation.seller`).
    pub(crate) fn address(&self) -> &str {
        &self.address
    }

    /// The wire path from the record (`seller`; empty for the record).
    pub(crate) fn path(&self) -> &str {
        self.address.get(self.label_len + 1..).unwrap_or_default()
    }
}

/// Standard derives whose needs the generator knows.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Std {
    Eq,
    Hash,
    PartialOrd,
    Ord,
    Default,
    Copy,
}

impl Std {
    /// Each derive, its name and its full path.
    pub(crate) const ALL: [(Std, &'static str, &'static str); 6] = [
        (Std::Eq, "Eq", "::std::cmp::Eq"),
        (Std::Hash, "Hash", "::std::hash::Hash"),
        (Std::PartialOrd, "PartialOrd", "::std::cmp::PartialOrd"),
        (Std::Ord, "Ord", "::std::cmp::Ord"),
        (Std::Default, "Default", "::std::default::Default"),
        (Std::Copy, "Copy", "::std::marker::Copy"),
    ];

    /// The standard derive a path names (`Eq`, `std::cmp::Eq`,
    /// `::core::cmp::Eq`), with its full path.
    pub(crate) fn of(path: &str) -> Option<(Std, &'static str)> {
        let trimmed = path.trim_start_matches("::");
        Std::ALL.iter().find_map(|&(std, name, full)| {
            let bare = full.trim_start_matches("::");
            let core = bare.replacen("std::", "core::", 1);
            (trimmed == name || trimmed == bare || trimmed == core).then_some((std, full))
        })
    }

    /// Its name (`Eq`).
    pub(crate) fn name(self) -> &'static str {
        Std::ALL.iter().find(|(std, ..)| *std == self).map_or("", |(_, name, _)| name)
    }

    /// Whether every closed set's enum derives it without being asked.
    fn on_every_enum(self) -> bool {
        matches!(self, Std::Copy | Std::Eq | Std::Hash)
    }
}

/// Which nested types a derive reaches: every one (`Generator::derive`),
/// or those whose address the function accepts (`type_attribute`s).
#[derive(Clone, Copy)]
pub(crate) enum Reach<'a> {
    /// Every struct and enum of the record type gets it.
    Everywhere,
    /// Only the types at the addresses this accepts get it.
    Only(&'a dyn Fn(&str) -> bool),
}

impl StructDef {
    /// Why deriving `std` on this struct would not compile, naming the
    /// first value (depth first, in field order) whose type cannot have
    /// it, when nested types get it as `reach` says.
    pub(crate) fn lacks(&self, std: Std, reach: Reach<'_>) -> Option<String> {
        self.fields.iter().find_map(|field| field.value.lacks(std, &field.at, !field.required || field.nullable, reach))
    }

    /// Every struct and enum this one's fields hold, outermost first, in
    /// field order: the order they are declared in.
    pub(crate) fn nested(&self) -> Vec<Nested<'_>> {
        let mut out = Vec::new();
        let mut next = 0;
        push_nested(&self.fields, &mut out);
        while let Some(&nested) = out.get(next) {
            if let Nested::Struct(s) = nested {
                push_nested(&s.fields, &mut out);
            }
            next += 1;
        }
        out
    }
}

/// A nested type of a record type.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Nested<'a> {
    /// A nested object's struct.
    Struct(&'a StructDef),
    /// A closed set's enum.
    Enum(&'a EnumDef),
}

fn push_nested<'a>(fields: &'a [FieldDef], out: &mut Vec<Nested<'a>>) {
    for field in fields {
        let mut value = &field.value;
        while let RustValue::List { item, .. } = value {
            value = item;
        }
        match value {
            RustValue::Struct(s) => out.push(Nested::Struct(s)),
            RustValue::Enum(e) => out.push(Nested::Enum(e)),
            RustValue::Scalar(_) | RustValue::List { .. } => {}
        }
    }
}

impl EnumDef {
    /// Why deriving `std` on this enum would not compile.
    pub(crate) fn lacks(&self, std: Std) -> Option<String> {
        (std == Std::Default).then(|| format!("`{}` is a closed set, which has no default", self.at.address()))
    }
}

impl RustValue {
    /// Why a value of this type at `at` (in an `Option` when `optional`)
    /// keeps its struct from deriving `std`.
    fn lacks(&self, std: Std, at: &Place, optional: bool, reach: Reach<'_>) -> Option<String> {
        // An `Option` and a `Vec` have a default whatever they hold.
        let has_default = optional && std == Std::Default;
        match (self, reach) {
            (RustValue::Scalar(_), _) if has_default => None,
            (RustValue::Scalar(scalar), _) => scalar.lacks(std).map(|what| format!("`{}` is {what}", at.address())),
            // A nested type that gets the derive too must be able to have it.
            (RustValue::Struct(s), Reach::Everywhere) => s.lacks(std, reach),
            (RustValue::Enum(e), Reach::Everywhere) => e.lacks(std),
            (RustValue::Struct(_) | RustValue::Enum(_), Reach::Only(_)) if has_default => None,
            (RustValue::Struct(s), Reach::Only(gets)) => (!gets(s.at.address())).then(|| {
                format!("`{}` is the struct `{}`, which does not derive `{}`", at.address(), s.name, std.name())
            }),
            (RustValue::Enum(e), Reach::Only(gets)) if std.on_every_enum() || gets(e.at.address()) => e.lacks(std),
            (RustValue::Enum(e), Reach::Only(_)) => Some(format!(
                "`{}` is the closed set `{}`, which does not derive `{}`",
                at.address(),
                e.name,
                std.name()
            )),
            (RustValue::List { .. }, _) if std == Std::Copy => Some(format!("`{}` is a list (Vec)", at.address())),
            (RustValue::List { .. }, Reach::Only(_)) if std == Std::Default => None,
            (RustValue::List { item, nullable }, _) => {
                item.lacks(std, &at.items(), *nullable || std == Std::Default, reach)
            }
        }
    }
}

impl RustTypes {
    /// Why deriving `std` on every generated type of this record type
    /// (`Generator::derive`) would not compile.
    pub(crate) fn lacks_everywhere(&self, std: Std) -> Option<String> {
        self.record.lacks(std, Reach::Everywhere)
    }

    /// The address of every type (the record's, nested objects', closed
    /// sets') and of every field, at every depth.
    pub(crate) fn addresses(&self) -> (Vec<&str>, Vec<&str>) {
        let mut types = vec![self.record.at.address()];
        let mut fields = Vec::new();
        struct_addresses(&self.record, &mut types, &mut fields);
        (types, fields)
    }

    /// The type at `address`, if there is one.
    pub(crate) fn type_at(&self, address: &str) -> Option<Nested<'_>> {
        if self.record.at.address() == address {
            return Some(Nested::Struct(&self.record));
        }
        self.record.nested().into_iter().find(|nested| match nested {
            Nested::Struct(s) => s.at.address() == address,
            Nested::Enum(e) => e.at.address() == address,
        })
    }
}

fn struct_addresses<'a>(s: &'a StructDef, types: &mut Vec<&'a str>, fields: &mut Vec<&'a str>) {
    for field in &s.fields {
        fields.push(field.at.address());
        value_addresses(&field.value, types, fields);
    }
}

fn value_addresses<'a>(value: &'a RustValue, types: &mut Vec<&'a str>, fields: &mut Vec<&'a str>) {
    match value {
        RustValue::Scalar(_) => {}
        RustValue::Struct(s) => {
            types.push(s.at.address());
            struct_addresses(s, types, fields);
        }
        RustValue::Enum(e) => types.push(e.at.address()),
        RustValue::List { item, .. } => value_addresses(item, types, fields),
    }
}
