//! The checks of a loaded artifact past its lengths: the metadata's
//! forms, each block of the head against its digest, the content digest,
//! and each body against its ETag.

use sha2::{Digest, Sha256};

use super::Piece;
use super::index::Index;
use super::{
    Artifact, ArtifactError, CARDS_DOCUMENT, ICON_DOCUMENT, IndexEntry, Metadata, NOT_FOUND_DOCUMENT, Span, contiguous,
    etag_names, head, is_http_date_of, is_strong_etag,
};
use crate::encoding::ContentCoding;

impl Artifact {
    pub(super) fn check_metadata(&self) -> Result<(), ArtifactError> {
        let codings = &self.metadata.codings;
        if !codings.contains(&ContentCoding::Identity) {
            return Err(ArtifactError::Malformed("the codings lack identity".to_owned()));
        }
        if (1..codings.len()).any(|i| codings[..i].contains(&codings[i])) {
            return Err(ArtifactError::Malformed("a coding is listed twice".to_owned()));
        }
        // Record types reach logs and `/metrics` labels: only their own forms.
        let hex = |text: &str, lengths: &[usize]| {
            lengths.contains(&text.len()) && text.bytes().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
        };
        for t in &self.metadata.record_types {
            if !foundry_catalog_core::is_lowercase_underscore(&t.record_label)
                || !hex(&t.schema_hash, &[40, 64])
                || !hex(&t.definition_sha256, &[0, 64])
            {
                return Err(ArtifactError::Malformed(format!(
                    "record type {:?} is not named as a build names it",
                    t.record_label
                )));
            }
        }
        // The generator's name and the site reach logs and notes: text
        // that cannot forge a line or move a terminal's cursor.
        let printable =
            |text: &str| !text.chars().any(|c| c.is_control() || foundry_catalog_core::hides_or_reorders(c));
        if !printable(&self.metadata.generator) {
            return Err(ArtifactError::Malformed(format!(
                "the generator's name {:?} holds control or invisible characters",
                self.metadata.generator
            )));
        }
        if let Some(pages) = &self.metadata.pages
            && (!(pages.site.is_empty() || pages.site.starts_with("http://") || pages.site.starts_with("https://"))
                || !printable(&pages.site)
                || pages.site.contains(char::is_whitespace))
        {
            return Err(ArtifactError::Malformed(format!("the pages' site {:?} is not an http(s) URL", pages.site)));
        }
        Ok(())
    }

    /// Checks that each block of the head names its stored index entries
    /// and table bytes (what a signature over the block list covers of
    /// them), on all cores: the first that does not is named. A head read
    /// a block at a time reads every block, checking its entries too.
    pub(crate) fn check_blocks(&self) -> Result<(), ArtifactError> {
        use std::sync::atomic::Ordering;
        // The head is held as checked (it never changes in memory): once.
        if self.blocks_checked.load(Ordering::Relaxed) {
            return Ok(());
        }
        let Index::Whole { stored, .. } = &self.index else {
            self.place_all()?;
            self.blocks_checked.store(true, Ordering::Relaxed);
            return Ok(());
        };
        let blocks = self.blocks();
        let bad = crate::parallel::map(&blocks, |block| {
            let index = usize::try_from(block.index.start).ok().zip(usize::try_from(block.index.end).ok());
            let index = index.and_then(|(from, to)| stored.get(from..to)).unwrap_or_default();
            !head::names(block, index, &|at, len, f| self.table_bytes(at, len, f))
        });
        match bad.iter().position(|&bad| bad) {
            Some(n) => Err(ArtifactError::Malformed(format!(
                "block {n} of the head (entries {} to {}) does not match its digest in the block list",
                blocks[n].entries.start,
                blocks[n].entries.end - 1
            ))),
            None => {
                self.blocks_checked.store(true, Ordering::Relaxed);
                Ok(())
            }
        }
    }

