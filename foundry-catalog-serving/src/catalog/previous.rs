//! The previous artifact of an incremental build: which of its products
//! can be taken as they are, and whether it may be used at all.

use std::fmt;

use super::ResponseCatalog;
use super::blocks::{Blocks, Data};
use super::render::{Renderer, generator};
use crate::artifact::{Artifact, DocumentEntry, IndexEntry, RecordTypeId, SOURCE_LEN, Span, contiguous};
use crate::encoding::ContentCoding;
use foundry_catalog::product::ProductRecord;

/// Why a previous catalog cannot be built on; the build is then a full one.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[non_exhaustive]
pub enum Unusable {
    /// Another generator made it.
    #[error("it was built by {found:?}, and this is {expected:?}")]
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
    /// It was rendered differently: another build of the same version
    /// (other compiled-in record types, other compression), or a version-1
    /// artifact that does not say.
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
    /// Its pages were rendered otherwise (other templates or another
    /// site), or it has pages and this build makes none, or the reverse.
    #[error(
        "its pages were {}, and this build's are {}",
        found.as_deref().map_or_else(|| "not built".to_owned(), |d| format!("rendered with pages digest {d}")),
        expected.as_deref().map_or_else(|| "not built".to_owned(), |d| format!("rendered with pages digest {d}"))
    )]
    Pages {
        /// Its pages digest ([`crate::artifact::SitePages::digest`]), if it has pages.
        found: Option<String>,
        /// This build's, if it builds pages.
        expected: Option<String>,
    },
}

/// How the record types of a previous artifact differ from a build's
/// ([`crate::catalog::Builder::previous`]): the products of a changed or
/// removed type are rendered again, the others are taken as they are.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct RecordTypeChanges {
    changes: Vec<(String, RecordTypeChange)>,
}

/// How one record type changed between a previous artifact and a build.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum RecordTypeChange {
    /// The build has it with another `schema_hash`.
    SchemaHash,
    /// The same `schema_hash`, but other descriptions or fixture hints
    /// (its `definition_sha256` differs).
    Definition,
    /// The build does not have it.
    Removed,
    /// Only the build has it.
    Added,
}

impl RecordTypeChanges {
    /// Whether every record type is the same.
    pub fn is_empty(&self) -> bool {
        self.changes.is_empty()
    }

    /// Each changed record type's label and change, sorted by label.
    pub fn iter(&self) -> impl Iterator<Item = (&str, RecordTypeChange)> {
        self.changes.iter().map(|(label, change)| (label.as_str(), *change))
    }

    /// Whether the products of `label` in the previous artifact must be
    /// rendered again.
    fn renders_again(&self, label: &str) -> bool {
        self.changes.iter().any(|(l, change)| l == label && *change != RecordTypeChange::Added)
    }
}

impl fmt::Display for RecordTypeChanges {
    /// `listing_snapshot: another definition, shop_offer: new`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (n, (label, change)) in self.changes.iter().enumerate() {
            let how = match change {
                RecordTypeChange::SchemaHash => "another schema_hash",
                RecordTypeChange::Definition => "another definition",
                RecordTypeChange::Removed => "not in this build",
                RecordTypeChange::Added => "new",
            };
            write!(f, "{}{label}: {how}", if n == 0 { "" } else { ", " })?;
        }
        Ok(())
    }
}

/// A previous catalog: its artifact, indexed by the catalog's slugs.
pub(super) struct Previous {
    catalog: ResponseCatalog,
    artifact: Artifact,
    /// How its record types differ from this build's.
    changes: RecordTypeChanges,
}

/// A kept product's page as the previous artifact lists it: its path and
/// sitemap `lastmod` (empty when it is `noindex`), UTF-8.
pub(super) struct PageListing {
    path: bytes::Bytes,
    lastmod: bytes::Bytes,
}

impl PageListing {
    /// The page's path.
    pub(super) fn path(&self) -> &str {
        std::str::from_utf8(&self.path).unwrap_or_default()
    }

    /// Whether the page is listed (in the sitemap, with a card).
    pub(super) fn is_listed(&self) -> bool {
        !self.lastmod.is_empty()
    }
}

