//! The product record, with its marketplace listings and availability
//! entries (docs/records.md, "Product records"), declared once.
//!
//! Each object of the record is one `wire_object!` declaration below:
//! every key in the spec's table order with its role and shape. From it
//! follow the struct, its serializer, its deserializer, the product
//! manifest ([`ProductManifest`]), the table the validator walks
//! (`<Type>::KEYS`) and the JSON Schemas. Adding a key to the record is one
//! line here (plus the snapshots it changes).
//!
//! Every fact is stored once. What the spec says equals something else is
//! derived when serializing, by the method the declaration names:
//! `primary_cta` (the listing marked primary), `category` (from `route`),
//! `content_score` (from `quality`), `member_count`, `canonical_path` and
//! `api_path` (from slug and route), a listing's `status`, `ctaLabel` and
//! `publicSafe`, and an availability entry's `clickable`.

use serde::Deserialize;
use serde_json::Value;

pub use crate::locations::{
    API_PATH_PREFIX, HOME_PATH, MAX_TERM_SLUG, Route, SEARCH_PATH, Taxonomy, is_list_path, is_term_slug, term_key,
    term_slug,
};
use crate::preview::{Sample, SchemaPreview};
use crate::shape::{Format, Shape, wire_object};
use crate::{Currency, OffsetTimestamp, Slug, UtcTimestamp};

const TEXT: Shape = Shape::Str(Format::Text);
const TEXTS: Shape = Shape::Array(&TEXT);
const ANYS: Shape = Shape::Array(&Shape::Any);
const NULLABLE_TEXT: Shape = Shape::Nullable(&TEXT);
const KEY: Shape = Shape::Str(Format::Key);

foundry_catalog_core::wire_enum! {
    /// The product kind (`category`); always the one that goes with the route.
    pub enum Category {
        /// Route `datasets`.
        DatasetProduct = "dataset_product",
        /// Route `actors`.
        ActorProduct = "actor_product",
        /// Route `automation`.
        AutomationConnector = "automation_connector",
    }
}

impl Route {
    /// The category that goes with this route.
    pub const fn category(self) -> Category {
        match self {
            Route::Datasets => Category::DatasetProduct,
            Route::Actors => Category::ActorProduct,
            Route::Automation => Category::AutomationConnector,
        }
    }
}

foundry_catalog_core::wire_enum! {
    /// A listing's `status`: every shown listing is `published`.
    pub enum ListingStatus {
        /// Listed.
        Published = "published",
    }
}

foundry_catalog_core::wire_enum! {
    /// An availability entry's `status`: each has its own display texts
    /// ([`AvailabilityStatus::status_labels`]), and only `published` may carry
    /// a `url`.
    pub enum AvailabilityStatus {
        /// Listed, or available through a published application.
        Published = "published",
        /// Files uploaded to a storage target; not clickable.
        Uploaded = "uploaded",
        /// Submitted and awaiting review; not clickable.
        UnderReview = "under_review",
        /// Partly published; not clickable.
        PartiallyPublished = "partially_published",
    }
}

impl AvailabilityStatus {
    /// The display texts the spec shows with this status (`status_label`).
    pub const fn status_labels(self) -> &'static [&'static str] {
        match self {
            AvailabilityStatus::Published => &["Published", "Available through published app", "Not Yet Published"],
            AvailabilityStatus::Uploaded => &["Uploaded"],
            AvailabilityStatus::UnderReview => &["Awaiting Marketplace Review"],
            AvailabilityStatus::PartiallyPublished => &["Partially published"],
        }
    }

    /// Whether an entry with this status may carry a `url` (only `published`).
    pub const fn may_have_url(self) -> bool {
        matches!(self, AvailabilityStatus::Published)
    }
}

foundry_catalog_core::wire_enum! {
    /// How a marketplace covers the product (`coverage`).
    pub enum Coverage {
        /// The product itself is listed there.
        PublishedProduct = "published_product",
        /// Covered through a published application.
        ApplicationCovered = "application_covered",
    }
}

