//! The `schema_preview` and `sample` objects of a product record, built
//! from a record type and a product context (docs/records.md, "The
//! manifest"; the rows: docs/fixtures.md; the hash: docs/schema-hash.md).
//!
//! Both are declared once with `wire_object!`. Each value is stored once;
//! everything the spec says equals something else (`field_count`,
//! `row_count`, `required_fields`, `title`, `sample_status`, …) is derived
//! when serializing, so the two can never disagree.

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

pub use crate::locations::{InvalidManifestLocation, ManifestLocation};
use crate::shape::{Format, Shape, wire_object};
use crate::{FieldDescriptor, FieldType, RecordSchema, SampleStatus, SampleType, Slug, UtcTimestamp};

/// The `source` of every `sample` and `schema_preview`.
pub const OUTPUT_CONTRACT_SOURCE: &str = "product_output_contract";

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

const TEXT: Shape = Shape::Str(Format::Text);
const TEXTS: Shape = Shape::Array(&TEXT);

wire_object! {
    /// One entry of `schema_preview.fields`.
    #[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct FieldPreview {
        /// Wire name.
        "name" => stored name: String = TEXT,
        /// JSON type.
        "type" => stored field_type: FieldType = Shape::OneOf(FieldType::VALUES),
        /// Whether every record carries it.
        "required" => stored required: bool = Shape::Bool,
        /// What it means.
        "description" => stored description: String = TEXT,
    }
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

wire_object! {
    /// The `schema_preview` object of a product record (its `schema_hash`:
    /// docs/schema-hash.md; its `manifest_path`: docs/records.md, "The
    /// manifest").
    ///
    /// ```
    /// use foundry_catalog::{preview::{ProductContext, SchemaPreview}};
    /// use foundry_catalog_core::Slug;
    /// let schema = foundry_catalog::record_type("actor_product_record").unwrap();
    /// let ctx = ProductContext::new(Slug::new("lead-finder").unwrap(), "2026-03-01T08:30:00.000000Z".parse().unwrap());
    /// let preview = SchemaPreview::new(schema, &ctx);
    /// let json = serde_json::to_value(&preview).unwrap();
    /// assert_eq!(json["field_count"], 6);
    /// assert_eq!(json["required_fields"].as_array().unwrap().len(), 5);
    /// ```
    #[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct SchemaPreview {
        /// Field descriptors.
        "fields" => stored fields: Vec<FieldPreview> = Shape::Array(&FieldPreview::SHAPE),
        /// Always `product_output_contract`.
        "source" => derived source: &str = Shape::Const(OUTPUT_CONTRACT_SOURCE),
        /// Length of `fields`.
        "field_count" => derived field_count: usize = Shape::Count,
        /// Lowercase hex digest (64 or 40 characters).
        "schema_hash" => stored schema_hash: String = Shape::Str(Format::HexDigest),
        /// Name of the record type.
        "record_label" => stored record_label: String = Shape::Str(Format::Key),
        /// `products/generated/<slug>/product.json` or `<scheme>://actors/<publisher>/<slug>`.
        "manifest_path" => stored manifest_path: String = Shape::Str(Format::ManifestPath),
        /// Names of the required descriptors, in field order.
        "required_fields" => derived required_fields: Vec<&str> = TEXTS,
    }
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

    /// `source`: always `product_output_contract`.
    pub fn source(&self) -> &'static str {
        OUTPUT_CONTRACT_SOURCE
    }

    /// `field_count`: the number of fields.
    pub fn field_count(&self) -> usize {
        self.fields.len()
    }

    /// `required_fields`: names of the required fields, in field order.
    pub fn required_fields(&self) -> Vec<&str> {
        self.fields.iter().filter(|f| f.required).map(|f| f.name.as_str()).collect()
    }
}

wire_object! {
    /// The `sample` object of a product record: the record type's
    /// deterministic fixture rows for one product (docs/fixtures.md).
    ///
    /// ```
    /// use foundry_catalog::{preview::{ProductContext, Sample}};
    /// use foundry_catalog_core::Slug;
    /// let schema = foundry_catalog::record_type("regulatory_status_signal").unwrap();
    /// let ctx = ProductContext::new(Slug::new("eu-signals").unwrap(), "2026-03-01T08:30:00.000000Z".parse().unwrap());
    /// let sample = Sample::new(schema, &ctx);
    /// assert_eq!(sample.row_count(), 3);
    /// assert_eq!(sample.title(), "regulatory_status_signal sample rows");
    /// assert_eq!(sample.rows[2]["status"], "fixture_validated 3");
    /// ```
    #[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Sample {
        /// Deterministic fixture rows.
        "rows" => stored rows: Vec<Map<String, Value>> = Shape::Array(&Shape::OpenObject),
        /// "<record type name> sample rows".
        "title" => derived title: String = TEXT,
        /// Ordered field names of a sample row.
        "fields" => stored fields: Vec<String> = TEXTS,
        /// Always `product_output_contract`.
        "source" => derived source: &str = Shape::Const(OUTPUT_CONTRACT_SOURCE),
        /// Length of `rows`.
        "row_count" => derived row_count: usize = Shape::Count,
        /// How the rows were produced.
        "sample_type" => stored sample_type: SampleType = Shape::OneOf(SampleType::VALUES),
        /// Name of the record type.
        "record_label" => stored record_label: String = Shape::Str(Format::Key),
        /// UTC timestamp with microseconds.
        "refreshed_at" => stored refreshed_at: UtcTimestamp = Shape::Str(Format::UtcMicros),
        /// Paired with `sample_type`.
        "sample_status" => derived sample_status: SampleStatus = Shape::OneOf(SampleStatus::VALUES),
        /// Null when a sample is available.
        "missing_reason" => derived missing_reason: Option<&str> = Shape::Nullable(&TEXT),
        /// Whether a sample is available.
        "sample_available" => derived sample_available: bool = Shape::Bool,
    }
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

    /// `title`: `"<record_label> sample rows"`.
    pub fn title(&self) -> String {
        format!("{} sample rows", self.record_label)
    }

    /// `source`: always `product_output_contract`.
    pub fn source(&self) -> &'static str {
        OUTPUT_CONTRACT_SOURCE
    }

    /// `row_count`: the number of rows.
    pub fn row_count(&self) -> usize {
        self.rows.len()
    }

    /// `sample_status`, paired with the sample type.
    pub fn sample_status(&self) -> SampleStatus {
        self.sample_type.sample_status()
    }

    /// `missing_reason`: none, since every sample is available.
    pub fn missing_reason(&self) -> Option<&str> {
        None
    }

    /// `sample_available`: always true; fixtures are always available.
    pub fn sample_available(&self) -> bool {
        true
    }
}

/// `{"schema_preview": …, "sample": …}` for one record type and product,
/// as `foundry-catalog preview` prints it.
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
