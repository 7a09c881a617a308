//! An index entry as code reads it: a product's or site document's
//! spans of the data region (slug, dates, ETags, page path, bodies), the
//! names of the site documents, and the forms of ETags and dates.

use sha2::{Digest, Sha256};

/// A source digest: SHA-256.
pub(crate) const SOURCE_LEN: usize = 32;
/// The length of a strong ETag: `"` + 64 hex digits + `"`.
const ETAG_LEN: usize = 66;
/// The length of an IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`).
const HTTP_DATE_LEN: usize = 29;
/// The last instant an HTTP date can say: 9999-12-31T23:59:59Z.
pub(crate) const LAST_HTTP_DATE: u64 = 253_402_300_799;

/// A byte range of the data region.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Span {
    pub(crate) offset: u64,
    pub(crate) len: u32,
}

/// The offset of an identity body that is not stored (with gzip): its bytes are its gzip body's, inflated, and its length theirs.
const INFLATED: u64 = u64::MAX;

impl Span {
    /// An identity body inflated from gzip, of `len` bytes.
    pub(crate) fn inflated(len: u32) -> Span {
        Span { offset: INFLATED, len }
    }

    /// Whether it is an identity body inflated from gzip (stored nowhere).
    pub(crate) fn is_inflated(self) -> bool {
        self.offset == INFLATED
    }
}

impl Span {
    /// Where it ends; `None` past `u64::MAX` (a hostile index).
    fn end(self) -> Option<u64> {
        self.offset.checked_add(u64::from(self.len))
    }
}

/// A stored response, by its position in the index: a product's body, the
/// product's page, or a site document.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Response {
    Product(usize),
    Page(usize),
    Document(usize),
}

/// One product as the index stores it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct IndexEntry {
    pub(crate) modified: u64,
    /// SHA-256 of the manifest's bytes; zeros when built from a record.
    pub(crate) source: [u8; SOURCE_LEN],
    pub(crate) slug: Span,
    pub(crate) last_modified: Span,
    /// `(body, etag)` per coding, in [`Metadata::codings`](super::Metadata::codings) order.
    pub(crate) representations: Vec<(Span, Span)>,
    /// Its page, in an artifact with pages.
    pub(crate) page: Option<PageSpans>,
}

/// A product's page as the index stores it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct PageSpans {
    /// `canonical_path`.
    pub(crate) path: Span,
    /// The sitemap's `lastmod` of the page (the record's
    /// `last_updated_at`); empty when the page is `noindex`, so not listed.
    pub(crate) lastmod: Span,
    /// `(body, etag)` per coding, in [`Metadata::codings`](super::Metadata::codings) order.
    pub(crate) representations: Vec<(Span, Span)>,
}

/// A site document (`robots.txt`, a sitemap file, the not-found page) as
/// the index stores it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct DocumentEntry {
    /// The path it is served at; [`NOT_FOUND_DOCUMENT`] for the not-found page.
    pub(crate) path: Span,
    /// `(body, etag)` per coding, in [`Metadata::codings`](super::Metadata::codings) order.
    pub(crate) representations: Vec<(Span, Span)>,
}

/// The name the not-found page is stored under: not a path, so no
/// request reaches it but as the answer to an unknown page.
pub(crate) const NOT_FOUND_DOCUMENT: &str = "404";

/// What the names of the list pages' cards start with: each route
/// page's cards (`foundry_catalog_pages::list::Card`, one JSON document)
/// are kept under this and the page's path (`cards/datasets/page/2`): not
/// a path, so never served; a build on this artifact knows from them
/// what its pages were made with.
pub(crate) const CARDS_DOCUMENT: &str = "cards";

/// The name the site search's index (`foundry_catalog_pages::search::index`)
/// is stored under (its head; part `k` of its words under `search/<k>`,
/// [`search_part_document`]): not a path, so never served; `/search` is
/// answered from it.
pub(crate) const SEARCH_DOCUMENT: &str = "search";

/// The name part `k` of the search index's words is stored under.
#[cfg_attr(not(feature = "pages"), allow(dead_code))]
pub(crate) fn search_part_document(k: usize) -> String {
    format!("{SEARCH_DOCUMENT}/{k}")
}

/// The name the site's settings and templates
/// (`foundry_catalog_pages::Pages::settings`) are stored under: not a
/// path, so never served; the pages a server makes on request (search)
/// are rendered from them.
pub(crate) const SETTINGS_DOCUMENT: &str = "settings";

/// The name of the site's icon among the documents: its path,
/// `foundry_catalog_pages::favicon::PATH`.
pub(crate) const ICON_DOCUMENT: &str = "/favicon.ico";

/// The name of the site's Atom feed among the documents: its path,
/// `foundry_catalog_pages::feed::PATH`.
pub(crate) const FEED_DOCUMENT: &str = "/feed.atom";

/// The name of the picture shared links show among the documents: its
/// path, `foundry_catalog_pages::share_image::PATH`.
pub(crate) const IMAGE_DOCUMENT: &str = "/og-image.png";

