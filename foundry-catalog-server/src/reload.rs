//! Reloads: the catalog rebuilt from its source off the request path and
//! swapped in whole (or the old one kept, every problem logged), when
//! asked (`Handle::reload`, SIGHUP), when the source changes (`watch`) or
//! on every poll of an origin; and the warning when the catalog being
//! served expires.

use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::{Duration, SystemTime};

use tokio::sync::mpsc;
use tracing::{debug, error, info};

use crate::config::Config;
use crate::load::{LoadError, Loaded};
use crate::metrics::Poll;
use crate::state::State;
use foundry_catalog_serving::replica::Failure;

/// Rebuilds the catalog for each reload request, off the request path: a
/// folder with its record types read again, an artifact with the verify
/// keys of the moment.
pub(crate) async fn reloader(state: Arc<State>, config: Arc<Config>, mut requests: mpsc::UnboundedReceiver<()>) {
    while requests.recv().await.is_some() {
        // Requests that came in meanwhile are served by this one rebuild.
        while requests.try_recv().is_ok() {}
        let (config, current) = (Arc::clone(&config), Arc::clone(&*state.catalog.load()));
        let started = std::time::Instant::now();
        let reload = Arc::clone(&state);
        let load = move || crate::load::load(&config, &reload.replica, Some(&*current));
        match tokio::task::spawn_blocking(load).await {
            Ok(Ok(Loaded::Unchanged(types))) => {
                state.describe(&types);
                state.metrics.polled(Poll::Unchanged);
                debug!("the origin's artifact is the one being served");
            }
            Ok(Err(LoadError::RecordTypes(problems))) => {
                state.metrics.failed(Failure::Refused);
                state.metrics.reloads_failed.fetch_add(1, Relaxed);
                let generation = state.generation();
                for problem in problems.lines().map(|line| line.strip_prefix("error: ").unwrap_or(line)) {
                    error!(generation, "reload failed, still serving the previous catalog: {problem}");
                }
                error!(generation, "reload failed: the record-type definitions have problems");
            }
            Ok(Ok(Loaded::New(catalog, types))) => {
                state.metrics.polled(Poll::New);
                let (products, content) = (catalog.len(), catalog.metadata().content_sha256.clone());
                let record_types = crate::state::record_types(catalog.metadata());
                // The document and the count first: whoever sees the new
                // catalog sees them too.
                state.describe(&types);
                state.metrics.reloads_ok.fetch_add(1, Relaxed);
                let generation = state.replace(*catalog);
                let seconds = started.elapsed().as_secs_f64();
                info!(products, generation, content_sha256 = %content, %record_types, seconds, "catalog reloaded");
            }
            Ok(Err(LoadError::Origin { origin, error })) => {
                state.metrics.failed(error.failure);
                state.metrics.reloads_failed.fetch_add(1, Relaxed);
                let generation = state.generation();
                error!(generation, reason = error.failure.label(), %origin, "reload failed, still serving the previous catalog: {error}");
            }
            Ok(Err(LoadError::Catalog(errors))) => {
                state.metrics.failed(Failure::Refused);
                state.metrics.reloads_failed.fetch_add(1, Relaxed);
                let generation = state.generation();
                for problem in &errors.errors {
                    error!(generation, "reload failed, still serving the previous catalog: {problem}");
                }
                error!(generation, "reload failed: {}", errors.summary());
            }
            Err(panic) => {
                state.metrics.failed(Failure::Internal);
                state.metrics.reloads_failed.fetch_add(1, Relaxed);
                error!(%panic, "reload failed, still serving the previous catalog");
            }
        }
    }
}

/// Reloads when the artifact file or a folder's `*.json` files change
/// (the manifests, and the record-type definitions a folder is built
/// with): looked at every `interval`, and reloaded once a change has held
/// still for one more interval (an editor's save, a `git checkout`, an
/// rsync). Looking is a `stat` of every file (a fifth of a second at
/// 100,000 manifests), so it runs on the blocking pool, never on the
/// runtime that accepts connections, and the interval counts from one
/// look's start to the next's.
pub(crate) struct Watcher {
    paths: Arc<[PathBuf]>,
    seen: Option<Vec<Vec<Look>>>,
}

