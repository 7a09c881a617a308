//! The `schema_preview` (spec §2.5) and `sample` (spec §2.4) objects of a
//! product record, built from a record type and a product context.
//!
//! Each value is stored once; everything the spec says equals something
//! else (`field_count`, `row_count`, `required_fields`, `title`,
//! `sample_status`, …) is derived when serializing, so the two can never
//! disagree.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use crate::model::{FieldDescriptor, FieldType, RecordSchema, SampleType};
use crate::{Slug, UtcTimestamp};

/// The `source` of every `sample` and `schema_preview`.
pub const OUTPUT_CONTRACT_SOURCE: &str = "product_output_contract";

/// Where a product's manifest lives (`schema_preview.manifest_path`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ManifestLocation {
    /// `products/generated/<slug>/product.json`.
    #[default]
    Generated,
    /// `<scheme>://actors/<publisher>/<slug>`, for a manifest kept on an actor platform.
    Actor {
        /// URI scheme, e.g. `actorhub`.
        scheme: String,
        /// Publisher account on that platform.
        publisher: String,
    },
}

/// Why a manifest location is not usable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid actor manifest location: {reason}; hint: use a lowercase URI scheme such as \"actorhub\" and a publisher name of letters, digits, `_`, `-` or `.`"
)]
pub struct InvalidManifestLocation {
    /// What is wrong.
    pub reason: String,
}

impl ManifestLocation {
    /// An actor-platform location, checked: the scheme is a lowercase URI
    /// scheme, the publisher a single path segment.
    pub fn actor(scheme: impl Into<String>, publisher: impl Into<String>) -> Result<Self, InvalidManifestLocation> {
        let (scheme, publisher) = (scheme.into(), publisher.into());
        let scheme_ok = scheme.bytes().next().is_some_and(|b| b.is_ascii_lowercase())
            && scheme.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.'));
        let publisher_ok = !publisher.is_empty()
            && publisher.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
            && publisher != "."
            && publisher != "..";
        if !scheme_ok {
            Err(InvalidManifestLocation { reason: format!("{scheme:?} is not a URI scheme") })
        } else if !publisher_ok {
            Err(InvalidManifestLocation { reason: format!("{publisher:?} is not a publisher name") })
        } else {
            Ok(ManifestLocation::Actor { scheme, publisher })
        }
    }

    /// The manifest path of the product with this slug.
    ///
    /// ```
    /// use foundry_catalog::{ManifestLocation, Slug};
    /// let slug = Slug::new("lead-finder").unwrap();
    /// assert_eq!(ManifestLocation::Generated.path(&slug), "products/generated/lead-finder/product.json");
    /// let actor = ManifestLocation::actor("actorhub", "foundry").unwrap();
    /// assert_eq!(actor.path(&slug), "actorhub://actors/foundry/lead-finder");
    /// ```
    pub fn path(&self, slug: &Slug) -> String {
        match self {
            ManifestLocation::Generated => format!("products/generated/{slug}/product.json"),
            ManifestLocation::Actor { scheme, publisher } => format!("{scheme}://actors/{publisher}/{slug}"),
        }
    }
}

/// What a sample and a schema preview need to know about the product.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProductContext {
    /// The product's slug; fixture payloads and URLs carry it.
    pub slug: Slug,
    /// When the sample was refreshed (`sample.refreshed_at`).
    pub refreshed_at: UtcTimestamp,
    /// Where the product's manifest lives.
    pub manifest: ManifestLocation,
}

impl ProductContext {
    /// A context whose manifest is in the generated location.
    pub fn new(slug: Slug, refreshed_at: UtcTimestamp) -> Self {
        ProductContext { slug, refreshed_at, manifest: ManifestLocation::Generated }
    }

    /// The same context with another manifest location.
    pub fn with_manifest(mut self, manifest: ManifestLocation) -> Self {
        self.manifest = manifest;
        self
    }

