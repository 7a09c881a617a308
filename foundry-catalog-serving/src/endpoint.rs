//! Answering `GET /api/public/foundry/products/{slug}` from a
//! [`ResponseCatalog`], independent of any HTTP framework: a [`Request`]
//! (method, raw path, the conditional headers) in, a [`Reply`] out. An
//! HTTP server only copies the reply into its own response type (see the
//! `foundry-catalog-server` crate).
//!
//! | request | reply |
//! |---|---|
//! | `GET` a known slug | 200, `application/json`, body, `ETag`, `Last-Modified`, `Cache-Control`, `Vary: Accept-Encoding` |
//! | `Accept-Encoding` allowing br or gzip | the pre-compressed body, `Content-Encoding`, its own ETag |
//! | `Accept-Encoding` excluding br, gzip and identity | 406 `not_acceptable` |
//! | `If-Match` not matching the ETag (strong comparison, `*`, lists) | 412 `precondition_failed` |
//! | `If-None-Match` matching the ETag (weak comparison, `*`, lists) | 304, no body |
//! | no `If-None-Match`, `If-Modified-Since` at or after `Last-Modified` | 304, no body |
//! | `HEAD` | as `GET`, without the body |
//! | an unknown slug | 404 `not_found` |
//! | a malformed slug (uppercase, `..`, `%2F`, `%00`, over 200 bytes, empty) | 400 `invalid_slug` |
//! | another method (`POST`, `TRACE`, `OPTIONS`, `CONNECT`, …), on any path | 405 `method_not_allowed`, `Allow: GET, HEAD` |
//! | HTTP/1.1 without exactly one valid `Host` (checked by `service::respond` (feature `http`) and the server, before [`answer`]) | 400 `bad_host` |
//! | any other path | 404 `not_found` |
//!
//! A catalog with pages ([`ResponseCatalog::has_pages`]) answers outside
//! the product path too, by the same rules (negotiation, 304, 412, `Vary`,
//! `HEAD`; 405 with `Allow: GET, HEAD`):
//!
//! | request | reply |
//! |---|---|
//! | a product's `canonical_path` (`/datasets/<slug>`, …) | 200, `text/html; charset=utf-8`, the page, its own `ETag`, the product's `Last-Modified` |
//! | `/`, a route's list page (`/datasets`, `/datasets/page/2`, …) | 200, `text/html; charset=utf-8`, its own `ETag` (no `Last-Modified`) |
//! | `/robots.txt`, `/sitemap.xml` (and `/sitemap-<n>.xml` past 50,000 pages), `/favicon.ico` | 200, `text/plain`, `application/xml` or `image/x-icon`, its own `ETag` (no `Last-Modified`) |
//! | `/search?q=…&page=n` (an artifact built with search) | 200, `text/html; charset=utf-8`, the matches, made on request ([`ResponseCatalog::search`]) and compressed as asked, no validators; a `page` no search has gets the not-found page with 404 |
//! | a page's path with a trailing slash (`/actors/x/`) or `.html` (`/actors/x.html`, `/index.html`) | 301, `Location:` the page's path (`/actors/x`, `/`) |
//! | any other path outside `/api/` | 404 with the not-found page (`text/html`), not cached |
//!
//! The conditional headers are evaluated in RFC 9110 §13.2.2's order. A
//! percent-encoded unreserved character (`%73` for `s`) is the same URL as
//! the character itself (RFC 3986 §6.2.2.2) and is decoded before routing;
//! any other percent-encoding stays as it is, so `%2F` and `%00` still
//! make a malformed slug.
//!
//! Error bodies are `{"error": {"status": …, "code": …, "message": …}}`
//! with fixed messages: nothing from the request is echoed. Every reply
//! an HTTP server makes of these (`service::respond`, feature `http`)
//! carries `X-Content-Type-Options: nosniff`, a `Content-Security-Policy`
//! under which nothing runs and nothing frames it, and a
//! `Referrer-Policy`.

use std::borrow::Cow;

use bytes::Bytes;

use crate::catalog::{CatalogEntry, ResponseCatalog, SiteResource};
use crate::encoding::{negotiate, trim_ows};
use foundry_catalog::product::API_PATH_PREFIX;
use foundry_catalog::response::ErrorKind;

/// `Cache-Control` of product responses.
pub const CACHE_CONTROL: &str = "public, max-age=300";

/// The methods the product path allows.
pub const ALLOW: &str = "GET, HEAD";

/// `Vary` of product responses: the representation depends on `Accept-Encoding`.
pub const VARY: &str = "Accept-Encoding";

