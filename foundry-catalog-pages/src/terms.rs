//! What a product is listed under on the facet pages ([`crate::facets`]):
//! its terms, each a value of one of its taxonomies, named and slugged.

use foundry_catalog::product::{AvailabilityEntry, AvailabilityStatus, ProductRecord};
pub use foundry_catalog::product::{Taxonomy, term_key, term_slug};
use serde::{Deserialize, Serialize};

/// One term of a product: a value of one of its taxonomies.
#[derive(Debug, Clone, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(into = "(Taxonomy, String, String)", try_from = "(Taxonomy, String, String)")]
pub struct Term {
    /// Whose value it is.
    pub taxonomy: Taxonomy,
    /// Its page's path segment ([`term_slug`]).
    pub slug: String,
    /// What a page shows of it.
    pub label: String,
}

impl From<Term> for (Taxonomy, String, String) {
    fn from(term: Term) -> Self {
        (term.taxonomy, term.slug, term.label)
    }
}

/// A term read back (from an artifact's cards): its slug must have the
/// shape [`term_slug`] gives, since it names a page's path (a slug such as
/// `../x` would name one outside its taxonomy).
impl TryFrom<(Taxonomy, String, String)> for Term {
    type Error = String;

    fn try_from((taxonomy, slug, label): (Taxonomy, String, String)) -> Result<Self, Self::Error> {
        if !foundry_catalog::product::is_term_slug(&slug) {
            return Err(format!("{slug:?} is not a term's slug (lowercase ASCII words joined by `-`)"));
        }
        Ok(Term { taxonomy, slug, label })
    }
}

impl Term {
    /// The term of `taxonomy` named `value`, shown as `label`.
    pub fn new(taxonomy: Taxonomy, value: &str, label: &str) -> Term {
        Term { taxonomy, slug: term_slug(value), label: label.to_owned() }
    }

    /// Its first page's path.
    pub fn path(&self) -> String {
        self.taxonomy.term_path(&self.slug, 1)
    }
}

/// A taxonomy's name as a page shows it (the index's heading).
pub fn label(taxonomy: Taxonomy) -> &'static str {
    match taxonomy {
        Taxonomy::UseCases => "Use cases",
        Taxonomy::Audiences => "Audiences",
        Taxonomy::Formats => "Output formats",
        Taxonomy::Marketplaces => "Marketplaces",
        Taxonomy::Availability => "Availability",
    }
}

/// What one term of `taxonomy` is, as a term page names it (`Use case`).
pub fn singular(taxonomy: Taxonomy) -> &'static str {
    match taxonomy {
        Taxonomy::UseCases => "Use case",
        Taxonomy::Audiences => "Audience",
        Taxonomy::Formats => "Output format",
        Taxonomy::Marketplaces => "Marketplace",
        Taxonomy::Availability => "Availability",
    }
}

/// What an availability status is called on its term's page: the first
/// display text the spec gives it (`Awaiting Marketplace Review`). An
/// entry's own `status_label` is not used: the spec lets a `published`
/// entry say "Not Yet Published".
pub fn status_label(status: AvailabilityStatus) -> &'static str {
    status.status_labels().first().copied().unwrap_or(status.as_str())
}

/// Whether `value` names a term: it has a character besides spaces, `-`
/// and `_` (its [`term_key`] is not empty). A blank value (the spec's
/// text may be empty) is shown as it is and is on no facet page.
pub fn is_term(value: &str) -> bool {
    value.chars().any(|c| !(c.is_whitespace() || c == '-' || c == '_'))
}

/// What a page calls the marketplace of an availability entry: its
/// `label`, or its `key` when the label is blank (a link needs text).
pub fn marketplace_name(entry: &AvailabilityEntry) -> &str {
    if entry.label.trim().is_empty() { &entry.key } else { &entry.label }
}

/// The terms of `record`, each once (by taxonomy and slug), taxonomy by
/// taxonomy in [`Taxonomy::ALL`] order, each in the record's order;
/// blank values are none ([`is_term`]).
pub fn terms_of(record: &ProductRecord) -> Vec<Term> {
    let mut terms: Vec<Term> = Vec::new();
    let mut add = |term: Term| {
        if !terms.iter().any(|t| t.taxonomy == term.taxonomy && t.slug == term.slug) {
            terms.push(term);
        }
    };
    for (taxonomy, values) in [
        (Taxonomy::UseCases, &record.use_cases),
        (Taxonomy::Audiences, &record.target_audiences),
        (Taxonomy::Formats, &record.output_formats),
    ] {
        for value in values.iter().filter(|value| is_term(value)) {
            add(Term::new(taxonomy, value, value));
        }
    }
    for entry in &record.marketplace_availability {
        add(Term::new(Taxonomy::Marketplaces, &entry.key, marketplace_name(entry)));
    }
    for entry in &record.marketplace_availability {
        add(Term::new(Taxonomy::Availability, entry.status.as_str(), status_label(entry.status)));
    }
    terms
}
