//! The default catalog: `examples/catalog/*.json`, built into an artifact
//! by this crate's build script (which fails the build on a bad
//! manifest), embedded in the binary and loaded without building.

use bytes::Bytes;
use foundry_catalog_serving::artifact::Artifact;
use foundry_catalog_serving::catalog::{CatalogError, CatalogErrors, ResponseCatalog};

/// The artifact build.rs wrote.
static ARTIFACT: &[u8] = include_bytes!(concat!(env!("OUT_DIR"), "/default.fcat"));

/// The default catalog, served when no `--catalog` is given. Its bodies
/// are the embedded bytes themselves (nothing is copied).
///
/// ```
/// let catalog = foundry_catalog_server::default_catalog().unwrap();
/// let entry = catalog.get("crm-webhook-connector").unwrap();
/// assert!(entry.body().unwrap().starts_with(b"{\"data\":{\"slug\":\"crm-webhook-connector\""));
/// assert_eq!(catalog.len(), 3);
/// ```
pub fn default_catalog() -> Result<ResponseCatalog, CatalogErrors> {
    Artifact::parse(Bytes::from_static(ARTIFACT))
        .and_then(ResponseCatalog::from_artifact)
        .map_err(|error| CatalogError::Artifact { file: "<the default catalog>".to_owned(), error }.into())
}