wire_object! {
    /// One marketplace listing, an entry of `marketplaces` (its derived keys:
    /// docs/records.md, "The manifest"); also the value of `primary_cta`.
    #[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct MarketplaceListing {
        /// Identifier of the marketplace (lowercase_underscore).
        "key" => stored key: String = KEY,
        /// Display name.
        "label" => stored label: String = TEXT,
        /// Absolute URL of the listing.
        "url" => stored url: String = Shape::Str(Format::AbsoluteUrl),
        /// Always `published`.
        "status" => derived status: ListingStatus = Shape::Const(ListingStatus::Published.as_str()),
        /// True for the listing used as `primary_cta`.
        "primary" => stored primary: bool = Shape::Bool,
        /// Button text.
        "cta_label" => stored cta_label: String = TEXT,
        /// Same value as `cta_label`.
        "ctaLabel" => derived cta_label_camel: &str = TEXT,
        /// Whether the listing is public-safe.
        "public_safe" => stored public_safe: bool = Shape::Bool,
        /// Same value as `public_safe`.
        "publicSafe" => derived public_safe_camel: bool = Shape::Bool,
    }
}

impl MarketplaceListing {
    /// `status`: every listing is published.
    pub fn status(&self) -> ListingStatus {
        ListingStatus::Published
    }

    /// `ctaLabel`: the same as `cta_label`.
    pub fn cta_label_camel(&self) -> &str {
        &self.cta_label
    }

    /// `publicSafe`: the same as `public_safe`.
    pub fn public_safe_camel(&self) -> bool {
        self.public_safe
    }
}

wire_object! {
    /// One entry of `marketplace_availability` (its rule, `availability`:
    /// docs/records.md, "The conformance validator").
    #[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct AvailabilityEntry {
        /// Marketplace identifier.
        "key" => stored key: String = KEY,
        /// Display name.
        "label" => stored label: String = TEXT,
        /// State on that marketplace (spec §3).
        "status" => stored status: AvailabilityStatus = Shape::OneOf(AvailabilityStatus::VALUES),
        /// Display text shown with the status.
        "status_label" => stored status_label: String = TEXT,
        /// Button text.
        "action_label" => stored action_label: String = TEXT,
        /// Null when not clickable.
        "url" => optional url: Option<String> = Shape::Nullable(&Shape::Str(Format::AbsoluteUrl)),
        /// True exactly when `url` is a string.
        "clickable" => derived clickable: bool = Shape::Bool,
        /// How the marketplace covers the product.
        "coverage" => stored coverage: Coverage = Shape::OneOf(Coverage::VALUES),
    }
}

impl AvailabilityEntry {
    /// `clickable`: whether the entry has a URL.
    pub fn clickable(&self) -> bool {
        self.url.is_some()
    }
}

wire_object! {
    /// One `provenance` item.
    #[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Provenance {
        /// What the source is.
        "label" => stored label: String = TEXT,
        /// Where it comes from.
        "source" => stored source: String = TEXT,
    }
}

/// An integer as JSON Schema counts one (docs/json-schemas.md's integer policy):
/// read from `100` or `100.0` alike, always written `100`, so the typed
/// model accepts what the validator and the schemas accept.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize)]
#[serde(transparent)]
pub struct WholeNumber(pub i64);

impl<'de> Deserialize<'de> for WholeNumber {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let number = serde_json::Number::deserialize(deserializer)?;
        let whole = match (number.as_i64(), number.as_f64()) {
            (Some(i), _) => Some(i),
            // Within ±2^53 every integral f64 is exact, so the cast loses nothing.
            (None, Some(f)) if f.fract() == 0.0 && f.abs() <= crate::MAX_SAFE_INTEGER as f64 => Some(f as i64),
            _ => None,
        };
        whole.map(WholeNumber).ok_or_else(|| {
            serde::de::Error::invalid_value(serde::de::Unexpected::Other(&number.to_string()), &"an integer")
        })
    }
}

