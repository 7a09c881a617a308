//! The public site's address: what makes a page path an absolute URL (the
//! canonical link, JSON-LD's `url`, the sitemap's `loc`).

use std::fmt;

/// The public site: an absolute `http` or `https` URL with no query or
/// fragment (`https://catalog.example.com`, or with a path prefix,
/// `https://example.com/catalog`), or none, when the pages are built
/// without knowing where they will be served. Without a site, the
/// canonical link and JSON-LD's `url` are the bare `canonical_path`, and
/// there is no sitemap (the sitemap protocol takes absolute URLs only).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Site {
    /// The URL without a trailing slash; empty when unknown.
    base: String,
}

/// Why a site URL was refused.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{url:?} is not a site URL: {reason}; hint: give the public site's origin, like https://catalog.example.com")]
pub struct InvalidSite {
    /// The text given.
    pub url: String,
    /// What is wrong with it.
    pub reason: &'static str,
}

impl Site {
    /// The site at `url` (RFC 3986, parsed by `iri-string`): `http` or
    /// `https`, a host, no query, no fragment, no user info. A trailing
    /// slash is dropped.
    pub fn new(url: &str) -> Result<Site, InvalidSite> {
        let refuse = |reason| Err(InvalidSite { url: url.to_owned(), reason });
        let Ok(uri) = iri_string::types::UriStr::new(url) else {
            return refuse("not a URI");
        };
        let scheme = uri.scheme_str();
        if !scheme.eq_ignore_ascii_case("http") && !scheme.eq_ignore_ascii_case("https") {
            return refuse("the scheme is not http or https");
        }
        let Some(authority) = uri.authority_components() else {
            return refuse("it has no host");
        };
        if authority.host().is_empty() {
            return refuse("it has no host");
        }
        if authority.userinfo().is_some() {
            return refuse("it has user info");
        }
        if uri.query().is_some() {
            return refuse("it has a query");
        }
        if uri.fragment().is_some() {
            return refuse("it has a fragment");
        }
        Ok(Site { base: url.trim_end_matches('/').to_owned() })
    }

    /// No known site: links are paths.
    pub fn unknown() -> Site {
        Site::default()
    }

    /// Whether the site's URL is known.
    pub fn is_known(&self) -> bool {
        !self.base.is_empty()
    }

    /// The URL of `path` (which starts with `/`) on this site; the path
    /// itself when the site is unknown.
    pub fn url(&self, path: &str) -> String {
        format!("{}{path}", self.base)
    }
}

impl fmt::Display for Site {
    /// The site's URL, or `unknown`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(if self.is_known() { &self.base } else { "unknown" })
    }
}

#[cfg(test)]
mod tests {
    use super::Site;

    #[test]
    fn only_http_origins_and_paths_are_sites() {
        assert_eq!(Site::new("https://example.com/").unwrap().url("/datasets/x"), "https://example.com/datasets/x");
        assert_eq!(Site::new("http://127.0.0.1:8080/shop").unwrap().url("/a/b"), "http://127.0.0.1:8080/shop/a/b");
        for bad in [
            "ftp://example.com",
            "https://",
            "example.com",
            "https://a.example?x=1",
            "https://a.example#top",
            "https://u@a.example",
            "https://a b",
        ] {
            assert!(Site::new(bad).is_err(), "{bad}");
        }
        assert_eq!(Site::unknown().url("/datasets/x"), "/datasets/x");
    }
}
