//! Pages built with the catalog (feature `pages`): stored in the artifact
//! beside the bodies, served at `canonical_path` by the endpoint's HTTP
//! rules, covered by the load checks and the content digest, and built
//! incrementally to the bytes of a full build.

use bytes::Bytes;
use foundry_catalog::product::{ProductManifest, ProductRecord};
use foundry_catalog_pages::list::{Card, Cards};
use foundry_catalog_pages::{Pages, Site};
use foundry_catalog_serving::artifact::{Artifact, ArtifactError};
use foundry_catalog_serving::catalog::{Builder, CatalogError, ResponseCatalog, Unusable};
use foundry_catalog_serving::endpoint::{Request, answer};
use proptest::prelude::*;
use sha2::Digest as _;

use crate::catalog::{with_checksum, with_digests};

const SITE: &str = "https://catalog.example.com";

pub(crate) fn pages(site: &str) -> Pages {
    Pages::new(Site::new(site).expect("a site URL"))
}

/// The example manifests, and a fourth, `noindex`, whose title holds markup.
fn sources() -> Vec<(String, String)> {
    let mut sources: Vec<(String, String)> = foundry_catalog::examples::MANIFESTS
        .iter()
        .map(|(name, text)| ((*name).to_owned(), (*text).to_owned()))
        .collect();
    let mut hidden: serde_json::Value = serde_json::from_str(sources[0].1.as_str()).expect("JSON");
    hidden["slug"] = serde_json::json!("hidden-draft");
    hidden["title"] = serde_json::json!("Draft <b>&</b> \"quoted\"");
    hidden["seo"]["noindex"] = serde_json::json!(true);
    sources.push(("hidden-draft.json".to_owned(), serde_json::to_string_pretty(&hidden).expect("serializes")));
    sources
}

fn records() -> Vec<ProductRecord> {
    sources()
        .iter()
        .map(|(_, text)| ProductManifest::from_json(text).expect("a manifest").build().expect("builds"))
        .collect()
}

fn built(builder: Builder) -> ResponseCatalog {
    builder.build(sources()).expect("builds")
}

/// The artifact's bytes, loaded as a server loads a file (every check).
fn reloaded(catalog: &ResponseCatalog) -> ResponseCatalog {
    load(catalog.artifact().to_vec()).expect("loads")
}

fn load(bytes: Vec<u8>) -> Result<ResponseCatalog, ArtifactError> {
    Artifact::parse(Bytes::from(bytes)).and_then(ResponseCatalog::from_artifact)
}

/// `bytes` with the content digest, the block digests and the CRC made good: a file whose
/// only fault is what the load checks judge (as a signer's would be).
fn with_digest(bytes: Vec<u8>) -> Vec<u8> {
    let bytes = with_digests(bytes);
    let Err(error) = load(bytes.clone()) else { return bytes };
    let message = error.to_string();
    let Some((stated, computed)) = message
        .split_once("content_sha256 is \"")
        .and_then(|(_, rest)| rest.split_once("\" but the contents give "))
        .map(|(stated, rest)| (stated.to_owned(), rest.chars().take(64).collect::<String>()))
    else {
        return bytes;
    };
    let at = bytes.windows(64).position(|w| w == stated.as_bytes()).expect("the stated digest");
    let mut fixed = bytes;
    fixed[at..at + 64].copy_from_slice(computed.as_bytes());
    with_digests(fixed)
}

fn get<'a>(path: &'a str) -> Request<'a> {
    Request::new("GET", path)
}

