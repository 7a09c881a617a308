//! The server as a process: its runtime and its signals.
//!
//! SIGTERM and SIGINT are honoured in every state: during the start-up
//! load (a pull from an origin that never answers included: the load runs
//! on the blocking pool, and the signal ends the process without it),
//! while serving (a drain of at most the drain timeout), and while a pull
//! or a check runs (it is not waited for: its partial download is removed
//! at the next start, see `foundry_catalog_serving::replica::StateDir`).

use std::future::Future;
use std::pin::Pin;

use tokio::signal::unix::{SignalKind, signal};

use crate::config::Config;
use crate::error::ServeError;
use crate::server::Server;

/// Runs the server as a process: builds the catalog, binds, serves until
/// SIGTERM or SIGINT and drains; SIGHUP reloads the catalog. Returns when
/// the drain is over, or at once when the signal comes before the catalog
/// is loaded.
pub fn run(config: Config) -> Result<(), ServeError> {
    // The accept loop, the first worker, the signals and the reloads run on
    // this thread; every other worker on a thread of its own.
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build()?;
    let result = runtime.block_on(async move {
        let mut stop = stop_signal()?;
        let mut hangup = signal(SignalKind::hangup())?;
        let server = tokio::select! {
            server = Server::bind(config) => server?,
            name = &mut stop => {
                tracing::info!("{name} before the catalog was loaded: exiting");
                return Ok(());
            }
        };
        let handle = server.handle();
        tokio::spawn(async move {
            while hangup.recv().await.is_some() {
                tracing::info!("SIGHUP: reloading the catalog");
                handle.reload();
            }
        });
        server
            .run_until(async move {
                let name = stop.await;
                tracing::info!("{name}: shutting down");
            })
            .await;
        Ok(())
    });
    // A load still running on the blocking pool (a pull from an origin
    // that hangs, a check of a large download) is not waited for: what it
    // would have served is not needed any more.
    runtime.shutdown_background();
    result
}

/// A future that resolves to the name of the first SIGTERM or SIGINT.
fn stop_signal() -> std::io::Result<Pin<Box<dyn Future<Output = &'static str> + Send>>> {
    let mut terminate = signal(SignalKind::terminate())?;
    let mut interrupt = signal(SignalKind::interrupt())?;
    Ok(Box::pin(async move {
        tokio::select! {
            _ = terminate.recv() => "SIGTERM",
            _ = interrupt.recv() => "SIGINT",
        }
    }))
}
