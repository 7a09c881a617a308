//! [`Builder`]: manifests or records into an [`Artifact`], on all cores,
//! reusing what a previous artifact already holds.

use std::borrow::Cow;
use std::collections::HashMap;
use std::fmt;
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicU32, AtomicUsize, Ordering};
use std::time::{Duration, SystemTime};

use sha2::{Digest, Sha256};

use super::blocks::Data;
use super::manifests::Manifests;
use super::pages::{Card, Cards, Document, Linking, ListTally, PageMaker, encode};
use super::place::{self, Part, Prepared, Product};
use super::previous::{Previous, RecordTypeChanges, Unusable};
use super::render::{Renderer, generator, stem};
use super::stamps::{Folder, Recorder, Stamp};
use super::{CatalogError, CatalogErrors, ResponseCatalog};
use crate::artifact::{self, Artifact, Contents, DocumentEntry, IndexEntry, LAST_HTTP_DATE, Release, SOURCE_LEN};
use crate::encoding::ContentCoding;
use foundry_catalog::product::ProductRecord;
use foundry_catalog_core::RecordSchema;

/// Builds [`ResponseCatalog`]s, like `prost_build::Config`: configure,
/// then build from a folder, from manifests or from records. The catalog's
/// artifact ([`ResponseCatalog::artifact`]) is what `foundry-catalog
/// build` writes ([`ResponseCatalog::write_file`]).
///
/// ```
/// use foundry_catalog_serving::catalog::{Builder, ContentCoding};
/// let sources = foundry_catalog::examples::MANIFESTS.iter().map(|(name, text)| (name.to_string(), text.to_string()));
/// let catalog = Builder::new().codings(&[ContentCoding::Identity]).unwrap().build(sources).unwrap();
/// assert_eq!(catalog.len(), 3);
/// assert_eq!(catalog.artifact().metadata().codings, [ContentCoding::Identity]);
/// ```
///
/// # Incremental builds
///
/// Given the catalog built last time ([`Builder::previous`]), a build
/// skips every manifest whose bytes are those the previous artifact
/// recorded (the SHA-256 of each product's source is in its index), and
/// reuses the compressed representations and ETags of every product whose
/// body comes out byte-identical; only changed or new products are
/// rendered, validated and compressed. Reused bytes are shared with the
/// previous artifact, not copied. Rebuilding a folder in the same
/// process also skips reading every file whose stamp (length, times,
/// inode) is the one the last build saw. The result is byte for byte the
/// artifact a build without a previous one makes, given a previous
/// artifact that a build wrote (see [`Builder::previous`] for what is
/// checked, and what is taken as it is).
#[derive(Clone)]
pub struct Builder {
    codings: Vec<ContentCoding>,
    release: Release,
    max_manifest_len: u64,
    renderer: Arc<Renderer>,
    /// What renders the pages, when they are built.
    pages: Option<Arc<PageMaker>>,
    previous: Option<Arc<Previous>>,
    progress: Option<Arc<Report>>,
    /// What is told each warning ([`Builder::on_warning`]).
    warn: Option<Arc<Warn>>,
    /// Where bodies are written as they are made, when not kept in memory.
    spool: Option<Arc<Path>>,
}

/// The largest manifest file [`Builder::build_dir`] reads unless told
/// otherwise: 16 MiB (a manifest is a few kilobytes).
pub const DEFAULT_MAX_MANIFEST_LEN: u64 = 16 << 20;

/// What [`Builder::on_progress`] is given.
type Report = dyn Fn(&Progress) + Send + Sync;

/// What [`Builder::on_warning`] is given.
type Warn = dyn Fn(&str, &str) + Send + Sync;

impl fmt::Debug for Builder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Builder")
            .field("codings", &self.codings)
            .field("release", &self.release)
            .field("record_types", &self.renderer.record_type_ids())
            .field("pages", &self.pages)
            .field("previous", &self.previous.as_ref().map(|p| p.products()))
            .field("progress", &self.progress.is_some())
            .field("warn", &self.warn.is_some())
            .field("spool", &self.spool)
            .finish()
    }
}

impl Default for Builder {
    fn default() -> Self {
        Builder {
            codings: crate::encoding::available().to_vec(),
            release: Release::default(),
            max_manifest_len: DEFAULT_MAX_MANIFEST_LEN,
            renderer: Arc::default(),
            pages: None,
            previous: None,
            progress: None,
            warn: None,
            spool: None,
        }
    }
}

/// A content coding asked of a [`Builder`] that this build cannot make.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("cannot store `{0}` bodies: this build of foundry-catalog makes {available}; hint: turn on the `compression` feature", available = crate::encoding::available().iter().map(|c| c.as_str()).collect::<Vec<_>>().join(", "))]
pub struct UnavailableCoding(pub ContentCoding);

