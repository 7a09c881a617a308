//! One request in, one response out: the operations endpoints, and the
//! product path through `foundry_catalog_serving::service::respond`.
//!
//! | path | answer |
//! |---|---|
//! | `/healthz` | 200 while the process runs (liveness) |
//! | `/readyz` | 200 while serving, 503 once draining (readiness) |
//! | `/metrics` | the counters, Prometheus text format |
//! | `/openapi.json` | the OpenAPI 3.1 document of the product path |
//! | anything else | `respond` (the product path; the product pages, `/robots.txt` and `/sitemap.xml` of a catalog with pages; 404 elsewhere); an HTTP/1.1 request without exactly one valid `Host` gets 400 `bad_host` |
//!
//! The operations endpoints sit outside `/api/public/foundry/products/`,
//! so no product slug can ever reach or shadow them.

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
        "/readyz" => {
            let (status, text): (_, &'static [u8]) = if state.draining() {
                (StatusCode::SERVICE_UNAVAILABLE, b"draining\n")
            } else if state.expired() {
                (StatusCode::SERVICE_UNAVAILABLE, b"expired: the catalog being served is past its expiry\n")
            } else {
                (StatusCode::OK, b"ready\n")
            };
            ops(method, status, "text/plain; charset=utf-8", Bytes::from_static(text))
        }
        "/openapi.json" => ops(method, StatusCode::OK, "application/json", state.openapi()),
        "/metrics" => ops(
            method,
            StatusCode::OK,
            "text/plain; version=0.0.4; charset=utf-8",
            state
                .metrics
                .render(
                    &state.catalog.load(),
                    state.activated(),
                    state.replica.verified,
                    state.replica.origin.as_ref().map(foundry_catalog_serving::replica::Replica::counters),
                )
                .into(),
        ),
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
    let nosniff = HeaderValue::from_static(foundry_catalog_serving::service::NOSNIFF);
    if method != Method::GET && method != Method::HEAD {
        let mut response = Response::new(Full::new(Bytes::new()));
        *response.status_mut() = StatusCode::METHOD_NOT_ALLOWED;
        response.headers_mut().insert(header::ALLOW, HeaderValue::from_static("GET, HEAD"));
        response.headers_mut().insert(header::CONTENT_LENGTH, HeaderValue::from(0));
        response.headers_mut().insert(header::X_CONTENT_TYPE_OPTIONS, nosniff);
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
    headers.insert(header::X_CONTENT_TYPE_OPTIONS, nosniff);
    (response, sent)
}

/// The product path: `foundry_catalog_serving::service::respond`, the same answer
/// an axum or hyper application gets from its `CatalogService`. Returns
/// the response and the body bytes it sends.
fn product<B>(state: &State, request: &Request<B>) -> (Response<Full<Bytes>>, usize) {
    let response = foundry_catalog_serving::service::respond(&state.catalog.load(), request);
    // 503: a stored body failed its check.
    if response.status() == StatusCode::SERVICE_UNAVAILABLE {
        state.body_failed(request.uri().path());
    }
    let sent =
        usize::try_from(hyper::body::Body::size_hint(response.body()).exact().unwrap_or(0)).unwrap_or(usize::MAX);
    (response, sent)
}
