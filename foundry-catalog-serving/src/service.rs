//! The product endpoint for any server built on the `http` crate's types
//! (feature `http`): [`CatalogService`], a `tower::Service` an axum or
//! hyper application mounts in one line, and [`respond`], the same
//! answer as a function. Both answer exactly as `foundry-catalog serve`
//! does (the server calls [`respond`] too): [`crate::endpoint::answer`]'s rules,
//! every line of a repeated header read as one list, and the HTTP/1.1
//! `Host` check (400 `bad_host`).
//!
//! The catalog is a [`SharedCatalog`]: the application keeps a clone and
//! [`SharedCatalog::store`]s a new catalog to reload without a restart;
//! each request sees the old catalog or the new one, never a mix.
//!
//! # Mounting it in axum 0.8
//!
//! Every method reaches the service, so 405 and its `Allow` are the
//! catalog's own. Three ways, each tested in `examples/axum-app`:
//!
//! ```text
//! Router::new().fallback_service(service)            // at the root: every path the application does not route
//! Router::new().nest_service("/catalog", service)    // under a prefix: /catalog/api/public/foundry/products/{slug}
//! Router::new().route_service("/api/public/foundry/products/{slug}", service)
//! ```
//!
//! - **At the root**, use `fallback_service`: axum 0.8 panics on
//!   `nest_service("/", …)` ("Nesting at the root is no longer
//!   supported. Use fallback_service instead."). `nest_service` strips its prefix before the service sees
//!   the path.
//! - **`route_service` with `{slug}`** never matches an empty slug:
//!   `/api/public/foundry/products/` is answered by axum (404, no body),
//!   not by the catalog (400 `invalid_slug` with its JSON error body).
//!   Mount with `fallback_service` or `nest_service` where every answer
//!   must be the catalog's.
//! - **The `Host` check.** An HTTP/1.1 request without exactly one valid
//!   `Host` is answered 400 `bad_host`, as RFC 9112 requires. A request
//!   built in process (`Request::get(path).body(…)`, as an axum test
//!   passes to `tower::ServiceExt::oneshot`) is HTTP/1.1 with no `Host`:
//!   add `.header("host", "…")` in such tests. (HTTP/2 requests carry
//!   `:authority` instead and are not checked.)
//! - **Reloading.** [`ResponseCatalog::open`] reads and checks a whole
//!   file, and building one compresses every body: seconds of blocking
//!   work for a large catalog. Do it off the async threads
//!   (`tokio::task::spawn_blocking`, or a thread of its own), then
//!   [`SharedCatalog::store`] the result; requests in flight keep the
//!   catalog they started with.
//!
//! # A bare hyper server
//!
//! A hyper 1 connection takes the service through
//! `hyper_util::service::TowerToHyperService`; that needs `hyper` with the
//! `server` and `http1` (or `http2`) features (`hyper::server::conn`) and
//! `hyper-util` with `tokio` (for `TokioIo`) and `service` (for
//! `TowerToHyperService`). `foundry-catalog-server`
//! is such a server, with timeouts, limits and drain.
//!
//! # Called directly
//!
//! ```
//! use foundry_catalog_serving::catalog::ResponseCatalog;
//! use foundry_catalog_serving::service::{CatalogService, SharedCatalog};
//! use tower_service::Service;
//! let catalog = SharedCatalog::new(ResponseCatalog::examples());
//! let mut service = CatalogService::new(catalog.clone());
//! let get = |path: &str| http::Request::get(path).header("host", "catalog.example").body(()).unwrap();
//! let path = "/api/public/foundry/products/crm-webhook-connector";
//! let response = service.call(get(path)).into_inner().unwrap();
//! assert_eq!(response.status(), 200);
//! let delete = http::Request::delete(path).header("host", "x").body(()).unwrap();
//! let refused = service.call(delete).into_inner().unwrap();
//! assert_eq!(refused.status(), 405);
//! assert_eq!(refused.headers()["allow"], "GET, HEAD");
//!
//! // A reload: every request after this sees the new catalog.
//! catalog.store(ResponseCatalog::examples());
//! assert_eq!(service.call(get(path)).into_inner().unwrap().status(), 200);
//! ```

use std::borrow::Cow;
use std::convert::Infallible;
use std::sync::Arc;
use std::task::{Context, Poll};

use arc_swap::ArcSwap;
use bytes::Bytes;
use http::header::{self, HeaderMap, HeaderName, HeaderValue};
use http::{Method, StatusCode, Version};
use http_body_util::Full;

