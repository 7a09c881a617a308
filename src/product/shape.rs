//! The wire shape of a response body: every key of spec §2 in table order,
//! its JSON type and format, and its role (stored, derived, or built from
//! the record type).
//!
//! This table is the one source of truth for three things: the structural
//! half of the conformance validator walks it, the JSON Schemas of the
//! response and of the product manifest are generated from it, and a test
//! checks that the typed model serializes exactly these keys in this order.

use serde_json::{Map, Value, json};

use crate::model::{FieldType, RecordSchema};

/// What a string must look like.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// Any text.
    Text,
    /// A product slug (see [`crate::Slug`]).
    Slug,
    /// A `lowercase_underscore` identifier: marketplace keys, record labels.
    Key,
    /// UTC with microseconds: `YYYY-MM-DDTHH:MM:SS.ffffffZ`.
    UtcMicros,
    /// ISO 8601 with a numeric offset.
    OffsetTime,
    /// An absolute http(s) URL.
    AbsoluteUrl,
    /// An ISO 4217 code.
    Currency,
    /// Lowercase hex, 64 or 40 characters.
    HexDigest,
}

impl Format {
    /// Checks `text`; the message says what is wrong.
    pub fn check(self, text: &str) -> Result<(), String> {
        let ok = match self {
            Format::Text => true,
            Format::Slug => return crate::Slug::new(text).map(drop).map_err(|e| e.to_string()),
            Format::Key => crate::model::is_lowercase_underscore(text),
            Format::UtcMicros => return text.parse::<crate::UtcTimestamp>().map(drop).map_err(|e| e.to_string()),
            Format::OffsetTime => return super::OffsetTimestamp::new(text).map(drop).map_err(|e| e.to_string()),
            Format::AbsoluteUrl => super::is_absolute_url(text),
            Format::Currency => return super::Currency::new(text).map(drop).map_err(|e| e.to_string()),
            Format::HexDigest => {
                matches!(text.len(), 40 | 64) && text.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
            }
        };
        if ok { Ok(()) } else { Err(format!("{text:?} is not {}", self.describe())) }
    }

    /// What the format is, in words.
    pub const fn describe(self) -> &'static str {
        match self {
            Format::Text => "text",
            Format::Slug => "a slug (lowercase words joined by hyphens)",
            Format::Key => "a lowercase_underscore identifier",
            Format::UtcMicros => "a UTC timestamp with microseconds (YYYY-MM-DDTHH:MM:SS.ffffffZ)",
            Format::OffsetTime => "an ISO 8601 timestamp with a numeric UTC offset",
            Format::AbsoluteUrl => "an absolute http(s) URL",
            Format::Currency => "an ISO 4217 currency code",
            Format::HexDigest => "a lowercase hex digest of 64 or 40 characters",
        }
    }

    /// The same rule as a JSON Schema `pattern`, where one can say it (the
    /// tests check both agree on the catalog and on broken values).
    pub const fn pattern(self) -> Option<&'static str> {
        match self {
            Format::Text => None,
            Format::Slug => Some("^[a-z0-9]+(-[a-z0-9]+)*$"),
            Format::Key => Some("^[a-z][a-z0-9]*(_[a-z0-9]+)*$"),
            Format::UtcMicros => Some("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{6}Z$"),
            Format::OffsetTime => {
                Some("^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}(\\.[0-9]+)?[+-][0-9]{2}:[0-9]{2}$")
            }
            Format::AbsoluteUrl => Some("^[Hh][Tt][Tt][Pp][Ss]?://[^/?#\\s]+([/?#][^\\s]*)?$"),
            Format::Currency => Some("^[A-Z]{3}$"),
            Format::HexDigest => Some("^([0-9a-f]{40}|[0-9a-f]{64})$"),
        }
    }
}

/// The JSON shape of a value.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shape {
    /// A string of this format.
    Str(Format),
    /// `true` or `false`.
    Bool,
    /// An integer.
    Integer,
    /// This exact string.
    Const(&'static str),
    /// One of these strings.
    OneOf(&'static [&'static str]),
    /// The inner shape, or `null`.
    Nullable(&'static Shape),
    /// An array of the inner shape.
    Array(&'static Shape),
    /// Anything (item shapes the spec does not show).
    Any,
    /// An object with exactly these keys, in this order.
    Object(&'static [Field]),
    /// An object with any keys (sample rows, whose keys depend on the record type).
    OpenObject,
}

/// Where a key's value comes from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Role {
    /// Written in the product manifest and stored once.
    Stored,
    /// Stored, and may be left out of a manifest (an empty array or null).
    Optional,
    /// Computed from other values; never written in a manifest.
    Derived,
    /// Built from the product's record type (`sample`, `schema_preview`).
    Built,
}

/// One key of an object.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Field {
    /// The key.
    pub name: &'static str,
    /// Its shape.
    pub shape: Shape,
    /// Where its value comes from.
    pub role: Role,
    /// What it is (from the spec's notes).
    pub doc: &'static str,
}

