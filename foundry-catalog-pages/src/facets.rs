//! Facets: the site's pages by taxonomy ([`Taxonomy`]). Each value a
//! product has of a taxonomy (a term: a use case, an audience, an output
//! format, a marketplace it has an availability entry on, or an
//! availability status) has its own list of the indexable products with
//! it, at `/<taxonomy>/<term>` ([`Taxonomy::term_path`]), paginated as a
//! route is; each taxonomy lists its terms with their counts at
//! `/<taxonomy>` ([`Taxonomy::index_path`]). A term's page is reached from
//! each product page that shows the term, and each taxonomy's index from
//! every page's footer.
//!
//! Terms are told apart by their [`term_key`] (case, and runs of spaces,
//! `-` and `_`, do not count), and a term's page is named by its
//! [`term_slug`], which depends on its text alone: a term's URL never
//! moves when other products come or go. A term shows the text the first
//! product listing it (in list order) gives it.

use std::collections::{BTreeMap, HashSet};
use std::sync::{Arc, Mutex, PoisonError};

use crate::list::{Card, Cards};
pub use crate::terms::{
    Taxonomy, Term, is_term, label, marketplace_name, singular, status_label, term_key, term_slug, terms_of,
};

/// One copy of each term, which the cards that have it share: a
/// catalog's products repeat a few thousand terms ten times each, so a
/// term held once per card would cost more than the rest of the card (at
/// 100,000 products, over 100 MB). The cards [`crate::list::Card::of`]
/// makes and a document decodes each hold their own; [`TermTable::share`]
/// gives them the table's. Safe to share between threads.
#[derive(Debug, Default)]
pub struct TermTable {
    terms: Mutex<HashSet<Arc<Term>>>,
}

impl TermTable {
    /// A table with no term.
    pub fn new() -> TermTable {
        TermTable::default()
    }

    /// `card` with each of its terms the table's copy (added when the
    /// table has none yet).
    pub fn share(&self, mut card: Card) -> Card {
        let mut terms = self.terms.lock().unwrap_or_else(PoisonError::into_inner);
        for term in &mut card.terms {
            match terms.get(&**term) {
                Some(shared) => *term = Arc::clone(shared),
                None => {
                    terms.insert(Arc::clone(term));
                }
            }
        }
        card
    }

    /// `cards` with each of their terms the table's copy, as
    /// [`TermTable::share`] gives each, the table locked once and each
    /// term the cards already share ([`crate::list::Card::decode_all`]
    /// gives a document's cards one copy of each) looked up once.
    pub fn share_all(&self, mut cards: Vec<Card>) -> Vec<Card> {
        let mut terms = self.terms.lock().unwrap_or_else(PoisonError::into_inner);
        // By the address of the cards' copy, which `seen` keeps alive (so
        // no other term is given its address meanwhile).
        let mut seen: std::collections::HashMap<*const Term, (Arc<Term>, Arc<Term>)> = std::collections::HashMap::new();
        for term in cards.iter_mut().flat_map(|card| card.terms.iter_mut()) {
            if let Some((_, shared)) = seen.get(&Arc::as_ptr(term)) {
                *term = Arc::clone(shared);
                continue;
            }
            let shared = match terms.get(&**term) {
                Some(shared) => Arc::clone(shared),
                None => {
                    terms.insert(Arc::clone(term));
                    Arc::clone(term)
                }
            };
            let held = std::mem::replace(term, Arc::clone(&shared));
            seen.insert(Arc::as_ptr(&held), (held, shared));
        }
        cards
    }

