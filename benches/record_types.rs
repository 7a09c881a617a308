//! Building a catalog of 10,000 products of a record type with every
//! construct (`examples/record-types-app`'s `listing_snapshot`: lists of
//! objects and of lists, objects three deep, closed sets, null, bounds),
//! side by side: the type compiled in (its generated `RECORD_TYPES`)
//! against the same definition read at run time (what
//! `foundry-catalog build --record-types DIR` does). Identity only, so
//! the figure is rendering and validating, not compressing.
//!
//! Then 10,000 products of three loaded types (the example crate's
//! `listing_snapshot` and the corpus's `price_observation` and
//! `shipment_event`, a third of the products each): a full build, against
//! a build on that catalog after one type's definition changed (a field's
//! description), which renders only that type's products (the bench
//! checks how many before it times).
//!
//! ```text
//! cargo bench -p foundry-catalog-benches --bench record_types
//! ```

use std::path::Path;

use std::sync::{Arc, Mutex};

use foundry_catalog_core::RecordSchema;
use foundry_catalog_serving::catalog::{Builder, ContentCoding, Progress};

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
    read(example_crate(), "record-types", &["listing_snapshot"])
}

/// The record types `labels` of the folder `dir` under `root`, read at run time.
fn read(root: &Path, dir: &str, labels: &[&str]) -> Vec<RecordSchema> {
    let sources = foundry_catalog_build::Source::read_dir(root, dir).expect("readable");
    let checked = foundry_catalog_build::Generator::new().check(&sources).expect("checks");
    checked.iter().map(|t| t.runtime_schema()).filter(|t| labels.contains(&&*t.record_label)).collect()
}

/// Three loaded record types.
fn three_types() -> Vec<RecordSchema> {
    let corpus = Path::new(concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/corpus"));
    let mut types = loaded();
    types.extend(read(corpus, "good", &["price_observation", "shipment_event"]));
    assert_eq!(types.len(), 3);
    types
}

/// `PRODUCTS` manifests, product `i` of the type `i % 3`.
fn three_type_manifests(types: &[RecordSchema]) -> Vec<(String, String)> {
    manifests()
        .into_iter()
        .enumerate()
        .map(|(i, (file, text))| {
            let mut manifest: serde_json::Value = serde_json::from_str(&text).expect("JSON");
            manifest["record_label"] = types[i % types.len()].record_label.to_string().into();
            (file, manifest.to_string())
        })
        .collect()
}

fn identity(record_types: Vec<RecordSchema>) -> Builder {
    Builder::new().codings(&[ContentCoding::Identity]).expect("identity").record_types(record_types)
}

fn build(bencher: divan::Bencher, record_types: Vec<RecordSchema>) {
    let sources = manifests();
    let builder = identity(record_types);
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

/// Three loaded types, every product rendered.
#[divan::bench(sample_count = 5)]
fn three_types_full_build(bencher: divan::Bencher) {
    let types = three_types();
    let sources = three_type_manifests(&types);
    let builder = identity(types);
    bencher.bench(|| builder.build(sources.clone()).expect("builds").len());
}

/// Three loaded types, one definition edited since the previous build:
/// a third of the products rendered, the rest taken from it.
#[divan::bench(sample_count = 5)]
fn three_types_one_definition_edited(bencher: divan::Bencher) {
    let types = three_types();
    let sources = three_type_manifests(&types);
    let previous = identity(types.clone()).build(sources.clone()).expect("builds");
    let mut edited = types;
    edited[1].fields.to_mut()[0].description = "Another meaning.".into();
    let last = Arc::new(Mutex::new(Progress::default()));
    let seen = Arc::clone(&last);
    let mut builder = identity(edited).on_progress(move |p| *seen.lock().expect("lock") = *p);
    let changes = builder.previous(&previous).expect("usable");
    assert_eq!(changes.to_string(), format!("{}: another definition", three_types()[1].record_label));
    builder.build(sources.clone()).expect("builds");
    let progress = *last.lock().expect("lock");
    assert_eq!(progress.rendered, (0..PRODUCTS).filter(|i| i % 3 == 1).count(), "only that type's");
    bencher.bench(|| builder.build(sources.clone()).expect("builds").len());
}
