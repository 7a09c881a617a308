//! The typed product record (spec §2.1–§2.3) and its response envelope.
//!
//! Every fact is stored once. What the spec says equals something else is
//! derived when serializing: `primary_cta` (the listing marked primary),
//! `category` (from `route`), `content_score` (from `quality`),
//! `member_count`, `canonical_path` and `api_path` (from slug and route),
//! a listing's `ctaLabel`/`publicSafe`, and an availability entry's
//! `clickable`. Keys serialize in the spec's table order.
//!
//! Deserializing a [`ProductResponse`] runs the conformance validator first,
//! so a body that breaks any rule is rejected with every violation; the
//! derived keys are checked there and then dropped.

use std::fmt;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::{Sample, SchemaPreview, Slug, UtcTimestamp};

/// The product group of a record (`route`), which fixes its `category`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Route {
    /// `datasets`, category `dataset_product`.
    Datasets,
    /// `actors`, category `actor_product`.
    Actors,
    /// `automation`, category `automation_connector`.
    Automation,
}

/// The product kind (`category`); always the one that goes with the route.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Category {
    /// `dataset_product` (route `datasets`).
    DatasetProduct,
    /// `actor_product` (route `actors`).
    ActorProduct,
    /// `automation_connector` (route `automation`).
    AutomationConnector,
}

impl Route {
    /// Every route, in the spec's order.
    pub const ALL: [Route; 3] = [Route::Datasets, Route::Actors, Route::Automation];

    /// The wire spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            Route::Datasets => "datasets",
            Route::Actors => "actors",
            Route::Automation => "automation",
        }
    }

    /// The category that goes with this route.
    pub const fn category(self) -> Category {
        match self {
            Route::Datasets => Category::DatasetProduct,
            Route::Actors => Category::ActorProduct,
            Route::Automation => Category::AutomationConnector,
        }
    }

    /// The route with this wire spelling.
    pub fn from_str_opt(text: &str) -> Option<Route> {
        Route::ALL.into_iter().find(|r| r.as_str() == text)
    }
}

impl Category {
    /// The wire spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            Category::DatasetProduct => "dataset_product",
            Category::ActorProduct => "actor_product",
            Category::AutomationConnector => "automation_connector",
        }
    }
}

/// A listing's `status`: every shown listing is `published`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize, Default)]
#[serde(rename_all = "snake_case")]
pub enum ListingStatus {
    /// `published`.
    #[default]
    Published,
}

/// An availability entry's `status` (spec §3).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AvailabilityStatus {
    /// Listed, or available through a published application.
    Published,
    /// Files uploaded to a storage target; not clickable.
    Uploaded,
    /// Submitted and awaiting review; not clickable.
    UnderReview,
    /// Partly published; not clickable.
    PartiallyPublished,
}

impl AvailabilityStatus {
    /// Every status, in the spec's order.
    pub const ALL: [AvailabilityStatus; 4] = [
        AvailabilityStatus::Published,
        AvailabilityStatus::Uploaded,
        AvailabilityStatus::UnderReview,
        AvailabilityStatus::PartiallyPublished,
    ];

    /// The wire spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            AvailabilityStatus::Published => "published",
            AvailabilityStatus::Uploaded => "uploaded",
            AvailabilityStatus::UnderReview => "under_review",
            AvailabilityStatus::PartiallyPublished => "partially_published",
        }
    }

    /// The status with this wire spelling.
    pub fn from_str_opt(text: &str) -> Option<AvailabilityStatus> {
        AvailabilityStatus::ALL.into_iter().find(|s| s.as_str() == text)
    }

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

/// How a marketplace covers the product (`coverage`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Coverage {
    /// The product itself is listed there.
    PublishedProduct,
    /// Covered through a published application.
    ApplicationCovered,
}

impl Coverage {
    /// Both coverages.
    pub const ALL: [Coverage; 2] = [Coverage::PublishedProduct, Coverage::ApplicationCovered];

    /// The wire spelling.
    pub const fn as_str(self) -> &'static str {
        match self {
            Coverage::PublishedProduct => "published_product",
            Coverage::ApplicationCovered => "application_covered",
        }
    }
}

/// A three-letter ISO 4217 currency code, such as `EUR`.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Currency(String);

/// A string that is not an ISO 4217 code.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0:?} is not an ISO 4217 currency code; hint: use a code such as \"EUR\"")]
pub struct InvalidCurrency(pub String);