#[test]
fn every_page_is_served_at_its_canonical_path_as_rendered_from_its_record() {
    let catalog = reloaded(&built(Builder::new().pages(pages(SITE))));
    let renderer = pages(SITE);
    let mut paths: Vec<String> = records().iter().map(ProductRecord::canonical_path).collect();
    paths.extend(
        [
            "/robots.txt",
            "/sitemap.xml",
            "/favicon.ico",
            "/feed.atom",
            "/og-image.png",
            "/",
            "/datasets",
            "/actors",
            "/automation",
        ]
        .map(str::to_owned),
    );
    // And every list page: the home page, the routes', and the facets'
    // (each taxonomy's and each term's), each as the renderer makes it.
    let cards = Cards::new(records().iter().filter_map(Card::of));
    let lists = renderer.list_pages(&cards).expect("renders");
    assert!(lists.iter().any(|list| list.path == "/formats/json"), "a term's page");
    for list in &lists {
        let reply = answer(&catalog, &get(&list.path));
        assert_eq!((reply.status, reply.content_type), (200, Some("text/html; charset=utf-8")), "{}", list.path);
        assert_eq!(std::str::from_utf8(&reply.body).ok(), list.html.as_deref(), "{}", list.path);
        if !paths.contains(&list.path) {
            paths.push(list.path.clone());
        }
    }
    paths.sort();
    assert_eq!(catalog.page_paths(), paths);
    // The icon every page links to, as an icon.
    let icon = answer(&catalog, &get(foundry_catalog_pages::favicon::PATH));
    assert_eq!((icon.status, icon.content_type), (200, Some("image/x-icon")));
    assert_eq!(icon.body, foundry_catalog_pages::favicon::ico());
    assert_eq!(answer(&catalog, &get("/robots.txt")).content_type, Some("text/plain; charset=utf-8"));
    // The feed, and the picture every page names as its og:image.
    let feed = answer(&catalog, &get(foundry_catalog_pages::feed::PATH));
    assert_eq!((feed.status, feed.content_type), (200, Some("application/atom+xml")));
    assert!(feed.body.starts_with(b"<?xml") && feed.body.windows(7).any(|w| w == b"<entry>"));
    let image = answer(&catalog, &get(foundry_catalog_pages::share_image::PATH));
    assert_eq!((image.status, image.content_type), (200, Some("image/png")));
    assert_eq!(image.body, foundry_catalog_pages::share_image::png());
    assert_eq!(answer(&catalog, &get("/sitemap.xml")).content_type, Some("application/xml"));
    for record in records() {
        let path = record.canonical_path();
        let reply = answer(&catalog, &get(&path));
        assert_eq!(reply.status, 200, "{path}");
        assert_eq!(reply.content_type, Some("text/html; charset=utf-8"));
        let html = renderer.product(&record, &cards).expect("renders");
        assert_eq!(std::str::from_utf8(&reply.body).expect("UTF-8"), html);
        // Its own strong ETag: the SHA-256 of the bytes sent.
        let etag = format!("\"{}\"", hex::encode(sha2::Sha256::digest(&reply.body)));
        assert_eq!(reply.etag.as_deref(), Some(etag.as_bytes()), "{path}");
        // The product's Last-Modified, as the JSON body has it.
        let json = answer(&catalog, &get(&record.api_path()));
        assert_eq!(reply.last_modified, json.last_modified);
        assert_ne!(reply.etag, json.etag);
        assert_eq!((reply.vary, reply.cache_control), (Some("Accept-Encoding"), json.cache_control));
    }
}

#[test]
fn pages_follow_the_endpoints_http_rules() {
    let catalog = built(Builder::new().pages(pages(SITE)));
    let path = "/datasets/eu-regulatory-status-signals";
    let ok = answer(&catalog, &get(path));
    let etag = ok.etag.clone().expect("an ETag");
    let date = ok.last_modified.clone().expect("a date");
    let cached = answer(&catalog, &Request { if_none_match: Some(&etag), ..get(path) });
    assert_eq!((cached.status, cached.body.len()), (304, 0));
    let since = answer(&catalog, &Request { if_modified_since: Some(&date), ..get(path) });
    assert_eq!(since.status, 304);
    let changed = answer(&catalog, &Request { if_match: Some(b"\"other\""), ..get(path) });
    assert_eq!(changed.status, 412);
    let head = answer(&catalog, &Request::new("HEAD", path));
    assert_eq!((head.status, head.body.len(), head.content_length), (200, 0, ok.body.len()));
    let post = answer(&catalog, &Request::new("POST", path));
    assert_eq!((post.status, post.allow), (405, Some("GET, HEAD")));
    // A percent-encoded unreserved character is the same path.
    assert_eq!(answer(&catalog, &get("/datasets/eu-regulatory-status-signal%73")).body, ok.body);
    let refused = answer(&catalog, &Request { accept_encoding: Some(b"identity;q=0, *;q=0"), ..get(path) });
    assert_eq!(refused.status, 406);
}

#[cfg(feature = "compression")]
#[test]
fn every_coding_of_a_page_decodes_to_its_bytes_and_has_its_own_etag() {
    use std::io::Read as _;
    let catalog = reloaded(&built(Builder::new().pages(pages(SITE))));
    let path = "/actors/lead-signal-extractor";
    let identity = answer(&catalog, &get(path));
    let gzip = answer(&catalog, &Request { accept_encoding: Some(b"gzip"), ..get(path) });
    assert_eq!(gzip.content_encoding, Some("gzip"));
    let mut decoded = Vec::new();
    flate2::read::GzDecoder::new(&gzip.body[..]).read_to_end(&mut decoded).expect("gzip");
    assert_eq!(decoded, identity.body);
    let br = answer(&catalog, &Request { accept_encoding: Some(b"br"), ..get(path) });
    let mut decoded = Vec::new();
    brotli::Decompressor::new(&br.body[..], 4096).read_to_end(&mut decoded).expect("brotli");
    assert_eq!(decoded, identity.body);
    assert_ne!(gzip.etag, identity.etag);
    assert_ne!(br.etag, gzip.etag);
}