const fn f(name: &'static str, shape: Shape, role: Role, doc: &'static str) -> Field {
    Field { name, shape, role, doc }
}

use Role::{Built, Derived, Optional, Stored};

const TEXT: Shape = Shape::Str(Format::Text);
const TEXTS: Shape = Shape::Array(&TEXT);
const ANYS: Shape = Shape::Array(&Shape::Any);
const NULLABLE_TEXT: Shape = Shape::Nullable(&TEXT);

// The enumerated values, spelled once by the enums that own them.
use super::{AvailabilityStatus, Coverage, Route};
use crate::model::SampleType;

/// `route` values, in the spec's order.
pub const ROUTES: &[&str] = &[Route::Datasets.as_str(), Route::Actors.as_str(), Route::Automation.as_str()];
/// `category` values, in the order of [`ROUTES`].
pub const CATEGORIES: &[&str] =
    &[Route::Datasets.category().as_str(), Route::Actors.category().as_str(), Route::Automation.category().as_str()];
/// `marketplace_availability[].status` values.
pub const AVAILABILITY_STATUSES: &[&str] = &[
    AvailabilityStatus::Published.as_str(),
    AvailabilityStatus::Uploaded.as_str(),
    AvailabilityStatus::UnderReview.as_str(),
    AvailabilityStatus::PartiallyPublished.as_str(),
];
/// `marketplace_availability[].coverage` values.
pub const COVERAGES: &[&str] = &[Coverage::PublishedProduct.as_str(), Coverage::ApplicationCovered.as_str()];
/// `sample.sample_type` values.
pub const SAMPLE_TYPES: &[&str] =
    &[SampleType::DeterministicPublicSourceFixture.as_str(), SampleType::DeterministicExecutableFixture.as_str()];
/// `sample.sample_status` values, paired with [`SAMPLE_TYPES`].
pub const SAMPLE_STATUSES: &[&str] = &[
    SampleType::DeterministicPublicSourceFixture.sample_status(),
    SampleType::DeterministicExecutableFixture.sample_status(),
];
/// `schema_preview.fields[].type` values.
pub const FIELD_TYPES: &[&str] = &[FieldType::String.as_str(), FieldType::Number.as_str(), FieldType::Object.as_str()];

/// A marketplace listing (spec §2.2).
pub const LISTING: &[Field] = &[
    f("key", Shape::Str(Format::Key), Stored, "Identifier of the marketplace (lowercase_underscore)."),
    f("label", TEXT, Stored, "Display name."),
    f("url", Shape::Str(Format::AbsoluteUrl), Stored, "Absolute URL of the listing."),
    f("status", Shape::Const("published"), Derived, "Always `published`."),
    f("primary", Shape::Bool, Stored, "True for the listing used as `primary_cta`."),
    f("cta_label", TEXT, Stored, "Button text."),
    f("ctaLabel", TEXT, Derived, "Same value as `cta_label`."),
    f("public_safe", Shape::Bool, Stored, "Whether the listing is public-safe."),
    f("publicSafe", Shape::Bool, Derived, "Same value as `public_safe`."),
];

/// An availability entry (spec §2.3).
pub const AVAILABILITY: &[Field] = &[
    f("key", Shape::Str(Format::Key), Stored, "Marketplace identifier."),
    f("label", TEXT, Stored, "Display name."),
    f("status", Shape::OneOf(AVAILABILITY_STATUSES), Stored, "State on that marketplace (spec §3)."),
    f("status_label", TEXT, Stored, "Display text shown with the status."),
    f("action_label", TEXT, Stored, "Button text."),
    f("url", Shape::Nullable(&Shape::Str(Format::AbsoluteUrl)), Optional, "Null when not clickable."),
    f("clickable", Shape::Bool, Derived, "True exactly when `url` is a string."),
    f("coverage", Shape::OneOf(COVERAGES), Stored, "How the marketplace covers the product."),
];

