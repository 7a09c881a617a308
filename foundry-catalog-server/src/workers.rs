//! The workers that serve connections: the runtime the server runs on,
//! and one thread per other worker with a single-threaded runtime of its
//! own, as actix-server has them. The accept loop hands each new
//! connection to the worker with the fewest open connections (in turn
//! among equals), and the connection stays there: its requests never
//! cross threads. Handing connections out keeps the workers even; letting
//! each worker accept for itself on a shared socket let one of them win
//! most of a burst of connections while the others sat idle.

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;

use hyper::server::conn::http1;
use tokio::net::TcpStream;
use tokio::sync::{OwnedSemaphorePermit, mpsc};
use tracing::{debug, error};

use crate::config::Config;
use crate::connection;
use crate::state::State;
use crate::tracker::Tracker;

/// What serving a connection needs, shared by every worker.
#[derive(Clone)]
pub(crate) struct Serving {
    pub(crate) state: Arc<State>,
    pub(crate) builder: Arc<http1::Builder>,
    pub(crate) config: Arc<Config>,
}

/// A connection handed to a worker, with its place under the cap.
struct Assigned {
    stream: std::net::TcpStream,
    peer: SocketAddr,
    permit: OwnedSemaphorePermit,
}

/// Where a worker runs.
enum Place {
    /// The runtime the accept loop runs on.
    Here,
    /// A thread of its own, fed through a channel; the thread returns
    /// whether its connections drained in time.
    Thread(mpsc::UnboundedSender<Assigned>, std::thread::JoinHandle<bool>),
}

struct Worker {
    place: Place,
    /// Its connections: their count, timeouts and drain.
    tracker: Arc<Tracker>,
}

/// The workers, as the accept loop sees them.
pub(crate) struct Workers {
    serving: Serving,
    workers: Vec<Worker>,
    /// Where the search for the fewest open connections starts next.
    next: usize,
}

impl Workers {
    /// `count` workers: this runtime and `count - 1` threads (fewer if a
    /// thread cannot be started; this runtime always serves).
    pub(crate) fn start(count: usize, serving: Serving) -> Workers {
        let here = tracker(&serving.config);
        tokio::spawn(Arc::clone(&here).run());
        let mut workers = vec![Worker { place: Place::Here, tracker: here }];
        for index in 1..count.max(1) {
            match thread(index, serving.clone()) {
                Ok(worker) => workers.push(worker),
                Err(error) => error!(%error, worker = index, "cannot start a worker thread; the others serve"),
            }
        }
        Workers { serving, workers, next: 0 }
    }

    /// Serves `stream` on the worker with the fewest open connections.
    pub(crate) fn assign(&mut self, stream: TcpStream, peer: SocketAddr, permit: OwnedSemaphorePermit) {
        let count = self.workers.len();
        let start = self.next % count;
        let chosen =
            (0..count).map(|i| (start + i) % count).min_by_key(|&i| self.workers[i].tracker.open()).unwrap_or(0);
        self.next = (chosen + 1) % count;
        let worker = &self.workers[chosen];
        // Counted now, not when the worker picks it up, so that a burst of
        // connections spreads at once.
        worker.tracker.assigned();
        match &worker.place {
            Place::Here => spawn(&self.serving, &worker.tracker, stream, peer, permit),
            Place::Thread(sender, _) => {
                // A socket moves between runtimes as a standard socket.
                let handed = match stream.into_std() {
                    Ok(stream) => {
                        sender.send(Assigned { stream, peer, permit }).map_err(|_| "the worker has stopped".to_owned())
                    }
                    Err(error) => Err(error.to_string()),
                };
                if let Err(error) = handed {
                    never_served(&self.serving, &worker.tracker);
                    debug!(%peer, %error, worker = chosen, "cannot hand the connection to its worker; closing it");
                }
            }
        }
    }

    /// Stops handing out connections and waits for every worker's
    /// connections to finish, each up to the drain timeout. Returns whether
    /// they all did.
    pub(crate) async fn drain(self) -> bool {
        let timeout = self.serving.config.drain_timeout;
        let mut threads = Vec::new();
        let mut here = None;
        for worker in self.workers {
            match worker.place {
                Place::Here => here = Some(worker.tracker),
                // Closing the channel tells the thread to drain.
                Place::Thread(sender, thread) => {
                    drop(sender);
                    threads.push(thread);
                }
            }
        }
        let here_drained = match here {
            Some(tracker) => tracker.drain(timeout).await,
            None => true,
        };
        let joined = tokio::task::spawn_blocking(move || threads.into_iter().all(|t| t.join().unwrap_or(false)));
        here_drained && joined.await.unwrap_or(false)
    }
}

