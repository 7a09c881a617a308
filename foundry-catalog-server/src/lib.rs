//! # foundry-catalog-server
//!
//! Serves `GET /api/public/foundry/products/{slug}` from a
//! [`ResponseCatalog`] of pre-built bodies over HTTP/1.1. All request
//! handling is [`foundry_catalog::serving::respond`]; this crate only
//! adapts it to axum and runs the listener. `foundry-catalog serve` is its
//! command-line front end.
//!
//! Its public API: [`app`] (the axum router, for embedding in a server of
//! your own) and [`serve`] (bind, log the address, serve until the
//! process ends).

#![forbid(unsafe_code)]
#![warn(missing_docs)]

use std::net::SocketAddr;
use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, HeaderValue, Method, Response, StatusCode, Uri, header};
use axum::serve::{Listener, ListenerExt};
use foundry_catalog::catalog::ResponseCatalog;
use foundry_catalog::serving::respond;

/// The server: one fallback handler, so every path and method reaches
/// `respond` (which owns 404 and 405).
pub fn app(catalog: Arc<ResponseCatalog>) -> Router {
    Router::new().fallback(handle).with_state(catalog)
}

async fn handle(
    State(catalog): State<Arc<ResponseCatalog>>,
    method: Method,
    uri: Uri,
    headers: HeaderMap,
) -> Response<Body> {
    let if_none_match = headers.get(header::IF_NONE_MATCH).map(|v| v.as_bytes());
    let reply = respond(&catalog, method.as_str(), uri.path(), if_none_match);
    let mut response = Response::new(Body::from(reply.body));
    *response.status_mut() = StatusCode::from_u16(reply.status).unwrap_or(StatusCode::NOT_FOUND);
    let headers = response.headers_mut();
    // Constant values are static and the ETag is shared bytes: no copies per request.
    if let Some(content_type) = reply.content_type {
        headers.insert(header::CONTENT_TYPE, HeaderValue::from_static(content_type));
    }
    if let Some(etag) = reply.etag.and_then(|etag| HeaderValue::from_maybe_shared(etag).ok()) {
        headers.insert(header::ETAG, etag);
    }
    if let Some(cache_control) = reply.cache_control {
        headers.insert(header::CACHE_CONTROL, HeaderValue::from_static(cache_control));
    }
    if let Some(allow) = reply.allow {
        headers.insert(header::ALLOW, HeaderValue::from_static(allow));
    }
    if reply.status != 304 {
        headers.insert(header::CONTENT_LENGTH, HeaderValue::from(reply.content_length));
    }
    response
}

/// Binds `addr` and serves `catalog` until the process ends, on a
/// multi-threaded tokio runtime. Logs the bound address to stderr.
///
/// Errors: the runtime cannot start, the address cannot be bound, or the
/// server stops with an I/O error.
pub fn serve(addr: SocketAddr, catalog: Arc<ResponseCatalog>) -> std::io::Result<()> {
    let runtime = tokio::runtime::Builder::new_multi_thread().enable_io().build()?;
    runtime.block_on(async move {
        // Like nginx's tcp_nodelay: small responses leave at once.
        let listener = tokio::net::TcpListener::bind(addr).await?.tap_io(|tcp| {
            let _ = tcp.set_nodelay(true);
        });
        let local = listener.local_addr().unwrap_or(addr);
        eprintln!("serving {} products on http://{local}/api/public/foundry/products/{{slug}}", catalog.len());
        axum::serve(listener, app(catalog)).await
    })
}
