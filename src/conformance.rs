//! The conformance validator: checks any response body (from this crate,
//! from the live service, from another implementation) against every rule
//! of the spec, as untyped JSON.
//!
//! It never panics, whatever the input's shape: every access is checked,
//! and it walks only the fixed structure of the key tables (`shape`, internal), so its depth
//! does not depend on the input.
//!
//! The rules, by [`Rule`] code:
//!
//! | code | rule |
//! |---|---|
//! | `envelope` | the body is an object with exactly one key, `data` |
//! | `missing_field`, `unknown_field` | every object has exactly the keys of its key table (`<Type>::KEYS`; docs/records.md, "The record, declared once") |
//! | `type` | every value has its JSON type; enumerated strings have a shown value |
//! | `format` | slugs, keys, URLs, timestamps, currency and digests have their shown form |
//! | `route_category` | `category` is the one paired with `route` |
//! | `path` | `canonical_path` is `/<route>/<slug>`, `api_path` is `/api/public/foundry/products/<slug>` |
//! | `derived` | `ctaLabel` = `cta_label`, `publicSafe` = `public_safe`, `clickable` = url is set, `content_score` = `quality.content_score`, `member_count`, `row_count`, `field_count`, `required_fields`, `title`, `missing_reason` |
//! | `primary_cta` | null without listings; otherwise exactly one listing is primary and `primary_cta` equals it |
//! | `availability` | a status label shown for the status; `published_product` entries published, clickable, with a URL; unpublished states without a URL |
//! | `first_listing` | the first listing's key is in availability as `published_product` |
//! | `sample` | `sample_status` paired with `sample_type`; `record_label`s equal; `fields` = the preview's field names; rows carry every required field, only known fields, values of the preview's types, and the `" N"` suffix on later rows' fixture text at every depth; the preview of a generated record type lists exactly its definition's fields |
//! | `schema_hash` | recomputed from the preview's fields and label |
//! | `manifest_path` | `products/generated/<slug>/product.json` or `<scheme>://actors/<publisher>/<slug>` |
//! | `field_format` | in the rows of a known record type (its label and fields equal the preview's), every value has its field's format ([`crate::format`](mod@crate::format)); a payload's `product` is the slug; a `key` differs from row to row |

use std::borrow::Cow;
use std::fmt;

use serde_json::{Map, Value};

use crate::fixture::row_suffix;
use crate::format::TEXT_PREFIX;
use crate::product::{API_PATH_PREFIX, AvailabilityStatus, Coverage, ProductManifest, ProductRecord, Route};
use crate::shape::{Field, Role, Shape};
use crate::{FieldDescriptor, FieldFormat, FieldType, Kind, RecordSchema, SampleType};

/// Which rule a violation breaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
#[non_exhaustive]
pub enum Rule {
    /// The body is not `{"data": …}`.
    Envelope,
    /// A key of the object's key table (`<Type>::KEYS`) is missing.
    MissingField,
    /// A key not in the object's key table (`<Type>::KEYS`).
    UnknownField,
    /// A value of the wrong JSON type or an unshown enumerated value.
    Type,
    /// A string not in its shown form.
    Format,
    /// `category` does not go with `route`.
    RouteCategory,
    /// `canonical_path` or `api_path` does not follow from the slug.
    Path,
    /// A derived value disagrees with its source.
    Derived,
    /// `primary_cta` or the primary flags are wrong.
    PrimaryCta,
    /// An availability entry's `status_label`, `url` or `clickable` does not
    /// fit its `status` (docs/records.md, "The conformance validator").
    Availability,
    /// The first listing is not available as `published_product`.
    FirstListing,
    /// The sample disagrees with its `sample_type`, its schema preview or the
    /// fixture rules (docs/records.md, "The conformance validator";
    /// docs/fixtures.md).
    Sample,
    /// `schema_hash` does not match the preview's fields.
    SchemaHash,
    /// `manifest_path` has neither shown shape.
    ManifestPath,
    /// A manifest names a record type that was not generated.
    RecordType,
    /// A sample row's value breaks its field's declared format.
    FieldFormat,
    /// An object of the body's text holds a key twice.
    DuplicateKey,
}

impl Rule {
    /// The rule's code, as printed.
    pub const fn code(self) -> &'static str {
        match self {
            Rule::Envelope => "envelope",
            Rule::MissingField => "missing_field",
            Rule::UnknownField => "unknown_field",
            Rule::Type => "type",
            Rule::Format => "format",
            Rule::RouteCategory => "route_category",
            Rule::Path => "path",
            Rule::Derived => "derived",
            Rule::PrimaryCta => "primary_cta",
            Rule::Availability => "availability",
            Rule::FirstListing => "first_listing",
            Rule::Sample => "sample",
            Rule::SchemaHash => "schema_hash",
            Rule::ManifestPath => "manifest_path",
            Rule::RecordType => "record_type",
            Rule::FieldFormat => "field_format",
            Rule::DuplicateKey => "duplicate_key",
        }
    }
}

/// One broken rule: where (a JSON pointer), which rule, and what is wrong.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violation {
    /// JSON pointer (RFC 6901) to the offending value; `""` is the whole body.
    pub pointer: String,
    /// The rule broken.
    pub rule: Rule,
    /// What is wrong.
    pub message: String,
}

