//! Product records: the typed model of spec §2 ([`model`]), the product
//! manifest a catalog team writes ([`manifest`]), the wire shape that is
//! the single source of truth for keys and types ([`shape`]), and the
//! conformance validator for any response body ([`conformance`]).

pub mod conformance;
pub mod manifest;
pub mod model;
pub mod shape;

pub use manifest::ProductManifest;
pub use model::*;