/// How far a build has come, given to [`Builder::on_progress`] after each
/// product (from the building threads, so two reports may arrive out of
/// order) and once more when every product is done (from the thread that
/// called the build, last): that report is the build's tally.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[non_exhaustive]
pub struct Progress {
    /// Products (manifests, or records) in this build.
    pub total: usize,
    /// Products finished, including those with problems.
    pub done: usize,
    /// Of those, manifests whose bytes were read (and hashed): all of them,
    /// but in a rebuild of a folder in the same process, which takes a
    /// file whose stamp is unchanged without reading it; none for records.
    pub read: usize,
    /// Of those, manifests read and rendered (new or changed; the rest
    /// were unchanged since the previous artifact and not rendered).
    pub rendered: usize,
    /// Of those, products compressed anew (the rest reused the previous
    /// artifact's representations).
    pub compressed: usize,
    /// Of the products taken from the previous artifact, those whose page
    /// was rendered again, because a product it links to as related
    /// changed (their bodies are the previous artifact's).
    pub repaged: usize,
    /// The site's list pages (home and each route's pages), counted once
    /// the products are done (zero before, and without pages).
    pub list_pages: usize,
    /// Of those, the pages rendered (the others showed what they did in
    /// the previous artifact and were taken as it holds them).
    pub lists_rendered: usize,
}

impl Progress {
    /// Products whose representations came from the previous artifact.
    pub fn reused(&self) -> usize {
        self.done - self.compressed
    }
}

impl Builder {
    /// A builder storing every coding this build can make
    /// (identity, and with the `compression` feature gzip and brotli).
    pub fn new() -> Self {
        Self::default()
    }

    /// Stores these codings of each body (identity is always stored), for
    /// example identity alone when a CDN in front compresses. Forgets a
    /// [`Builder::previous`] catalog stored in other codings.
    pub fn codings(mut self, codings: &[ContentCoding]) -> Result<Self, UnavailableCoding> {
        let available = crate::encoding::available();
        if let Some(&missing) = codings.iter().find(|c| !available.contains(c)) {
            return Err(UnavailableCoding(missing));
        }
        self.codings =
            available.iter().copied().filter(|c| *c == ContentCoding::Identity || codings.contains(c)).collect();
        if self.previous.as_ref().is_some_and(|p| p.codings() != self.codings) {
            self.previous = None;
        }
        Ok(self)
    }

    /// Refuses a manifest file of a folder over `max_len` bytes
    /// ([`DEFAULT_MAX_MANIFEST_LEN`] unless set): it is one problem among
    /// the others, and is never read into memory.
    #[must_use]
    pub fn max_manifest_len(mut self, max_len: u64) -> Self {
        self.max_manifest_len = max_len;
        self
    }

    /// Writes every body to unnamed files in `dir` as it is made (one per
    /// building thread, gone when the catalog is dropped), not to memory:
    /// a build then holds the head (each product's index entry and table
    /// bytes), the cards its pages link with, the site documents and one
    /// block of bodies (at most 1 MiB) per thread, whatever the bodies
    /// come to. [`ResponseCatalog::write_file`] copies them from there in
    /// the kernel. Give the folder the artifact is written to (`build -o`
    /// does), so that they stay on its file system: a `/tmp` in memory
    /// would hold them in memory again.
    #[must_use]
    pub fn spool_bodies(mut self, dir: impl AsRef<Path>) -> Self {
        self.spool = Some(Arc::from(dir.as_ref()));
        self
    }

    /// Names the artifact's place in a series of releases
    /// ([`crate::artifact::Metadata::sequence`]): a replica refuses one
    /// below the highest it has served. Say the CI run number; never a
    /// clock reading unless it is what orders releases.
    #[must_use]
    pub fn sequence(mut self, sequence: u64) -> Self {
        self.release.sequence = Some(sequence);
        self
    }

    /// Makes the artifact stale from `expires` on
    /// ([`crate::artifact::Metadata::expires`], to whole seconds): a
    /// replica refuses it from then on, and reports it if still serving it.
    #[must_use]
    pub fn expires(mut self, expires: SystemTime) -> Self {
        let seconds = expires.duration_since(SystemTime::UNIX_EPOCH).map_or(0, |d| d.as_secs());
        self.release.expires = Some(seconds);
        self
    }

    /// Knows these record types besides the shipped ones: a serving
    /// crate's own generated `RECORD_TYPES`, or definitions read at run
    /// time (`foundry-catalog build --record-types DIR`). Their products'
    /// samples are checked at every depth, and the artifact names them.
    /// Forgets a [`Builder::previous`] catalog: give the record types first.
    pub fn record_types(mut self, record_types: impl IntoIterator<Item = RecordSchema>) -> Self {
        self.renderer = Arc::new(Renderer::new(record_types.into_iter().collect()));
        self.previous = None;
        self
    }

    /// Builds every product's page with its body, from the same record
    /// ([`foundry_catalog_pages::Pages`]: its templates and site), with
    /// the site documents: the list pages, `/robots.txt`, the sitemap,
    /// the icon and the not-found page. Each is stored in every coding
    /// with its own strong ETag, and a catalog serves them
    /// ([`ResponseCatalog::site_resource`]). A page links to its related
    /// products, so the build first gathers every product's card (a pass
    /// over the sources that builds each record, or takes an unchanged
    /// one's card from the previous artifact); a manifest whose bytes
    /// change between the passes is a [`CatalogError::Changed`] (a folder
    /// build takes a manifest the first pass found unchanged by its stamp
    /// as that pass did, and its next build reads it). On a
    /// previous artifact, only the kept products whose related products
    /// changed have their pages rendered again, and only the list pages
    /// that show something new are rendered ([`Progress`] counts both).
    /// A template that fails is a problem of the build naming the
    /// manifest and the template's file and line. Forgets a
    /// [`Builder::previous`] catalog: give the pages first.
    #[cfg(feature = "pages")]
    #[cfg_attr(docsrs, doc(cfg(feature = "pages")))]
    #[must_use]
    pub fn pages(mut self, pages: foundry_catalog_pages::Pages) -> Self {
        self.pages = Some(Arc::new(PageMaker::new(pages)));
        self.previous = None;
        self
    }

