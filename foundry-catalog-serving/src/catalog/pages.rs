//! Pages built with the bodies (feature `pages`): each product's page at
//! its `canonical_path`, compressed once per coding, and the site
//! documents (the list pages, `robots.txt`, the sitemap, the not-found
//! page, the icon, and the list pages' cards), rendered by
//! `foundry-catalog-pages` from the same record as the body.

use super::CatalogError;
use crate::encoding::ContentCoding;
use foundry_catalog::product::ProductRecord;

/// One product's page, ready to be written.
pub(super) struct PreparedPage {
    /// `canonical_path`.
    pub(super) path: String,
    /// The sitemap's `lastmod`; empty when the page is `noindex`.
    pub(super) lastmod: String,
    /// What a list page shows of it (title, summary), when it is indexable.
    pub(super) card: Option<(String, String)>,
    /// The page in each coding of the build.
    pub(super) bodies: Vec<Vec<u8>>,
}

/// A product's page as the site documents need it: its path, its sitemap
/// `lastmod` (empty when `noindex`), and its title and summary for the
/// list pages (none for a product taken from the previous artifact: its
/// card is there, [`crate::artifact::CARDS_DOCUMENT`]).
pub(super) struct Listing {
    pub(super) path: String,
    pub(super) lastmod: String,
    pub(super) card: Option<(String, String)>,
}

/// A site document: its name ([`crate::artifact::DocumentEntry::path`])
/// and its bytes in each coding of the build.
pub(super) type Document = (String, Vec<Vec<u8>>);

/// What renders a build's pages.
#[cfg(feature = "pages")]
#[derive(Debug)]
pub(super) struct PageMaker {
    pages: foundry_catalog_pages::Pages,
}

/// What renders a build's pages: none without the `pages` feature.
#[cfg(not(feature = "pages"))]
#[derive(Debug)]
pub(super) enum PageMaker {}

#[cfg(feature = "pages")]
impl PageMaker {
    pub(super) fn new(pages: foundry_catalog_pages::Pages) -> PageMaker {
        PageMaker { pages }
    }

    /// [`crate::artifact::SitePages::digest`].
    pub(super) fn digest(&self) -> &str {
        self.pages.digest()
    }

    /// [`crate::artifact::SitePages::site`].
    pub(super) fn site(&self) -> String {
        let site = self.pages.site();
        if site.is_known() { site.url("") } else { String::new() }
    }

    /// The page of `record` (from the manifest `file`) in every coding.
    pub(super) fn page(
        &self,
        file: &str,
        record: &ProductRecord,
        codings: &[ContentCoding],
    ) -> Result<PreparedPage, CatalogError> {
        let html = self
            .pages
            .product(record)
            .map_err(|error| CatalogError::Page { file: file.to_owned(), error: error.to_string() })?;
        let lastmod = foundry_catalog_pages::sitemap::Entry::of(record).map(|entry| entry.lastmod).unwrap_or_default();
        let card = foundry_catalog_pages::list::Card::of(record).map(|card| (card.title, card.summary));
        Ok(PreparedPage { path: record.canonical_path(), lastmod, card, bodies: encode(codings, html.as_bytes()) })
    }