impl Violation {
    /// A violation at `pointer`.
    pub fn new(pointer: impl Into<String>, rule: Rule, message: impl Into<String>) -> Self {
        Violation { pointer: pointer.into(), rule, message: message.into() }
    }
}

impl fmt::Display for Violation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let pointer = if self.pointer.is_empty() { "/" } else { &self.pointer };
        write!(f, "{pointer}: [{}] {}", self.rule.code(), self.message)
    }
}

/// Every violation found, displayed one per line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Violations(pub(crate) Vec<Violation>);

impl Violations {
    /// Every violation, in the order found.
    pub fn as_slice(&self) -> &[Violation] {
        &self.0
    }

    /// How many there are.
    pub fn len(&self) -> usize {
        self.0.len()
    }

    /// Whether there are none.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl IntoIterator for Violations {
    type Item = Violation;
    type IntoIter = std::vec::IntoIter<Violation>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.into_iter()
    }
}

impl<'a> IntoIterator for &'a Violations {
    type Item = &'a Violation;
    type IntoIter = std::slice::Iter<'a, Violation>;

    fn into_iter(self) -> Self::IntoIter {
        self.0.iter()
    }
}

impl fmt::Display for Violations {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, v) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{v}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Violations {}

/// Checks a response body against every rule of the spec. An empty list
/// means it conforms.
///
/// ```
/// let body = serde_json::json!({"data": {"slug": "Not A Slug"}});
/// let violations = foundry_catalog::conformance::validate(&body);
/// assert!(violations.iter().any(|v| v.pointer == "/data/slug" && v.rule.code() == "format"));
/// assert!(violations.iter().any(|v| v.rule.code() == "missing_field"));
/// ```
pub fn validate(body: &Value) -> Vec<Violation> {
    validate_with(body, &[])
}

/// [`validate`], knowing `record_types` besides the generated ones (a
/// serving crate's own, from its [`foundry_catalog_build`]-generated
/// `RECORD_TYPES`): a sample of one of them is checked against its
/// definition at every depth, as the generated ones are.
///
/// [`foundry_catalog_build`]: https://docs.rs/foundry-catalog-build
pub fn validate_with(body: &Value, record_types: &[RecordSchema]) -> Vec<Violation> {
    let mut checker = Checker { types: record_types, ..Checker::default() };
    match body.as_object() {
        None => checker.push(
            &Ptr::Root,
            Rule::Envelope,
            format!("the body is {}, not an object {{\"data\": …}}", kind_of(body)),
        ),
        Some(envelope) => {
            for key in envelope.keys().filter(|k| *k != "data") {
                checker.push(
                    &Ptr::Root.key(key),
                    Rule::Envelope,
                    format!("the envelope has a key `{key}` besides `data`"),
                );
            }
            match envelope.get("data") {
                None => checker.push(&Ptr::Root, Rule::Envelope, "the body has no `data` key"),
                Some(record) => {
                    checker.shape(record, &ProductRecord::SHAPE, &Ptr::Root.key("data"));
                    if let Some(record) = record.as_object() {
                        checker.record(record, &Ptr::Root.key("data"));
                    }
                }
            }
        }
    }
    checker.out
}

/// Every key that an object of the JSON text `json` holds twice, at any
/// depth, as a [`Rule::DuplicateKey`] violation at the second one (empty
/// for text that is not JSON: parsing it says why). A parsed
/// [`Value`] keeps only the last of two such keys, as most JSON readers
/// do, while serde's derived readers (the generated record types) refuse
/// them: RFC 8259 says the names within an object should be unique, and
/// [`validate`] sees the parsed value only, so `foundry-catalog check`
/// runs this on the text first.
///
/// ```
/// let text = br#"{"data": {"sample": {"rows": [{"rating": 9, "rating": 4}]}}}"#;
/// let violations = foundry_catalog::conformance::duplicate_keys(text);
/// assert_eq!(violations[0].pointer, "/data/sample/rows/0/rating");
/// assert_eq!(violations[0].rule.code(), "duplicate_key");
/// assert!(foundry_catalog::conformance::duplicate_keys(br#"{"a": {"b": 1}, "b": 2}"#).is_empty());
/// ```
pub fn duplicate_keys(json: &[u8]) -> Vec<Violation> {
    use serde::de::{DeserializeSeed, Deserializer, MapAccess, SeqAccess, Visitor};
    /// Visits a value at `at`, recording each key an object repeats.
    struct Keys<'a> {
        at: String,
        out: &'a mut Vec<Violation>,
    }
    impl<'de> DeserializeSeed<'de> for Keys<'_> {
        type Value = ();
        fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
            deserializer.deserialize_any(self)
        }
    }
    impl<'de> Visitor<'de> for Keys<'_> {
        type Value = ();
        fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
            let mut seen = std::collections::BTreeSet::new();
            while let Some(key) = map.next_key::<Cow<'de, str>>()? {
                let at = format!("{}/{}", self.at, key.replace('~', "~0").replace('/', "~1"));
                if !seen.insert(key.clone().into_owned()) {
                    self.out.push(Violation::new(
                        at.clone(),
                        Rule::DuplicateKey,
                        format!("the key `{key}` appears twice in one object; a reader keeps one of the two values, the generated types refuse it"),
                    ));
                }
                map.next_value_seed(Keys { at, out: self.out })?;
            }
            Ok(())
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
            let mut i = 0;
            while seq.next_element_seed(Keys { at: format!("{}/{i}", self.at), out: self.out })?.is_some() {
                i += 1;
            }
            Ok(())
        }
        fn visit_bool<E>(self, _: bool) -> Result<(), E> {
            Ok(())
        }
        fn visit_i64<E>(self, _: i64) -> Result<(), E> {
            Ok(())
        }
        fn visit_u64<E>(self, _: u64) -> Result<(), E> {
            Ok(())
        }
        fn visit_f64<E>(self, _: f64) -> Result<(), E> {
            Ok(())
        }
        fn visit_str<E>(self, _: &str) -> Result<(), E> {
            Ok(())
        }
        fn visit_unit<E>(self) -> Result<(), E> {
            Ok(())
        }
    }
    let mut out = Vec::new();
    let mut deserializer = serde_json::Deserializer::from_slice(json);
    let read = Keys { at: String::new(), out: &mut out }.deserialize(&mut deserializer);
    // Text that is not JSON (or has more after the value): none reported.
    if read.is_err() || deserializer.end().is_err() {
        return Vec::new();
    }
    out
}

