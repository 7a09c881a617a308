//! The server as a process: its runtime and its signals.

use tokio::signal::unix::{SignalKind, signal};

use crate::config::Config;
use crate::error::ServeError;
use crate::server::Server;

/// Runs the server as a process: builds the catalog, binds, serves until
/// SIGTERM or SIGINT and drains; SIGHUP reloads the catalog. Returns when
/// the drain is over.
pub fn run(config: Config) -> Result<(), ServeError> {
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
