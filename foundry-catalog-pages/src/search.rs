//! The site's search (`/search?q=…`): the index a build stores beside
//! the list pages, and what a server answers from it.
//!
//! A build makes the index from the same [`Cards`] as the list pages
//! ([`index`]): one document per indexable product, of its title (weight
//! [`TITLE`]), its terms (use cases, audiences, output formats,
//! marketplaces and availability, weight [`TERMS`]) and its summary
//! (weight [`SUMMARY`]), ranked by BM25 ([`foundry_catalog_search`]). A
//! product is found by its number in that order, which is the order of
//! the route pages' cards, so a server shows a match with the card its
//! route's list page shows ([`Search::find`] gives where that card is),
//! and the index holds no copy of any card.
//!
//! A search page is rendered by the site's own templates
//! (`search.html`), which the server reads from the artifact
//! ([`crate::Pages::settings`]). The static site has no server: its
//! `search.html` says so and links to what it offers instead (the list
//! and facet pages; [`crate::Pages::search_unavailable`]).

use foundry_catalog::product::Route;
use std::sync::Arc;

use foundry_catalog_search::{Edited, Index, IndexBuilder, IndexEdit, IndexError, Part};
use serde::Serialize;

use crate::list::{Card, Cards};
use crate::render::{CardContext, Crumb, PageLink};
use crate::{PageError, Pages};

/// Where the search page is.
pub use foundry_catalog::product::SEARCH_PATH as PATH;

/// The weight of a word of a product's title.
pub const TITLE: u32 = 3;

/// The weight of a word of one of its terms.
pub const TERMS: u32 = 2;

/// The weight of a word of its summary.
pub const SUMMARY: u32 = 1;

/// How many matches a search page shows.
pub const RESULTS: usize = 20;

/// The most pages of matches a search shows (the first
/// `RESULTS × MAX_PAGES` matches: a visitor refines a query long before).
pub const MAX_PAGES: usize = 50;

/// The most characters of a query read; the rest is left out.
pub const MAX_QUERY: usize = 200;

/// The index of `cards` for a site whose route pages show `page_size`
/// cards each, as a build stores it: the head (a header of the page size
/// and each route's number of cards, [`Route::ALL`] order, then the
/// [`foundry_catalog_search`] index's head) and the index's parts.
///
/// The cards are read on every available core, a run of them a core, and
/// the runs' indexes joined in order ([`IndexBuilder::append`]): the same
/// bytes on one core or many.
pub fn index(cards: &Cards, page_size: usize) -> Stored {
    let all: Vec<&Card> = cards.iter().collect();
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let run = all.len().div_ceil(cores).max(1);
    let runs: Vec<IndexBuilder> = std::thread::scope(|scope| {
        let workers: Vec<_> = all.chunks(run).map(|run| scope.spawn(|| index_run(run))).collect();
        // A worker panics only if indexing does; then so does the caller.
        workers.into_iter().map(|w| w.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))).collect()
    });
    let mut builder = IndexBuilder::new();
    for run in runs {
        builder.append(run);
    }
    let built = builder.finish();
    Stored { head: headed(cards, page_size, &built.head), parts: built.parts }
}

/// The index of `cards` ([`index`]) made by editing the one a build
/// stored of `before`, whose head is `head` and whose part `k` is
/// `part(k)`: the documents whose title, terms or summary changed are
/// counted again, and only the parts of the words whose counts changed
/// are read and made again ([`IndexEdit`]); every other part is the one
/// stored. The same bytes as [`index`] gives.
///
/// An error when it cannot be made so: the stored index is not one of
/// `before` at this page size, the cards are not as many as before (each
/// product after one added or removed is another document), more than a
/// quarter of them changed (indexing them all is then as quick), or
/// [`IndexEdit::apply`] refuses. The caller then makes it whole.
pub fn index_edited<P: AsRef<[u8]>>(
    cards: &Cards,
    before: &Cards,
    page_size: usize,
    head: &[u8],
    part: impl FnMut(usize) -> Result<P, IndexError>,
) -> Result<Edited, IndexError> {
    let stored = head.get(HEADER..).ok_or(IndexError::new("shorter than the search page's header"))?;
    if head[..HEADER] != headed(before, page_size, &[])[..] {
        return Err(IndexError::new("it is not the index of these cards at this page size"));
    }
    if Index::open(stored)?.docs() != before.len() {
        return Err(IndexError::new("it is not the index of these cards at this page size"));
    }
    if before.len() != cards.len() {
        return Err(IndexError::new("another number of products"));
    }
    let mut edit = IndexEdit::new();
    let (mut was, mut now) = (String::new(), String::new());
    for (doc, (b, n)) in before.iter().zip(cards.iter()).enumerate() {
        if !same_words(b, n) {
            let doc = u32::try_from(doc).map_err(|_| IndexError::new("more documents than a u32"))?;
            edit.change(doc, &fields(b, &mut was), &fields(n, &mut now));
            if edit.len() > cards.len() / 4 {
                return Err(IndexError::new("a quarter of its products changed"));
            }
        }
    }
    let edited = edit.apply(stored, part)?;
    Ok(Edited { head: headed(cards, page_size, &edited.head), parts: edited.parts })
}