/// Checks sample rows against their record type at every depth: each row
/// an object of the type's fields, each value of its field's type and
/// format, lists within their bounds and nested objects with their own
/// fields. Pointers are relative to the rows (`/1/seller/name`).
///
/// ```
/// use foundry_catalog::{conformance, records::RegulatoryStatusSignal};
/// use foundry_catalog_core::RecordType;
/// let rows = serde_json::json!([{"entityName": 7}]);
/// let violations = conformance::validate_rows(&RegulatoryStatusSignal::SCHEMA, rows.as_array().unwrap(), None);
/// assert!(violations.iter().any(|v| v.pointer == "/0/entityName"));
/// ```
pub fn validate_rows(schema: &RecordSchema, rows: &[Value], slug: Option<&str>) -> Vec<Violation> {
    let mut checker = Checker::default();
    for (i, row) in rows.iter().enumerate() {
        if !row.is_object() {
            checker.push(&Ptr::Root.index(i), Rule::Sample, format!("a row is an object, not {}", kind_of(row)));
        }
    }
    checker.rows(rows, &schema.fields, slug, &Ptr::Root);
    checker.out
}

/// A JSON pointer (RFC 6901) as a path of keys and indexes, written out
/// only when a violation is reported: checking a valid body formats none.
#[derive(Debug, Clone, Copy)]
enum Ptr<'a> {
    /// The whole document, `""`.
    Root,
    /// A key of an object.
    Key(&'a Ptr<'a>, &'a str),
    /// An index of an array.
    Index(&'a Ptr<'a>, usize),
}

impl<'a> Ptr<'a> {
    fn key(&'a self, key: &'a str) -> Ptr<'a> {
        Ptr::Key(self, key)
    }

    fn index(&'a self, index: usize) -> Ptr<'a> {
        Ptr::Index(self, index)
    }
}

impl fmt::Display for Ptr<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Ptr::Root => Ok(()),
            Ptr::Key(parent, key) => write!(f, "{parent}/{}", key.replace('~', "~0").replace('/', "~1")),
            Ptr::Index(parent, index) => write!(f, "{parent}/{index}"),
        }
    }
}

fn kind_of(value: &Value) -> &'static str {
    match value {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Checks a product manifest against the manifest view of the key tables:
/// the manifest's own keys ([`ProductManifest::KEYS`]) and the record's
/// stored and optional keys, nested objects without their derived keys.
/// Optional keys may be left out; derived and built keys are unknown.
/// Every problem is reported at once, with pointers relative to the
/// manifest. Cross-field rules are checked on the record the manifest
/// builds ([`ProductManifest::build`]).
///
/// ```
/// let manifest = serde_json::json!({"record_label": "x", "slug": "Bad Slug", "category": "dataset_product"});
/// let violations = foundry_catalog::conformance::validate_manifest(&manifest);
/// assert!(violations.iter().any(|v| v.pointer == "/slug" && v.rule.code() == "format"));
/// assert!(violations.iter().any(|v| v.pointer == "/category" && v.rule.code() == "unknown_field"));
/// assert!(violations.iter().any(|v| v.pointer.is_empty() && v.message.contains("`title`")));
/// ```
pub fn validate_manifest(manifest: &Value) -> Vec<Violation> {
    let mut checker = Checker { manifest: true, ..Checker::default() };
    match manifest.as_object() {
        None => checker.push(&Ptr::Root, Rule::Type, format!("a manifest is a JSON object, not {}", kind_of(manifest))),
        Some(object) => {
            let keys: Vec<Field> = ProductManifest::KEYS.iter().chain(ProductRecord::KEYS).copied().collect();
            checker.object(object, &keys, &Ptr::Root);
        }
    }
    checker.out
}

#[derive(Default)]
struct Checker<'t> {
    out: Vec<Violation>,
    /// Record types known besides the generated ones (a serving crate's own).
    types: &'t [RecordSchema],
    /// Checking a manifest: only stored and optional keys exist, and
    /// optional ones may be left out.
    manifest: bool,
}

