//! Pages built with the bodies (feature `pages`): each product's page at
//! its `canonical_path`, compressed once per coding, and the site
//! documents (the list pages and the cards each route's pages list,
//! `robots.txt`, the sitemap, the not-found page and the icon), rendered
//! by `foundry-catalog-pages` from the same record as the body.
//!
//! A product page links to its related products, so it is made from the
//! catalog's cards ([`Linking`]), which a build gathers before it renders
//! any page. On a previous artifact, a build renders again only what
//! shows something new: a kept product whose related products changed,
//! and the list pages whose products, links or counts changed; the rest
//! is taken as the previous artifact holds it.

use super::CatalogError;
use super::previous::Previous;
use crate::artifact::DocumentEntry;
use crate::encoding::ContentCoding;
use foundry_catalog::product::ProductRecord;

/// One product's page, ready to be written.
pub(super) struct PreparedPage {
    /// `canonical_path`.
    pub(super) path: String,
    /// The sitemap's `lastmod`; empty when the page is `noindex`.
    pub(super) lastmod: String,
    /// The page in each coding of the build.
    pub(super) bodies: Vec<Vec<u8>>,
}

/// A site document to write.
#[cfg_attr(not(feature = "pages"), allow(dead_code))]
pub(super) enum Document<'a> {
    /// Made now: its name ([`crate::artifact::DocumentEntry::path`]) and
    /// its bytes in each coding of the build.
    New(String, Vec<Vec<u8>>),
    /// The previous artifact's, as it holds it (the same bytes).
    Kept(DocumentEntry, &'a Previous),
}

/// A site document kept as the previous artifact holds it.
#[cfg(feature = "pages")]
type Kept<'a> = (DocumentEntry, &'a Previous);

/// How many list pages a build rendered, and how many it took as the
/// previous artifact holds them.
#[derive(Debug, Clone, Copy, Default)]
pub(super) struct ListTally {
    pub(super) rendered: usize,
    pub(super) kept: usize,
}

#[cfg(feature = "pages")]
pub(super) use foundry_catalog_pages::list::{Card, Cards};

/// A product's card: none without the `pages` feature.
#[cfg(not(feature = "pages"))]
pub(super) enum Card {}

/// A catalog's cards: none without the `pages` feature.
#[cfg(not(feature = "pages"))]
pub(super) enum Cards {}

/// The cards a build's pages are made with: this build's, and the
/// previous artifact's (which its pages were made with).
#[cfg_attr(not(feature = "pages"), allow(dead_code))]
pub(super) struct Linking {
    pub(super) now: Cards,
    pub(super) before: Option<Cards>,
    /// Which of `now` differ from `before`, when a few were edited in
    /// place ([`Cards::in_place`]).
    #[cfg(feature = "pages")]
    in_place: Option<foundry_catalog_pages::list::InPlace>,
}

/// What renders a build's pages.
#[cfg(feature = "pages")]
#[derive(Debug)]
pub(super) struct PageMaker {
    pages: foundry_catalog_pages::Pages,
    /// The terms every card of the build shares.
    terms: foundry_catalog_pages::facets::TermTable,
}

/// What renders a build's pages: none without the `pages` feature.
#[cfg(not(feature = "pages"))]
#[derive(Debug)]
pub(super) enum PageMaker {}

/// The name the cards of the list page at `path` are kept under: not a
/// path, so never served.
#[cfg_attr(not(feature = "pages"), allow(dead_code))]
pub(crate) fn cards_document(path: &str) -> String {
    format!("{}{path}", crate::artifact::CARDS_DOCUMENT)
}

#[cfg(feature = "pages")]
impl PageMaker {
    pub(super) fn new(pages: foundry_catalog_pages::Pages) -> PageMaker {
        PageMaker { pages, terms: foundry_catalog_pages::facets::TermTable::new() }
    }

    /// [`crate::artifact::SitePages::digest`].
    pub(super) fn digest(&self) -> &str {
        self.pages.digest()
    }

    /// [`crate::artifact::SitePages::site`].
    pub(super) fn site(&self) -> String {
        let site = self.pages.site();
        if site.is_known() { site.url("") } else { String::new() }
    }