#[test]
fn the_sitemap_lists_every_indexable_page_once_and_robots_names_it() {
    let catalog = reloaded(&built(Builder::new().pages(pages(SITE))));
    let sitemap = answer(&catalog, &get("/sitemap.xml"));
    assert_eq!((sitemap.status, sitemap.content_type), (200, Some("application/xml")));
    assert_eq!(sitemap.last_modified, None);
    let xml = std::str::from_utf8(&sitemap.body).expect("UTF-8");
    for record in records() {
        let loc = format!("<loc>{SITE}{}</loc>", record.canonical_path());
        let listed = xml.matches(&loc).count();
        if record.seo.noindex {
            assert_eq!(listed, 0, "{loc} is noindex");
        } else {
            assert_eq!(listed, 1, "{loc}");
            let lastmod = format!("{loc}\n    <lastmod>{}</lastmod>", record.last_updated_at.as_str());
            assert!(xml.contains(&lastmod), "{lastmod} in {xml}");
        }
    }
    let robots = answer(&catalog, &get("/robots.txt"));
    assert_eq!(robots.content_type, Some("text/plain; charset=utf-8"));
    assert!(std::str::from_utf8(&robots.body).expect("UTF-8").contains(&format!("Sitemap: {SITE}/sitemap.xml")));
    // A site document has a validator of its own: 304 on it. It has no
    // date, so If-Modified-Since cannot make it 304.
    let etag = robots.etag.expect("an ETag");
    assert_eq!(answer(&catalog, &Request { if_none_match: Some(&etag), ..get("/robots.txt") }).status, 304);
    let since = Request { if_modified_since: Some(b"Fri, 01 Jan 2100 00:00:00 GMT"), ..get("/sitemap.xml") };
    assert_eq!(answer(&catalog, &since).status, 200);
}

#[test]
fn an_unknown_page_gets_the_not_found_page_and_api_paths_keep_their_json_errors() {
    let catalog = built(Builder::new().pages(pages(SITE)));
    for path in [
        "/datasets/no-such-product",
        "/cards",
        "/sitemap-1.xml",
        "/datasets/no-such-product/",
        "/404",
        "/datasets/page/2",
    ] {
        let reply = answer(&catalog, &get(path));
        assert_eq!((reply.status, reply.content_type), (404, Some("text/html; charset=utf-8")), "{path}");
        assert_eq!(std::str::from_utf8(&reply.body).expect("UTF-8"), pages(SITE).not_found().expect("renders"));
        assert_eq!((reply.etag, reply.cache_control), (None, Some("no-store")), "{path}");
    }
    // A page's path with a trailing slash moves to the page.
    let moved = answer(&catalog, &get("/datasets/eu-regulatory-status-signals/"));
    assert_eq!((moved.status, moved.location.as_deref()), (301, Some(&b"/datasets/eu-regulatory-status-signals"[..])));
    for path in ["/api/other", "/api/public/foundry/products/no-such-product"] {
        let reply = answer(&catalog, &get(path));
        assert_eq!((reply.status, reply.content_type), (404, Some("application/json")), "{path}");
    }
    // A catalog without pages answers as it always has.
    let plain = built(Builder::new());
    assert!(!plain.has_pages());
    let reply = answer(&plain, &get("/datasets/eu-regulatory-status-signals"));
    assert_eq!((reply.status, reply.content_type), (404, Some("application/json")));
}

