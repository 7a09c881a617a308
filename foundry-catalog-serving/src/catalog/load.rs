//! Loading a catalog from an artifact: opened from a file, verified with
//! the verify keys given, and every slug, path, date and ETag checked
//! before anything is served.

use std::collections::HashMap;
use std::path::Path;
use std::sync::Arc;

use bytes::Bytes;

use super::{BodyCache, CatalogErrors, KeptBodies, ResponseCatalog, SiteEntries, errors::opening};
use crate::artifact::{self, Artifact, ArtifactError, IndexEntry};
use crate::encoding::ContentCoding;

impl ResponseCatalog {
    /// Opens an artifact file ([`Artifact::open`]: the bodies stay in
    /// the file) and loads it ([`ResponseCatalog::from_artifact`]).
    pub fn open(path: &Path) -> Result<Self, CatalogErrors> {
        Self::open_with(path, &OpenOptions::default())
    }

    /// Opens an artifact file ([`Artifact::open`]), verifies it when
    /// verify keys are given, and loads it. What is checked before the
    /// catalog is returned is read from the file (its header, metadata,
    /// signature, index and table); its bodies stay in the file, in the
    /// page cache, and each is read and checked against its ETag when it
    /// is first asked for ([`Representation::body`](super::Representation::body)), then kept in
    /// [`OpenOptions::body_cache`] while it has room. The file stays open
    /// as long as the catalog (or a body of it being sent) lives, so a new
    /// file renamed over its path changes nothing it serves; one written
    /// into in place (`cp new.fcat catalog.fcat`, a truncation) is never
    /// served: each body read from it then fails its check, an error.
    pub fn open_with(path: &Path, options: &OpenOptions) -> Result<Self, CatalogErrors> {
        let artifact = Artifact::open_checked(path, options.max_len, &|summary| options.check_summary(summary))
            .map_err(|error| opening(path, error))?;
        Self::verified(artifact, options).map_err(|error| opening(path, error))
    }

    /// Opens a layered artifact ([`crate::delta::open_layered`]: the file at
    /// `path`, its bodies read from `base`'s file where `base` holds them)
    /// and loads it as [`ResponseCatalog::open_with`] does: its own
    /// signature is verified when verify keys are given (`base` is trusted
    /// for nothing but bytes, each checked against the layered artifact's
    /// ETags before it is served). An error names `path`.
    pub fn open_layered_with(path: &Path, base: &Artifact, options: &OpenOptions) -> Result<Self, CatalogErrors> {
        let artifact = crate::delta::open_layered(path, base, options.max_len).map_err(|error| opening(path, error))?;
        Self::verified(artifact, options).map_err(|error| opening(path, error))
    }

    /// Verifies `artifact` when `options` gives verify keys, and loads it.
    pub(super) fn verified(artifact: Artifact, options: &OpenOptions) -> Result<Self, ArtifactError> {
        #[cfg(feature = "signing")]
        if !options.verify_keys.is_empty() {
            // Which key signed is known at once: a wrong key costs nothing more.
            let verify = |artifact: &Artifact| artifact.verify_any(&options.verify_keys);
            artifact.signer_trusted(&options.verify_keys)?;
            return Self::load_verified(artifact, &options.body_cache, Some(&verify));
        }
        Self::load(artifact, &options.body_cache)
    }

    /// Opens an artifact file as [`ResponseCatalog::open`] does and keeps
    /// it open, so that a catalog built on this one ([`Builder::previous`](super::Builder::previous))
    /// takes the bodies it shares with it without reading them into
    /// memory, and writes them by copying them file to file
    /// ([`ResponseCatalog::write_file`]). The error does not name the
    /// file: the caller knows it.
    pub fn open_to_build_on(path: &Path) -> Result<Self, ArtifactError> {
        Self::from_artifact(Artifact::open(path, u64::MAX)?)
    }