/// The parts of a request the answer depends on. Header values are raw
/// bytes; a header sent on several lines is one comma-separated list
/// (join the lines with `", "`).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Request<'a> {
    /// The method, as sent.
    pub method: &'a str,
    /// The request target's path, still percent-encoded, without the query.
    pub path: &'a str,
    /// The request target's query, without the `?` (only the search page
    /// reads it).
    pub query: Option<&'a str>,
    /// `If-Match`, if sent.
    pub if_match: Option<&'a [u8]>,
    /// `If-None-Match`, if sent.
    pub if_none_match: Option<&'a [u8]>,
    /// `If-Modified-Since`, if sent.
    pub if_modified_since: Option<&'a [u8]>,
    /// `Accept-Encoding`, if sent.
    pub accept_encoding: Option<&'a [u8]>,
}

impl<'a> Request<'a> {
    /// A request with no conditional headers.
    pub fn new(method: &'a str, path: &'a str) -> Self {
        Request { method, path, ..Request::default() }
    }
}

/// What to answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// HTTP status code.
    pub status: u16,
    /// `Content-Type`, when the reply has a representation.
    pub content_type: Option<&'static str>,
    /// `ETag` of the representation (shared bytes, ASCII).
    pub etag: Option<Bytes>,
    /// `Content-Encoding` of the representation (none for identity).
    pub content_encoding: Option<&'static str>,
    /// `Vary`: product responses depend on `Accept-Encoding`.
    pub vary: Option<&'static str>,
    /// `Last-Modified` of the representation (an IMF-fixdate, ASCII).
    pub last_modified: Option<Bytes>,
    /// `Cache-Control`.
    pub cache_control: Option<&'static str>,
    /// `Allow`, on 405.
    pub allow: Option<&'static str>,
    /// `Location`, on 301: a page's canonical path.
    pub location: Option<Bytes>,
    /// `Content-Length` of the representation (also for `HEAD`).
    pub content_length: usize,
    /// The bytes to send: empty for `HEAD` and 304.
    pub body: Bytes,
}

impl Reply {
    /// An error reply with the fixed JSON error body (no body for `HEAD`).
    pub fn error(kind: ErrorKind, head: bool) -> Reply {
        let status = kind.status();
        let body = serde_json::json!({"error": {"status": status, "code": kind.code(), "message": kind.message()}})
            .to_string();
        let content_length = body.len();
        Reply {
            status,
            content_type: Some("application/json"),
            etag: None,
            content_encoding: None,
            vary: None,
            last_modified: None,
            cache_control: Some("no-store"),
            allow: (status == 405).then_some(ALLOW),
            location: None,
            content_length,
            body: if head { Bytes::new() } else { Bytes::from(body) },
        }
    }
}

/// The reply to one request.
///
/// ```
/// use foundry_catalog_serving::{catalog::ResponseCatalog, endpoint::{Request, answer}};
/// let catalog = ResponseCatalog::examples();
/// let path = "/api/public/foundry/products/crm-webhook-connector";
/// let ok = answer(&catalog, &Request::new("GET", path));
/// assert_eq!(ok.status, 200);
/// let etag = ok.etag.unwrap();
/// let cached = answer(&catalog, &Request { if_none_match: Some(&etag), ..Request::new("GET", path) });
/// assert_eq!((cached.status, cached.body.len()), (304, 0));
/// let changed = answer(&catalog, &Request { if_match: Some(b"\"other\""), ..Request::new("GET", path) });
/// assert_eq!(changed.status, 412);
/// assert_eq!(answer(&catalog, &Request::new("GET", "/api/public/foundry/products/crm-webhook-connector%2F")).status, 400);
/// assert_eq!(answer(&catalog, &Request::new("GET", "/api/public/foundry/products/crm-webhook-connec%74or")).status, 200);
/// ```
pub fn answer(catalog: &ResponseCatalog, request: &Request<'_>) -> Reply {
    let head = request.method == "HEAD";
    // Nothing here answers another method, on any path (TRACE, OPTIONS
    // and CONNECT included): 405 with `Allow`, before any routing.
    if request.method != "GET" && !head {
        return Reply::error(ErrorKind::MethodNotAllowed, false);
    }
    let path = decode_unreserved(request.path);
    let Some(slug) = path.strip_prefix(API_PATH_PREFIX) else {
        return answer_site(catalog, request, &path);
    };
    if slug.contains('/') {
        return Reply::error(ErrorKind::NoResource, head);
    }
    if foundry_catalog_core::Slug::check(slug).is_err() {
        return Reply::error(ErrorKind::InvalidSlug, head);
    }
    let entry = match catalog.lookup(slug) {
        Ok(Some(entry)) => entry,
        Ok(None) => return Reply::error(ErrorKind::NoProduct, head),
        Err(_) => return Reply::error(ErrorKind::Unavailable, head),
    };
    represent(catalog, entry, request, "application/json")
}

