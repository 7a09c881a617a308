//! What every connection shares: the catalog being served (swapped whole
//! on reload), readiness, and the metrics.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

use foundry_catalog_serving::catalog::ResponseCatalog;
use foundry_catalog_serving::service::SharedCatalog;

use crate::load::Replica;
use crate::metrics::Metrics;

/// The OpenAPI document that knows `record_types` besides the shipped ones.
fn openapi(record_types: &[foundry_catalog_core::RecordSchema]) -> bytes::Bytes {
    serde_json::to_vec_pretty(&foundry_catalog::json_schema::openapi_with(record_types)).unwrap_or_default().into()
}

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
    /// The OpenAPI document, served at `/openapi.json`: the shipped record
    /// types' and the server's own, as last read.
    openapi: std::sync::RwLock<bytes::Bytes>,
    /// The highest artifact sequence served, and the origin.
    pub(crate) replica: Replica,
    /// When the catalog being served was swapped in, in seconds since 1970.
    activated: AtomicU64,
    /// Asks for a reload (a repair from the origin).
    reload: std::sync::OnceLock<tokio::sync::mpsc::UnboundedSender<()>>,
    /// When a body failure was last logged, in seconds since 1970, and
    /// how many were not logged since.
    body_warned: AtomicU64,
    bodies_unsaid: AtomicU64,
    /// When a repair was last asked for, in seconds since 1970.
    repair_asked: AtomicU64,
}

/// The fewest seconds between two repairs of the last good artifact.
const REPAIR_EVERY: u64 = 10;

impl State {
    pub(crate) fn new(catalog: ResponseCatalog, replica: Replica) -> Arc<State> {
        let state = State {
            catalog: SharedCatalog::new(catalog),
            ready: AtomicBool::new(true),
            metrics: Metrics::default(),
            openapi: std::sync::RwLock::new(openapi(&[])),
            replica,
            activated: AtomicU64::new(0),
            reload: std::sync::OnceLock::new(),
            body_warned: AtomicU64::new(0),
            bodies_unsaid: AtomicU64::new(0),
            repair_asked: AtomicU64::new(0),
        };
        state.metrics.started();
        state.counted(&state.catalog.load());
        state.metrics.catalog_generation.store(1, Ordering::Relaxed);
        Arc::new(state)
    }

    /// `/openapi.json` from now on: the document that knows `record_types`
    /// besides the shipped ones (what the server was given, read again at
    /// every load), so code generated from it reads every body served.
    pub(crate) fn describe(&self, record_types: &[foundry_catalog_core::RecordSchema]) {
        let document = openapi(record_types);
        *self.openapi.write().unwrap_or_else(std::sync::PoisonError::into_inner) = document;
    }

    /// The OpenAPI document served now.
    pub(crate) fn openapi(&self) -> bytes::Bytes {
        self.openapi.read().unwrap_or_else(std::sync::PoisonError::into_inner).clone()
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

    /// Where reloads are asked for (set once, when the server is bound).
    pub(crate) fn reloads_to(&self, reload: tokio::sync::mpsc::UnboundedSender<()>) {
        let _ = self.reload.set(reload);
    }

    /// A body of the catalog being served failed its check (it does not
    /// match its ETag, or cannot be read) and was answered 503: said at
    /// WARN with its path (at most once a second, with how many more were
    /// not said), and, for a catalog pulled from an origin, the last good
    /// file is repaired: downloaded whole at once, even if unchanged, then
    /// checked and swapped in (`foundry_catalog_serving::replica::Replica::repair`).
    pub(crate) fn body_failed(&self, path: &str) {
        let now = now_seconds();
        let last = self.body_warned.load(Ordering::Relaxed);
        let say =
            now != last && self.body_warned.compare_exchange(last, now, Ordering::Relaxed, Ordering::Relaxed).is_ok();
        if !say {
            self.bodies_unsaid.fetch_add(1, Ordering::Relaxed);
        }
        // At most one repair every REPAIR_EVERY seconds: a hot body
        // failing while the origin cannot be reached is not a pull per request.
        let asked = self.repair_asked.load(Ordering::Relaxed);
        let repair = self.replica.origin.as_ref().is_some_and(|origin| {
            now >= asked.saturating_add(REPAIR_EVERY)
                && self.repair_asked.compare_exchange(asked, now, Ordering::Relaxed, Ordering::Relaxed).is_ok()
                && origin.repair()
        });
        if repair && let Some(reload) = self.reload.get() {
            let _ = reload.send(());
        }
        if say {
            let slug = path.strip_prefix(foundry_catalog::product::API_PATH_PREFIX).unwrap_or_default();
            let more = self.bodies_unsaid.swap(0, Ordering::Relaxed);
            let what = if self.replica.origin.is_some() {
                "repairing the last good artifact: downloading it whole from the origin"
            } else {
                "hint: the artifact file was changed or damaged after it was opened; publish it again by renaming a new file over it"
            };
            tracing::warn!(
                path,
                slug,
                failures_not_logged = more,
                "a body failed its check (it does not match its ETag, or cannot be read) and was answered 503; {what}"
            );
        }
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
