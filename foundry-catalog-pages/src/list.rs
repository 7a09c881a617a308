//! The list pages of the site: the home page (`/`) and one page per route
//! (`/datasets`, `/actors`, `/automation`), which is also its category's
//! (the spec pairs each route with one category), paginated
//! ([`PAGE_SIZE`] products a page; page n at `/<route>/page/<n>`).
//!
//! A list page is made from [`Card`]s alone: the path, title, summary and
//! `lastmod` of each product a search engine may index
//! ([`crate::sitemap::indexable`]), in path order. A build keeps every
//! card in its artifact ([`Card::encode_all`]), so that a build on the
//! previous artifact renders the list pages from the previous cards and
//! the changed products' own, without reading any other product.

use foundry_catalog::product::Route;
use serde::{Deserialize, Serialize};

/// The most products one list page shows: a visitor scans 50 titles
/// with their summaries on one screen or two, and the page stays under
/// 40 KB of HTML and well under Lighthouse's 800-element DOM budget; a
/// route of 100,000 products is 2,000 pages.
pub const PAGE_SIZE: usize = 50;

/// The most products of each route the home page shows.
pub const HOME_SIZE: usize = 6;

/// What a list page shows of one product.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Card {
    /// The product page's path (`canonical_path`).
    pub path: String,
    /// The product's title.
    pub title: String,
    /// Its summary.
    pub summary: String,
    /// Its sitemap `lastmod` (`last_updated_at`).
    pub lastmod: String,
}

impl Card {
    /// The card of `record`; none when its page is not indexable (it is
    /// then on no list page, as it is in no sitemap).
    pub fn of(record: &foundry_catalog::product::ProductRecord) -> Option<Card> {
        crate::sitemap::indexable(record).then(|| Card {
            path: record.canonical_path(),
            title: record.title.clone(),
            summary: record.summary.clone(),
            lastmod: record.last_updated_at.as_str().to_owned(),
        })
    }

    /// The route of the card's page (its path's first segment).
    pub fn route(&self) -> Option<Route> {
        self.path.strip_prefix('/')?.split_once('/')?.0.parse().ok()
    }

    /// `cards` as one JSON document, in path order, for an artifact to keep.
    pub fn encode_all(cards: &[Card]) -> Vec<u8> {
        let mut sorted: Vec<&Card> = cards.iter().collect();
        sorted.sort_by(|a, b| a.path.cmp(&b.path));
        serde_json::to_vec(&sorted).unwrap_or_default()
    }

    /// The cards of a document [`Card::encode_all`] wrote.
    pub fn decode_all(bytes: &[u8]) -> Result<Vec<Card>, serde_json::Error> {
        serde_json::from_slice(bytes)
    }
}

pub use foundry_catalog::product::{HOME_PATH, is_list_path};

/// The path of a route's list page `page` (from 1): [`Route::list_path`].
pub fn route_path(route: Route, page: usize) -> String {
    route.list_path(page)
}

/// A route's name as a page shows it.
pub fn route_label(route: Route) -> &'static str {
    match route {
        Route::Datasets => "Datasets",
        Route::Actors => "Actors",
        Route::Automation => "Automation connectors",
    }
}

/// The cards of each route, in path order.
pub(crate) fn by_route(cards: &[Card]) -> Vec<(Route, Vec<&Card>)> {
    let mut routes: Vec<(Route, Vec<&Card>)> = Route::ALL.iter().map(|&route| (route, Vec::new())).collect();
    for card in cards {
        if let Some((_, list)) = card.route().and_then(|route| routes.iter_mut().find(|(r, _)| *r == route)) {
            list.push(card);
        }
    }
    for (_, list) in &mut routes {
        list.sort_by(|a, b| a.path.cmp(&b.path));
        list.dedup_by(|a, b| a.path == b.path);
    }
    routes
}

/// The newest `lastmod` of `cards`, compared as instants (the offsets
/// differ from record to record), written as that record wrote it; the
/// latest in path order of those at the same instant.
pub(crate) fn newest<'a>(cards: impl IntoIterator<Item = &'a Card>) -> String {
    cards
        .into_iter()
        .filter_map(|card| {
            let instant = foundry_catalog_core::OffsetTimestamp::new(card.lastmod.as_str()).ok()?.as_datetime();
            Some((instant, card.lastmod.as_str()))
        })
        .max_by_key(|(instant, _)| *instant)
        .map(|(_, text)| text.to_owned())
        .unwrap_or_default()
}

#[cfg(test)]
mod tests {
    use super::{Card, is_list_path, route_path};
    use foundry_catalog::product::Route;

    #[test]
    fn list_paths_are_the_home_and_each_routes_pages() {
        for path in ["/", "/datasets", "/actors", "/automation", "/datasets/page/2", "/actors/page/123"] {
            assert!(is_list_path(path), "{path}");
        }
        for path in [
            "",
            "/x",
            "/datasets/",
            "/datasets/page/1",
            "/datasets/page/0",
            "/datasets/page/02",
            "/datasets/page/",
            "/datasets/x",
        ] {
            assert!(!is_list_path(path), "{path}");
        }
        assert_eq!(route_path(Route::Actors, 1), "/actors");
        assert_eq!(route_path(Route::Actors, 3), "/actors/page/3");
        assert!(is_list_path(&route_path(Route::Automation, 40)));
    }

    /// The newest of two dates is the later instant, not the later text.
    #[test]
    fn the_newest_lastmod_is_the_latest_instant() {
        let card = |lastmod: &str| Card {
            path: "/datasets/x".to_owned(),
            title: String::new(),
            summary: String::new(),
            lastmod: lastmod.to_owned(),
        };
        // 12:45 UTC is after 10:00 UTC, though its text sorts before.
        let cards = [card("2026-11-04T10:00:00+00:00"), card("2026-11-04T07:45:10-05:00")];
        assert_eq!(super::newest(cards.iter()), "2026-11-04T07:45:10-05:00");
    }

    #[test]
    fn cards_read_back_as_written_in_path_order() {
        let card = |path: &str| Card {
            path: path.to_owned(),
            title: format!("T {path}"),
            summary: "S".to_owned(),
            lastmod: "2026-01-01T00:00:00+00:00".to_owned(),
        };
        let cards = vec![card("/datasets/b"), card("/actors/a"), card("/datasets/a")];
        let read = Card::decode_all(&Card::encode_all(&cards)).unwrap();
        assert_eq!(
            read.iter().map(|c| c.path.as_str()).collect::<Vec<_>>(),
            ["/actors/a", "/datasets/a", "/datasets/b"]
        );
        assert_eq!(read[0].route(), Some(Route::Actors));
    }
}
