//! One request in, one response out: the operations endpoints, and the
//! product path through `foundry_catalog::serving::respond`.
//!
//! | path | answer |
//! |---|---|
//! | `/healthz` | 200 while the process runs (liveness) |
//! | `/readyz` | 200 while serving, 503 once draining (readiness) |
//! | `/metrics` | the counters, Prometheus text format |
//! | `/openapi.json` | the OpenAPI 3.1 document of the product path |
//! | anything else | `respond` (the product path, 404 elsewhere); an HTTP/1.1 request without exactly one valid `Host` gets 400 `bad_host` |
//!
//! The operations endpoints sit outside `/api/public/foundry/products/`,
//! so no product slug can ever reach or shadow them.

use std::borrow::Cow;
use std::time::Instant;

use bytes::Bytes;
use http_body_util::Full;
use hyper::header::{self, HeaderValue};
use hyper::{Method, Request, Response, StatusCode};
use tracing::info;

use crate::state::State;

pub(crate) fn handle<B>(state: &State, request: &Request<B>) -> Response<Full<Bytes>> {
    // The clock is read only when the access log is on.
    let started = tracing::enabled!(target: "access", tracing::Level::INFO).then(Instant::now);
    let method = request.method();
    let path = request.uri().path();
    let (response, bytes) = match path {
        "/healthz" => ops(method, StatusCode::OK, "text/plain; charset=utf-8", Bytes::from_static(b"ok\n")),
        "/readyz" if state.is_ready() => {
            ops(method, StatusCode::OK, "text/plain; charset=utf-8", Bytes::from_static(b"ready\n"))
        }
        "/readyz" => {
            ops(method, StatusCode::SERVICE_UNAVAILABLE, "text/plain; charset=utf-8", Bytes::from_static(b"draining\n"))
        }
        "/openapi.json" => ops(method, StatusCode::OK, "application/json", state.openapi.clone()),
        "/metrics" => {
            ops(method, StatusCode::OK, "text/plain; version=0.0.4; charset=utf-8", state.metrics.render().into())
        }
        _ => product(state, request),
    };
    state.metrics.count_request(response.status().as_u16(), bytes);
    if let Some(started) = started {
        info!(
            target: "access",
            method = %method,
            path,
            status = response.status().as_u16(),
            bytes,
            micros = u64::try_from(started.elapsed().as_micros()).unwrap_or(u64::MAX),
            encoding = response.headers().get(header::CONTENT_ENCODING).and_then(|v| v.to_str().ok()).unwrap_or("identity"),
        );
    }
    response
}

/// An operations endpoint: GET and HEAD only, never cached. Returns the
/// response and the body bytes it sends.
fn ops(method: &Method, status: StatusCode, content_type: &'static str, body: Bytes) -> (Response<Full<Bytes>>, usize) {
    if method != Method::GET && method != Method::HEAD {
        let mut response = Response::new(Full::new(Bytes::new()));
        *response.status_mut() = StatusCode::METHOD_NOT_ALLOWED;
        response.headers_mut().insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        response.headers_mut().insert(header::CONTENT_LENGTH, HeaderValue::from(0));
        return (response, 0);
    }
    let length = body.len();
    let body = if method == Method::HEAD { Bytes::new() } else { body };
    let sent = body.len();
    let mut response = Response::new(Full::new(body));
    *response.status_mut() = status;
    let headers = response.headers_mut();
    headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    headers.insert(header::CACHE_CONTROL, HeaderValue::from_static("no-store"));
    headers.insert(header::CONTENT_LENGTH, HeaderValue::from(length));
    (response, sent)
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
    fn list(&self, headers: &'a hyper::HeaderMap, name: header::HeaderName) -> Option<Cow<'a, [u8]>> {
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
    fn scan(headers: &'a hyper::HeaderMap) -> Self {
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
    fn host_is_valid(&self, version: hyper::Version) -> bool {
        version != hyper::Version::HTTP_11
            || (!self.host.more
                && self.host.first.is_some_and(|host| foundry_catalog::serving::is_host(host.as_bytes())))
    }
}

/// The product path, through `foundry_catalog::serving::respond`. Returns
/// the response and the body bytes it sends.
fn product<B>(state: &State, request: &Request<B>) -> (Response<Full<Bytes>>, usize) {
    let head = request.method() == Method::HEAD;
    let headers = request.headers();
    let wanted = Wanted::scan(headers);
    let reply = if wanted.host_is_valid(request.version()) {
        let if_match = wanted.if_match.list(headers, header::IF_MATCH);
        let if_none_match = wanted.if_none_match.list(headers, header::IF_NONE_MATCH);
        let accept_encoding = wanted.accept_encoding.list(headers, header::ACCEPT_ENCODING);
        let catalog = state.catalog.load();
        foundry_catalog::serving::respond(
            &catalog,
            &foundry_catalog::serving::Request {
                method: request.method().as_str(),
                path: request.uri().path(),
                if_match: if_match.as_deref(),
                if_none_match: if_none_match.as_deref(),
                if_modified_since: wanted.if_modified_since.first.map(HeaderValue::as_bytes),
                accept_encoding: accept_encoding.as_deref(),
            },
        )
    } else {
        foundry_catalog::serving::Reply::error(foundry_catalog::serving::ErrorKind::BadHost, head)
    };
    let sent = reply.body.len();
    let mut response = Response::new(Full::new(reply.body));
    *response.status_mut() = StatusCode::from_u16(reply.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR);
    let headers = response.headers_mut();
    // Room for every header at once: no growth while inserting.
    headers.reserve(8);
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
    for (name, value) in [(header::ETAG, reply.etag), (header::LAST_MODIFIED, reply.last_modified)] {
        if let Some(value) = value.and_then(|bytes| HeaderValue::from_maybe_shared(bytes).ok()) {
            headers.insert(name, value);
        }
    }
    // hyper writes `Content-Length` from the body's exact length, straight
    // into its buffer; it is set here only where the body is not sent (HEAD).
    if reply.status != 304 && sent != reply.content_length {
        headers.insert(header::CONTENT_LENGTH, HeaderValue::from(reply.content_length));
    }
    (response, sent)
}
