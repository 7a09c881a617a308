//! The list pages of the site: the home page (`/`) and one page per route
//! (`/datasets`, `/actors`, `/automation`), which is also its category's
//! (the spec pairs each route with one category), paginated
//! ([`PAGE_SIZE`] products a page; page n at `/<route>/page/<n>`).
//!
//! A list page is made from [`Card`]s alone: the path, title, summary and
//! `lastmod` of each product a search engine may index
//! ([`crate::sitemap::indexable`]), in path order ([`Cards`]); so is the
//! list of related products on each product page ([`Cards::related`]).
//! A build keeps each route page's cards in its artifact
//! ([`Card::encode_all`]), so that a build on the previous artifact knows
//! the cards its pages were made with without reading any other product,
//! and renders again only the pages that show something new
//! ([`crate::Pages::list_pages_since`], [`crate::Pages::same_related`]).

use std::sync::Arc;

use foundry_catalog::product::Route;
use serde::{Deserialize, Serialize};

use crate::terms::Term;

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
    /// Its terms: the facet pages that list it ([`crate::facets`]), each
    /// shared with the other cards that have it when they are made or
    /// read through one [`crate::facets::TermTable`].
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub terms: Vec<Arc<Term>>,
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
            terms: {
                // Not `collect`: in-place iteration would keep the terms'
                // own allocation for the `Arc`s (896 bytes for nine
                // 8-byte pointers), 0.8 kB in every card a build holds.
                let terms = crate::terms::terms_of(record);
                let mut shared = Vec::with_capacity(terms.len());
                shared.extend(terms.into_iter().map(Arc::new));
                shared
            },
        })
    }

    /// The route of the card's page ([`route_of`] its path).
    pub fn route(&self) -> Option<Route> {
        route_of(&self.path)
    }
}

pub use foundry_catalog::product::{HOME_PATH, is_list_path};

/// The route of a product page's path (`/datasets/<slug>`: its first
/// segment); none for a path that is not a product page's.
pub fn route_of(path: &str) -> Option<Route> {
    let (route, slug) = path.strip_prefix('/')?.split_once('/')?;
    if slug.is_empty() || slug.contains('/') {
        return None;
    }
    route.parse().ok()
}

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

/// The page numbers page `number` of a route's `pages` links to, in
/// order (itself among them): the first and the last, the two on each
/// side, and the pages that keep every page near the first. Pages are
/// taken in blocks of `s` = ⌈√pages⌉: every page links to the first page
/// of each block, and the first page of a block to every page of its
/// block. So page 1 reaches any page in two clicks, whatever the route's
/// length: with the home page's link to page 1 and a list page's links to
/// its products, every product is at most 4 clicks from `/`. A page links
/// to about √pages others, the first of a block to 2√pages (at most 51
/// and 92 numbers at 2,000 pages: 100,000 products in one route). The
/// numbers depend on `number` and `pages` alone: a route whose page count
/// changes renders all its pages again; one whose count holds, only the
/// pages whose products changed.
pub fn page_numbers(number: usize, pages: usize) -> Vec<usize> {
    let pages = pages.max(1);
    let number = number.clamp(1, pages);
    let block = pages.isqrt() + usize::from(pages.isqrt().pow(2) < pages);
    let own =
        if (number - 1).is_multiple_of(block) { number..=(number + block - 1).min(pages) } else { number..=number };
    let mut numbers: Vec<usize> = (1..=pages)
        .step_by(block)
        .chain(own)
        .chain(number.saturating_sub(2).max(1)..=(number + 2).min(pages))
        .chain([pages])
        .collect();
    numbers.sort_unstable();
    numbers.dedup();
    numbers
}

/// How many related products a product page links to ([`Cards::related`]).
pub const RELATED: usize = 4;

/// The cards of a catalog, by route, each route's in path order, one a
/// path: what the list pages and each product page's related products
/// are made from.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Cards {
    routes: Vec<(Route, Vec<Card>)>,
}

impl Cards {
    /// `cards` by route, in path order; of two cards with one path the
    /// first is kept, and a card whose path names no route is left out.
    pub fn new(cards: impl IntoIterator<Item = Card>) -> Cards {
        let mut routes: Vec<(Route, Vec<Card>)> = Route::ALL.iter().map(|&route| (route, Vec::new())).collect();
        for card in cards {
            if let Some((_, list)) = card.route().and_then(|route| routes.iter_mut().find(|(r, _)| *r == route)) {
                list.push(card);
            }
        }
        for (_, list) in &mut routes {
            // Stable: of equal paths, the first given comes first.
            list.sort_by(|a, b| a.path.cmp(&b.path));
            list.dedup_by(|later, first| later.path == first.path);
            list.shrink_to_fit();
        }
        Cards { routes }
    }