    /// Loads an artifact: checks every span, slug, ETag and date and the
    /// content digest, and indexes the products. The bodies are not
    /// copied: the catalog shares the artifact's buffers.
    ///
    /// An artifact a [`Builder`](super::Builder) built in this process wrote its slugs,
    /// dates, ETags and digest itself: those are not checked again.
    ///
    /// The bodies of a version-4 artifact are not covered by its CRC-32:
    /// those in memory are checked against their ETags here (on all
    /// cores), those left in the artifact's file ([`Artifact::open`]) as
    /// they are read, and kept in a cache of their own
    /// ([`BodyCache::default`]).
    pub fn from_artifact(artifact: Artifact) -> Result<Self, ArtifactError> {
        Self::load(artifact, &BodyCache::default())
    }

    /// [`ResponseCatalog::from_artifact`] with `options`: the artifact's
    /// signature verified when verify keys are given (as
    /// [`ResponseCatalog::open_with`] verifies it), bodies read from its
    /// files kept in the options' cache. A replica loads what it pulled so
    /// ([`crate::delta::written`]).
    pub fn from_artifact_with(artifact: Artifact, options: &OpenOptions) -> Result<Self, ArtifactError> {
        Self::verified(artifact, options)
    }

    /// [`ResponseCatalog::from_artifact`], keeping bodies read from the
    /// artifact's file in `cache`.
    pub(super) fn load(artifact: Artifact, cache: &BodyCache) -> Result<Self, ArtifactError> {
        Self::load_verified(artifact, cache, None)
    }

    /// [`ResponseCatalog::load`], with `verify` (the signature check) run
    /// beside the content digest and the indexing: each reads the whole
    /// head once, on a core of its own. A failed signature is reported
    /// first, then the digest, then what the indexing found.
    pub(super) fn load_verified(
        artifact: Artifact,
        cache: &BodyCache,
        verify: Option<&Verify<'_>>,
    ) -> Result<Self, ArtifactError> {
        let check = !artifact.built_here();
        let join = |handle: std::thread::ScopedJoinHandle<'_, Result<(), ArtifactError>>| {
            handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        };
        let (entries, site) = std::thread::scope(|scope| {
            let verified = verify.map(|verify| scope.spawn(|| verify(&artifact)));
            // The head's blocks against their digests (a verify checks them with the signature).
            let digest = check.then(|| {
                scope.spawn(|| {
                    artifact.check_content_digest()?;
                    if verify.is_none() { artifact.check_blocks() } else { Ok(()) }
                })
            });
            let indexed = Self::index(&artifact, check);
            verified.map_or(Ok(()), join)?;
            digest.map_or(Ok(()), join)?;
            indexed
        })?;
        if check && !artifact.bodies_in_files() {
            artifact.check_bodies()?;
        }
        Ok(ResponseCatalog {
            entries: Arc::new(entries),
            kept: Arc::new(KeptBodies::new(cache, &artifact)),
            artifact,
            stamps: None,
            site: site.map(Arc::new),
        })
    }

    /// Every product, page and site document of `artifact`, by slug and
    /// by path, as positions in its index (each slug, date, path, name and
    /// ETag checked when `check`).
    pub(super) fn index(
        artifact: &Artifact,
        check: bool,
    ) -> Result<(HashMap<Bytes, usize>, Option<SiteEntries>), ArtifactError> {
        let metadata = artifact.metadata();
        let malformed = |what: String| ArtifactError::Malformed(what);
        let mut entries = HashMap::with_capacity(artifact.len());
        let mut site = metadata
            .pages
            .as_ref()
            .map(|_| SiteEntries { pages: HashMap::with_capacity(artifact.len()), ..SiteEntries::default() });
        for (index, IndexEntry { modified, slug, last_modified, representations, page, .. }) in
            artifact.entries().enumerate()
        {
            let slug = artifact.slice(slug)?;
            let name = || String::from_utf8_lossy(&slug).into_owned();
            if check && !std::str::from_utf8(&slug).is_ok_and(|s| foundry_catalog_core::Slug::check(s).is_ok()) {
                return Err(malformed(format!("{:?} is not a slug", name())));
            }
            let last_modified = artifact.slice(last_modified)?;
            if check && !artifact::is_http_date_of(&last_modified, modified) {
                return Err(malformed(format!("`{}` has a malformed or inconsistent modification date", name())));
            }
            check_representations(artifact, &representations, check, &name)?;
            if let (Some(site), Some(page)) = (&mut site, page) {
                let path = artifact.slice(page.path)?;
                if check && !is_page_path(&path, &slug) {
                    return Err(malformed(format!("the page of `{}` is not at /<route>/{}", name(), name())));
                }
                if check && !is_lastmod(&artifact.slice(page.lastmod)?) {
                    return Err(malformed(format!("the page of `{}` has a malformed sitemap lastmod", name())));
                }
                check_representations(artifact, &page.representations, check, &name)?;
                if site.pages.insert(path, index).is_some() {
                    return Err(malformed(format!("the page of `{}` is indexed twice", name())));
                }
            }
            if entries.insert(slug.clone(), index).is_some() {
                return Err(malformed(format!("slug `{}` is indexed twice", name())));
            }
        }
        if let Some(site) = &mut site {
            for (index, document) in artifact.documents().enumerate() {
                let path = artifact.slice(document.path)?;
                let name = || String::from_utf8_lossy(&path).into_owned();
                if check && !is_document_name(&path) {
                    return Err(malformed(format!("{:?} is not the name of a site document", name())));
                }
                check_representations(artifact, &document.representations, check, &name)?;
                let twice = if &path[..] == artifact::NOT_FOUND_DOCUMENT.as_bytes() {
                    site.not_found.replace(index).is_some()
                } else {
                    site.documents.insert(path.clone(), index).is_some()
                };
                if twice {
                    return Err(malformed(format!("site document {:?} is indexed twice", name())));
                }
            }
        }
        Ok((entries, site))
    }

    /// Reads an artifact file, verifies it with `key`
    /// ([`Artifact::verify`]) and loads it
    /// ([`ResponseCatalog::open_with`] with one key).
    #[cfg(feature = "signing")]
    #[cfg_attr(docsrs, doc(cfg(feature = "signing")))]
    pub fn open_verified(path: &Path, key: &crate::signing::VerifyKey) -> Result<Self, CatalogErrors> {
        Self::open_with(path, &OpenOptions::default().verify_keys(vec![*key]))
    }
}

