//! Server settings and their defaults.

use std::net::SocketAddr;
use std::path::PathBuf;
use std::time::Duration;

use foundry_catalog::catalog::{CatalogErrors, ResponseCatalog};

use crate::Placement;

/// Where the catalog comes from; reloads rebuild or reread it from the
/// same place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CatalogSource {
    /// The default catalog built into this crate ([`crate::default_catalog`]).
    Embedded,
    /// A folder of product manifests, built in memory at start and on
    /// every reload.
    Dir(PathBuf),
    /// An artifact file written by `foundry-catalog build`, read once at
    /// start and on every reload.
    Artifact(PathBuf),
}

impl CatalogSource {
    /// A folder of manifests or an artifact file, by what `path` is.
    pub fn from_path(path: PathBuf) -> Self {
        if path.is_dir() { CatalogSource::Dir(path) } else { CatalogSource::Artifact(path) }
    }

    /// Builds or loads and validates the catalog (all problems, each
    /// naming its file).
    pub fn build(&self) -> Result<ResponseCatalog, CatalogErrors> {
        match self {
            CatalogSource::Embedded => crate::default_catalog(),
            CatalogSource::Dir(dir) => ResponseCatalog::from_dir(dir),
            CatalogSource::Artifact(file) => ResponseCatalog::open(file),
        }
    }
}

impl std::fmt::Display for CatalogSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CatalogSource::Embedded => f.write_str("the default catalog"),
            CatalogSource::Dir(dir) => write!(f, "manifests in {}", dir.display()),
            CatalogSource::Artifact(file) => write!(f, "artifact {}", file.display()),
        }
    }
}

/// The default cap on request headers, which is also hyper's own default
/// (`server::run` leaves hyper's setting alone when they agree).
pub(crate) const DEFAULT_MAX_HEADERS: usize = 100;

/// Everything the server can be told. [`Config::new`] gives the defaults.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Config {
    /// The address to listen on.
    pub addr: SocketAddr,
    /// The catalog to serve.
    pub source: CatalogSource,
    /// How long a client has to send a request's headers, from its first
    /// byte (default 10 s). A dripping client is closed when it runs out.
    pub header_timeout: Duration,
    /// How long a connection may sit without traffic between requests or
    /// while a response is not being read (default 60 s).
    ///
    /// Both timeouts are checked once a tick, a sixteenth of the shorter
    /// one (at most 250 ms): a connection is closed at most two ticks
    /// after its time is up, never before.
    pub idle_timeout: Duration,
    /// How many threads accept and serve connections, each with a
    /// single-threaded runtime of its own; a connection stays on the
    /// thread that accepted it (default: the available parallelism).
    pub workers: usize,
    /// Which workers take new connections (default
    /// [`Placement::Adaptive`]: all of them while the CPUs have room, fewer
    /// while the workers wait for a CPU; [`Placement::Cpu`] binds each
    /// worker to a CPU and steers connections by the CPU their packets
    /// arrive on).
    pub placement: Placement,
    /// The most connections open at once; a connection over it is closed
    /// as soon as it is accepted, and counted (default: from the
    /// file-descriptor limit, see [`default_max_connections`]).
    pub max_connections: usize,
    /// The largest request head (request line and headers) in bytes; over
    /// it the answer is 431 (default 32 KiB).
    pub max_header_bytes: usize,
    /// The most request headers; over it the answer is 431 (default 100).
    pub max_headers: usize,
    /// How long in-flight requests may take to finish after SIGTERM or
    /// SIGINT before the server exits anyway (default 10 s).
    pub drain_timeout: Duration,
    /// Reload the catalog when a file in its folder changes (debounced).
    pub watch: bool,
    /// How often the folder is looked at when watching (default 500 ms).
    pub watch_interval: Duration,
}

impl Config {
    /// The defaults, serving `source` on `addr`.
    pub fn new(addr: SocketAddr, source: CatalogSource) -> Self {
        Config {
            addr,
            source,
            header_timeout: Duration::from_secs(10),
            idle_timeout: Duration::from_secs(60),
            workers: std::thread::available_parallelism().map_or(1, usize::from),
            placement: Placement::Adaptive,
            max_connections: default_max_connections(),
            max_header_bytes: 32 * 1024,
            max_headers: DEFAULT_MAX_HEADERS,
            drain_timeout: Duration::from_secs(10),
            watch: false,
            watch_interval: Duration::from_millis(500),
        }
    }
}

/// The default connection cap: the soft file-descriptor limit less a
/// headroom of a tenth (at least 32) for the listener, catalog files,
/// logs and the connections accepted only to be closed. 1,024 descriptors
/// give 922 connections.
pub fn default_max_connections() -> usize {
    let limit = rustix::process::getrlimit(rustix::process::Resource::Nofile).current.unwrap_or(1 << 20);
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    let headroom = (limit / 10).max(32);
    limit.saturating_sub(headroom).max(1)
}
