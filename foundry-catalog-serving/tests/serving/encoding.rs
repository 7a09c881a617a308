//! Content codings: negotiation by `Accept-Encoding` and the stored
//! representations, each decoding to the identity bytes.

use std::io::Read;

use foundry_catalog_serving::catalog::{ContentCoding, ResponseCatalog};
use foundry_catalog_serving::endpoint::{Request, answer};

/// The example catalog, with every coding this build makes.
fn examples() -> ResponseCatalog {
    foundry_catalog_serving::catalog::Builder::new()
        .build_dir(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/catalog"))
        .expect("examples")
}

/// The coding `respond` picks for `Accept-Encoding: header` from a catalog
/// holding all three (`None` when it answers 406).
fn negotiate(header: Option<&[u8]>) -> Option<ContentCoding> {
    let catalog = examples();
    let path = "/api/public/foundry/products/crm-webhook-connector";
    let reply = answer(&catalog, &Request { accept_encoding: header, ..Request::new("GET", path) });
    match reply.status {
        406 => None,
        200 => Some(reply.content_encoding.map_or(ContentCoding::Identity, |c| c.parse().expect("a coding"))),
        status => panic!("{header:?}: {status}"),
    }
}

#[test]
fn negotiation_follows_rfc_9110() {
    use ContentCoding::{Br, Gzip, Identity};
    let cases: &[(Option<&str>, Option<ContentCoding>)] = &[
        (None, Some(Identity)),
        (Some(""), Some(Identity)),
        (Some("gzip"), Some(Gzip)),
        (Some("x-gzip"), Some(Gzip)),
        (Some("GZIP;Q=0.8"), Some(Gzip)),
        (Some("br"), Some(Br)),
        (Some("gzip, br"), Some(Br)),
        (Some("br;q=0.2, gzip;q=0.9"), Some(Gzip)),
        (Some("br;q=0, gzip;q=0"), Some(Identity)),
        (Some("*"), Some(Br)),
        (Some("*;q=0"), None),
        (Some("*;q=0, identity"), Some(Identity)),
        (Some("identity;q=0"), None),
        (Some("identity;q=0, gzip"), Some(Gzip)),
        (Some("deflate, compress"), Some(Identity)),
        (Some("gzip;q=1.5"), Some(Identity)),
        (Some("gzip;q=0.1234"), Some(Identity)),
        (Some("gzip;level=9;q=0.5"), Some(Gzip)),
        (Some(" , ,gzip , "), Some(Gzip)),
        (Some("identity;q=0.5, br;q=0.5"), Some(Br)),
        (Some("gzip, deflate, br"), Some(Br)),
        (Some("br;q=0.5, gzip"), Some(Gzip)),
        (Some("\u{ff}\u{fe};q=1, gzip;q=0.5"), Some(Gzip)),
    ];
    for (header, expected) in cases {
        assert_eq!(negotiate(header.map(str::as_bytes)), *expected, "{header:?}");
    }
}

#[test]
fn every_representation_decodes_to_the_identity_bytes_and_has_its_own_etag() {
    let catalog = foundry_catalog_serving::catalog::Builder::new()
        .build_dir(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/catalog"))
        .expect("catalog");
    for slug in catalog.slugs() {
        let entry = catalog.get(&slug).expect("entry");
        let identity = entry.representation(ContentCoding::Identity).body().expect("body");
        let gzip = entry.representation(ContentCoding::Gzip).body().expect("body");
        let br = entry.representation(ContentCoding::Br).body().expect("body");
        let mut from_gzip = Vec::new();
        flate2::read::GzDecoder::new(&gzip[..]).read_to_end(&mut from_gzip).expect("gzip decodes");
        let mut from_br = Vec::new();
        brotli::Decompressor::new(&br[..], 4096).read_to_end(&mut from_br).expect("brotli decodes");
        assert_eq!(from_gzip, identity, "{slug}");
        assert_eq!(from_br, identity, "{slug}");
        assert!(
            br.len() < gzip.len() && gzip.len() < identity.len(),
            "{slug}: {} {} {}",
            br.len(),
            gzip.len(),
            identity.len()
        );
        let etags: Vec<&str> = ContentCoding::ALL.iter().map(|c| entry.representation(*c).etag()).collect();
        assert!(etags[0] != etags[1] && etags[1] != etags[2] && etags[0] != etags[2], "{etags:?}");
    }
}

#[test]
fn conditional_requests_compare_the_selected_representation() {
    let catalog = foundry_catalog_serving::catalog::Builder::new()
        .build_dir(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/catalog"))
        .expect("catalog");
    let path = "/api/public/foundry/products/crm-webhook-connector";
    let get = |accept: Option<&'static [u8]>| {
        answer(&catalog, &Request { accept_encoding: accept, ..Request::new("GET", path) })
    };
    let br = get(Some(b"br"));
    assert_eq!((br.status, br.content_encoding, br.vary), (200, Some("br"), Some("Accept-Encoding")));
    let identity = get(None);
    assert_eq!((identity.content_encoding, identity.vary), (None, Some("Accept-Encoding")));
    let br_etag = br.etag.expect("an ETag");
    let revalidate = |accept: Option<&'static [u8]>, tag: &[u8]| {
        answer(&catalog, &Request { accept_encoding: accept, if_none_match: Some(tag), ..Request::new("GET", path) })
    };
    let cached = revalidate(Some(b"br"), &br_etag);
    assert_eq!((cached.status, cached.body.len(), cached.content_encoding), (304, 0, None));
    assert_eq!(revalidate(None, &br_etag).status, 200, "the identity representation has another ETag");
    let head = answer(&catalog, &Request { accept_encoding: Some(b"gzip"), ..Request::new("HEAD", path) });
    assert_eq!((head.status, head.content_encoding, head.body.len()), (200, Some("gzip"), 0));
    assert_eq!(
        head.content_length,
        catalog
            .get("crm-webhook-connector")
            .expect("entry")
            .representation(ContentCoding::Gzip)
            .body()
            .expect("body")
            .len()
    );
    let refused = get(Some(b"identity;q=0, *;q=0"));
    assert_eq!((refused.status, refused.vary), (406, Some("Accept-Encoding")));
}
