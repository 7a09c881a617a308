//! Loading a catalog artifact: read once (what `ResponseCatalog::open`
//! does) against memory-mapping the file, for 10,000 products made from
//! the example manifests (as benches/make-catalog.py makes them), both
//! checking the CRC and every index entry; plus building the same
//! catalog from manifests, with and without compression.
//!
//! ```text
//! cargo bench -p foundry-catalog-benches --bench artifact
//! ```

use std::path::{Path, PathBuf};

use bytes::Bytes;
use foundry_catalog::artifact::Artifact;
use foundry_catalog::catalog::ContentCoding;
use foundry_catalog::catalog::{Builder, ResponseCatalog};

fn main() {
    divan::main();
}

const PRODUCTS: usize = 10_000;

/// `PRODUCTS` manifests `(file, text)`: copies of the examples with
/// numbered slugs and titles.
fn manifests() -> Vec<(String, String)> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/catalog");
    let mut examples: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("examples")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    examples.sort();
    let examples: Vec<serde_json::Value> = examples
        .iter()
        .map(|p| serde_json::from_str(&std::fs::read_to_string(p).expect("readable")).expect("JSON"))
        .collect();
    (0..PRODUCTS)
        .map(|i| {
            let mut manifest = examples[i % examples.len()].clone();
            let slug = format!("{}-{i}", manifest["slug"].as_str().expect("slug"));
            manifest["title"] = format!("{} {i}", manifest["title"].as_str().expect("title")).into();
            manifest["slug"] = slug.clone().into();
            (format!("{slug}.json"), manifest.to_string())
        })
        .collect()
}

/// The artifact file, built once per process.
fn artifact_file() -> PathBuf {
    static FILE: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    FILE.get_or_init(|| {
        let artifact = Builder::new().build(manifests()).expect("builds");
        let path = std::env::temp_dir().join(format!("foundry-catalog-bench-{}.fcat", std::process::id()));
        std::fs::write(&path, artifact.to_vec()).expect("written");
        path
    })
    .clone()
}

/// `std::fs::read` into one buffer, then parse and load.
#[divan::bench(sample_count = 10)]
fn load_read_once() -> usize {
    ResponseCatalog::open(&artifact_file()).expect("loads").len()
}

/// `mmap(2)` the file, then parse and load from the mapping.
#[divan::bench(sample_count = 10)]
fn load_mmap() -> usize {
    let file = std::fs::File::open(artifact_file()).expect("opens");
    // SAFETY: the benchmark's own file, not modified while mapped. (This
    // is exactly what the server cannot promise about an operator's file,
    // which is why it reads it instead; see BENCHMARKS.md.)
    let map = unsafe { memmap2::Mmap::map(&file) }.expect("maps");
    let artifact = Artifact::parse(Bytes::from_owner(map)).expect("parses");
    ResponseCatalog::load(&artifact).expect("loads").len()
}

/// Building the same catalog from its manifests, every coding.
#[divan::bench(sample_count = 3)]
fn build_compressed(bencher: divan::Bencher) {
    let manifests = manifests();
    bencher.bench(|| Builder::new().build(manifests.clone()).expect("builds").len());
}

/// Building the same catalog from its manifests, identity only.
#[divan::bench(sample_count = 3)]
fn build_identity(bencher: divan::Bencher) {
    let manifests = manifests();
    let builder = Builder::new().codings(&[ContentCoding::Identity]).expect("identity");
    bencher.bench(|| builder.build(manifests.clone()).expect("builds").len());
}
