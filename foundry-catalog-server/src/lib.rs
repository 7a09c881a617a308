//! # foundry-catalog-server
//!
//! Serves `GET /api/public/foundry/products/{slug}` from a
//! `ResponseCatalog` of pre-built bodies over HTTP/1.1, ready to sit
//! behind nothing but a TCP load balancer. All product request handling is
//! `foundry_catalog_serving::endpoint::answer`; this crate runs the sockets:
//!
//! - **a thread per core**: [`Config::workers`] workers, the server's own
//!   runtime and threads with a single-threaded runtime each; the accept
//!   loop hands each connection to the one with the fewest open
//!   connections, where it stays;
//! - **bounded resources**: a header timeout (from a request's first byte)
//!   and an idle timeout, a cap on open connections (over it, a new
//!   connection is closed at once and counted), request heads capped in
//!   bytes and headers (431), no request body ever read, accept errors
//!   logged and survived;
//! - **graceful lifecycle**: SIGTERM or SIGINT (in any state, a pull in
//!   flight or the start-up load included) stop accepting, turn
//!   `/readyz` to 503, let in-flight requests finish and close idle
//!   connections within a drain timeout, then exit 0; SIGHUP (or a change
//!   in the catalog's file or folder, or in a record-type definition
//!   folder, with [`Config::watch`]) rebuilds the catalog off the request
//!   path and swaps it in whole, or keeps the old one and logs every
//!   problem;
//! - **replicas**: a catalog pulled from an origin ([`CatalogSource::Url`]:
//!   downloaded into [`Config::state_dir`], checked whole, polled with
//!   `If-None-Match`), artifacts admitted in sequence order only and not
//!   past their expiry (the highest sequence kept across restarts), and
//!   several verify keys at once; every fault healed by the next pull
//!   (`foundry_catalog_serving::replica`, which this crate uses as any
//!   application can);
//! - **observability**: `tracing` logs (text or JSON), one access-log line
//!   per request (target `access`), `/healthz`, `/readyz` and `/metrics`
//!   (Prometheus text format).
//!
//! Its public API: [`Config`], [`CatalogSource`] and [`RecordTypes`], [`default_catalog`],
//! [`Server`] (bind, then run) with its [`Handle`], [`run`] (the whole
//! process, signals included, as `foundry-catalog serve` uses it),
//! [`init_logging`]. The `clap` feature derives `clap::Args` for
//! [`Config`] and `clap::ValueEnum` for [`LogFormat`].
//!
//! How a request travels, top-down: `process` (signals) → `server` (bind,
//! accept, drain) → `workers` (which thread serves a connection) →
//! `connection` (hyper on one socket, its timeouts and drain, through
//! `io` and `tracker`) → `handler` (one request, one response) → `state`
//! (the catalog, readiness, `metrics`). `reload` rebuilds the catalog.
//!
//! Unix only (Linux, macOS), as `foundry-catalog-serving` is: signals,
//! inode and ctime stamps.

#![forbid(unsafe_code)]
#![warn(missing_docs)]
#![cfg_attr(docsrs, feature(doc_cfg))]

mod config;
mod connection;
mod default;
mod error;
mod handler;
mod io;
mod load;
mod log;
mod metrics;
mod process;
mod reload;
mod server;
mod state;
mod tracker;
mod workers;

pub use config::{CatalogSource, Config, PageOptions, RecordTypes, parse_size, parse_size_or_zero};
pub use default::default_catalog;
pub use error::ServeError;
pub use log::{LogFormat, init_logging};
pub use process::run;
pub use server::{Handle, Server};
