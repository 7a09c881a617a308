//! `foundry-catalog serve`: the HTTP server (`foundry-catalog-server`).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::Duration;

use foundry_catalog_server::{CatalogSource, Config, LogFormat, Placement, ServeError};

use crate::{BROKEN, USAGE};

/// Serve GET /api/public/foundry/products/{slug} from pre-built bodies.
///
/// An artifact (`foundry-catalog build`) is loaded as is; a folder of
/// manifests is built and validated at start. A bad catalog stops the
/// server before it listens, naming the file and every problem. SIGTERM or SIGINT drain and exit 0; SIGHUP reloads the catalog
/// (a broken one is logged and the old one kept). /healthz, /readyz and
/// /metrics (Prometheus) sit outside the product path. Logs go to stderr;
/// RUST_LOG takes target=level pairs (for example `info,access=warn`).
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The address to listen on.
    #[arg(long, env = "FOUNDRY_CATALOG_ADDR", default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    /// Listen on this port instead of the one in --addr (platforms that
    /// hand out a port set PORT).
    #[arg(long, env = "PORT")]
    port: Option<u16>,
    /// An artifact file written by `foundry-catalog build` (loaded, no
    /// building), or a folder of product manifests (built in memory)
    /// [default: the catalog compiled in].
    #[arg(long, env = "FOUNDRY_CATALOG", value_name = "FILE|DIR")]
    catalog: Option<PathBuf>,
    /// Reload when --catalog (the file, or a manifest in the folder)
    /// changes (debounced).
    #[arg(long, env = "FOUNDRY_CATALOG_WATCH", requires = "catalog")]
    watch: bool,
    /// Time a client has to send a request's headers, from their first byte.
    #[arg(long, env = "FOUNDRY_CATALOG_HEADER_TIMEOUT", default_value = "10s", value_parser = duration)]
    header_timeout: Duration,
    /// Time a connection may sit without traffic.
    #[arg(long, env = "FOUNDRY_CATALOG_IDLE_TIMEOUT", default_value = "60s", value_parser = duration)]
    idle_timeout: Duration,
    /// Time in-flight requests get to finish on SIGTERM/SIGINT.
    #[arg(long, env = "FOUNDRY_CATALOG_DRAIN_TIMEOUT", default_value = "10s", value_parser = duration)]
    drain_timeout: Duration,
    /// Threads that accept and serve connections [default: the number of CPUs].
    #[arg(long, env = "FOUNDRY_CATALOG_WORKERS", value_parser = clap::value_parser!(u16).range(1..))]
    workers: Option<u16>,
    /// Which workers take new connections: `adaptive`, all of them while
    /// the CPUs have room and fewer while the workers wait for a CPU (a
    /// shared machine); `even`, all of them always; or `cpu`, each worker
    /// bound to a CPU and each connection on the worker on the CPU its
    /// packets arrive on (Linux).
    #[arg(long, env = "FOUNDRY_CATALOG_PLACEMENT", default_value = "adaptive", value_parser = ["adaptive", "even", "cpu"])]
    placement: String,
    /// Most connections open at once [default: the file-descriptor limit
    /// less a tenth, at least 32].
    #[arg(long, env = "FOUNDRY_CATALOG_MAX_CONNECTIONS", value_parser = clap::value_parser!(u32).range(1..))]
    max_connections: Option<u32>,
    /// Largest request head (request line and headers), in bytes; over it, 431.
    #[arg(long, env = "FOUNDRY_CATALOG_MAX_HEADER_BYTES", default_value_t = 32 * 1024,
          value_parser = clap::value_parser!(u32).range(1024..=1 << 20))]
    max_header_bytes: u32,
    /// Most request headers; over it, 431.
    #[arg(long, env = "FOUNDRY_CATALOG_MAX_HEADERS", default_value_t = 100,
          value_parser = clap::value_parser!(u32).range(1..=1000))]
    max_headers: u32,
    /// Log lines as text or JSON.
    #[arg(long, env = "FOUNDRY_CATALOG_LOG_FORMAT", default_value = "text", value_parser = ["text", "json"])]
    log_format: String,
}

fn duration(text: &str) -> Result<Duration, String> {
    let duration = humantime::parse_duration(text).map_err(|e| format!("{e} (write it like 10s, 500ms or 1m)"))?;
    if duration.is_zero() { Err("a timeout must be longer than zero".to_owned()) } else { Ok(duration) }
}

pub(crate) fn run(args: Args) -> ExitCode {
    foundry_catalog_server::init_logging(if args.log_format == "json" { LogFormat::Json } else { LogFormat::Text });
    let mut addr = args.addr;
    if let Some(port) = args.port {
        addr.set_port(port);
    }
    let source = args.catalog.map_or(CatalogSource::Embedded, CatalogSource::from_path);
    let mut config = Config::new(addr, source);
    config.watch = args.watch;
    config.header_timeout = args.header_timeout;
    config.idle_timeout = args.idle_timeout;
    config.drain_timeout = args.drain_timeout;
    config.max_header_bytes = usize::try_from(args.max_header_bytes).unwrap_or(usize::MAX);
    config.max_headers = usize::try_from(args.max_headers).unwrap_or(usize::MAX);
    if let Some(workers) = args.workers {
        config.workers = usize::from(workers);
    }
    config.placement = match args.placement.as_str() {
        "even" => Placement::Even,
        "cpu" => Placement::Cpu,
        _ => Placement::Adaptive,
    };
    if let Some(max) = args.max_connections {
        config.max_connections = usize::try_from(max).unwrap_or(usize::MAX);
    }
    match foundry_catalog_server::run(config) {
        Ok(()) => ExitCode::SUCCESS,
        Err(ServeError::Catalog(errors)) => {
            eprintln!("{errors}");
            ExitCode::from(BROKEN)
        }
        Err(e) => {
            eprintln!("error: {e}");
            ExitCode::from(USAGE)
        }
    }
}