    /// Checks every entry of a head held whole ([`check_view`]); a head
    /// read a block at a time checks each block's as it reads it.
    pub(crate) fn check_entries(&self) -> Result<(), ArtifactError> {
        let Index::Whole { stored, starts } = &self.index else { return Ok(()) };
        let Some((_, Piece::Memory(table))) = self.data.first() else {
            return Err(ArtifactError::Malformed("a head without its table".to_owned()));
        };
        let table = table.get(..usize::try_from(self.table).unwrap_or(usize::MAX)).unwrap_or_default();
        let view = head::View { first: 0, index: stored, table, table_at: 0, starts };
        check_view(&view, &self.metadata, &self.directory)
    }

    /// [`Metadata::content_sha256`](super::Metadata::content_sha256), computed from the index and data.
    pub(super) fn content_digest(&self) -> String {
        let mut hasher = Sha256::new();
        let mut add = |span: Span| {
            hasher.update(self.bytes_of(span).unwrap_or_default());
            hasher.update(b"\n");
        };
        let etags =
            |representations: &[(Span, Span)]| representations.iter().map(|&(_, etag)| etag).collect::<Vec<_>>();
        for entry in self.entries() {
            add(entry.slug);
            etags(&entry.representations).into_iter().for_each(&mut add);
            if let Some(page) = &entry.page {
                add(page.path);
                add(page.lastmod);
                etags(&page.representations).into_iter().for_each(&mut add);
            }
        }
        for document in self.documents() {
            add(document.path);
            etags(&document.representations).into_iter().for_each(&mut add);
        }
        hex::encode(hasher.finalize().as_slice())
    }

    /// Checks [`Metadata::content_sha256`](super::Metadata::content_sha256) against the contents.
    pub(crate) fn check_content_digest(&self) -> Result<(), ArtifactError> {
        let digest = self.content_digest();
        if digest == self.metadata.content_sha256 {
            Ok(())
        } else {
            Err(ArtifactError::Malformed(format!(
                "content_sha256 is {:?} but the contents give {digest}",
                self.metadata.content_sha256
            )))
        }
    }

    /// Checks that every body hashes to its ETag, on all cores: the first
    /// product (in index order) whose body does not is named.
    pub fn check_bodies(&self) -> Result<(), ArtifactError> {
        if self.bodies_checked() {
            return Ok(());
        }
        let entries: Vec<IndexEntry> = self.entries().collect();
        let failures = crate::parallel::map(&entries, |entry| self.check_entry_bodies(entry).err());
        failures.into_iter().flatten().next().map_or(Ok(()), Err)?;
        for document in self.documents() {
            self.check_representations(document.path, &document.representations)?;
        }
        self.bodies_checked.store(true, std::sync::atomic::Ordering::Relaxed);
        Ok(())
    }

    /// Takes every body as hashing to its ETag without reading it: for an
    /// artifact file whose stamp says it is as the build that wrote it
    /// left it (`ResponseCatalog::read_stamps`), which checked them.
    pub(crate) fn trust_bodies(&self) {
        self.bodies_checked.store(true, std::sync::atomic::Ordering::Relaxed);
    }

    /// Checks that each body of a product or site document whose bodies
    /// lie, at least in part, in one of `ranges` (`(start, end)` offsets of
    /// the file) hashes to its ETag: what a replica checks of a delta whose
    /// other bytes it copied from a file it had checked itself. The first
    /// product (in index order) whose body does not is named.
    pub fn check_bodies_in(&self, ranges: &[(u64, u64)]) -> Result<(), ArtifactError> {
        let data_at = self.data_at();
        let touched = |run: Option<(u64, u64)>| {
            // A product whose bodies are not one run is checked.
            run.is_none_or(|(offset, len)| {
                let (start, end) = (data_at.saturating_add(offset), data_at.saturating_add(offset).saturating_add(len));
                ranges.iter().any(|&(from, to)| from < end && start < to)
            })
        };
        for entry in self.entries() {
            if touched(contiguous(entry.body_spans())) {
                self.check_entry_bodies(&entry)?;
            }
        }
        for document in self.documents() {
            if touched(contiguous(document.body_spans())) {
                self.check_representations(document.path, &document.representations)?;
            }
        }
        Ok(())
    }