    /// How many distinct terms it holds.
    pub fn len(&self) -> usize {
        self.terms.lock().unwrap_or_else(PoisonError::into_inner).len()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One term and the cards that have it, in list order.
#[derive(Debug)]
pub struct TermCards<'a> {
    /// Its page's path segment.
    pub slug: &'a str,
    /// What its pages show: the first card's label for it.
    pub label: &'a str,
    /// The cards with it, in [`Cards::iter`] order.
    pub cards: Vec<&'a Card>,
}

/// The cards of a catalog by taxonomy and term: what the facet pages
/// are made from.
#[derive(Debug)]
pub struct Facets<'a> {
    taxonomies: Vec<(Taxonomy, Vec<TermCards<'a>>)>,
}

impl<'a> Facets<'a> {
    /// The terms of `cards`, each taxonomy's in slug order.
    pub fn new(cards: &'a Cards) -> Facets<'a> {
        let mut by_term: BTreeMap<(Taxonomy, &'a str), TermCards<'a>> = BTreeMap::new();
        for card in cards.iter() {
            for term in &card.terms {
                by_term
                    .entry((term.taxonomy, term.slug.as_str()))
                    .or_insert_with(|| TermCards { slug: &term.slug, label: &term.label, cards: Vec::new() })
                    .cards
                    .push(card);
            }
        }
        let mut taxonomies: Vec<(Taxonomy, Vec<TermCards<'a>>)> =
            Taxonomy::ALL.iter().map(|&taxonomy| (taxonomy, Vec::new())).collect();
        for ((taxonomy, _), term) in by_term {
            if let Some((_, terms)) = taxonomies.iter_mut().find(|(t, _)| *t == taxonomy) {
                terms.push(term);
            }
        }
        Facets { taxonomies }
    }

    /// Each taxonomy with its terms, in [`Taxonomy::ALL`] order.
    pub fn taxonomies(&self) -> impl Iterator<Item = (Taxonomy, &[TermCards<'a>])> {
        self.taxonomies.iter().map(|(taxonomy, terms)| (*taxonomy, terms.as_slice()))
    }
}

#[cfg(test)]
mod tests {
    use super::{Facets, Taxonomy, Term, terms_of};
    use crate::list::{Card, Cards};
    use foundry_catalog::product::ProductManifest;

    #[test]
    fn a_records_terms_are_its_values_of_each_taxonomy_once() {
        let (_, manifest) = foundry_catalog::examples::MANIFESTS
            .iter()
            .find(|(name, _)| name.contains("crm-webhook"))
            .expect("the example connector");
        let record = ProductManifest::from_json(manifest).unwrap().build().unwrap();
        let terms = terms_of(&record);
        let of = |taxonomy: Taxonomy| {
            terms
                .iter()
                .filter(|t| t.taxonomy == taxonomy)
                .map(|t| (t.slug.as_str(), t.label.as_str()))
                .collect::<Vec<_>>()
        };
        assert_eq!(
            of(Taxonomy::UseCases),
            [("webhook-fan-out", "Webhook fan-out"), ("deduplicated-task-creation", "Deduplicated task creation")]
        );
        assert_eq!(of(Taxonomy::Formats), [("json", "JSON")]);
        assert_eq!(
            of(Taxonomy::Marketplaces),
            [("integration-directory", "Integration Directory"), ("workspace-apps", "Workspace Apps")]
        );
        // Its two entries' statuses, by the spec's text, not the entry's
        // ("Not Yet Published" on a published entry).
        assert_eq!(
            of(Taxonomy::Availability),
            [("partially-published", "Partially published"), ("published", "Published")]
        );
    }

    /// Cards made or read apart hold one copy of each term once shared.
    #[test]
    fn a_table_gives_cards_one_copy_of_each_term() {
        let record = |at: usize| {
            let (_, manifest) = foundry_catalog::examples::MANIFESTS[at];
            ProductManifest::from_json(manifest).unwrap().build().unwrap()
        };
        let table = super::TermTable::new();
        let first = table.share(Card::of(&record(0)).unwrap());
        let again =
            table.share(Card::decode_all(&Card::encode_all(&[Card::of(&record(0)).unwrap()])).unwrap().remove(0));
        let other = table.share(Card::of(&record(1)).unwrap());
        assert_eq!(first, again);
        assert!(first.terms.iter().zip(&again.terms).all(|(a, b)| std::sync::Arc::ptr_eq(a, b)));
        let json = first.terms.iter().find(|t| t.slug == "json").expect("JSON");
        assert!(other.terms.iter().any(|t| std::sync::Arc::ptr_eq(t, json)), "a term two products share");
        assert!(table.len() < first.terms.len() + other.terms.len());
        // A document's cards, shared at once, get the same copies.
        let decoded =
            Card::decode_all(&Card::encode_all(&[Card::of(&record(0)).unwrap(), Card::of(&record(1)).unwrap()]));
        let shared = table.share_all(decoded.unwrap());
        assert_eq!(shared, [first.clone(), other.clone()]);
        for (card, was) in shared.iter().zip([&first, &other]) {
            assert!(card.terms.iter().zip(&was.terms).all(|(a, b)| std::sync::Arc::ptr_eq(a, b)), "{}", card.path);
        }
        let fresh = super::TermTable::new();
        let decoded =
            Card::decode_all(&Card::encode_all(&[Card::of(&record(0)).unwrap(), Card::of(&record(1)).unwrap()]));
        let shared = fresh.share_all(decoded.unwrap());
        let json = |card: &Card| card.terms.iter().find(|t| t.slug == "json").cloned().expect("JSON");
        assert!(std::sync::Arc::ptr_eq(&json(&shared[0]), &json(&shared[1])));
        assert_eq!(fresh.len(), table.len());
    }

    #[test]
    fn terms_read_back_as_written() {
        let term = Term::new(Taxonomy::UseCases, "Análisis", "Análisis");
        let json = serde_json::to_string(&term).unwrap();
        assert!(json.starts_with(r#"["use-cases","anlisis-"#), "{json}");
        assert_eq!(serde_json::from_str::<Term>(&json).unwrap(), term);
        // A slug that would name a path outside its taxonomy is refused.
        for bad in [r#"["use-cases","../x","X"]"#, r#"["formats","",""]"#, r#"["formats","Json","JSON"]"#] {
            assert!(serde_json::from_str::<Term>(bad).is_err(), "{bad}");
        }
        // A card without terms (an earlier build's) reads with none.
        let card: Card = serde_json::from_str(
            r#"{"path":"/datasets/a","title":"A","summary":"S","lastmod":"2026-01-01T00:00:00Z"}"#,
        )
        .unwrap();
        assert!(card.terms.is_empty());
    }

    /// Cards meet under one term whatever the case and separators of
    /// their text; the term shows the first card's text.
    #[test]
    fn cards_are_grouped_by_term() {
        let card = |path: &str, terms: &[&str]| Card {
            path: path.to_owned(),
            title: path.to_owned(),
            summary: String::new(),
            lastmod: "2026-01-01T00:00:00Z".to_owned(),
            terms: terms.iter().map(|t| Term::new(Taxonomy::UseCases, t, t).into()).collect(),
        };
        let cards = Cards::new([
            card("/datasets/b", &["Fan out", "Alerts"]),
            card("/datasets/a", &["fan-out"]),
            card("/actors/c", &["FAN_OUT"]),
        ]);
        let facets = Facets::new(&cards);
        let (_, terms) = facets.taxonomies().next().unwrap();
        let shown: Vec<(&str, &str, Vec<&str>)> =
            terms.iter().map(|t| (t.slug, t.label, t.cards.iter().map(|c| c.path.as_str()).collect())).collect();
        assert_eq!(
            shown,
            [
                ("alerts", "Alerts", vec!["/datasets/b"]),
                ("fan-out", "fan-out", vec!["/datasets/a", "/datasets/b", "/actors/c"]),
            ]
        );
        assert!(facets.taxonomies().skip(1).all(|(_, terms)| terms.is_empty()));
    }
}