    /// Builds incrementally from `previous`, the catalog built last time
    /// (see [Incremental builds](Builder#incremental-builds)). It is used
    /// only if it was made by this renderer (the same version,
    /// compiled-in record types and compression:
    /// [`crate::artifact::Metadata::renderer_sha256`]) in these codings,
    /// with pages rendered alike (the same
    /// [`crate::artifact::SitePages::digest`], or no pages on either side:
    /// a product is taken with its page); otherwise this says why and the
    /// build is a full one.
    ///
    /// Record types given to [`Builder::record_types`] may differ: the
    /// products of a type whose definition changed (or that this build
    /// does not have) are rendered again, the others are taken as they
    /// are; the returned changes say which (the artifact names each type
    /// with the digest of its whole definition).
    ///
    /// It has passed its load checks (it is a [`ResponseCatalog`]), and a
    /// product is taken only if its bodies hash to their ETags (checked,
    /// unless the artifact was built in this process or verified): a
    /// product whose stored bytes were changed is built again. The source
    /// digests it records are taken as they are, as a build cache's
    /// contents are: where the previous artifact comes from storage others
    /// can write, sign artifacts and verify it first
    /// (`Artifact::verify`, as `foundry-catalog build
    /// --sign-key` does).
    pub fn previous(&mut self, previous: &ResponseCatalog) -> Result<RecordTypeChanges, Unusable> {
        self.previous = None;
        let pages = self.pages.as_deref().map(PageMaker::digest);
        let previous = Previous::new(previous, &self.codings, &self.renderer, pages)?;
        let changes = previous.changes().clone();
        self.previous = Some(Arc::new(previous));
        Ok(changes)
    }

    /// Calls `report` after each product (from the building threads; keep
    /// it quick), for a progress bar or a log line.
    pub fn on_progress(mut self, report: impl Fn(&Progress) + Send + Sync + 'static) -> Self {
        self.progress = Some(Arc::new(report));
        self
    }

    /// Calls `warn` with a manifest's name and a sentence (with a hint) for
    /// each thing about its page that a search engine or a visitor would
    /// fault, though the build goes on (`foundry_catalog_pages::warnings`
    /// with the `pages` feature; none without pages): a dataset's short
    /// description, when its manifest is read; a title or summary another
    /// product has too, at every build with pages. From the building
    /// threads; keep it quick.
    pub fn on_warning(mut self, warn: impl Fn(&str, &str) + Send + Sync + 'static) -> Self {
        self.warn = Some(Arc::new(warn));
        self
    }

    /// Builds the manifests `*.json` in a folder (sorted by name), read by
    /// the threads that build them. Every file is read; one that cannot
    /// be read or is not UTF-8 is one problem among the others, never a
    /// stop. A manifest must be a regular file (a symbolic link, a FIFO or
    /// a device is refused, never followed or waited on) of at most
    /// [`Builder::max_manifest_len`] bytes.
    pub fn build_dir(&self, dir: &Path) -> Result<ResponseCatalog, CatalogErrors> {
        self.build_listed(Manifests::list(dir)?)
    }