/// Where a run of spans lies, when each starts where the one before it ends.
pub(crate) fn contiguous(mut spans: impl Iterator<Item = Span>) -> Option<(u64, u64)> {
    let first = spans.next()?;
    let mut end = first.end()?;
    for span in spans {
        if span.offset != end {
            return None;
        }
        end = span.end()?;
    }
    Some((first.offset, end - first.offset))
}

impl IndexEntry {
    /// The spans of its table run: slug, `Last-Modified`, each
    /// ETag, and its page's path, `lastmod` and ETags.
    pub(crate) fn table_spans(&self) -> impl Iterator<Item = Span> + '_ {
        [self.slug, self.last_modified].into_iter().chain(self.representations.iter().map(|&(_, etag)| etag)).chain(
            self.page.iter().flat_map(|page| {
                [page.path, page.lastmod].into_iter().chain(page.representations.iter().map(|&(_, etag)| etag))
            }),
        )
    }

    /// The spans of its ETags: each representation's, then its page's.
    pub(crate) fn etag_spans(&self) -> impl Iterator<Item = Span> + '_ {
        self.representations
            .iter()
            .chain(self.page.iter().flat_map(|page| &page.representations))
            .map(|&(_, etag)| etag)
    }

    /// The spans of its body run: each body stored, then its
    /// page's (an identity body inflated from gzip is stored nowhere).
    pub(crate) fn body_spans(&self) -> impl Iterator<Item = Span> + '_ {
        self.bodies().filter(|body| !body.is_inflated())
    }

    /// Each body's span, then its page's, inflated ones too.
    pub(crate) fn bodies(&self) -> impl Iterator<Item = Span> + '_ {
        self.representations
            .iter()
            .chain(self.page.iter().flat_map(|page| &page.representations))
            .map(|&(body, _)| body)
    }

    /// [`IndexEntry::table_spans`] and [`IndexEntry::body_spans`], to move.
    pub(crate) fn parts_mut(&mut self) -> (Vec<&mut Span>, Vec<&mut Span>) {
        let mut table = vec![&mut self.slug, &mut self.last_modified];
        let mut bodies = Vec::with_capacity(2 * self.representations.len());
        for (body, etag) in &mut self.representations {
            bodies.push(body);
            table.push(etag);
        }
        if let Some(page) = &mut self.page {
            table.extend([&mut page.path, &mut page.lastmod]);
            for (body, etag) in &mut page.representations {
                bodies.push(body);
                table.push(etag);
            }
        }
        bodies.retain(|body| !body.is_inflated());
        (table, bodies)
    }
}

impl DocumentEntry {
    /// The spans of its table run: its name and each ETag.
    pub(crate) fn table_spans(&self) -> impl Iterator<Item = Span> + '_ {
        std::iter::once(self.path).chain(self.representations.iter().map(|&(_, etag)| etag))
    }

    /// The spans of its body run: each body stored.
    pub(crate) fn body_spans(&self) -> impl Iterator<Item = Span> + '_ {
        self.representations.iter().map(|&(body, _)| body).filter(|body| !body.is_inflated())
    }

    /// The spans of its ETags.
    pub(crate) fn etag_spans(&self) -> impl Iterator<Item = Span> + '_ {
        self.representations.iter().map(|&(_, etag)| etag)
    }

    /// [`DocumentEntry::table_spans`], to move.
    pub(crate) fn table_spans_mut(&mut self) -> impl Iterator<Item = &mut Span> {
        std::iter::once(&mut self.path).chain(self.representations.iter_mut().map(|(_, etag)| etag))
    }

    /// [`DocumentEntry::body_spans`], to move.
    pub(crate) fn body_spans_mut(&mut self) -> impl Iterator<Item = &mut Span> {
        self.representations.iter_mut().map(|(body, _)| body).filter(|body| !body.is_inflated())
    }
}

/// Whether `etag` is the quoted lowercase hex SHA-256 of `body`.
pub(crate) fn etag_names(etag: &[u8], body: &[u8]) -> bool {
    let digest = Sha256::digest(body);
    etag.len() == ETAG_LEN && hex::decode(&etag[1..ETAG_LEN - 1]).is_ok_and(|d| d == digest.as_slice())
}

/// The strong ETag of `body`: its quoted lowercase hex SHA-256.
pub(crate) fn etag_of(body: &[u8]) -> String {
    format!("\"{}\"", hex::encode(Sha256::digest(body).as_slice()))
}

/// Whether `etag` has the form of the ETags this crate writes.
pub(crate) fn is_strong_etag(etag: &[u8]) -> bool {
    etag.len() == ETAG_LEN
        && etag[0] == b'"'
        && etag[ETAG_LEN - 1] == b'"'
        && etag[1..ETAG_LEN - 1].iter().all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(b))
}

/// Whether `date` is `seconds` since 1970 as an IMF-fixdate.
pub(crate) fn is_http_date_of(date: &[u8], seconds: u64) -> bool {
    date.len() == HTTP_DATE_LEN
        && seconds <= LAST_HTTP_DATE
        && httpdate::fmt_http_date(std::time::UNIX_EPOCH + std::time::Duration::from_secs(seconds)).as_bytes() == date
}
