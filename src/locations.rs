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

/// The path of the site's search page (`/search?q=…`), which a server
/// answers on request.
pub const SEARCH_PATH: &str = "/search";

impl Route {
    /// The path of this route's list page `page` (from 1), which is also
    /// its category's: `/datasets`, then `/datasets/page/2`, ….
    pub fn list_path(self, page: usize) -> String {
        numbered(format!("/{}", self.as_str()), page)
    }
}

foundry_catalog_core::wire_enum! {
    /// A taxonomy of the site: a record field whose values group products
    /// on pages of their own (facets), named as its pages' first path
    /// segment. Each value (a term) has its pages at
    /// [`Taxonomy::term_path`], and the taxonomy lists its terms at
    /// [`Taxonomy::index_path`].
    pub enum Taxonomy {
        /// `use_cases`.
        UseCases = "use-cases",
        /// `target_audiences`.
        Audiences = "audiences",
        /// `output_formats`.
        Formats = "formats",
        /// The marketplaces of `marketplace_availability`, by `key`.
        Marketplaces = "marketplaces",
        /// The `status` of `marketplace_availability`'s entries.
        Availability = "availability",
    }
}

impl Taxonomy {
    /// The path of the page `page` (from 1) listing this taxonomy's
    /// terms: `/use-cases`, then `/use-cases/page/2`, ….
    pub fn index_path(self, page: usize) -> String {
        numbered(format!("/{}", self.as_str()), page)
    }

    /// The path of the page `page` (from 1) of the products of the term
    /// whose slug is `term` ([`term_slug`]): `/use-cases/<term>`, then
    /// `/use-cases/<term>/page/2`, ….
    pub fn term_path(self, term: &str, page: usize) -> String {
        numbered(format!("/{}/{term}", self.as_str()), page)
    }
}

/// `first`, the path of a list's first page, for its page `page`.
fn numbered(first: String, page: usize) -> String {
    if page <= 1 { first } else { format!("{first}/page/{page}") }
}

/// The most bytes of a term's slug ([`term_slug`]).
pub const MAX_TERM_SLUG: usize = 80;

/// A term as the site tells terms apart: lowercase, its words (split at
/// whitespace, `-` and `_`) joined by one space. `Webhook fan-out`,
/// `webhook  fan out` and `WEBHOOK_FAN_OUT` are one term.
pub fn term_key(value: &str) -> String {
    let lower = value.to_lowercase();
    let words: Vec<&str> =
        lower.split(|c: char| c.is_whitespace() || c == '-' || c == '_').filter(|word| !word.is_empty()).collect();
    words.join(" ")
}

/// The path segment of the term `value` ([`Taxonomy::term_path`]): its
/// [`term_key`] with `-` for each space when that is all ASCII letters
/// and digits and at most [`MAX_TERM_SLUG`] bytes (`Webhook fan-out` is
/// `webhook-fan-out`); otherwise the ASCII letters and digits of its
/// first words (at most 48 bytes) then `-` and 12 hex digits of the
/// SHA-256 of its key (`Análisis de riesgo` is `anlisis-de-riesgo-` and
/// the digest; `数据` the digest alone). Two terms with one key share a
/// slug; two keys share one only if their digests' first 48 bits do, or
/// when a plain key is written as another's slug. The same on every
/// machine, whatever other terms exist: a term's URL never moves.
pub fn term_slug(value: &str) -> String {
    let key = term_key(value);
    let plain = !key.is_empty()
        && key.len() <= MAX_TERM_SLUG
        && key.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b' ');
    if plain {
        return key.replace(' ', "-");
    }
    let mut slug = String::new();
    for word in key.split(' ') {
        let ascii: String = word.chars().filter(char::is_ascii_alphanumeric).collect();
        if ascii.is_empty() {
            continue;
        }
        if slug.len() + 1 + ascii.len() > 48 {
            break;
        }
        if !slug.is_empty() {
            slug.push('-');
        }
        slug.push_str(&ascii);
    }
    use sha2::Digest;
    let digest = sha2::Sha256::digest(key.as_bytes());
    if !slug.is_empty() {
        slug.push('-');
    }
    slug.push_str(&hex::encode(&digest[..6]));
    slug
}

/// Whether `slug` has a term slug's shape ([`term_slug`]): 1 to
/// [`MAX_TERM_SLUG`] bytes of words of ASCII lowercase letters and
/// digits joined by single hyphens.
pub fn is_term_slug(slug: &str) -> bool {
    (1..=MAX_TERM_SLUG).contains(&slug.len())
        && slug
            .split('-')
            .all(|word| !word.is_empty() && word.bytes().all(|b| b.is_ascii_lowercase() || b.is_ascii_digit()))
}

