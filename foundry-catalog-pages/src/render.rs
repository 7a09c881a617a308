//! Rendering: the template environment, the context a page template
//! sees, and errors that name the template's file and line.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use foundry_catalog::product::{ProductRecord, Route};
use minijinja::{AutoEscape, Environment, ErrorKind, Output, State, UndefinedBehavior, Value};
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::facets::{self, Facets, Taxonomy};
use crate::list::{self, Card, Cards};
use crate::templates::{DEFAULTS, read_dir};
use crate::{PageError, Site, json_ld};

/// The templates every environment must have (a folder may replace each).
const PRODUCT: &str = "product.html";
const NOT_FOUND: &str = "not_found.html";
const HOME: &str = "home.html";
const LIST: &str = "list.html";
const TERMS: &str = "terms.html";

/// Renders product pages and the not-found page from templates.
pub struct Pages {
    env: Environment<'static>,
    site: Site,
    /// Where each template replaced from a folder was read (for errors).
    files: BTreeMap<String, PathBuf>,
    /// [`Pages::digest`].
    digest: String,
    /// The digest of the site and templates alone (the page size's
    /// default).
    templates_digest: String,
    /// [`Pages::page_size`].
    page_size: usize,
    /// Every template's text, by name: what [`Pages::settings`] stores.
    sources: BTreeMap<String, String>,
}

impl std::fmt::Debug for Pages {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pages").field("site", &self.site).field("files", &self.files).finish_non_exhaustive()
    }
}

/// What a page template sees as `page`, besides the record as `product`.
#[derive(Serialize)]
struct PageContext<'a> {
    /// The canonical link: the absolute URL when the site is known.
    canonical_url: String,
    /// Whether the page is kept out of search engines and the sitemap
    /// ([`crate::sitemap::indexable`]).
    noindex: bool,
    /// `last_updated_at` for a reader: the day, as `1 March 2026` (the
    /// record's own date, in its own offset; never the build's clock).
    updated: String,
    /// `last_updated_at` as HTML's `<time datetime>` takes it
    /// ([`html_datetime`]).
    datetime: String,
    /// The schema.org JSON-LD, safe to place in a script element.
    json_ld: Value,
    /// `Dataset`, `Actor`, `Automation connector`.
    kind: &'static str,
    /// The marketplace listings, the primary one first.
    listings: Vec<&'a foundry_catalog::product::MarketplaceListing>,
    /// The schema preview's fields: the sample table's columns.
    columns: &'a [foundry_catalog::preview::FieldPreview],
    /// The sample rows, one cell per column.
    rows: Vec<Vec<Cell>>,
    /// Home, the route's list page, the product (no URL: the page itself).
    breadcrumbs: Vec<Crumb>,
    /// The related products ([`Cards::related`]).
    related: Vec<CardContext<'a>>,
    /// The route's name (`Datasets`), for the related products' heading.
    route_label: &'static str,
    /// `use_cases`, each with its facet page's URL (none on a `noindex`
    /// page: its product is on no facet page).
    use_cases: Vec<Crumb>,
    /// `target_audiences`, likewise.
    audiences: Vec<Crumb>,
    /// `output_formats`, likewise.
    formats: Vec<Crumb>,
    /// `marketplace_availability`'s entries, each with its marketplace's
    /// facet page.
    availability: Vec<AvailabilityRow<'a>>,
    /// The availability statuses of its entries ([`crate::facets::status_label`]),
    /// each once, with their facet pages.
    statuses: Vec<Crumb>,
}

/// One row of a product page's availability table.
#[derive(Serialize)]
struct AvailabilityRow<'a> {
    /// The marketplace, and its facet page.
    marketplace: Crumb,
    /// The entry's own display text of its status.
    status_label: &'a str,
    action_label: &'a str,
    /// Where the action leads, when the entry is clickable.
    url: Option<&'a str>,
}

/// One step of a page's breadcrumbs, or any named link.
#[derive(Serialize)]
pub(crate) struct Crumb {
    /// What it is called.
    pub(crate) name: String,
    /// Its absolute URL (a path without a site); none for the page itself.
    pub(crate) url: Option<String>,
}

/// One list page: rendered, or found to be the page the previous cards
/// made ([`Pages::list_pages_since`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ListPage<'a> {
    /// Its path (`/`, `/datasets`, `/datasets/page/2`, …).
    pub path: String,
    /// The HTML; `None` when the page is the one the previous cards made
    /// (everything it shows is the same).
    pub html: Option<String>,
    /// Its sitemap `lastmod`: the newest of its products'.
    pub lastmod: String,
    /// The products a route's page lists, in order (none for the home
    /// page, which shows the first of each route's).
    pub cards: &'a [Card],
    /// Whether `cards` are, `lastmod` and all, those the page listed with
    /// the previous cards (false without them).
    pub same_cards: bool,
}

/// One list page as [`Pages::list_plans_since`] plans it: what it shows,
/// not yet rendered ([`Pages::render_list_plan`]).
pub struct ListPlan<'a> {
    /// Its path (`/`, `/datasets`, `/datasets/page/2`, …).
    pub path: String,
    /// Its sitemap `lastmod`: the newest of its products'.
    pub lastmod: String,
    /// The products a route's page lists, in order (none for the home
    /// page).
    pub cards: &'a [Card],
    /// Whether `cards` are, `lastmod` and all, those the page listed with
    /// the previous cards (false without them).
    pub same_cards: bool,
    /// Whether the page shows anything other than it did with the
    /// previous cards (true without them): its HTML must be rendered, not
    /// taken from where the previous pages are kept.
    pub changed: bool,
    /// Everything its template sees but the site's constants.
    context: ListSpec<'a>,
}

impl std::fmt::Debug for ListPlan<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ListPlan")
            .field("path", &self.path)
            .field("lastmod", &self.lastmod)
            .field("cards", &self.cards.len())
            .field("same_cards", &self.same_cards)
            .field("changed", &self.changed)
            .finish_non_exhaustive()
    }
}