/// A check of a whole artifact run beside its indexing (its signature).
pub(super) type Verify<'a> = dyn Fn(&Artifact) -> Result<(), ArtifactError> + Sync + 'a;

/// How [`ResponseCatalog::open_with`] opens an artifact file.
///
/// ```
/// use foundry_catalog_serving::catalog::OpenOptions;
/// let options = OpenOptions::default().max_len(1 << 30);
/// assert_eq!(options.max_len, 1 << 30);
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct OpenOptions {
    /// The largest file accepted, in bytes: a larger one is refused before
    /// anything is read. No limit unless set (`u64::MAX`): what guards a
    /// loader against a file's claims is what its summary says (its
    /// metadata bounds the head read into memory, and the bodies stay in
    /// the file), and a replica fetches the bodies only once their length
    /// is the one the head's index adds up to.
    pub max_len: u64,
    /// With keys, only an artifact signed by one of them loads
    /// ([`Artifact::verify_any`]); without, an artifact loads unverified.
    #[cfg(feature = "signing")]
    #[cfg_attr(docsrs, doc(cfg(feature = "signing")))]
    pub verify_keys: Vec<crate::signing::VerifyKey>,
    /// Where bodies read from the file are kept (a new
    /// [`BodyCache::default`] unless set): give every catalog a process
    /// loads in turn the same one.
    pub body_cache: BodyCache,
}

impl Default for OpenOptions {
    fn default() -> Self {
        OpenOptions {
            max_len: u64::MAX,
            #[cfg(feature = "signing")]
            verify_keys: Vec::new(),
            body_cache: BodyCache::default(),
        }
    }
}

