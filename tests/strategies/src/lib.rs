//! Proptest strategies for random valid field descriptors, shared by the
//! generator's tests (`foundry-catalog-build/tests/generator`) and the
//! runtime's (`tests/generated`): any type, lists and nested objects to a
//! given depth, closed sets, bounds, nullable values, and formats and
//! fixture hints that fit.

use std::borrow::Cow;

use foundry_catalog_core::{EnumValue, FieldDescriptor, FieldFormat, FieldType, FixtureHint, Items};
use proptest::prelude::*;

/// A hint that fits `ty` (or none), with valid parameters.
pub fn hint(ty: FieldType, required: bool) -> BoxedStrategy<Option<FixtureHint>> {
    hint_sized(ty, required, false)
}

/// [`hint`] with `long` phrases, tokens and URLs (up to past a line's
/// margin, for the printer's tests) or short ones.
pub fn hint_sized(ty: FieldType, required: bool, long: bool) -> BoxedStrategy<Option<FixtureHint>> {
    let pick = |short: &'static str, long_one: &'static str| if long { long_one } else { short };
    let absent = if required { Just(None).boxed() } else { Just(Some(FixtureHint::Absent)).boxed() };
    let fitting = match ty {
        FieldType::String => prop_oneof![
            pick("[a-z]{1,8}( [a-z]{1,8}){0,2}", "[a-z]{1,30}( [a-z]{1,30}){0,3}")
                .prop_map(|p| Some(FixtureHint::Text(Cow::Owned(p)))),
            pick("[a-z_]{1,12}", "[a-z_:.]{1,60}").prop_map(|t| Some(FixtureHint::Token(Cow::Owned(t)))),
            (2000i32..2100, 1u8..13, 1u8..29)
                .prop_map(|(y, m, d)| Some(FixtureHint::Date(Cow::Owned(format!("{y:04}-{m:02}-{d:02}"))))),
            pick("[a-z]{1,10}(/[a-z0-9]{1,6}){0,2}", "[a-z]{1,40}(/[a-z0-9]{1,20}){0,3}")
                .prop_map(|p| Some(FixtureHint::Url(Cow::Owned(format!("https://{p}"))))),
        ]
        .boxed(),
        FieldType::Number => prop_oneof![
            (0u16..1000).prop_map(|t| Some(FixtureHint::Fraction(f64::from(t) / 1000.0))),
            Just(Some(FixtureHint::Sequence)),
        ]
        .boxed(),
        FieldType::Integer | FieldType::Boolean => Just(Some(FixtureHint::Sequence)).boxed(),
        FieldType::Object => {
            pick("[a-z_]{1,12}", "[a-z_]{1,60}").prop_map(|m| Some(FixtureHint::Payload(Cow::Owned(m)))).boxed()
        }
        FieldType::Array => Just(None).boxed(),
    };
    prop_oneof![Just(None), fitting, absent].boxed()
}

/// A format that fits `ty` (or none) and a hint that fits both: the
/// format's seed kind, or none, or `absent` on an optional field.
pub fn format_and_hint(
    ty: FieldType,
    required: bool,
    any_hint: BoxedStrategy<Option<FixtureHint>>,
) -> BoxedStrategy<(Option<FieldFormat>, Option<FixtureHint>)> {
    let formats: Vec<FieldFormat> = FieldFormat::ALL.iter().copied().filter(|f| f.field_type() == ty).collect();
    let absent = if required { None } else { Some(FixtureHint::Absent) };
    let unformatted = any_hint.prop_map(|hint| (None, hint)).boxed();
    if formats.is_empty() {
        // Integers and booleans take no format.
        return unformatted;
    }
    let formatted = prop::sample::select(formats)
        .prop_flat_map(move |format| {
            let seed: BoxedStrategy<FixtureHint> = match format {
                FieldFormat::Date | FieldFormat::Timestamp => (2000i32..2100, 1u8..13, 1u8..29)
                    .prop_map(|(y, m, d)| FixtureHint::Date(Cow::Owned(format!("{y:04}-{m:02}-{d:02}"))))
                    .boxed(),
                FieldFormat::Url => "[a-z]{1,10}(/[a-z0-9]{1,6}){0,2}"
                    .prop_map(|p| FixtureHint::Url(Cow::Owned(format!("https://{p}"))))
                    .boxed(),
                FieldFormat::Fraction => {
                    (0u16..1000).prop_map(|t| FixtureHint::Fraction(f64::from(t) / 1000.0)).boxed()
                }
                FieldFormat::Token | FieldFormat::Email => {
                    "[a-z][a-z0-9]{0,6}(_[a-z0-9]{1,4}){0,2}".prop_map(|t| FixtureHint::Token(Cow::Owned(t))).boxed()
                }
                FieldFormat::Key | FieldFormat::Uuid => {
                    "[A-Za-z0-9_.:-]{1,12}".prop_map(|t| FixtureHint::Token(Cow::Owned(t))).boxed()
                }
                FieldFormat::Payload => "[a-z_]{1,12}".prop_map(|m| FixtureHint::Payload(Cow::Owned(m))).boxed(),
                FieldFormat::Text => {
                    "[a-z]{1,8}( [a-z]{1,8}){0,2}".prop_map(|p| FixtureHint::Text(Cow::Owned(p))).boxed()
                }
            };
            let absent = absent.clone();
            prop_oneof![Just(None), seed.prop_map(Some), Just(absent)].prop_map(move |hint| (Some(format), hint))
        })
        .boxed();
    prop_oneof![unformatted, formatted].boxed()
}