/// What a page template sees of a product it links to.
#[derive(Serialize, PartialEq)]
pub(crate) struct CardContext<'a> {
    url: String,
    title: &'a str,
    /// The summary, clipped to [`CARD_SUMMARY`] characters.
    summary: Cow<'a, str>,
}

/// The most characters of a summary a card shows (about three lines of a
/// list page): a longer one is cut at a word, with `…`. The product's
/// own page shows it whole.
pub const CARD_SUMMARY: usize = 200;

/// `text` if it has at most `max` characters; else its first words that
/// fit in `max - 1`, then `…` (a word longer than that is cut).
fn clip(text: &str, max: usize) -> Cow<'_, str> {
    let Some((cut, _)) = text.char_indices().nth(max) else { return Cow::Borrowed(text) };
    let head = &text[..text.char_indices().nth(max.saturating_sub(1)).map_or(cut, |(at, _)| at)];
    let head = match head.rfind(char::is_whitespace) {
        Some(at) if at > 0 => &head[..at],
        _ => head,
    };
    let head = head.trim_end_matches(|c: char| c.is_whitespace() || matches!(c, ',' | ';' | ':' | '.' | '-' | '—'));
    Cow::Owned(format!("{head}…"))
}

/// What `list.html` sees as `page`: a route's list page, or a term's.
#[derive(Serialize)]
struct ListContext<'a> {
    canonical_url: String,
    /// The route's name (`Datasets`), or the term's (`Webhook fan-out`).
    label: &'a str,
    /// The route (`datasets`); none on a term's page.
    route: Option<&'static str>,
    /// What the term is (`Use case`, [`crate::facets::singular`]); none
    /// on a route's page.
    taxonomy: Option<&'static str>,
    /// This page's number, from 1.
    number: usize,
    /// How many pages the route has.
    pages: usize,
    /// How many products it lists: on its first page only (none on the
    /// others), so that adding a product renders the pages it moves and
    /// the first, not every page of its route.
    total: Option<usize>,
    cards: Vec<CardContext<'a>>,
    previous_url: Option<String>,
    next_url: Option<String>,
    /// The numbered links ([`list::page_numbers`]).
    numbers: Vec<PageLink>,
    breadcrumbs: Vec<Crumb>,
}

/// One number of a list page's pagination.
#[derive(Serialize)]
pub(crate) struct PageLink {
    number: usize,
    /// Its URL; none for the page itself.
    url: Option<String>,
    /// Whether pages are left out between the number before and this one.
    gap: bool,
}

/// A list page before it is rendered: its path, `lastmod`, products,
/// and everything its template sees but the site's constants.
struct Planned<'a> {
    path: String,
    lastmod: String,
    cards: &'a [Card],
    context: ListSpec<'a>,
}

/// What a list page's template sees as `page`, but the site's constants.
#[derive(PartialEq)]
enum ListSpec<'a> {
    /// `home.html`'s.
    Home {
        canonical_url: String,
        routes: Vec<RouteSummary<'a>>,
    },
    /// A route's page, and a term's, each made into `list.html`'s
    /// context when it is rendered: a plan holds references to what the
    /// page shows, not its URLs and text (a catalog of a million products
    /// has a quarter of a million list pages).
    Route(RouteSpec<'a>),
    Term(TermSpec<'a>),
    /// A page of a taxonomy's terms, `terms.html`'s.
    Terms(TermsSpec<'a>),
}

/// What a card shows of a product (not its date or terms): what two
/// plans of a list page compare.
fn shown(card: &Card) -> (&str, &str, &str) {
    (&card.path, &card.title, &card.summary)
}

/// A catalog's cards against the previous ones when a few were edited
/// in place: each route has its cards at the same paths as before, each
/// with the same terms (so every list page lists the same products in
/// the same places), and at most [`InPlace::MOST`] cards differ.
struct InPlace {
    /// The cards that show something else ([`shown`]).
    shown: Picked,
    /// The cards that differ in anything, dates and terms included.
    differ: Picked,
}

/// Some of a catalog's cards, by address (sorted): an edit's few.
struct Picked(Vec<usize>);

impl Picked {
    /// Whether any of `cards` is one of these.
    fn any_of<'c>(&self, mut cards: impl Iterator<Item = &'c Card>) -> bool {
        !self.0.is_empty() && cards.any(|card| self.0.binary_search(&address(card)).is_ok())
    }
}

/// Where `card` is in memory: which of a catalog's cards it is.
fn address(card: &Card) -> usize {
    std::ptr::from_ref(card) as usize
}

impl InPlace {
    /// The most edited cards the comparison by address is made for.
    const MOST: usize = 64;

    /// `now` against `before`, when a few of them were edited in place.
    fn between(before: &Cards, now: &Cards) -> Option<InPlace> {
        let (mut shows, mut differ) = (Vec::new(), Vec::new());
        for ((route_before, before), (route_now, now)) in before.routes().zip(now.routes()) {
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
        Some(InPlace { shown: Picked(shows), differ: Picked(differ) })
    }
}

/// Page `number` of `pages` of a route's products.
struct RouteSpec<'a> {
    route: Route,
    number: usize,
    pages: usize,
    /// How many products the route has (counted on the first page only).
    total: Option<usize>,
    cards: &'a [Card],
}

impl PartialEq for RouteSpec<'_> {
    /// Whether the two show the same.
    fn eq(&self, other: &Self) -> bool {
        (self.route, self.number, self.pages, self.total) == (other.route, other.number, other.pages, other.total)
            && self.cards.iter().map(shown).eq(other.cards.iter().map(shown))
    }
}

