//! A catalog kept current from an origin, as a fleet of replicas keeps
//! it: any web server, object store or CDN that answers `GET` with an
//! ETag holds signed artifacts, and each replica pulls the newest into a
//! state folder of its own, checks it whole, and serves it (feature
//! `replica`).
//!
//! ```no_run
//! use std::time::Duration;
//! use foundry_catalog_serving::catalog::OpenOptions;
//! use foundry_catalog_serving::replica::{Replica, Settings};
//! use foundry_catalog_serving::service::SharedCatalog;
//! use foundry_catalog_serving::signing::VerifyKey;
//!
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let key = VerifyKey::read("ci.pub".as_ref())?;
//! let open = OpenOptions::default().verify_keys(vec![key]);
//! let replica = Replica::open("https://origin.example.net/catalog.fcat", "/var/lib/catalog".as_ref(), Settings::default())?;
//! // The origin's artifact, or at worst the last good one of the state folder.
//! let catalog = SharedCatalog::new(replica.start(&open)?);
//! // Polled every 30 s (with jitter, and backoff after failures) on a thread of its own.
//! let poller = replica.keep_current(catalog.clone(), open, Duration::from_secs(30));
//! // … serve `catalog` with `CatalogService`; on shutdown:
//! poller.stop();
//! # Ok(()) }
//! ```
//!
//! What it promises (each held by a test against a misbehaving origin):
//!
//! - **Only checked bytes are served.** A new artifact is checked whole
//!   (CRC, signature with the verify keys, every body against its ETag,
//!   the products' tiling) before it replaces the one served; its release
//!   is admitted only in sequence order and before its expiry, the
//!   highest sequence served kept in the state folder across restarts
//!   ([`Releases`]).
//! - **Only what changed is pulled** ([`crate::delta`]): with a last good
//!   artifact, the first 64 KiB, the head's changed blocks and the changed
//!   bodies, in ranges asked `If-Range` the new artifact's ETag. An
//!   origin may serve a packed artifact (`build --packs`, its list at the
//!   URL and `fcpacks/` beside it): the list is read, and each range asked
//!   of the packs holding it.
//! - **Every fault heals without a human**: a delta that fails (a range
//!   corrupted, cut, of another version, or bytes of the last good file
//!   damaged on disk) is asked for whole in the same pull; only what an
//!   artifact's signed head says of it (signature, key, sequence, expiry)
//!   is remembered as refused under its ETag; a body of the last good file
//!   that fails its check while served is repaired from the origin
//!   ([`Replica::repair`]); at start, a last good file older than the
//!   highest sequence served is set aside and the origin asked; partial
//!   downloads of a process that ended mid-pull are removed when the next
//!   one opens the state folder, which one process holds at a time
//!   ([`StateDir`]); an origin without a strong ETag is told unchanged by
//!   the summary's content digest, in its first 64 KiB.

mod backoff;
mod delta_pull;
mod download;
mod failure;
mod last_good;
mod origin;
mod packs;
mod poller;
mod pull;
mod release;
mod state_dir;

use std::path::Path;
use std::time::Duration;

use crate::catalog::{CatalogErrors, OpenOptions, ResponseCatalog};

pub use backoff::Backoff;
pub use download::PullCounters;
pub use failure::{Failure, PullError, is_verdict};
pub use poller::Poller;
pub use release::Releases;
pub use state_dir::StateDir;

/// How a replica talks to its origin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub struct Settings {
    /// The bound of one whole exchange with the origin (a whole download
    /// included); a connection gets a tenth of it, at most 10 s.
    pub origin_timeout: Duration,
}

impl Settings {
    /// The default [`Settings::origin_timeout`]: 5 minutes.
    pub const ORIGIN_TIMEOUT: Duration = Duration::from_secs(300);

    /// Sets [`Settings::origin_timeout`].
    #[must_use]
    pub fn origin_timeout(mut self, timeout: Duration) -> Self {
        self.origin_timeout = timeout;
        self
    }
}

impl Default for Settings {
    fn default() -> Self {
        Settings { origin_timeout: Settings::ORIGIN_TIMEOUT }
    }
}