    /// [`Builder::build_dir`] of a folder already listed.
    pub fn build_listed(&self, manifests: Manifests) -> Result<ResponseCatalog, CatalogErrors> {
        let Manifests { dir, names } = manifests;
        let dir = dir.as_path();
        let stamps = self.previous.as_ref().and_then(|p| p.stamps());
        let recorder = Recorder::new(dir, names.len());
        let places: Vec<usize> = (0..names.len()).collect();
        // The manifests the first pass of a build with pages found
        // unchanged by their stamps, each with the place the previous
        // artifact holds its product at (else its own): the second pass
        // takes them as it did, without asking the file system again (a
        // file changed since is read by the next build, its stamp being
        // the one recorded), nor looking for the product.
        // (A place is at most the products' count, a `u32` in the format.)
        const UNSETTLED: u32 = u32::MAX;
        let folder = Folder::open(dir);
        let settled: Vec<AtomicU32> = names.iter().map(|_| AtomicU32::new(UNSETTLED)).collect();
        let artifact = self.assemble(&places, |&at, counter| {
            let name = &names[at];
            let path = dir.join(name);
            let file = path.display().to_string();
            // Where the previous stamps and artifact most likely hold this
            // manifest: where the first pass found it, else its own place
            // (theirs, when the folder holds the files it held).
            let found = settled[at].load(Ordering::Relaxed);
            let near = if found == UNSETTLED { at } else { found as usize };
            let known = match stamps {
                Some(stamps) if counter.is_some() && found != UNSETTLED => stamps.recorded(dir, name, at),
                // The entry itself: a link is never taken for its target.
                Some(stamps) => {
                    Stamp::of_entry(&folder, dir, name).and_then(|now| stamps.unchanged(dir, name, at, now))
                }
                None => None,
            };
            if let (Some(stamp), Some(previous)) = (known, &self.previous) {
                let slug = stem(Path::new(name)).to_owned();
                let unchanged = previous.unchanged_near(&slug, stamp.source, near);
                if counter.is_none() {
                    let place = unchanged.as_ref().map_or(at, |(place, _)| *place);
                    settled[at].store(u32::try_from(place).unwrap_or(UNSETTLED), Ordering::Relaxed);
                }
                if let Some((_, entry)) = unchanged {
                    if counter.is_some() {
                        recorder.record(at, *stamp);
                    }
                    return Source::Unchanged { file, slug, entry, from: Arc::clone(previous) };
                }
            } else if counter.is_none() && known.is_some() {
                settled[at].store(u32::try_from(at).unwrap_or(UNSETTLED), Ordering::Relaxed);
            }
            if let Some(counter) = counter {
                counter.read.fetch_add(1, Ordering::Relaxed);
            }
            match crate::files::read_regular(&path, self.max_manifest_len) {
                Ok((bytes, opened)) => {
                    let source: [u8; SOURCE_LEN] = Sha256::digest(&bytes).into();
                    if let (Some(stamp), Some(_)) = (Stamp::new(&opened, source), counter) {
                        recorder.record(at, stamp);
                    }
                    self.manifest(file, Cow::Owned(bytes), source)
                }
                Err(reason) => Source::Failed(CatalogError::Read { file, reason }),
            }
        })?;
        Ok(loaded(artifact)?.remembering(Some(recorder.finish(names))))
    }

    /// Builds manifests `(file name, text)`: each is read, checked against
    /// its file name, built into its record and prepared as
    /// [`Builder::build_records`] does. Every problem of every file is
    /// reported, in the order of the sources.
    pub fn build(&self, sources: impl IntoIterator<Item = (String, String)>) -> Result<ResponseCatalog, CatalogErrors> {
        let sources: Vec<(String, String)> = sources.into_iter().collect();
        let artifact = self.assemble(&sources, |(file, text), counter| {
            if let Some(counter) = counter {
                counter.read.fetch_add(1, Ordering::Relaxed);
            }
            self.manifest(file.clone(), Cow::Borrowed(text.as_bytes()), Sha256::digest(text.as_bytes()).into())
        })?;
        loaded(artifact)
    }

    /// Serves already-built records `(source name, record)`: each is
    /// checked against the spec, serialized once and compressed once.
    pub fn build_records(
        &self,
        records: impl IntoIterator<Item = (String, ProductRecord)>,
    ) -> Result<ResponseCatalog, CatalogErrors> {
        let records: Vec<(String, ProductRecord)> = records.into_iter().collect();
        let artifact = self.assemble(&records, |(file, record), _| Source::Record { file: file.as_str(), record })?;
        loaded(artifact)
    }

