//! Serves `GET /api/public/foundry/products/{slug}` from pre-built bodies.
//!
//! ```text
//! cargo run --release --example serve -- [--addr 127.0.0.1:8080] [--catalog DIR]
//! ```
//!
//! Without `--catalog` it serves the catalog compiled into the library
//! (`examples/catalog/*.json`). A catalog with a bad manifest fails at start
//! with the file and the problem. All request handling is
//! `foundry_catalog::serving::respond`; this file only adapts it to axum.

use std::net::SocketAddr;
use std::process::ExitCode;
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

const USAGE: &str = "usage: serve [--addr 127.0.0.1:8080] [--catalog DIR]";

fn main() -> ExitCode {
    let mut addr: SocketAddr = SocketAddr::from(([127, 0, 0, 1], 8080));
    let mut catalog_dir = None;
    let mut args = std::env::args().skip(1);
    while let Some(arg) = args.next() {
        match (arg.as_str(), args.next()) {
            ("--addr", Some(value)) => match value.parse() {
                Ok(parsed) => addr = parsed,
                Err(e) => {
                    eprintln!("error: --addr {value:?}: {e}\n{USAGE}");
                    return ExitCode::from(2);
                }
            },
            ("--catalog", Some(value)) => catalog_dir = Some(value),
            _ => {
                eprintln!("{USAGE}");
                return ExitCode::from(2);
            }
        }
    }
    let catalog = match &catalog_dir {
        Some(dir) => ResponseCatalog::from_dir(std::path::Path::new(dir)),
        None => ResponseCatalog::embedded(),
    };
    let catalog = match catalog {
        Ok(catalog) => Arc::new(catalog),
        Err(errors) => {
            eprintln!("{errors}");
            return ExitCode::FAILURE;
        }
    };
    let runtime = match tokio::runtime::Builder::new_multi_thread().enable_io().build() {
        Ok(runtime) => runtime,
        Err(e) => {
            eprintln!("error: cannot start the runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    runtime.block_on(async move {
        let listener = match tokio::net::TcpListener::bind(addr).await {
            // Like nginx's tcp_nodelay: small responses leave at once.
            Ok(listener) => listener.tap_io(|tcp| {
                let _ = tcp.set_nodelay(true);
            }),
            Err(e) => {
                eprintln!("error: cannot listen on {addr}: {e}");
                return ExitCode::FAILURE;
            }
        };
        let local = listener.local_addr().unwrap_or(addr);
        eprintln!("serving {} products on http://{local}/api/public/foundry/products/{{slug}}", catalog.len());
        for slug in catalog.slugs() {
            eprintln!("  {slug}");
        }
        match axum::serve(listener, app(catalog)).await {
            Ok(()) => ExitCode::SUCCESS,
            Err(e) => {
                eprintln!("error: {e}");
                ExitCode::FAILURE
            }
        }
    })
}
