//! What makes a product's bytes, and what names it in an artifact: the
//! generator, the record types, one manifest built, and the digest of the
//! whole renderer (an incremental build takes a previous artifact's
//! products only when every one of these is the same).

use std::path::Path;
use std::sync::OnceLock;

use sha2::{Digest, Sha256};

use super::CatalogError;
use crate::artifact::RecordTypeId;
use foundry_catalog::manifest::ManifestError;
use foundry_catalog::product::{ProductManifest, ProductRecord};
use foundry_catalog::response::ProductResponse;

/// `foundry-catalog <version>`: the generator an artifact names.
pub(super) fn generator() -> String {
    format!("foundry-catalog {}", env!("CARGO_PKG_VERSION"))
}

/// The record types this build knows, as an artifact names them.
pub(super) fn record_type_ids() -> Vec<RecordTypeId> {
    foundry_catalog::record_types()
        .iter()
        .map(|t| RecordTypeId { record_label: t.record_label.to_string(), schema_hash: t.schema_hash.to_string() })
        .collect()
}

/// A manifest file's stem: the slug it must hold (empty when not UTF-8).
pub(super) fn stem(file: &Path) -> &str {
    file.file_stem().and_then(|s| s.to_str()).unwrap_or_default()
}

/// Reads and builds one manifest.
pub(super) fn build_manifest(file: &str, bytes: &[u8]) -> Result<ProductRecord, CatalogError> {
    let file = file.to_owned();
    let text = std::str::from_utf8(bytes).map_err(|e| CatalogError::Read {
        reason: format!("not UTF-8 text: invalid byte at offset {}", e.valid_up_to()),
        file: file.clone(),
    })?;
    let manifest = match ProductManifest::from_json(text) {
        Ok(manifest) => manifest,
        Err(ManifestError::Syntax(e)) => {
            let message = e.to_string();
            let message = message.split(" at line ").next().unwrap_or(&message).to_owned();
            return Err(CatalogError::Manifest { file, line: e.line(), column: e.column().max(1), message });
        }
        Err(ManifestError::Invalid(violations)) => return Err(CatalogError::Invalid { file, violations }),
    };
    if stem(Path::new(&file)) != manifest.slug.as_str() {
        return Err(CatalogError::FileName { slug: manifest.slug.to_string(), file });
    }
    manifest.assemble().map_err(|violations| CatalogError::Invalid { file, violations })
}

/// [`crate::artifact::Metadata::renderer_sha256`] of this build: the
/// SHA-256 of the generator, every record type as compiled in
/// (descriptions, fields and fixture hints included) and the example
/// catalog rendered and compressed in every coding this build makes. Any
/// change in what renders or compresses a body changes one of them.
pub(super) fn renderer_sha256() -> &'static str {
    static DIGEST: OnceLock<String> = OnceLock::new();
    DIGEST.get_or_init(|| {
        let mut hasher = Sha256::new();
        let mut part = |bytes: &[u8]| {
            hasher.update((bytes.len() as u64).to_le_bytes());
            hasher.update(bytes);
        };
        part(generator().as_bytes());
        for record_type in foundry_catalog::record_types() {
            part(format!("{record_type:?}").as_bytes());
        }
        for (file, text) in foundry_catalog::examples::MANIFESTS {
            let record = build_manifest(file, text.as_bytes()).ok();
            let body = record.and_then(|r| ProductResponse::body(&r, &[]).ok()).unwrap_or_default();
            for coding in crate::encoding::available() {
                part(&coding.encode(&body).unwrap_or_default());
            }
        }
        hex::encode(hasher.finalize().as_slice())
    })
}