    /// The site documents of the pages `listed` (those with an empty
    /// `lastmod` are `noindex`, so in no sitemap and on no list page), each
    /// in every coding, compressed on all cores: the list pages, the
    /// cards they were made from, `/robots.txt`, the sitemap files (none
    /// when the site is unknown), the not-found page and the site's icon
    /// (`/favicon.ico`). A listing without its card takes the card kept
    /// in `previous` (the artifact the build is on).
    pub(super) fn documents(
        &self,
        listed: Vec<Listing>,
        previous: Option<&super::ResponseCatalog>,
        codings: &[ContentCoding],
    ) -> Result<Vec<Document>, CatalogError> {
        use foundry_catalog_pages::list::Card;
        use foundry_catalog_pages::sitemap;
        let failed = |error: String| CatalogError::Page { file: "<templates>".to_owned(), error };
        let site = self.pages.site();
        let not_found = self.pages.not_found().map_err(|error| failed(error.to_string()))?;
        let previous_failed = |error: String| CatalogError::Page { file: "<the previous artifact>".to_owned(), error };
        let kept = match previous.and_then(|catalog| catalog.document(crate::artifact::CARDS_DOCUMENT)) {
            Some(bytes) => {
                let bytes = bytes.map_err(|e| previous_failed(format!("its cards: {e}")))?;
                Card::decode_all(&bytes).map_err(|e| previous_failed(format!("its cards: {e}")))?
            }
            None => Vec::new(),
        };
        let kept: std::collections::HashMap<&str, &Card> = kept.iter().map(|card| (card.path.as_str(), card)).collect();
        let mut cards = Vec::new();
        for listing in listed.iter().filter(|listing| !listing.lastmod.is_empty()) {
            let card = match &listing.card {
                Some((title, summary)) => Card {
                    path: listing.path.clone(),
                    title: title.clone(),
                    summary: summary.clone(),
                    lastmod: listing.lastmod.clone(),
                },
                None => (*kept.get(listing.path.as_str()).ok_or_else(|| {
                    previous_failed(format!("{}: it keeps no card of this page; build without it", listing.path))
                })?)
                .clone(),
            };
            cards.push(card);
        }
        let lists = self.pages.list_pages(&cards).map_err(|error| failed(error.to_string()))?;
        let entries = cards
            .iter()
            .map(|card| sitemap::Entry { path: card.path.clone(), lastmod: card.lastmod.clone() })
            .chain(lists.iter().map(|list| sitemap::Entry { path: list.path.clone(), lastmod: list.lastmod.clone() }))
            .filter(|entry| !entry.lastmod.is_empty());
        let mut files = vec![(sitemap::ROBOTS_PATH.to_owned(), sitemap::robots(site).into_bytes())];
        files.extend(sitemap::files(site, entries).into_iter().map(|file| (file.path, file.xml.into_bytes())));
        files.push((crate::artifact::CARDS_DOCUMENT.to_owned(), Card::encode_all(&cards)));
        files.extend(lists.into_iter().map(|list| (list.path, list.html.into_bytes())));
        files.push((crate::artifact::NOT_FOUND_DOCUMENT.to_owned(), not_found.into_bytes()));
        files.push((crate::artifact::ICON_DOCUMENT.to_owned(), foundry_catalog_pages::favicon::ico()));
        Ok(crate::parallel::map(&files, |(name, bytes)| (name.clone(), encode(codings, bytes))))
    }
}

#[cfg(not(feature = "pages"))]
impl PageMaker {
    pub(super) fn digest(&self) -> &str {
        match *self {}
    }

    pub(super) fn site(&self) -> String {
        match *self {}
    }

    pub(super) fn page(&self, _: &str, _: &ProductRecord, _: &[ContentCoding]) -> Result<PreparedPage, CatalogError> {
        match *self {}
    }

    pub(super) fn documents(
        &self,
        _: Vec<Listing>,
        _: Option<&super::ResponseCatalog>,
        _: &[ContentCoding],
    ) -> Result<Vec<Document>, CatalogError> {
        match *self {}
    }
}

/// `bytes` in each coding (the codings were checked to be available when
/// they were chosen).
pub(super) fn encode(codings: &[ContentCoding], bytes: &[u8]) -> Vec<Vec<u8>> {
    codings.iter().map(|&coding| coding.encode(bytes).unwrap_or_default()).collect()
}

#[cfg(all(test, feature = "pages"))]
mod tests {
    /// The icon is stored under the path the pages link to.
    #[test]
    fn the_icon_is_stored_where_pages_link_to_it() {
        assert_eq!(crate::artifact::ICON_DOCUMENT, foundry_catalog_pages::favicon::PATH);
    }
}