/// Page `number` of `pages` of a term's products.
struct TermSpec<'a> {
    taxonomy: Taxonomy,
    slug: &'a str,
    label: &'a str,
    number: usize,
    pages: usize,
    /// How many products have the term (counted on the first page only,
    /// as a route's).
    total: Option<usize>,
    cards: Vec<&'a Card>,
}

impl PartialEq for TermSpec<'_> {
    /// Whether the two show the same.
    fn eq(&self, other: &Self) -> bool {
        (self.taxonomy, self.slug, self.label, self.number, self.pages, self.total)
            == (other.taxonomy, other.slug, other.label, other.number, other.pages, other.total)
            && self.cards.iter().copied().map(shown).eq(other.cards.iter().copied().map(shown))
    }
}

/// Page `number` of `pages` of a taxonomy's terms: each slug, label and
/// how many products have it.
#[derive(PartialEq)]
struct TermsSpec<'a> {
    taxonomy: Taxonomy,
    number: usize,
    pages: usize,
    total: usize,
    terms: Vec<(&'a str, &'a str, usize)>,
}

/// What `terms.html` sees as `page`.
#[derive(Serialize)]
struct TermsContext {
    canonical_url: String,
    /// The taxonomy's name (`Use cases`).
    label: &'static str,
    /// This page's number, from 1, and how many there are.
    number: usize,
    pages: usize,
    /// How many terms the taxonomy has.
    total: usize,
    /// This page's terms: `name`, `url`, and `count`, the products with it.
    terms: Vec<TermLink>,
    previous_url: Option<String>,
    next_url: Option<String>,
    numbers: Vec<PageLink>,
    breadcrumbs: Vec<Crumb>,
}

/// One term on its taxonomy's page.
#[derive(Serialize)]
struct TermLink {
    name: String,
    url: String,
    count: usize,
}

/// One route as the home page shows it.
#[derive(Serialize, PartialEq)]
struct RouteSummary<'a> {
    label: &'static str,
    url: String,
    total: usize,
    cards: Vec<CardContext<'a>>,
}

/// One cell of the sample table.
#[derive(Serialize)]
struct Cell {
    /// The value: a string as it is, anything else as compact JSON.
    text: String,
    /// Whether the row has no value for the column.
    missing: bool,
}

impl Pages {
    /// Pages from the default templates.
    pub fn new(site: Site) -> Pages {
        // The defaults parse: a test renders every example with them.
        Pages::with(site, Vec::new()).unwrap_or_else(|e| panic!("the default templates are broken: {e}"))
    }

    /// Pages from the templates in `dir`, each replacing the default of
    /// the same name (`base.html`, `product.html`, `not_found.html`,
    /// `style.css`); other `.html` and `.css` files may be included or
    /// extended. A file that is not a regular file, not UTF-8, over
    /// 1 MiB, or a template that does not parse is an error naming it.
    pub fn from_dir(site: Site, dir: &Path) -> Result<Pages, PageError> {
        Pages::with(site, read_dir(dir)?)
    }

    fn with(site: Site, replaced: Vec<crate::templates::TemplateFile>) -> Result<Pages, PageError> {
        let mut sources: BTreeMap<String, String> =
            DEFAULTS.iter().map(|(name, text)| ((*name).to_owned(), (*text).to_owned())).collect();
        let mut files = BTreeMap::new();
        for file in replaced {
            sources.insert(file.name.clone(), file.text);
            files.insert(file.name, file.path);
        }
        let mut env = Environment::new();
        env.set_undefined_behavior(UndefinedBehavior::Strict);
        env.set_trim_blocks(true);
        env.set_lstrip_blocks(true);
        env.set_formatter(escape_as_markup);
        // A template that loops for ever (or for 10^10 rounds) stops with
        // an error naming it, instead of holding a build or a reload.
        env.set_fuel(Some(FUEL));
        let mut hasher = Sha256::new();
        let mut part = |bytes: &[u8]| {
            hasher.update((bytes.len() as u64).to_le_bytes());
            hasher.update(bytes);
        };
        part(concat!("foundry-catalog-pages ", env!("CARGO_PKG_VERSION")).as_bytes());
        // How the cards are kept: pages built on an artifact keep its cards.
        part(crate::cards::MAGIC);
        part(site.url("").as_bytes());
        part(site.name().as_bytes());
        part(site.language().tag().as_bytes());
        for (name, text) in &sources {
            part(name.as_bytes());
            part(text.as_bytes());
        }
        let digest = hex::encode(hasher.finalize().as_slice());
        let mut pages = Pages {
            env: Environment::new(),
            site,
            files,
            templates_digest: digest.clone(),
            digest,
            page_size: list::PAGE_SIZE,
            sources: BTreeMap::new(),
        };
        for (name, text) in &sources {
            env.add_template_owned(name.clone(), text.clone()).map_err(|e| pages.error(&e, None))?;
        }
        pages.sources = sources;
        pages.env = env;
        Ok(pages)
    }

    /// These pages with `size` products a list page (at least one;
    /// [`list::PAGE_SIZE`] unless set), which the [`Pages::digest`] covers
    /// when it is not the default.
    #[must_use]
    pub fn with_page_size(mut self, size: usize) -> Pages {
        self.page_size = size.max(1);
        self.digest = self.templates_digest.clone();
        if self.page_size != list::PAGE_SIZE {
            let mut hasher = Sha256::new();
            hasher.update(self.digest.as_bytes());
            hasher.update(b" page size ");
            hasher.update((self.page_size as u64).to_le_bytes());
            self.digest = hex::encode(hasher.finalize().as_slice());
        }
        self
    }

    /// Everything these pages are rendered with, as one JSON document: the
    /// site's URL, name and language, the page size and every template's
    /// text. A build stores it, so that a server renders the pages it
    /// makes on request (search) as the build rendered the rest
    /// ([`Pages::from_settings`]).
    pub fn settings(&self) -> Vec<u8> {
        let site = &self.site;
        serde_json::to_vec(&serde_json::json!({
            "url": if site.is_known() { site.url("") } else { String::new() },
            "name": site.name(),
            "language": site.language().tag(),
            "page_size": self.page_size,
            "templates": &self.sources,
        }))
        .unwrap_or_default()
    }