/// `Content-Type` of pages and of the not-found page.
pub const HTML: &str = "text/html; charset=utf-8";

/// A path outside the product endpoint: a page, a site document or the
/// not-found page in a catalog with pages; else 404 `not_found`. Paths
/// under `/api/` always get the JSON error.
fn answer_site(catalog: &ResponseCatalog, request: &Request<'_>, path: &str) -> Reply {
    let head = request.method == "HEAD";
    if path == crate::catalog::SEARCH_PATH
        && let Some(page) = catalog.search(request.query)
    {
        return search_reply(catalog, page, request);
    }
    let resource = if path.starts_with("/api/") { None } else { catalog.site_resource(path) };
    let (entry, content_type) = match resource {
        None => return Reply::error(ErrorKind::NoResource, head),
        Some(SiteResource::Unavailable) => return Reply::error(ErrorKind::Unavailable, head),
        Some(SiteResource::NotFound(page)) => {
            return match canonical_form(catalog, path) {
                Some(canonical) => moved(canonical),
                None => not_found_page(catalog, page, request),
            };
        }
        Some(SiteResource::Page(page)) => (page, HTML),
        Some(SiteResource::Document(document)) => (document, document_type(path)),
    };
    represent(catalog, entry, request, content_type)
}

/// The search page's reply: made on request, so compressed now, in the
/// coding `Accept-Encoding` asks for, and cached as pages are, but with no
/// validators (nothing to compare a later request with). A page of
/// matches no search has is not found.
fn search_reply(catalog: &ResponseCatalog, page: crate::catalog::SearchPage, request: &Request<'_>) -> Reply {
    use crate::catalog::SearchPage;
    let head = request.method == "HEAD";
    let html = match page {
        SearchPage::Page(html) => html,
        SearchPage::Unavailable => return Reply::error(ErrorKind::Unavailable, head),
        SearchPage::NoSuchPage => {
            return match catalog.site_resource(crate::catalog::SEARCH_PATH) {
                Some(SiteResource::NotFound(page)) => not_found_page(catalog, page, request),
                _ => Reply::error(ErrorKind::NoResource, head),
            };
        }
    };
    let Some(coding) = negotiate(request.accept_encoding, catalog.codings()) else {
        return Reply { vary: Some(VARY), ..Reply::error(ErrorKind::NotAcceptable, head) };
    };
    let Some(body) = coding.encode(html.as_bytes()) else { return Reply::error(ErrorKind::Unavailable, head) };
    Reply {
        status: 200,
        content_type: Some(HTML),
        etag: None,
        content_encoding: coding.header(),
        vary: Some(VARY),
        last_modified: None,
        cache_control: Some(CACHE_CONTROL),
        allow: None,
        location: None,
        content_length: body.len(),
        body: if head { Bytes::new() } else { Bytes::from(body) },
    }
}

/// `Content-Type` of a site document, by its name's extension: the
/// sitemap's XML, the Atom feed, the icon, the shared links' picture,
/// `robots.txt`'s text, else a list page.
fn document_type(path: &str) -> &'static str {
    match path.rsplit_once('.').map(|(_, extension)| extension) {
        Some("xml") => "application/xml",
        Some("atom") => "application/atom+xml",
        Some("png") => "image/png",
        Some("ico") => "image/x-icon",
        Some("txt") => "text/plain; charset=utf-8",
        _ => HTML,
    }
}

/// The page `path` names in another form: with a trailing slash
/// (`/actors/x/`) or as the static site's file (`/actors/x.html`,
/// `/index.html` for `/`), when that page (a product's or a list page)
/// exists. Only a page's own path is ever given, never text of the
/// request's: no redirect leaves the site.
fn canonical_form<'p>(catalog: &ResponseCatalog, path: &'p str) -> Option<&'p str> {
    if path == "/index.html" {
        return Some(foundry_catalog::product::HOME_PATH);
    }
    let trimmed = path.trim_end_matches('/');
    let bare = if trimmed.len() < path.len() { trimmed } else { path.strip_suffix(".html")? };
    // The home page's one other form is `/index.html` (`/.html` is none).
    if bare == foundry_catalog::product::HOME_PATH {
        return None;
    }
    match catalog.site_resource(bare) {
        Some(SiteResource::Page(_)) => Some(bare),
        Some(SiteResource::Document(_)) if foundry_catalog::product::is_list_path(bare) => Some(bare),
        _ => None,
    }
}

