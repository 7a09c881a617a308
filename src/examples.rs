//! The example catalog: `examples/catalog/*.json`, shipped in this
//! package, one product per shipped record type. Its slugs are the
//! OpenAPI document's examples, and `foundry-catalog-server` builds it (in
//! its build script, so a bad manifest fails the build) into the catalog
//! it serves when given none.
//!
//! ```
//! use foundry_catalog::catalog::ResponseCatalog;
//! let sources = foundry_catalog::examples::MANIFESTS.iter().map(|(name, text)| (name.to_string(), text.to_string()));
//! let catalog = ResponseCatalog::from_manifests(sources).unwrap();
//! assert_eq!(catalog.slugs(), foundry_catalog::examples::slugs().collect::<Vec<_>>());
//! ```

include!(concat!(env!("OUT_DIR"), "/example_catalog.rs"));

/// The example products' slugs (the manifests' file stems), sorted.
pub fn slugs() -> impl Iterator<Item = &'static str> {
    MANIFESTS.iter().filter_map(|(name, _)| name.strip_suffix(".json"))
}
