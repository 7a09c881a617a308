//! An axum application with routes of its own that serves the product
//! catalog too: `CatalogService` mounted in one line, at the root (every
//! path the application does not route) and under `/catalog`. Reload by
//! storing a new catalog in the `SharedCatalog` (here, on SIGHUP), or let
//! a replica keep it current from an origin ([`replicated`]).

use std::path::Path;
use std::time::Duration;

use axum::Router;
use axum::routing::get;
use foundry_catalog_serving::catalog::OpenOptions;
use foundry_catalog_serving::replica::{self, Poller, Replica, Settings};
use foundry_catalog_serving::service::{CatalogService, SharedCatalog};

/// The application: its own `/` and `/hello`, and the catalog.
pub fn app(catalog: SharedCatalog) -> Router {
    let service = CatalogService::new(catalog);
    Router::new()
        .route("/", get(|| async { "an application that also serves a product catalog\n" }))
        .route("/hello", get(|| async { "hello\n" }))
        // The product endpoint under a prefix of the application's choosing:
        // /catalog/api/public/foundry/products/{slug}.
        .nest_service("/catalog", service.clone())
        // And at the public path itself, with every other path the
        // application does not route (404 and 405 are the catalog's).
        .fallback_service(service)
}

/// A catalog pulled from the origin at `url` (signed artifacts, checked
/// with `open`'s verify keys), its state kept in `state_dir`, and kept
/// current by a poller every `interval` (stop it, or drop it, to stop
/// polling): the origin's artifact at start, or the last good one when
/// the origin is down.
pub fn replicated(
    url: &str,
    state_dir: &Path,
    open: OpenOptions,
    interval: Duration,
) -> Result<(SharedCatalog, Poller), replica::Error> {
    let replica = Replica::open(url, state_dir, Settings::default()).map_err(|message| replica::Error::Origin {
        origin: url.to_owned(),
        error: replica::PullError { failure: replica::Failure::Local, message },
    })?;
    let catalog = SharedCatalog::new(replica.start(&open)?);
    let poller = replica.keep_current(catalog.clone(), open, interval);
    Ok((catalog, poller))
}
