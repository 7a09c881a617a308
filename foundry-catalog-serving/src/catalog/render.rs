//! What makes a product's bytes, and what names it in an artifact: the
//! generator, the record types, one manifest built, and the digest of the
//! renderer (an incremental build takes a previous artifact's product
//! only when the renderer and the product's record type are the same).

use std::path::Path;
use std::sync::{Arc, OnceLock};

use sha2::{Digest, Sha256};

use super::CatalogError;
use crate::artifact::RecordTypeId;
use foundry_catalog::manifest::ManifestError;
use foundry_catalog::product::{ProductManifest, ProductRecord};
use foundry_catalog::response::ProductResponse;
use foundry_catalog_core::RecordSchema;

/// What renders a build's products: the shipped record types and the ones
/// the builder was given besides ([`crate::catalog::Builder::record_types`]),
/// with the names and digest an artifact records for them.
#[derive(Debug)]
pub(super) struct Renderer {
    /// The record types besides the shipped ones, sorted by label.
    extra: Arc<[RecordSchema]>,
    /// Every record type, as the artifact names them (sorted by label):
    /// each with the digest of its whole definition, so a build can tell
    /// which type's products to render again.
    ids: Vec<RecordTypeId>,
}

impl Default for Renderer {
    fn default() -> Self {
        Renderer::new(Vec::new())
    }
}

impl Renderer {
    /// A renderer knowing `extra` besides the shipped record types (a
    /// shipped type given again is the shipped type; another type under a
    /// shipped label takes its place in this build).
    pub(super) fn new(mut extra: Vec<RecordSchema>) -> Renderer {
        extra.retain(|t| foundry_catalog::record_type(&t.record_label) != Some(t));
        extra.sort_by(|a, b| a.record_label.cmp(&b.record_label));
        extra.dedup_by(|a, b| a == b);
        let shipped = foundry_catalog::record_types()
            .iter()
            .filter(|shipped| !extra.iter().any(|t| t.record_label == shipped.record_label));
        let mut ids: Vec<RecordTypeId> = shipped
            .chain(&extra)
            .map(|t| RecordTypeId {
                record_label: t.record_label.to_string(),
                schema_hash: t.schema_hash.to_string(),
                definition_sha256: definition_sha256(t),
            })
            .collect();
        ids.sort_by(|a, b| a.record_label.cmp(&b.record_label));
        Renderer { extra: extra.into(), ids }
    }

    /// Every record type, as an artifact names them.
    pub(super) fn record_type_ids(&self) -> &[RecordTypeId] {
        &self.ids
    }

    /// [`crate::artifact::Metadata::renderer_sha256`]: what renders every
    /// product, whatever its record type (the record types are named, each
    /// with its own digest, beside it).
    pub(super) fn digest(&self) -> &str {
        renderer_sha256()
    }

    /// Reads and builds one manifest (its record not yet validated).
    pub(super) fn build_manifest(&self, file: &str, bytes: &[u8]) -> Result<ProductRecord, CatalogError> {
        build_manifest(file, bytes, &self.extra)
    }

    /// The body of `record`, validated against the spec and every record
    /// type this renderer knows.
    pub(super) fn body(&self, record: &ProductRecord) -> Result<Vec<u8>, foundry_catalog::conformance::Violations> {
        ProductResponse::body(record, &self.extra)
    }

    /// The record a body this renderer made holds (checked against the
    /// spec as it is read), to render its page again.
    #[cfg_attr(not(feature = "pages"), allow(dead_code))]
    pub(super) fn record(&self, body: &[u8]) -> Result<ProductRecord, String> {
        let value: serde_json::Value = serde_json::from_slice(body).map_err(|e| e.to_string())?;
        ProductResponse::from_value_with(&value, &self.extra).map(|response| response.data).map_err(|e| e.to_string())
    }
}

/// [`RecordTypeId::definition_sha256`]: the SHA-256 of the record schema
/// as JSON (every key, in declared order).
fn definition_sha256(schema: &RecordSchema) -> String {
    // Serializing a record schema into a Vec cannot fail.
    hex::encode(Sha256::digest(serde_json::to_vec(schema).unwrap_or_default()).as_slice())
}

/// `foundry-catalog <version>`: the generator an artifact names.
pub(super) fn generator() -> String {
    format!("foundry-catalog {}", env!("CARGO_PKG_VERSION"))
}

/// A manifest file's stem: the slug it must hold (empty when not UTF-8).
pub(super) fn stem(file: &Path) -> &str {
    file.file_stem().and_then(|s| s.to_str()).unwrap_or_default()
}

/// Reads and builds one manifest, knowing `record_types` besides the
/// shipped ones.
fn build_manifest(file: &str, bytes: &[u8], record_types: &[RecordSchema]) -> Result<ProductRecord, CatalogError> {
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
    manifest.assemble(record_types).map_err(|violations| CatalogError::Invalid { file, violations })
}

/// [`crate::artifact::Metadata::renderer_sha256`] of this build: the
/// SHA-256 of the generator, every record type as compiled in
/// (descriptions, fields and fixture hints included) and the example
/// catalog rendered and compressed in every coding this build makes. Any
/// change in what renders or compresses a body changes one of them.
fn renderer_sha256() -> &'static str {
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
            let record = build_manifest(file, text.as_bytes(), &[]).ok();
            let body = record.and_then(|r| ProductResponse::body(&r, &[]).ok()).unwrap_or_default();
            for coding in crate::encoding::available() {
                part(&coding.encode(&body).unwrap_or_default());
            }
        }
        hex::encode(hasher.finalize().as_slice())
    })
}
