//! Where things are: the endpoint's path, the routes of a product's
//! public page, and where a product's manifest lives. The lowest layer of
//! the records: the key tables ([`crate::shape`]) check paths with it.

use foundry_catalog_core::Slug;

/// The API path prefix; a record's `api_path` is this plus its slug.
pub const API_PATH_PREFIX: &str = "/api/public/foundry/products/";

foundry_catalog_core::wire_enum! {
    /// The product group of a record (`route`), which fixes its `category`.
    pub enum Route {
        /// Category `dataset_product`.
        Datasets = "datasets",
        /// Category `actor_product`.
        Actors = "actors",
        /// Category `automation_connector`.
        Automation = "automation",
    }
}

/// The path of the site's home page, which lists every route.
pub const HOME_PATH: &str = "/";

impl Route {
    /// The path of this route's list page `page` (from 1), which is also
    /// its category's: `/datasets`, then `/datasets/page/2`, ….
    pub fn list_path(self, page: usize) -> String {
        if page <= 1 { format!("/{}", self.as_str()) } else { format!("/{}/page/{page}", self.as_str()) }
    }
}

/// Whether `path` is the path of a list page: [`HOME_PATH`], or a route's
/// page as [`Route::list_path`] writes it (page 2 and on by number, with
/// no leading zero).
pub fn is_list_path(path: &str) -> bool {
    if path == HOME_PATH {
        return true;
    }
    let Some(rest) = path.strip_prefix('/') else { return false };
    let (route, page) = match rest.split_once("/page/") {
        Some((route, n)) => (route, Some(n)),
        None => (rest, None),
    };
    let numbered = |n: &str| {
        (1..=9).contains(&n.len()) && n.bytes().all(|b| b.is_ascii_digit()) && !n.starts_with('0') && n != "1"
    };
    route.parse::<Route>().is_ok() && page.is_none_or(numbered)
}

/// Where a product's manifest lives (`schema_preview.manifest_path`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub enum ManifestLocation {
    /// `products/generated/<slug>/product.json`.
    #[default]
    Generated,
    /// `<scheme>://actors/<publisher>/<slug>`, for a manifest kept on an actor platform.
    Actor {
        /// URI scheme, e.g. `actorhub`.
        scheme: String,
        /// Publisher account on that platform.
        publisher: String,
    },
}

/// Why a manifest location is not usable.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error(
    "invalid actor manifest location: {reason}; hint: use a lowercase URI scheme such as \"actorhub\" and a publisher name of letters, digits, `_`, `-` or `.`"
)]
pub struct InvalidManifestLocation {
    /// What is wrong.
    pub reason: String,
}

/// Schemes a browser or a system acts on, which an actor platform's own
/// scheme never is: a manifest path with one would run script
/// (`javascript`), carry content (`data`), reach local files (`file`) or
/// pass for a web address, wherever it is shown as a link.
const ACTED_ON: &[&str] = &[
    "about",
    "blob",
    "data",
    "file",
    "filesystem",
    "ftp",
    "http",
    "https",
    "javascript",
    "mailto",
    "sms",
    "tel",
    "vbscript",
    "ws",
    "wss",
];

impl ManifestLocation {
    /// An actor-platform location, checked: the scheme is a lowercase URI
    /// scheme, not one a browser or a system acts on (`javascript`, `data`,
    /// `file`, `http`, …), and the publisher a single path segment.
    pub fn actor(scheme: impl Into<String>, publisher: impl Into<String>) -> Result<Self, InvalidManifestLocation> {
        let (scheme, publisher) = (scheme.into(), publisher.into());
        let scheme_ok = scheme.bytes().next().is_some_and(|b| b.is_ascii_lowercase())
            && scheme.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || matches!(b, b'+' | b'-' | b'.'));
        let publisher_ok = !publisher.is_empty()
            && publisher.bytes().all(|b| b.is_ascii_alphanumeric() || matches!(b, b'_' | b'-' | b'.'))
            && publisher != "."
            && publisher != "..";
        if !scheme_ok {
            Err(InvalidManifestLocation { reason: format!("{scheme:?} is not a URI scheme") })
        } else if ACTED_ON.contains(&scheme.as_str()) {
            Err(InvalidManifestLocation {
                reason: format!("{scheme:?} is a scheme browsers and systems act on, not an actor platform's own"),
            })
        } else if !publisher_ok {
            Err(InvalidManifestLocation { reason: format!("{publisher:?} is not a publisher name") })
        } else {
            Ok(ManifestLocation::Actor { scheme, publisher })
        }
    }

    /// The manifest path of the product with this slug.
    ///
    /// ```
    /// use foundry_catalog::preview::ManifestLocation;
    /// use foundry_catalog_core::Slug;
    /// let slug = Slug::new("lead-finder").unwrap();
    /// assert_eq!(ManifestLocation::Generated.path(&slug), "products/generated/lead-finder/product.json");
    /// let actor = ManifestLocation::actor("actorhub", "foundry").unwrap();
    /// assert_eq!(actor.path(&slug), "actorhub://actors/foundry/lead-finder");
    /// ```
    pub fn path(&self, slug: &Slug) -> String {
        match self {
            ManifestLocation::Generated => format!("products/generated/{slug}/product.json"),
            ManifestLocation::Actor { scheme, publisher } => format!("{scheme}://actors/{publisher}/{slug}"),
        }
    }
}