/// One document a card, in order.
fn index_run(cards: &[&Card]) -> IndexBuilder {
    let mut builder = IndexBuilder::new();
    let mut terms = String::new();
    for card in cards {
        builder.add(&fields(card, &mut terms));
    }
    builder
}

/// Whether two cards are the same document: the same title, terms and summary.
fn same_words(a: &Card, b: &Card) -> bool {
    a.title == b.title
        && a.summary == b.summary
        && a.terms.len() == b.terms.len()
        && a.terms.iter().zip(&b.terms).all(|(x, y)| Arc::ptr_eq(x, y) || x.label == y.label)
}

/// A card's document: its fields with their weights, its terms written
/// into `terms`, a line each.
fn fields<'a>(card: &'a Card, terms: &'a mut String) -> [(u32, &'a str); 3] {
    terms.clear();
    for term in &card.terms {
        terms.push_str(&term.label);
        terms.push('\n');
    }
    [(TITLE, card.title.as_str()), (TERMS, terms.as_str()), (SUMMARY, card.summary.as_str())]
}

/// A stored index's head: the header of `cards` at `page_size` (the page
/// size, and each route's number of cards), then `index`.
fn headed(cards: &Cards, page_size: usize, index: &[u8]) -> Vec<u8> {
    let mut head = Vec::with_capacity(HEADER + index.len());
    head.extend_from_slice(&u32_of(page_size).to_le_bytes());
    for (_, cards) in cards.routes() {
        head.extend_from_slice(&u32_of(cards.len()).to_le_bytes());
    }
    head.extend_from_slice(index);
    head
}

/// A site's search index as a build stores it ([`index`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Stored {
    /// The head: page size, routes' counts, the documents' lengths.
    pub head: Vec<u8>,
    /// The parts of the words, each stored apart.
    pub parts: Vec<Vec<u8>>,
}

fn u32_of(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// The bytes of `B` from byte `start`: the index behind the header.
#[derive(Debug, Clone)]
struct After<B>(B, usize);

impl<B: AsRef<[u8]>> AsRef<[u8]> for After<B> {
    fn as_ref(&self) -> &[u8] {
        &self.0.as_ref()[self.1..]
    }
}

/// The bytes of the header: the page size and a count per route.
const HEADER: usize = 4 * (1 + Route::ALL.len());

/// A stored index's head ([`index`]), opened in place; its parts are
/// opened apart ([`Search::open_part`]), when a query needs them.
#[derive(Debug, Clone)]
pub struct Search<B> {
    index: Index<After<B>>,
    page_size: usize,
    /// Each route's number of cards.
    counts: [usize; Route::ALL.len()],
}

/// Where the card of a match is: the `offset`th card (from 0) of the
/// route's list page `number`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location {
    /// The product's route.
    pub route: Route,
    /// The route's list page (from 1) whose cards hold it.
    pub number: usize,
    /// Its place among that page's cards (from 0).
    pub offset: usize,
}

/// The matches of one page of a search.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Matches {
    /// How many products match.
    pub total: usize,
    /// Where the cards of this page's matches are, most relevant first.
    pub locations: Vec<Location>,
}

impl<B: AsRef<[u8]>> Search<B> {
    /// The stored index's head in `bytes`, checked.
    pub fn open(bytes: B) -> Result<Search<B>, IndexError> {
        let all = bytes.as_ref();
        let Some(head) = all.get(..HEADER) else {
            return Err(IndexError::new("shorter than the search page's header"));
        };
        let word = |at: usize| u32::from_le_bytes([head[at], head[at + 1], head[at + 2], head[at + 3]]) as usize;
        let page_size = word(0);
        let counts = std::array::from_fn(|n| word(4 + 4 * n));
        let index = Index::open(After(bytes, HEADER))?;
        let sum = counts.iter().try_fold(0usize, |sum, &n| sum.checked_add(n));
        if page_size == 0 || sum != Some(index.docs()) {
            return Err(IndexError::new("its header's counts are not the index's"));
        }
        Ok(Search { index, page_size, counts })
    }