#[test]
fn without_a_site_there_is_no_sitemap_and_links_are_paths() {
    let catalog = reloaded(&built(Builder::new().pages(Pages::new(Site::unknown()))));
    assert_eq!(catalog.metadata().pages.as_ref().map(|p| p.site.as_str()), Some(""));
    assert_eq!(answer(&catalog, &get("/sitemap.xml")).status, 404);
    let robots = answer(&catalog, &get("/robots.txt"));
    assert!(!std::str::from_utf8(&robots.body).expect("UTF-8").contains("Sitemap"));
    let page = answer(&catalog, &get("/automation/crm-webhook-connector"));
    assert!(
        std::str::from_utf8(&page.body)
            .expect("UTF-8")
            .contains(r#"<link rel="canonical" href="/automation/crm-webhook-connector">"#)
    );
}

#[test]
fn a_broken_template_fails_the_build_naming_the_manifest_and_the_template_line() {
    let dir = templates_folder("broken-templates", "product.html", "<p>\n{{ product.title }\n");
    let broken = Pages::from_dir(Site::unknown(), &dir);
    // A template that does not parse is refused when read.
    assert!(broken.is_err());
    std::fs::write(dir.join("product.html"), "<p>\n{{ product.no_such_field.deeper }}\n").expect("write");
    let pages = Pages::from_dir(Site::unknown(), &dir).expect("parses");
    let errors = Builder::new().pages(pages).build(sources()).expect_err("fails to render");
    assert_eq!(errors.errors.len(), sources().len());
    let CatalogError::Page { file, error } = &errors.errors[0] else { panic!("{errors}") };
    assert_eq!(file, &sources()[0].0);
    assert!(error.contains("product.html:2:") && error.contains("hint:"), "{error}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn the_pages_are_in_the_content_digest_and_the_load_checks() {
    let bytes = built(Builder::new().pages(pages(SITE))).artifact().to_vec();
    let without = built(Builder::new()).artifact().to_vec();
    let digest = |bytes: &[u8]| load(bytes.to_vec()).expect("loads").metadata().content_sha256.clone();
    assert_ne!(digest(&bytes), digest(&without));

    // A page's bytes changed (its gzip body's: the page as is is inflated
    // from it): the ETag no longer names them, which the body check of a
    // load finds and names.
    let catalog = load(bytes.clone()).expect("loads");
    let Some(foundry_catalog_serving::catalog::SiteResource::Page(page)) =
        catalog.site_resource("/datasets/eu-regulatory-status-signals")
    else {
        panic!("a page")
    };
    let gzip = page.representation(foundry_catalog_serving::catalog::ContentCoding::Gzip).body().expect("stored");
    let html = bytes.windows(gzip.len()).position(|w| w == &gzip[..]).expect("the page's gzip body");
    let mut tampered = bytes.clone();
    tampered[html + gzip.len() / 2] ^= 1;
    let error = load(with_checksum(tampered)).expect_err("a changed page");
    assert!(matches!(&error, ArtifactError::Body { .. }), "{error}");
    // So do a site document's bytes (robots.txt, the sitemap, the list
    // pages: not a product's), checked at load as the pages are.
    for path in ["/robots.txt", "/sitemap.xml", "/"] {
        let Some(
            foundry_catalog_serving::catalog::SiteResource::Document(document)
            | foundry_catalog_serving::catalog::SiteResource::Page(document),
        ) = catalog.site_resource(path)
        else {
            panic!("{path} is a site document")
        };
        let stored = catalog
            .codings()
            .iter()
            .filter_map(|&coding| document.representation(coding).body().ok())
            .find(|body| !body.is_empty() && bytes.windows(body.len()).any(|w| w == &body[..]))
            .expect("a body stored as is");
        let at = bytes.windows(stored.len()).position(|w| w == &stored[..]).expect("stored");
        let mut tampered = bytes.clone();
        tampered[at + stored.len() / 2] ^= 1;
        let error = load(with_checksum(tampered)).expect_err("a changed site document");
        assert!(matches!(&error, ArtifactError::Body { .. }), "{path}: {error}");
    }

    // A page's ETag changed with its bytes (so the body check passes): the
    // content digest, which the signature covers, no longer matches.
    let catalog = load(bytes.clone()).expect("loads");
    let etag = answer(&catalog, &get("/datasets/eu-regulatory-status-signals")).etag.expect("an ETag");
    let at = bytes.windows(etag.len()).position(|w| w == &etag[..]).expect("the ETag");
    let mut tampered = bytes.clone();
    tampered[at + 1] = if tampered[at + 1] == b'0' { b'1' } else { b'0' };
    let Err(error) = load(with_digests(tampered)) else { panic!("a changed page ETag loads") };
    assert!(error.to_string().contains("content_sha256"), "{error}");

    // A page moved to another product's path, or a document renamed to
    // shadow a path it was not built for, is malformed, not served.
    // (The page's path span is followed by its lastmod's; the document's
    // name is the only `/robots.txt` in the data.)
    for (from, to) in [
        (&b"/datasets/eu-regulatory-status-signals2026-"[..], &b"/datasets/eu-regulatory-status-signalz2026-"[..]),
        (b"/robots.txt", b"/robots.xyz"),
    ] {
        let at = bytes.windows(from.len()).position(|w| w == from).expect("the path");
        let mut moved = bytes.clone();
        moved[at..at + to.len()].copy_from_slice(to);
        let Err(error) = load(with_digest(moved)) else { panic!("a path it was not built for loads") };
        assert!(matches!(error, ArtifactError::Malformed(_)), "{error}");
    }
}

#[test]
fn a_previous_artifact_with_other_pages_is_not_built_on() {
    let with_pages = built(Builder::new().pages(pages(SITE)));
    let without = built(Builder::new());
    let mut builder = Builder::new().pages(pages("https://other.example.com"));
    let error = builder.previous(&with_pages).expect_err("another site");
    assert!(matches!(error, Unusable::Pages { found: Some(_), expected: Some(_) }), "{error}");
    let error = builder.previous(&without).expect_err("no pages");
    assert!(error.to_string().contains("its pages were not built"), "{error}");
    let error = Builder::new().previous(&with_pages).expect_err("pages, and this build makes none");
    assert!(error.to_string().ends_with("this build's are not built"), "{error}");
    let mut same = Builder::new().pages(pages(SITE));
    assert!(same.previous(&reloaded(&with_pages)).is_ok());
}

/// `sources()` and `n` more products: the examples over and over under
/// numbered slugs, so that each route has several, over several list
/// pages of two.
fn many(n: usize) -> Vec<(String, String)> {
    let mut sources = sources();
    for k in 0..n {
        sources.push(numbered(k % 3, k));
    }
    sources
}

/// Example `example` as product `<slug>-<k>`, titled `<title> <k>`.
fn numbered(example: usize, k: usize) -> (String, String) {
    let (_, text) = foundry_catalog::examples::MANIFESTS[example];
    let mut manifest: serde_json::Value = serde_json::from_str(text).expect("JSON");
    let slug = format!("{}-{k}", manifest["slug"].as_str().unwrap_or_default());
    manifest["slug"] = serde_json::json!(slug);
    manifest["title"] = serde_json::json!(format!("{} {k}", manifest["title"].as_str().unwrap_or_default()));
    (format!("{slug}.json"), serde_json::to_string_pretty(&manifest).expect("serializes"))
}

/// A site of list pages of two products: the proptest's edits move
/// products across pages.
fn paged() -> Pages {
    pages(SITE).with_page_size(2)
}

/// The bytes (identity) `catalog` answers at `path`; none for a 404.
fn page_at(catalog: &ResponseCatalog, path: &str) -> Option<Vec<u8>> {
    let reply = answer(catalog, &get(path));
    (reply.status == 200).then(|| reply.body.to_vec())
}

/// `edit` applied to manifest `n` of `sources`.
fn edit(sources: &mut [(String, String)], n: usize, edit: impl FnOnce(&mut serde_json::Value)) {
    let mut manifest: serde_json::Value = serde_json::from_str(&sources[n].1).expect("JSON");
    edit(&mut manifest);
    sources[n].1 = serde_json::to_string_pretty(&manifest).expect("serializes");
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 12, ..ProptestConfig::default() })]

    /// Built on a previous artifact with pages after any edits (a title,
    /// a summary, a date alone, `noindex` turned on or off, a product
    /// removed or added), the artifact is the full build's, pages,
    /// sitemap and all; and exactly what shows something new is rendered:
    /// the list pages whose bytes differ from the previous artifact's,
    /// and, of the unchanged manifests, the product pages whose bytes
    /// differ (their related products changed).
    #[test]
    fn an_incremental_build_with_pages_is_byte_identical_to_a_full_one(
        edits in proptest::collection::vec((0..16usize, 0..6u8), 1..5),
    ) {
        let builder = || Builder::new().pages(paged());
        let mut sources = many(9);
        let mut added = 100;
        let mut previous = reloaded(&builder().build(sources.clone()).expect("builds"));
        for (n, change) in edits {
            let before = sources.clone();
            let n = n % sources.len().max(1);
            match change {
                0 => edit(&mut sources, n, |m| m["title"] = format!("{} again", m["title"].as_str().unwrap_or("")).into()),
                1 => edit(&mut sources, n, |m| {
                    let noindex = m["seo"]["noindex"].as_bool().unwrap_or(false);
                    m["seo"]["noindex"] = (!noindex).into();
                }),
                2 if sources.len() > 1 => { sources.remove(n); }
                3 => {
                    sources.push(numbered(n % 3, added));
                    added += 1;
                }
                4 => edit(&mut sources, n, |m| m["summary"] = format!("{} Again.", m["summary"].as_str().unwrap_or("")).into()),
                5 => edit(&mut sources, n, |m| m["last_updated_at"] = "2026-06-30T08:00:00+02:00".into()),
                _ => {}
            }
            let full = builder().build(sources.clone()).expect("builds");
            let tally = std::sync::Arc::new(std::sync::Mutex::new(None));
            let last = std::sync::Arc::clone(&tally);
            let mut on_previous = builder().on_progress(move |progress| *last.lock().unwrap() = Some(*progress));
            on_previous.previous(&previous).expect("usable");
            let incremental = on_previous.build(sources.clone()).expect("builds");
            prop_assert_eq!(incremental.artifact().to_vec(), full.artifact().to_vec());
            let tally = tally.lock().unwrap().expect("a tally");
            let lists: Vec<String> =
                full.page_paths().into_iter().filter(|p| foundry_catalog::product::is_list_path(p)).collect();
            let changed = lists.iter().filter(|path| page_at(&previous, path) != page_at(&full, path)).count();
            prop_assert_eq!((tally.list_pages, tally.lists_rendered), (lists.len(), changed));
            let repaged = sources
                .iter()
                .filter(|source| before.contains(source))
                .filter_map(|(_, text)| ProductManifest::from_json(text).ok()?.build().ok())
                .filter(|record| page_at(&previous, &record.canonical_path()) != page_at(&full, &record.canonical_path()))
                .count();
            prop_assert_eq!(tally.repaged, repaged);
            previous = reloaded(&incremental);
        }
    }
}