impl Currency {
    /// Checks the code against the ISO 4217 list.
    pub fn new(code: impl Into<String>) -> Result<Currency, InvalidCurrency> {
        let code = code.into();
        if iso_currency::Currency::from_code(&code).is_some() { Ok(Currency(code)) } else { Err(InvalidCurrency(code)) }
    }

    /// The code.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// An ISO 8601 timestamp with a numeric UTC offset (`last_updated_at`),
/// such as `2026-03-01T08:30:00+00:00`. Kept as written, so a body
/// round-trips byte for byte.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct OffsetTimestamp(String);

/// A string that is not a timestamp with a numeric offset.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "{text:?} is not an ISO 8601 timestamp with a numeric UTC offset: {reason}; hint: write it like \"2026-03-01T08:30:00+00:00\""
)]
pub struct InvalidOffsetTimestamp {
    /// The rejected text.
    pub text: String,
    /// What is wrong.
    pub reason: String,
}

impl OffsetTimestamp {
    /// Parses with the `time` crate's RFC 3339 parser and requires a
    /// numeric offset (`+HH:MM` or `-HH:MM`, not `Z`).
    pub fn new(text: impl Into<String>) -> Result<OffsetTimestamp, InvalidOffsetTimestamp> {
        let text = text.into();
        let reason = match time::OffsetDateTime::parse(&text, &time::format_description::well_known::Rfc3339) {
            Err(e) => Some(e.to_string()),
            Ok(_) if text.ends_with(['Z', 'z']) => Some("the offset is `Z`, not numeric".to_owned()),
            Ok(_) => None,
        };
        match reason {
            Some(reason) => Err(InvalidOffsetTimestamp { text, reason }),
            None => Ok(OffsetTimestamp(text)),
        }
    }

    /// The timestamp as written.
    pub fn as_str(&self) -> &str {
        &self.0
    }
}

macro_rules! string_newtype_serde {
    ($ty:ty) => {
        impl Serialize for $ty {
            fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
                serializer.serialize_str(self.as_str())
            }
        }
        impl<'de> Deserialize<'de> for $ty {
            fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
                <$ty>::new(String::deserialize(deserializer)?).map_err(serde::de::Error::custom)
            }
        }
        impl fmt::Display for $ty {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}
string_newtype_serde!(Currency);
string_newtype_serde!(OffsetTimestamp);

/// Whether `text` is an absolute http(s) URL with a host (RFC 3986, parsed
/// by `fluent-uri`).
pub fn is_absolute_url(text: &str) -> bool {
    fluent_uri::Uri::parse(text).is_ok_and(|uri| {
        matches!(uri.scheme().as_str().to_ascii_lowercase().as_str(), "http" | "https")
            && uri.authority().is_some_and(|a| !a.host().is_empty())
    })
}

/// One marketplace listing (spec §2.2); also the value of `primary_cta`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct MarketplaceListing {
    /// Marketplace identifier, `lowercase_underscore`.
    pub key: String,
    /// Display name.
    pub label: String,
    /// Absolute URL of the listing.
    pub url: String,
    /// Always `published`.
    #[serde(default)]
    pub status: ListingStatus,
    /// Whether this listing is the `primary_cta`.
    pub primary: bool,
    /// Button text; also serialized as `ctaLabel`.
    pub cta_label: String,
    /// Whether the listing is public-safe; also serialized as `publicSafe`.
    pub public_safe: bool,
}

impl Serialize for MarketplaceListing {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Wire<'a> {
            key: &'a str,
            label: &'a str,
            url: &'a str,
            status: ListingStatus,
            primary: bool,
            cta_label: &'a str,
            #[serde(rename = "ctaLabel")]
            cta_label_camel: &'a str,
            public_safe: bool,
            #[serde(rename = "publicSafe")]
            public_safe_camel: bool,
        }
        Wire {
            key: &self.key,
            label: &self.label,
            url: &self.url,
            status: self.status,
            primary: self.primary,
            cta_label: &self.cta_label,
            cta_label_camel: &self.cta_label,
            public_safe: self.public_safe,
            public_safe_camel: self.public_safe,
        }
        .serialize(serializer)
    }
}

/// One entry of `marketplace_availability` (spec §2.3).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
pub struct AvailabilityEntry {
    /// Marketplace identifier, `lowercase_underscore`.
    pub key: String,
    /// Display name.
    pub label: String,
    /// Where the product stands on that marketplace.
    pub status: AvailabilityStatus,
    /// Display text; one of [`AvailabilityStatus::status_labels`].
    pub status_label: String,
    /// Button text.
    pub action_label: String,
    /// Where the button leads; `clickable` is derived from it.
    pub url: Option<String>,
    /// How the marketplace covers the product.
    pub coverage: Coverage,
}