/// Why a pull gave no catalog.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// The artifact (or the last good one) fails its checks, or its
    /// release is not admitted: each problem.
    #[error("{0}")]
    Catalog(CatalogErrors),
    /// The origin could not be pulled from (unreachable, a wrong answer),
    /// or what was pulled could not be kept.
    #[error("{origin}: {error}")]
    Origin {
        /// The origin's URL.
        origin: String,
        /// What went wrong.
        error: PullError,
    },
}

impl From<CatalogErrors> for Error {
    fn from(errors: CatalogErrors) -> Self {
        Error::Catalog(errors)
    }
}

impl Error {
    /// What kind of failure it is, as `/metrics` counts it.
    pub fn failure(&self) -> Failure {
        match self {
            Error::Catalog(_) => Failure::Refused,
            Error::Origin { error, .. } => error.failure,
        }
    }
}

/// A replica of an origin's catalog: its state folder (locked while this
/// value lives), the highest sequence it has served, and the origin.
#[derive(Debug)]
pub struct Replica {
    origin: origin::Origin,
    releases: Releases,
    state_dir: StateDir,
}

impl Replica {
    /// A replica of the artifact at `url` (`http://` or `https://`), its
    /// state in `state_dir` (made if missing; locked, and cleared of what
    /// an earlier process left half written, which is logged).
    pub fn open(url: &str, state_dir: &Path, settings: Settings) -> Result<Replica, String> {
        let (state_dir, removed) = StateDir::open(state_dir)?;
        if !removed.is_empty() {
            tracing::info!(
                state_dir = %state_dir.path().display(),
                "removed {} file(s) an earlier process left half written: {}",
                removed.len(),
                removed.join(", ")
            );
        }
        let releases = Releases::open(Some(state_dir.path()))?;
        let connect = (settings.origin_timeout / 10).min(Duration::from_secs(10));
        let origin = origin::Origin::new(url, state_dir.path(), connect, settings.origin_timeout);
        Ok(Replica { origin, releases, state_dir })
    }

    /// Pulls from the origin once: a new catalog to serve after `current`
    /// (opened with `open`: its verify keys, size limit and body cache),
    /// or `None` when `current` is the origin's. Without `current` (at
    /// start), the origin's artifact, or the last good one of the state
    /// folder when the origin cannot be reached, is unchanged or holds an
    /// artifact that is refused: never `None`. The catalog returned is
    /// kept as the last good one and its sequence recorded; serve it.
    pub fn pull(
        &self,
        open: &OpenOptions,
        current: Option<&ResponseCatalog>,
    ) -> Result<Option<ResponseCatalog>, Error> {
        pull::pull(&self.origin, open, &self.releases, current)
    }

    /// [`Replica::pull`] at start: the catalog to serve first.
    pub fn start(&self, open: &OpenOptions) -> Result<ResponseCatalog, Error> {
        match self.pull(open, None)? {
            Some(catalog) => Ok(catalog),
            None => Err(Error::Origin {
                origin: self.origin.to_string(),
                error: PullError::from("no catalog to start with".to_owned()),
            }),
        }
    }

    /// A body of the catalog served failed its check (a 503): the next
    /// pull downloads the artifact whole, even if the origin's is
    /// unchanged, and replaces the last good file with it. `false` when a
    /// repair was already asked for and not yet made.
    pub fn repair(&self) -> bool {
        self.origin.files.repair_once()
    }

    /// The highest sequence served, and the release rules.
    pub fn releases(&self) -> &Releases {
        &self.releases
    }

    /// What its pulls have cost.
    pub fn counters(&self) -> &PullCounters {
        self.origin.counters()
    }

    /// Its state folder.
    pub fn state_dir(&self) -> &Path {
        self.state_dir.path()
    }

    /// The origin's URL.
    pub fn url(&self) -> String {
        self.origin.to_string()
    }

    /// Keeps `catalog` current on a thread of its own ([`Poller`]).
    pub fn keep_current(self, catalog: crate::service::SharedCatalog, open: OpenOptions, interval: Duration) -> Poller {
        Poller::start(self, catalog, open, interval)
    }
}