    /// One manifest's bytes: the previous artifact's product when they are
    /// the bytes it was built from, else bytes to build.
    fn manifest<'a>(&self, file: String, bytes: Cow<'a, [u8]>, source: [u8; SOURCE_LEN]) -> Source<'a> {
        if let Some(previous) = &self.previous {
            let slug = stem(Path::new(&file)).to_owned();
            if let Some(entry) = previous.unchanged(&slug, source) {
                return Source::Unchanged { file, slug, entry, from: Arc::clone(previous) };
            }
        }
        Source::Manifest { file, bytes, source }
    }

    /// What the first pass over the sources of a build with pages learns
    /// of one: its card, from the previous artifact's cards when it is
    /// unchanged, else from its record (none when it does not build: the
    /// second pass reports why), and the digest of the bytes it was read
    /// from.
    fn seen(&self, pages: &PageMaker, before: Option<&Cards>, source: Source<'_>) -> Result<Seen, CatalogError> {
        match source {
            Source::Unchanged { file, entry, from, .. } => {
                let card = match from.page_listing(&entry) {
                    Some(listing) if listing.is_listed() => {
                        let path = listing.path();
                        Some(pages.kept_card(before, path).ok_or_else(|| CatalogError::Page {
                            file: "<the previous artifact>".to_owned(),
                            error: format!("{path}: it keeps no card of this page; build without it"),
                        })?)
                    }
                    _ => None,
                };
                Ok(Seen { card: card.map(|card| (file, card)), source: entry.source })
            }
            Source::Manifest { file, bytes, source } => {
                let record = self.renderer.build_manifest(&file, &bytes).ok();
                let card = record.and_then(|record| pages.card(&record));
                Ok(Seen { card: card.map(|card| (file, card)), source })
            }
            Source::Record { file, record } => {
                Ok(Seen { card: pages.card(record).map(|card| (file.to_owned(), card)), source: [0; SOURCE_LEN] })
            }
            Source::Failed(_) => Ok(Seen { card: None, source: [0; SOURCE_LEN] }),
        }
    }

    /// One source made into a product: built, or taken from the previous
    /// artifact (its page rendered again when its related products changed).
    fn product(&self, source: Source<'_>, linking: Option<&Linking>) -> Result<Product, CatalogError> {
        match source {
            Source::Unchanged { file, slug, entry, from } => {
                self.relink(Product::Reused { file, slug, entry, from, rendered: false }, None, linking)
            }
            Source::Manifest { file, bytes, source } => {
                let record = self.renderer.build_manifest(&file, &bytes)?;
                self.prepare(&file, &record, source, linking)
            }
            Source::Record { file, record } => self.prepare(file, record, [0; SOURCE_LEN], linking),
            Source::Failed(error) => Err(error),
        }
    }

    /// Serializes one record and validates it (once); reuses the previous
    /// artifact's representations when the body is theirs, else compresses.
    fn prepare(
        &self,
        file: &str,
        record: &ProductRecord,
        source: [u8; SOURCE_LEN],
        linking: Option<&Linking>,
    ) -> Result<Product, CatalogError> {
        let body = self
            .renderer
            .body(record)
            .map_err(|violations| CatalogError::Invalid { file: file.to_owned(), violations })?;
        if let (Some(pages), Some(warn)) = (self.pages.as_deref(), &self.warn) {
            for warning in pages.warnings(record) {
                warn(file, &warning);
            }
        }
        let slug = record.slug.to_string();
        if let Some(previous) = &self.previous
            && let Some(entry) = previous.same_body(&slug, &body, source)
        {
            let from = Arc::clone(previous);
            let reused = Product::Reused { file: file.to_owned(), slug, entry, from, rendered: true };
            return self.relink(reused, Some(record), linking);
        }
        let seconds =
            u64::try_from(record.last_updated_at.as_datetime().unix_timestamp()).unwrap_or(0).min(LAST_HTTP_DATE);
        let modified = SystemTime::UNIX_EPOCH + Duration::from_secs(seconds);
        // Each coding's bytes, identity included (`encode` copies it);
        // the codings were checked to be available when they were chosen.
        let bodies = encode(&self.codings, &body);
        let page = match (self.pages.as_deref(), linking) {
            (Some(pages), Some(linking)) => Some(pages.page(file, record, &linking.now, &self.codings)?),
            _ => None,
        };
        Ok(Product::Built(Prepared {
            file: file.to_owned(),
            slug,
            source,
            modified: seconds,
            last_modified: httpdate::fmt_http_date(modified),
            bodies,
            page,
        }))
    }

    /// A product taken from the previous artifact, with its page rendered
    /// again (from `record`, or the record its body holds) when the page
    /// would link to other related products now.
    fn relink(
        &self,
        product: Product,
        record: Option<&ProductRecord>,
        linking: Option<&Linking>,
    ) -> Result<Product, CatalogError> {
        let (Some(pages), Some(linking), Product::Reused { file, slug, entry, from, .. }) =
            (self.pages.as_deref(), linking, &product)
        else {
            return Ok(product);
        };
        let Some(listing) = from.page_listing(entry) else { return Ok(product) };
        if pages.same_related(listing.path(), linking) {
            return Ok(product);
        }
        let decoded;
        let record = match record {
            Some(record) => record,
            None => {
                decoded = from.record(entry, &self.renderer).map_err(|error| CatalogError::Page {
                    file: file.clone(),
                    error: format!("its body in the previous artifact does not read as a record: {error}"),
                })?;
                &decoded
            }
        };
        let page = pages.page(file, record, &linking.now, &self.codings)?;
        Ok(Product::Repaged {
            file: file.clone(),
            slug: slug.clone(),
            entry: entry.clone(),
            from: Arc::clone(from),
            page,
        })
    }
}

/// One source of a product as a build finds it; both passes of a build
/// with pages find each alike.
enum Source<'a> {
    /// A product of the previous artifact whose source is unchanged (by
    /// its stamp, not read, or by its bytes' digest).
    Unchanged { file: String, slug: String, entry: IndexEntry, from: Arc<Previous> },
    /// A manifest's bytes to build, with their SHA-256.
    Manifest { file: String, bytes: Cow<'a, [u8]>, source: [u8; SOURCE_LEN] },
    /// A record to prepare.
    Record { file: &'a str, record: &'a ProductRecord },
    /// A file that could not be read.
    Failed(CatalogError),
}

/// What the first pass of a build with pages learns of one source.
struct Seen {
    /// The card, with the name of the manifest (or record) it is of.
    card: Option<(String, Card)>,
    /// The SHA-256 of the bytes it was read from (zeros for a record, or
    /// a file that could not be read).
    source: [u8; SOURCE_LEN],
}

/// Counts products as the threads finish them and reports them.
struct Counter<'a> {
    total: usize,
    done: AtomicUsize,
    read: AtomicUsize,
    rendered: AtomicUsize,
    compressed: AtomicUsize,
    repaged: AtomicUsize,
    list_pages: AtomicUsize,
    lists_rendered: AtomicUsize,
    report: Option<&'a Report>,
}