/// 301 to `canonical`, a page's path: cached as pages are, no body.
fn moved(canonical: &str) -> Reply {
    Reply {
        status: 301,
        content_type: None,
        etag: None,
        content_encoding: None,
        vary: None,
        last_modified: None,
        cache_control: Some(CACHE_CONTROL),
        allow: None,
        location: Some(Bytes::copy_from_slice(canonical.as_bytes())),
        content_length: 0,
        body: Bytes::new(),
    }
}

/// The not-found page, with 404, in the coding `Accept-Encoding` asks
/// for (identity when it refuses them all): not cached, no validators.
fn not_found_page(catalog: &ResponseCatalog, page: CatalogEntry<'_>, request: &Request<'_>) -> Reply {
    let coding =
        negotiate(request.accept_encoding, catalog.codings()).unwrap_or(crate::encoding::ContentCoding::Identity);
    let head = request.method == "HEAD";
    let representation = page.representation(coding);
    let body = match if head { Ok(Bytes::new()) } else { representation.body() } {
        Ok(body) => body,
        Err(_) => return Reply::error(ErrorKind::Unavailable, head),
    };
    Reply {
        status: 404,
        content_type: Some(HTML),
        etag: None,
        content_encoding: coding.header(),
        vary: Some(VARY),
        last_modified: None,
        cache_control: Some("no-store"),
        allow: None,
        location: None,
        content_length: representation.len(),
        body,
    }
}

/// The reply for a stored response (a product's body, a page or a site
/// document) by the endpoint's rules: content negotiation, then the
/// conditional headers in RFC 9110 §13.2.2's order. A response without a
/// `Last-Modified` (a site document) ignores `If-Modified-Since`.
fn represent(
    catalog: &ResponseCatalog,
    entry: CatalogEntry<'_>,
    request: &Request<'_>,
    content_type: &'static str,
) -> Reply {
    let head = request.method == "HEAD";
    let varying = |reply: Reply| Reply { vary: Some(VARY), ..reply };
    let Some(coding) = negotiate(request.accept_encoding, catalog.codings()) else {
        return varying(Reply::error(ErrorKind::NotAcceptable, head));
    };
    let representation = entry.representation(coding);
    let last_modified = Some(entry.last_modified_bytes()).filter(|date| !date.is_empty());
    // RFC 9110 §13.2.2: If-Match, then If-None-Match, then If-Modified-Since.
    if request.if_match.is_some_and(|header| !etag_matches_strongly(header, representation.etag())) {
        return varying(Reply::error(ErrorKind::PreconditionFailed, head));
    }
    let not_modified = match (request.if_none_match, request.if_modified_since) {
        (Some(header), _) => etag_matches(header, representation.etag()),
        (None, Some(since)) => last_modified.is_some() && modified_at_or_before(entry.modified(), since),
        (None, None) => false,
    };
    // Read (and, from a file, checked) only when it is sent.
    let body = match if head || not_modified { Ok(Bytes::new()) } else { representation.body() } {
        Ok(body) => body,
        Err(_) => return varying(Reply::error(ErrorKind::Unavailable, head)),
    };
    let content_length = representation.len();
    Reply {
        status: if not_modified { 304 } else { 200 },
        content_type: (!not_modified).then_some(content_type),
        etag: Some(representation.etag_bytes()),
        content_encoding: if not_modified { None } else { coding.header() },
        vary: Some(VARY),
        last_modified,
        cache_control: Some(CACHE_CONTROL),
        allow: None,
        location: None,
        content_length: if not_modified { 0 } else { content_length },
        body,
    }
}

/// The path with every percent-encoded [`is_unreserved`] character
/// decoded, as RFC 3986 §6.2.2.2 normalizes it; every other
/// percent-encoding is kept as sent.
fn decode_unreserved(path: &str) -> Cow<'_, str> {
    if !path.contains('%') {
        return Cow::Borrowed(path);
    }
    let bytes = path.as_bytes();
    let mut out = String::with_capacity(path.len());
    let mut i = 0;
    while let Some(&b) = bytes.get(i) {
        let decoded = (b == b'%')
            .then(|| bytes.get(i + 1..i + 3))
            .flatten()
            .and_then(|hex| std::str::from_utf8(hex).ok())
            .and_then(|hex| u8::from_str_radix(hex, 16).ok())
            .filter(|&c| is_unreserved(c));
        match decoded {
            Some(c) => {
                out.push(char::from(c));
                i += 3;
            }
            None => {
                out.push(char::from(b));
                i += 1;
            }
        }
    }
    Cow::Owned(out)
}