const FIELD_DESCRIPTOR: &[Field] = &[
    f("name", TEXT, Built, "Wire name."),
    f("type", Shape::OneOf(FIELD_TYPES), Built, "JSON type."),
    f("required", Shape::Bool, Built, "Whether every record carries it."),
    f("description", TEXT, Built, "What it means."),
];

/// `sample` (spec §2.4).
pub const SAMPLE: &[Field] = &[
    f("rows", Shape::Array(&Shape::OpenObject), Built, "Deterministic fixture rows."),
    f("title", TEXT, Built, "\"<record type name> sample rows\"."),
    f("fields", TEXTS, Built, "Ordered field names of a sample row."),
    f("source", Shape::Const("product_output_contract"), Built, "Always `product_output_contract`."),
    f("row_count", Shape::Integer, Built, "Length of `rows`."),
    f("sample_type", Shape::OneOf(SAMPLE_TYPES), Built, "How the rows were produced."),
    f("record_label", Shape::Str(Format::Key), Built, "Name of the record type."),
    f("refreshed_at", Shape::Str(Format::UtcMicros), Built, "UTC timestamp with microseconds."),
    f("sample_status", Shape::OneOf(SAMPLE_STATUSES), Built, "Paired with `sample_type`."),
    f("missing_reason", NULLABLE_TEXT, Built, "Null when a sample is available."),
    f("sample_available", Shape::Bool, Built, "Whether a sample is available."),
];

/// `schema_preview` (spec §2.5).
pub const SCHEMA_PREVIEW: &[Field] = &[
    f("fields", Shape::Array(&Shape::Object(FIELD_DESCRIPTOR)), Built, "Field descriptors."),
    f("source", Shape::Const("product_output_contract"), Built, "Always `product_output_contract`."),
    f("field_count", Shape::Integer, Built, "Length of `fields`."),
    f("schema_hash", Shape::Str(Format::HexDigest), Built, "Lowercase hex digest (64 or 40 characters)."),
    f("record_label", Shape::Str(Format::Key), Built, "Name of the record type."),
    f("manifest_path", TEXT, Built, "products/generated/<slug>/product.json or <scheme>://actors/<publisher>/<slug>."),
    f("required_fields", TEXTS, Built, "Names of the required descriptors, in field order."),
];

const PROVENANCE: &[Field] =
    &[f("label", TEXT, Stored, "What the source is."), f("source", TEXT, Stored, "Where it comes from.")];
const QUALITY: &[Field] = &[
    f("content_score", Shape::Integer, Stored, "Content score."),
    f("requires_owner_review", Shape::Bool, Stored, "Whether an owner must review."),
    f("source", TEXT, Stored, "Who scored it."),
];
const PRICING_HINT: &[Field] = &[
    f("model", TEXT, Stored, "Pricing model text."),
    f("visible", Shape::Bool, Stored, "Whether the hint is shown."),
    f("currency", Shape::Str(Format::Currency), Stored, "ISO 4217 code."),
];
const SEO: &[Field] = &[
    f("title", TEXT, Stored, "Page title."),
    f("description", TEXT, Stored, "Page description."),
    f("noindex", Shape::Bool, Stored, "Whether search engines should skip the page."),
];