/// A strategy for fitting hints of a type, required or not.
pub type HintFor = fn(FieldType, bool) -> BoxedStrategy<Option<FixtureHint>>;

/// Fields named from `name` (plus their index), described from
/// `description`, `count` of them, each a scalar with a fitting format
/// and hint, or (while `depth` allows) a list or a nested object of such
/// fields.
pub fn nested_fields(
    name: &'static str,
    description: &'static str,
    hint: HintFor,
    count: std::ops::Range<usize>,
    depth: u32,
) -> BoxedStrategy<Vec<FieldDescriptor>> {
    prop::collection::vec(
        (name, value(name, description, hint, depth), any::<bool>(), any::<bool>(), description),
        count,
    )
    .prop_flat_map(move |specs| {
        specs
            .into_iter()
            .enumerate()
            .map(|(i, (base, value, required, leave_out, text))| {
                // Lists, objects, closed sets and bounded numbers keep
                // what their value strategy made.
                let nests = value.items.is_some()
                    || value.fields.is_some()
                    || value.enum_values.is_some()
                    || value.minimum.is_some()
                    || value.maximum.is_some();
                let named = FieldDescriptor {
                    name: Cow::Owned(format!("{base}{i}")),
                    required,
                    description: Cow::Owned(text),
                    fixture: if nests && !required && leave_out { Some(FixtureHint::Absent) } else { None },
                    ..value
                };
                if nests {
                    return Just(named).boxed();
                }
                let ty = named.field_type;
                format_and_hint(ty, required, hint(ty, required))
                    .prop_map(move |(format, fixture)| FieldDescriptor { format, fixture, ..named.clone() })
                    .boxed()
            })
            .collect::<Vec<_>>()
    })
    .boxed()
}

/// An unnamed value: a scalar (with a fitting format and hint), or while
/// `depth` allows a list of values (with bounds around the fixture
/// length, or none) or an object of fields.
pub fn value_shape(
    name: &'static str,
    description: &'static str,
    hint: HintFor,
    depth: u32,
) -> BoxedStrategy<FieldDescriptor> {
    // Every type but a list (an object here is open), or a closed set.
    let scalars: Vec<FieldType> = FieldType::ALL.iter().copied().filter(|t| *t != FieldType::Array).collect();
    let scalar = prop::sample::select(scalars)
        .prop_flat_map(move |ty| {
            format_and_hint(ty, true, hint(ty, true))
                .prop_map(move |(format, fixture)| FieldDescriptor::new("", ty, true, "", fixture, format))
        })
        .boxed();
    let closed = prop::collection::btree_set("[a-z]{1,6}", 1..5).prop_map(|values| FieldDescriptor {
        enum_values: Some(values.into_iter().map(|v| EnumValue { value: Cow::Owned(v), rust_name: None }).collect()),
        ..FieldDescriptor::new("", FieldType::String, true, "", None, None)
    });
    // Integers and numbers between bounds (either may be missing).
    let bound = || prop_oneof![Just(None), (-20i32..20).prop_map(|b| Some(f64::from(b) / 4.0))];
    let bounded = (prop_oneof![Just(FieldType::Integer), Just(FieldType::Number)], bound(), bound())
        .prop_filter("a bound", |(_, min, max)| min.is_some() || max.is_some())
        .prop_map(|(ty, min, max)| {
            let whole = |b: Option<f64>| if ty == FieldType::Integer { b.map(f64::round) } else { b };
            let (minimum, maximum) = match (whole(min), whole(max)) {
                (Some(a), Some(b)) => (Some(a.min(b)), Some(a.max(b))),
                other => other,
            };
            FieldDescriptor { minimum, maximum, ..FieldDescriptor::new("", ty, true, "", None, None) }
        });
    let scalar = prop_oneof![6 => scalar, 1 => closed, 1 => bounded].boxed();
    if depth == 0 {
        return scalar;
    }
    let bound = prop_oneof![Just(None), (0u32..4).prop_map(Some)];
    let list = (value(name, description, hint, depth - 1), bound.clone(), bound).prop_map(|(item, min, max)| {
        let (min_items, max_items) = match (min, max) {
            (Some(a), Some(b)) => (Some(a.min(b)), Some(a.max(b))),
            other => other,
        };
        FieldDescriptor {
            items: Some(Items::new(item)),
            min_items,
            max_items,
            ..FieldDescriptor::new("", FieldType::Array, true, "", None, None)
        }
    });
    let object = nested_fields(name, description, hint, 1..4, depth - 1).prop_map(|fields| FieldDescriptor {
        fields: Some(Cow::Owned(fields)),
        ..FieldDescriptor::new("", FieldType::Object, true, "", None, None)
    });
    prop_oneof![2 => scalar, 1 => list, 1 => object].boxed()
}

/// A value: one of [`value_shape`]'s, nullable or not.
pub fn value(
    name: &'static str,
    description: &'static str,
    hint: HintFor,
    depth: u32,
) -> BoxedStrategy<FieldDescriptor> {
    (value_shape(name, description, hint, depth), any::<bool>())
        .prop_map(|(value, nullable)| FieldDescriptor { nullable, ..value })
        .boxed()
}