impl Previous {
    /// Checks that `artifact` was made as this build makes artifacts and
    /// indexes it (its spans and slugs were checked when it was loaded).
    pub(super) fn new(
        catalog: &ResponseCatalog,
        codings: &[ContentCoding],
        renderer: &Renderer,
        pages: Option<&str>,
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
        // What renders every product (an artifact that does not say, of
        // format version 1, is refused as such); then each record type.
        let expected = renderer.digest();
        if metadata.renderer_sha256.as_deref() != Some(expected) {
            return Err(Unusable::Renderer { found: metadata.renderer_sha256.clone(), expected: expected.to_owned() });
        }
        // A product's bytes hold its page: reused only if rendered alike.
        let found = metadata.pages.as_ref().map(|p| p.digest.as_str());
        if found != pages {
            return Err(Unusable::Pages { found: found.map(str::to_owned), expected: pages.map(str::to_owned) });
        }
        let changes = type_changes(&metadata.record_types, renderer.record_type_ids());
        Ok(Previous { catalog: catalog.clone(), artifact: artifact.clone(), changes })
    }

    /// How its record types differ from this build's.
    pub(super) fn changes(&self) -> &RecordTypeChanges {
        &self.changes
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

    /// Its codings.
    pub(super) fn codings(&self) -> &[ContentCoding] {
        &self.artifact.metadata().codings
    }

    /// The product `slug` if it was built from a source with this digest
    /// (never from a record, whose digest is zeros) with a record type
    /// that has not changed.
    pub(super) fn unchanged(&self, slug: &str, source: [u8; SOURCE_LEN]) -> Option<IndexEntry> {
        self.unchanged_at(self.catalog.position(slug)?, source)
    }

    /// [`Previous::unchanged`], the product looked for first at `near`
    /// ([`ResponseCatalog::position_near`]); with its place in this
    /// artifact.
    pub(super) fn unchanged_near(
        &self,
        slug: &str,
        source: [u8; SOURCE_LEN],
        near: usize,
    ) -> Option<(usize, IndexEntry)> {
        let at = self.catalog.position_near(slug, near)?;
        Some((at, self.unchanged_at(at, source)?))
    }

    /// The product at `at` if it was built from a source with this digest,
    /// with a record type that has not changed.
    fn unchanged_at(&self, at: usize, source: [u8; SOURCE_LEN]) -> Option<IndexEntry> {
        let entry = self.artifact.entry(at)?;
        let same_type =
            || self.changes.is_empty() || self.record_label(&entry).is_some_and(|l| !self.changes.renders_again(&l));
        (source != [0; SOURCE_LEN] && entry.source == source && same_type() && self.sound(&entry)).then_some(entry)
    }

    /// The record type of a product, read from its body
    /// (`data.schema_preview.record_label`); asked only when some record
    /// type changed. A body that does not say is rendered again.
    fn record_label(&self, entry: &IndexEntry) -> Option<String> {
        #[derive(serde::Deserialize)]
        struct Body {
            data: Data,
        }
        #[derive(serde::Deserialize)]
        struct Data {
            schema_preview: Preview,
        }
        #[derive(serde::Deserialize)]
        struct Preview {
            record_label: String,
        }
        let body = self.artifact.body(&entry.representations, self.identity()?).ok()?;
        serde_json::from_slice::<Body>(&body).ok().map(|body| body.data.schema_preview.record_label)
    }

    /// The position of identity among its codings.
    fn identity(&self) -> Option<usize> {
        self.codings().iter().position(|&c| c == ContentCoding::Identity)
    }

    /// The product `slug` if its body (identity) is `body`, with `source`
    /// as its source digest.
    pub(super) fn same_body(&self, slug: &str, body: &[u8], source: [u8; SOURCE_LEN]) -> Option<IndexEntry> {
        let mut entry = self.entry(slug)?;
        if !self.holds_as_is(&entry.representations, body) || !self.sound(&entry) {
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

    /// The catalog of the artifact (its site documents: the cards).
    #[cfg_attr(not(feature = "pages"), allow(dead_code))]
    pub(super) fn catalog(&self) -> &ResponseCatalog {
        &self.catalog
    }

    /// Its site document `name`'s index entry, when every body of it
    /// hashes to its ETag (as [`Previous::unchanged`] takes a product).
    #[cfg_attr(not(feature = "pages"), allow(dead_code))]
    pub(super) fn document(&self, name: &str) -> Option<DocumentEntry> {
        let entry = self.catalog.document_entry(name)?;
        (self.artifact.bodies_checked() || self.artifact.check_document_bodies(&entry).is_ok()).then_some(entry)
    }

    /// Its site document `name` if its body (identity) is `bytes`: kept as
    /// it is stored rather than compressed again (as [`Previous::same_body`]
    /// takes a product).
    #[cfg_attr(not(feature = "pages"), allow(dead_code))]
    pub(super) fn same_document(&self, name: &str, bytes: &[u8]) -> Option<DocumentEntry> {
        let entry = self.catalog.document_entry(name)?;
        self.holds_as_is(&entry.representations, bytes).then(|| self.document(name)).flatten()
    }

    /// Whether `representations` hold `bytes` as is, under their ETag: the
    /// body as is (read, or inflated from gzip, which no check of the
    /// stored bodies covers) is `bytes`, and its ETag names them.
    fn holds_as_is(&self, representations: &[(Span, Span)], bytes: &[u8]) -> bool {
        let Some(identity) = self.identity() else { return false };
        let Some(&(_, etag)) = representations.get(identity) else { return false };
        let stored = self.artifact.body(representations, identity);
        stored.is_ok_and(|stored| stored == bytes)
            && self.artifact.bytes_of(etag).is_some_and(|etag| etag == crate::artifact::etag_of(bytes).as_bytes())
    }

    /// Appends the site document `entry` of this artifact to `data`, as
    /// [`Previous::write`] a product; returns its entry there.
    pub(super) fn write_document(&self, mut entry: DocumentEntry, data: &mut Data) -> DocumentEntry {
        self.move_run(entry.table_spans_mut().collect(), &mut data.table);
        self.move_run(entry.body_spans_mut().collect(), &mut data.bodies);
        entry
    }

    /// The record the product `entry`'s body holds, to render its page
    /// again.
    pub(super) fn record(&self, entry: &IndexEntry, renderer: &Renderer) -> Result<ProductRecord, String> {
        let identity = self.identity().ok_or("the previous artifact stores no identity body")?;
        let body = self.artifact.body(&entry.representations, identity).map_err(|e| e.to_string())?;
        renderer.record(&body)
    }

    /// The page path and sitemap `lastmod` of the product `entry` of this
    /// artifact, when it has pages.
    pub(super) fn page_listing(&self, entry: &IndexEntry) -> Option<PageListing> {
        let page = entry.page.as_ref()?;
        // Shared with the artifact's head, not copied: a build asks this
        // twice of every product it keeps.
        let text = |span| self.artifact.slice(span).ok().filter(|bytes| std::str::from_utf8(bytes).is_ok());
        Some(PageListing { path: text(page.path)?, lastmod: text(page.lastmod)? })
    }

    fn entry(&self, slug: &str) -> Option<IndexEntry> {
        self.artifact.entry(self.catalog.position(slug)?)
    }

    /// Appends the product `entry` of this artifact to `data`: its table
    /// run and its body run each shared when they lie in one buffer of the
    /// previous artifact (as in any version-4 artifact built here), else
    /// copied; returns its entry there.
    pub(super) fn write(&self, mut entry: IndexEntry, data: &mut Data) -> IndexEntry {
        let (table, bodies) = entry.parts_mut();
        self.move_run(table, &mut data.table);
        self.move_run(bodies, &mut data.bodies);
        entry
    }

    /// Appends the bytes of `spans` to `blocks`, and points them there.
    fn move_run(&self, spans: Vec<&mut Span>, blocks: &mut Blocks) {
        if let Some((offset, len)) = contiguous(spans.iter().map(|span| **span))
            && let Some(at) = blocks.share(&self.artifact, offset, len)
        {
            for span in spans {
                span.offset = span.offset - offset + at;
            }
        } else {
            for span in spans {
                // Every span was checked when the artifact was loaded.
                *span = blocks.put(&self.artifact.slice(*span).unwrap_or_default());
            }
        }
    }
}

/// How the record types of a previous artifact differ from this build's.
fn type_changes(before: &[RecordTypeId], now: &[RecordTypeId]) -> RecordTypeChanges {
    let mut changes = Vec::new();
    for old in before {
        match now.iter().find(|t| t.record_label == old.record_label) {
            None => changes.push((old.record_label.clone(), RecordTypeChange::Removed)),
            Some(new) if new.schema_hash != old.schema_hash => {
                changes.push((old.record_label.clone(), RecordTypeChange::SchemaHash));
            }
            // An artifact that did not record definitions: changed, as far
            // as it can tell.
            Some(new) if new != old || old.definition_sha256.is_empty() => {
                changes.push((old.record_label.clone(), RecordTypeChange::Definition));
            }
            Some(_) => {}
        }
    }
    for new in now.iter().filter(|t| !before.iter().any(|old| old.record_label == t.record_label)) {
        changes.push((new.record_label.clone(), RecordTypeChange::Added));
    }
    changes.sort_by(|a, b| a.0.cmp(&b.0));
    RecordTypeChanges { changes }
}