/// The product record (spec §2.1), every key in table order.
pub const RECORD: &[Field] = &[
    f("slug", Shape::Str(Format::Slug), Stored, "Lowercase, hyphen-separated identifier."),
    f("title", TEXT, Stored, "Display name."),
    f("summary", TEXT, Stored, "Marketing summary."),
    f("buyer_outcome", TEXT, Stored, "What the buyer gets."),
    f("target_audiences", TEXTS, Optional, "Who it is for."),
    f("use_cases", TEXTS, Optional, "What it is used for."),
    f("industries", ANYS, Optional, "Item shape not shown."),
    f("geographies", ANYS, Optional, "Item shape not shown."),
    f("output_formats", TEXTS, Stored, "Such as JSON, CSV, API."),
    f("marketplaces", Shape::Array(&Shape::Object(LISTING)), Optional, "Listings; can be empty."),
    f(
        "marketplace_availability",
        Shape::Array(&Shape::Object(AVAILABILITY)),
        Optional,
        "Availability per marketplace.",
    ),
    f(
        "primary_cta",
        Shape::Nullable(&Shape::Object(LISTING)),
        Derived,
        "The listing with `primary` true; null when there are none.",
    ),
    f("sample", Shape::Object(SAMPLE), Built, "Sample rows of the record type."),
    f("schema_preview", Shape::Object(SCHEMA_PREVIEW), Built, "Schema of the record type."),
    f("update_cadence", TEXT, Stored, "Free text, such as `Catalog release`."),
    f("freshness_label", Shape::Str(Format::UtcMicros), Stored, "UTC timestamp with microseconds."),
    f("provenance", Shape::Array(&Shape::Object(PROVENANCE)), Optional, "Sources."),
    f("quality", Shape::Object(QUALITY), Stored, "Quality data."),
    f("pricing_hint", Shape::Object(PRICING_HINT), Stored, "Pricing hint."),
    f("pricing_events", ANYS, Optional, "Item shape not shown."),
    f("related_products", ANYS, Optional, "Item shape not shown."),
    f("related_use_cases", ANYS, Optional, "Item shape not shown."),
    f("is_bundle", Shape::Bool, Stored, "Whether the product is a bundle."),
    f("bundle_type", NULLABLE_TEXT, Optional, "Values not shown."),
    f("bundle_family", NULLABLE_TEXT, Optional, "Values not shown."),
    f("bundle_version", NULLABLE_TEXT, Optional, "Values not shown."),
    f("member_count", Shape::Integer, Derived, "Length of `member_products`."),
    f("member_products", ANYS, Optional, "Item shape not shown."),
    f("bundle_coverage", ANYS, Optional, "Item shape not shown."),
    f("flags", ANYS, Optional, "Item shape not shown."),
    f("route", Shape::OneOf(ROUTES), Stored, "Product group."),
    f("category", Shape::OneOf(CATEGORIES), Derived, "The category paired with `route`."),
    f("is_visible", Shape::Bool, Stored, "Whether the product is listed publicly."),
    f("is_x402_eligible", Shape::Bool, Stored, "x402 eligibility."),
    f("is_x402_ready", Shape::Bool, Stored, "x402 readiness."),
    f("content_score", Shape::Integer, Derived, "Same as `quality.content_score`."),
    f("canonical_path", TEXT, Derived, "/<route>/<slug>."),
    f("api_path", TEXT, Derived, "/api/public/foundry/products/<slug>."),
    f("seo", Shape::Object(SEO), Stored, "Search-engine metadata."),
    f("last_updated_at", Shape::Str(Format::OffsetTime), Stored, "ISO 8601 timestamp with a numeric UTC offset."),
];

/// The response body: `{"data": <record>}`.
pub const RESPONSE: &[Field] = &[f("data", Shape::Object(RECORD), Stored, "The product record.")];

/// Keys only a product manifest has (besides the stored record keys).
pub const MANIFEST_ONLY: &[Field] = &[
    f("$schema", TEXT, Optional, "Path or URI of the manifest schema, for editors."),
    f(
        "record_label",
        Shape::Str(Format::Key),
        Stored,
        "The product's record type; its sample and schema_preview are built from it.",
    ),
    f(
        "actor_manifest",
        Shape::Nullable(&Shape::Object(ACTOR_MANIFEST)),
        Optional,
        "Set when the manifest lives on an actor platform: manifest_path becomes <scheme>://actors/<publisher>/<slug>.",
    ),
];

const ACTOR_MANIFEST: &[Field] = &[
    f("scheme", TEXT, Stored, "URI scheme of the actor platform."),
    f("publisher", TEXT, Stored, "Publisher account on that platform."),
];

/// JSON Schema (2020-12) of a shape.
pub fn json_schema(shape: &Shape) -> Value {
    match shape {
        Shape::Str(format) => match format.pattern() {
            Some(pattern) => json!({"type": "string", "pattern": pattern}),
            None => json!({"type": "string"}),
        },
        Shape::Bool => json!({"type": "boolean"}),
        Shape::Integer => json!({"type": "integer"}),
        Shape::Const(c) => json!({"const": c}),
        Shape::OneOf(values) => json!({"enum": values}),
        Shape::Nullable(inner) => json!({"anyOf": [json_schema(inner), {"type": "null"}]}),
        Shape::Array(item) => match item {
            Shape::Any => json!({"type": "array"}),
            item => json!({"type": "array", "items": json_schema(item)}),
        },
        Shape::Any => json!({}),
        Shape::Object(fields) => object_schema(fields.iter(), |_| true, json_schema),
        Shape::OpenObject => json!({"type": "object"}),
    }
}

