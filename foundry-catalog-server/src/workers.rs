//! The workers that serve connections: the runtime the server runs on,
//! and one thread per other worker with a single-threaded runtime of its
//! own. The accept loop hands each new connection to the worker with the
//! fewest open connections (in turn among equals) among those taking
//! connections, and the connection stays there: its requests never cross
//! threads (it may be asked to reconnect, see below). Handing connections
//! out keeps the workers even; letting each worker accept for itself on a
//! shared socket let one of them win most of a burst of connections, and
//! half the cores sat idle. Which workers take connections is the
//! placement's call (see `placement`): all of them while the CPUs have
//! room, fewer while the workers wait for a CPU. With `Placement::Cpu`,
//! each worker is bound to a CPU and a connection goes to the worker on
//! the CPU its packets arrive on (see `affinity`).

use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::AtomicUsize;
use std::sync::atomic::Ordering::Relaxed;

use hyper::server::conn::http1;
use tokio::net::TcpStream;
use tokio::sync::{OwnedSemaphorePermit, mpsc};
use tracing::{debug, error, warn};

use crate::affinity::{self, Steer, Steering};
use crate::config::Config;
use crate::deadline::Tracker;
use crate::placement::{self, Placement, ThreadTimes};
use crate::server::connection;
use crate::state::State;

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
    steer: Option<Steer>,
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
    /// Its thread's scheduler figures, for the placement.
    times: Arc<ThreadTimes>,
    /// The CPU it is bound to ([`Placement::Cpu`]).
    cpu: Option<usize>,
}

/// The workers, as the accept loop sees them.
pub(crate) struct Workers {
    serving: Serving,
    workers: Vec<Worker>,
    next: usize,
    /// How many workers, the first ones, take new connections.
    active: Arc<AtomicUsize>,
    /// The task that sets `active`, if the placement is adaptive.
    placement: Option<placement::Following>,
    /// The workers' CPUs, when connections go to the worker on their CPU
    /// ([`Placement::Cpu`]).
    steering: Option<Arc<Steering>>,
}

impl Workers {
    /// `count` workers: this runtime and `count - 1` threads (fewer if a
    /// thread cannot be started; this runtime always serves).
    pub(crate) fn start(count: usize, serving: Serving) -> Workers {
        // The first worker is the accept loop's runtime: one thread only if
        // that runtime is single-threaded.
        let single = tokio::runtime::Handle::current().runtime_flavor() == tokio::runtime::RuntimeFlavor::CurrentThread;
        // With `Placement::Cpu`, the workers that are one thread each are
        // bound to the CPUs the process may use, in order (in turn, if
        // there are more of them than CPUs): worker 0 to the first if its
        // runtime is single-threaded, the threads to the next ones.
        let cpus = if serving.config.placement == Placement::Cpu { affinity::allowed_cpus() } else { Vec::new() };
        let cpu_of = |slot: usize| (!cpus.is_empty()).then(|| cpus[slot % cpus.len()]);
        let skip = usize::from(!single);
        let tracker = tracker(&serving.config);
        tokio::spawn(Arc::clone(&tracker).run());
        let times = Arc::new(ThreadTimes::default());
        times.open_here();
        // The threads first: a thread starts with its creator's CPUs, and
        // this one's are still all the process's.
        let mut threads = Vec::new();
        for index in 1..count.max(1) {
            match thread(index, serving.clone(), cpu_of(index - skip)) {
                Ok(worker) => threads.push(worker),
                Err(error) => error!(%error, worker = index, "cannot start a worker thread; the others serve"),
            }
        }
        let here = cpu_of(0).filter(|_| single).filter(|&cpu| bind(cpu, 0));
        let mut workers = vec![Worker { place: Place::Here, tracker, times, cpu: here }];
        workers.extend(threads);
        let active = Arc::new(AtomicUsize::new(workers.len()));
        serving.state.metrics.active_workers.store(workers.len() as u64, Relaxed);
        let steering = workers.iter().any(|w| w.cpu.is_some()).then(|| {
            let cpus = workers.iter().map(|w| w.cpu).collect();
            let trackers = workers.iter().map(|w| Arc::clone(&w.tracker)).collect();
            Steering::new(cpus, trackers, Arc::clone(&serving.state))
        });
        let mut workers = Workers { serving, workers, next: 0, active, placement: None, steering };
        if workers.serving.config.placement == Placement::Adaptive && single && workers.workers.len() > 1 {
            let (watched, active) = (workers.watched(), Arc::clone(&workers.active));
            workers.placement = Some(placement::start(watched, active, Arc::clone(&workers.serving.state)));
        }
        workers
    }