impl<'t> Checker<'t> {
    /// The record type with this label: one given to the checker, or a
    /// generated one.
    fn known(&self, label: Option<&str>) -> Option<&'t RecordSchema> {
        let label = label?;
        self.types.iter().find(|t| t.record_label == label).or_else(|| crate::record_type(label))
    }

    fn push(&mut self, at: &Ptr<'_>, rule: Rule, message: impl Into<String>) {
        self.out.push(Violation::new(at.to_string(), rule, message));
    }

    /// The structural half: types, formats, enumerations, missing and unknown keys.
    fn shape(&mut self, value: &Value, shape: &Shape, at: &Ptr<'_>) {
        match (shape, value) {
            (Shape::Any, _) => {}
            (Shape::Str(format), Value::String(text)) => {
                if let Err(message) = format.check(text) {
                    self.push(at, Rule::Format, message);
                }
            }
            (Shape::Bool, Value::Bool(_)) => {}
            (Shape::Integer, Value::Number(n)) if integer(n).is_some() => {}
            (Shape::Count, Value::Number(n)) if integer(n).is_some_and(|i| i >= 0.0) => {}
            (Shape::Const(expected), Value::String(text)) => {
                if text != expected {
                    self.push(at, Rule::Type, format!("{text:?} should be {expected:?}"));
                }
            }
            (Shape::OneOf(values), Value::String(text)) => {
                if !values.contains(&text.as_str()) {
                    self.push(at, Rule::Type, format!("{text:?} is not one of {}", values.join(", ")));
                }
            }
            (Shape::Nullable(_), Value::Null) => {}
            (Shape::Nullable(inner), value) => self.shape(value, inner, at),
            (Shape::Array(item), Value::Array(items)) => {
                for (i, value) in items.iter().enumerate() {
                    self.shape(value, item, &at.index(i));
                }
            }
            (Shape::OpenObject, Value::Object(_)) => {}
            (Shape::Object(_, fields), Value::Object(object)) => self.object(object, fields, at),
            (shape, value) => {
                self.push(at, Rule::Type, format!("expected {}, found {}", expected(shape), kind_of(value)))
            }
        }
    }

    fn object(&mut self, object: &Map<String, Value>, fields: &[Field], at: &Ptr<'_>) {
        let manifest = self.manifest;
        let present = |field: &Field| !manifest || matches!(field.role, Role::Stored | Role::Optional);
        for field in fields.iter().filter(|f| present(f)) {
            match object.get(field.name) {
                Some(value) => self.shape(value, &field.shape, &at.key(field.name)),
                None if manifest && field.role == Role::Optional => {}
                None => self.push(at, Rule::MissingField, format!("missing key `{}`", field.name)),
            }
        }
        for key in object.keys() {
            let message = match fields.iter().find(|f| f.name == key.as_str()) {
                Some(field) if present(field) => continue,
                Some(_) => format!("`{key}` is derived or built when the record is made; leave it out of the manifest"),
                None if manifest => format!("`{key}` is not a key of this object in the manifest format"),
                None => format!("`{key}` is not a key of this object in the spec"),
            };
            self.push(&at.key(key), Rule::UnknownField, message);
        }
    }

    /// The cross-field rules of one record.
    fn record(&mut self, record: &Map<String, Value>, at: &Ptr<'_>) {
        let text = |key: &str| record.get(key).and_then(Value::as_str);
        let slug = text("slug");
        let route = text("route");

        if let (Some(route), Some(category)) = (route, text("category"))
            && let Ok(r) = route.parse::<Route>()
            && r.category().as_str() != category
        {
            let expected = r.category().as_str();
            self.push(
                &at.key("category"),
                Rule::RouteCategory,
                format!("route `{route}` goes with category `{expected}`, not `{category}`"),
            );
        }
        if let Some(slug) = slug {
            if let (Some(route), Some(path)) = (route, text("canonical_path")) {
                let expected = format!("/{route}/{slug}");
                if path != expected {
                    self.push(&at.key("canonical_path"), Rule::Path, format!("{path:?} should be {expected:?}"));
                }
            }
            if let Some(path) = text("api_path") {
                let expected = format!("{API_PATH_PREFIX}{slug}");
                if path != expected {
                    self.push(&at.key("api_path"), Rule::Path, format!("{path:?} should be {expected:?}"));
                }
            }
        }
        self.derived_equal(
            record.get("content_score"),
            record.get("quality").and_then(|q| q.get("content_score")),
            &at.key("content_score"),
            "`quality.content_score`",
        );
        if let Some(members) = record.get("member_products").and_then(Value::as_array) {
            self.count(record.get("member_count"), members.len(), &at.key("member_count"), "`member_products`");
        }
        let listings = record.get("marketplaces").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        let availability =
            record.get("marketplace_availability").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        self.listings(listings, record.get("primary_cta"), at);
        self.availability(availability, &at.key("marketplace_availability"));
        self.first_listing(listings, availability, at);
        self.sample_and_preview(record.get("sample"), record.get("schema_preview"), slug, at);
    }

    fn derived_equal(&mut self, value: Option<&Value>, source: Option<&Value>, at: &Ptr<'_>, what: &str) {
        if let (Some(value), Some(source)) = (value, source)
            && !same_value(value, source)
        {
            self.push(at, Rule::Derived, format!("{value} should equal {what} ({source})"));
        }
    }

    fn count(&mut self, value: Option<&Value>, expected: usize, at: &Ptr<'_>, what: &str) {
        if let Some(value) = value
            && value.as_number().and_then(integer) != Some(expected as f64)
        {
            self.push(at, Rule::Derived, format!("{value} should be the length of {what} ({expected})"));
        }
    }

    fn listings(&mut self, listings: &[Value], primary_cta: Option<&Value>, at: &Ptr<'_>) {
        let base = at.key("marketplaces");
        for (i, listing) in listings.iter().enumerate() {
            let here = base.index(i);
            self.derived_equal(listing.get("ctaLabel"), listing.get("cta_label"), &here.key("ctaLabel"), "`cta_label`");
            self.derived_equal(
                listing.get("publicSafe"),
                listing.get("public_safe"),
                &here.key("publicSafe"),
                "`public_safe`",
            );
        }
        let primaries: Vec<usize> = listings
            .iter()
            .enumerate()
            .filter(|(_, l)| l.get("primary") == Some(&Value::Bool(true)))
            .map(|(i, _)| i)
            .collect();
        let cta_at = at.key("primary_cta");
        match (listings.is_empty(), primary_cta) {
            (true, Some(cta)) if !cta.is_null() => {
                self.push(&cta_at, Rule::PrimaryCta, "primary_cta must be null when there are no marketplaces");
            }
            (false, cta) => {
                if primaries.len() != 1 {
                    self.push(
                        &base,
                        Rule::PrimaryCta,
                        format!("exactly one listing must be primary, found {}", primaries.len()),
                    );
                }
                if let (Some(&first), Some(cta)) = (primaries.first(), cta)
                    && listings.get(first) != Some(cta)
                {
                    self.push(
                        &cta_at,
                        Rule::PrimaryCta,
                        format!("primary_cta must equal the primary listing (marketplaces/{first})"),
                    );
                }
            }
            _ => {}
        }
    }

    fn availability(&mut self, entries: &[Value], base: &Ptr<'_>) {
        for (i, entry) in entries.iter().enumerate() {
            let here = base.index(i);
            let url = entry.get("url");
            if let Some(clickable) = entry.get("clickable").and_then(Value::as_bool) {
                let has_url = url.is_some_and(Value::is_string);
                if clickable != has_url {
                    self.push(
                        &here.key("clickable"),
                        Rule::Derived,
                        format!("clickable is {clickable} but url is {}", if has_url { "set" } else { "null" }),
                    );
                }
            }
            let Some(status) =
                entry.get("status").and_then(Value::as_str).and_then(|s| s.parse::<AvailabilityStatus>().ok())
            else {
                continue;
            };
            if let Some(label) = entry.get("status_label").and_then(Value::as_str)
                && !status.status_labels().contains(&label)
            {
                self.push(
                    &here.key("status_label"),
                    Rule::Availability,
                    format!(
                        "{label:?} is not shown with status `{}`; shown: {}",
                        status.as_str(),
                        status.status_labels().join(", ")
                    ),
                );
            }
            if !status.may_have_url() && url.is_some_and(Value::is_string) {
                self.push(
                    &here.key("url"),
                    Rule::Availability,
                    format!("an entry with status `{}` has no url", status.as_str()),
                );
            }
            if entry.get("coverage").and_then(Value::as_str) == Some(Coverage::PublishedProduct.as_str()) {
                if status != AvailabilityStatus::Published {
                    self.push(
                        &here.key("status"),
                        Rule::Availability,
                        "a published_product entry must have status `published`",
                    );
                }
                if !url.is_some_and(Value::is_string) || entry.get("clickable") != Some(&Value::Bool(true)) {
                    self.push(&here, Rule::Availability, "a published_product entry must be clickable with a url");
                }
            }
        }
    }

    fn first_listing(&mut self, listings: &[Value], availability: &[Value], at: &Ptr<'_>) {
        let Some(key) = listings.first().and_then(|l| l.get("key")).and_then(Value::as_str) else {
            return;
        };
        let covered = availability.iter().any(|e| {
            e.get("key").and_then(Value::as_str) == Some(key)
                && e.get("coverage").and_then(Value::as_str) == Some(Coverage::PublishedProduct.as_str())
        });
        if !covered {
            self.push(
                &at.key("marketplace_availability"),
                Rule::FirstListing,
                format!("the first listing `{key}` must appear here with coverage `published_product`"),
            );
        }
    }

    fn sample_and_preview(
        &mut self,
        sample: Option<&Value>,
        preview: Option<&Value>,
        slug: Option<&str>,
        at: &Ptr<'_>,
    ) {
        let (sample_at, preview_at) = (at.key("sample"), at.key("schema_preview"));
        let descriptors =
            preview.and_then(|p| p.get("fields")).and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        // The preview's fields as descriptors, when every one is well formed.
        let fields: Option<Vec<FieldDescriptor>> = descriptors.iter().map(descriptor).collect();
        let label = preview.and_then(|p| p.get("record_label")).and_then(Value::as_str);

        if let Some(preview) = preview {
            self.count(preview.get("field_count"), descriptors.len(), &preview_at.key("field_count"), "`fields`");
            if let (Some(fields), Some(listed)) = (&fields, preview.get("required_fields")) {
                let required: Vec<&str> = fields.iter().filter(|f| f.required).map(|f| &*f.name).collect();
                if listed != &serde_json::json!(required) {
                    self.push(
                        &preview_at.key("required_fields"),
                        Rule::Derived,
                        format!("should be {required:?}, the required fields in order"),
                    );
                }
            }
            // The hash covers the whole contract (lists' items, nested
            // fields, closed sets, null, bounds), which a preview does not
            // show: it is checked for a known record type, against its
            // definition, or against the preview's fields when they differ
            // from it. An unknown type's hash cannot be recomputed.
            if let (Some(known), Some(hash)) = (self.known(label), preview.get("schema_hash").and_then(Value::as_str)) {
                let expected = match &fields {
                    _ if known_preview(known, descriptors) => Some(known.schema_hash.to_string()),
                    Some(fields) => Some(crate::hash::schema_hash(&known.record_label, fields, known.digest_length)),
                    None => None,
                };
                if let Some(expected) = expected.filter(|expected| expected != hash) {
                    self.push(
                        &preview_at.key("schema_hash"),
                        Rule::SchemaHash,
                        format!("{hash} should be {expected}, the hash of the fields and label"),
                    );
                }
            }
            if let (Some(path), Some(slug)) = (preview.get("manifest_path").and_then(Value::as_str), slug)
                && !is_manifest_path(path, slug)
            {
                self.push(
                    &preview_at.key("manifest_path"),
                    Rule::ManifestPath,
                    format!("{path:?} is neither products/generated/{slug}/product.json nor <scheme>://actors/<publisher>/{slug}"),
                );
            }
        }
        let Some(sample) = sample else { return };
        let rows = sample.get("rows").and_then(Value::as_array).map(Vec::as_slice).unwrap_or_default();
        self.count(sample.get("row_count"), rows.len(), &sample_at.key("row_count"), "`rows`");
        let sample_label = sample.get("record_label").and_then(Value::as_str);
        if let (Some(sample_label), Some(label)) = (sample_label, label)
            && sample_label != label
        {
            self.push(
                &sample_at.key("record_label"),
                Rule::Sample,
                format!("`{sample_label}` differs from schema_preview.record_label `{label}`"),
            );
        }
        if let (Some(sample_label), Some(title)) = (sample_label, sample.get("title").and_then(Value::as_str)) {
            let expected = format!("{sample_label} sample rows");
            if title != expected {
                self.push(&sample_at.key("title"), Rule::Derived, format!("{title:?} should be {expected:?}"));
            }
        }
        if let (Some(sample_type), Some(status)) =
            (sample.get("sample_type").and_then(Value::as_str), sample.get("sample_status").and_then(Value::as_str))
            && let Ok(paired) = sample_type.parse::<SampleType>().map(|t| t.sample_status().as_str())
            && paired != status
        {
            self.push(
                &sample_at.key("sample_status"),
                Rule::Sample,
                format!("`{sample_type}` goes with `{paired}`, not `{status}`"),
            );
        }
        if sample.get("sample_available") == Some(&Value::Bool(true))
            && sample.get("missing_reason").is_some_and(|r| !r.is_null())
        {
            self.push(&sample_at.key("missing_reason"), Rule::Derived, "must be null when the sample is available");
        }
        let Some(fields) = fields else { return };
        let names: Vec<&str> = fields.iter().map(|f| &*f.name).collect();
        if let Some(listed) = sample.get("fields")
            && listed != &serde_json::json!(names)
        {
            self.push(
                &sample_at.key("fields"),
                Rule::Sample,
                format!("should be the schema's field names in order: {names:?}"),
            );
        }
        // A known record type (by label) lists its own fields, whose
        // formats, lists and nested objects the rows' values must have.
        let known = self.known(label);
        let fields: &[FieldDescriptor] = match known {
            Some(known) if known_preview(known, descriptors) => &known.fields,
            Some(known) => {
                self.push(
                    &preview_at.key("fields"),
                    Rule::Sample,
                    format!(
                        "`{}` is a known record type; its fields are its definition's, in order: {:?}",
                        known.record_label,
                        known.fields.iter().map(|f| &*f.name).collect::<Vec<_>>()
                    ),
                );
                &fields
            }
            None => &fields,
        };
        self.rows(rows, fields, slug, &sample_at.key("rows"));
    }

    fn rows(&mut self, rows: &[Value], fields: &[FieldDescriptor], slug: Option<&str>, base: &Ptr<'_>) {
        for field in fields {
            if field.format == Some(FieldFormat::Key)
                && let Some((first, again)) =
                    crate::format::check_unique(rows.iter().filter_map(|r| r.get(&*field.name)))
            {
                self.push(
                    &base.index(again).key(&field.name),
                    Rule::FieldFormat,
                    format!("the key `{}` repeats row {}'s value; a key is unique per row", field.name, first + 1),
                );
            }
        }
        for (i, row) in rows.iter().enumerate() {
            let here = base.index(i);
            let Some(row) = row.as_object() else { continue };
            self.fields(row, fields, slug, &here, "the record type");
            if i > 0
                && let Some(first) = rows.first().and_then(Value::as_object)
            {
                let second = rows.get(1).and_then(Value::as_object);
                self.suffixes(first, second, row, fields, i + 1, &here);
            }
        }
    }

    /// Fixture text at every depth: row `n` repeats row 1's text at the same
    /// place (the same field, the same list index) with the suffix `" n"`,
    /// where row 1's text is fixture text or row 2 repeats it with `" 2"`.
    fn suffixes(
        &mut self,
        first: &Map<String, Value>,
        second: Option<&Map<String, Value>>,
        row: &Map<String, Value>,
        fields: &[FieldDescriptor],
        n: usize,
        here: &Ptr<'_>,
    ) {
        for field in fields {
            let name = &*field.name;
            if let (Some(a), Some(value)) = (first.get(name), row.get(name)) {
                self.suffix(a, second.and_then(|s| s.get(name)), value, field, n, &here.key(name));
            }
        }
    }

    /// [`Checker::suffixes`] for one value (a field's or a list item's).
    fn suffix(
        &mut self,
        first: &Value,
        second: Option<&Value>,
        value: &Value,
        field: &FieldDescriptor,
        n: usize,
        at: &Ptr<'_>,
    ) {
        match (first, value) {
            (Value::String(first), Value::String(text)) if field.values().is_none() => {
                let follows = first.starts_with(TEXT_PREFIX)
                    || second
                        .and_then(Value::as_str)
                        .is_some_and(|second| *second == format!("{first}{}", row_suffix(2)));
                let expected = format!("{first}{}", row_suffix(n));
                if follows && *text != expected {
                    self.push(
                        at,
                        Rule::Sample,
                        format!("{text:?} should be {expected:?} (row 1's text with the row suffix)"),
                    );
                }
            }
            (Value::Object(first), Value::Object(object)) => {
                if let Some(fields) = field.nested_fields() {
                    self.suffixes(first, second.and_then(Value::as_object), object, fields, n, at);
                }
            }
            (Value::Array(first), Value::Array(list)) => {
                if let Some(item) = field.item_type() {
                    let second = second.and_then(Value::as_array);
                    for (j, (a, value)) in first.iter().zip(list).enumerate() {
                        self.suffix(a, second.and_then(|s| s.get(j)), value, item, n, &at.index(j));
                    }
                }
            }
            _ => {}
        }
    }

    /// Checks an object (a row or a nested object) against its fields: no
    /// unknown key, every required field, each value of its field's type.
    fn fields(
        &mut self,
        object: &Map<String, Value>,
        fields: &[FieldDescriptor],
        slug: Option<&str>,
        here: &Ptr<'_>,
        what: &str,
    ) {
        for key in object.keys().filter(|k| !fields.iter().any(|f| f.name == k.as_str())) {
            self.push(&here.key(key), Rule::Sample, format!("`{key}` is not a field of {what}"));
        }
        for field in fields {
            match object.get(&*field.name) {
                Some(value) => self.value(value, field, slug, &here.key(&field.name)),
                None if field.required => {
                    self.push(here, Rule::Sample, format!("the required field `{}` is missing", field.name));
                }
                None => {}
            }
        }
    }

    /// Checks one value against the field or list item that holds it: its
    /// type, its format, and what it nests (list lengths and items, nested
    /// fields), at every depth.
    fn value(&mut self, value: &Value, field: &FieldDescriptor, slug: Option<&str>, at: &Ptr<'_>) {
        if value.is_null() && field.nullable {
            return;
        }
        let kind = field.kind();
        let fits = match kind {
            Kind::ClosedSet(_) | Kind::Text { .. } => value.is_string(),
            Kind::Number { .. } => value.is_number(),
            // Written as a whole number, as a Rust `i64` reads it (`3`, not
            // `3.0`: docs/record-types.md, "One contract").
            Kind::Integer { .. } => value.is_i64() || value.is_u64(),
            Kind::Boolean => value.is_boolean(),
            Kind::Object(_) | Kind::OpenObject { .. } => value.is_object(),
            Kind::List { .. } => value.is_array(),
        };
        if !fits {
            let expected = match field.field_type {
                FieldType::Integer => "an integer".to_owned(),
                FieldType::Array => "an array".to_owned(),
                FieldType::Object => "an object".to_owned(),
                other => format!("a {other}"),
            };
            let or_null = if field.nullable { " or null" } else { "" };
            self.push(
                at,
                Rule::Sample,
                format!("expected {expected}{or_null} (the schema's type), found {}", kind_of(value)),
            );
            return;
        }
        if matches!(kind, Kind::Integer { .. }) && !value.is_i64() {
            // Past 2^63 - 1: a whole number no Rust reader's `i64` holds.
            self.push(
                at,
                Rule::Sample,
                format!("{value} is past the range of an integer field, a 64-bit signed one (at most {})", i64::MAX),
            );
            return;
        }
        match (kind, value) {
            (Kind::Number { minimum, maximum, .. } | Kind::Integer { minimum, maximum }, Value::Number(number)) => {
                use std::cmp::Ordering::{Greater, Less};
                if let Some(minimum) = minimum.filter(|&minimum| compare(number, minimum) == Some(Less)) {
                    self.push(at, Rule::Sample, format!("{number} is below the minimum {minimum}"));
                }
                if let Some(maximum) = maximum.filter(|&maximum| compare(number, maximum) == Some(Greater)) {
                    self.push(at, Rule::Sample, format!("{number} is above the maximum {maximum}"));
                }
            }
            (Kind::ClosedSet(values), Value::String(text)) if !values.iter().any(|v| v.value == *text) => {
                let listed: Vec<&str> = values.iter().map(|v| &*v.value).collect();
                self.push(at, Rule::Sample, format!("{text:?} is not one of the closed set {listed:?}"));
            }
            (Kind::List { item, min_items, max_items }, Value::Array(list)) => {
                let len = list.len();
                if let Some(min) = min_items.filter(|&min| len < min as usize) {
                    self.push(at, Rule::Sample, format!("the list holds {len} items, fewer than min_items {min}"));
                }
                if let Some(max) = max_items.filter(|&max| len > max as usize) {
                    self.push(at, Rule::Sample, format!("the list holds {len} items, more than max_items {max}"));
                }
                if let Some(item) = item {
                    for (i, value) in list.iter().enumerate() {
                        self.value(value, item, slug, &at.index(i));
                    }
                }
            }
            (Kind::Object(fields), Value::Object(object)) => self.fields(object, fields, slug, at, "the nested object"),
            _ => {}
        }
        if let Some(format) = field.format
            && let Err(problem) = format.check(value, slug)
        {
            let what = if field.name.is_empty() { "the item".to_owned() } else { format!("`{}`", field.name) };
            self.push(at, Rule::FieldFormat, format!("{what} has format `{format}`: {problem}"));
        }
    }
}