    /// The pages [`Pages::settings`] wrote: the same digest, the same
    /// bytes for the same record (with this crate's version).
    pub fn from_settings(bytes: &[u8]) -> Result<Pages, PageError> {
        #[derive(serde::Deserialize)]
        struct Settings {
            url: String,
            name: String,
            language: String,
            page_size: usize,
            templates: BTreeMap<String, String>,
        }
        let file = PathBuf::from("<the artifact's site settings>");
        let broken = |reason: String| PageError::Read { file: file.clone(), reason };
        let settings: Settings = serde_json::from_slice(bytes).map_err(|e| broken(e.to_string()))?;
        let site = if settings.url.is_empty() { Ok(Site::unknown()) } else { Site::new(&settings.url) };
        let site = site.map_err(|e| broken(e.to_string()))?;
        let name = crate::SiteName::new(&settings.name).map_err(|e| broken(e.to_string()))?;
        let language = crate::Language::new(&settings.language).map_err(|e| broken(e.to_string()))?;
        let templates = settings
            .templates
            .into_iter()
            .map(|(name, text)| crate::templates::TemplateFile { path: file.join(&name), name, text })
            .collect();
        Ok(Pages::with(site.named(name).in_language(language), templates)?.with_page_size(settings.page_size))
    }

    /// How many products a list page shows at most.
    pub fn page_size(&self) -> usize {
        self.page_size
    }

    /// The site the pages link to.
    pub fn site(&self) -> &Site {
        &self.site
    }

    /// The SHA-256 (hex) of everything that renders a page besides the
    /// record: this crate's version, the site and every template. Two
    /// `Pages` with the same digest render the same record to the same
    /// bytes.
    pub fn digest(&self) -> &str {
        &self.digest
    }

    /// The page of `record`, at its `canonical_path`, linking to its
    /// related products among `cards` ([`Cards::related`]).
    pub fn product(&self, record: &ProductRecord, cards: &Cards) -> Result<String, PageError> {
        let columns = record.schema_preview.fields.as_slice();
        let rows = record
            .sample
            .rows
            .iter()
            .map(|row| {
                columns
                    .iter()
                    .map(|column| match row.get(&column.name) {
                        None => Cell { text: String::new(), missing: true },
                        Some(serde_json::Value::String(text)) => Cell { text: text.clone(), missing: false },
                        Some(value) => Cell { text: value.to_string(), missing: false },
                    })
                    .collect()
            })
            .collect();
        // A page search engines skip is on no term's page: it links none.
        let linked = crate::sitemap::indexable(record);
        let mut statuses = Vec::new();
        for entry in &record.marketplace_availability {
            if !statuses.contains(&entry.status) {
                statuses.push(entry.status);
            }
        }
        let page = PageContext {
            canonical_url: self.site.url(&record.canonical_path()),
            noindex: !linked,
            updated: human_date(record.last_updated_at.as_datetime().date()),
            datetime: html_datetime(record.last_updated_at.as_str()),
            json_ld: Value::from_safe_string(json_ld::script(record, &self.site)),
            kind: match record.route {
                Route::Datasets => "Dataset",
                Route::Actors => "Actor",
                Route::Automation => "Automation connector",
            },
            listings: json_ld::listings(record),
            columns,
            rows,
            breadcrumbs: vec![
                Crumb { name: "Home".to_owned(), url: Some(self.site.url(list::HOME_PATH)) },
                Crumb {
                    name: list::route_label(record.route).to_owned(),
                    url: Some(self.site.url(&list::route_path(record.route, 1))),
                },
                Crumb { name: record.title.clone(), url: None },
            ],
            related: self.related(cards, record.route, &record.canonical_path()),
            route_label: list::route_label(record.route),
            use_cases: self.term_links(linked, Taxonomy::UseCases, &record.use_cases),
            audiences: self.term_links(linked, Taxonomy::Audiences, &record.target_audiences),
            formats: self.term_links(linked, Taxonomy::Formats, &record.output_formats),
            availability: record
                .marketplace_availability
                .iter()
                .map(|entry| AvailabilityRow {
                    marketplace: self.term_link(
                        linked,
                        Taxonomy::Marketplaces,
                        &entry.key,
                        facets::marketplace_name(entry),
                    ),
                    status_label: &entry.status_label,
                    action_label: &entry.action_label,
                    url: entry.url.as_deref(),
                })
                .collect(),
            statuses: statuses
                .into_iter()
                .map(|status| {
                    self.term_link(linked, Taxonomy::Availability, status.as_str(), facets::status_label(status))
                })
                .collect(),
        };
        let context = minijinja::context! {
            product => Value::from_serialize(record),
            page => Value::from_serialize(&page),
            site => self.site_context(),
        };
        check_seo(record)?;
        self.render(PRODUCT, context, Some(record.slug.as_str()))
    }

    /// The most characters of a page's `seo.title`: what search engines show
    /// of a title is about 60 (600 pixels), and a longer one is cut.
    pub const MAX_SEO_TITLE: usize = 70;
    /// The most characters of a page's `seo.description`: search engines
    /// show up to about 160, at most 320.
    pub const MAX_SEO_DESCRIPTION: usize = 320;

    /// The page for a path no product has (served with 404).
    pub fn not_found(&self) -> Result<String, PageError> {
        self.render(NOT_FOUND, minijinja::context! { site => self.site_context() }, None)
    }