    /// `schema_preview.manifest_path` for this product.
    pub fn manifest_path(&self) -> String {
        self.manifest.path(&self.slug)
    }
}

/// One entry of `schema_preview.fields`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct FieldPreview {
    /// Wire name.
    pub name: String,
    /// `string`, `number` or `object`.
    #[serde(rename = "type")]
    pub field_type: FieldType,
    /// Whether every record carries the field.
    pub required: bool,
    /// What the field means.
    pub description: String,
}

impl From<&FieldDescriptor> for FieldPreview {
    fn from(field: &FieldDescriptor) -> Self {
        FieldPreview {
            name: field.name.to_string(),
            field_type: field.field_type,
            required: field.required,
            description: field.description.to_string(),
        }
    }
}

/// The `schema_preview` object of a product record (spec §2.5).
///
/// ```
/// use foundry_catalog::{ProductContext, SchemaPreview, Slug};
/// let schema = foundry_catalog::record_type("actor_product_record").unwrap();
/// let ctx = ProductContext::new(Slug::new("lead-finder").unwrap(), "2026-03-01T08:30:00.000000Z".parse().unwrap());
/// let preview = SchemaPreview::new(schema, &ctx);
/// let json = serde_json::to_value(&preview).unwrap();
/// assert_eq!(json["field_count"], 6);
/// assert_eq!(json["required_fields"].as_array().unwrap().len(), 5);
/// ```
///
/// Deserializing reads the stored values and ignores the derived keys
/// (`source`, `field_count`, `required_fields`); the conformance validator
/// checks those.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct SchemaPreview {
    record_label: String,
    fields: Vec<FieldPreview>,
    schema_hash: String,
    manifest_path: String,
}

impl SchemaPreview {
    /// The schema preview of `schema` for the product in `ctx`.
    pub fn new(schema: &RecordSchema, ctx: &ProductContext) -> Self {
        SchemaPreview {
            record_label: schema.record_label.to_string(),
            fields: schema.fields.iter().map(FieldPreview::from).collect(),
            schema_hash: schema.schema_hash.to_string(),
            manifest_path: ctx.manifest_path(),
        }
    }

    /// The record type's label.
    pub fn record_label(&self) -> &str {
        &self.record_label
    }

    /// The field descriptors, in field order.
    pub fn fields(&self) -> &[FieldPreview] {
        &self.fields
    }

    /// `field_count`: the number of fields.
    pub fn field_count(&self) -> usize {
        self.fields.len()
    }

    /// `required_fields`: names of the required fields, in field order.
    pub fn required_fields(&self) -> impl Iterator<Item = &str> {
        self.fields.iter().filter(|f| f.required).map(|f| f.name.as_str())
    }

    /// The lowercase hex schema hash.
    pub fn schema_hash(&self) -> &str {
        &self.schema_hash
    }

    /// Where the product's manifest lives.
    pub fn manifest_path(&self) -> &str {
        &self.manifest_path
    }
}

/// The wire form of [`SchemaPreview`], keys in the spec's table order.
#[derive(Serialize)]
struct SchemaPreviewWire<'a> {
    fields: &'a [FieldPreview],
    source: &'static str,
    field_count: usize,
    schema_hash: &'a str,
    record_label: &'a str,
    manifest_path: &'a str,
    required_fields: Vec<&'a str>,
}

impl Serialize for SchemaPreview {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        SchemaPreviewWire {
            fields: &self.fields,
            source: OUTPUT_CONTRACT_SOURCE,
            field_count: self.field_count(),
            schema_hash: &self.schema_hash,
            record_label: &self.record_label,
            manifest_path: &self.manifest_path,
            required_fields: self.required_fields().collect(),
        }
        .serialize(serializer)
    }
}