/// How a JSON number compares with a bound, exactly: an integer such as
/// `-9007199254740993` is not rounded to the `f64` next to it.
fn compare(number: &serde_json::Number, bound: f64) -> Option<std::cmp::Ordering> {
    use std::cmp::Ordering;
    let whole = number.as_i64().map(i128::from).or_else(|| number.as_u64().map(i128::from));
    match whole {
        // Every whole f64 within ±2^100 converts to i128 exactly.
        Some(n) if bound.is_finite() && bound.abs() < 1e30 => {
            let floor = bound.floor() as i128;
            Some(match n.cmp(&floor) {
                Ordering::Equal if bound.fract() != 0.0 => Ordering::Less,
                order => order,
            })
        }
        _ => number.as_f64()?.partial_cmp(&bound),
    }
}

/// The value of an integer, `3` and `3.0` alike (JSON Schema's integer:
/// a number with no fractional part); `None` for other numbers.
fn integer(n: &serde_json::Number) -> Option<f64> {
    n.as_f64().filter(|f| f.fract() == 0.0)
}

/// Equal JSON values, with numbers compared by value (`100` = `100.0`).
fn same_value(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(a), Value::Number(b)) => a.as_f64() == b.as_f64() && (a.is_f64() || b.is_f64() || a == b),
        _ => a == b,
    }
}

