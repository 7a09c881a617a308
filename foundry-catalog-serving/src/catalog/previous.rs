//! The previous artifact of an incremental build: which of its products
//! can be taken as they are, and whether it may be used at all.

use super::ResponseCatalog;
use super::blocks::Blocks;
use super::render::{Renderer, generator};
use crate::artifact::{Artifact, IndexEntry, RecordTypeId, SOURCE_LEN};
use crate::encoding::ContentCoding;

/// Why a previous catalog cannot be built on; the build is then a full one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Unusable {
    /// Another generator made it.
    #[error("it was built by {found}, and this is {expected}")]
    Generator {
        /// Its generator.
        found: String,
        /// This one.
        expected: String,
    },
    /// It stores other content codings.
    #[error("it stores the codings {found}, and this build stores {expected}")]
    Codings {
        /// Its codings.
        found: String,
        /// This build's.
        expected: String,
    },
    /// It was built with other record types, or other definitions of them.
    #[error("it was built with other record types: {changes}")]
    RecordTypes {
        /// Each difference, such as `listing_snapshot: another definition`.
        changes: String,
    },
    /// It was rendered differently: another build of the same version,
    /// other record-type descriptions or fixtures, other compression, or
    /// a version-1 artifact that does not say.
    #[error(
        "it was rendered by another build (its renderer_sha256 is {}, this one's is {expected})",
        found.as_deref().unwrap_or("absent")
    )]
    Renderer {
        /// Its renderer digest.
        found: Option<String>,
        /// This build's.
        expected: String,
    },
}

/// A previous catalog: its artifact, indexed by the catalog's slugs.
pub(super) struct Previous {
    catalog: ResponseCatalog,
    artifact: Artifact,
}

impl Previous {
    /// Checks that `artifact` was made as this build makes artifacts and
    /// indexes it (its spans and slugs were checked when it was loaded).
    pub(super) fn new(
        catalog: &ResponseCatalog,
        codings: &[ContentCoding],
        renderer: &Renderer,
    ) -> Result<Previous, Unusable> {
        let artifact = catalog.artifact();
        let metadata = artifact.metadata();
        let names = |codings: &[ContentCoding]| codings.iter().map(|c| c.as_str()).collect::<Vec<_>>().join(", ");
        if metadata.generator != generator() {
            return Err(Unusable::Generator { found: metadata.generator.clone(), expected: generator() });
        }
        if metadata.codings != codings {
            return Err(Unusable::Codings { found: names(&metadata.codings), expected: names(codings) });
        }
        // How it was rendered before with what: an artifact that does not
        // say how it was rendered (format version 1) is refused as such,
        // whatever record types it holds.
        // Other record types first: the reason names them.
        if metadata.renderer_sha256.is_some() && metadata.record_types != renderer.record_type_ids() {
            return Err(Unusable::RecordTypes {
                changes: type_changes(&metadata.record_types, renderer.record_type_ids()),
            });
        }
        let expected = renderer.digest();
        if metadata.renderer_sha256.as_deref() != Some(expected) {
            return Err(Unusable::Renderer { found: metadata.renderer_sha256.clone(), expected: expected.to_owned() });
        }
        Ok(Previous { catalog: catalog.clone(), artifact: artifact.clone() })
    }

    /// How many products it holds.
    pub(super) fn products(&self) -> usize {
        self.catalog.len()
    }

    /// What the build that made it saw of its folder's files (when it was
    /// built from a folder in this process).
    pub(super) fn stamps(&self) -> Option<&super::stamps::Stamps> {
        self.catalog.stamps.as_deref()
    }

    /// The files its bytes can be copied from.
    pub(super) fn origins(&self) -> &[std::sync::Arc<super::origin::Origin>] {
        &self.catalog.origins
    }

    /// Its codings.
    pub(super) fn codings(&self) -> &[ContentCoding] {
        &self.artifact.metadata().codings
    }

    /// The product `slug` if it was built from a source with this digest
    /// (never from a record, whose digest is zeros).
    pub(super) fn unchanged(&self, slug: &str, source: [u8; SOURCE_LEN]) -> Option<IndexEntry> {
        let entry = self.entry(slug)?;
        (source != [0; SOURCE_LEN] && entry.source == source && self.sound(&entry)).then_some(entry)
    }

    /// The product `slug` if its body (identity) is `body`, with `source`
    /// as its source digest.
    pub(super) fn same_body(&self, slug: &str, body: &[u8], source: [u8; SOURCE_LEN]) -> Option<IndexEntry> {
        let mut entry = self.entry(slug)?;
        let identity = self.codings().iter().position(|&c| c == ContentCoding::Identity)?;
        let stored = self.artifact.slice(entry.representations.get(identity)?.0).ok()?;
        if stored != body || !self.sound(&entry) {
            return None;
        }
        entry.source = source;
        Some(entry)
    }

    /// Whether every body of `entry` hashes to its ETag: a product is
    /// taken only with representations a full build would have made
    /// (known for an artifact built in this process or verified, else
    /// checked, on the building threads).
    fn sound(&self, entry: &IndexEntry) -> bool {
        self.artifact.bodies_checked() || self.artifact.check_entry_bodies(entry).is_ok()
    }

    fn entry(&self, slug: &str) -> Option<IndexEntry> {
        self.artifact.entry(self.catalog.position(slug)?)
    }

    /// Appends the product `entry` of this artifact to `blocks`: shared
    /// when its bytes lie in one buffer (they are contiguous in any
    /// artifact built here), else copied; returns its entry there.
    pub(super) fn write(&self, mut entry: IndexEntry, blocks: &mut Blocks) -> IndexEntry {
        if let Some((offset, len)) = entry.contiguous()
            && let Some(at) = blocks.share(&self.artifact, offset, len)
        {
            for span in entry.spans_mut() {
                span.offset = span.offset - offset + at;
            }
        } else {
            for span in entry.spans_mut() {
                // Every span was checked when the artifact was loaded.
                *span = blocks.put(&self.artifact.slice(*span).unwrap_or_default());
            }
        }
        entry
    }
}

/// How the record types of a previous artifact differ from this build's:
/// `label: another definition`, `label: not in this build`, `label: new`.
fn type_changes(before: &[RecordTypeId], now: &[RecordTypeId]) -> String {
    let mut changes = Vec::new();
    for old in before {
        match now.iter().find(|t| t.record_label == old.record_label) {
            None => changes.push(format!("{}: not in this build", old.record_label)),
            Some(new) if new.schema_hash != old.schema_hash => {
                changes.push(format!("{}: another schema_hash", old.record_label));
            }
            Some(new) if new != old => changes.push(format!("{}: another definition", old.record_label)),
            Some(_) => {}
        }
    }
    for new in now.iter().filter(|t| !before.iter().any(|old| old.record_label == t.record_label)) {
        changes.push(format!("{}: new", new.record_label));
    }
    changes.join(", ")
}