wire_object! {
    /// `quality`.
    #[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Quality {
        /// Content score.
        "content_score" => stored content_score: WholeNumber = Shape::Integer,
        /// Whether an owner must review.
        "requires_owner_review" => stored requires_owner_review: bool = Shape::Bool,
        /// Who scored it.
        "source" => stored source: String = TEXT,
    }
}

wire_object! {
    /// `pricing_hint`.
    #[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct PricingHint {
        /// Pricing model text.
        "model" => stored model: String = TEXT,
        /// Whether the hint is shown.
        "visible" => stored visible: bool = Shape::Bool,
        /// ISO 4217 code.
        "currency" => stored currency: Currency = Shape::Str(Format::Currency),
    }
}

wire_object! {
    /// `seo`.
    #[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct Seo {
        /// Page title.
        "title" => stored title: String = TEXT,
        /// Page description.
        "description" => stored description: String = TEXT,
        /// Whether search engines should skip the page.
        "noindex" => stored noindex: bool = Shape::Bool,
    }
}

wire_object! {
    /// Where an actor product's manifest lives: `<scheme>://actors/<publisher>/<slug>`.
    #[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct ActorManifest {
        /// URI scheme of the actor platform.
        "scheme" => stored scheme: String = TEXT,
        /// Publisher account on that platform.
        "publisher" => stored publisher: String = TEXT,
    }
}

