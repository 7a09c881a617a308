//! The site search a catalog with pages answers at [`SEARCH_PATH`]
//! (`/search?q=…`; feature `pages`). The index's head and the site's
//! settings are read from the artifact (each checked as any body is) the
//! first time a search is asked, not at start-up, and each part of the
//! index's words the first time a query has a word in it; all are kept
//! while the catalog is served. A search then reads the cards of its
//! matches from the documents the route pages' cards are kept in, and
//! renders the page with the site's own templates.

use super::ResponseCatalog;

pub use foundry_catalog::product::SEARCH_PATH;

/// What a search asks for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum SearchPage {
    /// The page (`text/html`), rendered.
    Page(String),
    /// A page of matches no search has (`page=0`, `page=x`, past the
    /// last): not found.
    NoSuchPage,
    /// Its index, settings or cards fail their checks (the artifact's
    /// file was written into in place): answered 503.
    Unavailable,
}

/// A catalog's search, ready to answer: its pages and index.
#[cfg(feature = "pages")]
#[derive(Debug)]
pub(super) struct SiteSearch {
    pages: foundry_catalog_pages::Pages,
    index: foundry_catalog_pages::search::Search<bytes::Bytes>,
    /// Each part of the index's words, once a query has read it.
    parts: Vec<once_cell::race::OnceBox<foundry_catalog_search::Part<bytes::Bytes>>>,
}

impl ResponseCatalog {
    /// The search page for the request's query string (`q=eu+signals&page=2`);
    /// none when the catalog has no search (no pages, or an artifact
    /// built before search was: `/search` is then not found).
    pub fn search(&self, query: Option<&str>) -> Option<SearchPage> {
        #[cfg(feature = "pages")]
        {
            self.search_with_pages(query)
        }
        #[cfg(not(feature = "pages"))]
        {
            let _ = query;
            None
        }
    }

    #[cfg(feature = "pages")]
    fn search_with_pages(&self, query: Option<&str>) -> Option<SearchPage> {
        use crate::artifact::{SEARCH_DOCUMENT, SETTINGS_DOCUMENT, search_part_document};
        use foundry_catalog_pages::search::{Query, Search, pages};
        let site = self.site.as_deref()?;
        if !site.documents.contains_key(SEARCH_DOCUMENT.as_bytes()) {
            return None;
        }
        let Some(query) = Query::parse(query) else { return Some(SearchPage::NoSuchPage) };
        // Not kept when it fails: the next search reads it again.
        let loaded = site.search.get_or_try_init(|| {
            let read = |name: &str| self.document(name).and_then(Result::ok).ok_or(());
            let pages = foundry_catalog_pages::Pages::from_settings(&read(SETTINGS_DOCUMENT)?).map_err(|_| ())?;
            let index = Search::open(read(SEARCH_DOCUMENT)?).map_err(|_| ())?;
            let parts = (0..index.parts()).map(|_| once_cell::race::OnceBox::new()).collect();
            Ok::<_, ()>(Box::new(std::panic::AssertUnwindSafe(SiteSearch { pages, index, parts })))
        });
        let Ok(search) = loaded else { return Some(SearchPage::Unavailable) };
        let html = if query.is_blank() {
            // A query of no words has one page: the form.
            if query.page > 1 {
                return Some(SearchPage::NoSuchPage);
            }
            search.pages.search_page(&query, 0, &[])
        } else {
            // A part that cannot be read is not kept: the next query reads it again.
            let part = |k: usize| {
                let unreadable = foundry_catalog_search::IndexError::new("a part of the index cannot be read");
                let slot = search.parts.get(k).ok_or(unreadable.clone())?;
                slot.get_or_try_init(|| {
                    let bytes = self.document(&search_part_document(k)).and_then(Result::ok).ok_or(unreadable)?;
                    search.index.open_part(bytes, k).map(Box::new)
                })
            };
            let Ok(matches) = search.index.find(&query, part) else { return Some(SearchPage::Unavailable) };
            if query.page > pages(matches.total) {
                return Some(SearchPage::NoSuchPage);
            }
            let Some(cards) = self.cards_at(&matches.locations) else { return Some(SearchPage::Unavailable) };
            search.pages.search_page(&query, matches.total, &cards)
        };
        Some(html.map_or(SearchPage::Unavailable, SearchPage::Page))
    }

    /// The cards at `locations`, each route page's cards read once; none
    /// when one cannot be read or is not where the index says.
    #[cfg(feature = "pages")]
    fn cards_at(
        &self,
        locations: &[foundry_catalog_pages::search::Location],
    ) -> Option<Vec<foundry_catalog_pages::list::Card>> {
        use super::pages::cards_document;
        use foundry_catalog_pages::list::{Card, route_of};
        let mut read: Vec<((foundry_catalog::product::Route, usize), Vec<Card>)> = Vec::new();
        let mut cards = Vec::with_capacity(locations.len());
        for location in locations {
            let key = (location.route, location.number);
            let at = match read.iter().position(|(k, _)| *k == key) {
                Some(at) => at,
                None => {
                    let bytes = self.document(&cards_document(&location.route.list_path(location.number)))?.ok()?;
                    read.push((key, Card::decode_all(&bytes).ok()?));
                    read.len() - 1
                }
            };
            let card = read[at].1.get(location.offset)?;
            if route_of(&card.path) != Some(location.route) {
                return None;
            }
            cards.push(card.clone());
        }
        Some(cards)
    }
}
