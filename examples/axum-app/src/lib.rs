//! An axum application with routes of its own that serves the product
//! catalog too: `CatalogService` mounted in one line, at the root (every
//! path the application does not route) and under `/catalog`. Reload by
//! storing a new catalog in the `SharedCatalog` (here, on SIGHUP).

use axum::Router;
use axum::routing::get;
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
