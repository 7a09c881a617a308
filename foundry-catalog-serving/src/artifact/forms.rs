//! The forms of what a head's entries hold, checked as a loader reads
//! them: slugs (and where the slug directory finds them), dates, ETags,
//! page paths, `lastmod` and site documents' names.

use super::{
    ArtifactError, CARDS_DOCUMENT, FEED_DOCUMENT, ICON_DOCUMENT, IMAGE_DOCUMENT, Metadata, NOT_FOUND_DOCUMENT,
    SEARCH_DOCUMENT, SETTINGS_DOCUMENT, Span, head, is_http_date_of, is_strong_etag,
};
use crate::encoding::ContentCoding;

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
        FEED_DOCUMENT.as_bytes(),
        IMAGE_DOCUMENT.as_bytes(),
        SEARCH_DOCUMENT.as_bytes(),
        SETTINGS_DOCUMENT.as_bytes(),
        // Every card in one document, as earlier builds kept them.
        CARDS_DOCUMENT.as_bytes(),
    ];
    // A route page's cards (`cards/datasets/page/2`, the
    // `catalog::pages::cards_document` of its path).
    let cards =
        name.strip_prefix(CARDS_DOCUMENT.as_bytes()).and_then(|path| std::str::from_utf8(path).ok()).is_some_and(
            |path| path != foundry_catalog::product::HOME_PATH && foundry_catalog::product::is_list_path(path),
        );
    // A part of the search index (`search/12`, the
    // `artifact::search_part_document` of its number).
    let part =
        name.strip_prefix(SEARCH_DOCUMENT.as_bytes()).and_then(|rest| rest.strip_prefix(b"/")).is_some_and(|n| {
            !n.is_empty() && n.len() <= 4 && (n == b"0" || n[0] != b'0') && n.iter().all(u8::is_ascii_digit)
        });
    numbered
        || part
        || cards
        || fixed.contains(&name)
        || std::str::from_utf8(name).is_ok_and(foundry_catalog::product::is_list_path)
}

#[cfg(test)]
mod tests {
    use super::{is_document_name, is_lastmod, is_page_path};

    #[test]
    fn only_the_names_a_build_gives_are_site_documents() {
        for name in [
            "/robots.txt",
            "/sitemap.xml",
            "/sitemap-1.xml",
            "/sitemap-20.xml",
            "404",
            "/feed.atom",
            "/og-image.png",
            "search",
            "settings",
        ] {
            assert!(is_document_name(name.as_bytes()), "{name}");
        }
        for name in [
            "/sitemap-0.xml",
            "/sitemap-01.xml",
            "/sitemap-.xml",
            "/sitemap-1.xml/",
            "/404",
            "/index.html",
            "",
            "/search",
        ] {
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
