//! What every connection shares: the catalog being served (swapped whole
//! on reload), readiness, and the metrics.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use foundry_catalog_serving::catalog::ResponseCatalog;
use foundry_catalog_serving::service::SharedCatalog;

use crate::load::Replica;
use crate::metrics::Metrics;

/// Seconds since 1970, now.
pub(crate) fn now_seconds() -> u64 {
    std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs())
}

#[derive(Debug)]
pub(crate) struct State {
    /// The catalog; a reload stores a new one atomically, so a request
    /// sees either the old catalog or the new one, never a mix.
    pub(crate) catalog: SharedCatalog,
    /// False once draining has begun: `/readyz` answers 503.
    ready: AtomicBool,
    pub(crate) metrics: Metrics,
    /// The OpenAPI document, served at `/openapi.json`.
    pub(crate) openapi: bytes::Bytes,
    /// The highest artifact sequence served, and the origin.
    pub(crate) replica: Replica,
    /// When the catalog being served was swapped in, in seconds since 1970.
    activated: AtomicU64,
}

impl State {
    pub(crate) fn new(catalog: ResponseCatalog, replica: Replica) -> Arc<State> {
        let openapi = serde_json::to_vec_pretty(&foundry_catalog::json_schema::openapi()).unwrap_or_default();
        let state = State {
            catalog: SharedCatalog::new(catalog),
            ready: AtomicBool::new(true),
            metrics: Metrics::default(),
            openapi: openapi.into(),
            replica,
            activated: AtomicU64::new(0),
        };
        state.metrics.started();
        state.counted(&state.catalog.load());
        state.metrics.catalog_generation.store(1, Ordering::Relaxed);
        Arc::new(state)
    }

    /// Serves `catalog` from now on; returns the new generation.
    pub(crate) fn replace(&self, catalog: ResponseCatalog) -> u64 {
        self.counted(&catalog);
        self.catalog.store(catalog);
        self.metrics.catalog_generation.fetch_add(1, Ordering::Relaxed) + 1
    }

    fn counted(&self, catalog: &ResponseCatalog) {
        self.activated.store(now_seconds(), Ordering::Relaxed);
        self.metrics.catalog_products.store(u64::try_from(catalog.len()).unwrap_or(u64::MAX), Ordering::Relaxed);
    }

    /// Whether the catalog being served is past its expiry.
    pub(crate) fn expired(&self) -> bool {
        self.catalog.load().metadata().expired(std::time::SystemTime::now())
    }

    /// Whether draining has begun.
    pub(crate) fn draining(&self) -> bool {
        !self.ready.load(Ordering::Relaxed)
    }

    /// When the catalog being served was swapped in, in seconds since 1970.
    pub(crate) fn activated(&self) -> u64 {
        self.activated.load(Ordering::Relaxed)
    }

    pub(crate) fn drain(&self) {
        self.ready.store(false, Ordering::Relaxed);
    }

    pub(crate) fn generation(&self) -> u64 {
        self.metrics.catalog_generation.load(Ordering::Relaxed)
    }
}

/// The record types an artifact names, for a log line:
/// `label@hash12, …` (the `schema_hash`'s first 12 hex digits).
pub(crate) fn record_types(metadata: &foundry_catalog_serving::artifact::Metadata) -> String {
    let named: Vec<String> = metadata
        .record_types
        .iter()
        .map(|t| format!("{}@{}", t.record_label, t.schema_hash.get(..12).unwrap_or(&t.schema_hash)))
        .collect();
    named.join(", ")
}