    /// Each route with its cards, in [`Route::ALL`] order.
    pub fn routes(&self) -> impl Iterator<Item = (Route, &[Card])> {
        self.routes.iter().map(|(route, cards)| (*route, cards.as_slice()))
    }

    /// The cards of `route`, in path order.
    pub fn route(&self, route: Route) -> &[Card] {
        self.routes.iter().find(|(r, _)| *r == route).map_or(&[], |(_, cards)| cards.as_slice())
    }

    /// The card of the page at `path`, if it has one.
    pub fn get(&self, path: &str) -> Option<&Card> {
        let cards = self.route(route_of(path)?);
        cards.binary_search_by(|card| card.path.as_str().cmp(path)).ok().map(|at| &cards[at])
    }

    /// Every card, route by route.
    pub fn iter(&self) -> impl Iterator<Item = &Card> {
        self.routes.iter().flat_map(|(_, cards)| cards)
    }

    /// How many cards there are.
    pub fn len(&self) -> usize {
        self.routes.iter().map(|(_, cards)| cards.len()).sum()
    }

    /// Whether there is none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The products a page at `path` in `route` links to as related: of
    /// the route's other indexable products (its category's: the spec
    /// pairs each route with one), the [`RELATED`] nearest in path order,
    /// two before it and two after, wrapping around at the ends (all of
    /// them, in path order, when there are no more). Nearness in path
    /// order is the only relation the record holds besides the category;
    /// it gives every product as many links in as out, and keeps an edit's
    /// reach small: a product's card shows on its four neighbours' pages
    /// only, which is what an incremental build renders again.
    pub fn related(&self, route: Route, path: &str) -> Vec<&Card> {
        let cards = self.route(route);
        // Where the page's path is, or would be: the others are the
        // route's cards without its own, indexed alike before it.
        let at = cards.partition_point(|card| card.path.as_str() < path);
        let own = usize::from(cards.get(at).is_some_and(|card| card.path == path));
        let n = cards.len() - own;
        let other = |i: usize| if i < at { &cards[i] } else { &cards[i + own] };
        if n <= RELATED {
            return (0..n).map(other).collect();
        }
        let half = RELATED / 2;
        (0..RELATED).map(|k| other((at + n + k - half) % n)).collect()
    }
}

/// A catalog's cards against the previous ones when a few were edited
/// in place ([`Cards::in_place`]): which of its cards differ, by where
/// they are in memory (so only of the [`Cards`] it was made of).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InPlace {
    /// The cards that show something else ([`shown`]).
    shown: Vec<usize>,
    /// The cards that differ in anything, dates and terms included.
    differ: Vec<usize>,
    /// Where the cards it was made of are: each route's first.
    of: Vec<usize>,
}

impl Cards {
    /// These cards against `before`, when a few of them were edited in
    /// place: every route has its cards at the same paths as before, each
    /// with the same terms (so every list page lists the same products in
    /// the same places, and every page the same related products), and at
    /// most [`InPlace::MOST`] cards differ. None otherwise.
    pub fn in_place(&self, before: &Cards) -> Option<InPlace> {
        let (mut shows, mut differ) = (Vec::new(), Vec::new());
        for ((route_before, before), (route_now, now)) in before.routes().zip(self.routes()) {
            if route_before != route_now || before.len() != now.len() {
                return None;
            }
            for (b, n) in before.iter().zip(now) {
                if b.path != n.path || b.terms != n.terms {
                    return None;
                }
                if b != n {
                    if differ.len() == InPlace::MOST {
                        return None;
                    }
                    differ.push(address(n));
                    if shown(b) != shown(n) {
                        shows.push(address(n));
                    }
                }
            }
        }
        shows.sort_unstable();
        differ.sort_unstable();
        Some(InPlace { shown: shows, differ, of: firsts(self) })
    }
}

impl InPlace {
    /// The most edited cards [`Cards::in_place`] tells apart.
    pub const MOST: usize = 64;

    /// Whether any of `cards` (of the [`Cards`] it was made of) shows
    /// something other than before: its path, title or summary.
    pub fn shows_other<'c>(&self, cards: impl IntoIterator<Item = &'c Card>) -> bool {
        any_of(&self.shown, cards)
    }

    /// Whether any of `cards` (of the [`Cards`] it was made of) differs
    /// from before in anything, its date and terms included.
    pub fn differs<'c>(&self, cards: impl IntoIterator<Item = &'c Card>) -> bool {
        any_of(&self.differ, cards)
    }

    /// Whether it was made of `cards` ([`Cards::in_place`]), the very
    /// ones, not a copy: what it says of a card holds only for those.
    pub fn is_of(&self, cards: &Cards) -> bool {
        self.of == firsts(cards)
    }

    /// How many cards differ.
    pub fn len(&self) -> usize {
        self.differ.len()
    }

    /// Whether none does.
    pub fn is_empty(&self) -> bool {
        self.differ.is_empty()
    }
}

