//! Loading a catalog artifact: read once (what `ResponseCatalog::open`
//! does) against memory-mapping the file, for 10,000 products made from
//! the example manifests (as benches/make-catalog.py makes them), both
//! checking the CRC and every index entry; plus building the same
//! catalog from manifests, with and without compression; and the stages
//! of a build one at a time on one core (`stages`: reading, parsing,
//! rendering, validating, hashing, compressing), the split a full build
//! spends its time in.
//!
//! ```text
//! cargo bench -p foundry-catalog-benches --bench artifact
//! cargo bench -p foundry-catalog-benches --bench artifact -- stages
//! ```

use std::path::{Path, PathBuf};

use bytes::Bytes;
use foundry_catalog_serving::artifact::Artifact;
use foundry_catalog_serving::catalog::ContentCoding;
use foundry_catalog_serving::catalog::{Builder, ResponseCatalog};

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
        std::fs::write(&path, artifact.artifact().to_vec()).expect("written");
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
    ResponseCatalog::from_artifact(artifact).expect("loads").len()
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

/// Each stage of a build, over the same 1,000 manifests on one core.
mod stages {
    use std::sync::OnceLock;

    use foundry_catalog::product::{ProductManifest, ProductRecord};
    use foundry_catalog::response::ProductResponse;
    use foundry_catalog_serving::catalog::ContentCoding;
    use sha2::{Digest, Sha256};

    const COUNT: usize = 1000;

    /// The manifests written to a folder, their records and bodies.
    struct Inputs {
        dir: std::path::PathBuf,
        texts: Vec<String>,
        records: Vec<ProductRecord>,
        bodies: Vec<Vec<u8>>,
    }

    fn inputs() -> &'static Inputs {
        static INPUTS: OnceLock<Inputs> = OnceLock::new();
        INPUTS.get_or_init(|| {
            let manifests: Vec<(String, String)> = super::manifests().into_iter().take(COUNT).collect();
            let dir = std::env::temp_dir().join(format!("foundry-catalog-stages-{}", std::process::id()));
            std::fs::create_dir_all(&dir).expect("temp dir");
            for (file, text) in &manifests {
                std::fs::write(dir.join(file), text).expect("written");
            }
            let records: Vec<ProductRecord> = manifests
                .iter()
                .map(|(_, text)| ProductManifest::from_json(text).expect("valid").build().expect("builds"))
                .collect();
            let bodies = records
                .iter()
                .map(|r| serde_json::to_vec(&ProductResponse { data: r.clone() }).expect("serializes"))
                .collect();
            Inputs { dir, texts: manifests.into_iter().map(|(_, text)| text).collect(), records, bodies }
        })
    }

    #[divan::bench(sample_count = 10)]
    fn a_read() -> usize {
        let dir = &inputs().dir;
        std::fs::read_dir(dir).expect("dir").map(|e| std::fs::read(e.expect("entry").path()).expect("read").len()).sum()
    }

    #[divan::bench(sample_count = 10)]
    fn b_parse() -> usize {
        inputs().texts.iter().map(|t| ProductManifest::from_json(t).expect("valid").slug.as_str().len()).sum()
    }

    /// Rendering, serializing and validating together (`build`): less
    /// `d_serialize` and `e_validate`, the rendering.
    #[divan::bench(sample_count = 10)]
    fn c_build_record(bencher: divan::Bencher) {
        let manifests: Vec<ProductManifest> =
            inputs().texts.iter().map(|t| ProductManifest::from_json(t).expect("valid")).collect();
        bencher.bench(|| manifests.iter().map(|m| m.build().expect("builds").slug.as_str().len()).sum::<usize>());
    }

    #[divan::bench(sample_count = 10)]
    fn d_serialize() -> usize {
        inputs()
            .records
            .iter()
            .map(|r| serde_json::to_vec(&ProductResponse { data: r.clone() }).expect("ok").len())
            .sum()
    }

    #[divan::bench(sample_count = 10)]
    fn e_validate() -> usize {
        inputs()
            .bodies
            .iter()
            .map(|b| foundry_catalog::conformance::validate(&serde_json::from_slice(b).expect("JSON")).len())
            .sum()
    }

    /// Of which: parsing the body back into a `serde_json::Value`.
    #[divan::bench(sample_count = 10)]
    fn e_validate_parse() -> usize {
        inputs()
            .bodies
            .iter()
            .map(|b| serde_json::from_slice::<serde_json::Value>(b).expect("JSON").is_object() as usize)
            .sum()
    }

    #[divan::bench(sample_count = 10)]
    fn f_hash() -> usize {
        inputs().bodies.iter().map(|b| Sha256::digest(b)[0] as usize).sum()
    }

    #[divan::bench(sample_count = 10, args = [ContentCoding::Gzip, ContentCoding::Br])]
    fn g_compress(coding: ContentCoding) -> usize {
        inputs().bodies.iter().map(|b| coding.encode(b).expect("available").len()).sum()
    }
}
