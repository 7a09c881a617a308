//! Arbitrary numbers in an artifact's metadata (`products`, `sequence`,
//! `expires`, the pages' `documents`, each up to `u64::MAX`) → parsing,
//! loading and the release checks a replica makes (`admissible`,
//! `expired`, [`HighestServed`]): never a panic, never an overflow. The
//! template is the example catalog with pages, built once; the fuzzer's
//! bytes are the numbers (eight bytes each, little-endian), the metadata
//! JSON is written with them, and the header's metadata length and CRC-32
//! are set to match, so every value reaches the checks past the checksum.
#![no_main]

use std::sync::OnceLock;
use std::time::{Duration, UNIX_EPOCH};

use bytes::Bytes;
use foundry_catalog_serving::artifact::{Artifact, HighestServed, HEADER_LEN};
use foundry_catalog_serving::catalog::ResponseCatalog;
use libfuzzer_sys::fuzz_target;

fn template() -> &'static (Vec<u8>, serde_json::Value) {
    static TEMPLATE: OnceLock<(Vec<u8>, serde_json::Value)> = OnceLock::new();
    TEMPLATE.get_or_init(|| {
        let site = foundry_catalog_pages::Site::new("https://catalog.example.com").expect("a site URL");
        let builder = foundry_catalog_serving::catalog::Builder::new().pages(foundry_catalog_pages::Pages::new(site));
        let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/catalog");
        let bytes = builder.build_dir(&dir).expect("the example catalog builds").artifact().to_vec();
        let len = usize::try_from(u64::from_le_bytes(bytes[16..24].try_into().expect("8"))).expect("small");
        let metadata = serde_json::from_slice(&bytes[HEADER_LEN..HEADER_LEN + len]).expect("metadata JSON");
        (bytes, metadata)
    })
}

fuzz_target!(|data: &[u8]| {
    let (bytes, metadata) = template();
    let number = |n: usize| data.get(n * 8..n * 8 + 8).map(|b| u64::from_le_bytes(b.try_into().expect("8")));
    let mut metadata = metadata.clone();
    // A missing number leaves the field as built; an odd flag byte drops it.
    for (n, field) in ["products", "sequence", "expires"].into_iter().enumerate() {
        if let Some(value) = number(n) {
            metadata[field] = value.into();
        }
    }
    if let Some(documents) = number(3) {
        metadata["pages"]["documents"] = documents.into();
    }
    if data.len() % 2 == 1 {
        metadata.as_object_mut().expect("an object").remove("expires");
    }
    let json = serde_json::to_vec(&metadata).expect("JSON");
    let old_len = usize::try_from(u64::from_le_bytes(bytes[16..24].try_into().expect("8"))).expect("small");
    let mut artifact = bytes[..HEADER_LEN].to_vec();
    artifact[16..24].copy_from_slice(&(json.len() as u64).to_le_bytes());
    artifact.extend_from_slice(&json);
    artifact.extend_from_slice(&bytes[HEADER_LEN + old_len..]);
    // Version 4's CRC covers the bytes before the bodies.
    let u64_at = |at: usize| u64::from_le_bytes(artifact[at..at + 8].try_into().expect("8"));
    let covered = [16, 24, 32, 40, 48].iter().map(|&at| u64_at(at)).sum::<u64>() + HEADER_LEN as u64;
    let covered = usize::try_from(covered).expect("small").min(artifact.len());
    let crc = crc32fast::hash(&artifact[16..covered]);
    artifact[12..16].copy_from_slice(&crc.to_le_bytes());

    let Ok(artifact) = Artifact::parse(Bytes::from(artifact)) else { return };
    let read = artifact.metadata().clone();
    let now = UNIX_EPOCH + Duration::from_secs(number(4).unwrap_or(0) % (1 << 40));
    let _ = read.expired(now);
    for highest in [None, Some(0), Some(u64::MAX), number(5)] {
        let _ = read.admissible(highest, Some(&read), now);
        let _ = read.admissible(highest, None, now);
        if let Some(sequence) = highest {
            let served = HighestServed { sequence, content_sha256: Some("0".repeat(64)) };
            let _ = served.reused_by(&read);
        }
    }
    let _ = ResponseCatalog::from_artifact(artifact);
});