    /// Whether the page of the product at `path` in `route` shows the
    /// same related products with `cards` as with `before` (so needs no
    /// rendering again when nothing else of it changed).
    pub fn same_related(&self, route: Route, path: &str, cards: &Cards, before: &Cards) -> bool {
        // What a page shows of each ([`CardContext`]: its URL, which the
        // path makes, its title and its summary), compared without making
        // the URLs: a build asks this of every product it keeps.
        fn shown(card: &Card) -> (&str, &str, &str) {
            (&card.path, &card.title, &card.summary)
        }
        cards.related(route, path).into_iter().map(shown).eq(before.related(route, path).into_iter().map(shown))
    }

    /// `values` of `taxonomy`, each a [`Pages::term_link`].
    fn term_links(&self, linked: bool, taxonomy: Taxonomy, values: &[String]) -> Vec<Crumb> {
        values.iter().map(|value| self.term_link(linked, taxonomy, value, value)).collect()
    }

    /// `label`, linking to the page of the term `value` of `taxonomy`
    /// when `linked` (the product's page is indexable: else its product
    /// is on no term's page) and the value names a term
    /// ([`facets::is_term`]).
    fn term_link(&self, linked: bool, taxonomy: Taxonomy, value: &str, label: &str) -> Crumb {
        let url = (linked && facets::is_term(value))
            .then(|| self.site.url(&taxonomy.term_path(&facets::term_slug(value), 1)));
        Crumb { name: label.to_owned(), url }
    }