wire_object! {
    /// One product record (docs/records.md, "Product records"), the value
    /// of a response's `data`.
    ///
    /// Build one from a manifest with [`ProductManifest::build`]
    /// (`crate::manifest`); serialize it inside a
    /// [`ProductResponse`](crate::response::ProductResponse).
    #[derive(Debug, Clone, PartialEq, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct ProductRecord {
        /// Lowercase, hyphen-separated identifier.
        "slug" => stored slug: Slug = Shape::Str(Format::Slug),
        /// Display name.
        "title" => stored title: String = TEXT,
        /// Marketing summary.
        "summary" => stored summary: String = TEXT,
        /// What the buyer gets.
        "buyer_outcome" => stored buyer_outcome: String = TEXT,
        /// Who it is for.
        "target_audiences" => optional target_audiences: Vec<String> = TEXTS,
        /// What it is used for.
        "use_cases" => optional use_cases: Vec<String> = TEXTS,
        /// Item shape not shown.
        "industries" => optional industries: Vec<Value> = ANYS,
        /// Item shape not shown.
        "geographies" => optional geographies: Vec<Value> = ANYS,
        /// Such as JSON, CSV, API.
        "output_formats" => stored output_formats: Vec<String> = TEXTS,
        /// Listings; can be empty.
        "marketplaces" => optional marketplaces: Vec<MarketplaceListing> =
            Shape::Array(&MarketplaceListing::SHAPE),
        /// Availability per marketplace.
        "marketplace_availability" => optional marketplace_availability: Vec<AvailabilityEntry> =
            Shape::Array(&AvailabilityEntry::SHAPE),
        /// The listing with `primary` true; null when there are none.
        "primary_cta" => derived primary_cta: Option<&MarketplaceListing> =
            Shape::Nullable(&MarketplaceListing::SHAPE),
        /// Sample rows of the record type.
        "sample" => built sample: Sample = Sample::SHAPE,
        /// Schema of the record type.
        "schema_preview" => built schema_preview: SchemaPreview = SchemaPreview::SHAPE,
        /// Free text, such as `Catalog release`.
        "update_cadence" => stored update_cadence: String = TEXT,
        /// UTC timestamp with microseconds.
        "freshness_label" => stored freshness_label: UtcTimestamp = Shape::Str(Format::UtcMicros),
        /// Sources.
        "provenance" => optional provenance: Vec<Provenance> = Shape::Array(&Provenance::SHAPE),
        /// Quality data.
        "quality" => stored quality: Quality = Quality::SHAPE,
        /// Pricing hint.
        "pricing_hint" => stored pricing_hint: PricingHint = PricingHint::SHAPE,
        /// Item shape not shown.
        "pricing_events" => optional pricing_events: Vec<Value> = ANYS,
        /// Item shape not shown.
        "related_products" => optional related_products: Vec<Value> = ANYS,
        /// Item shape not shown.
        "related_use_cases" => optional related_use_cases: Vec<Value> = ANYS,
        /// Whether the product is a bundle.
        "is_bundle" => stored is_bundle: bool = Shape::Bool,
        /// Values not shown.
        "bundle_type" => optional bundle_type: Option<String> = NULLABLE_TEXT,
        /// Values not shown.
        "bundle_family" => optional bundle_family: Option<String> = NULLABLE_TEXT,
        /// Values not shown.
        "bundle_version" => optional bundle_version: Option<String> = NULLABLE_TEXT,
        /// Length of `member_products`.
        "member_count" => derived member_count: usize = Shape::Count,
        /// Item shape not shown.
        "member_products" => optional member_products: Vec<Value> = ANYS,
        /// Item shape not shown.
        "bundle_coverage" => optional bundle_coverage: Vec<Value> = ANYS,
        /// Item shape not shown.
        "flags" => optional flags: Vec<Value> = ANYS,
        /// Product group.
        "route" => stored route: Route = Shape::OneOf(Route::VALUES),
        /// The category paired with `route`.
        "category" => derived category: Category = Shape::OneOf(Category::VALUES),
        /// Whether the product is listed publicly.
        "is_visible" => stored is_visible: bool = Shape::Bool,
        /// x402 eligibility.
        "is_x402_eligible" => stored is_x402_eligible: bool = Shape::Bool,
        /// x402 readiness.
        "is_x402_ready" => stored is_x402_ready: bool = Shape::Bool,
        /// Same as `quality.content_score`.
        "content_score" => derived content_score: i64 = Shape::Integer,
        /// /<route>/<slug>.
        "canonical_path" => derived canonical_path: String = Shape::Str(Format::CanonicalPath),
        /// /api/public/foundry/products/<slug>.
        "api_path" => derived api_path: String = Shape::Str(Format::ApiPath),
        /// Search-engine metadata.
        "seo" => stored seo: Seo = Seo::SHAPE,
        /// ISO 8601 timestamp with a numeric UTC offset.
        "last_updated_at" => stored last_updated_at: OffsetTimestamp = Shape::Str(Format::OffsetTime),
    }

    /// One product manifest: the small JSON file a catalog team writes per
    /// product (`examples/catalog/<slug>.json`). It holds the record's
    /// stored keys (those marked optional may be left out) and the keys
    /// below; [`ProductManifest::build`] derives the rest.
    #[derive(Debug, Clone, PartialEq, Deserialize)]
    #[serde(deny_unknown_fields)]
    pub struct ProductManifest {
        /// Path or URI of the manifest schema, for editors.
        "$schema" => optional schema: Option<String> = TEXT,
        /// The product's record type; its sample and schema_preview are built from it.
        "record_label" => stored record_label: String = KEY,
        /// Set when the manifest lives on an actor platform: manifest_path becomes `<scheme>://actors/<publisher>/<slug>`.
        "actor_manifest" => optional actor_manifest: Option<ActorManifest> =
            Shape::Nullable(&ActorManifest::SHAPE),
    }
}

impl ProductRecord {
    /// `primary_cta`: the first listing marked primary (a valid record has
    /// exactly one when it has listings), or `None`.
    pub fn primary_cta(&self) -> Option<&MarketplaceListing> {
        self.marketplaces.iter().find(|l| l.primary)
    }

    /// `category`, from the route.
    pub fn category(&self) -> Category {
        self.route.category()
    }

    /// `canonical_path`: `/<route>/<slug>`.
    pub fn canonical_path(&self) -> String {
        format!("/{}/{}", self.route, self.slug)
    }

    /// `api_path`: `/api/public/foundry/products/<slug>`.
    pub fn api_path(&self) -> String {
        format!("{API_PATH_PREFIX}{}", self.slug)
    }

    /// `member_count`: the number of member products.
    pub fn member_count(&self) -> usize {
        self.member_products.len()
    }

    /// `content_score`: the same as `quality.content_score`.
    pub fn content_score(&self) -> i64 {
        self.quality.content_score.0
    }
}
