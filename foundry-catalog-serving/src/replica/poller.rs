//! A replica kept current on a thread of its own, for an application
//! that serves a `SharedCatalog` (an axum or hyper one): no async runtime
//! needed, none taken over.

use std::sync::{Arc, Condvar, Mutex};
use std::time::{Duration, Instant};

use crate::catalog::OpenOptions;
use crate::service::SharedCatalog;

use super::{Backoff, Replica};

/// How long the poller waits at most between two looks at the body
/// cache's failures (a body that failed its check asks for a repair).
const LOOK: Duration = Duration::from_millis(250);

/// Pulls from the origin as [`Backoff`] says (every interval, plus up to
/// a tenth of it at random; after failed pulls, twice as long per failure
/// in a row, up to 16 times), storing each new catalog
/// in the `SharedCatalog`; a body that fails its check while served (the
/// body cache counts it) asks for a repair at once ([`Replica::repair`]).
/// Every failure is logged at WARN (`tracing`). Stopped by
/// [`Poller::stop`], or when dropped: no pull starts after that, and one
/// in flight ends by itself (within the origin timeout).
#[derive(Debug)]
pub struct Poller {
    stop: Arc<(Mutex<bool>, Condvar)>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Poller {
    pub(super) fn start(replica: Replica, catalog: SharedCatalog, open: OpenOptions, interval: Duration) -> Poller {
        let stop = Arc::new((Mutex::new(false), Condvar::new()));
        let stopped = Arc::clone(&stop);
        let thread = std::thread::Builder::new()
            .name("foundry-catalog-replica".to_owned())
            .spawn(move || run(&replica, &catalog, &open, interval, &stopped))
            .ok();
        if thread.is_none() {
            tracing::error!("cannot start the replica's poller thread: the catalog is not kept current");
        }
        Poller { stop, thread }
    }

    /// Stops polling, and returns once the poller's thread has ended (a
    /// pull in flight ends within the origin timeout): its state folder
    /// is free for another [`Replica`] from then on.
    pub fn stop(mut self) {
        self.signal();
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }

    fn signal(&self) {
        let (stopped, wake) = &*self.stop;
        *stopped.lock().unwrap_or_else(std::sync::PoisonError::into_inner) = true;
        wake.notify_all();
    }
}

impl Drop for Poller {
    fn drop(&mut self) {
        self.signal();
    }
}

/// The poller's loop, until `stop` says so.
fn run(
    replica: &Replica,
    catalog: &SharedCatalog,
    open: &OpenOptions,
    interval: Duration,
    stop: &(Mutex<bool>, Condvar),
) {
    let started = std::time::SystemTime::now().duration_since(std::time::UNIX_EPOCH).map_or(0, |d| d.as_secs());
    let mut backoff = Backoff::new(interval, u64::from(std::process::id()) ^ started.rotate_left(17));
    let mut failures = 0u32;
    let mut body_failures = open.body_cache.failures();
    loop {
        let wait = backoff.next(failures);
        // A wait past what the clock can say is a wait until stopped.
        let until = Instant::now().checked_add(wait);
        // Waits until the time comes, a body fails its check, or it is stopped.
        let (stopped, wake) = stop;
        let mut guard = stopped.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
        loop {
            if *guard {
                return;
            }
            let failed = open.body_cache.failures();
            if failed != body_failures {
                body_failures = failed;
                if replica.repair() {
                    tracing::warn!(origin = %replica.url(), "a body or a block of the head failed its check: repairing the last good artifact from the origin");
                    break;
                }
            }
            let now = Instant::now();
            if until.is_some_and(|until| now >= until) {
                break;
            }
            let left = until.map_or(LOOK, |until| (until - now).min(LOOK));
            guard = wake.wait_timeout(guard, left).unwrap_or_else(std::sync::PoisonError::into_inner).0;
        }
        drop(guard);
        let current = catalog.load();
        match replica.pull(open, Some(&current)) {
            Ok(Some(new)) => {
                failures = 0;
                tracing::info!(origin = %replica.url(), sequence = new.metadata().sequence, products = new.len(), "a new catalog is served");
                catalog.store(new);
            }
            Ok(None) => failures = 0,
            Err(error) => {
                failures = failures.saturating_add(1);
                tracing::warn!(
                    reason = error.failure().label(),
                    "the replica's pull failed, still serving the previous catalog: {error}"
                );
            }
        }
    }
}