use crate::catalog::ResponseCatalog;
use crate::endpoint::{self, Reply};
use foundry_catalog::response::ErrorKind;

/// A catalog that can be replaced while it is served: cheap to clone
/// (every clone is the same catalog), and [`store`](Self::store) swaps a
/// new one in atomically.
#[derive(Debug, Clone)]
pub struct SharedCatalog(Arc<ArcSwap<ResponseCatalog>>);

impl SharedCatalog {
    /// Serves `catalog`.
    pub fn new(catalog: ResponseCatalog) -> Self {
        SharedCatalog(Arc::new(ArcSwap::from_pointee(catalog)))
    }

    /// The catalog being served now (it stays valid after a
    /// [`store`](Self::store); hold it for one request, not longer).
    pub fn load(&self) -> impl std::ops::Deref<Target = Arc<ResponseCatalog>> {
        self.0.load()
    }

    /// Serves `catalog` from the next request on.
    pub fn store(&self, catalog: ResponseCatalog) {
        self.0.store(Arc::new(catalog));
    }
}

impl From<ResponseCatalog> for SharedCatalog {
    fn from(catalog: ResponseCatalog) -> Self {
        SharedCatalog::new(catalog)
    }
}

/// `GET /api/public/foundry/products/{slug}` as a
/// `tower::Service<http::Request<B>>` for any request body `B` (never
/// read); it is always ready and never fails.
#[derive(Debug, Clone)]
pub struct CatalogService {
    catalog: SharedCatalog,
}

impl CatalogService {
    /// Serves `catalog` (a [`SharedCatalog`], or a [`ResponseCatalog`]).
    pub fn new(catalog: impl Into<SharedCatalog>) -> Self {
        CatalogService { catalog: catalog.into() }
    }

    /// The catalog it serves, to [`store`](SharedCatalog::store) a new one.
    pub fn catalog(&self) -> &SharedCatalog {
        &self.catalog
    }
}

impl<B> tower_service::Service<http::Request<B>> for CatalogService {
    type Response = http::Response<Full<Bytes>>;
    type Error = Infallible;
    type Future = std::future::Ready<Result<Self::Response, Infallible>>;

    fn poll_ready(&mut self, _: &mut Context<'_>) -> Poll<Result<(), Infallible>> {
        Poll::Ready(Ok(()))
    }

    fn call(&mut self, request: http::Request<B>) -> Self::Future {
        std::future::ready(Ok(respond(&self.catalog.load(), &request)))
    }
}

/// The answer to `request` from `catalog`: the product path (and the
/// pages of a catalog with pages; any other path is 404), with the
/// HTTP/1.1 `Host` check.
///
/// ```
/// use foundry_catalog_serving::{catalog::ResponseCatalog, service::respond};
/// let catalog = ResponseCatalog::examples();
/// let request = http::Request::get("/api/public/foundry/products/crm-webhook-connector")
///     .header("host", "catalog.example")
///     .header("accept-encoding", "gzip")
///     .body(())
///     .unwrap();
/// let response = respond(&catalog, &request);
/// assert_eq!(response.status(), 200);
/// assert_eq!(response.headers()["content-encoding"], "gzip");
/// assert_eq!(response.headers()["vary"], "Accept-Encoding");
/// ```
pub fn respond<B>(catalog: &ResponseCatalog, request: &http::Request<B>) -> http::Response<Full<Bytes>> {
    let headers = request.headers();
    let wanted = Wanted::scan(headers);
    let reply = if wanted.host_is_valid(request.version()) {
        let if_match = wanted.if_match.list(headers, header::IF_MATCH);
        let if_none_match = wanted.if_none_match.list(headers, header::IF_NONE_MATCH);
        let accept_encoding = wanted.accept_encoding.list(headers, header::ACCEPT_ENCODING);
        endpoint::answer(
            catalog,
            &endpoint::Request {
                method: request.method().as_str(),
                path: request.uri().path(),
                query: request.uri().query(),
                if_match: if_match.as_deref(),
                if_none_match: if_none_match.as_deref(),
                if_modified_since: wanted.if_modified_since.first.map(HeaderValue::as_bytes),
                accept_encoding: accept_encoding.as_deref(),
            },
        )
    } else {
        Reply::error(ErrorKind::BadHost, request.method() == Method::HEAD)
    };
    response(reply)
}

/// `X-Content-Type-Options` of every answer.
pub const NOSNIFF: &str = "nosniff";