/// RFC 3986 §2.3 `unreserved`: ALPHA, DIGIT, `-`, `.`, `_` and `~`, the
/// characters a URL means the same by, percent-encoded or not.
pub(crate) const fn is_unreserved(byte: u8) -> bool {
    byte.is_ascii_alphanumeric() || matches!(byte, b'-' | b'.' | b'_' | b'~')
}

/// Whether an `If-Modified-Since` date is at or after `modified` (whole
/// seconds); an unparsable date is ignored (RFC 9110 §13.1.3).
fn modified_at_or_before(modified: std::time::SystemTime, since: &[u8]) -> bool {
    std::str::from_utf8(trim_ows(since)).ok().and_then(|text| httpdate::parse_http_date(text).ok()).is_some_and(
        |since| {
            let whole = |t: std::time::SystemTime| t.duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
            whole(modified) <= whole(since)
        },
    )
}

/// Whether an `If-Match` header value matches `etag` (RFC 9110 §13.1.1):
/// `*` matches any current representation; otherwise a list of entity
/// tags compared strongly (a weak tag never matches).
fn etag_matches_strongly(header: &[u8], etag: &str) -> bool {
    let ours = opaque(etag.as_bytes());
    trim_ows(header) == b"*" || tags(header).any(|(weak, tag)| !weak && Some(tag) == ours)
}

/// Whether an `If-None-Match` header value matches `etag` (RFC 9110
/// §13.1.2): `*` matches any current representation; otherwise the value
/// is a comma-separated list of entity tags, compared weakly (a `W/`
/// prefix on either side is ignored). A malformed list matches nothing
/// after the point where it breaks.
fn etag_matches(header: &[u8], etag: &str) -> bool {
    let ours = opaque(etag.as_bytes());
    trim_ows(header) == b"*" || tags(header).any(|(_, tag)| Some(tag) == ours)
}

/// The entity tags of a comma-separated list, as (weak, opaque part); the
/// list ends where it stops being well formed.
fn tags(header: &[u8]) -> impl Iterator<Item = (bool, &[u8])> {
    let mut rest = trim_ows(header);
    std::iter::from_fn(move || {
        rest = trim_ows(rest);
        if rest.is_empty() {
            return None;
        }
        let weak = rest.starts_with(b"W/");
        let tag = rest.strip_prefix(b"W/").unwrap_or(rest);
        let after_quote = tag.strip_prefix(b"\"")?;
        let end = after_quote.iter().position(|&b| b == b'"')?;
        let (candidate, after) = after_quote.split_at(end);
        let after = trim_ows(after.get(1..).unwrap_or_default());
        rest = match after.strip_prefix(b",") {
            Some(next) => next,
            None if after.is_empty() => after,
            // Malformed after this tag: this one counts, nothing after it.
            None => &[],
        };
        Some((weak, candidate))
    })
}

/// The opaque part of an entity tag (inside the quotes, `W/` dropped).
fn opaque(tag: &[u8]) -> Option<&[u8]> {
    let tag = tag.strip_prefix(b"W/").unwrap_or(tag);
    tag.strip_prefix(b"\"")?.strip_suffix(b"\"")
}

#[cfg(test)]
mod tests {
    use super::{etag_matches, etag_matches_strongly, is_unreserved};

    #[test]
    fn unreserved_bytes() {
        assert!(is_unreserved(b's') && is_unreserved(b'~'));
        assert!(!is_unreserved(b'/') && !is_unreserved(b'%'));
    }

    #[test]
    fn if_match_compares_strongly_and_if_none_match_weakly() {
        assert!(etag_matches_strongly(b"*", "\"abc\""));
        assert!(etag_matches_strongly(b"\"x\", \"abc\"", "\"abc\""));
        assert!(!etag_matches_strongly(b"W/\"abc\"", "\"abc\""));
        assert!(etag_matches(b"*", "\"abc\""));
        assert!(etag_matches(b"\"x\", W/\"abc\"", "\"abc\""));
        assert!(!etag_matches(b"\"abcd\"", "\"abc\""));
    }
}