/// A previous artifact whose site documents changed in its file (a list
/// page and the sitemap, each in brotli: bytes no digest of the head
/// covers, only their ETags) is
/// built on as a full build would: each is made again, none carried into
/// the new artifact, whether it shows what it did (a list page kept by
/// its plan) or is made again with the bytes it had (the sitemap, kept
/// when its stored bodies hash to their ETags).
#[test]
fn a_previous_artifact_whose_site_documents_changed_is_not_trusted() {
    let sources = many(9);
    let builder = || Builder::new().pages(paged());
    let first = builder().build(sources.clone()).expect("builds").artifact().to_vec();
    let catalog = load(first.clone()).expect("loads");
    let mut tampered = first.clone();
    let brotli = |path: &str| {
        let request = Request { accept_encoding: Some(b"br"), ..get(path) };
        let reply = answer(&catalog, &request);
        assert_eq!((reply.status, reply.content_encoding), (200, Some("br")), "{path}");
        reply.body.to_vec()
    };
    let bodies = [brotli("/datasets/page/2"), brotli("/sitemap.xml")];
    for body in &bodies {
        let at = first.windows(body.len()).position(|w| w == &body[..]).expect("the body is in the file");
        tampered[at + body.len() / 2] ^= 0x01;
    }
    let file = std::env::temp_dir().join(format!("foundry-catalog-tampered-pages-{}.fcat", std::process::id()));
    std::fs::write(&file, tampered).expect("write");
    let previous = ResponseCatalog::open(&file);
    let _ = std::fs::remove_file(&file);
    let previous = previous.expect("bodies are checked when they are used, not at open");
    let mut on_previous = builder();
    on_previous.previous(&previous).expect("usable");
    let incremental = on_previous.build(sources).expect("builds");
    assert!(incremental.artifact().to_vec() == first, "no changed body is carried into the new artifact");
}