    fn related<'a>(&self, cards: &'a Cards, route: Route, path: &str) -> Vec<CardContext<'a>> {
        cards.related(route, path).into_iter().map(|card| self.card(card)).collect()
    }

    pub(crate) fn card<'a>(&self, card: &'a Card) -> CardContext<'a> {
        CardContext { url: self.site.url(&card.path), title: &card.title, summary: clip(&card.summary, CARD_SUMMARY) }
    }

    /// The list pages of the products of `cards` ([`list`]), each
    /// rendered: the home page, then each route's pages in order. A route
    /// without products still has its (empty) first page, so the site's
    /// links all answer.
    pub fn list_pages<'a>(&self, cards: &'a Cards) -> Result<Vec<ListPage<'a>>, PageError> {
        self.list_pages_since(cards, None)
    }

    /// [`Pages::list_pages`], rendering only the pages that show something
    /// other than they did with the cards `previous` (all of them without):
    /// a page whose products, links and counts are the same is given
    /// without its HTML, to be taken from where the previous cards' pages
    /// are kept. The pages are the same templates' (the caller checks the
    /// [`Pages::digest`]). Every page is rendered before this returns;
    /// [`Pages::list_plans_since`] renders none.
    pub fn list_pages_since<'a>(
        &self,
        cards: &'a Cards,
        previous: Option<&Cards>,
    ) -> Result<Vec<ListPage<'a>>, PageError> {
        self.list_plans_since(cards, previous)
            .into_iter()
            .map(|plan| {
                let html = if plan.changed { Some(self.render_list_plan(&plan)?) } else { None };
                Ok(ListPage {
                    path: plan.path,
                    html,
                    lastmod: plan.lastmod,
                    cards: plan.cards,
                    same_cards: plan.same_cards,
                })
            })
            .collect()
    }

    /// The list pages of [`Pages::list_pages_since`], in its order, each
    /// planned (what it shows, and whether that changed since the cards
    /// `previous`) but not rendered: a caller renders each with
    /// [`Pages::render_list_plan`] when it is ready to write it, so the
    /// HTML of a catalog's list pages is never all in memory at once.
    pub fn list_plans_since<'a>(&self, cards: &'a Cards, previous: Option<&Cards>) -> Vec<ListPlan<'a>> {
        if let Some(previous) = previous
            && let Some(edited) = InPlace::between(previous, cards)
        {
            return self.list_plans_in_place(cards, previous, &edited);
        }
        // The previous cards' pages and these are planned at once, on two cores.
        let (before, now) = crate::parallel::join(
            || {
                let specs = previous.map(|previous| self.list_specs(previous, false)).unwrap_or_default();
                specs.into_iter().map(|spec| (spec.path.clone(), spec)).collect::<BTreeMap<String, Planned<'_>>>()
            },
            || self.list_specs(cards, true),
        );
        now.into_iter()
            .map(|spec| {
                let was = before.get(&spec.path);
                ListPlan {
                    changed: was.is_none_or(|was| was.context != spec.context),
                    same_cards: was.is_some_and(|was| was.cards == spec.cards),
                    path: spec.path,
                    lastmod: spec.lastmod,
                    cards: spec.cards,
                    context: spec.context,
                }
            })
            .collect()
    }

    /// [`Pages::list_plans_since`] where a few of the previous cards were
    /// edited in place ([`InPlace`]): every page lists the products it
    /// listed, in the same places, so a page shows something else only
    /// when a card it shows does (the home page, which shows the newest,
    /// is compared whole), and the previous cards' pages need not be
    /// planned again to be compared.
    fn list_plans_in_place<'a>(&self, cards: &'a Cards, previous: &Cards, edited: &InPlace) -> Vec<ListPlan<'a>> {
        let home = self.home_spec(previous, false);
        self.list_specs(cards, true)
            .into_iter()
            .map(|spec| {
                let changed = match &spec.context {
                    ListSpec::Home { .. } => spec.context != home.context,
                    ListSpec::Route(route) => edited.shown.any_of(route.cards.iter()),
                    ListSpec::Term(term) => edited.shown.any_of(term.cards.iter().copied()),
                    ListSpec::Terms(_) => false,
                };
                ListPlan {
                    changed,
                    same_cards: !edited.differ.any_of(spec.cards.iter()),
                    path: spec.path,
                    lastmod: spec.lastmod,
                    cards: spec.cards,
                    context: spec.context,
                }
            })
            .collect()
    }

    /// The HTML of the list page `plan` (whether or not it changed).
    pub fn render_list_plan(&self, plan: &ListPlan<'_>) -> Result<String, PageError> {
        self.render_list(&plan.context)
    }

    /// What each list page of `cards` shows; with each page's `lastmod`
    /// when `lastmods` (else empty: the previous cards' pages are only
    /// compared, and a catalog's facets list each product ten times).
    fn list_specs<'a>(&self, cards: &'a Cards, lastmods: bool) -> Vec<Planned<'a>> {
        // The facets' pages (most of them) on a core of their own.
        let (facets, mut out) =
            crate::parallel::join(|| self.facet_specs(cards, lastmods), || self.route_specs(cards, lastmods));
        out.extend(facets);
        out
    }

    /// The home page's and the routes' pages of [`Pages::list_specs`].
    fn route_specs<'a>(&self, cards: &'a Cards, lastmods: bool) -> Vec<Planned<'a>> {
        let newest =
            |cards: &mut dyn Iterator<Item = &Card>| if lastmods { list::newest(cards) } else { String::new() };
        let mut out = vec![self.home_spec(cards, lastmods)];
        for (route, cards) in cards.routes() {
            let pages = cards.len().div_ceil(self.page_size).max(1);
            for number in 1..=pages {
                let chunk = cards.chunks(self.page_size).nth(number - 1).unwrap_or_default();
                let total = (number == 1).then_some(cards.len());
                out.push(Planned {
                    lastmod: newest(&mut chunk.iter()),
                    cards: chunk,
                    path: list::route_path(route, number),
                    context: ListSpec::Route(RouteSpec { route, number, pages, total, cards: chunk }),
                });
            }
        }
        out
    }

    /// The home page's plan of [`Pages::list_specs`].
    fn home_spec<'a>(&self, cards: &'a Cards, lastmods: bool) -> Planned<'a> {
        let summaries: Vec<RouteSummary<'_>> = cards
            .routes()
            .map(|(route, cards)| RouteSummary {
                label: list::route_label(route),
                url: self.site.url(&list::route_path(route, 1)),
                total: cards.len(),
                cards: list::newest_first(cards, list::HOME_SIZE).into_iter().map(|c| self.card(c)).collect(),
            })
            .collect();
        Planned {
            path: list::HOME_PATH.to_owned(),
            lastmod: if lastmods { list::newest(cards.iter()) } else { String::new() },
            cards: &[],
            context: ListSpec::Home { canonical_url: self.site.url(list::HOME_PATH), routes: summaries },
        }
    }

    /// The facets' pages of [`Pages::list_specs`]: each taxonomy's pages
    /// of terms, then its terms' pages.
    fn facet_specs<'a>(&self, cards: &'a Cards, lastmods: bool) -> Vec<Planned<'a>> {
        let newest =
            |cards: &mut dyn Iterator<Item = &Card>| if lastmods { list::newest(cards) } else { String::new() };
        let mut out = Vec::new();
        let facets = Facets::new(cards);
        for (taxonomy, terms) in facets.taxonomies() {
            // Each term's pages, then the newest of each term (from its
            // pages'), for the taxonomy's pages, which come first.
            let mut term_pages = Vec::new();
            let mut term_newest = Vec::with_capacity(terms.len());
            for term in terms {
                let pages = term.cards.len().div_ceil(self.page_size).max(1);
                let first = term_pages.len();
                for (at, chunk) in term.cards.chunks(self.page_size).enumerate() {
                    term_pages.push(Planned {
                        path: taxonomy.term_path(term.slug, at + 1),
                        lastmod: newest(&mut chunk.iter().copied()),
                        cards: &[],
                        context: ListSpec::Term(TermSpec {
                            taxonomy,
                            slug: term.slug,
                            label: term.label,
                            number: at + 1,
                            pages,
                            total: (at == 0).then_some(term.cards.len()),
                            cards: chunk.to_vec(),
                        }),
                    });
                }
                term_newest.push(crate::sitemap::newest_of(term_pages[first..].iter().map(|p| p.lastmod.as_str())));
            }
            let pages = terms.len().div_ceil(self.page_size).max(1);
            for number in 1..=pages {
                let range = (number - 1) * self.page_size..(number * self.page_size).min(terms.len());
                out.push(Planned {
                    path: taxonomy.index_path(number),
                    lastmod: crate::sitemap::newest_of(term_newest[range.clone()].iter().map(String::as_str)),
                    cards: &[],
                    context: ListSpec::Terms(TermsSpec {
                        taxonomy,
                        number,
                        pages,
                        total: terms.len(),
                        terms: terms[range].iter().map(|term| (term.slug, term.label, term.cards.len())).collect(),
                    }),
                });
            }
            out.append(&mut term_pages);
        }
        out
    }

    /// The breadcrumbs of page `number` of the list `label` whose first
    /// page is at `first`, under the home page and `parents`.
    pub(crate) fn trail(&self, parents: Vec<Crumb>, label: &str, first: &str, number: usize) -> Vec<Crumb> {
        let mut crumbs = vec![Crumb { name: "Home".to_owned(), url: Some(self.site.url(list::HOME_PATH)) }];
        crumbs.extend(parents);
        if number > 1 {
            crumbs.push(Crumb { name: label.to_owned(), url: Some(self.site.url(first)) });
            crumbs.push(Crumb { name: format!("Page {number}"), url: None });
        } else {
            crumbs.push(Crumb { name: label.to_owned(), url: None });
        }
        crumbs
    }

    /// The numbered links of page `number` of `pages`, page `n` being at
    /// `path(n)`.
    pub(crate) fn page_links(&self, number: usize, pages: usize, path: impl Fn(usize) -> String) -> Vec<PageLink> {
        let mut last = 0;
        list::page_numbers(number, pages)
            .into_iter()
            .map(|n| {
                let gap = n > last + 1;
                last = n;
                PageLink { number: n, url: (n != number).then(|| self.site.url(&path(n))), gap }
            })
            .collect()
    }

    /// What `list.html` sees of a route's page.
    fn route_context<'a>(&self, spec: &RouteSpec<'a>) -> ListContext<'a> {
        let RouteSpec { route, number, pages, total, cards } = *spec;
        let label = list::route_label(route);
        ListContext {
            canonical_url: self.site.url(&list::route_path(route, number)),
            label,
            route: Some(route.as_str()),
            taxonomy: None,
            number,
            pages,
            total,
            cards: cards.iter().map(|c| self.card(c)).collect(),
            previous_url: (number > 1).then(|| self.site.url(&list::route_path(route, number - 1))),
            next_url: (number < pages).then(|| self.site.url(&list::route_path(route, number + 1))),
            numbers: self.page_links(number, pages, |n| route.list_path(n)),
            breadcrumbs: self.trail(Vec::new(), label, &list::route_path(route, 1), number),
        }
    }

    /// What `list.html` sees of a term's page.
    fn term_context<'a>(&self, spec: &TermSpec<'a>) -> ListContext<'a> {
        let TermSpec { taxonomy, slug, label, number, pages, total, .. } = *spec;
        let index =
            Crumb { name: facets::label(taxonomy).to_owned(), url: Some(self.site.url(&taxonomy.index_path(1))) };
        ListContext {
            canonical_url: self.site.url(&taxonomy.term_path(slug, number)),
            label,
            route: None,
            taxonomy: Some(facets::singular(taxonomy)),
            number,
            pages,
            total,
            cards: spec.cards.iter().map(|c| self.card(c)).collect(),
            previous_url: (number > 1).then(|| self.site.url(&taxonomy.term_path(slug, number - 1))),
            next_url: (number < pages).then(|| self.site.url(&taxonomy.term_path(slug, number + 1))),
            numbers: self.page_links(number, pages, |n| taxonomy.term_path(slug, n)),
            breadcrumbs: self.trail(vec![index], label, &taxonomy.term_path(slug, 1), number),
        }
    }

    /// What `terms.html` sees of a taxonomy's page.
    fn terms_context(&self, spec: &TermsSpec<'_>) -> TermsContext {
        let TermsSpec { taxonomy, number, pages, total, .. } = *spec;
        let label = facets::label(taxonomy);
        TermsContext {
            canonical_url: self.site.url(&taxonomy.index_path(number)),
            label,
            number,
            pages,
            total,
            terms: spec
                .terms
                .iter()
                .map(|&(slug, name, count)| TermLink {
                    name: name.to_owned(),
                    url: self.site.url(&taxonomy.term_path(slug, 1)),
                    count,
                })
                .collect(),
            previous_url: (number > 1).then(|| self.site.url(&taxonomy.index_path(number - 1))),
            next_url: (number < pages).then(|| self.site.url(&taxonomy.index_path(number + 1))),
            numbers: self.page_links(number, pages, |n| taxonomy.index_path(n)),
            breadcrumbs: self.trail(Vec::new(), label, &taxonomy.index_path(1), number),
        }
    }

    fn render_list(&self, spec: &ListSpec<'_>) -> Result<String, PageError> {
        match spec {
            ListSpec::Home { canonical_url, routes } => {
                let home = minijinja::context! {
                    site => self.site_context(),
                    page => minijinja::context! {
                        canonical_url => canonical_url,
                        routes => Value::from_serialize(routes),
                        json_ld => Value::from_safe_string(json_ld::website_script(&self.site)),
                    },
                };
                self.render(HOME, home, None)
            }
            ListSpec::Route(spec) => self.render_page(LIST, &self.route_context(spec)),
            ListSpec::Term(spec) => self.render_page(LIST, &self.term_context(spec)),
            ListSpec::Terms(spec) => self.render_page(TERMS, &self.terms_context(spec)),
        }
    }

    /// The template `name` with `page` and the site.
    pub(crate) fn render_page(&self, name: &str, page: &impl Serialize) -> Result<String, PageError> {
        self.render(
            name,
            minijinja::context! { site => self.site_context(), page => Value::from_serialize(page) },
            None,
        )
    }

    fn site_context(&self) -> Value {
        let routes: Vec<Crumb> = Route::ALL
            .iter()
            .map(|&route| Crumb {
                name: list::route_label(route).to_owned(),
                url: Some(self.site.url(&list::route_path(route, 1))),
            })
            .collect();
        let taxonomies: Vec<Crumb> = Taxonomy::ALL
            .iter()
            .map(|&taxonomy| Crumb {
                name: facets::label(taxonomy).to_owned(),
                url: Some(self.site.url(&taxonomy.index_path(1))),
            })
            .collect();
        let language = self.site.language();
        minijinja::context! {
            name => self.site.name(),
            language => language.tag(),
            direction => language.direction(),
            locale => language.og_locale(),
            url => self.site.is_known().then(|| self.site.url("")),
            home => self.site.url(list::HOME_PATH),
            favicon => self.site.url(crate::favicon::PATH),
            feed => self.site.is_known().then(|| self.site.url(crate::feed::PATH)),
            image => self.site.is_known().then(|| self.site.url(crate::share_image::PATH)),
            routes => Value::from_serialize(&routes),
            taxonomies => Value::from_serialize(&taxonomies),
            search => self.site.url(foundry_catalog::product::SEARCH_PATH),
        }
    }

    fn render(&self, name: &str, context: Value, slug: Option<&str>) -> Result<String, PageError> {
        let template = self.env.get_template(name).map_err(|e| self.error(&e, slug))?;
        template.render(context).map_err(|e| self.error(&e, slug))
    }

    /// A template error, naming the file and line where the engine says.
    fn error(&self, e: &minijinja::Error, slug: Option<&str>) -> PageError {
        let name = e.name().unwrap_or_default();
        let file = self.files.get(name).map_or_else(|| name.to_owned(), |path| path.display().to_string());
        let message = match e.detail() {
            Some(detail) => format!("{}: {detail}", e.kind()),
            None => e.kind().to_string(),
        };
        let hint = match e.kind() {
            ErrorKind::SyntaxError => {
                "check that every {% … %} tag is closed (endif, endfor, endblock) and every {{ … }} is whole"
            }
            ErrorKind::UndefinedError => {
                "a page template sees `product` (the record, as its JSON body's data), `page` and `site`; see docs/pages.md"
            }
            ErrorKind::TemplateNotFound => {
                "a template can extend or include any default template (base.html, product.html, home.html, list.html, terms.html, search.html, breadcrumbs.html, cards.html, pagination.html, list_head.html, term.html, not_found.html, style.css) or another file of the templates folder"
            }
            ErrorKind::OutOfFuel => {
                "a page may take at most 10,000,000 template instructions (the default page takes a few thousand): look for a loop over a range, or loops nested in loops"
            }
            ErrorKind::UnknownFilter | ErrorKind::UnknownFunction | ErrorKind::UnknownTest => {
                "minijinja's built-in filters, tests and functions are available (docs.rs/minijinja)"
            }
            _ => "see docs/pages.md",
        };
        PageError::Template { file, line: e.line().unwrap_or(0), message, hint, slug: slug.map(str::to_owned) }
    }
}

