//! JSON-LD (schema.org) of a product page, serialized from the typed
//! record and made safe to place inside `<script type="application/ld+json">`.
//!
//! | route | `@type` | from the record |
//! |---|---|---|
//! | `datasets` | [`Dataset`](https://schema.org/Dataset) | `name`, `description`, `url`, `identifier`, `dateModified`, `keywords`, `audience`, `variableMeasured` (the schema preview's fields), `isBasedOn` (`provenance`), `includedInDataCatalog` (`quality.source`), `sameAs`, `offers` |
//! | `actors` | [`SoftwareApplication`](https://schema.org/SoftwareApplication) | `name`, `description`, `url`, `identifier`, `dateModified`, `applicationCategory`, `applicationSubCategory` (`Data extraction actor`), `operatingSystem`, `featureList`, `audience`, `sameAs`, `offers` |
//! | `automation` | [`SoftwareApplication`](https://schema.org/SoftwareApplication) | the same, `applicationSubCategory` `Automation connector` |
//!
//! An actor and an automation connector are software a buyer runs, sold
//! through marketplaces: `SoftwareApplication` with its `offers` is what
//! search engines read for such a product. Each published listing is one
//! `Offer` (its `url`, the marketplace as `seller`, the pricing hint's
//! model when it is shown) and one `sameAs` URL (the same product on that
//! marketplace); the primary listing comes first.
//!
//! Nothing is said that the record does not hold: the record has no price
//! (its pricing hint is a model in words), so no offer has a `price` or a
//! `priceCurrency` (which goes with a price); no rating, review, licence,
//! creator or coverage. The dataset's data is not downloadable from the
//! site, so there is no `distribution`. Google's required and recommended
//! properties of each type, and which of them the record cannot fill and
//! why, are in `tests/pages/expectations.json`, read by the crate's tests
//! and by the HTML and browser checks alike.

use foundry_catalog::product::{ProductRecord, Route};
use serde_json::{Value, json};

use crate::Site;

/// The schema.org type of a route's pages.
pub fn schema_type(route: Route) -> &'static str {
    match route {
        Route::Datasets => "Dataset",
        Route::Actors | Route::Automation => "SoftwareApplication",
    }
}

/// The JSON-LD object of `record`'s page on `site`.
pub fn object(record: &ProductRecord, site: &Site) -> Value {
    let offers: Vec<Value> = listings(record)
        .iter()
        .map(|listing| {
            let mut offer = json!({
                "@type": "Offer",
                "url": listing.url,
                "seller": {"@type": "Organization", "name": listing.label},
            });
            if record.pricing_hint.visible {
                offer["description"] = json!(record.pricing_hint.model);
            }
            offer
        })
        .collect();
    let audience: Vec<Value> =
        record.target_audiences.iter().map(|a| json!({"@type": "Audience", "audienceType": a})).collect();
    let mut object = json!({
        "@context": "https://schema.org",
        "@type": schema_type(record.route),
        "name": record.title,
        "description": record.seo.description,
        "url": site.url(&record.canonical_path()),
        "identifier": record.slug.to_string(),
        "dateModified": record.last_updated_at.as_str(),
    });
    if let Some(map) = object.as_object_mut() {
        match record.route {
            Route::Datasets => {
                map.insert("keywords".into(), json!(record.use_cases));
                map.insert(
                    "variableMeasured".into(),
                    record
                        .schema_preview
                        .fields
                        .iter()
                        .map(|f| json!({"@type": "PropertyValue", "name": f.name, "description": f.description}))
                        .collect(),
                );
                if !record.provenance.is_empty() {
                    let sources: Vec<Value> = record
                        .provenance
                        .iter()
                        .map(|p| json!({"@type": "CreativeWork", "name": p.label, "description": p.source}))
                        .collect();
                    map.insert("isBasedOn".into(), Value::Array(sources));
                }
                map.insert(
                    "includedInDataCatalog".into(),
                    json!({"@type": "DataCatalog", "name": record.quality.source}),
                );
            }
            Route::Actors | Route::Automation => {
                let sub = if record.route == Route::Actors { "Data extraction actor" } else { "Automation connector" };
                map.insert("applicationCategory".into(), json!("BusinessApplication"));
                map.insert("applicationSubCategory".into(), json!(sub));
                map.insert("operatingSystem".into(), json!("Web"));
                map.insert("featureList".into(), json!(record.use_cases));
            }
        }
        if !audience.is_empty() {
            map.insert("audience".into(), Value::Array(audience.clone()));
        }
        if !offers.is_empty() {
            let same_as: Vec<&str> = listings(record).iter().map(|l| l.url.as_str()).collect();
            map.insert("sameAs".into(), json!(same_as));
            map.insert("offers".into(), Value::Array(offers.clone()));
        }
    }
    object
}

/// The marketplace listings safe to show the public (`public_safe`; the
/// others are on no page and in no JSON-LD), the primary one (the call to
/// action) first, the others in the record's order: the order of the
/// page's links and of the JSON-LD's offers.
pub(crate) fn listings(record: &ProductRecord) -> Vec<&foundry_catalog::product::MarketplaceListing> {
    let mut listings: Vec<_> = record.marketplaces.iter().filter(|l| l.public_safe).collect();
    listings.sort_by_key(|l| !l.primary);
    listings
}

/// [`object`] as text to place inside `<script
/// type="application/ld+json">`: `<`, `>` and `&` are written as JSON
/// escapes (`\u003c`…), so no value can close the script element or open
/// a comment, and the JSON reads the same.
pub fn script(record: &ProductRecord, site: &Site) -> String {
    escape_for_script(&object(record, site).to_string())
}

/// The home page's JSON-LD: the site as a [`WebSite`](https://schema.org/WebSite)
/// with its name and language, safe to place in a script element (as
/// [`script`]).
pub fn website_script(site: &Site) -> String {
    let object = json!({
        "@context": "https://schema.org",
        "@type": "WebSite",
        "name": site.name(),
        "inLanguage": site.language().tag(),
        "url": site.url(foundry_catalog::product::HOME_PATH),
    });
    escape_for_script(&object.to_string())
}

/// JSON text with `<`, `>` and `&` escaped (they can only occur inside
/// strings, where the escapes mean the same characters).
fn escape_for_script(json: &str) -> String {
    let mut out = String::with_capacity(json.len());
    for c in json.chars() {
        match c {
            '<' => out.push_str("\\u003c"),
            '>' => out.push_str("\\u003e"),
            '&' => out.push_str("\\u0026"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::escape_for_script;

    #[test]
    fn a_value_cannot_close_the_script() {
        let json = serde_json::json!({"name": "</script><script>alert(1)</script><!-- & more"}).to_string();
        let escaped = escape_for_script(&json);
        assert!(!escaped.contains('<') && !escaped.contains('>') && !escaped.contains('&'), "{escaped}");
        let back: serde_json::Value = serde_json::from_str(&escaped).unwrap();
        assert_eq!(back.to_string(), json);
    }
}
