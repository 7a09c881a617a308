//! One load of the catalog, at start or on reload: the record types read
//! (for a folder), the verify keys of the moment, the catalog built, read
//! or downloaded from its source, then the release checks (sequence,
//! expiry) against what is being served.

use std::path::{Path, PathBuf};

use foundry_catalog_serving::artifact::{Artifact, ArtifactError};
use foundry_catalog_serving::catalog::{BodyCache, CatalogError, CatalogErrors, OpenOptions, ResponseCatalog};

use crate::config::{CatalogSource, Config};
use crate::origin::{Failure, Fetched, Origin, PullError};
use crate::release::Releases;

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
}

impl Replica {
    /// The replica `config` describes, its state folder read.
    pub(crate) fn open(config: &Config) -> Result<Replica, String> {
        let releases = Releases::open(config.state_dir.as_deref())?;
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
        Ok(Replica { releases, origin, body_cache: BodyCache::new(config.body_cache_bytes), verified })
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
    let fetched = origin.fetch(open.max_len, current.is_some() || last_good.is_some(), answer_within, &check);
    let from_last_good = |last_good: &Path| {
        let file = last_good.display().to_string();
        let catalog = origin.open_last_good(open)?;
        admitted(catalog, &file, replica, current).map(Some)
    };
    // Refused for what it is: remembered, so it is not fetched again
    // while the origin holds it; at start, what was served last time
    // beats nothing.
    let refuse = |errors: CatalogErrors, etag: Option<&str>, last_good: Option<PathBuf>| {
        let reason = errors.errors.iter().map(ToString::to_string).collect::<Vec<_>>().join("; ");
        origin.refuse(etag, reason.clone());
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
    match (fetched, current, last_good) {
        (Ok(Fetched::Refused { etag, error }), _, last_good) => {
            refuse(CatalogError::Artifact { file: origin.to_string(), error }.into(), etag.as_deref(), last_good)
        }
        (Ok(Fetched::Unchanged), Some(_), _) => Ok(None),
        (Ok(Fetched::Unchanged), None, Some(last_good)) => {
            tracing::info!(origin = %origin, "the origin's artifact is the last good one: serving it");
            from_last_good(&last_good)
        }
        (Ok(Fetched::Unchanged), None, None) => Err(problem(&origin.to_string(), "answered 304 to no ETag".to_owned())),
        (Ok(Fetched::New(download)), _, last_good) => {
            let file = origin.to_string();
            // A download is not trusted yet: every body is checked against
            // its ETag before it may replace the last good artifact.
            // Of a delta copied from a last good file checked by this
            // process and unchanged since, the bodies fetched.
            let checked = download
                .open(open)
                .and_then(|catalog| {
                    let artifact = catalog.artifact();
                    let checked = match download.fetched() {
                        Some(ranges) => artifact.check_bodies_in(ranges),
                        None => artifact.check_bodies(),
                    };
                    checked
                        .map_err(|error| CatalogErrors::from(CatalogError::Artifact { file: file.clone(), error }))?;
                    Ok(catalog)
                })
                .map_err(|errors| LoadError::Catalog(renamed(errors, &file)))
                .and_then(|catalog| admitted(catalog, &file, replica, current));
            let catalog = match checked {
                Ok(catalog) => catalog,
                Err(LoadError::Catalog(errors)) => {
                    // Not refused for what this process could not do (read
                    // it, or find the memory): tried again at the next poll.
                    let transient = errors
                        .errors
                        .iter()
                        .any(|e| matches!(e, CatalogError::Artifact { error: ArtifactError::Read(_), .. }));
                    // A delta's body that does not match may be the last
                    // good file's (damaged on disk): not refused, but
                    // downloaded whole at the next pull, which judges it.
                    let copied = download.is_delta()
                        && errors
                            .errors
                            .iter()
                            .any(|e| matches!(e, CatalogError::Artifact { error: ArtifactError::Body { .. }, .. }));
                    if copied {
                        origin.distrust_last_good();
                    }
                    if transient || copied {
                        if let (None, Some(last_good)) = (current, last_good) {
                            return from_last_good(&last_good);
                        }
                        return Err(LoadError::Catalog(errors));
                    }
                    return refuse(errors, download.etag(), last_good);
                }
                Err(other) => return Err(other),
            };
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
    }
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