impl OpenOptions {
    /// Judges an artifact's summary before the rest of its head is read
    /// or fetched: with verify keys, its signature
    /// (`Summary::verify_any`); without, nothing more
    /// than its lengths, which parsing it checked.
    pub fn check_summary(&self, summary: &crate::artifact::Summary) -> Result<(), crate::artifact::ArtifactError> {
        #[cfg(feature = "signing")]
        if !self.verify_keys.is_empty() {
            return summary.verify_any(&self.verify_keys);
        }
        let _ = summary;
        Ok(())
    }

    /// Sets [`OpenOptions::max_len`].
    #[must_use]
    pub fn max_len(mut self, max_len: u64) -> Self {
        self.max_len = max_len;
        self
    }

    /// Sets [`OpenOptions::body_cache`].
    #[must_use]
    pub fn body_cache(mut self, cache: BodyCache) -> Self {
        self.body_cache = cache;
        self
    }

    /// Sets [`OpenOptions::verify_keys`].
    #[cfg(feature = "signing")]
    #[cfg_attr(docsrs, doc(cfg(feature = "signing")))]
    #[must_use]
    pub fn verify_keys(mut self, keys: Vec<crate::signing::VerifyKey>) -> Self {
        self.verify_keys = keys;
        self
    }
}

/// Whether `path` is `/<route>/<slug>` for one of the records' routes.
/// Checks what a request will need of one product's, page's or site
/// document's representations (`spans`, from its index entry): an ETag
/// held in memory (strong, when `check`), and a gzip body beside an
/// identity body inflated from it; the error names `name()`.
pub(super) fn check_representations(
    artifact: &Artifact,
    spans: &[(artifact::Span, artifact::Span)],
    check: bool,
    name: &dyn Fn() -> String,
) -> Result<(), ArtifactError> {
    let codings = &artifact.metadata().codings;
    for (&coding, &(body, etag)) in codings.iter().zip(spans) {
        let etag = artifact.bytes_of(etag);
        if etag.is_none() || check && !etag.is_some_and(artifact::is_strong_etag) {
            return Err(ArtifactError::Malformed(format!("`{}` has a malformed {coding} ETag", name())));
        }
        if body.is_inflated() && !codings.contains(&ContentCoding::Gzip) {
            return Err(ArtifactError::Malformed(format!("`{}` has an inflated body and no gzip one", name())));
        }
    }
    Ok(())
}

pub(super) fn is_page_path(path: &[u8], slug: &[u8]) -> bool {
    foundry_catalog::product::Route::ALL.iter().any(|route| {
        path.strip_prefix(b"/")
            .and_then(|p| p.strip_prefix(route.as_str().as_bytes()))
            .and_then(|p| p.strip_prefix(b"/"))
            .is_some_and(|p| p == slug)
    })
}

/// Whether `lastmod` is empty (not listed) or an RFC 3339 date-time, as
/// `last_updated_at` is.
pub(super) fn is_lastmod(lastmod: &[u8]) -> bool {
    lastmod.is_empty()
        || std::str::from_utf8(lastmod)
            .is_ok_and(|text| time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339).is_ok())
}

/// Whether `name` is one a build gives a site document.
pub(super) fn is_document_name(name: &[u8]) -> bool {
    let numbered = name
        .strip_prefix(b"/sitemap-")
        .and_then(|n| n.strip_suffix(b".xml"))
        .is_some_and(|n| !n.is_empty() && n.len() <= 9 && n[0] != b'0' && n.iter().all(u8::is_ascii_digit));
    let fixed = [
        &b"/robots.txt"[..],
        b"/sitemap.xml",
        artifact::NOT_FOUND_DOCUMENT.as_bytes(),
        artifact::ICON_DOCUMENT.as_bytes(),
        // Every card in one document, as earlier builds kept them (an
        // artifact of theirs still loads).
        artifact::CARDS_DOCUMENT.as_bytes(),
    ];
    // A route page's cards (`cards/datasets/page/2`, the
    // `catalog::pages::cards_document` of its path).
    let cards = name
        .strip_prefix(artifact::CARDS_DOCUMENT.as_bytes())
        .and_then(|path| std::str::from_utf8(path).ok())
        .is_some_and(|path| {
            path != foundry_catalog::product::HOME_PATH && foundry_catalog::product::is_list_path(path)
        });
    numbered
        || cards
        || fixed.contains(&name)
        || std::str::from_utf8(name).is_ok_and(foundry_catalog::product::is_list_path)
}