impl Counter<'_> {
    fn now(&self) -> Progress {
        Progress {
            total: self.total,
            done: self.done.load(Ordering::Acquire),
            read: self.read.load(Ordering::Relaxed),
            rendered: self.rendered.load(Ordering::Relaxed),
            compressed: self.compressed.load(Ordering::Relaxed),
            repaged: self.repaged.load(Ordering::Relaxed),
            list_pages: self.list_pages.load(Ordering::Relaxed),
            lists_rendered: self.lists_rendered.load(Ordering::Relaxed),
        }
    }

    fn count(&self, product: Option<&Product>) {
        match product {
            Some(Product::Built(_)) => {
                self.rendered.fetch_add(1, Ordering::Relaxed);
                self.compressed.fetch_add(1, Ordering::Relaxed);
            }
            Some(Product::Reused { rendered: true, .. }) => {
                self.rendered.fetch_add(1, Ordering::Relaxed);
            }
            Some(Product::Repaged { .. }) => {
                self.repaged.fetch_add(1, Ordering::Relaxed);
            }
            Some(Product::Reused { rendered: false, .. }) | None => {}
        }
        self.done.fetch_add(1, Ordering::AcqRel);
        if let Some(report) = self.report {
            report(&self.now());
        }
    }
}

impl Builder {
    /// Makes every source a product on all cores, each thread writing its
    /// products' bytes into buffers of its own (so no product is an
    /// allocation of its own), then checks slugs for duplicates and
    /// assembles the artifact. `source` finds each item's source; it is
    /// given the counter on the pass that makes the products. With pages,
    /// a first pass gathers every product's card, so that each page can
    /// link to its related products; a source whose bytes the two passes
    /// see differ is a [`CatalogError::Changed`] (`source` may give the
    /// second pass what it gave the first).
    fn assemble<T: Sync>(
        &self,
        items: &[T],
        source: impl for<'t> Fn(&'t T, Option<&Counter<'_>>) -> Source<'t> + Sync,
    ) -> Result<Artifact, CatalogErrors> {
        let counter = Counter {
            total: items.len(),
            done: AtomicUsize::new(0),
            read: AtomicUsize::new(0),
            rendered: AtomicUsize::new(0),
            compressed: AtomicUsize::new(0),
            repaged: AtomicUsize::new(0),
            list_pages: AtomicUsize::new(0),
            lists_rendered: AtomicUsize::new(0),
            report: self.progress.as_deref(),
        };
        let failed = |errors: Vec<CatalogError>| CatalogErrors { errors, sources: items.len() };
        let (linking, first_sources) = match self.pages.as_deref() {
            Some(pages) => {
                let (linking, sources) = self.link(pages, items, &source).map_err(failed)?;
                (Some(linking), sources)
            }
            None => (None, Vec::new()),
        };
        let jobs: Vec<(&T, Option<&[u8; SOURCE_LEN]>)> =
            items.iter().enumerate().map(|(n, item)| (item, first_sources.get(n))).collect();
        let inflated = artifact::inflated_identity(&self.codings);
        let spool_failed = |e: std::io::Error| CatalogError::Spool {
            dir: self.spool.as_deref().map(|dir| dir.display().to_string()).unwrap_or_default(),
            reason: e.to_string(),
        };
        let parts: Vec<Part> = crate::parallel::chunks(&jobs, |chunk| {
            let mut part = Part::default();
            match Data::new(self.spool.as_deref()) {
                Ok(data) => part.data = data,
                Err(e) => {
                    part.written.push(Err(spool_failed(e)));
                    return part;
                }
            }
            for &(item, seen) in chunk {
                let product =
                    self.product(source(item, Some(&counter)), linking.as_ref()).and_then(|product| match seen {
                        Some(seen) if *seen != product.source() => {
                            Err(CatalogError::Changed { file: product.file().to_owned() })
                        }
                        _ => Ok(product),
                    });
                counter.count(product.as_ref().ok());
                let written = product.and_then(|product| part.place(product, inflated));
                part.written.push(written);
            }
            part
        });
        // Each product's source digest from the first pass is checked.
        drop(jobs);
        drop(first_sources);
        let mut errors = Vec::new();
        let mut seen: HashMap<String, String> = HashMap::with_capacity(items.len());
        let (mut index, mut products) = (Vec::new(), 0);
        // The table's buffers, then the bodies'.
        let (mut table, mut bodies) = (Vec::with_capacity(parts.len() + 1), Vec::with_capacity(parts.len() + 1));
        let mut base = (0u64, 0u64);
        for Part { data, written, stored } in parts {
            for written in written {
                match written {
                    Ok((file, slug)) => {
                        if let Some(other) = seen.get(&slug) {
                            errors.push(CatalogError::DuplicateSlug { file, other: other.clone(), slug });
                            continue;
                        }
                        seen.insert(slug, file);
                        products += 1;
                    }
                    Err(error) => errors.push(error),
                }
            }
            index.push(stored);
            base = (base.0 + data.table.written, base.1 + data.bodies.written);
            match (data.table.finish(), data.bodies.finish()) {
                (Ok(table_pieces), Ok(body_pieces)) => {
                    table.extend(table_pieces);
                    bodies.extend(body_pieces);
                }
                (Err(e), _) | (_, Err(e)) => {
                    errors.push(spool_failed(e));
                }
            }
        }
        // The slugs are checked: what is left of a build is its head (the
        // names freed now, not aside: the site documents made next are a
        // large build's peak).
        drop(seen);
        let mut documents = match (self.pages.as_deref(), &linking) {
            (Some(pages), Some(linking)) if errors.is_empty() => {
                match self.write_documents(pages, linking, base, &mut table, &mut bodies, inflated) {
                    Ok((documents, table_len, tally)) => {
                        counter.list_pages.store(tally.rendered + tally.kept, Ordering::Relaxed);
                        counter.lists_rendered.store(tally.rendered, Ordering::Relaxed);
                        (documents, table_len)
                    }
                    Err(error) => {
                        errors.push(error);
                        (Vec::new(), base.0)
                    }
                }
            }
            _ => (Vec::new(), base.0),
        };
        // The cards are freed aside while the head is made.
        crate::parallel::drop_aside(linking);
        if let Some(report) = counter.report {
            report(&counter.now());
        }
        if !errors.is_empty() {
            return Err(failed(errors));
        }
        let table_len = documents.1;
        for document in &mut documents.0 {
            place::shift(document.body_spans_mut(), table_len);
        }
        let documents = documents.0;
        table.extend(bodies);
        let buffers = table;
        let contents = Contents {
            generator: generator(),
            codings: self.codings.clone(),
            record_types: self.renderer.record_type_ids().to_vec(),
            renderer_sha256: self.renderer.digest().to_owned(),
            release: self.release,
            pages: self.pages.as_deref().map(|pages| (pages.digest().to_owned(), pages.site())),
        };
        Artifact::new(contents, (index, products), &documents, buffers, table_len)
            .map_err(|error| in_memory(error, products))
    }