    /// The card of `record`, when its page is indexable.
    pub(super) fn card(&self, record: &ProductRecord) -> Option<Card> {
        Card::of(record).map(|card| self.terms.share(card))
    }

    /// The linking of a build whose products have `cards`, on a previous
    /// artifact whose pages were made with `before`.
    pub(super) fn linking(&self, cards: Vec<Card>, before: Option<Cards>) -> Linking {
        let now = Cards::new(cards);
        let in_place = before.as_ref().and_then(|before| now.in_place(before));
        Linking { now, before, in_place }
    }

    /// What to warn about `record`'s page ([`foundry_catalog_pages::warnings::of`]).
    pub(super) fn warnings(&self, record: &ProductRecord) -> Vec<String> {
        foundry_catalog_pages::warnings::of(record)
    }

    /// What to warn about products sharing a title or a summary, each
    /// named by its manifest ([`foundry_catalog_pages::warnings::duplicates`]).
    pub(super) fn duplicates(&self, cards: &[(&str, &Card)]) -> Vec<(usize, String)> {
        foundry_catalog_pages::warnings::duplicates(cards)
    }

    /// The card the previous artifact's pages were made with for the page
    /// at `path`.
    pub(super) fn kept_card(&self, before: Option<&Cards>, path: &str) -> Option<Card> {
        before?.get(path).cloned()
    }

    /// The cards the pages of `previous` were made with, read from the
    /// documents it keeps them in (a route's, page by page).
    pub(super) fn previous_cards(&self, previous: &Previous) -> Result<Cards, CatalogError> {
        let failed = |error: String| CatalogError::Page { file: "<the previous artifact>".to_owned(), error };
        let mut names = Vec::new();
        for route in foundry_catalog::product::Route::ALL {
            for number in 1.. {
                let name = cards_document(&route.list_path(number));
                if previous.catalog().document_entry(&name).is_none() {
                    break;
                }
                names.push(name);
            }
        }
        let read = crate::parallel::map(&names, |name| {
            let bytes = previous.catalog().document(name).transpose().map_err(|e| failed(format!("{name}: {e}")))?;
            let cards = Card::decode_all(&bytes.unwrap_or_default()).map_err(|e| failed(format!("{name}: {e}")))?;
            Ok(self.terms.share_all(cards))
        });
        let mut cards = Vec::new();
        for chunk in read {
            cards.extend(chunk?);
        }
        Ok(Cards::new(cards))
    }

    /// The page of `record` (from the manifest `file`) in every coding,
    /// linking to its related products among `cards`.
    pub(super) fn page(
        &self,
        file: &str,
        record: &ProductRecord,
        cards: &Cards,
        codings: &[ContentCoding],
    ) -> Result<PreparedPage, CatalogError> {
        let html = self
            .pages
            .product(record, cards)
            .map_err(|error| CatalogError::Page { file: file.to_owned(), error: error.to_string() })?;
        let lastmod = foundry_catalog_pages::sitemap::Entry::of(record).map(|entry| entry.lastmod).unwrap_or_default();
        Ok(PreparedPage { path: record.canonical_path(), lastmod, bodies: encode(codings, html.as_bytes()) })
    }

    /// Whether the page at `path`, made with the previous cards, shows
    /// the same related products with this build's.
    pub(super) fn same_related(&self, path: &str, linking: &Linking) -> bool {
        let Some(before) = &linking.before else { return false };
        foundry_catalog_pages::list::route_of(path).is_none_or(|route| match &linking.in_place {
            // The same products at the same places: the related products
            // are the same ones, showing what they did unless edited.
            Some(in_place) => !in_place.shows_other(linking.now.related(route, path)),
            None => self.pages.same_related(route, path, &linking.now, before),
        })
    }

