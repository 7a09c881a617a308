//! Building a catalog of 10,000 products of a record type with every
//! construct (`examples/record-types-app`'s `listing_snapshot`: lists of
//! objects and of lists, objects three deep, closed sets, null, bounds),
//! side by side: the type compiled in (its generated `RECORD_TYPES`)
//! against the same definition read at run time (what
//! `foundry-catalog build --record-types DIR` does). Identity only, so
//! the figure is rendering and validating, not compressing.
//!
//! ```text
//! cargo bench -p foundry-catalog-benches --bench record_types
//! ```

use std::path::Path;

use foundry_catalog_core::RecordSchema;
use foundry_catalog_serving::catalog::{Builder, ContentCoding};

fn main() {
    divan::main();
}

const PRODUCTS: usize = 10_000;

fn example_crate() -> &'static Path {
    Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../examples/record-types-app"))
}

/// `PRODUCTS` manifests of the example product, with numbered slugs.
fn manifests() -> Vec<(String, String)> {
    let text = std::fs::read_to_string(example_crate().join("products/listing-watch.json")).expect("readable");
    let example: serde_json::Value = serde_json::from_str(&text).expect("JSON");
    (0..PRODUCTS)
        .map(|i| {
            let mut manifest = example.clone();
            let slug = format!("listing-watch-{i}");
            manifest["slug"] = slug.clone().into();
            (format!("{slug}.json"), manifest.to_string())
        })
        .collect()
}

/// The same definitions, read at run time.
fn loaded() -> Vec<RecordSchema> {
    let sources = foundry_catalog_build::Source::read_dir(example_crate(), "record-types").expect("readable");
    let checked = foundry_catalog_build::Generator::new().check(&sources).expect("checks");
    checked.iter().map(|t| t.runtime_schema()).collect()
}

fn build(bencher: divan::Bencher, record_types: Vec<RecordSchema>) {
    let sources = manifests();
    let builder = Builder::new().codings(&[ContentCoding::Identity]).expect("identity").record_types(record_types);
    bencher.bench(|| builder.build(sources.clone()).expect("builds").len());
}

/// The record type compiled in.
#[divan::bench(sample_count = 5)]
fn compiled_in(bencher: divan::Bencher) {
    build(bencher, foundry_catalog_record_types_app::records::RECORD_TYPES.to_vec());
}

/// The same definition, read at run time.
#[divan::bench(sample_count = 5)]
fn loaded_at_run_time(bencher: divan::Bencher) {
    build(bencher, loaded());
}