    /// The first pass of a build with pages, on all cores: every source's
    /// card (this build's cards, with those the previous artifact's pages
    /// were made with), and the digest of the bytes each was read from.
    #[cfg_attr(not(feature = "pages"), allow(unreachable_code))]
    fn link<T: Sync>(
        &self,
        pages: &PageMaker,
        items: &[T],
        source: &(impl for<'t> Fn(&'t T, Option<&Counter<'_>>) -> Source<'t> + Sync),
    ) -> Result<(Linking, Vec<[u8; SOURCE_LEN]>), Vec<CatalogError>> {
        let before = match self.previous.as_deref() {
            Some(previous) => Some(pages.previous_cards(previous).map_err(|error| vec![error])?),
            None => None,
        };
        let seen = crate::parallel::map(items, |item| self.seen(pages, before.as_ref(), source(item, None)));
        let (mut named, mut sources, mut errors) = (Vec::new(), Vec::with_capacity(items.len()), Vec::new());
        for seen in seen {
            match seen {
                Ok(Seen { card, source }) => {
                    named.extend(card);
                    sources.push(source);
                }
                Err(error) => errors.push(error),
            }
        }
        if !errors.is_empty() {
            return Err(errors);
        }
        if let Some(warn) = &self.warn {
            let cards: Vec<(&str, &Card)> = named.iter().map(|(file, card)| (file.as_str(), card)).collect();
            for (at, warning) in pages.duplicates(&cards) {
                warn(cards[at].0, &warning);
            }
        }
        let cards = named.into_iter().map(|(_, card)| card).collect();
        Ok((pages.linking(cards, before), sources))
    }

    /// Makes the site documents of `linking` and appends each, as it is
    /// made, its name and ETags after the products' in the table, and its
    /// bodies after the products' bodies (the parts end at `base`), as
    /// buffers of their own (a kept document's shared with the previous
    /// artifact); returns their index entries (body spans still relative
    /// to the bodies' start), where the table ends, and the list pages'
    /// tally.
    fn write_documents(
        &self,
        pages: &PageMaker,
        linking: &Linking,
        base: (u64, u64),
        table: &mut Vec<crate::artifact::Piece>,
        bodies: &mut Vec<crate::artifact::Piece>,
        inflated: Option<usize>,
    ) -> Result<(Vec<DocumentEntry>, u64, ListTally), CatalogError> {
        let spool_failed = |e: std::io::Error| CatalogError::Spool {
            dir: self.spool.as_deref().map(|dir| dir.display().to_string()).unwrap_or_default(),
            reason: e.to_string(),
        };
        let mut data = Data::new(self.spool.as_deref()).map_err(spool_failed)?;
        let mut entries = Vec::new();
        let tally = pages.documents(linking, self.previous.as_deref(), &self.codings, |document| {
            let mut entry = match document {
                Document::New(name, bodies) => {
                    let path = data.table.put(name.as_bytes());
                    let representations = place::put_representations(&mut data, &bodies, inflated);
                    DocumentEntry { path, representations }
                }
                Document::Kept(entry, from) => from.write_document(entry, &mut data),
            };
            place::shift(entry.table_spans_mut(), base.0);
            place::shift(entry.body_spans_mut(), base.1);
            entries.push(entry);
            Ok(())
        })?;
        let table_len = base.0 + data.table.written;
        table.extend(data.table.finish().map_err(spool_failed)?);
        bodies.extend(data.bodies.finish().map_err(spool_failed)?);
        Ok((entries, table_len, tally))
    }
}