/// The most template instructions one page may take: the default
/// templates take a few thousand for a product with a full sample; a
/// loop over 10,000,000 items, or two nested loops over 100,000, stops at
/// it (within about a second) with an error naming the template.
pub const FUEL: u64 = 10_000_000;

/// Autoescaping as Jinja2 (MarkupSafe) does it ([`crate::markup::escape`]):
/// minijinja's default also writes `/` as `&#x2f;`, which makes every URL
/// in an `href` unreadable in the page source. Everything but a string in
/// an HTML template is as minijinja writes it.
fn escape_as_markup(out: &mut Output, state: &State, value: &Value) -> Result<(), minijinja::Error> {
    match value.as_str() {
        Some(text) if matches!(state.auto_escape(), AutoEscape::Html) && !value.is_safe() => {
            out.write_str(&crate::markup::escape(text)).map_err(|_| minijinja::Error::from(ErrorKind::WriteFailure))
        }
        _ => minijinja::escape_formatter(out, state, value),
    }
}

/// Checks that `record`'s `seo.title` and `seo.description` can make a
/// page's head: text that is not only spaces, within
/// [`Pages::MAX_SEO_TITLE`] and [`Pages::MAX_SEO_DESCRIPTION`] characters.
fn check_seo(record: &ProductRecord) -> Result<(), PageError> {
    let fields = [
        ("seo.title", &record.seo.title, Pages::MAX_SEO_TITLE, "the page's <title> and its search result's heading"),
        ("seo.description", &record.seo.description, Pages::MAX_SEO_DESCRIPTION, "the search result's snippet"),
    ];
    for (field, text, max, what) in fields {
        let problem = |message: String, hint: &'static str| PageError::Seo {
            slug: record.slug.as_str().to_owned(),
            field,
            message,
            hint,
        };
        let len = text.chars().count();
        if text.trim().is_empty() {
            return Err(problem(format!("is empty: it is {what}"), "write it in the product manifest's `seo`"));
        }
        if len > max {
            return Err(problem(
                format!("is {len} characters, over {max}: search engines cut it"),
                "shorten it in the product manifest's `seo`",
            ));
        }
    }
    Ok(())
}

