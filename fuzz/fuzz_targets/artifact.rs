//! Arbitrary bytes → the artifact loader: never a panic, never an
//! out-of-bounds read. The CRC-32 is set to match the input first, so the
//! fuzzer gets past the checksum to the metadata, the index and the spans.
//! Whatever loads serves bodies that are slices of the input (a version-5
//! artifact's bodies are checked against their ETags when it loads), and
//! whatever verifies (with the key of the signed seed, `SigningKey::from_seed([1; 32])`)
//! serves only bodies that hash to their ETags.
#![no_main]

use bytes::Bytes;
use foundry_catalog_serving::artifact::Artifact;
use foundry_catalog_serving::catalog::{ContentCoding, ResponseCatalog};
use foundry_catalog_serving::signing::SigningKey;
use sha2::{Digest, Sha256};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let mut bytes = data.to_vec();
    if bytes.len() >= 16 {
        // Version 5's CRC covers the bytes before the index (the header's
        // first four lengths say where it starts); other versions', all of them.
        let u64_at = |at: usize| bytes.get(at..at + 8).map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")));
        let covered = match bytes[8..12] {
            [5, 0, 0, 0] => [16, 24, 32, 40]
                .iter()
                .try_fold(72u64, |sum, &at| sum.checked_add(u64_at(at)?))
                .and_then(|end| usize::try_from(end).ok())
                .map_or(bytes.len(), |end| end.clamp(16, bytes.len())),
            _ => bytes.len(),
        };
        let crc = crc32fast::hash(&bytes[16..covered]);
        bytes[12..16].copy_from_slice(&crc.to_le_bytes());
    }
    let Ok(artifact) = Artifact::parse(Bytes::from(bytes)) else { return };
    let verified = artifact.verify(&SigningKey::from_seed([1; 32]).verify_key()).is_ok();
    let Ok(catalog) = ResponseCatalog::from_artifact(artifact.clone()) else { return };
    for slug in catalog.slugs() {
        let entry = catalog.get(&slug).expect("a listed slug is served");
        assert_eq!(entry.etag().len(), 66);
        // A stored body is a slice of the input; an inflated one is no
        // longer than the length its index entry gives it.
        assert!(entry.representation(ContentCoding::Gzip).len() <= data.len());
        if verified {
            for &coding in catalog.codings() {
                let representation = entry.representation(coding);
                let digest = hex::encode(Sha256::digest(&representation.body().expect("a checked body")[..]));
                assert_eq!(representation.etag(), format!("\"{digest}\""), "a verified body matches its ETag");
            }
        }
    }
});