/// The catalog of an artifact this build assembled (its slugs, dates,
/// ETags and digest are its own: not checked again).
fn loaded(artifact: Artifact) -> Result<ResponseCatalog, CatalogErrors> {
    let products = artifact.len();
    ResponseCatalog::from_artifact(artifact).map_err(|error| in_memory(error, products))
}

/// What went wrong with an artifact built in memory of `products` products.
fn in_memory(error: crate::artifact::ArtifactError, products: usize) -> CatalogErrors {
    CatalogErrors {
        errors: vec![CatalogError::Artifact { file: "<built in memory>".to_owned(), error }],
        sources: products,
    }
}

#[cfg(all(test, feature = "pages"))]
mod tests {
    use std::borrow::Cow;

    use super::{Builder, CatalogError, Source};
    use sha2::{Digest, Sha256};

    /// A manifest whose bytes the two passes of a build with pages see
    /// differ (written between them) is an error naming it, not pages
    /// linking to what the catalog does not serve.
    #[test]
    fn a_manifest_changed_between_the_passes_is_an_error() {
        let site = foundry_catalog_pages::Site::new("https://catalog.example.com").expect("a site");
        let builder = Builder::new().pages(foundry_catalog_pages::Pages::new(site));
        let sources: Vec<(String, String)> = foundry_catalog::examples::MANIFESTS
            .iter()
            .map(|(file, text)| ((*file).to_owned(), (*text).to_owned()))
            .collect();
        let edited = sources[1].1.replacen("\"title\": \"", "\"title\": \"Edited ", 1);
        assert_ne!(edited, sources[1].1);
        let result = builder.assemble(&sources, |(file, text), counter| {
            // The first pass is given no counter; the second sees the edit.
            let bytes = if counter.is_some() && *file == sources[1].0 {
                Cow::Owned(edited.clone().into_bytes())
            } else {
                Cow::Borrowed(text.as_bytes())
            };
            let source = Sha256::digest(&bytes).into();
            Source::Manifest { file: file.clone(), bytes, source }
        });
        let Err(super::CatalogErrors { errors, .. }) = result else { panic!("built") };
        assert!(matches!(&errors[..], [CatalogError::Changed { file }] if *file == sources[1].0), "{errors:?}");
        assert!(errors[0].to_string().contains("changed while the build read it; hint:"));
        // Read alike both times, the same sources build.
        assert!(
            builder
                .assemble(&sources, |(file, text), _| builder.manifest(
                    file.clone(),
                    Cow::Borrowed(text.as_bytes()),
                    Sha256::digest(text.as_bytes()).into()
                ))
                .is_ok()
        );
    }
}

#[cfg(test)]
mod delta_tests {
    //! The delta plan's block path (`crate::delta`) against its entry
    //! path, on artifacts built here.
    use super::Builder;
    use crate::artifact::Artifact;
    use crate::delta::{Plan, same_blocks};
    use crate::encoding::ContentCoding;
    use proptest::prelude::*;

    /// The artifact of products `numbers` (each an example with slug
    /// `product-<n>`), product `n` titled `title(n)`, bodies as is.
    fn artifact(numbers: &[usize], title: impl Fn(usize) -> String) -> Artifact {
        let templates: Vec<serde_json::Value> = foundry_catalog::examples::MANIFESTS
            .iter()
            .map(|(_, text)| serde_json::from_str(text).expect("an example is JSON"))
            .collect();
        let sources = numbers.iter().map(|&n| {
            let mut manifest = templates[n % templates.len()].clone();
            manifest["slug"] = serde_json::json!(format!("product-{n:04}"));
            manifest["title"] = serde_json::json!(title(n));
            (format!("product-{n:04}.json"), manifest.to_string())
        });
        let builder = Builder::new().codings(&[ContentCoding::Identity]).expect("identity");
        let bytes = builder.build(sources).expect("builds").artifact().to_vec();
        Artifact::parse(bytes.into()).expect("parses")
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 8, ..ProptestConfig::default() })]

        /// Over heads of many blocks and any edits, taking the blocks both
        /// heads hold whole plans what matching entry by entry plans.
        #[test]
        fn blocks_held_whole_plan_what_entries_one_by_one_plan(
            retitled in proptest::collection::vec(0usize..400, 0..8),
            removed in proptest::collection::vec(0usize..400, 0..4),
            added in proptest::collection::vec(400usize..420, 0..4),
        ) {
            let old_numbers: Vec<usize> = (0..400).collect();
            let mut new_numbers: Vec<usize> =
                (0..400).filter(|n| !removed.contains(n)).chain(added.iter().copied()).collect();
            new_numbers.sort_unstable();
            new_numbers.dedup();
            let old = artifact(&old_numbers, |n| format!("Product {n}"));
            let new = artifact(&new_numbers, |n| if retitled.contains(&n) { format!("New {n}") } else { format!("Product {n}") });
            prop_assert!(!same_blocks(&new, &old).is_empty(), "blocks held whole");
            let [mut by_block, mut by_entry] = [true, false].map(|by_block| Plan::matched_by(&new, &old, by_block));
            by_block.coalesce(usize::MAX, 0);
            by_entry.coalesce(usize::MAX, 0);
            prop_assert_eq!(by_block, by_entry);
        }
    }
}
