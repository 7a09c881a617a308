//! The accept loop, each connection's task, reloads and the drain.

use std::convert::Infallible;
use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::task::Poll;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper_util::rt::{TokioIo, TokioTimer};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::{Semaphore, mpsc, watch};
use tokio::time::Instant;
use tracing::{debug, error, info, warn};

use crate::affinity::Steer;
use crate::config::{CatalogSource, Config, DEFAULT_MAX_HEADERS};
use crate::deadline::{Phase, Signal, Tracker, Watched};
use crate::state::State;
use crate::workers::{Serving, Workers};
use crate::{ServeError, handler};

/// A bound server, not yet accepting. [`Server::run`] serves until
/// shutdown is asked for through a [`Handle`] (or the future given).
#[derive(Debug)]
pub struct Server {
    config: Config,
    state: Arc<State>,
    listener: TcpListener,
    handle: Handle,
    reloads: mpsc::UnboundedReceiver<()>,
    shutdown: watch::Receiver<bool>,
}

/// Asks a running server to reload its catalog or to shut down; cheap to
/// clone and send to other tasks.
#[derive(Debug, Clone)]
pub struct Handle {
    reload: mpsc::UnboundedSender<()>,
    shutdown: Arc<watch::Sender<bool>>,
}

impl Handle {
    /// Rebuilds the catalog from its source off the request path and, if
    /// it is valid, serves it from the next request on; otherwise logs
    /// every problem and keeps serving the old one (as SIGHUP does).
    pub fn reload(&self) {
        let _ = self.reload.send(());
    }

    /// Stops accepting, turns readiness to 503 and drains (as SIGTERM does).
    pub fn shutdown(&self) {
        self.shutdown.send_replace(true);
    }
}

impl Server {
    /// Builds and validates the catalog, then binds the address. Must be
    /// called inside a tokio runtime with I/O and time enabled.
    pub async fn bind(config: Config) -> Result<Server, ServeError> {
        let catalog = config.source.build().map_err(ServeError::Catalog)?;
        let listener =
            TcpListener::bind(config.addr).await.map_err(|source| ServeError::Bind { addr: config.addr, source })?;
        let (reload, reloads) = mpsc::unbounded_channel();
        let (shutdown_tx, shutdown) = watch::channel(false);
        Ok(Server {
            state: State::new(catalog),
            listener,
            handle: Handle { reload, shutdown: Arc::new(shutdown_tx) },
            reloads,
            shutdown,
            config,
        })
    }

    /// The bound address (with the real port when 0 was asked for).
    pub fn local_addr(&self) -> std::io::Result<SocketAddr> {
        self.listener.local_addr()
    }

    /// A handle to ask for reloads and shutdown.
    pub fn handle(&self) -> Handle {
        self.handle.clone()
    }

    /// Serves until shutdown is asked for, then stops accepting, turns
    /// readiness to 503, lets in-flight requests finish and closes idle
    /// connections, waiting at most the drain timeout.
    pub async fn run(self) {
        let Server { config, state, listener, handle, reloads, shutdown } = self;
        tokio::spawn(reloader(Arc::clone(&state), config.source.clone(), reloads));
        if config.watch
            && let CatalogSource::Dir(path) | CatalogSource::Artifact(path) = &config.source
        {
            tokio::spawn(watcher(path.clone(), config.watch_interval, handle.clone()));
        }
        let local = listener.local_addr().map_or_else(|_| config.addr.to_string(), |a| a.to_string());
        let catalog = state.catalog.load();
        let metadata = catalog.metadata();
        info!(
            addr = %local,
            source = %config.source,
            products = catalog.len(),
            content_sha256 = %metadata.content_sha256,
            generator = %metadata.generator,
            max_connections = config.max_connections,
            "serving http://{local}/api/public/foundry/products/{{slug}}",
        );
        let mut builder = http1::Builder::new();
        builder
            .timer(TokioTimer::new())
            // Timeouts are the workers' trackers' (see `deadline`): hyper's
            // header timer would also close idle keep-alive connections.
            .header_read_timeout(None)
            .keep_alive(true)
            .max_header_size(config.max_header_bytes)
            .max_buf_size(config.max_header_bytes.max(8192));
        // hyper caps headers at 100 unless told otherwise; telling it makes
        // it size and fill two header arrays on every request (2.5 % of a
        // request's CPU time), so the cap is set only when it differs.
        if config.max_headers != DEFAULT_MAX_HEADERS {
            builder.max_headers(config.max_headers);
        }
        let serving = Serving { state: Arc::clone(&state), builder: Arc::new(builder), config: Arc::new(config) };
        let workers = Workers::start(serving.config.workers, serving.clone());
        let drained = accept(listener, &serving, workers, shutdown).await;
        if drained {
            info!("drained; every connection closed");
        } else {
            warn!(
                open_connections = state.metrics.open_connections.load(Relaxed),
                "drain timeout reached; closing the remaining connections"
            );
        }
    }

    /// [`Server::run`] until `signal` resolves.
    pub async fn run_until(self, signal: impl Future<Output = ()> + Send + 'static) {
        let handle = self.handle();
        tokio::spawn(async move {
            signal.await;
            handle.shutdown();
        });
        self.run().await;
    }
}