/// An RFC 3339 timestamp as HTML's "valid global date and time string":
/// `T` and `Z` in capitals and at most three digits of a second's
/// fraction (RFC 3339 allows any number; HTML does not), the rest as it
/// is.
fn html_datetime(timestamp: &str) -> String {
    let upper = timestamp.to_ascii_uppercase();
    let Some(dot) = upper.find('.') else { return upper };
    let digits = upper[dot + 1..].bytes().take_while(u8::is_ascii_digit).count();
    if digits <= 3 {
        return upper;
    }
    format!("{}{}", &upper[..dot + 4], &upper[dot + 1 + digits..])
}

/// A date as a reader writes it: `1 March 2026`.
fn human_date(date: foundry_catalog_core::time::Date) -> String {
    format!("{} {} {}", date.day(), date.month(), date.year())
}

#[cfg(test)]
mod tests {
    use super::{clip, html_datetime};

    #[test]
    fn timestamps_become_html_datetimes() {
        for (given, html) in [
            ("2026-03-01T10:00:00Z", "2026-03-01T10:00:00Z"),
            ("2026-03-01t10:00:00z", "2026-03-01T10:00:00Z"),
            ("2026-03-01T10:00:00.5+02:00", "2026-03-01T10:00:00.5+02:00"),
            ("2026-03-01T10:00:00.123Z", "2026-03-01T10:00:00.123Z"),
            ("2026-03-01T10:00:00.123456Z", "2026-03-01T10:00:00.123Z"),
            ("2026-03-01T10:00:00.123456789-05:30", "2026-03-01T10:00:00.123-05:30"),
        ] {
            assert_eq!(html_datetime(given), html, "{given}");
        }
    }

    #[test]
    fn card_summaries_are_clipped_at_a_word() {
        assert_eq!(clip("short enough", 20), "short enough");
        assert_eq!(clip(&"x".repeat(20), 20), "x".repeat(20));
        assert_eq!(clip("one two three four", 12), "one two…");
        assert_eq!(clip("one two, three four", 13), "one two…");
        assert_eq!(clip(&"y".repeat(30), 10), format!("{}…", "y".repeat(9)));
        let arabic = "ملخص طويل جدا ".repeat(40);
        let clipped = clip(&arabic, 200);
        assert!(clipped.chars().count() <= 200 && clipped.ends_with('…'), "{clipped}");
    }
}
