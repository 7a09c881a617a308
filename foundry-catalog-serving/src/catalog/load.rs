//! Loading a catalog from an artifact: opened from a file, verified with
//! the verify keys given, and every slug, path, date and ETag checked
//! before anything is served.

use std::path::Path;
use std::sync::Arc;

use super::{BodyCache, CatalogErrors, KeptBodies, ResponseCatalog, SiteEntries, errors::opening};
use crate::artifact::{self, Artifact, ArtifactError};

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
        let artifact = Artifact::open(path, u64::MAX)?;
        // A build reads every entry: each block is read and checked now
        // (on all cores), and the content digest with them.
        artifact.check_blocks()?;
        artifact.check_content_digest()?;
        Self::from_artifact(artifact)
    }

    /// [`ResponseCatalog::open_to_build_on`], with the stamps file at
    /// `stamps` ([`ResponseCatalog::read_stamps`]; what reading it found
    /// is returned beside the catalog, an error of its own leaving the
    /// catalog without stamps). When they say the file is as the build
    /// that wrote it left it, that build made its head: the forms of the
    /// head's entries (slugs, dates, ETags, page paths) are not checked
    /// again, nor its content digest computed again, while every block is
    /// still checked against the block list. Otherwise it is checked as
    /// [`ResponseCatalog::open_to_build_on`] checks it.
    ///
    /// The catalog returned is for a build to take products from
    /// ([`Builder::previous`](super::Builder::previous)), not to serve:
    /// a server opens the file with [`ResponseCatalog::open`], which checks
    /// every block's forms as it first reads it, whatever stamps lie beside.
    pub fn open_to_build_on_stamped(path: &Path, stamps: &Path) -> Result<(Self, Result<bool, String>), ArtifactError> {
        let artifact = Artifact::open(path, u64::MAX)?;
        let read = super::stamps::Stamps::read(stamps, artifact.metadata());
        if read.as_ref().is_ok_and(|stamps| stamps.wrote(&artifact)) {
            artifact.trust_forms();
        }
        artifact.check_blocks()?;
        let mut catalog = Self::from_artifact(artifact)?;
        let read = read.map(|stamps| catalog.take_stamps(stamps));
        if read != Ok(true) {
            catalog.artifact.check_content_digest()?;
        }
        Ok((catalog, read))
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

    /// [`ResponseCatalog::load`], with `verify` (the signature check).
    ///
    /// An artifact held whole (read whole, or a replica's download) has
    /// its content digest, every block against its digest and every entry
    /// checked here, on cores of their own: a failed signature is reported
    /// first, then the digest, then what the entries' checks found. An
    /// artifact opened from its file ([`Artifact::open`]) has its site
    /// documents read and checked here, and each block of products when it
    /// is first used: what start-up costs does not grow with the catalog.
    pub(super) fn load_verified(
        artifact: Artifact,
        cache: &BodyCache,
        verify: Option<&Verify<'_>>,
    ) -> Result<Self, ArtifactError> {
        let check = !artifact.built_here() && !artifact.is_lazy();
        let join = |handle: std::thread::ScopedJoinHandle<'_, Result<(), ArtifactError>>| {
            handle.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic))
        };
        std::thread::scope(|scope| {
            let verified = verify.map(|verify| scope.spawn(|| verify(&artifact)));
            // The head's blocks against their digests (a verify checks them with the signature).
            let digest = check.then(|| {
                scope.spawn(|| {
                    if verify.is_none() {
                        artifact.check_blocks()?;
                    }
                    artifact.check_content_digest()
                })
            });
            let entries = if check { artifact.check_entries() } else { Ok(()) };
            verified.map_or(Ok(()), join)?;
            digest.map_or(Ok(()), join)?;
            entries
        })?;
        let site = Self::site_documents(&artifact)?;
        if check && !artifact.bodies_in_files() {
            artifact.check_bodies()?;
        }
        Ok(ResponseCatalog {
            kept: Arc::new(KeptBodies::new(cache, &artifact)),
            artifact,
            stamps: None,
            site: site.map(Arc::new),
        })
    }

    /// The site documents of `artifact`, by name, when it has pages (each
    /// checked with its block: read now, for an artifact read a block at a
    /// time).
    pub(super) fn site_documents(artifact: &Artifact) -> Result<Option<SiteEntries>, ArtifactError> {
        if artifact.metadata().pages.is_none() {
            return Ok(None);
        }
        let mut site = SiteEntries::default();
        for index in 0..artifact.documents_len() {
            let document = artifact
                .try_document(index)?
                .ok_or_else(|| ArtifactError::Malformed(format!("no site document {index}")))?;
            let path = artifact.slice(document.path)?;
            let twice = if &path[..] == artifact::NOT_FOUND_DOCUMENT.as_bytes() {
                site.not_found.replace(index).is_some()
            } else {
                site.documents.insert(path.clone(), index).is_some()
            };
            if twice {
                return Err(ArtifactError::Malformed(format!(
                    "site document {:?} is indexed twice",
                    String::from_utf8_lossy(&path)
                )));
            }
        }
        Ok(Some(site))
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

#[cfg(test)]
mod tests {
    use super::super::ResponseCatalog;
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
        assert!(ResponseCatalog::site_documents(&apart).is_ok());
        for names in [["/robots.txt", "/robots.txt", "404"], ["/robots.txt", "404", "404"]] {
            let twice = documents_named(&names);
            let Err(error) = ResponseCatalog::site_documents(&twice) else { panic!("{names:?}: accepted") };
            assert!(error.to_string().contains("is indexed twice"), "{error}");
        }
    }
}
