//! Arbitrary bytes in a state file: a replica's `highest-sequence`
//! ([`HighestServed`]) and a build's stamps file (`OUT.stamps`, read by
//! `ResponseCatalog::read_stamps` after its format line and content
//! digest, which bind it to the artifact, so the fuzzer reaches the
//! start, folder, per-file and artifact records) → never a panic; what
//! reads as a highest sequence reads back the same from the text it
//! writes.
#![no_main]

use std::sync::OnceLock;

use foundry_catalog_serving::artifact::HighestServed;
use foundry_catalog_serving::catalog::ResponseCatalog;
use libfuzzer_sys::fuzz_target;

fn catalog() -> &'static ResponseCatalog {
    static CATALOG: OnceLock<ResponseCatalog> = OnceLock::new();
    CATALOG.get_or_init(ResponseCatalog::examples)
}

fuzz_target!(|data: &[u8]| {
    let text = String::from_utf8_lossy(data);
    if let Some(served) = HighestServed::parse(&text) {
        assert_eq!(HighestServed::parse(&served.to_text()), Some(served.clone()), "{text:?}");
    }
    let mut catalog = catalog().clone();
    // The head a stamps file of this catalog's artifact starts with.
    let mut stamps = b"foundry-catalog stamps 4\n".to_vec();
    stamps.extend_from_slice(catalog.metadata().content_sha256.as_bytes());
    stamps.extend_from_slice(data);
    let path = std::env::temp_dir().join(format!("foundry-catalog-fuzz-stamps-{}", std::process::id()));
    if std::fs::write(&path, stamps).is_ok() {
        let _ = catalog.read_stamps(&path);
    }
});
