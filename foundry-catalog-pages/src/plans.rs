//! A site's list pages (the home page, each route's pages, each
//! taxonomy's pages of terms and each term's pages): planned (what each
//! shows, and whether that changed since the previous cards) before any
//! is rendered, then made into what their templates see
//! ([`Pages::render_list_plan`]).

use std::collections::BTreeMap;

use foundry_catalog::product::Route;
use minijinja::Value;
use serde::Serialize;

use crate::facets::{self, Facets, Taxonomy};
use crate::list::{self, Card, Cards, InPlace, shown};
use crate::render::{CardContext, Crumb, PageLink};
use crate::{PageError, Pages, json_ld};

const HOME: &str = "home.html";
const LIST: &str = "list.html";
const TERMS: &str = "terms.html";

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
pub(crate) enum ListSpec<'a> {
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

/// Page `number` of `pages` of a route's products.
pub(crate) struct RouteSpec<'a> {
    pub(crate) route: Route,
    pub(crate) number: usize,
    pub(crate) pages: usize,
    /// How many products the route has (counted on the first page only).
    pub(crate) total: Option<usize>,
    pub(crate) cards: &'a [Card],
}

impl PartialEq for RouteSpec<'_> {
    /// Whether the two show the same.
    fn eq(&self, other: &Self) -> bool {
        (self.route, self.number, self.pages, self.total) == (other.route, other.number, other.pages, other.total)
            && self.cards.iter().map(shown).eq(other.cards.iter().map(shown))
    }
}

/// Page `number` of `pages` of a term's products.
pub(crate) struct TermSpec<'a> {
    pub(crate) taxonomy: Taxonomy,
    pub(crate) slug: &'a str,
    pub(crate) label: &'a str,
    pub(crate) number: usize,
    pub(crate) pages: usize,
    /// How many products have the term (counted on the first page only,
    /// as a route's).
    pub(crate) total: Option<usize>,
    pub(crate) cards: Vec<&'a Card>,
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
pub(crate) struct TermsSpec<'a> {
    pub(crate) taxonomy: Taxonomy,
    pub(crate) number: usize,
    pub(crate) pages: usize,
    pub(crate) total: usize,
    pub(crate) terms: Vec<(&'a str, &'a str, usize)>,
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
pub(crate) struct RouteSummary<'a> {
    pub(crate) label: &'static str,
    pub(crate) url: String,
    pub(crate) total: usize,
    pub(crate) cards: Vec<CardContext<'a>>,
}

impl Pages {
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
            && let Some(edited) = cards.in_place(previous)
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

