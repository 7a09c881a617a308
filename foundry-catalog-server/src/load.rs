//! One load of the catalog, at start or on reload: the record types read
//! (for a folder), the verify keys of the moment, the catalog built or
//! read from its source, then the release checks (sequence, expiry)
//! against what is being served.

use foundry_catalog_serving::catalog::{CatalogError, CatalogErrors, ResponseCatalog};

use crate::config::{CatalogSource, Config};
use crate::release::Releases;

/// Why a load gave no catalog.
#[derive(Debug)]
pub(crate) enum LoadError {
    /// The record-type definitions do not read: one problem per line.
    RecordTypes(String),
    /// The catalog, its keys or its release checks have problems.
    Catalog(CatalogErrors),
}

/// Loads the catalog `config` names, to serve after `current` (if any).
pub(crate) fn load(
    config: &Config,
    releases: &Releases,
    current: Option<&ResponseCatalog>,
) -> Result<ResponseCatalog, LoadError> {
    // An artifact is served as built: its record types are its own.
    let dir = matches!(config.source, CatalogSource::Dir(_));
    let types = if dir { config.record_types.load().map_err(LoadError::RecordTypes)? } else { Vec::new() };
    let open = config.open_options().map_err(LoadError::Catalog)?;
    let catalog = config.source.load(&types, &open, config.max_manifest_bytes, current).map_err(LoadError::Catalog)?;
    releases.admit(catalog.metadata(), current.map(ResponseCatalog::metadata)).map_err(|error| {
        LoadError::Catalog(CatalogError::Artifact { file: config.source.to_string(), error }.into())
    })?;
    releases
        .activate(catalog.metadata())
        .map_err(|reason| LoadError::Catalog(CatalogError::Read { file: config.source.to_string(), reason }.into()))?;
    Ok(catalog)
}