/// A closed object's schema: each field's schema (made by `schema_of`)
/// with its doc as description; `required` picks the required keys.
fn object_schema<'a>(
    fields: impl Iterator<Item = &'a Field>,
    required: impl Fn(&Field) -> bool,
    schema_of: fn(&Shape) -> Value,
) -> Value {
    let mut properties = Map::new();
    let mut names = Vec::new();
    for field in fields {
        let mut schema = schema_of(&field.shape);
        if let Some(object) = schema.as_object_mut() {
            object.insert("description".to_owned(), Value::String(field.doc.to_owned()));
        }
        if required(field) {
            names.push(field.name);
        }
        properties.insert(field.name.to_owned(), schema);
    }
    json!({"type": "object", "properties": properties, "required": names, "additionalProperties": false})
}

/// The JSON Schema of a response body, generated from [`RESPONSE`].
///
/// Cross-field rules (derived values, `primary_cta`, the availability
/// rules, sample rows against the schema preview, the recomputed hash) are
/// beyond JSON Schema; [`crate::conformance::validate`] checks them.
pub fn response_schema() -> Value {
    with_header(
        json_schema(&Shape::Object(RESPONSE)),
        "foundry-catalog product response",
        "GET /api/public/foundry/products/{slug}: {\"data\": <product record>}. Generated from foundry_catalog::shape::RESPONSE; cross-field rules are checked by foundry_catalog::conformance::validate.",
    )
}

/// A schema document: `$schema`, `title` and `description` first, then the schema.
fn with_header(schema: Value, title: &str, description: &str) -> Value {
    let mut document = Map::new();
    document.insert("$schema".to_owned(), json!("https://json-schema.org/draft/2020-12/schema"));
    document.insert("title".to_owned(), json!(title));
    document.insert("description".to_owned(), json!(description));
    if let Value::Object(body) = schema {
        document.extend(body);
    }
    Value::Object(document)
}

/// The JSON Schema of a product manifest: the record's stored keys (those
/// marked optional may be left out), its listings and availability entries
/// without their derived keys, plus [`MANIFEST_ONLY`].
pub fn manifest_schema() -> Value {
    fn manifest_shape(shape: &Shape) -> Value {
        match shape {
            Shape::Object(fields) if fields.iter().any(|f| f.role == Derived) => manifest_object(fields.iter()),
            Shape::Array(item) => match json_schema(shape) {
                Value::Object(mut array) => {
                    array.insert("items".to_owned(), manifest_shape(item));
                    Value::Object(array)
                }
                other => other,
            },
            other => json_schema(other),
        }
    }
    /// Derived keys are left out; only stored keys are required.
    fn manifest_object<'a>(fields: impl Iterator<Item = &'a Field>) -> Value {
        object_schema(fields.filter(|f| f.role != Derived), |f| f.role == Stored, manifest_shape)
    }
    let fields = MANIFEST_ONLY.iter().chain(RECORD.iter().filter(|f| matches!(f.role, Stored | Optional)));
    with_header(
        manifest_object(fields),
        "foundry-catalog product manifest",
        "What a catalog team writes per product; everything else in the record is derived. Generated from foundry_catalog::shape::RECORD and MANIFEST_ONLY.",
    )
}

/// The JSON Schema of one record type's rows, generated from its schema.
pub fn record_type_schema(schema: &RecordSchema) -> Value {
    let mut properties = Map::new();
    for field in schema.fields.iter() {
        let ty = match field.field_type {
            FieldType::String => "string",
            FieldType::Number => "number",
            FieldType::Object => "object",
        };
        properties.insert(field.name.to_string(), json!({"type": ty, "description": field.description}));
    }
    with_header(
        json!({
        "type": "object",
        "properties": properties,
        "required": schema.required_fields().collect::<Vec<_>>(),
        "additionalProperties": false,
        }),
        &schema.record_label,
        &format!("One `{}` record; schema_hash {}.", schema.record_label, schema.schema_hash),
    )
}

/// Every shipped JSON Schema file as (path from the crate root, contents):
/// the response, the manifest, and one per generated record type.
pub fn schema_files() -> Vec<(String, String)> {
    let pretty = |value: &Value| serde_json::to_string_pretty(value).map(|s| s + "\n").unwrap_or_default();
    let mut files = vec![
        ("schema/product-response.schema.json".to_owned(), pretty(&response_schema())),
        ("schema/product-manifest.schema.json".to_owned(), pretty(&manifest_schema())),
    ];
    for schema in crate::record_types() {
        files.push((
            format!("schema/record-types/{}.schema.json", schema.record_label),
            pretty(&record_type_schema(schema)),
        ));
    }
    files
}