    /// How many products it holds.
    pub fn len(&self) -> usize {
        self.index.docs()
    }

    /// Whether it holds none.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// How many parts its words are in ([`Stored::parts`]).
    pub fn parts(&self) -> usize {
        self.index.parts()
    }

    /// Part `k` of its words, in `bytes`, checked against this head.
    pub fn open_part<P: AsRef<[u8]>>(&self, bytes: P, k: usize) -> Result<Part<P>, IndexError> {
        Part::open(bytes, &self.index, k)
    }

    /// The matches of `query` on its page, most relevant first; `part(k)`
    /// gives part `k` opened ([`Search::open_part`]), asked for the
    /// query's words' parts only.
    pub fn find<'p, P: AsRef<[u8]> + 'p>(
        &self,
        query: &Query,
        part: impl FnMut(usize) -> Result<&'p Part<P>, IndexError>,
    ) -> Result<Matches, IndexError> {
        let skip = query.page.saturating_sub(1) * RESULTS;
        let found = self.index.search(&query.text, skip, RESULTS, part)?;
        let locations = found.hits.iter().filter_map(|hit| self.location(hit.doc as usize)).collect();
        Ok(Matches { total: found.total, locations })
    }

    /// Where the card of product `doc` is.
    fn location(&self, mut doc: usize) -> Option<Location> {
        for (&route, &count) in Route::ALL.iter().zip(&self.counts) {
            if doc < count {
                return Some(Location { route, number: doc / self.page_size + 1, offset: doc % self.page_size });
            }
            doc -= count;
        }
        None
    }
}

/// A search as asked: the query's text and the page of matches.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Query {
    /// `q`: at most [`MAX_QUERY`] characters of it.
    pub text: String,
    /// `page`, from 1 (1 when not given).
    pub page: usize,
}

impl Query {
    /// The search a request's query string asks for
    /// (`application/x-www-form-urlencoded`: `q=eu+signals&page=2`); of a
    /// name given twice, the first. None when `page` is not a page number
    /// a search can have (1 to [`MAX_PAGES`], digits only).
    pub fn parse(query: Option<&str>) -> Option<Query> {
        let mut text = None;
        let mut page = None;
        for (name, value) in form_urlencoded::parse(query.unwrap_or_default().as_bytes()) {
            match &*name {
                "q" if text.is_none() => text = Some(value.chars().take(MAX_QUERY).collect::<String>()),
                "page" if page.is_none() => page = Some(value.into_owned()),
                _ => {}
            }
        }
        let page = match page {
            None => 1,
            Some(page) => page_number(&page)?,
        };
        Some(Query { text: text.unwrap_or_default(), page })
    }

    /// Whether it asks for anything: a query of no words shows the form.
    pub fn is_blank(&self) -> bool {
        foundry_catalog_search::words(&self.text).is_empty()
    }

    /// The path of page `number` of this search (`/search?q=eu+signals&page=2`).
    pub fn path(&self, number: usize) -> String {
        let mut path = format!("{PATH}?q=");
        path.extend(form_urlencoded::byte_serialize(self.text.as_bytes()));
        if number > 1 {
            path.push_str(&format!("&page={number}"));
        }
        path
    }
}

/// `text` as a page number from 1 to [`MAX_PAGES`]: digits only, no sign,
/// no leading zero.
fn page_number(text: &str) -> Option<usize> {
    if text.is_empty() || text.len() > 3 || text.starts_with('0') || !text.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    text.parse().ok().filter(|n| (1..=MAX_PAGES).contains(n))
}

/// How many pages `total` matches fill, at most [`MAX_PAGES`] (at least 1).
pub fn pages(total: usize) -> usize {
    total.div_ceil(RESULTS).clamp(1, MAX_PAGES)
}

/// The template of the search page.
const TEMPLATE: &str = "search.html";