    /// The workers as the placement sees them.
    fn watched(&self) -> Vec<placement::Watched> {
        self.workers
            .iter()
            .map(|w| placement::Watched { tracker: Arc::clone(&w.tracker), times: Arc::clone(&w.times) })
            .collect()
    }

    /// Serves `stream` on the worker with the fewest open connections
    /// among those taking connections, or with [`Placement::Cpu`] on the
    /// one on the CPU its packets arrive on (see `affinity::choose`).
    pub(crate) fn assign(&mut self, stream: TcpStream, peer: SocketAddr, permit: OwnedSemaphorePermit) {
        let count = self.active.load(Relaxed).clamp(1, self.workers.len());
        let start = self.next % count;
        let fewest = (0..count).map(|i| (start + i) % count).min_by_key(|&i| self.workers[i].tracker.open());
        let fewest = fewest.unwrap_or(0);
        self.next = (fewest + 1) % count;
        let chosen = match &self.steering {
            Some(steering) => {
                let steered = affinity::incoming_cpu(&stream)
                    .and_then(|cpu| steering.worker_on(cpu, count))
                    .map(|i| (i, self.workers[i].tracker.open()));
                affinity::choose(steered, (fewest, self.workers[fewest].tracker.open()))
            }
            None => fewest,
        };
        let steer = self.steering.as_ref().map(|steering| Steer::new(chosen, Arc::clone(steering)));
        let worker = &self.workers[chosen];
        // Counted now, not when the worker picks it up, so that a burst of
        // connections spreads at once.
        worker.tracker.assigned();
        match &worker.place {
            Place::Here => spawn(&self.serving, &worker.tracker, stream, peer, permit, steer),
            Place::Thread(sender, _) => {
                // A socket moves between runtimes as a standard socket.
                let handed = match stream.into_std() {
                    Ok(stream) => sender
                        .send(Assigned { stream, peer, permit, steer })
                        .map_err(|_| "the worker has stopped".to_owned()),
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
        // Stops the placement: no connection is moved while draining.
        drop(self.placement);
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
        if self.steering.is_some() {
            // This thread goes on after the server (a caller's, or the
            // process's main thread): it gets its CPUs back.
            affinity::unbind_here();
        }
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
fn spawn(
    serving: &Serving,
    tracker: &Arc<Tracker>,
    stream: TcpStream,
    peer: SocketAddr,
    permit: OwnedSemaphorePermit,
    steer: Option<Steer>,
) {
    let task = connection(Arc::clone(&serving.state), &serving.builder, stream, peer, tracker, steer);
    let tracker = Arc::clone(tracker);
    tokio::spawn(async move {
        task.await;
        drop(permit);
        tracker.finished();
    });
}

/// Binds the calling thread, worker `index`'s, to `cpu`; says whether it
/// could (if not, the worker runs wherever the scheduler puts it; a
/// connection steered to it is served all the same, only not where its
/// packets arrive).
fn bind(cpu: usize, index: usize) -> bool {
    match affinity::bind_here(cpu) {
        Ok(()) => true,
        Err(error) => {
            warn!(%error, worker = index, cpu, "cannot bind the worker to its CPU; it runs unbound");
            false
        }
    }
}

/// Worker `index` on a thread of its own with a single-threaded runtime,
/// bound to `cpu` if given (its `cpu` is `None` if that fails): it serves
/// what it is handed until the channel closes, then drains.
fn thread(index: usize, serving: Serving, cpu: Option<usize>) -> std::io::Result<Worker> {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let (sender, mut receiver) = mpsc::unbounded_channel::<Assigned>();
    let tracker = tracker(&serving.config);
    let own = Arc::clone(&tracker);
    let times = Arc::new(ThreadTimes::default());
    let own_times = Arc::clone(&times);
    let (bound_sender, bound) = std::sync::mpsc::sync_channel(1);
    let thread = std::thread::Builder::new().name(format!("foundry-worker-{index}")).spawn(move || {
        own_times.open_here();
        let _ = bound_sender.send(cpu.filter(|&cpu| bind(cpu, index)));
        runtime.block_on(async move {
            tokio::spawn(Arc::clone(&own).run());
            while let Some(Assigned { stream, peer, permit, steer }) = receiver.recv().await {
                match TcpStream::from_std(stream) {
                    Ok(stream) => spawn(&serving, &own, stream, peer, permit, steer),
                    Err(error) => {
                        never_served(&serving, &own);
                        debug!(%peer, %error, worker = index, "cannot serve the connection; closing it");
                    }
                }
            }
            own.drain(serving.config.drain_timeout).await
        })
    })?;
    let cpu = bound.recv().ok().flatten();
    Ok(Worker { place: Place::Thread(sender, thread), tracker, times, cpu })
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::Ordering::Relaxed;

    use hyper::server::conn::http1;
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    use tokio::net::{TcpListener, TcpStream};
    use tokio::sync::Semaphore;

    use super::{Serving, Workers};
    use crate::state::State;
    use crate::{CatalogSource, Config, Placement};
    use crate::{affinity, placement};

    /// Connects to `listener` and hands the server's side to `workers`.
    async fn connect(listener: &TcpListener, workers: &mut Workers, permits: &Arc<Semaphore>) -> TcpStream {
        let client = TcpStream::connect(listener.local_addr().expect("addr")).await.expect("connect");
        let (stream, peer) = listener.accept().await.expect("accept");
        workers.assign(stream, peer, Arc::clone(permits).try_acquire_owned().expect("permit"));
        client
    }

    /// Sends `GET /healthz` and returns the response head, lowercased.
    async fn get(client: &mut TcpStream) -> String {
        client.write_all(b"GET /healthz HTTP/1.1\r\nHost: test\r\n\r\n").await.expect("write");
        let mut response = Vec::new();
        let mut buf = [0u8; 4096];
        loop {
            let read = client.read(&mut buf).await.expect("read");
            assert!(read > 0, "closed before the response: {}", String::from_utf8_lossy(&response));
            response.extend_from_slice(&buf[..read]);
            let text = String::from_utf8_lossy(&response).to_ascii_lowercase();
            if let Some((head, body)) = text.split_once("\r\n\r\n") {
                let length = head
                    .lines()
                    .find_map(|line| line.strip_prefix("content-length:"))
                    .and_then(|n| n.trim().parse::<usize>().ok())
                    .expect("content-length");
                if body.len() >= length {
                    assert!(head.starts_with("http/1.1 200"), "{head}");
                    return head.to_owned();
                }
            }
        }
    }

    /// Two workers with `placement` on this test's runtime (worker 0 is
    /// its thread), the socket they serve and permits for 8 connections.
    async fn two_workers(placement: Placement) -> (TcpListener, Workers, Arc<Semaphore>) {
        let listener = TcpListener::bind("127.0.0.1:0").await.expect("bind");
        let mut config = Config::new(listener.local_addr().expect("addr"), CatalogSource::Embedded);
        config.placement = placement;
        let state = State::new(crate::default_catalog().expect("catalog"));
        let serving = Serving { state, builder: Arc::new(http1::Builder::new()), config: Arc::new(config) };
        (listener, Workers::start(2, serving), Arc::new(Semaphore::new(8)))
    }

    #[tokio::test]
    async fn a_packed_worker_moves_its_connections_with_their_next_response() {
        // Placement decided here, not measured.
        let (listener, mut workers, permits) = two_workers(Placement::Even).await;
        let mut first = connect(&listener, &mut workers, &permits).await;
        let mut second = connect(&listener, &mut workers, &permits).await;
        assert_eq!((workers.workers[0].tracker.open(), workers.workers[1].tracker.open()), (1, 1));
        assert!(!get(&mut first).await.contains("connection: close"));
        assert!(!get(&mut second).await.contains("connection: close"));

        // The second worker stops taking connections.
        let metrics = &workers.serving.state.metrics;
        assert_eq!(placement::apply(&workers.watched(), &workers.active, metrics, 2, 1), 1);
        assert_eq!(workers.active.load(Relaxed), 1);
        assert_eq!(metrics.active_workers.load(Relaxed), 1);
        let head = get(&mut second).await;
        assert!(head.contains("connection: close"), "{head}");
        let mut rest = Vec::new();
        second.read_to_end(&mut rest).await.expect("read to the end");
        assert!(rest.is_empty(), "closed after the response");
        assert!(!get(&mut first).await.contains("connection: close"), "the first worker's stays");

        // The client comes back, to the first worker.
        let mut again = connect(&listener, &mut workers, &permits).await;
        assert_eq!(workers.workers[0].tracker.open(), 2);
        assert!(!get(&mut again).await.contains("connection: close"));

        // Spreading again: one of the first worker's two moves.
        let metrics = &workers.serving.state.metrics;
        assert_eq!(placement::apply(&workers.watched(), &workers.active, metrics, 1, 2), 1);
        assert_eq!(workers.active.load(Relaxed), 2);
        assert_eq!(metrics.moved_connections.load(Relaxed), 2);
        let closed = [get(&mut first).await, get(&mut again).await];
        assert_eq!(closed.iter().filter(|head| head.contains("connection: close")).count(), 1);
        drop((first, again));
        assert!(workers.drain().await);
    }

    /// Runs `work` on a thread bound to `cpu`, with a runtime of its own.
    fn on_cpu<T: Send + 'static>(
        cpu: usize,
        work: impl FnOnce(&tokio::runtime::Runtime) -> T + Send + 'static,
    ) -> std::thread::JoinHandle<T> {
        std::thread::spawn(move || {
            affinity::bind_here(cpu).expect("bind the client");
            work(&tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime"))
        })
    }

    /// Connects from a thread on `cpu` and sends one request; the server's
    /// side is handed to `workers` once the request has arrived (so the
    /// kernel knows the CPU it arrived on). Returns the client's socket.
    async fn connect_on(
        cpu: usize,
        listener: &TcpListener,
        workers: &mut Workers,
        permits: &Arc<Semaphore>,
    ) -> std::net::TcpStream {
        let addr = listener.local_addr().expect("addr");
        let client = on_cpu(cpu, move |runtime| {
            runtime.block_on(async {
                let mut client = TcpStream::connect(addr).await.expect("connect");
                get(&mut client).await;
                client.into_std().expect("std socket")
            })
        });
        let (stream, peer) = listener.accept().await.expect("accept");
        stream.readable().await.expect("readable");
        workers.assign(stream, peer, Arc::clone(permits).try_acquire_owned().expect("permit"));
        tokio::task::spawn_blocking(move || client.join().expect("client")).await.expect("join")
    }

    #[cfg(target_os = "linux")]
    #[tokio::test]
    async fn cpu_placement_serves_a_connection_on_the_cpu_its_packets_arrive_on() {
        let cpus = affinity::allowed_cpus();
        let [a, b, ..] = cpus[..] else {
            eprintln!("skipped: one CPU allowed ({cpus:?})");
            return;
        };
        // Worker 0 is this test's thread (a single-threaded runtime); a
        // worker's `cpu` is set once it is bound.
        let (listener, mut workers, permits) = two_workers(Placement::Cpu).await;
        assert_eq!((workers.workers[0].cpu, workers.workers[1].cpu), (Some(a), Some(b)));
        assert_eq!(affinity::allowed_cpus(), vec![a], "worker 0 is bound");
        let open = |workers: &Workers| (workers.workers[0].tracker.open(), workers.workers[1].tracker.open());

        // Each client's connection on the worker of its CPU, whichever has
        // fewer open.
        let on_b = connect_on(b, &listener, &mut workers, &permits).await;
        assert_eq!(open(&workers), (0, 1));
        let on_a = connect_on(a, &listener, &mut workers, &permits).await;
        assert_eq!(open(&workers), (1, 1));
        drop(on_b);

        // The client on `a` moves to `b`: within two checks its connection
        // is moved, and no sooner than one.
        let moved_after = on_cpu(b, move |runtime| {
            runtime.block_on(async {
                let mut client = TcpStream::from_std(on_a).expect("tokio socket");
                for request in 1..=2 * affinity::CHECK_EVERY + 1 {
                    if get(&mut client).await.contains("connection: close") {
                        return Some(request);
                    }
                }
                None
            })
        });
        let moved_after = tokio::task::spawn_blocking(move || moved_after.join().expect("client")).await.expect("join");
        let moved_after = moved_after.expect("moved");
        assert!(moved_after >= affinity::CHECK_EVERY, "moved after {moved_after} requests");
        assert_eq!(workers.serving.state.metrics.moved_connections.load(Relaxed), 1);
        assert!(workers.drain().await);
        assert_eq!(affinity::allowed_cpus(), cpus, "the thread gets its CPUs back");
    }
}