impl AvailabilityEntry {
    /// `clickable`: whether the entry has a URL.
    pub fn clickable(&self) -> bool {
        self.url.is_some()
    }
}

impl Serialize for AvailabilityEntry {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        #[derive(Serialize)]
        struct Wire<'a> {
            key: &'a str,
            label: &'a str,
            status: AvailabilityStatus,
            status_label: &'a str,
            action_label: &'a str,
            url: Option<&'a str>,
            clickable: bool,
            coverage: Coverage,
        }
        Wire {
            key: &self.key,
            label: &self.label,
            status: self.status,
            status_label: &self.status_label,
            action_label: &self.action_label,
            url: self.url.as_deref(),
            clickable: self.clickable(),
            coverage: self.coverage,
        }
        .serialize(serializer)
    }
}

/// One `provenance` item.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Provenance {
    /// What the source is.
    pub label: String,
    /// Where it comes from.
    pub source: String,
}

/// `quality`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Quality {
    /// Content score; also the record's top-level `content_score`.
    pub content_score: i64,
    /// Whether an owner must review the content.
    pub requires_owner_review: bool,
    /// Who scored it.
    pub source: String,
}

/// `pricing_hint`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PricingHint {
    /// Free-text pricing model.
    pub model: String,
    /// Whether the hint is shown.
    pub visible: bool,
    /// ISO 4217 currency.
    pub currency: Currency,
}

/// `seo`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Seo {
    /// Page title.
    pub title: String,
    /// Page description.
    pub description: String,
    /// Whether search engines should skip the page.
    pub noindex: bool,
}

/// One product record (spec §2.1), the value of a response's `data`.
///
/// Build one from a manifest with [`crate::ProductManifest::build`];
/// serialize it inside a [`ProductResponse`].
#[derive(Debug, Clone, PartialEq, Deserialize)]
pub struct ProductRecord {
    /// The product's slug; the paths are derived from it.
    pub slug: Slug,
    /// Display name.
    pub title: String,
    /// Marketing summary.
    pub summary: String,
    /// What the buyer gets.
    pub buyer_outcome: String,
    /// Who it is for.
    pub target_audiences: Vec<String>,
    /// What it is used for.
    pub use_cases: Vec<String>,
    /// Empty in every shown record; item shape not shown.
    pub industries: Vec<Value>,
    /// Empty in every shown record; item shape not shown.
    pub geographies: Vec<Value>,
    /// Output formats, such as `JSON`, `CSV`, `API`.
    pub output_formats: Vec<String>,
    /// Listings; the one marked primary is `primary_cta`.
    pub marketplaces: Vec<MarketplaceListing>,
    /// Availability per marketplace.
    pub marketplace_availability: Vec<AvailabilityEntry>,
    /// Sample rows of the product's record type.
    pub sample: Sample,
    /// Schema of the product's record type.
    pub schema_preview: SchemaPreview,
    /// Free text, such as `Catalog release`.
    pub update_cadence: String,
    /// When the data was refreshed.
    pub freshness_label: UtcTimestamp,
    /// Where the data comes from.
    pub provenance: Vec<Provenance>,
    /// Quality data; `content_score` is derived from it.
    pub quality: Quality,
    /// Pricing hint.
    pub pricing_hint: PricingHint,
    /// Empty in every shown record; item shape not shown.
    pub pricing_events: Vec<Value>,
    /// Empty in every shown record; item shape not shown.
    pub related_products: Vec<Value>,
    /// Empty in every shown record; item shape not shown.
    pub related_use_cases: Vec<Value>,
    /// Whether the product is a bundle.
    pub is_bundle: bool,
    /// Null in every shown record.
    pub bundle_type: Option<String>,
    /// Null in every shown record.
    pub bundle_family: Option<String>,
    /// Null in every shown record.
    pub bundle_version: Option<String>,
    /// Bundle members; `member_count` is derived from it.
    pub member_products: Vec<Value>,
    /// Empty in every shown record; item shape not shown.
    pub bundle_coverage: Vec<Value>,
    /// Empty in every shown record; item shape not shown.
    pub flags: Vec<Value>,
    /// The product group; `category` and `canonical_path` follow from it.
    pub route: Route,
    /// Whether the product is listed publicly.
    pub is_visible: bool,
    /// x402 eligibility.
    pub is_x402_eligible: bool,
    /// x402 readiness.
    pub is_x402_ready: bool,
    /// Search-engine metadata.
    pub seo: Seo,
    /// When the record last changed, with a numeric offset.
    pub last_updated_at: OffsetTimestamp,
}

