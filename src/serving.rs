//! Answering `GET /api/public/foundry/products/{slug}` from a
//! [`ResponseCatalog`], independent of any HTTP framework: a request's
//! method, raw path and `If-None-Match` header in, a [`Reply`] out. An HTTP
//! server only copies the reply into its own response type (see the
//! `foundry-catalog-server` crate).
//!
//! | request | reply |
//! |---|---|
//! | `GET` a known slug | 200, `application/json`, body, `ETag`, `Cache-Control` |
//! | `If-None-Match` matching the ETag (weak comparison, `*`, lists) | 304, no body |
//! | `HEAD` | as `GET`, without the body |
//! | an unknown slug | 404 `not_found` |
//! | a malformed slug (uppercase, `..`, `%2F`, `%00`, over 200 bytes, empty) | 400 `invalid_slug` |
//! | another method on the product path | 405 `method_not_allowed`, `Allow: GET, HEAD` |
//! | any other path | 404 `not_found` |
//!
//! Error bodies are `{"error": {"status": …, "code": …, "message": …}}`
//! with fixed messages: nothing from the request is echoed.

use bytes::Bytes;

use crate::catalog::ResponseCatalog;
use crate::product::API_PATH_PREFIX;

/// `Cache-Control` of product responses.
pub const CACHE_CONTROL: &str = "public, max-age=300";

/// The methods the product path allows.
pub const ALLOW: &str = "GET, HEAD";

/// What to answer.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Reply {
    /// HTTP status code.
    pub status: u16,
    /// `Content-Type`, when the reply has a representation.
    pub content_type: Option<&'static str>,
    /// `ETag` of the representation (shared bytes, ASCII).
    pub etag: Option<Bytes>,
    /// `Cache-Control`.
    pub cache_control: Option<&'static str>,
    /// `Allow`, on 405.
    pub allow: Option<&'static str>,
    /// `Content-Length` of the representation (also for `HEAD`).
    pub content_length: usize,
    /// The bytes to send: empty for `HEAD` and 304.
    pub body: Bytes,
}

impl Reply {
    fn error(status: u16, code: &str, message: &str, head: bool) -> Reply {
        let body = serde_json::json!({"error": {"status": status, "code": code, "message": message}}).to_string();
        let content_length = body.len();
        Reply {
            status,
            content_type: Some("application/json"),
            etag: None,
            cache_control: Some("no-store"),
            allow: (status == 405).then_some(ALLOW),
            content_length,
            body: if head { Bytes::new() } else { Bytes::from(body) },
        }
    }
}

/// The reply to one request. `path` is the request target's path as
/// received (still percent-encoded, without the query); `if_none_match` is
/// the raw header value, if any.
///
/// ```
/// use foundry_catalog::{catalog::ResponseCatalog, serving::respond};
/// let catalog = ResponseCatalog::embedded().unwrap();
/// let ok = respond(&catalog, "GET", "/api/public/foundry/products/crm-webhook-connector", None);
/// assert_eq!(ok.status, 200);
/// let etag = ok.etag.unwrap();
/// let cached = respond(&catalog, "GET", "/api/public/foundry/products/crm-webhook-connector", Some(&etag));
/// assert_eq!((cached.status, cached.body.len()), (304, 0));
/// assert_eq!(respond(&catalog, "GET", "/api/public/foundry/products/Nope", None).status, 400);
/// ```
pub fn respond(catalog: &ResponseCatalog, method: &str, path: &str, if_none_match: Option<&[u8]>) -> Reply {
    let head = method == "HEAD";
    let Some(slug) = path.strip_prefix(API_PATH_PREFIX) else {
        return Reply::error(404, "not_found", "no resource at this path", head);
    };
    if slug.contains('/') {
        return Reply::error(404, "not_found", "no resource at this path", head);
    }
    if method != "GET" && !head {
        return Reply::error(405, "method_not_allowed", "only GET and HEAD are allowed here", false);
    }
    if crate::Slug::new(slug).is_err() {
        return Reply::error(
            400,
            "invalid_slug",
            "a slug is lowercase letters and digits joined by single hyphens, at most 200 bytes",
            head,
        );
    }
    let Some(entry) = catalog.get(slug) else {
        return Reply::error(404, "not_found", "no product with this slug", head);
    };
    let etag = entry.etag_bytes();
    let body = entry.body();
    let content_length = body.len();
    if if_none_match.is_some_and(|header| etag_matches(header, entry.etag())) {
        return Reply {
            status: 304,
            content_type: None,
            etag: Some(etag),
            cache_control: Some(CACHE_CONTROL),
            allow: None,
            content_length: 0,
            body: Bytes::new(),
        };
    }
    Reply {
        status: 200,
        content_type: Some("application/json"),
        etag: Some(etag),
        cache_control: Some(CACHE_CONTROL),
        allow: None,
        content_length,
        body: if head { Bytes::new() } else { body },
    }
}

/// Whether an `If-None-Match` header value matches `etag` (RFC 9110
/// §13.1.2): `*` matches any current representation; otherwise the value
/// is a comma-separated list of entity tags, compared weakly (a `W/`
/// prefix on either side is ignored). A malformed list matches nothing
/// after the point where it breaks.
///
/// ```
/// use foundry_catalog::serving::etag_matches;
/// assert!(etag_matches(b"*", "\"abc\""));
/// assert!(etag_matches(b"\"x\", W/\"abc\"", "\"abc\""));
/// assert!(!etag_matches(b"\"abcd\"", "\"abc\""));
/// ```
pub fn etag_matches(header: &[u8], etag: &str) -> bool {
    let ours = opaque(etag.as_bytes());
    let mut rest = trim(header);
    if rest == b"*" {
        return true;
    }
    while !rest.is_empty() {
        rest = trim(rest);
        let tag = rest.strip_prefix(b"W/").unwrap_or(rest);
        let Some(after_quote) = tag.strip_prefix(b"\"") else { return false };
        let Some(end) = after_quote.iter().position(|&b| b == b'"') else { return false };
        let (candidate, after) = after_quote.split_at(end);
        if Some(candidate) == ours {
            return true;
        }
        rest = trim(after.get(1..).unwrap_or_default());
        match rest.strip_prefix(b",") {
            Some(next) => rest = next,
            None if rest.is_empty() => {}
            None => return false,
        }
    }
    false
}

/// The opaque part of an entity tag (inside the quotes, `W/` dropped).
fn opaque(tag: &[u8]) -> Option<&[u8]> {
    let tag = tag.strip_prefix(b"W/").unwrap_or(tag);
    tag.strip_prefix(b"\"")?.strip_suffix(b"\"")
}

fn trim(bytes: &[u8]) -> &[u8] {
    let start = bytes.iter().position(|b| !matches!(b, b' ' | b'\t')).unwrap_or(bytes.len());
    let end = bytes.iter().rposition(|b| !matches!(b, b' ' | b'\t')).map_or(start, |i| i + 1);
    bytes.get(start..end).unwrap_or_default()
}