/// Whether any of `cards` is at one of `addresses` (sorted).
fn any_of<'c>(addresses: &[usize], cards: impl IntoIterator<Item = &'c Card>) -> bool {
    !addresses.is_empty() && cards.into_iter().any(|card| addresses.binary_search(&address(card)).is_ok())
}

/// Where each route's cards of `cards` start in memory.
fn firsts(cards: &Cards) -> Vec<usize> {
    cards.routes.iter().map(|(_, list)| list.as_ptr() as usize).collect()
}

/// Where `card` is in memory: which of a catalog's cards it is.
fn address(card: &Card) -> usize {
    std::ptr::from_ref(card) as usize
}

/// What a card shows of a product, on a list page and among a page's
/// related products (not its date or terms): what two plans compare.
pub(crate) fn shown(card: &Card) -> (&str, &str, &str) {
    (&card.path, &card.title, &card.summary)
}

/// The `n` most recently updated of `cards`, newest first: by `lastmod`
/// compared as instants; of those at one instant, in the order given
/// (path order); a card whose `lastmod` does not read after every one
/// that does. What the home page shows of each route.
pub fn newest_first<'a>(cards: impl IntoIterator<Item = &'a Card>, n: usize) -> Vec<&'a Card> {
    use std::cmp::Reverse;
    let mut keyed: Vec<_> = cards
        .into_iter()
        .enumerate()
        .map(|(at, card)| {
            let instant = foundry_catalog_core::OffsetTimestamp::instant_of(&card.lastmod);
            (Reverse(instant), at, card)
        })
        .collect();
    let order = |a: &(_, usize, &Card), b: &(_, usize, &Card)| (&a.0, a.1).cmp(&(&b.0, b.1));
    if keyed.len() > n && n > 0 {
        keyed.select_nth_unstable_by(n - 1, order);
    }
    keyed.truncate(n);
    keyed.sort_unstable_by(order);
    keyed.into_iter().map(|(_, _, card)| card).collect()
}

/// The newest `lastmod` of `cards`, compared as instants (the offsets
/// differ from record to record), written as that record wrote it; the
/// latest in path order of those at the same instant.
pub(crate) fn newest<'a>(cards: impl IntoIterator<Item = &'a Card>) -> String {
    crate::sitemap::newest_of(cards.into_iter().map(|card| card.lastmod.as_str()))
}

#[cfg(test)]
mod tests {
    use super::{Card, is_list_path, route_path};
    use foundry_catalog::product::Route;

    /// A card holds its terms in as much memory as they take: a build
    /// holds every product's card.
    #[test]
    fn a_card_holds_its_terms_in_what_they_take() {
        for (_, text) in foundry_catalog::examples::MANIFESTS {
            let record =
                foundry_catalog::product::ProductManifest::from_json(text).expect("reads").build().expect("builds");
            let card = Card::of(&record).expect("indexable");
            assert!(!card.terms.is_empty(), "{}", record.slug.as_str());
            assert_eq!(card.terms.capacity(), card.terms.len(), "{}", record.slug.as_str());
        }
    }

    /// Edited in place: the same paths with the same terms, a few cards
    /// differing; each is told apart by what it shows and by anything.
    #[test]
    fn cards_edited_in_place_are_told_apart_from_the_others() {
        use super::{Cards, InPlace};
        let card = |n: usize, title: &str| Card {
            path: format!("/datasets/product-{n:03}"),
            title: title.to_owned(),
            summary: format!("Summary {n}"),
            lastmod: "2026-01-01T00:00:00Z".to_owned(),
            terms: Vec::new(),
        };
        let before = Cards::new((0..100).map(|n| card(n, "Title")));
        let mut edited: Vec<Card> = before.iter().cloned().collect();
        edited[3].title = "Retitled".to_owned();
        edited[7].lastmod = "2026-02-01T00:00:00Z".to_owned();
        let now = Cards::new(edited);
        let in_place = now.in_place(&before).expect("in place");
        let at = |n: usize| &now.route(Route::Datasets)[n];
        assert_eq!(in_place.len(), 2);
        assert!(in_place.is_of(&now) && !in_place.is_of(&now.clone()) && !in_place.is_of(&before));
        assert!(in_place.shows_other([at(3)]) && !in_place.shows_other([at(7), at(8)]));
        assert!(in_place.differs([at(7)]) && !in_place.differs([at(8), at(0)]));
        // The same card's copy elsewhere is another card.
        assert!(!in_place.differs([&at(3).clone()]));
        assert_eq!(before.in_place(&before).map(|p| p.len()), Some(0));
        // A path moved, a term, a card more or less, too many edited: not in place.
        let mut moved: Vec<Card> = before.iter().cloned().collect();
        moved[5].path = "/datasets/product-005b".to_owned();
        assert_eq!(Cards::new(moved).in_place(&before), None);
        let mut termed: Vec<Card> = before.iter().cloned().collect();
        termed[5].terms = vec![std::sync::Arc::new(crate::terms::Term {
            taxonomy: crate::facets::Taxonomy::UseCases,
            slug: "x".to_owned(),
            label: "X".to_owned(),
        })];
        assert_eq!(Cards::new(termed).in_place(&before), None);
        assert_eq!(Cards::new(before.iter().take(99).cloned()).in_place(&before), None);
        let many = Cards::new((0..100).map(|n| card(n, if n <= InPlace::MOST { "New" } else { "Title" })));
        assert_eq!(many.in_place(&before), None);
        let most = Cards::new((0..100).map(|n| card(n, if n < InPlace::MOST { "New" } else { "Title" })));
        assert_eq!(most.in_place(&before).map(|p| p.len()), Some(InPlace::MOST));
    }

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

