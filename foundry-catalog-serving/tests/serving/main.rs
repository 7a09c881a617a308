//! Integration tests of `foundry-catalog-serving`, in one binary so a cold
//! `cargo test` links it once: catalogs built from folders, manifests and
//! records, the artifact file, incremental builds, compression, pages
//! and signatures.

mod catalog;
mod delta;
#[cfg(feature = "compression")]
mod encoding;
mod incremental;
mod lazy;
mod packs;
#[cfg(feature = "pages")]
mod pages;
#[cfg(feature = "signing")]
mod signing;