/// `Content-Security-Policy` of every answer: nothing loads but the
/// page's own inline stylesheet and the site's images (the icon), and
/// only the site's own files may be fetched from inside a page (as
/// Lighthouse reads `robots.txt`); no script runs (the JSON-LD is data,
/// not run), a form is sent to the site only (the search form), no
/// `<base>` moves links, and no other site frames a page. Styles are allowed
/// inline, as the default layout inlines its stylesheet for the first
/// paint and a team's templates may change it; autoescaping keeps a
/// record's text out of it.
pub const CONTENT_SECURITY_POLICY: &str = "default-src 'none'; style-src 'unsafe-inline'; img-src 'self'; connect-src 'self'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";

/// `Referrer-Policy` of every answer: a link to a marketplace tells it
/// the site's origin, never the page's path.
pub const REFERRER_POLICY: &str = "strict-origin-when-cross-origin";

/// `reply` as an `http` response.
fn response(reply: Reply) -> http::Response<Full<Bytes>> {
    let sent = reply.body.len();
    let mut response = http::Response::new(Full::new(reply.body));
    *response.status_mut() = StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let headers = response.headers_mut();
    // Room for every header at once: no growth while inserting.
    headers.reserve(12);
    // Every answer is the type it says it is: never sniffed as another;
    // and runs nothing, nor is framed, nor leaks its path onward.
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, HeaderValue::from_static(NOSNIFF));
    headers.insert(header::CONTENT_SECURITY_POLICY, HeaderValue::from_static(CONTENT_SECURITY_POLICY));
    headers.insert(header::REFERRER_POLICY, HeaderValue::from_static(REFERRER_POLICY));
    // Constant values are static, the ETag and date shared bytes: no copies per request.
    let constant = [
        (header::CONTENT_TYPE, reply.content_type),
        (header::CONTENT_ENCODING, reply.content_encoding),
        (header::VARY, reply.vary),
        (header::CACHE_CONTROL, reply.cache_control),
        (header::ALLOW, reply.allow),
    ];
    for (name, value) in constant {
        if let Some(value) = value {
            headers.insert(name, HeaderValue::from_static(value));
        }
    }
    let shared =
        [(header::ETAG, reply.etag), (header::LAST_MODIFIED, reply.last_modified), (header::LOCATION, reply.location)];
    for (name, value) in shared {
        if let Some(value) = value.and_then(|bytes| HeaderValue::from_maybe_shared(bytes).ok()) {
            headers.insert(name, value);
        }
    }
    // A server writes `Content-Length` from the body's exact length; it is
    // set here only where the body is not sent (HEAD).
    if reply.status != 304 && sent != reply.content_length {
        headers.insert(header::CONTENT_LENGTH, HeaderValue::from(reply.content_length));
    }
    response
}

/// One request header as the product path reads it: its first line, and
/// whether it has more.
#[derive(Default)]
struct Lines<'a> {
    first: Option<&'a HeaderValue>,
    more: bool,
}

impl<'a> Lines<'a> {
    fn add(&mut self, value: &'a HeaderValue) {
        if self.first.is_none() {
            self.first = Some(value);
        } else {
            self.more = true;
        }
    }

    /// The lines as one comma-separated list (RFC 9110 §5.3); one line is
    /// borrowed as it is.
    fn list(&self, headers: &'a HeaderMap, name: HeaderName) -> Option<Cow<'a, [u8]>> {
        let first = self.first?;
        if !self.more {
            return Some(Cow::Borrowed(first.as_bytes()));
        }
        let mut joined = Vec::new();
        for line in headers.get_all(name) {
            if !joined.is_empty() {
                joined.extend_from_slice(b", ");
            }
            joined.extend_from_slice(line.as_bytes());
        }
        Some(Cow::Owned(joined))
    }
}

/// The request headers the product path reads, found in one pass over
/// the request's headers (no lookup by name, which hashes it).
#[derive(Default)]
struct Wanted<'a> {
    host: Lines<'a>,
    if_match: Lines<'a>,
    if_none_match: Lines<'a>,
    if_modified_since: Lines<'a>,
    accept_encoding: Lines<'a>,
}

impl<'a> Wanted<'a> {
    fn scan(headers: &'a HeaderMap) -> Self {
        let mut wanted = Wanted::default();
        for (name, value) in headers {
            let lines = if name == header::HOST {
                &mut wanted.host
            } else if name == header::ACCEPT_ENCODING {
                &mut wanted.accept_encoding
            } else if name == header::IF_NONE_MATCH {
                &mut wanted.if_none_match
            } else if name == header::IF_MATCH {
                &mut wanted.if_match
            } else if name == header::IF_MODIFIED_SINCE {
                &mut wanted.if_modified_since
            } else {
                continue;
            };
            lines.add(value);
        }
        wanted
    }

