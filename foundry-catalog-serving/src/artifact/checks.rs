//! The checks of a loaded artifact past its lengths: the metadata's
//! forms, each block of the head against its digest, every entry of a
//! head held whole ([`super::forms`]), the content digest, and each body
//! against its ETag.

use sha2::{Digest, Sha256};

use super::Piece;
use super::forms::check_view;
use super::index::Index;
use super::{Artifact, ArtifactError, DocumentEntry, IndexEntry, Span, contiguous, etag_names, head};
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
        self.check_blocks_but(&|_| false)
    }

    /// [`Artifact::check_blocks`], but for the blocks of a head held whole
    /// that `known` says hold bytes already checked against the same
    /// digest (copied from a head that was checked: [`Artifact::head_checked`]),
    /// which are not hashed again.
    pub(crate) fn check_blocks_but(&self, known: &(dyn Fn(usize) -> bool + Sync)) -> Result<(), ArtifactError> {
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
        let numbered: Vec<(usize, &head::Block)> = blocks.iter().enumerate().collect();
        let bad = crate::parallel::map(&numbered, |&(k, block)| {
            if known(k) {
                return false;
            }
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

    /// Whether every byte of its head it hands out ([`Artifact::head_bytes`])
    /// is known to match its block's digest: a head read a block at a time
    /// checks each block as it reads it; one held whole, once checked (or
    /// built here).
    #[cfg(feature = "replica")]
    pub(crate) fn head_checked(&self) -> bool {
        self.is_lazy() || self.blocks_checked.load(std::sync::atomic::Ordering::Relaxed)
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
        // Products whose pieces a core gathers at once.
        self.content_digest_in_runs(4096)
    }

    /// [`Artifact::content_digest`], its products' pieces gathered `run`
    /// products at a time.
    fn content_digest_in_runs(&self, run: usize) -> String {
        const RUN_BYTES: usize = 512;
        // The pieces, each with its newline, are gathered a run of
        // products at a time on all cores and hashed in their order: a
        // hasher given a few bytes at a time spends more on the calls
        // than on hashing, and reading the entries is most of the work.
        // The products are hashed up to the first that does not read.
        let add = |buffer: &mut Vec<u8>, span: Span| {
            buffer.extend_from_slice(self.bytes_of(span).unwrap_or_default());
            buffer.push(b'\n');
        };
        let gather = |&start: &usize| {
            let mut buffer = Vec::with_capacity(run * RUN_BYTES);
            for n in start..(start + run).min(self.len()) {
                let Some(entry) = self.entry(n) else { return (buffer, false) };
                add(&mut buffer, entry.slug);
                entry.representations.iter().for_each(|&(_, etag)| add(&mut buffer, etag));
                if let Some(page) = &entry.page {
                    add(&mut buffer, page.path);
                    add(&mut buffer, page.lastmod);
                    page.representations.iter().for_each(|&(_, etag)| add(&mut buffer, etag));
                }
            }
            (buffer, true)
        };
        let mut hasher = Sha256::new();
        let runs: Vec<usize> = (0..self.len()).step_by(run.max(1)).collect();
        let mut whole = true;
        let _ = crate::parallel::for_each_windowed(&runs, 1, gather, |(buffer, read)| {
            if whole {
                hasher.update(&buffer);
                whole = read;
            }
            Ok::<(), std::convert::Infallible>(())
        });
        let mut buffer = Vec::new();
        for document in self.documents() {
            add(&mut buffer, document.path);
            document.representations.iter().for_each(|&(_, etag)| add(&mut buffer, etag));
        }
        hasher.update(&buffer);
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
            self.check_document_bodies(&document)?;
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

    /// Takes the forms of its head's entries as right, without checking
    /// them, as its blocks are read from here on (each block is still
    /// hashed against the block list): for an artifact file whose stamp
    /// says it is as the build that wrote it left it
    /// (`ResponseCatalog::open_to_build_on_stamped`), which made them.
    pub(crate) fn trust_forms(&self) {
        self.forms_trusted.store(true, std::sync::atomic::Ordering::Relaxed);
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
                self.check_document_bodies(&document)?;
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

    /// Checks that each of one site document's bodies hashes to its ETag.
    pub(crate) fn check_document_bodies(&self, document: &DocumentEntry) -> Result<(), ArtifactError> {
        self.check_representations(document.path, &document.representations)
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

#[cfg(test)]
mod tests {
    use super::Artifact;

    /// The content digest gathered in runs of any length is the digest
    /// of its pieces hashed one after the other (slug, ETags, page path,
    /// `lastmod` and ETags of each product, then each site document's
    /// path and ETags, each piece and its newline), as
    /// `docs/artifact.md` defines it, on an artifact with pages.
    #[test]
    #[cfg(feature = "pages")]
    fn the_content_digest_in_runs_is_its_pieces_hashed_in_order() {
        let site = foundry_catalog_pages::Site::new("https://catalog.example.com").expect("a site");
        let sources = (0..300).map(|n| {
            let (_, text) = foundry_catalog::examples::MANIFESTS[n % foundry_catalog::examples::MANIFESTS.len()];
            let mut manifest: serde_json::Value = serde_json::from_str(text).expect("an example is JSON");
            manifest["slug"] = serde_json::json!(format!("product-{n:04}"));
            (format!("product-{n:04}.json"), manifest.to_string())
        });
        let builder = crate::catalog::Builder::new().pages(foundry_catalog_pages::Pages::new(site));
        let artifact = builder.build(sources).expect("builds").artifact().clone();
        use sha2::{Digest, Sha256};
        let mut hasher = Sha256::new();
        let mut add = |bytes: Option<Vec<u8>>| {
            hasher.update(bytes.expect("a piece"));
            hasher.update(b"\n");
        };
        for entry in artifact.entries() {
            add(artifact.bytes_of(entry.slug).map(<[u8]>::to_vec));
            entry.representations.iter().for_each(|&(_, etag)| add(artifact.bytes_of(etag).map(<[u8]>::to_vec)));
            let page = entry.page.expect("a page");
            add(artifact.bytes_of(page.path).map(<[u8]>::to_vec));
            add(artifact.bytes_of(page.lastmod).map(<[u8]>::to_vec));
            page.representations.iter().for_each(|&(_, etag)| add(artifact.bytes_of(etag).map(<[u8]>::to_vec)));
        }
        for document in artifact.documents() {
            add(artifact.bytes_of(document.path).map(<[u8]>::to_vec));
            document.representations.iter().for_each(|&(_, etag)| add(artifact.bytes_of(etag).map(<[u8]>::to_vec)));
        }
        let expected = hex::encode(hasher.finalize());
        assert_eq!(artifact.metadata().content_sha256, expected);
        for run in [1, 2, 7, 64, 299, 300, 301, 4096] {
            assert_eq!(artifact.content_digest_in_runs(run), expected, "runs of {run}");
        }
    }

    /// A block whose bytes were changed fails its digest unless it is one
    /// `known` names: only those are not hashed.
    #[test]
    fn a_block_is_hashed_unless_it_is_known() {
        let bytes = crate::catalog::ResponseCatalog::examples().artifact().to_vec();
        let artifact = Artifact::parse(bytes.clone().into()).expect("parses");
        let head_len = (artifact.data_at() + artifact.table_len()) as usize;
        let mut changed = bytes[..head_len].to_vec();
        // The table's last byte: in the last block.
        changed[head_len - 1] ^= 0x20;
        let head = |bytes: &[u8]| Artifact::from_head(bytes.to_vec(), artifact.file_len()).expect("a head");
        let blocks = artifact.blocks().len();
        assert!(head(&bytes[..head_len]).check_blocks().is_ok());
        let error = head(&changed).check_blocks().expect_err("a changed block");
        assert!(error.to_string().contains(&format!("block {} of the head", blocks - 1)), "{error}");
        assert!(head(&changed).check_blocks_but(&|k| k == blocks - 1).is_ok(), "the changed block is known");
        assert!(head(&changed).check_blocks_but(&|k| k != blocks - 1).is_err(), "every other block is known");
    }
}