    /// [`Pages::list_plans_since`] where a few of the `previous` cards
    /// were edited in place, as `edited` says of `cards`
    /// ([`Cards::in_place`]): every page lists the products it listed, in
    /// the same places, so a page shows something else only when a card
    /// it shows does (the home page, which shows the newest, is compared
    /// whole), and the previous cards' pages need not be planned again to
    /// be compared.
    /// An `edited` not of `cards` ([`InPlace::is_of`]) says nothing of
    /// them: the pages are then compared as [`Pages::list_plans_since`]
    /// compares them.
    pub fn list_plans_in_place<'a>(&self, cards: &'a Cards, previous: &Cards, edited: &InPlace) -> Vec<ListPlan<'a>> {
        if !edited.is_of(cards) {
            return self.list_plans_since(cards, Some(previous));
        }
        // The previous home page beside this build's pages.
        let (home, specs) = crate::parallel::join(|| self.home_spec(previous, false), || self.list_specs(cards, true));
        specs
            .into_iter()
            .map(|spec| {
                let changed = match &spec.context {
                    ListSpec::Home { .. } => spec.context != home.context,
                    ListSpec::Route(route) => edited.shows_other(route.cards.iter()),
                    ListSpec::Term(term) => edited.shows_other(term.cards.iter().copied()),
                    ListSpec::Terms(_) => false,
                };
                ListPlan {
                    changed,
                    same_cards: !edited.differs(spec.cards.iter()),
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
        // Two cores: one finds the facets' terms while the other plans the
        // home page and the routes' pages; then each takes a taxonomy's
        // pages (most of the pages) in turn, until none is left.
        let facets = std::sync::OnceLock::new();
        let next = std::sync::atomic::AtomicUsize::new(0);
        let taxonomies = || {
            let facets: &Facets<'a> = facets.get_or_init(|| Facets::new(cards));
            let mut planned = Vec::new();
            loop {
                let at = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                let Some((taxonomy, terms)) = facets.taxonomies().nth(at) else { break planned };
                planned.push((at, self.taxonomy_specs(taxonomy, terms, lastmods)));
            }
        };
        let (theirs, (mut out, mine)) =
            crate::parallel::join(taxonomies, || (self.route_specs(cards, lastmods), taxonomies()));
        let mut planned: Vec<(usize, Vec<Planned<'a>>)> = theirs.into_iter().chain(mine).collect();
        planned.sort_unstable_by_key(|(at, _)| *at);
        out.extend(planned.into_iter().flat_map(|(_, specs)| specs));
        out
    }

    /// The home page's and the routes' pages of [`Pages::list_specs`].
    fn route_specs<'a>(&self, cards: &'a Cards, lastmods: bool) -> Vec<Planned<'a>> {
        let newest =
            |cards: &mut dyn Iterator<Item = &Card>| if lastmods { list::newest(cards) } else { String::new() };
        let mut out = vec![self.home_spec(cards, lastmods)];
        for (route, cards) in cards.routes() {
            let pages = cards.len().div_ceil(self.page_size()).max(1);
            for number in 1..=pages {
                let chunk = cards.chunks(self.page_size()).nth(number - 1).unwrap_or_default();
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
                url: self.site().url(&list::route_path(route, 1)),
                total: cards.len(),
                cards: list::newest_first(cards, list::HOME_SIZE).into_iter().map(|c| self.card(c)).collect(),
            })
            .collect();
        Planned {
            path: list::HOME_PATH.to_owned(),
            lastmod: if lastmods { list::newest(cards.iter()) } else { String::new() },
            cards: &[],
            context: ListSpec::Home { canonical_url: self.site().url(list::HOME_PATH), routes: summaries },
        }
    }

    /// The pages of one taxonomy of [`Pages::list_specs`]: its pages of
    /// terms, then its terms' pages.
    fn taxonomy_specs<'a>(
        &self,
        taxonomy: Taxonomy,
        terms: &[facets::TermCards<'a>],
        lastmods: bool,
    ) -> Vec<Planned<'a>> {
        let newest =
            |cards: &mut dyn Iterator<Item = &Card>| if lastmods { list::newest(cards) } else { String::new() };
        let mut out = Vec::new();
        // Each term's pages, then the newest of each term (from its
        // pages'), for the taxonomy's pages, which come first.
        let mut term_pages = Vec::new();
        let mut term_newest = Vec::with_capacity(terms.len());
        for term in terms {
            let pages = term.cards.len().div_ceil(self.page_size()).max(1);
            let first = term_pages.len();
            for (at, chunk) in term.cards.chunks(self.page_size()).enumerate() {
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
        let pages = terms.len().div_ceil(self.page_size()).max(1);
        for number in 1..=pages {
            let range = (number - 1) * self.page_size()..(number * self.page_size()).min(terms.len());
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
        out
    }

    /// What `list.html` sees of a route's page.
    fn route_context<'a>(&self, spec: &RouteSpec<'a>) -> ListContext<'a> {
        let RouteSpec { route, number, pages, total, cards } = *spec;
        let label = list::route_label(route);
        ListContext {
            canonical_url: self.site().url(&list::route_path(route, number)),
            label,
            route: Some(route.as_str()),
            taxonomy: None,
            number,
            pages,
            total,
            cards: cards.iter().map(|c| self.card(c)).collect(),
            previous_url: (number > 1).then(|| self.site().url(&list::route_path(route, number - 1))),
            next_url: (number < pages).then(|| self.site().url(&list::route_path(route, number + 1))),
            numbers: self.page_links(number, pages, |n| route.list_path(n)),
            breadcrumbs: self.trail(Vec::new(), label, &list::route_path(route, 1), number),
        }
    }

    /// What `list.html` sees of a term's page.
    fn term_context<'a>(&self, spec: &TermSpec<'a>) -> ListContext<'a> {
        let TermSpec { taxonomy, slug, label, number, pages, total, .. } = *spec;
        let index =
            Crumb { name: facets::label(taxonomy).to_owned(), url: Some(self.site().url(&taxonomy.index_path(1))) };
        ListContext {
            canonical_url: self.site().url(&taxonomy.term_path(slug, number)),
            label,
            route: None,
            taxonomy: Some(facets::singular(taxonomy)),
            number,
            pages,
            total,
            cards: spec.cards.iter().map(|c| self.card(c)).collect(),
            previous_url: (number > 1).then(|| self.site().url(&taxonomy.term_path(slug, number - 1))),
            next_url: (number < pages).then(|| self.site().url(&taxonomy.term_path(slug, number + 1))),
            numbers: self.page_links(number, pages, |n| taxonomy.term_path(slug, n)),
            breadcrumbs: self.trail(vec![index], label, &taxonomy.term_path(slug, 1), number),
        }
    }

    /// What `terms.html` sees of a taxonomy's page.
    fn terms_context(&self, spec: &TermsSpec<'_>) -> TermsContext {
        let TermsSpec { taxonomy, number, pages, total, .. } = *spec;
        let label = facets::label(taxonomy);
        TermsContext {
            canonical_url: self.site().url(&taxonomy.index_path(number)),
            label,
            number,
            pages,
            total,
            terms: spec
                .terms
                .iter()
                .map(|&(slug, name, count)| TermLink {
                    name: name.to_owned(),
                    url: self.site().url(&taxonomy.term_path(slug, 1)),
                    count,
                })
                .collect(),
            previous_url: (number > 1).then(|| self.site().url(&taxonomy.index_path(number - 1))),
            next_url: (number < pages).then(|| self.site().url(&taxonomy.index_path(number + 1))),
            numbers: self.page_links(number, pages, |n| taxonomy.index_path(n)),
            breadcrumbs: self.trail(Vec::new(), label, &taxonomy.index_path(1), number),
        }
    }

    /// The HTML of a list page planned as `spec`.
    pub(crate) fn render_list(&self, spec: &ListSpec<'_>) -> Result<String, PageError> {
        match spec {
            ListSpec::Home { canonical_url, routes } => {
                let home = minijinja::context! {
                    site => self.site_context(),
                    page => minijinja::context! {
                        canonical_url => canonical_url,
                        routes => Value::from_serialize(routes),
                        json_ld => Value::from_safe_string(json_ld::website_script(self.site())),
                    },
                };
                self.render(HOME, home, None)
            }
            ListSpec::Route(spec) => self.render_page(LIST, &self.route_context(spec)),
            ListSpec::Term(spec) => self.render_page(LIST, &self.term_context(spec)),
            ListSpec::Terms(spec) => self.render_page(TERMS, &self.terms_context(spec)),
        }
    }
}