    /// Whether every body is known to hash to its ETag (built in this
    /// process, or checked).
    pub(crate) fn bodies_checked(&self) -> bool {
        self.bodies_checked.load(std::sync::atomic::Ordering::Relaxed)
    }

    /// Checks that each of one product's bodies (and its page's) hashes
    /// to its ETag.
    pub(crate) fn check_entry_bodies(&self, entry: &IndexEntry) -> Result<(), ArtifactError> {
        self.check_representations(entry.slug, &entry.representations)?;
        match &entry.page {
            Some(page) => self.check_representations(page.path, &page.representations),
            None => Ok(()),
        }
    }

    /// Checks that each stored body hashes to its ETag; the error names
    /// `name`. A body as is inflated from gzip has no bytes of its own to
    /// check: its gzip body is checked here, and what it inflates to is
    /// checked against its own ETag whenever it is made, before it is
    /// served ([`crate::catalog::Representation::body`]).
    pub(super) fn check_representations(
        &self,
        name: Span,
        representations: &[(Span, Span)],
    ) -> Result<(), ArtifactError> {
        for (&coding, &(body, etag)) in self.metadata.codings.iter().zip(representations) {
            if body.is_inflated() {
                continue;
            }
            let (body, etag) = (self.slice(body), self.slice(etag)?);
            if !body.is_ok_and(|body| etag_names(&etag, &body)) {
                let slug = self.slice(name)?;
                return Err(ArtifactError::Body { slug: String::from_utf8_lossy(&slug).into_owned(), coding });
            }
        }
        Ok(())
    }
}

/// Checks every entry of `view` as a loader does: each product's slug
/// (a [`foundry_catalog_core::Slug`], and `directory` finding it at its
/// own entry, so no slug is held twice), its `Last-Modified` (its
/// `modified` as an IMF-fixdate), its page's path (`/<route>/<slug>` of
/// its own product) and `lastmod`; each site document's name (one a build
/// gives); and every ETag's form, and a gzip body beside an identity body
/// inflated from it.
pub(crate) fn check_view(view: &head::View<'_>, metadata: &Metadata, directory: &[u8]) -> Result<(), ArtifactError> {
    let malformed = |what: String| ArtifactError::Malformed(what);
    let products = usize::try_from(metadata.products).unwrap_or(usize::MAX);
    let bytes = |span: Span| {
        view.bytes(span).ok_or_else(|| malformed(format!("a span at {} of {} bytes", span.offset, span.len)))
    };
    for n in view.entries() {
        let entry = view.entry(metadata, n).ok_or_else(|| malformed(format!("no entry {n}")))?;
        if n >= products {
            let document = entry.document();
            let path = bytes(document.path)?;
            let name = || String::from_utf8_lossy(path).into_owned();
            if !is_document_name(path) {
                return Err(malformed(format!("{:?} is not the name of a site document", name())));
            }
            check_etags(metadata, &document.representations, &bytes, &name)?;
            continue;
        }
        let product = entry.product(metadata.pages.is_some());
        let slug = bytes(product.slug)?;
        let name = || String::from_utf8_lossy(slug).into_owned();
        if !std::str::from_utf8(slug).is_ok_and(|s| foundry_catalog_core::Slug::check(s).is_ok()) {
            return Err(malformed(format!("{:?} is not a slug", name())));
        }
        if head::find(directory, slug) != Some(n) {
            return Err(malformed(format!("slug `{}` is not where the slug directory finds it", name())));
        }
        if !is_http_date_of(bytes(product.last_modified)?, product.modified) {
            return Err(malformed(format!("`{}` has a malformed or inconsistent modification date", name())));
        }
        check_etags(metadata, &product.representations, &bytes, &name)?;
        if let Some(page) = &product.page {
            if !is_page_path(bytes(page.path)?, slug) {
                return Err(malformed(format!("the page of `{}` is not at /<route>/{}", name(), name())));
            }
            if !is_lastmod(bytes(page.lastmod)?) {
                return Err(malformed(format!("the page of `{}` has a malformed sitemap lastmod", name())));
            }
            check_etags(metadata, &page.representations, &bytes, &name)?;
        }
    }
    Ok(())
}

