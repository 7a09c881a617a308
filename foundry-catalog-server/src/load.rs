//! One load of the catalog, at start or on reload: the record types read
//! (for a folder), the verify keys of the moment, the catalog built, read
//! or downloaded from its source, then the release checks (sequence,
//! expiry) against what is being served.

use std::path::{Path, PathBuf};

use foundry_catalog_serving::artifact::{Artifact, ArtifactError};
use foundry_catalog_serving::catalog::{BodyCache, CatalogError, CatalogErrors, OpenOptions, ResponseCatalog};

use crate::config::{CatalogSource, Config};
use crate::origin::{Download, Failure, Fetched, Origin, PullError};
use crate::release::Releases;
use crate::state_dir::StateDir;

/// What a load gave.
#[derive(Debug)]
pub(crate) enum Loaded {
    /// A catalog to serve from now on.
    New(Box<ResponseCatalog>),
    /// The origin's artifact is the one being served (a 304).
    Unchanged,
}

/// Why a load gave no catalog.
#[derive(Debug)]
pub(crate) enum LoadError {
    /// The record-type definitions do not read: one problem per line.
    RecordTypes(String),
    /// The catalog, its keys, its download or its release checks have
    /// problems.
    Catalog(CatalogErrors),
    /// The origin could not be pulled from (unreachable, a wrong answer),
    /// or what was pulled could not be kept.
    Origin {
        /// The origin's URL.
        origin: String,
        error: PullError,
    },
}

impl From<CatalogErrors> for LoadError {
    fn from(errors: CatalogErrors) -> Self {
        LoadError::Catalog(errors)
    }
}

/// What a replica keeps between loads: the highest sequence served, and
/// the origin it pulls from (if it does).
#[derive(Debug)]
pub(crate) struct Replica {
    pub(crate) releases: Releases,
    pub(crate) origin: Option<Origin>,
    /// Where every catalog it loads keeps bodies read from its file.
    pub(crate) body_cache: BodyCache,
    /// Whether what it serves was verified with a key (`--verify-key`,
    /// `--verify-key-dir`): else a signature's key says nothing of who
    /// made the artifact.
    pub(crate) verified: bool,
    /// The state folder, locked while this process runs.
    pub(crate) _state_dir: Option<StateDir>,
}

impl Replica {
    /// The replica `config` describes, its state folder read.
    pub(crate) fn open(config: &Config) -> Result<Replica, String> {
        let state_dir = match &config.state_dir {
            Some(dir) => {
                let (state_dir, removed) = StateDir::open(dir)?;
                if !removed.is_empty() {
                    tracing::info!(
                        state_dir = %dir.display(),
                        "removed {} file(s) an earlier process left half written: {}",
                        removed.len(),
                        removed.join(", ")
                    );
                }
                Some(state_dir)
            }
            None => None,
        };
        let releases = Releases::open(state_dir.as_ref().map(StateDir::path))?;
        let origin = match (&config.source, &config.state_dir) {
            (CatalogSource::Url(url), Some(dir)) => {
                let connect = (config.origin_timeout / 10).min(std::time::Duration::from_secs(10));
                Some(Origin::new(url, dir, connect, config.origin_timeout))
            }
            (CatalogSource::Url(url), None) => {
                return Err(format!(
                    "{url}: a catalog from an origin needs --state-dir, the folder its downloads and the last good artifact are kept in"
                ));
            }
            _ => None,
        };
        let verified = !config.verify_keys.is_empty() || config.verify_key_dir.is_some();
        Ok(Replica {
            releases,
            origin,
            body_cache: BodyCache::new(config.body_cache_bytes),
            verified,
            _state_dir: state_dir,
        })
    }
}

/// Loads the catalog `config` names, to serve after `current` (if any).
pub(crate) fn load(config: &Config, replica: &Replica, current: Option<&ResponseCatalog>) -> Result<Loaded, LoadError> {
    let open = config.open_options()?.body_cache(replica.body_cache.clone());
    let catalog = match (&config.source, &replica.origin) {
        (CatalogSource::Url(_), Some(origin)) => match pull(origin, &open, replica, current)? {
            Some(catalog) => catalog,
            None => return Ok(Loaded::Unchanged),
        },
        (source, _) => {
            // An artifact is served as built: its record types are its own.
            let dir = matches!(source, CatalogSource::Dir(_));
            let types = if dir { config.record_types.load().map_err(LoadError::RecordTypes)? } else { Vec::new() };
            let pages = config.pages.for_source(source, config.addr)?;
            let catalog = source.load(&types, &open, config.max_manifest_bytes, current, pages)?;
            admitted(catalog, &source.to_string(), replica, current)?
        }
    };
    let catalog = if config.pages.no_pages { catalog.without_pages() } else { catalog };
    replica.releases.activate(catalog.metadata()).map_err(|reason| problem(&config.source.to_string(), reason))?;
    Ok(Loaded::New(Box::new(catalog)))
}