/// A previous artifact whose product's ETag as is names other bytes,
/// every digest of the file made good (as a signer's would be): the
/// product, its manifest reformatted (the same body), is not kept under
/// that ETag, which no check of its stored bodies covers (the body as is
/// is inflated from gzip), but stored anew, as a full build stores it;
/// site documents made again with the same bytes are judged alike
/// (`Previous::holds_as_is`).
#[test]
fn a_body_whose_etag_names_other_bytes_is_not_kept() {
    let mut sources = many(9);
    let first = Builder::new().build(sources.clone()).expect("builds").artifact().to_vec();
    let catalog = load(first.clone()).expect("loads");
    let slug = ProductManifest::from_json(&sources[0].1).expect("a manifest").slug.to_string();
    let reply = answer(&catalog, &get(&format!("/api/public/foundry/products/{slug}")));
    let etag = format!("\"{}\"", hex::encode(sha2::Sha256::digest(&reply.body)));
    let other = format!("\"{}\"", hex::encode(sha2::Sha256::digest(b"other bytes")));
    let at = first.windows(etag.len()).position(|w| w == etag.as_bytes()).expect("the ETag is in the table");
    let mut forged = first.clone();
    forged[at..at + other.len()].copy_from_slice(other.as_bytes());
    let file = std::env::temp_dir().join(format!("foundry-catalog-forged-etag-{}.fcat", std::process::id()));
    std::fs::write(&file, with_digest(forged)).expect("write");
    let previous = ResponseCatalog::open_to_build_on(&file);
    let _ = std::fs::remove_file(&file);
    let previous = previous.expect("its digests are good");
    // Its manifest's bytes change; its body does not.
    let manifest: serde_json::Value = serde_json::from_str(&sources[0].1).expect("JSON");
    sources[0].1 = serde_json::to_string(&manifest).expect("serializes");
    let mut on_previous = Builder::new();
    on_previous.previous(&previous).expect("usable");
    let incremental = on_previous.build(sources.clone()).expect("builds");
    let full = Builder::new().build(sources).expect("builds");
    assert!(incremental.artifact().to_vec() == full.artifact().to_vec(), "stored anew under its own ETag");
}