/// What `search.html` sees as `page`.
#[derive(Serialize)]
struct SearchContext<'a> {
    canonical_url: String,
    /// Whether this site answers searches: false on the static site's
    /// page, which says what it offers instead.
    available: bool,
    /// The query as asked (at most [`MAX_QUERY`] characters).
    query: &'a str,
    /// Whether the query has words: if not, the page shows the form alone.
    asked: bool,
    /// How many products match.
    total: usize,
    /// This page's number, from 1, and how many pages the matches fill.
    number: usize,
    pages: usize,
    /// This page's matches, most relevant first.
    cards: Vec<CardContext<'a>>,
    previous_url: Option<String>,
    next_url: Option<String>,
    numbers: Vec<PageLink>,
    breadcrumbs: Vec<Crumb>,
}

impl Pages {
    /// The page of `query`'s matches: `total` products match, and `cards`
    /// are this page's, most relevant first ([`Search::find`]).
    pub fn search_page(&self, query: &Query, total: usize, cards: &[Card]) -> Result<String, PageError> {
        let site = self.site();
        let asked = !query.is_blank();
        let (number, pages) = (query.page, pages(total));
        let label = "Search";
        let page = SearchContext {
            canonical_url: site.url(PATH),
            available: true,
            query: &query.text,
            asked,
            total,
            number,
            pages,
            cards: cards.iter().map(|card| self.card(card)).collect(),
            previous_url: (asked && number > 1).then(|| site.url(&query.path(number - 1))),
            next_url: (asked && number < pages).then(|| site.url(&query.path(number + 1))),
            numbers: if asked { self.page_links(number, pages, |n| query.path(n)) } else { Vec::new() },
            breadcrumbs: self.trail(Vec::new(), label, PATH, 1),
        };
        self.render_page(TEMPLATE, &page)
    }

    /// The static site's search page: there is no server to search, so
    /// it says so and links to the list and facet pages instead.
    pub fn search_unavailable(&self) -> Result<String, PageError> {
        let page = SearchContext {
            canonical_url: self.site().url(PATH),
            available: false,
            query: "",
            asked: false,
            total: 0,
            number: 1,
            pages: 1,
            cards: Vec::new(),
            previous_url: None,
            next_url: None,
            numbers: Vec::new(),
            breadcrumbs: self.trail(Vec::new(), "Search", PATH, 1),
        };
        self.render_page(TEMPLATE, &page)
    }
}

#[cfg(test)]
mod tests {
    use super::{MAX_PAGES, MAX_QUERY, Query, index, index_run, page_number};
    use crate::list::{Card, Cards};

    /// Indexed on every core, a run of cards a core, the bytes are those
    /// of the cards indexed in one run, in the route pages' order.
    #[test]
    fn the_index_made_on_several_cores_is_the_one_made_on_one() {
        let route = ["datasets", "actors", "automation-connectors"];
        let cards = Cards::new((0..301).map(|n| Card {
            path: format!("/{}/product-{n:03}", route[n % 3]),
            title: format!("Product {n} of {}", n % 7),
            summary: format!("Summary {} words", n % 11),
            lastmod: String::new(),
            terms: Vec::new(),
        }));
        let all: Vec<&Card> = cards.iter().collect();
        let one = index_run(&all).finish();
        let stored = index(&cards, 50);
        assert_eq!(stored.parts, one.parts);
        assert!(stored.head.ends_with(&one.head));
    }

    #[test]
    fn a_query_string_reads_as_a_form_does() {
        let query = Query::parse(Some("q=EU+signals%21&page=2&q=other")).unwrap();
        assert_eq!((query.text.as_str(), query.page), ("EU signals!", 2));
        assert_eq!(query.path(2), "/search?q=EU+signals%21&page=2");
        assert_eq!(query.path(1), "/search?q=EU+signals%21");
        assert_eq!(Query::parse(None), Some(Query { text: String::new(), page: 1 }));
        assert!(Query::parse(Some("q=%20%2C")).unwrap().is_blank());
        // Invalid UTF-8 reads as U+FFFD; the text is cut.
        assert_eq!(Query::parse(Some("q=%FF")).unwrap().text, "\u{FFFD}");
        let long = format!("q={}", "a".repeat(5000));
        assert_eq!(Query::parse(Some(&long)).unwrap().text.len(), MAX_QUERY);
    }

    #[test]
    fn only_a_page_a_search_can_have_is_asked_for() {
        assert_eq!(page_number("1"), Some(1));
        assert_eq!(page_number(&MAX_PAGES.to_string()), Some(MAX_PAGES));
        for bad in ["0", "01", "-1", "+1", "", "1e3", "51", "999999999999999999999", " 1"] {
            assert_eq!(page_number(bad), None, "{bad}");
            assert_eq!(Query::parse(Some(&format!("q=x&page={bad}"))), None, "{bad}");
        }
    }
}
