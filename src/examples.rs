//! The example catalog: `examples/catalog/*.json`, shipped in this
//! package, one product per shipped record type. Its slugs are the
//! OpenAPI document's examples, and `foundry-catalog-server` builds it (in
//! its build script, so a bad manifest fails the build) into the catalog
//! it serves when given none.
//!
//! ```
//! use foundry_catalog::{examples, product::ProductManifest};
//! for (name, text) in examples::MANIFESTS {
//!     let record = ProductManifest::from_json(text).unwrap().build().unwrap();
//!     assert_eq!(format!("{}.json", record.slug), *name);
//! }
//! assert_eq!(examples::slugs().count(), 3);
//! ```

include!(concat!(env!("OUT_DIR"), "/example_catalog.rs"));

/// The example products' slugs (the manifests' file stems), sorted.
pub fn slugs() -> impl Iterator<Item = &'static str> {
    MANIFESTS.iter().filter_map(|(name, _)| name.strip_suffix(".json"))
}