impl Watcher {
    /// Takes the first look at `paths`, before the server says it serves,
    /// so a change made as soon as it does is a change.
    pub(crate) async fn start(paths: Vec<PathBuf>) -> Watcher {
        let paths: Arc<[PathBuf]> = paths.into();
        let seen = Watcher::look(Arc::clone(&paths)).await;
        Watcher { paths, seen }
    }

    async fn look(paths: Arc<[PathBuf]>) -> Option<Vec<Vec<Look>>> {
        tokio::task::spawn_blocking(move || paths.iter().map(|path| fingerprint(path)).collect()).await.ok()
    }

    /// Looks every `interval`; asks `reload` once a change has held still.
    pub(crate) async fn run(mut self, interval: Duration, reload: mpsc::UnboundedSender<()>) {
        let mut pending = false;
        let mut ticks = tokio::time::interval(interval);
        ticks.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        ticks.tick().await;
        loop {
            ticks.tick().await;
            let now = Watcher::look(Arc::clone(&self.paths)).await;
            if now != self.seen {
                self.seen = now;
                pending = true;
            } else if pending {
                pending = false;
                let paths: Vec<String> = self.paths.iter().map(|path| path.display().to_string()).collect();
                info!(paths = %paths.join(", "), "catalog changed; reloading");
                if reload.send(()).is_err() {
                    return;
                }
            }
        }
    }
}

/// What the watcher compares of a file: its name, length, modification
/// and change times and inode. The change time is the kernel's (no
/// program sets it back), so a replacement with the same length and
/// modification time (`cp -p`, `rsync -a`) is still seen.
type Look = (std::ffi::OsString, u64, Option<SystemTime>, i64, i64, u64);

/// [`Look`] at the file, or at each file of the folder a build reads
/// (`*.json` manifests and definitions, `*.html` and `*.css` templates), sorted.
fn fingerprint(path: &Path) -> Vec<Look> {
    use std::os::unix::fs::MetadataExt;
    let look = |name: std::ffi::OsString, m: std::fs::Metadata| {
        (name, m.len(), m.modified().ok(), m.ctime(), m.ctime_nsec(), m.ino())
    };
    if !path.is_dir() {
        return std::fs::metadata(path).ok().map(|m| look(path.as_os_str().to_owned(), m)).into_iter().collect();
    }
    let mut files: Vec<_> = std::fs::read_dir(path)
        .map(|entries| {
            entries
                .filter_map(Result::ok)
                .filter(|e| e.path().extension().is_some_and(|x| x == "json" || x == "html" || x == "css"))
                .filter_map(|e| e.metadata().ok().map(|m| look(e.file_name(), m)))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// Asks for a reload as `foundry_catalog_serving::replica::Backoff`
/// says: every `interval` plus up to a tenth at random, twice as long
/// after each failed poll in a row (up to 16 times the interval).
pub(crate) async fn poller(state: Arc<State>, interval: Duration, reload: mpsc::UnboundedSender<()>) {
    let seed = u64::from(std::process::id()) ^ crate::metrics::now_seconds().rotate_left(17);
    let mut backoff = foundry_catalog_serving::replica::Backoff::new(interval, seed);
    loop {
        tokio::time::sleep(backoff.next(state.metrics.poll_failures_in_a_row())).await;
        if reload.send(()).is_err() {
            return;
        }
    }
}

/// Logs once per catalog when the one being served passes its expiry
/// (looked at every second; `/readyz` and `/metrics` say it from then on).
pub(crate) async fn warn_on_expiry(state: Arc<State>) {
    let mut warned = 0;
    let mut ticks = tokio::time::interval(std::time::Duration::from_secs(1));
    loop {
        ticks.tick().await;
        let generation = state.generation();
        if generation != warned && state.expired() {
            warned = generation;
            let catalog = state.catalog.load();
            let metadata = catalog.metadata();
            tracing::warn!(
                generation,
                sequence = metadata.sequence,
                expires = metadata.expires,
                "the catalog being served has expired: /readyz answers 503 until a newer artifact is loaded"
            );
        }
    }
}