/// A new catalog from the origin, or `None` when the one being served is
/// current. At start, an unchanged origin or one that cannot be reached
/// gives the last good artifact of the state folder.
///
/// A delta whose bodies fail their check (a range corrupted or changed on
/// the way, or the last good file damaged on disk) is not held against
/// the artifact: the artifact is asked for whole at once, and judged by
/// itself. Only what the artifact's signed head says of it (see
/// [`crate::origin::is_verdict`]) is remembered under its ETag.
fn pull(
    origin: &Origin,
    open: &OpenOptions,
    replica: &Replica,
    current: Option<&ResponseCatalog>,
) -> Result<Option<ResponseCatalog>, LoadError> {
    let last_good = origin.last_good();
    // A new artifact's signature is checked before its bodies are fetched.
    let check = |head: &Artifact| if open.verify_keys.is_empty() { Ok(()) } else { head.verify_any(&open.verify_keys) };
    // A start with a last good artifact waits little for the origin: that
    // artifact is served meanwhile, and polling goes on.
    let answer_within = (current.is_none() && last_good.is_some()).then_some(crate::origin::START_ANSWER);
    let have = current.is_some() || last_good.is_some();
    let mut fetched = origin.fetch(open.max_len, have, answer_within, &check);
    let from_last_good = |last_good: &Path| {
        let file = last_good.display().to_string();
        let catalog = origin.open_last_good(open)?;
        // Kept only once its sequence was recorded (see below): one above
        // the record means the record was lowered by hand.
        if let (Some(sequence), Some(highest)) = (catalog.metadata().sequence, replica.releases.highest())
            && sequence > highest
        {
            return Err(problem(
                &replica.releases.file_name(),
                format!(
                    "holds sequence {highest}, below that of the last good artifact ({sequence}), which was served: it was lowered by hand; hint: it holds the highest sequence served, so rollbacks stay refused across restarts: restore it, or remove it to trust the next artifact"
                ),
            ));
        }
        admitted(catalog, &file, replica, current).map(Some)
    };
    // Refused: remembered when its signed head says so, so it is not
    // fetched again while the origin holds it; at start, what was served
    // last time beats nothing.
    let refuse = |errors: CatalogErrors, etag: Option<&str>, last_good: Option<PathBuf>| {
        let reason = errors.errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ");
        let verdict = errors
            .errors
            .iter()
            .any(|e| matches!(e, CatalogError::Artifact { error, .. } if crate::origin::is_verdict(error)));
        if verdict {
            origin.refuse(etag, reason.clone());
        }
        if let (None, Some(last_good)) = (current, last_good) {
            tracing::warn!(
                origin = %origin,
                "the origin's artifact is refused ({reason}); serving the last good one, {}",
                last_good.display()
            );
            return from_last_good(&last_good);
        }
        Err(LoadError::Catalog(errors))
    };
    let mut last_good = last_good;
    loop {
        let result = match (fetched, current, last_good.clone()) {
            (Ok(Fetched::Refused { etag, error }), _, last_good) => {
                refuse(CatalogError::Artifact { file: origin.to_string(), error }.into(), etag.as_deref(), last_good)
            }
            (Ok(Fetched::Unchanged), Some(_), _) => Ok(None),
            (Ok(Fetched::Unchanged), None, Some(last_good)) => {
                tracing::info!(origin = %origin, "the origin's artifact is the last good one: serving it");
                from_last_good(&last_good)
            }
            (Ok(Fetched::Unchanged), None, None) => {
                Err(problem(&origin.to_string(), "answered 304 to no ETag".to_owned()))
            }
            (Ok(Fetched::New(download)), _, last_good) => {
                let file = origin.to_string();
                let catalog = match checked(&download, open, &file).and_then(|c| admitted(c, &file, replica, current)) {
                    Ok(catalog) => catalog,
                    Err(LoadError::Catalog(errors)) => {
                        let failed = |what: fn(&ArtifactError) -> bool| {
                            errors
                                .errors
                                .iter()
                                .any(|e| matches!(e, CatalogError::Artifact { error, .. } if what(error)))
                        };
                        // Not refused for what this process could not do (read
                        // it, or find the memory): tried again at the next poll.
                        let transient = failed(|e| matches!(e, ArtifactError::Read(_)));
                        if download.is_delta() && !transient && !failed(crate::origin::is_verdict) {
                            let reason = errors.errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ");
                            drop(download);
                            origin.distrust_last_good();
                            origin.counters().deltas_failed.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                            tracing::warn!(
                                origin = %origin,
                                "the delta failed its check ({reason}): a range changed or corrupted on the way, or the last good file damaged on disk; downloading the artifact whole"
                            );
                            fetched = origin.fetch(open.max_len, have, None, &check);
                            continue;
                        }
                        if transient {
                            if let (None, Some(last_good)) = (current, last_good) {
                                return from_last_good(&last_good);
                            }
                            return Err(LoadError::Catalog(errors));
                        }
                        return refuse(errors, download.etag(), last_good);
                    }
                    Err(other) => return Err(other),
                };
                // Its sequence recorded before it is kept: a last good
                // file is never above the highest sequence recorded.
                replica.releases.activate(catalog.metadata()).map_err(|reason| problem(&file, reason))?;
                origin.keep(download, catalog.artifact()).map_err(|e| LoadError::Origin {
                    origin: file.clone(),
                    error: PullError { failure: Failure::Local, message: format!("cannot keep the download: {e}") },
                })?;
                Ok(Some(catalog))
            }
            (Err(error), None, Some(last_good)) => {
                tracing::warn!(
                    origin = %origin,
                    reason = error.failure.label(),
                    "cannot get the artifact ({error}); serving the last good one, {}",
                    last_good.display()
                );
                from_last_good(&last_good)
            }
            (Err(error), _, _) => Err(LoadError::Origin { origin: origin.to_string(), error }),
        };
        // At start, a last good file below the highest sequence served
        // (an older file put in its place) is set aside, and the origin
        // asked for its artifact whole: not a reason to serve nothing.
        if let (None, Some(path), Err(LoadError::Catalog(errors))) = (current, &last_good, &result)
            && errors.errors.iter().any(|e| {
                matches!(e, CatalogError::Artifact { file, error: ArtifactError::Rollback { .. } | ArtifactError::NoSequence { .. } | ArtifactError::SequenceReused { .. } } if *file == path.display().to_string())
            })
        {
            let reason = errors.errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ");
            let aside = origin.set_aside_last_good().map_err(|e| LoadError::Origin {
                origin: origin.to_string(),
                error: PullError { failure: Failure::Local, message: format!("cannot set the last good artifact aside: {e}") },
            })?;
            tracing::warn!(
                origin = %origin,
                "the last good artifact cannot be served ({reason}): set aside as {}; downloading the origin's artifact whole",
                aside.display()
            );
            last_good = None;
            fetched = origin.fetch(open.max_len, false, None, &check);
            continue;
        }
        return result;
    }
}