    /// The search index of `linking`'s cards: edited from the previous
    /// artifact's ([`PageMaker::edited_index`]) when it can be, else made
    /// whole.
    fn search_index<'a>(&self, linking: &Linking, previous: Option<&'a Previous>) -> SearchIndex<'a> {
        let edited = previous
            .zip(linking.before.as_ref())
            .and_then(|(previous, before)| self.edited_index(&linking.now, before, previous));
        edited.unwrap_or_else(|| {
            let stored = foundry_catalog_pages::search::index(&linking.now, self.pages.page_size());
            SearchIndex { head: stored.head, parts: stored.parts.into_iter().map(SearchPart::New).collect() }
        })
    }

    /// The search index of `cards` edited from the one `previous` holds of
    /// `before`: each part no changed word is in kept as it is. None when
    /// it holds no such index, or not every part of it, or the index
    /// cannot be edited ([`foundry_catalog_pages::search::index_edited`]).
    fn edited_index<'a>(&self, cards: &Cards, before: &Cards, previous: &'a Previous) -> Option<SearchIndex<'a>> {
        use crate::artifact::{SEARCH_DOCUMENT, search_part_document};
        let head = previous.catalog().document(SEARCH_DOCUMENT)?.ok()?;
        let part = |k: usize| {
            let unreadable = foundry_catalog_search::IndexError::new("a part of the index cannot be read");
            previous.catalog().document(&search_part_document(k)).and_then(Result::ok).ok_or(unreadable)
        };
        let page_size = self.pages.page_size();
        let edited = foundry_catalog_pages::search::index_edited(cards, before, page_size, &head, part).ok()?;
        let mut made = edited.parts;
        let parts = foundry_catalog_pages::search::Search::open(&edited.head[..]).ok()?.parts();
        let parts = (0..parts)
            .map(|k| match made.remove(&k) {
                Some(bytes) => Some(SearchPart::New(bytes)),
                None => previous.document(&search_part_document(k)).map(|entry| SearchPart::Kept((entry, previous))),
            })
            .collect::<Option<Vec<_>>>()?;
        Some(SearchIndex { head: edited.head, parts })
    }

    /// The site documents of the cards `linking.now`, each in every
    /// coding, given to `write` in the order they are stored:
    /// `/robots.txt`, the sitemap files, the Atom feed and the picture
    /// shared links show (none when the site is unknown), the site's
    /// settings and search index, the list pages, each route page's
    /// cards, the not-found page and the site's icon (`/favicon.ico`). They are rendered and compressed
    /// on all cores a few at a time ([`crate::parallel::for_each_windowed`]),
    /// each window written before the next is made, so a build never
    /// holds more than a window of them. A list page that shows what it
    /// did with the previous cards, cards that are the previous ones, and
    /// the parts of the search index an edit did not change are kept as
    /// `previous` holds them.
    pub(super) fn documents<'a>(
        &self,
        linking: &Linking,
        previous: Option<&'a Previous>,
        codings: &[ContentCoding],
        mut write: impl FnMut(Document<'a>) -> Result<(), CatalogError>,
    ) -> Result<ListTally, CatalogError> {
        use foundry_catalog_pages::sitemap;
        let failed = |error: String| CatalogError::Page { file: "<templates>".to_owned(), error };
        let site = self.pages.site();
        // One index of every card (its head, then each part of its
        // words), made on all cores; then the list pages' plans. One after
        // the other: what each holds while it is made (at 1,000,000
        // products, about 270 and 280 MiB) would add up at a build's peak.
        let search = self.search_index(linking, previous);
        let plans = match (&linking.before, &linking.in_place) {
            (Some(before), Some(in_place)) => self.pages.list_plans_in_place(&linking.now, before, in_place),
            _ => self.pages.list_plans_since(&linking.now, linking.before.as_ref()),
        };
        let entries = linking
            .now
            .iter()
            .map(|card| (card.path.as_str(), card.lastmod.as_str()))
            .chain(plans.iter().map(|plan| (plan.path.as_str(), plan.lastmod.as_str())))
            .filter(|(_, lastmod)| !lastmod.is_empty());
        let sitemap = sitemap::Sitemap::new(site, entries);
        let kept = |name: &str| previous.and_then(|previous| Some((previous.document(name)?, previous)));
        let mut jobs: Vec<Job<'_, '_>> = vec![Job::Robots];
        jobs.extend((0..sitemap.len()).map(Job::Sitemap));
        if site.is_known() {
            jobs.extend([Job::Feed, Job::Image]);
        }
        // A server renders the search page on request: a template that
        // cannot render it fails the build, naming its file and line, not
        // a search.
        let query = foundry_catalog_pages::search::Query { text: "check".to_owned(), page: 1 };
        let sample: Vec<Card> = linking.now.iter().take(foundry_catalog_pages::search::RESULTS).cloned().collect();
        self.pages.search_page(&query, linking.now.len(), &sample).map_err(|error| failed(error.to_string()))?;
        jobs.extend([Job::Settings, Job::Search]);
        jobs.extend(search.parts.iter().enumerate().map(|(k, part)| match part {
            SearchPart::New(bytes) => Job::SearchPart(k, bytes),
            SearchPart::Kept(entry) => Job::Kept(entry.clone()),
        }));
        let mut tally = ListTally::default();
        for plan in &plans {
            if !plan.cards.is_empty() {
                jobs.push(match plan.same_cards.then(|| kept(&cards_document(&plan.path))).flatten() {
                    Some(entry) => Job::Kept(entry),
                    None => Job::Cards(plan),
                });
            }
            // A page the previous artifact does not hold, or holds in
            // bodies that fail their ETags, is rendered as a full build
            // renders it.
            jobs.push(match (!plan.changed).then(|| kept(&plan.path)).flatten() {
                Some(entry) => {
                    tally.kept += 1;
                    Job::Kept(entry)
                }
                None => {
                    tally.rendered += 1;
                    Job::List(plan)
                }
            });
        }
        jobs.extend([Job::NotFound, Job::Icon]);
        let make = |job: &Job<'_, 'a>| -> Result<Document<'a>, CatalogError> {
            let (name, bytes) = match job {
                Job::Robots => (sitemap::ROBOTS_PATH.to_owned(), sitemap::robots(site).into_bytes()),
                Job::Sitemap(n) => {
                    let file = sitemap.file(*n).ok_or_else(|| failed(format!("no sitemap file {n}")))?;
                    (file.path, file.xml.into_bytes())
                }
                Job::Feed => {
                    let feed = foundry_catalog_pages::feed::atom(site, &linking.now);
                    (crate::artifact::FEED_DOCUMENT.to_owned(), feed.unwrap_or_default().into_bytes())
                }
                Job::Image => (crate::artifact::IMAGE_DOCUMENT.to_owned(), foundry_catalog_pages::share_image::png()),
                Job::Settings => (crate::artifact::SETTINGS_DOCUMENT.to_owned(), self.pages.settings()),
                Job::Search => (crate::artifact::SEARCH_DOCUMENT.to_owned(), search.head.clone()),
                Job::SearchPart(k, bytes) => (crate::artifact::search_part_document(*k), bytes.to_vec()),
                Job::Cards(plan) => (cards_document(&plan.path), Card::encode_all(plan.cards)),
                Job::List(plan) => (
                    plan.path.clone(),
                    self.pages.render_list_plan(plan).map_err(|error| failed(error.to_string()))?.into_bytes(),
                ),
                Job::NotFound => (
                    crate::artifact::NOT_FOUND_DOCUMENT.to_owned(),
                    self.pages.not_found().map_err(|error| failed(error.to_string()))?.into_bytes(),
                ),
                Job::Icon => (crate::artifact::ICON_DOCUMENT.to_owned(), foundry_catalog_pages::favicon::ico()),
                Job::Kept((entry, from)) => return Ok(Document::Kept(entry.clone(), from)),
            };
            // A document made again as it was (a sitemap file, the search
            // index's parts no edited word is in) is not compressed again.
            if let Some(previous) = previous
                && let Some(entry) = previous.same_document(&name, &bytes)
            {
                return Ok(Document::Kept(entry, previous));
            }
            Ok(Document::New(name, encode(codings, &bytes)))
        };
        // A kept document takes no work: it is written in turn, and only
        // the runs of documents to make are handed to the cores, a window
        // at a time: four a core, but for sitemap files (50,000 URLs, 5 MB
        // of XML each, and their codings), one.
        let mut rest = jobs.as_slice();
        while let Some(first) = rest.first() {
            let window = first.window();
            let run = rest.iter().take_while(|job| job.window() == window).count();
            match window {
                None => {
                    for job in &rest[..run] {
                        write(make(job)?)?;
                    }
                }
                Some(per_core) => {
                    crate::parallel::for_each_windowed(&rest[..run], per_core, make, |document| write(document?))?
                }
            }
            rest = &rest[run..];
        }
        Ok(tally)
    }
}