/// Whether `path` is the path of a list page: [`HOME_PATH`], a route's
/// page as [`Route::list_path`] writes it, or a taxonomy's as
/// [`Taxonomy::index_path`] and [`Taxonomy::term_path`] write them (page
/// 2 and on by number, with no leading zero).
pub fn is_list_path(path: &str) -> bool {
    if path == HOME_PATH {
        return true;
    }
    let Some(rest) = path.strip_prefix('/') else { return false };
    let numbered = |n: &str| {
        (1..=9).contains(&n.len()) && n.bytes().all(|b| b.is_ascii_digit()) && !n.starts_with('0') && n != "1"
    };
    let first = match rest.rsplit_once("/page/") {
        Some((first, n)) if numbered(n) => first,
        _ => rest,
    };
    match first.split_once('/') {
        None => first.parse::<Route>().is_ok() || first.parse::<Taxonomy>().is_ok(),
        Some((taxonomy, term)) => taxonomy.parse::<Taxonomy>().is_ok() && is_term_slug(term),
    }
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

#[cfg(test)]
mod tests {
    use super::{Route, Taxonomy, is_list_path, is_term_slug, term_key, term_slug};

    #[test]
    fn one_term_is_one_key_whatever_its_case_and_separators() {
        assert_eq!(term_key("Webhook fan-out"), "webhook fan out");
        assert_eq!(term_key("  WEBHOOK_FAN--out "), "webhook fan out");
        assert_eq!(term_slug("Webhook fan-out"), "webhook-fan-out");
        assert_eq!(term_slug("JSON"), "json");
        assert_eq!(term_slug("data_exchange"), "data-exchange");
        assert_ne!(term_key("Webhook fan-out"), term_key("Webhook fanout"));
    }

    /// A term that is not plain ASCII keeps what it has of ASCII and ends
    /// in a digest of its key, so two such terms do not meet, and every
    /// slug has the shape the paths accept.
    #[test]
    fn every_term_has_a_slug_of_the_shape_paths_accept() {
        let terms = [
            "Análisis de riesgo",
            "Analisis de riesgo",
            "数据",
            "データ",
            "C++",
            "C",
            "Node.js",
            "-",
            "",
            "   ",
            "تحليل المخاطر",
            "😀 emoji",
            &"a".repeat(200),
            &"word ".repeat(40),
            "x/../../etc",
            "%2F",
        ];
        let slugs: Vec<String> = terms.iter().map(|term| term_slug(term)).collect();
        for (term, slug) in terms.iter().zip(&slugs) {
            assert!(is_term_slug(slug), "{term:?} -> {slug:?}");
            assert!(is_list_path(&Taxonomy::UseCases.term_path(slug, 1)), "{slug}");
            assert!(is_list_path(&Taxonomy::UseCases.term_path(slug, 7)), "{slug}");
        }
        let distinct: std::collections::BTreeSet<&String> = slugs.iter().collect();
        // "" and "   " and "-" have one key (none), so one slug.
        assert_eq!(distinct.len(), terms.len() - 2, "{slugs:?}");
        assert!(slugs[0].starts_with("anlisis-de-riesgo-"), "{}", slugs[0]);
        assert_eq!(slugs[1], "analisis-de-riesgo");
        assert_eq!(slugs[2].len(), 12);
        assert_eq!(term_slug("C"), "c");
        assert_eq!(term_slug(&"word ".repeat(16)), "word-".repeat(15) + "word");
    }

    #[test]
    fn list_paths_are_the_home_each_routes_and_each_taxonomys_pages() {
        for path in [
            "/",
            "/datasets",
            "/actors/page/123",
            "/use-cases",
            "/use-cases/page/2",
            "/use-cases/webhook-fan-out",
            "/use-cases/page",
            "/use-cases/page/page/2",
            "/availability/published/page/40",
            "/formats/json",
        ] {
            assert!(is_list_path(path), "{path}");
        }
        for path in [
            "/use-cases/",
            "/use-cases/page/1",
            "/use-cases/json/page/1",
            "/use-cases/json/page/01",
            "/use-cases/Json",
            "/use-cases/json-",
            "/use-cases/-json",
            "/use-cases/a--b",
            "/use-cases/a/b",
            "/tags",
            "/tags/json",
            "/datasets/json",
            "/datasets/page/2/page/3",
        ] {
            assert!(!is_list_path(path), "{path}");
        }
        assert_eq!(Taxonomy::Formats.index_path(1), "/formats");
        assert_eq!(Taxonomy::Formats.term_path("csv", 3), "/formats/csv/page/3");
        assert_eq!(Route::Actors.list_path(2), "/actors/page/2");
        // No taxonomy's segment is a route's: their pages never meet.
        for taxonomy in Taxonomy::ALL {
            assert!(taxonomy.as_str().parse::<Route>().is_err());
        }
    }
}