/// The API path prefix; a record's `api_path` is this plus its slug.
pub const API_PATH_PREFIX: &str = "/api/public/foundry/products/";

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
        format!("/{}/{}", self.route.as_str(), self.slug)
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
        self.quality.content_score
    }
}

impl Serialize for ProductRecord {
    fn serialize<S: serde::Serializer>(&self, serializer: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut s = serializer.serialize_struct("ProductRecord", 40)?;
        s.serialize_field("slug", &self.slug)?;
        s.serialize_field("title", &self.title)?;
        s.serialize_field("summary", &self.summary)?;
        s.serialize_field("buyer_outcome", &self.buyer_outcome)?;
        s.serialize_field("target_audiences", &self.target_audiences)?;
        s.serialize_field("use_cases", &self.use_cases)?;
        s.serialize_field("industries", &self.industries)?;
        s.serialize_field("geographies", &self.geographies)?;
        s.serialize_field("output_formats", &self.output_formats)?;
        s.serialize_field("marketplaces", &self.marketplaces)?;
        s.serialize_field("marketplace_availability", &self.marketplace_availability)?;
        s.serialize_field("primary_cta", &self.primary_cta())?;
        s.serialize_field("sample", &self.sample)?;
        s.serialize_field("schema_preview", &self.schema_preview)?;
        s.serialize_field("update_cadence", &self.update_cadence)?;
        s.serialize_field("freshness_label", &self.freshness_label)?;
        s.serialize_field("provenance", &self.provenance)?;
        s.serialize_field("quality", &self.quality)?;
        s.serialize_field("pricing_hint", &self.pricing_hint)?;
        s.serialize_field("pricing_events", &self.pricing_events)?;
        s.serialize_field("related_products", &self.related_products)?;
        s.serialize_field("related_use_cases", &self.related_use_cases)?;
        s.serialize_field("is_bundle", &self.is_bundle)?;
        s.serialize_field("bundle_type", &self.bundle_type)?;
        s.serialize_field("bundle_family", &self.bundle_family)?;
        s.serialize_field("bundle_version", &self.bundle_version)?;
        s.serialize_field("member_count", &self.member_count())?;
        s.serialize_field("member_products", &self.member_products)?;
        s.serialize_field("bundle_coverage", &self.bundle_coverage)?;
        s.serialize_field("flags", &self.flags)?;
        s.serialize_field("route", &self.route)?;
        s.serialize_field("category", &self.category())?;
        s.serialize_field("is_visible", &self.is_visible)?;
        s.serialize_field("is_x402_eligible", &self.is_x402_eligible)?;
        s.serialize_field("is_x402_ready", &self.is_x402_ready)?;
        s.serialize_field("content_score", &self.content_score())?;
        s.serialize_field("canonical_path", &self.canonical_path())?;
        s.serialize_field("api_path", &self.api_path())?;
        s.serialize_field("seo", &self.seo)?;
        s.serialize_field("last_updated_at", &self.last_updated_at)?;
        s.end()
    }
}

/// A response body: `{"data": <product record>}` (spec §1.4, §4).
///
/// Deserializing one validates the whole body with
/// [`crate::conformance::validate`] and fails with every violation.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct ProductResponse {
    /// The product record.
    pub data: ProductRecord,
}

impl ProductResponse {
    /// Checks a response body against every rule of the spec and, if it
    /// passes, reads it into the typed model.
    pub fn from_value(body: &Value) -> Result<ProductResponse, crate::conformance::Violations> {
        let violations = crate::conformance::validate(body);
        if !violations.is_empty() {
            return Err(crate::conformance::Violations(violations));
        }
        let data = body.get("data").cloned().unwrap_or_default();
        serde_json::from_value(data).map(|data| ProductResponse { data }).map_err(|e| {
            crate::conformance::Violations(vec![crate::conformance::Violation::new(
                "/data",
                crate::conformance::Rule::Type,
                format!("the record does not fit the typed model: {e}"),
            )])
        })
    }
}

impl<'de> Deserialize<'de> for ProductResponse {
    fn deserialize<D: serde::Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        let body = Value::deserialize(deserializer)?;
        ProductResponse::from_value(&body).map_err(serde::de::Error::custom)
    }
}