    /// Whether an HTTP/1.1 request has exactly one valid `Host` (RFC 9112
    /// §3.2): an authority without user information.
    fn host_is_valid(&self, version: Version) -> bool {
        version != Version::HTTP_11 || (!self.host.more && self.host.first.is_some_and(|host| is_host(host.as_bytes())))
    }
}

/// `uri-host [ ":" port ]` (RFC 9110 §7.2, RFC 3986 §3.2.2–3.2.3): a
/// bracketed IP literal, or a registered name or IPv4 address (unreserved
/// characters, sub-delims and percent-encodings), then an optional port
/// of digits, without user information. Checked in place: no allocation
/// per request. An HTTP/1.1 request needs exactly one `Host` that is one
/// (RFC 9112 §3.2); otherwise the answer is `bad_host`.
fn is_host(host: &[u8]) -> bool {
    let (name_ok, rest) = match host.strip_prefix(b"[") {
        Some(literal) => match literal.iter().position(|&b| b == b']') {
            Some(end) => {
                let inside = &literal[..end];
                let ok = !inside.is_empty() && inside.iter().all(|&b| b == b':' || is_unreserved_or_sub_delim(b));
                (ok, &literal[end + 1..])
            }
            None => (false, &[][..]),
        },
        None => {
            let end = host.iter().position(|&b| b == b':').unwrap_or(host.len());
            (!host[..end].is_empty() && is_reg_name(&host[..end]), &host[end..])
        }
    };
    name_ok
        && match rest.split_first() {
            None => true,
            Some((b':', port)) => port.iter().all(u8::is_ascii_digit),
            Some(_) => false,
        }
}

/// `*( unreserved / pct-encoded / sub-delims )` (RFC 3986 §3.2.2).
fn is_reg_name(name: &[u8]) -> bool {
    let mut bytes = name.iter();
    while let Some(&b) = bytes.next() {
        let ok = if b == b'%' {
            matches!((bytes.next(), bytes.next()), (Some(h), Some(l)) if h.is_ascii_hexdigit() && l.is_ascii_hexdigit())
        } else {
            is_unreserved_or_sub_delim(b)
        };
        if !ok {
            return false;
        }
    }
    true
}

/// RFC 3986's `unreserved` and `sub-delims`.
fn is_unreserved_or_sub_delim(b: u8) -> bool {
    UNRESERVED_OR_SUB_DELIM[usize::from(b)]
}

/// [`is_unreserved_or_sub_delim`] for every byte, worked out at compile time.
static UNRESERVED_OR_SUB_DELIM: [bool; 256] = {
    let mut table = [false; 256];
    let mut b = 0;
    while b < 256 {
        #[allow(clippy::cast_possible_truncation)] // b < 256
        let byte = b as u8;
        table[b] = endpoint::is_unreserved(byte)
            || matches!(byte, b'!' | b'$' | b'&' | b'\'' | b'(' | b')' | b'*' | b'+' | b',' | b';' | b'=');
        b += 1;
    }
    table
};

#[cfg(test)]
mod tests {
    use super::is_host;

    #[test]
    fn hosts_are_checked_as_rfc_3986_authorities_without_user_information() {
        let valid: &[&[u8]] = &[
            b"x",
            b"catalog.example",
            b"catalog.example:8080",
            b"catalog.example:",
            b"127.0.0.1:80",
            b"[::1]",
            b"[::1]:8080",
            b"[v1.fe80::a+en1]",
            b"xn--bcher-kva.example",
            b"a%2Db",
            b"a!$&'()*+,;=~_-.b",
        ];
        for host in valid {
            assert!(is_host(host), "{}", String::from_utf8_lossy(host));
        }
        let invalid: &[&[u8]] = &[
            b"",
            b"user@x",
            b"x:y",
            b"x:80:81",
            b"x y",
            b"x/y",
            b"x?y",
            b"x#y",
            b"a%2",
            b"a%zz",
            b"[::1",
            b"[]",
            b"[::1]x",
            b"[::1]:a",
            b":80",
            b"\xff",
            "h\u{e9}".as_bytes(),
        ];
        for host in invalid {
            assert!(!is_host(host), "{}", String::from_utf8_lossy(host));
        }
    }
}
