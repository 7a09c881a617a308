//! # foundry-catalog-server
//!
//! Serves `GET /api/public/foundry/products/{slug}` from a
//! `ResponseCatalog` of pre-built bodies over HTTP/1.1, ready to sit
//! behind nothing but a TCP load balancer. All product request handling is
//! `foundry_catalog::serving::respond`; this crate runs the sockets:
//!
//! - **a thread per core**: `Config::workers` workers, the server's own
//!   runtime and threads with a single-threaded runtime each; the accept
//!   loop hands each connection to the least busy one, where it stays;
//!   while the workers wait for a CPU (the machine is shared), fewer of
//!   them take connections; or each is bound to a CPU and gets the
//!   connections whose packets arrive there ([`Placement`]);
//! - **bounded resources**: a header timeout (from a request's first byte)
//!   and an idle timeout, a cap on open connections (over it, a new
//!   connection is closed at once and counted), request heads capped in
//!   bytes and headers (431), no request body ever read, accept errors
//!   logged and survived;
//! - **graceful lifecycle**: SIGTERM or SIGINT stop accepting, turn
//!   `/readyz` to 503, let in-flight requests finish and close idle
//!   connections within a drain timeout, then exit 0; SIGHUP (or a change
//!   in the catalog folder, with `watch`) rebuilds the catalog off the
//!   request path and swaps it in whole, or keeps the old one and logs
//!   every problem;
//! - **observability**: `tracing` logs (text or JSON), one access-log line
//!   per request (target `access`), `/healthz`, `/readyz` and `/metrics`
//!   (Prometheus text format).
//!
//! Its public API: [`Config`] and [`CatalogSource`], [`default_catalog`], [`Server`] (bind, then
//! run) with its [`Handle`], [`run`] (the whole process, signals
//! included, as `foundry-catalog serve` uses it), [`init_logging`].

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod affinity;
mod config;
mod deadline;
mod default;
mod handler;
mod log;
mod metrics;
mod placement;
mod server;
mod state;
mod workers;

pub use config::{CatalogSource, Config, default_max_connections};
pub use default::default_catalog;
pub use log::{LogFormat, init_logging};
pub use placement::Placement;
pub use server::{Handle, Server};

/// Why the server could not start or run.
#[derive(Debug, thiserror::Error)]
pub enum ServeError {
    /// The async runtime or the signal handlers could not be set up.
    #[error("cannot start: {0}")]
    Start(#[from] std::io::Error),
    /// The catalog has problems; nothing was served.
    #[error("{0}")]
    Catalog(foundry_catalog::catalog::CatalogErrors),
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: std::net::SocketAddr,
        /// What the operating system said.
        source: std::io::Error,
    },
}

/// Runs the server as a process: builds the catalog, binds, serves until
/// SIGTERM or SIGINT and drains; SIGHUP reloads the catalog. Returns when
/// the drain is over.
pub fn run(config: Config) -> Result<(), ServeError> {
    use tokio::signal::unix::{SignalKind, signal};
    // The accept loop, the first worker, the signals and the reloads run on
    // this thread; every other worker on a thread of its own.
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    runtime.block_on(async move {
        let mut terminate = signal(SignalKind::terminate())?;
        let mut interrupt = signal(SignalKind::interrupt())?;
        let mut hangup = signal(SignalKind::hangup())?;
        let server = Server::bind(config).await?;
        let handle = server.handle();
        tokio::spawn(async move {
            while hangup.recv().await.is_some() {
                tracing::info!("SIGHUP: reloading the catalog");
                handle.reload();
            }
        });
        server
            .run_until(async move {
                let name = tokio::select! {
                    _ = terminate.recv() => "SIGTERM",
                    _ = interrupt.recv() => "SIGINT",
                };
                tracing::info!("{name}: shutting down");
            })
            .await;
        Ok(())
    })
}
