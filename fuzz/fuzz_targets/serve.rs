//! An arbitrary request (method, raw path, If-None-Match and If-Match) → routing and
//! conditional-request handling, on the example catalog with its pages:
//! never a panic, never a 5xx, never a body on HEAD or 304, never request
//! input echoed in an error (a JSON error body holds no `<` or `>`; the
//! not-found page is the same bytes whatever the path), and a move (301,
//! a page's other form) only to a page of the site that answers 200.
#![no_main]

use std::sync::OnceLock;

use foundry_catalog_serving::catalog::ResponseCatalog;
use foundry_catalog_serving::endpoint::{Request, answer};
use libfuzzer_sys::fuzz_target;

const METHODS: &[&str] = &["GET", "HEAD", "POST", "PUT", "DELETE", "OPTIONS", "PATCH", "TRACE", "get", ""];
const PREFIX: &str = "/api/public/foundry/products/";

fn catalog() -> &'static ResponseCatalog {
    static CATALOG: OnceLock<ResponseCatalog> = OnceLock::new();
    let site = foundry_catalog_pages::Site::new("https://catalog.example.com").expect("a site URL");
    let builder = foundry_catalog_serving::catalog::Builder::new().pages(foundry_catalog_pages::Pages::new(site));
    CATALOG.get_or_init(|| builder.build_dir(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/catalog")).expect("the example catalog builds"))
}

fuzz_target!(|data: &[u8]| {
    let Some((&selector, rest)) = data.split_first() else { return };
    let method = METHODS[usize::from(selector) % METHODS.len()];
    // Path and header are separated by the first 0xFF byte; a set high bit
    // in the selector puts the product prefix in front of the path.
    let (path, header) = match rest.iter().position(|&b| b == 0xFF) {
        Some(i) => (&rest[..i], Some(&rest[i + 1..])),
        None => (rest, None),
    };
    let path = String::from_utf8_lossy(path);
    let path = if selector & 0x80 != 0 { format!("{PREFIX}{path}") } else { path.into_owned() };
    let reply = answer(
        catalog(),
        &Request { if_none_match: header, if_match: header, accept_encoding: header, ..Request::new(method, &path) },
    );
    assert!(matches!(reply.status, 200 | 301 | 304 | 400 | 404 | 405 | 406 | 412), "{}", reply.status);
    if reply.status == 301 {
        let location = reply.location.as_deref().expect("a move says where");
        let location = std::str::from_utf8(location).expect("a page's path is UTF-8");
        assert!(location.starts_with('/') && !location.starts_with("//"), "{location}: a path of the site");
        assert!(reply.body.is_empty());
        assert_eq!(answer(catalog(), &Request::new("GET", location)).status, 200, "{location}");
    }
    if method == "HEAD" || reply.status == 304 {
        assert!(reply.body.is_empty());
    }
    if reply.status >= 400 && reply.content_type == Some("text/html; charset=utf-8") {
        assert_eq!(reply.status, 404);
        let page = answer(catalog(), &Request { accept_encoding: header, ..Request::new(method, "/no-such-page") });
        assert_eq!((reply.body, reply.etag), (page.body, None));
    } else if reply.status >= 400 {
        assert!(!reply.body.contains(&b'<') && !reply.body.contains(&b'>'));
        assert_eq!(reply.etag, None);
    }
    if reply.status == 405 {
        assert_eq!(reply.allow, Some("GET, HEAD"));
    }
});