/// The tower `Service` answers pages as the server does (the server calls
/// the same `respond`).
#[cfg(feature = "http")]
#[test]
fn the_tower_service_answers_pages() {
    use tower_service::Service as _;
    let mut service = foundry_catalog_serving::service::CatalogService::new(built(Builder::new().pages(pages(SITE))));
    let request = |method: &str, path: &str| {
        http::Request::builder().method(method).uri(path).header("host", "t").body(()).expect("a request")
    };
    let call = |service: &mut foundry_catalog_serving::service::CatalogService, method, path| {
        service.call(request(method, path)).into_inner().expect("infallible")
    };
    let page = call(&mut service, "GET", "/actors/lead-signal-extractor");
    assert_eq!(page.status(), 200);
    assert_eq!(page.headers()["content-type"], "text/html; charset=utf-8");
    assert_eq!(page.headers()["vary"], "Accept-Encoding");
    let head = call(&mut service, "HEAD", "/sitemap.xml");
    assert_eq!((head.status().as_u16(), head.headers()["content-type"].to_str().ok()), (200, Some("application/xml")));
    let missing = call(&mut service, "GET", "/actors/nobody");
    assert_eq!((missing.status().as_u16(), missing.headers()["cache-control"].to_str().ok()), (404, Some("no-store")));
    assert_eq!(call(&mut service, "DELETE", "/robots.txt").headers()["allow"], "GET, HEAD");
}

/// A catalog with pages read back from its artifact (whose index is held
/// as stored, lengths read in place) answers every product, page, site
/// document and the not-found page exactly as the catalog built in memory
/// (whose index holds every span placed): the same ETags, lengths, dates
/// and bytes in every coding.
#[test]
fn a_catalog_read_back_answers_every_response_as_the_one_built() {
    use foundry_catalog_serving::catalog::{CatalogEntry, ContentCoding, SiteResource};
    let built = built(Builder::new().pages(pages(SITE)));
    let read = reloaded(&built);
    assert_eq!((read.slugs(), read.page_paths()), (built.slugs(), built.page_paths()));
    fn resource<'a>(catalog: &'a ResponseCatalog, path: &str) -> Found<'a> {
        match catalog.site_resource(path).expect("a catalog with pages") {
            SiteResource::Unavailable => panic!("{path}: unavailable"),
            SiteResource::Page(entry) => ("page", entry),
            SiteResource::Document(entry) => ("document", entry),
            SiteResource::NotFound(entry) => ("not found", entry),
        }
    }
    type Found<'a> = (&'static str, CatalogEntry<'a>);
    let mut pairs: Vec<(String, Found<'_>, Found<'_>)> = built
        .slugs()
        .into_iter()
        .map(|slug| {
            (
                slug.to_owned(),
                ("product", built.get(&slug).expect("built")),
                ("product", read.get(&slug).expect("read")),
            )
        })
        .collect();
    for path in built.page_paths().into_iter().chain(["/no/such/page".to_owned()]) {
        pairs.push((path.clone(), resource(&built, &path), resource(&read, &path)));
    }
    assert!(pairs.iter().any(|(_, (kind, _), _)| *kind == "document"), "robots.txt and a sitemap");
    for (name, (kind, a), (other, b)) in pairs {
        assert_eq!(kind, other, "{name}");
        assert_eq!((a.modified(), a.etag()), (b.modified(), b.etag()), "{name}");
        for &coding in ContentCoding::ALL {
            let (a, b) = (a.representation(coding), b.representation(coding));
            assert_eq!((a.etag(), a.len()), (b.etag(), b.len()), "{name} {coding}");
            assert_eq!(a.body().expect("built"), b.body().expect("read and checked"), "{name} {coding}");
        }
        assert_eq!(a, b, "{name}");
    }
}