/// Accepts connections and hands them to the workers until shutdown; then
/// stops accepting, turns readiness to 503 and waits for the workers to
/// drain. Returns whether every connection finished in time.
async fn accept(
    listener: TcpListener,
    serving: &Serving,
    mut workers: Workers,
    mut shutdown: watch::Receiver<bool>,
) -> bool {
    let state = &serving.state;
    let permits = Arc::new(Semaphore::new(serving.config.max_connections));
    let mut last_warning: Option<Instant> = None;
    loop {
        let accepted = tokio::select! {
            biased;
            _ = shutdown.wait_for(|stop| *stop) => break,
            accepted = listener.accept() => accepted,
        };
        match accepted {
            Ok((stream, peer)) => {
                let Ok(permit) = Arc::clone(&permits).try_acquire_owned() else {
                    state.metrics.refused.fetch_add(1, Relaxed);
                    debug!(%peer, "connection cap reached; closing the new connection");
                    drop(stream);
                    continue;
                };
                state.metrics.accepted.fetch_add(1, Relaxed);
                state.metrics.open_connections.fetch_add(1, Relaxed);
                let _ = stream.set_nodelay(true);
                workers.assign(stream, peer, permit);
            }
            Err(error) => {
                state.metrics.accept_errors.fetch_add(1, Relaxed);
                if last_warning.is_none_or(|at| at.elapsed() > Duration::from_secs(1)) {
                    warn!(%error, "accept failed; the server keeps running");
                    last_warning = Some(Instant::now());
                }
                // Out of descriptors or memory: give connections time to close.
                if !matches!(
                    error.kind(),
                    std::io::ErrorKind::ConnectionAborted
                        | std::io::ErrorKind::ConnectionReset
                        | std::io::ErrorKind::Interrupted
                ) {
                    tokio::time::sleep(Duration::from_millis(50)).await;
                }
            }
        }
    }
    drop(listener);
    state.drain();
    let open = state.metrics.open_connections.load(Relaxed);
    let timeout = serving.config.drain_timeout;
    info!(open_connections = open, drain_timeout = ?timeout, "draining: not accepting, readiness 503");
    workers.drain().await
}

/// One connection: HTTP/1.1 with keep-alive, closed when its worker's
/// tracker says its time is up, drained gracefully on shutdown; with
/// `steer` (under [`crate::Placement::Cpu`]) moved when its packets arrive
/// on another worker's CPU.
pub(crate) fn connection(
    state: Arc<State>,
    builder: &http1::Builder,
    stream: TcpStream,
    peer: SocketAddr,
    tracker: &Arc<Tracker>,
    steer: Option<Steer>,
) -> impl Future<Output = ()> + Send + 'static {
    let activity = tracker.track();
    let io = TokioIo::new(Watched::new(stream, Arc::clone(&activity), steer));
    let service_state = Arc::clone(&state);
    let service_activity = Arc::clone(&activity);
    let service = service_fn(move |request| {
        let mut response = handler::handle(&service_state, &request);
        if service_activity.moving() {
            // hyper closes the connection once this response is written.
            response.headers_mut().insert(hyper::header::CONNECTION, hyper::header::HeaderValue::from_static("close"));
        }
        async move { Ok::<_, Infallible>(response) }
    });
    let conn = builder.serve_connection(io, service);
    async move {
        tokio::pin!(conn);
        let mut draining = false;
        let ended = std::future::poll_fn(|cx| {
            match activity.signal(cx) {
                Signal::Run => {}
                Signal::Drain if !draining => {
                    draining = true;
                    conn.as_mut().graceful_shutdown();
                }
                Signal::Drain => {}
                Signal::Close(phase) => return Poll::Ready(Err(phase)),
            }
            conn.as_mut().poll(cx).map(Ok)
        })
        .await;
        match ended {
            Ok(Ok(())) => {}
            Ok(Err(error)) => debug!(%peer, %error, "connection ended with an error"),
            Err(phase) => {
                let counter = match phase {
                    Phase::Header => &state.metrics.header_timeouts,
                    Phase::Idle => &state.metrics.idle_timeouts,
                };
                counter.fetch_add(1, Relaxed);
                debug!(%peer, ?phase, "closing connection: timeout");
            }
        }
        state.metrics.open_connections.fetch_sub(1, Relaxed);
    }
}

/// Rebuilds the catalog for each reload request, off the request path.
async fn reloader(state: Arc<State>, source: CatalogSource, mut requests: mpsc::UnboundedReceiver<()>) {
    while requests.recv().await.is_some() {
        // Requests that came in meanwhile are served by this one rebuild.
        while requests.try_recv().is_ok() {}
        let build_source = source.clone();
        match tokio::task::spawn_blocking(move || {
            // The blocking pool's threads start with the CPUs of the thread
            // that started them, which `Placement::Cpu` binds to one.
            crate::affinity::unbind_here();
            build_source.build()
        })
        .await
        {
            Ok(Ok(catalog)) => {
                let (products, content) = (catalog.len(), catalog.metadata().content_sha256.clone());
                let generation = state.replace(catalog);
                state.metrics.reloads_ok.fetch_add(1, Relaxed);
                info!(products, generation, content_sha256 = %content, "catalog reloaded");
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
async fn watcher(path: std::path::PathBuf, interval: Duration, handle: Handle) {
    let mut seen = fingerprint(&path);
    let mut pending = false;
    loop {
        tokio::time::sleep(interval).await;
        let now = fingerprint(&path);
        if now != seen {
            seen = now;
            pending = true;
        } else if pending {
            pending = false;
            info!(path = %path.display(), "catalog changed; reloading");
            handle.reload();
        }
    }
}

/// Name, size and modification time of the file, or of each `*.json`
/// file of the folder, sorted.
fn fingerprint(path: &std::path::Path) -> Vec<(std::ffi::OsString, u64, Option<std::time::SystemTime>)> {
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
