//! # foundry-catalog-pages
//!
//! The public site's page of every product record, at the record's
//! `canonical_path` (`/datasets/<slug>`, `/actors/<slug>`,
//! `/automation/<slug>`), rendered from the same typed record as its JSON
//! body: `<title>` and meta description from `seo`, a canonical link,
//! `noindex` where `seo.noindex` says so, JSON-LD of the fitting
//! schema.org type ([`json_ld`]), the summary and buyer outcome, the
//! marketplace listings (the primary call to action first), availability,
//! the sample rows as a table under the schema preview's field names,
//! and links to its related products. Beside them: the list pages (the
//! home page and each route's, [`list`]), the sitemap ([`sitemap`]),
//! `robots.txt`, an Atom feed of the newest products ([`feed`]), the
//! site's icon ([`favicon`]) and the picture a shared link shows
//! ([`share_image`]).
//!
//! Pages come from [Jinja2 templates](https://docs.rs/minijinja) with
//! HTML autoescaping. The defaults are compiled in; a catalog team
//! replaces any of them with a folder of its own
//! ([`Pages::from_dir`]). A template that does not parse, or that names
//! something the context does not hold, is an error naming its file and
//! line, with a hint. The same record and templates give the same bytes.
//!
//! ```
//! use foundry_catalog::product::ProductManifest;
//! use foundry_catalog_pages::list::{Card, Cards};
//! use foundry_catalog_pages::{Pages, Site};
//!
//! let site = Site::new("https://catalog.example.com").unwrap();
//! let pages = Pages::new(site);
//! let records: Vec<_> = foundry_catalog::examples::MANIFESTS
//!     .iter()
//!     .map(|(_, manifest)| ProductManifest::from_json(manifest).unwrap().build().unwrap())
//!     .collect();
//! // What the list pages and each page's related products are made from.
//! let cards = Cards::new(records.iter().filter_map(Card::of));
//! let html = pages.product(&records[0], &cards).unwrap();
//! assert!(html.contains(r#"<link rel="canonical" href="https://catalog.example.com/"#));
//! let home = &pages.list_pages(&cards).unwrap()[0];
//! assert_eq!(home.path, "/");
//! ```
//!
//! What a template sees, and how to write your own: docs/pages.md.

#![forbid(unsafe_code)]
#![warn(missing_docs)]

pub mod cards;
mod error;
pub mod facets;
pub mod favicon;
pub mod feed;
pub mod json_ld;
pub mod list;
mod markup;
mod parallel;
mod plans;
mod render;
pub mod search;
pub mod share_image;
pub mod site;
pub mod sitemap;
mod templates;
mod terms;
pub mod warnings;

pub use error::PageError;
pub use plans::{ListPage, ListPlan};
pub use render::{CARD_SUMMARY, Pages};
pub use site::{InvalidLanguage, InvalidName, InvalidSite, Language, Site, SiteName};