#[cfg(test)]
mod tests {
    use super::super::ResponseCatalog;
    use super::{is_document_name, is_lastmod, is_page_path};
    use crate::encoding::ContentCoding;

    /// An artifact of no products and site documents named `names`, each
    /// with the same body, as identity.
    fn documents_named(names: &[&str]) -> crate::artifact::Artifact {
        use crate::artifact::{Artifact, Contents, DocumentEntry, Piece, Release, Span, etag_of};
        let body = b"User-agent: *\nAllow: /\n";
        let etag = etag_of(body);
        let mut table = Vec::new();
        let mut documents = Vec::new();
        let table_len: u64 = names.iter().map(|name| (name.len() + etag.len()) as u64).sum();
        for (n, name) in names.iter().enumerate() {
            let path = Span { offset: table.len() as u64, len: name.len() as u32 };
            table.extend_from_slice(name.as_bytes());
            let tag = Span { offset: table.len() as u64, len: etag.len() as u32 };
            table.extend_from_slice(etag.as_bytes());
            let at = Span { offset: table_len + (n * body.len()) as u64, len: body.len() as u32 };
            documents.push(DocumentEntry { path, representations: vec![(at, tag)] });
        }
        let contents = Contents {
            generator: "foundry-catalog test".to_owned(),
            codings: vec![ContentCoding::Identity],
            record_types: Vec::new(),
            renderer_sha256: "0".repeat(64),
            release: Release::default(),
            pages: Some(("0".repeat(64), String::new())),
        };
        let bodies = body.repeat(names.len());
        let buffers = vec![Piece::Memory(table.into()), Piece::Memory(bodies.into())];
        Artifact::new(contents, (Vec::new(), 0), &documents, buffers, table_len).expect("tiled")
    }

    /// Two site documents under one name (which no build writes) are
    /// refused, whichever the name.
    #[test]
    fn a_site_document_indexed_twice_is_refused() {
        let apart = documents_named(&["/robots.txt", "404", "/sitemap.xml"]);
        assert!(ResponseCatalog::index(&apart, true).is_ok());
        for names in [["/robots.txt", "/robots.txt", "404"], ["/robots.txt", "404", "404"]] {
            let twice = documents_named(&names);
            let Err(error) = ResponseCatalog::index(&twice, true) else { panic!("{names:?}: accepted") };
            assert!(error.to_string().contains("is indexed twice"), "{error}");
        }
    }

    #[test]
    fn only_the_names_a_build_gives_are_site_documents() {
        for name in ["/robots.txt", "/sitemap.xml", "/sitemap-1.xml", "/sitemap-20.xml", "404"] {
            assert!(is_document_name(name.as_bytes()), "{name}");
        }
        for name in ["/sitemap-0.xml", "/sitemap-01.xml", "/sitemap-.xml", "/sitemap-1.xml/", "/404", "/index.html", ""]
        {
            assert!(!is_document_name(name.as_bytes()), "{name}");
        }
    }

    #[test]
    fn a_page_is_at_its_own_products_route_path() {
        assert!(is_page_path(b"/datasets/eu-signals", b"eu-signals"));
        assert!(is_page_path(b"/automation/eu-signals", b"eu-signals"));
        assert!(!is_page_path(b"/datasets/other", b"eu-signals"));
        assert!(!is_page_path(b"/blog/eu-signals", b"eu-signals"));
        assert!(!is_page_path(b"/datasets/eu-signals/", b"eu-signals"));
        assert!(!is_page_path(b"datasets/eu-signals", b"eu-signals"));
    }

    #[test]
    fn a_lastmod_is_empty_or_a_date_time() {
        assert!(is_lastmod(b"") && is_lastmod(b"2026-11-04T07:45:10-05:00"));
        assert!(!is_lastmod(b"yesterday") && !is_lastmod(b"<lastmod>"));
    }
}