/// Checks one product's, page's or site document's representations (`(body,
/// ETag)` spans): a strong ETag each, and a gzip body beside an identity
/// body inflated from it; the error names `name()`.
fn check_etags<'a>(
    metadata: &Metadata,
    representations: &[(Span, Span)],
    bytes: &dyn Fn(Span) -> Result<&'a [u8], ArtifactError>,
    name: &dyn Fn() -> String,
) -> Result<(), ArtifactError> {
    let codings = &metadata.codings;
    for (&coding, &(body, etag)) in codings.iter().zip(representations) {
        if !is_strong_etag(bytes(etag)?) {
            return Err(ArtifactError::Malformed(format!("`{}` has a malformed {coding} ETag", name())));
        }
        if body.is_inflated() && !codings.contains(&ContentCoding::Gzip) {
            return Err(ArtifactError::Malformed(format!("`{}` has an inflated body and no gzip one", name())));
        }
    }
    Ok(())
}

/// Whether `path` is `/<route>/<slug>` for one of the records' routes.
pub(crate) fn is_page_path(path: &[u8], slug: &[u8]) -> bool {
    foundry_catalog::product::Route::ALL.iter().any(|route| {
        path.strip_prefix(b"/")
            .and_then(|p| p.strip_prefix(route.as_str().as_bytes()))
            .and_then(|p| p.strip_prefix(b"/"))
            .is_some_and(|p| p == slug)
    })
}

/// Whether `lastmod` is empty (not listed) or an RFC 3339 date-time, as
/// `last_updated_at` is.
pub(crate) fn is_lastmod(lastmod: &[u8]) -> bool {
    lastmod.is_empty()
        || std::str::from_utf8(lastmod)
            .is_ok_and(|text| time::OffsetDateTime::parse(text, &time::format_description::well_known::Rfc3339).is_ok())
}

/// Whether `name` is one a build gives a site document.
pub(crate) fn is_document_name(name: &[u8]) -> bool {
    let numbered = name
        .strip_prefix(b"/sitemap-")
        .and_then(|n| n.strip_suffix(b".xml"))
        .is_some_and(|n| !n.is_empty() && n.len() <= 9 && n[0] != b'0' && n.iter().all(u8::is_ascii_digit));
    let fixed = [
        &b"/robots.txt"[..],
        b"/sitemap.xml",
        NOT_FOUND_DOCUMENT.as_bytes(),
        ICON_DOCUMENT.as_bytes(),
        // Every card in one document, as earlier builds kept them.
        CARDS_DOCUMENT.as_bytes(),
    ];
    // A route page's cards (`cards/datasets/page/2`, the
    // `catalog::pages::cards_document` of its path).
    let cards =
        name.strip_prefix(CARDS_DOCUMENT.as_bytes()).and_then(|path| std::str::from_utf8(path).ok()).is_some_and(
            |path| path != foundry_catalog::product::HOME_PATH && foundry_catalog::product::is_list_path(path),
        );
    numbered
        || cards
        || fixed.contains(&name)
        || std::str::from_utf8(name).is_ok_and(foundry_catalog::product::is_list_path)
}

#[cfg(test)]
mod tests {
    use super::{is_document_name, is_lastmod, is_page_path};

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