/// The `sample` object of a product record (spec §2.4): the record type's
/// deterministic fixture rows for one product.
///
/// ```
/// use foundry_catalog::{ProductContext, Sample, Slug};
/// let schema = foundry_catalog::record_type("regulatory_status_signal").unwrap();
/// let ctx = ProductContext::new(Slug::new("eu-signals").unwrap(), "2026-03-01T08:30:00.000000Z".parse().unwrap());
/// let sample = Sample::new(schema, &ctx);
/// assert_eq!(sample.row_count(), 3);
/// assert_eq!(sample.title(), "regulatory_status_signal sample rows");
/// assert_eq!(sample.rows()[2]["status"], "fixture_validated 3");
/// ```
///
/// Deserializing reads the stored values and ignores the derived keys
/// (`title`, `source`, `row_count`, `sample_status`, `missing_reason`,
/// `sample_available`); the conformance validator checks those.
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct Sample {
    record_label: String,
    sample_type: SampleType,
    fields: Vec<String>,
    rows: Vec<Map<String, Value>>,
    refreshed_at: UtcTimestamp,
}

impl Sample {
    /// The sample of `schema` for the product in `ctx`.
    pub fn new(schema: &RecordSchema, ctx: &ProductContext) -> Self {
        Sample {
            record_label: schema.record_label.to_string(),
            sample_type: schema.sample_type,
            fields: schema.fields.iter().map(|f| f.name.to_string()).collect(),
            rows: crate::fixture::rows(schema, ctx.slug.as_str()),
            refreshed_at: ctx.refreshed_at,
        }
    }

    /// The rows, keys in field order.
    pub fn rows(&self) -> &[Map<String, Value>] {
        &self.rows
    }

    /// `title`: `"<record_label> sample rows"`.
    pub fn title(&self) -> String {
        format!("{} sample rows", self.record_label)
    }

    /// `fields`: the field names in schema order.
    pub fn fields(&self) -> &[String] {
        &self.fields
    }

    /// `row_count`: the number of rows.
    pub fn row_count(&self) -> usize {
        self.rows.len()
    }

    /// How the rows were produced.
    pub fn sample_type(&self) -> SampleType {
        self.sample_type
    }

    /// `sample_status`, paired with the sample type.
    pub fn sample_status(&self) -> &'static str {
        self.sample_type.sample_status()
    }

    /// The record type's label.
    pub fn record_label(&self) -> &str {
        &self.record_label
    }

    /// When the sample was refreshed.
    pub fn refreshed_at(&self) -> UtcTimestamp {
        self.refreshed_at
    }
}

/// The wire form of [`Sample`], keys in the spec's table order.
#[derive(Serialize)]
struct SampleWire<'a> {
    rows: &'a [Map<String, Value>],
    title: String,
    fields: &'a [String],
    source: &'static str,
    row_count: usize,
    sample_type: SampleType,
    record_label: &'a str,
    refreshed_at: UtcTimestamp,
    sample_status: &'static str,
    missing_reason: Option<&'a str>,
    sample_available: bool,
}

impl Serialize for Sample {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        SampleWire {
            rows: &self.rows,
            title: self.title(),
            fields: &self.fields,
            source: OUTPUT_CONTRACT_SOURCE,
            row_count: self.row_count(),
            sample_type: self.sample_type,
            record_label: &self.record_label,
            refreshed_at: self.refreshed_at,
            sample_status: self.sample_status(),
            missing_reason: None,
            sample_available: true,
        }
        .serialize(serializer)
    }
}

/// `{"schema_preview": …, "sample": …}` for one record type and product,
/// as the `preview` example prints it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct OutputPreview {
    /// The schema preview.
    pub schema_preview: SchemaPreview,
    /// The sample.
    pub sample: Sample,
}

impl OutputPreview {
    /// Both objects for `schema` and the product in `ctx`.
    pub fn new(schema: &RecordSchema, ctx: &ProductContext) -> Self {
        OutputPreview { schema_preview: SchemaPreview::new(schema, ctx), sample: Sample::new(schema, ctx) }
    }
}