/// A build's search index: its head, and each part, made now or kept as
/// the previous artifact holds it.
#[cfg(feature = "pages")]
struct SearchIndex<'a> {
    head: Vec<u8>,
    parts: Vec<SearchPart<'a>>,
}

/// A part of a build's search index.
#[cfg(feature = "pages")]
enum SearchPart<'a> {
    New(Vec<u8>),
    Kept(Kept<'a>),
}

/// One site document a build makes, in the order it is stored.
#[cfg(feature = "pages")]
enum Job<'p, 'a> {
    Robots,
    /// The sitemap's `n`th file.
    Sitemap(usize),
    /// The Atom feed of the newest products (when the site is known).
    Feed,
    /// The picture shared links show (when the site is known).
    Image,
    /// What the pages are rendered with, for the pages a server makes
    /// on request.
    Settings,
    /// The head of the site search's index of the cards.
    Search,
    /// Part `k` of the search index's words, made now.
    SearchPart(usize, &'p [u8]),
    /// The cards of a route's list page.
    Cards(&'p foundry_catalog_pages::ListPlan<'p>),
    /// A list page, rendered now.
    List(&'p foundry_catalog_pages::ListPlan<'p>),
    NotFound,
    Icon,
    /// A document the previous artifact holds as it is.
    Kept(Kept<'a>),
}

#[cfg(feature = "pages")]
impl Job<'_, '_> {
    /// How many of its kind a core makes at once: none for a document
    /// kept as it is (written in turn).
    fn window(&self) -> Option<usize> {
        match self {
            Job::Kept(_) => None,
            Job::Sitemap(_) => Some(1),
            _ => Some(4),
        }
    }
}

#[cfg(not(feature = "pages"))]
impl PageMaker {
    pub(super) fn digest(&self) -> &str {
        match *self {}
    }

    pub(super) fn site(&self) -> String {
        match *self {}
    }

    pub(super) fn card(&self, _: &ProductRecord) -> Option<Card> {
        match *self {}
    }

    pub(super) fn linking(&self, _: Vec<Card>, _: Option<Cards>) -> Linking {
        match *self {}
    }

    pub(super) fn warnings(&self, _: &ProductRecord) -> Vec<String> {
        match *self {}
    }

    pub(super) fn duplicates(&self, _: &[(&str, &Card)]) -> Vec<(usize, String)> {
        match *self {}
    }

    pub(super) fn kept_card(&self, _: Option<&Cards>, _: &str) -> Option<Card> {
        match *self {}
    }

    pub(super) fn previous_cards(&self, _: &Previous) -> Result<Cards, CatalogError> {
        match *self {}
    }

    pub(super) fn page(
        &self,
        _: &str,
        _: &ProductRecord,
        _: &Cards,
        _: &[ContentCoding],
    ) -> Result<PreparedPage, CatalogError> {
        match *self {}
    }

    pub(super) fn same_related(&self, _: &str, _: &Linking) -> bool {
        match *self {}
    }

    pub(super) fn documents<'a>(
        &self,
        _: &Linking,
        _: Option<&'a Previous>,
        _: &[ContentCoding],
        _: impl FnMut(Document<'a>) -> Result<(), CatalogError>,
    ) -> Result<ListTally, CatalogError> {
        match *self {}
    }
}

/// `bytes` in each coding (the codings were checked to be available when
/// they were chosen).
pub(super) fn encode(codings: &[ContentCoding], bytes: &[u8]) -> Vec<Vec<u8>> {
    codings.iter().map(|&coding| coding.encode(bytes).unwrap_or_default()).collect()
}

#[cfg(all(test, feature = "pages"))]
mod tests {
    /// The icon, the feed and the picture are stored under the paths the
    /// pages link to.
    #[test]
    fn the_icon_and_the_feed_are_stored_where_pages_link_to_them() {
        assert_eq!(crate::artifact::ICON_DOCUMENT, foundry_catalog_pages::favicon::PATH);
        assert_eq!(crate::artifact::FEED_DOCUMENT, foundry_catalog_pages::feed::PATH);
        assert_eq!(crate::artifact::IMAGE_DOCUMENT, foundry_catalog_pages::share_image::PATH);
    }
}
