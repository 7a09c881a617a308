//! Product manifests: the small JSON file a catalog team writes per
//! product. It holds only what cannot be derived; [`ProductManifest::build`]
//! derives the rest and checks the result against every rule of the spec.
//!
//! The format is the record's stored keys (see `schema/product-manifest.schema.json`,
//! generated from [`super::shape`]), plus `record_label` (the product's
//! record type) and an optional `actor_manifest`. Arrays and nullable keys
//! may be left out. Listings carry no `status`, `ctaLabel` or `publicSafe`,
//! and availability entries carry no `clickable`: those are derived.

use serde::Deserialize;
use serde_json::Value;

use super::conformance::{Rule, Violation, Violations, validate};
use super::{
    AvailabilityEntry, Currency, MarketplaceListing, OffsetTimestamp, PricingHint, ProductRecord, ProductResponse,
    Provenance, Route, Seo,
};
use crate::{ManifestLocation, ProductContext, Sample, SchemaPreview, Slug, UtcTimestamp};

/// Where an actor product's manifest lives: `<scheme>://actors/<publisher>/<slug>`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ActorManifest {
    /// URI scheme of the actor platform.
    pub scheme: String,
    /// Publisher account on that platform.
    pub publisher: String,
}

/// A listing as written in a manifest (its derived keys left out).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ListingManifest {
    /// Marketplace identifier.
    pub key: String,
    /// Display name.
    pub label: String,
    /// Absolute URL of the listing.
    pub url: String,
    /// Whether this is the primary call to action.
    pub primary: bool,
    /// Button text.
    pub cta_label: String,
    /// Whether the listing is public-safe.
    pub public_safe: bool,
}

/// An availability entry as written in a manifest (`clickable` left out).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct AvailabilityManifest {
    /// Marketplace identifier.
    pub key: String,
    /// Display name.
    pub label: String,
    /// Where the product stands there.
    pub status: super::AvailabilityStatus,
    /// Display text shown with the status.
    pub status_label: String,
    /// Button text.
    pub action_label: String,
    /// Where the button leads, if anywhere.
    #[serde(default)]
    pub url: Option<String>,
    /// How the marketplace covers the product.
    pub coverage: super::Coverage,
}

/// `pricing_hint` as written (the currency checked when building).
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PricingHintManifest {
    /// Pricing model text.
    pub model: String,
    /// Whether the hint is shown.
    pub visible: bool,
    /// ISO 4217 code.
    pub currency: String,
}

/// One product manifest, as read from `examples/catalog/<slug>.json`.
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProductManifest {
    /// Optional pointer to the manifest schema, for editors.
    #[serde(rename = "$schema", default)]
    pub schema: Option<String>,
    /// The product's record type, looked up in the generated registry.
    pub record_label: String,
    /// Set when the manifest lives on an actor platform.
    #[serde(default)]
    pub actor_manifest: Option<ActorManifest>,
    /// The slug (checked when building).
    pub slug: String,
    /// Display name.
    pub title: String,
    /// Marketing summary.
    pub summary: String,
    /// What the buyer gets.
    pub buyer_outcome: String,
    /// Who it is for.
    #[serde(default)]
    pub target_audiences: Vec<String>,
    /// What it is used for.
    #[serde(default)]
    pub use_cases: Vec<String>,
    /// Item shape not shown.
    #[serde(default)]
    pub industries: Vec<Value>,
    /// Item shape not shown.
    #[serde(default)]
    pub geographies: Vec<Value>,
    /// Such as JSON, CSV, API.
    pub output_formats: Vec<String>,
    /// Listings; exactly one primary when there are any.
    #[serde(default)]
    pub marketplaces: Vec<ListingManifest>,
    /// Availability per marketplace.
    #[serde(default)]
    pub marketplace_availability: Vec<AvailabilityManifest>,
    /// Free text.
    pub update_cadence: String,
    /// UTC with microseconds; also the sample's `refreshed_at`.
    pub freshness_label: String,
    /// Sources.
    #[serde(default)]
    pub provenance: Vec<Provenance>,
    /// Quality data.
    pub quality: super::Quality,
    /// Pricing hint.
    pub pricing_hint: PricingHintManifest,
    /// Item shape not shown.
    #[serde(default)]
    pub pricing_events: Vec<Value>,
    /// Item shape not shown.
    #[serde(default)]
    pub related_products: Vec<Value>,
    /// Item shape not shown.
    #[serde(default)]
    pub related_use_cases: Vec<Value>,
    /// Whether the product is a bundle.
    pub is_bundle: bool,
    /// Values not shown.
    #[serde(default)]
    pub bundle_type: Option<String>,
    /// Values not shown.
    #[serde(default)]
    pub bundle_family: Option<String>,
    /// Values not shown.
    #[serde(default)]
    pub bundle_version: Option<String>,
    /// Bundle members.
    #[serde(default)]
    pub member_products: Vec<Value>,
    /// Item shape not shown.
    #[serde(default)]
    pub bundle_coverage: Vec<Value>,
    /// Item shape not shown.
    #[serde(default)]
    pub flags: Vec<Value>,
    /// The product group.
    pub route: Route,
    /// Whether the product is listed publicly.
    pub is_visible: bool,
    /// x402 eligibility.
    pub is_x402_eligible: bool,
    /// x402 readiness.
    pub is_x402_ready: bool,
    /// Search-engine metadata.
    pub seo: Seo,
    /// ISO 8601 with a numeric offset.
    pub last_updated_at: String,
}