    /// Every page of a route is at most two clicks from its first,
    /// whatever its length, through at most 2⌈√pages⌉ + 3 links a page
    /// (⌈√pages⌉ + 6 but on the first page of a block); each page links
    /// to its first, its last and its neighbours.
    #[test]
    fn every_page_is_two_clicks_from_the_first() {
        for pages in (1..=700).chain([1_000, 2_000, 2_025, 2_026, 20_000]) {
            let links = |n: usize| super::page_numbers(n, pages);
            let mut reached = vec![false; pages + 1];
            for one in links(1) {
                for two in links(one) {
                    reached[two] = true;
                }
            }
            assert!(reached[1..].iter().all(|&r| r), "{pages} pages: not all within two clicks of the first");
            let bound = 2 * pages.isqrt() + 5;
            for n in [1, 2.min(pages), pages / 2 + 1, pages.saturating_sub(1).max(1), pages] {
                let numbers = links(n);
                assert!(numbers.len() <= bound, "page {n} of {pages} links to {}", numbers.len());
                let block = pages.isqrt() + usize::from(pages.isqrt().pow(2) < pages);
                if !(n - 1).is_multiple_of(block) {
                    assert!(numbers.len() <= block + 6, "page {n} of {pages} links to {}", numbers.len());
                }
                assert!(numbers.windows(2).all(|w| w[0] < w[1]), "in order, once each");
                for want in [1, n.saturating_sub(1).max(1), n, (n + 1).min(pages), pages] {
                    assert!(numbers.contains(&want), "page {n} of {pages} lacks {want}: {numbers:?}");
                }
            }
        }
        assert_eq!(super::page_numbers(1, 1), [1]);
        assert_eq!(super::page_numbers(7, 10), [1, 5, 6, 7, 8, 9, 10]);
        assert_eq!(super::page_numbers(9, 16), [1, 5, 7, 8, 9, 10, 11, 12, 13, 16]);
        assert_eq!(super::page_numbers(8, 16), [1, 5, 6, 7, 8, 9, 10, 13, 16]);
    }

    /// The home page's cards are the newest, as instants, newest first;
    /// ties keep path order, and an unreadable date comes last.
    #[test]
    fn the_newest_cards_come_first() {
        let card = |path: &str, lastmod: &str| Card {
            path: path.to_owned(),
            title: String::new(),
            summary: String::new(),
            lastmod: lastmod.to_owned(),
            terms: Vec::new(),
        };
        let cards = [
            card("/actors/a", "2026-11-04T10:00:00+00:00"),
            card("/actors/b", "2026-11-04T07:45:10-05:00"),
            card("/actors/c", "not a date"),
            card("/actors/d", "2026-11-04T12:45:10+00:00"),
            card("/actors/e", "2026-01-01T00:00:00+00:00"),
        ];
        let paths = |n: usize| super::newest_first(&cards, n).iter().map(|c| c.path.as_str()).collect::<Vec<_>>();
        assert_eq!(paths(3), ["/actors/b", "/actors/d", "/actors/a"]);
        assert_eq!(paths(9), ["/actors/b", "/actors/d", "/actors/a", "/actors/e", "/actors/c"]);
        assert!(paths(0).is_empty());
    }

    /// The newest of two dates is the later instant, not the later text.
    #[test]
    fn the_newest_lastmod_is_the_latest_instant() {
        let card = |lastmod: &str| Card {
            path: "/datasets/x".to_owned(),
            title: String::new(),
            summary: String::new(),
            lastmod: lastmod.to_owned(),
            terms: Vec::new(),
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
            terms: Vec::new(),
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