fn tracker(config: &Config) -> Arc<Tracker> {
    Tracker::new(config.header_timeout, config.idle_timeout)
}

/// Counts down a connection that was accepted and assigned to the worker
/// of `tracker` but could not be handed to it (it is closed unserved).
fn never_served(serving: &Serving, tracker: &Tracker) {
    tracker.finished();
    serving.state.metrics.open_connections.fetch_sub(1, Relaxed);
}

/// Serves one connection on the current runtime; `tracker` (its
/// worker's, which the connection was counted in) counts it finished when
/// it ends.
fn spawn(serving: &Serving, tracker: &Arc<Tracker>, stream: TcpStream, peer: SocketAddr, permit: OwnedSemaphorePermit) {
    let task = connection::serve(Arc::clone(&serving.state), &serving.builder, stream, peer, tracker);
    let tracker = Arc::clone(tracker);
    tokio::spawn(async move {
        task.await;
        drop(permit);
        tracker.finished();
    });
}

/// Worker `index` on a thread of its own with a single-threaded runtime:
/// it serves what it is handed until the channel closes, then drains.
fn thread(index: usize, serving: Serving) -> std::io::Result<Worker> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let (sender, mut receiver) = mpsc::unbounded_channel::<Assigned>();
    let tracker = tracker(&serving.config);
    let own = Arc::clone(&tracker);
    let thread = std::thread::Builder::new().name(format!("foundry-worker-{index}")).spawn(move || {
        runtime.block_on(async move {
            tokio::spawn(Arc::clone(&own).run());
            while let Some(Assigned { stream, peer, permit }) = receiver.recv().await {
                match TcpStream::from_std(stream) {
                    Ok(stream) => spawn(&serving, &own, stream, peer, permit),
                    Err(error) => {
                        never_served(&serving, &own);
                        debug!(%peer, %error, worker = index, "cannot serve the connection; closing it");
                    }
                }
            }
            own.drain(serving.config.drain_timeout).await
        })
    })?;
    Ok(Worker { place: Place::Thread(sender, thread), tracker })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use hyper::server::conn::http1;
    use tokio::net::{TcpListener, TcpStream};
    use tokio::sync::Semaphore;

    use super::{Serving, Workers};
    use crate::config::{CatalogSource, Config};
    use crate::state::State;

    #[tokio::test]
    async fn each_connection_goes_to_the_worker_with_the_fewest_open() {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let config = Config::default().source(CatalogSource::Embedded);
        let replica = crate::load::Replica::open(&crate::Config::default()).expect("no state folder");
        let state = State::new(crate::default_catalog().expect("catalog"), replica);
        let serving = Serving { state, builder: Arc::new(http1::Builder::new()), config: Arc::new(config) };
        let mut workers = Workers::start(3, serving);
        let permits = Arc::new(Semaphore::new(8));
        let open = |workers: &Workers| workers.workers.iter().map(|w| w.tracker.open()).collect::<Vec<_>>();
        let mut clients = Vec::new();
        for expected in [[1, 0, 0], [1, 1, 0], [1, 1, 1], [2, 1, 1]] {
            clients.push(TcpStream::connect(listener.local_addr().expect("addr")).await.expect("connect"));
            let (stream, peer) = listener.accept().await.expect("accept");
            workers.assign(stream, peer, Arc::clone(&permits).try_acquire_owned().expect("permit"));
            assert_eq!(open(&workers), expected);
        }
        // The second client leaves: the next connection fills its place.
        clients.remove(1);
        while open(&workers)[1] != 0 {
            tokio::time::sleep(std::time::Duration::from_millis(5)).await;
        }
        clients.push(TcpStream::connect(listener.local_addr().expect("addr")).await.expect("connect"));
        let (stream, peer) = listener.accept().await.expect("accept");
        workers.assign(stream, peer, Arc::clone(&permits).try_acquire_owned().expect("permit"));
        assert_eq!(open(&workers), [2, 1, 1]);
        drop(clients);
        assert!(workers.drain().await);
    }
}
