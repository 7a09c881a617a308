//! One load of the catalog, at start or on reload: the record types read
//! (for a folder), the verify keys of the moment, the catalog built, read
//! or downloaded from its source, then the release checks (sequence,
//! expiry) against what is being served.

use foundry_catalog_serving::artifact::ArtifactError;
use foundry_catalog_serving::catalog::{BodyCache, CatalogError, CatalogErrors, ResponseCatalog};
use foundry_catalog_serving::replica::{self, PullError, Releases, StateDir};

use crate::config::{CatalogSource, Config};

/// What a load gave.
#[derive(Debug)]
pub(crate) enum Loaded {
    /// A catalog to serve from now on, and the record types the server
    /// was given (`/openapi.json` describes them).
    New(Box<ResponseCatalog>, Vec<foundry_catalog_core::RecordSchema>),
    /// The origin's artifact is the one being served (a 304), and the
    /// record types the server was given, as for [`Loaded::New`].
    Unchanged(Vec<foundry_catalog_core::RecordSchema>),
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
    /// The origin, its state folder and its releases, for a catalog
    /// pulled from one.
    pub(crate) origin: Option<replica::Replica>,
    /// The highest sequence served of any other source (kept in the state
    /// folder when there is one), and that folder, locked.
    releases: Releases,
    _state_dir: Option<StateDir>,
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
        let origin = match (&config.source, &config.state_dir) {
            (CatalogSource::Url(url), Some(dir)) => {
                let settings = replica::Settings::default().origin_timeout(config.origin_timeout);
                Some(replica::Replica::open(url, dir, settings)?)
            }
            (CatalogSource::Url(url), None) => {
                return Err(format!(
                    "{url}: a catalog from an origin needs --state-dir, the folder its downloads and the last good artifact are kept in"
                ));
            }
            _ => None,
        };
        let state_dir = match (&origin, &config.state_dir) {
            (None, Some(dir)) => Some(StateDir::open(dir)?.0),
            _ => None,
        };
        let releases = Releases::open(state_dir.as_ref().map(StateDir::path))?;
        let verified = !config.verify_keys.is_empty() || config.verify_key_dir.is_some();
        Ok(Replica {
            origin,
            releases,
            _state_dir: state_dir,
            body_cache: BodyCache::new(config.body_cache_bytes),
            verified,
        })
    }

    /// The highest sequence served, and the release rules.
    pub(crate) fn releases(&self) -> &Releases {
        self.origin.as_ref().map_or(&self.releases, replica::Replica::releases)
    }
}

/// Loads the catalog `config` names, to serve after `current` (if any).
pub(crate) fn load(config: &Config, replica: &Replica, current: Option<&ResponseCatalog>) -> Result<Loaded, LoadError> {
    let open = config.open_options()?.body_cache(replica.body_cache.clone());
    // Read with every load, whatever the source: the OpenAPI document
    // describes them, and a folder of manifests is built with them.
    let types = config.record_types.load().map_err(LoadError::RecordTypes)?;
    let catalog = match (&config.source, &replica.origin) {
        (CatalogSource::Url(_), Some(origin)) => match origin.pull(&open, current) {
            Ok(Some(catalog)) => catalog,
            Ok(None) => return Ok(Loaded::Unchanged(types)),
            Err(replica::Error::Catalog(errors)) => return Err(LoadError::Catalog(errors)),
            Err(replica::Error::Origin { origin, error }) => return Err(LoadError::Origin { origin, error }),
            Err(other) => return Err(problem(&config.source.to_string(), other.to_string())),
        },
        (source, _) => {
            // An artifact is served as built: its record types are its own.
            let built_with = if matches!(source, CatalogSource::Dir(_)) { types.as_slice() } else { &[] };
            let pages = config.pages.for_source(source, config.addr)?;
            let catalog = source.load(built_with, &open, config.max_manifest_bytes, current, pages)?;
            replica.releases().admitted(catalog, &source.to_string(), current)?
        }
    };
    let catalog = if config.pages.no_pages { catalog.without_pages() } else { catalog };
    replica.releases().activate(catalog.metadata()).map_err(|reason| problem(&config.source.to_string(), reason))?;
    Ok(Loaded::New(Box::new(catalog), types))
}

/// A problem getting or keeping an artifact (summed up as an artifact's).
fn problem(file: &str, reason: String) -> LoadError {
    LoadError::Catalog(CatalogError::Artifact { file: file.to_owned(), error: ArtifactError::Read(reason) }.into())
}