/// A download opened, and its bodies checked against their ETags before
/// it may replace the last good artifact: every body, or, of a delta
/// copied from a last good file this process checked and unchanged
/// since, the bodies fetched.
fn checked(download: &Download, open: &OpenOptions, file: &str) -> Result<ResponseCatalog, LoadError> {
    download
        .open(open)
        .and_then(|catalog| {
            let artifact = catalog.artifact();
            let checked = match download.fetched() {
                Some(ranges) => artifact.check_bodies_in(ranges),
                None => artifact.check_bodies(),
            };
            checked.map_err(|error| CatalogErrors::from(CatalogError::Artifact { file: file.to_owned(), error }))?;
            Ok(catalog)
        })
        .map_err(|errors| LoadError::Catalog(renamed(errors, file)))
}

/// `catalog` if it may be served after `current` (sequence, expiry).
fn admitted(
    catalog: ResponseCatalog,
    file: &str,
    replica: &Replica,
    current: Option<&ResponseCatalog>,
) -> Result<ResponseCatalog, LoadError> {
    replica
        .releases
        .admit(catalog.metadata(), current.map(ResponseCatalog::metadata))
        .map_err(|error| CatalogErrors::from(CatalogError::Artifact { file: file.to_owned(), error }))?;
    Ok(catalog)
}

/// Problems of a downloaded file, named by the origin's URL.
fn renamed(mut errors: CatalogErrors, origin: &str) -> CatalogErrors {
    for error in &mut errors.errors {
        if let CatalogError::Artifact { file, .. } = error {
            *file = origin.to_owned();
        }
    }
    errors
}

/// A problem getting or keeping an artifact (summed up as an artifact's).
fn problem(file: &str, reason: String) -> LoadError {
    LoadError::Catalog(CatalogError::Artifact { file: file.to_owned(), error: ArtifactError::Read(reason) }.into())
}
