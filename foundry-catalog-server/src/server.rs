//! The server: bind, then accept connections and hand them to the
//! workers until shutdown; then stop accepting, turn readiness to 503 and
//! drain.

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;
use std::sync::atomic::Ordering::Relaxed;
use std::time::Duration;

use hyper::server::conn::http1;
use hyper_util::rt::TokioTimer;
use tokio::net::TcpListener;
use tokio::sync::{Semaphore, mpsc, watch};
use tokio::time::Instant;
use tracing::{debug, info, warn};

use crate::config::{CatalogSource, Config};
use crate::error::ServeError;
use crate::load::{LoadError, Loaded, Replica};
use crate::reload::{Watcher, reloader};
use crate::state::State;
use crate::workers::{Serving, Workers};

/// A bound server, not yet accepting. [`Server::run`] serves until
/// shutdown is asked for through a [`Handle`] (or the future given to
/// [`Server::run_until`]).
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
        // On the blocking pool: a pull can wait minutes for an origin, and
        // the runtime goes on meanwhile (signals, for one).
        let (config, replica, loaded) = tokio::task::spawn_blocking(move || {
            let replica = Replica::open(&config)?;
            let loaded = crate::load::load(&config, &replica, None);
            Ok::<_, String>((config, replica, loaded))
        })
        .await
        .map_err(|panic| ServeError::State(format!("the start-up load failed (a bug): {panic}")))?
        .map_err(ServeError::State)?;
        let catalog = match loaded {
            Ok(Loaded::New(catalog, types)) => (*catalog, types),
            // At start nothing is served, so the loader never says so.
            Ok(Loaded::Unchanged(_)) => return Err(ServeError::State("no catalog to start with".to_owned())),
            Err(LoadError::RecordTypes(problems)) => return Err(ServeError::RecordTypes(problems)),
            Err(LoadError::Catalog(errors)) => return Err(ServeError::Catalog(errors)),
            Err(LoadError::Origin { origin, error }) => return Err(ServeError::Origin(format!("{origin}: {error}"))),
        };
        let listener =
            TcpListener::bind(config.addr).await.map_err(|source| ServeError::Bind { addr: config.addr, source })?;
        let (reload, reloads) = mpsc::unbounded_channel();
        let (shutdown_tx, shutdown) = watch::channel(false);
        let state = State::new(catalog.0, replica);
        state.describe(&catalog.1);
        state.reloads_to(reload.clone());
        Ok(Server {
            state,
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
        let config = Arc::new(config);
        tokio::spawn(reloader(Arc::clone(&state), Arc::clone(&config), reloads));
        tokio::spawn(crate::reload::warn_on_expiry(Arc::clone(&state)));
        let watched = match &config.source {
            // A folder is built with the record types and the templates: their folders too.
            CatalogSource::Dir(path) => [path]
                .into_iter()
                .chain(config.record_types.folders())
                .chain(config.pages.templates.as_ref().filter(|_| !config.pages.no_pages))
                .cloned()
                .collect(),
            CatalogSource::Artifact(path) => vec![path.clone()],
            CatalogSource::Embedded | CatalogSource::Url(_) => Vec::new(),
        };
        if matches!(config.source, CatalogSource::Url(_)) {
            tokio::spawn(crate::reload::poller(Arc::clone(&state), config.poll_interval, handle.reload.clone()));
        }
        if config.watch && !watched.is_empty() {
            let watcher = Watcher::start(watched).await;
            tokio::spawn(watcher.run(config.watch_interval, handle.reload.clone()));
        }
        let local = listener.local_addr().map_or_else(|_| config.addr.to_string(), |a| a.to_string());
        let catalog = state.catalog.load();
        let metadata = catalog.metadata();
        let verified = !config.verify_keys.is_empty() || config.verify_key_dir.is_some();
        let signed_by = crate::metrics::signed_by(catalog.artifact());
        // Without a verify key, a signature's key is only what the file claims.
        let signed_by = match catalog.artifact().signature() {
            Some(_) if !verified => format!("{signed_by} (not verified)"),
            _ => signed_by,
        };
        if !verified {
            warn!(
                source = %config.source,
                %signed_by,
                "serving an unverified catalog: no --verify-key, so whoever can write the catalog decides what is served"
            );
        }
        if let Some(pages) = metadata.pages.as_ref().filter(|_| catalog.has_pages()) {
            if matches!(config.source, CatalogSource::Embedded)
                && config.pages.site_url.is_none()
                && !pages.site.is_empty()
            {
                warn!(
                    site = %pages.site,
                    "the pages name this server's own address as their canonical host: no --site-url was given; hint: give the public site's URL with --site-url"
                );
            } else {
                let site = foundry_catalog_pages::Site::new(&pages.site)
                    .unwrap_or_else(|_| foundry_catalog_pages::Site::unknown());
                // An artifact's pages were built as they are: the site is `build`'s to give.
                let built = matches!(config.source, CatalogSource::Artifact(_) | CatalogSource::Url(_));
                for warning in foundry_catalog_pages::sitemap::warnings(&site) {
                    let warning =
                        if built { warning.replace("with --site-url", "with `build --site-url`") } else { warning };
                    warn!("{warning}");
                }
            }
        }
        info!(
            addr = %local,
            source = %config.source,
            products = catalog.len(),
            content_sha256 = %metadata.content_sha256,
            generator = ?metadata.generator,
            record_types = %crate::state::record_types(metadata),
            %signed_by,
            verified,
            workers = config.workers,
            max_connections = config.max_connections,
            pages = %metadata.pages.as_ref().map_or("none", |p| if p.site.is_empty() { "built without a site" } else { &p.site }),
            "serving http://{local}/api/public/foundry/products/{{slug}}{}",
            if catalog.has_pages() { " and the product pages" } else { "" },
        );
        let serving = Serving { state: Arc::clone(&state), builder: Arc::new(http1_builder(&config)), config };
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

/// hyper's HTTP/1.1 settings: keep-alive, the head limits; no timeouts
/// (hyper's header timer would also close idle keep-alive connections at
/// the header timeout: the workers' trackers keep the two apart, see
/// `crate::tracker`).
fn http1_builder(config: &Config) -> http1::Builder {
    let mut builder = http1::Builder::new();
    builder
        .timer(TokioTimer::new())
        .header_read_timeout(None)
        .keep_alive(true)
        .max_header_size(config.max_header_bytes)
        .max_buf_size(config.max_header_bytes.max(8192));
    // hyper caps headers at 100 unless told otherwise; telling it makes it
    // size and fill two header arrays on every request (2.5 % of a
    // request's CPU time), so the cap is set only when it differs.
    if config.max_headers != Config::HYPER_MAX_HEADERS {
        builder.max_headers(config.max_headers);
    }
    builder
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
