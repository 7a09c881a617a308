//! Reloads: the catalog rebuilt from its source off the request path and
//! swapped in whole (or the old one kept, every problem logged), when
//! asked (`Handle::reload`, SIGHUP) or when the source changes (`watch`).

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, SystemTime};

use tokio::sync::mpsc;
use tracing::{error, info};

use foundry_catalog_serving::signing::VerifyKey;

use foundry_catalog_core::RecordSchema;

use crate::config::CatalogSource;
use crate::state::State;

/// Rebuilds the catalog for each reload request, off the request path.
pub(crate) async fn reloader(
    state: Arc<State>,
    source: CatalogSource,
    record_types: Arc<[RecordSchema]>,
    verify_key: Option<VerifyKey>,
    mut requests: mpsc::UnboundedReceiver<()>,
) {
    while requests.recv().await.is_some() {
        // Requests that came in meanwhile are served by this one rebuild.
        while requests.try_recv().is_ok() {}
        let (source, record_types, current) =
            (source.clone(), Arc::clone(&record_types), Arc::clone(&*state.catalog.load()));
        let started = std::time::Instant::now();
        match tokio::task::spawn_blocking(move || source.load(&record_types, verify_key.as_ref(), Some(&*current)))
            .await
        {
            Ok(Ok(catalog)) => {
                let (products, content) = (catalog.len(), catalog.metadata().content_sha256.clone());
                let record_types = crate::state::record_types(catalog.metadata());
                let generation = state.replace(catalog);
                state.metrics.reloads_ok.fetch_add(1, Relaxed);
                let seconds = started.elapsed().as_secs_f64();
                info!(products, generation, content_sha256 = %content, %record_types, seconds, "catalog reloaded");
            }
            Ok(Err(errors)) => {
                state.metrics.reloads_failed.fetch_add(1, Relaxed);
                let generation = state.generation();
                for problem in &errors.errors {
                    error!(generation, "reload failed, still serving the previous catalog: {problem}");
                }
                error!(generation, "reload failed: {}", errors.summary());
            }
            Err(panic) => {
                state.metrics.reloads_failed.fetch_add(1, Relaxed);
                error!(%panic, "reload failed, still serving the previous catalog");
            }
        }
    }
}

/// Reloads when the artifact file or the folder's `*.json` files change:
/// looked at every `interval`, and reloaded once a change has held still
/// for one more interval (an editor's save, a `git checkout`, an rsync).
/// Looking is a `stat` of every file (a fifth of a second at 100,000
/// manifests), so it runs on the blocking pool, never on the runtime
/// that accepts connections, and the interval counts from one look's
/// start to the next's.
pub(crate) async fn watcher(path: PathBuf, interval: Duration, reload: mpsc::UnboundedSender<()>) {
    let look = |path: PathBuf| async move { tokio::task::spawn_blocking(move || fingerprint(&path)).await.ok() };
    let mut seen = look(path.clone()).await;
    let mut pending = false;
    let mut ticks = tokio::time::interval(interval);
    ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    ticks.tick().await;
    loop {
        ticks.tick().await;
        let now = look(path.clone()).await;
        if now != seen {
            seen = now;
            pending = true;
        } else if pending {
            pending = false;
            info!(path = %path.display(), "catalog changed; reloading");
            if reload.send(()).is_err() {
                return;
            }
        }
    }
}

/// Name, size and modification time of the file, or of each `*.json`
/// file of the folder, sorted.
fn fingerprint(path: &Path) -> Vec<(std::ffi::OsString, u64, Option<SystemTime>)> {
    if !path.is_dir() {
        let file = std::fs::metadata(path).ok().map(|m| (path.as_os_str().to_owned(), m.len(), m.modified().ok()));
        return file.into_iter().collect();
    }
    let mut files: Vec<_> = std::fs::read_dir(path)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter(|e| e.path().extension().is_some_and(|x| x == "json"))
                .filter_map(|e| e.metadata().ok().map(|m| (e.file_name(), m.len(), m.modified().ok())))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}
