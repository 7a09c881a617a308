//! Rendering: the template environment, the context a page template
//! sees, and errors that name the template's file and line.

use std::borrow::Cow;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use foundry_catalog::product::{ProductRecord, Route};
use minijinja::{AutoEscape, Environment, ErrorKind, Output, State, UndefinedBehavior, Value};
use serde::Serialize;
use sha2::{Digest, Sha256};

use crate::facets::{self, Taxonomy};
use crate::list::{self, Card, Cards};
use crate::templates::{DEFAULTS, read_dir};
use crate::{PageError, Site, json_ld};

/// The templates every environment must have (a folder may replace each).
const PRODUCT: &str = "product.html";
const NOT_FOUND: &str = "not_found.html";

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

/// One number of a list page's pagination.
#[derive(Serialize)]
pub(crate) struct PageLink {
    number: usize,
    /// Its URL; none for the page itself.
    url: Option<String>,
    /// Whether pages are left out between the number before and this one.
    gap: bool,
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
        use list::shown;
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

    /// The template `name` with `page` and the site.
    pub(crate) fn render_page(&self, name: &str, page: &impl Serialize) -> Result<String, PageError> {
        self.render(
            name,
            minijinja::context! { site => self.site_context(), page => Value::from_serialize(page) },
            None,
        )
    }

    pub(crate) fn site_context(&self) -> Value {
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

    pub(crate) fn render(&self, name: &str, context: Value, slug: Option<&str>) -> Result<String, PageError> {
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
