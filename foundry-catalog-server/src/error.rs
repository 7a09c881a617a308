//! Why the server could not start.

/// Why the server could not start or run.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum ServeError {
    /// The async runtime or the signal handlers could not be set up.
    #[error("cannot start: {0}")]
    Start(#[from] std::io::Error),
    /// The catalog has problems; nothing was served.
    #[error("{0}")]
    Catalog(foundry_catalog_serving::catalog::CatalogErrors),
    /// The record-type definitions ([`crate::RecordTypes`]) have problems,
    /// one per line; nothing was served.
    #[error("{0}")]
    RecordTypes(String),
    /// The state folder cannot be used.
    #[error("{0}")]
    State(String),
    /// The origin could not be pulled from, and there is no last good
    /// artifact: unreachable, a wrong answer, or a download that could
    /// not be kept (`{origin}: the origin is unreachable: …`).
    #[error("{0}")]
    Origin(String),
    /// The address could not be bound.
    #[error("cannot listen on {addr}: {source}")]
    Bind {
        /// The address.
        addr: std::net::SocketAddr,
        /// What the operating system said.
        source: std::io::Error,
    },
}