/// A new templates folder (`foundry-catalog-<name>-<pid>` in the temp
/// dir) holding `file` with `text`.
fn templates_folder(name: &str, file: &str, text: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("foundry-catalog-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    std::fs::write(dir.join(file), text).expect("write");
    dir
}

/// A search page template that does not render fails the build, naming
/// its file and line: a server would otherwise fail each search.
#[test]
fn a_search_template_that_does_not_render_fails_the_build() {
    let dir = templates_folder("broken-search", "search.html", "<p>\n{{ page.no_such_field.deeper }}\n");
    let pages = Pages::from_dir(Site::unknown(), &dir).expect("parses");
    let errors = Builder::new().pages(pages).build(sources()).expect_err("fails to render");
    let CatalogError::Page { file, error } = &errors.errors[0] else { panic!("{errors}") };
    assert_eq!(file, "<templates>");
    assert!(error.contains("search.html:2:") && error.contains("hint:"), "{error}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// What the search page at `query` lists, following its pages: the
/// products' paths in the order shown, and the count it states.
fn searched(catalog: &ResponseCatalog, query: &str) -> (Vec<String>, usize) {
    let mut shown = Vec::new();
    let mut stated = 0;
    let mut next = Some(format!("q={query}"));
    while let Some(at) = next.take() {
        let reply = answer(catalog, &Request { query: Some(&at), ..get("/search") });
        assert_eq!((reply.status, reply.content_type), (200, Some("text/html; charset=utf-8")), "{at}");
        let html = String::from_utf8(reply.body.to_vec()).expect("UTF-8");
        if let Some((_, meta)) = html.split_once(r#"<p class="meta">"#) {
            stated = meta.split(' ').next().expect("a count").parse().expect("a number");
        }
        if let Some((_, list)) = html.split_once(r#"<ul class="cards">"#) {
            let list = list.split_once("</ul>").expect("closed").0;
            shown.extend(
                list.split(&format!(r#"href="{SITE}"#))
                    .skip(1)
                    .map(|rest| rest.split('"').next().unwrap_or_default().to_owned()),
            );
        }
        next = html
            .split_once(r#"rel="next" href=""#)
            .map(|(_, rest)| rest.split('"').next().unwrap_or_default().replace("&amp;", "&"))
            .and_then(|url| url.split_once('?').map(|(_, query)| query.to_owned()));
    }
    (shown, stated)
}

/// The search page of a catalog read back from its bytes lists exactly
/// the indexable products that have every word of the query, in their
/// title, summary or terms, judged by reading the records, each once,
/// across its pages; the card shown is the product's own.
#[test]
fn search_finds_exactly_the_products_that_have_every_word() {
    use foundry_catalog_search::words;
    let sources = many(50);
    let catalog = reloaded(&Builder::new().pages(paged()).build(sources.clone()).expect("builds"));
    let cards: Vec<Card> = sources
        .iter()
        .filter_map(|(_, text)| Card::of(&ProductManifest::from_json(text).ok()?.build().ok()?))
        .collect();
    let text_of = |card: &Card| {
        let terms: Vec<&str> = card.terms.iter().map(|term| term.label.as_str()).collect();
        format!("{} {} {}", card.title, card.summary, terms.join(" "))
    };
    let mut queries: Vec<String> =
        vec!["webhook".into(), "Signals+EU".into(), "7".into(), "zzz".into(), "signals+zzz".into()];
    queries.extend(cards.iter().take(8).map(|card| card.title.replace(' ', "+")));
    queries.extend(cards.iter().flat_map(|card| card.terms.first()).map(|term| term.label.replace(' ', "+")));
    for query in &queries {
        let asked = words(&query.replace('+', " "));
        let mut expected: Vec<String> = cards
            .iter()
            .filter(|card| {
                let has = words(&text_of(card));
                asked.iter().all(|word| has.contains(word))
            })
            .map(|card| card.path.clone())
            .collect();
        let (mut shown, stated) = searched(&catalog, query);
        assert_eq!(stated, expected.len(), "{query}");
        shown.sort();
        expected.sort();
        assert_eq!(shown, expected, "{query}");
    }
    // The hidden product is found by no word of its title.
    assert_eq!(searched(&catalog, "Draft").0, Vec::<String>::new());
}

/// The search page by the endpoint's rules: HEAD, each coding, 404 for a
/// page no search has, no validators; none in a catalog without pages.
#[test]
fn the_search_page_follows_the_endpoints_http_rules() {
    let catalog = reloaded(&Builder::new().pages(paged()).build(many(30)).expect("builds"));
    let search = |query: &'static str| Request { query: Some(query), ..get("/search") };
    let plain = answer(&catalog, &search("q=signals"));
    assert_eq!((plain.status, plain.etag.clone(), plain.vary), (200, None, Some("Accept-Encoding")));
    let head = answer(&catalog, &Request { method: "HEAD", ..search("q=signals") });
    assert_eq!((head.status, head.body.len(), head.content_length), (200, 0, plain.body.len()));
    let gzip = answer(&catalog, &Request { accept_encoding: Some(b"gzip"), ..search("q=signals") });
    assert_eq!(gzip.content_encoding, Some("gzip"));
    let mut decoded = Vec::new();
    std::io::Read::read_to_end(&mut flate2::read::GzDecoder::new(&gzip.body[..]), &mut decoded).expect("gzip");
    assert_eq!(decoded, plain.body.to_vec());
    for missing in
        ["q=signals&page=0", "q=signals&page=x", "q=signals&page=50", "q=zzz&page=2", "page=51", "page=2", "q=+&page=7"]
    {
        let reply = answer(&catalog, &search(missing));
        assert_eq!((reply.status, reply.content_type), (404, Some("text/html; charset=utf-8")), "{missing}");
    }
    let blank = answer(&catalog, &search(""));
    assert_eq!(blank.status, 200);
    assert_eq!(answer(&catalog, &get("/search")).body, blank.body);
    let without = Builder::new().build(sources()).expect("builds");
    assert_eq!(answer(&without, &search("q=signals")).status, 404);
    // robots.txt keeps crawlers out of it.
    let robots = answer(&catalog, &get("/robots.txt")).body;
    assert!(String::from_utf8_lossy(&robots).contains("Disallow: /search\n"));
}