/// Collects the first-stage problems: values that cannot even be typed.
struct Problems(Vec<Violation>);

impl Problems {
    fn take<T, E: std::fmt::Display>(&mut self, at: &str, rule: Rule, result: Result<T, E>) -> Option<T> {
        result.map_err(|e| self.0.push(Violation::new(at, rule, e.to_string()))).ok()
    }
}

impl ProductManifest {
    /// Reads a manifest from JSON text.
    pub fn from_json(text: &str) -> Result<ProductManifest, serde_json::Error> {
        serde_json::from_str(text)
    }

    /// Builds the product record: derives every derived value, builds the
    /// sample and schema preview from the record type, and checks the
    /// result against every rule of the spec. All problems are returned
    /// together; pointers are relative to the record, whose keys mirror the
    /// manifest's (`/marketplaces/0/key`).
    pub fn build(&self) -> Result<ProductRecord, Violations> {
        let mut p = Problems(Vec::new());
        let slug = p.take("/slug", Rule::Format, Slug::new(self.slug.clone()));
        let freshness = p.take("/freshness_label", Rule::Format, self.freshness_label.parse::<UtcTimestamp>());
        let last_updated = p.take("/last_updated_at", Rule::Format, OffsetTimestamp::new(self.last_updated_at.clone()));
        let currency =
            p.take("/pricing_hint/currency", Rule::Format, Currency::new(self.pricing_hint.currency.clone()));
        let record_type = p.take(
            "/record_label",
            Rule::RecordType,
            crate::record_type(&self.record_label).ok_or_else(|| {
                let known: Vec<&str> = crate::record_types().iter().map(|t| &*t.record_label).collect();
                format!("no record type `{}`; known: {}", self.record_label, known.join(", "))
            }),
        );
        let location = match &self.actor_manifest {
            None => Some(ManifestLocation::Generated),
            Some(actor) => {
                p.take("/actor_manifest", Rule::ManifestPath, ManifestLocation::actor(&actor.scheme, &actor.publisher))
            }
        };
        let (Some(slug), Some(freshness), Some(last_updated), Some(currency), Some(record_type), Some(location)) =
            (slug, freshness, last_updated, currency, record_type, location)
        else {
            return Err(Violations(p.0));
        };

        let ctx = ProductContext::new(slug.clone(), freshness).with_manifest(location);
        let record = ProductRecord {
            slug,
            title: self.title.clone(),
            summary: self.summary.clone(),
            buyer_outcome: self.buyer_outcome.clone(),
            target_audiences: self.target_audiences.clone(),
            use_cases: self.use_cases.clone(),
            industries: self.industries.clone(),
            geographies: self.geographies.clone(),
            output_formats: self.output_formats.clone(),
            marketplaces: self.marketplaces.iter().map(ListingManifest::to_listing).collect(),
            marketplace_availability: self
                .marketplace_availability
                .iter()
                .map(AvailabilityManifest::to_entry)
                .collect(),
            sample: Sample::new(record_type, &ctx),
            schema_preview: SchemaPreview::new(record_type, &ctx),
            update_cadence: self.update_cadence.clone(),
            freshness_label: freshness,
            provenance: self.provenance.clone(),
            quality: self.quality.clone(),
            pricing_hint: PricingHint {
                model: self.pricing_hint.model.clone(),
                visible: self.pricing_hint.visible,
                currency,
            },
            pricing_events: self.pricing_events.clone(),
            related_products: self.related_products.clone(),
            related_use_cases: self.related_use_cases.clone(),
            is_bundle: self.is_bundle,
            bundle_type: self.bundle_type.clone(),
            bundle_family: self.bundle_family.clone(),
            bundle_version: self.bundle_version.clone(),
            member_products: self.member_products.clone(),
            bundle_coverage: self.bundle_coverage.clone(),
            flags: self.flags.clone(),
            route: self.route,
            is_visible: self.is_visible,
            is_x402_eligible: self.is_x402_eligible,
            is_x402_ready: self.is_x402_ready,
            seo: self.seo.clone(),
            last_updated_at: last_updated,
        };
        let body = serde_json::to_value(ProductResponse { data: record.clone() }).unwrap_or_default();
        let violations: Vec<Violation> = validate(&body)
            .into_iter()
            .map(|v| Violation { pointer: v.pointer.strip_prefix("/data").unwrap_or(&v.pointer).to_owned(), ..v })
            .collect();
        if violations.is_empty() { Ok(record) } else { Err(Violations(violations)) }
    }
}

impl ListingManifest {
    fn to_listing(&self) -> MarketplaceListing {
        MarketplaceListing {
            key: self.key.clone(),
            label: self.label.clone(),
            url: self.url.clone(),
            status: super::ListingStatus::Published,
            primary: self.primary,
            cta_label: self.cta_label.clone(),
            public_safe: self.public_safe,
        }
    }
}

impl AvailabilityManifest {
    fn to_entry(&self) -> AvailabilityEntry {
        AvailabilityEntry {
            key: self.key.clone(),
            label: self.label.clone(),
            status: self.status,
            status_label: self.status_label.clone(),
            action_label: self.action_label.clone(),
            url: self.url.clone(),
            coverage: self.coverage,
        }
    }
}