fn expected(shape: &Shape) -> &'static str {
    match shape {
        Shape::Str(_) | Shape::Const(_) | Shape::OneOf(_) => "a string",
        Shape::Bool => "a boolean",
        Shape::Integer => "an integer",
        Shape::Count => "a non-negative integer",
        Shape::Nullable(inner) => match inner {
            Shape::Object(..) => "an object or null",
            _ => "a string or null",
        },
        Shape::Array(_) => "an array",
        Shape::Object(..) | Shape::OpenObject => "an object",
        Shape::Any => "any value",
    }
}

/// Whether a preview's `fields` are exactly those of the known record type
/// (name, type, required flag and description, in order), as the JSON
/// Schema's `const` for that label says.
fn known_preview(known: &crate::RecordSchema, descriptors: &[Value]) -> bool {
    known.fields.len() == descriptors.len()
        && known.fields.iter().zip(descriptors).all(|(field, value)| {
            serde_json::to_value(crate::preview::FieldPreview::from(field)).is_ok_and(|v| &v == value)
        })
}

/// A well-formed field descriptor from `schema_preview.fields[i]`.
fn descriptor(value: &Value) -> Option<FieldDescriptor> {
    let field_type: FieldType = value.get("type")?.as_str()?.parse().ok()?;
    let required = value.get("required")?.as_bool()?;
    Some(FieldDescriptor {
        name: Cow::Owned(value.get("name")?.as_str()?.to_owned()),
        ..FieldDescriptor::new("", field_type, required, "", None, None)
    })
}

/// Whether `path` is one of the two shown manifest-path shapes for `slug`.
fn is_manifest_path(path: &str, slug: &str) -> bool {
    crate::shape::manifest_path_slug(path) == Some(slug)
}
