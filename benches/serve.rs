//! What one request costs, per product body (about 4-6 KiB):
//!
//! - `catalog_lookup`: `ResponseCatalog::get` + cheap clone of the
//!   pre-built body (what the server does);
//! - `serialize_per_request`: `serde_json::to_vec` of the typed record,
//!   what a server without pre-built bodies would do;
//! - `bare_hashmap`: `HashMap<String, Bytes>` get + clone, the floor;
//! - `respond`: the whole request path without HTTP (route, slug check,
//!   lookup, If-None-Match).
//! - `stored_body`: a body of a catalog opened from its artifact file
//!   (`ResponseCatalog::open`), by coding: `kept` (read and checked once,
//!   then kept in the body cache: what every request after the first
//!   costs while the cache has room) against `read_and_checked` (no cache:
//!   a `pread` from the page cache and a SHA-256 of the bytes at every
//!   request, what a request past the cache's limit costs).
//!
//! ```text
//! cargo bench -p foundry-catalog-benches --bench serve
//! ```
//!
//! Targets: lookup at least 50x faster than per-request serialization and
//! within 3x of the bare map (a catalog entry is a view whose spans are
//! read from the index at each request, which keeps a catalog's memory at
//! about 1 kB a product: 44 ns against the bare map's 17 on the 2-core VM,
//! 2026-11-27; it was 20 ns, and 2.6 kB a product, with an entry held per
//! product).

use std::collections::HashMap;

use bytes::Bytes;
use foundry_catalog::product::ProductManifest;
use foundry_catalog::response::ProductResponse;
use foundry_catalog_serving::catalog::ResponseCatalog;
use foundry_catalog_serving::endpoint::{Request, answer};

fn main() {
    divan::main();
}

const SLUG: &str = "eu-regulatory-status-signals";

fn catalog() -> ResponseCatalog {
    foundry_catalog_serving::catalog::Builder::new()
        .build_dir(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/catalog"))
        .expect("catalog builds")
}

/// Nanosecond-scale benches take many iterations per sample, for stable medians.
const FAST: u32 = 10_000;

#[divan::bench(sample_count = 200, sample_size = FAST)]
fn catalog_lookup(bencher: divan::Bencher) {
    let catalog = catalog();
    bencher.bench(|| catalog.get(divan::black_box(SLUG)).map(|entry| entry.body()));
}

#[divan::bench]
fn serialize_per_request(bencher: divan::Bencher) {
    let text = include_str!("../examples/catalog/eu-regulatory-status-signals.json");
    let record = ProductManifest::from_json(text).expect("manifest").build().expect("builds");
    let response = ProductResponse { data: record };
    bencher.bench(|| serde_json::to_vec(divan::black_box(&response)).map(Bytes::from));
}

#[divan::bench(sample_count = 200, sample_size = FAST)]
fn bare_hashmap(bencher: divan::Bencher) {
    let catalog = catalog();
    let map: HashMap<String, Bytes> = catalog
        .slugs()
        .into_iter()
        .filter_map(|s| catalog.get(&s).and_then(|e| Some((s.to_owned(), e.body().ok()?))))
        .collect();
    bencher.bench(|| map.get(divan::black_box(SLUG)).cloned());
}

#[divan::bench(sample_count = 200, sample_size = FAST)]
fn respond_full_path(bencher: divan::Bencher) {
    let catalog = catalog();
    let path = format!("/api/public/foundry/products/{SLUG}");
    bencher.bench(|| answer(&catalog, &Request::new("GET", divan::black_box(&path))));
}

/// Compressing one body, as the catalog does once per product when it is
/// built (or reloaded).
#[divan::bench(args = [foundry_catalog_serving::catalog::ContentCoding::Gzip, foundry_catalog_serving::catalog::ContentCoding::Br])]
fn encode(bencher: divan::Bencher, coding: foundry_catalog_serving::catalog::ContentCoding) {
    let catalog = foundry_catalog_serving::catalog::Builder::new()
        .build_dir(&std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/catalog"))
        .expect("catalog");
    let body = catalog.get(SLUG).expect("entry").body().expect("body");
    bencher.bench(|| coding.encode(divan::black_box(&body)).map_or(0, |bytes| bytes.len()));
}

/// The settings behind `encoding`'s choices, side by side on one
/// product's body and page (the default templates), compressed in turn:
/// what a build pays for the product in that coding. The catalog's own
/// (`ContentCoding::encode`: C brotli quality 5, window 22; libdeflate
/// level 6) against the Rust port of brotli at the same settings (the
/// same bytes), brotli quality 4 and 11, zlib-rs at level 6 and libdeflate
/// at 9. Sizes go to stderr once.
#[divan::bench(
    args = ["br (catalog)", "br rust q5", "br q4", "br q11", "gzip (catalog)", "gzip zlib-rs 6", "gzip 9"],
    sample_count = 20
)]
fn encode_settings(bencher: divan::Bencher, setting: &str) {
    use std::io::Write;

    use foundry_catalog_serving::catalog::ContentCoding;
    let body = catalog().get(SLUG).expect("entry").body().expect("body");
    let text = include_str!("../examples/catalog/eu-regulatory-status-signals.json");
    let record = ProductManifest::from_json(text).expect("manifest").build().expect("builds");
    let pages = foundry_catalog_pages::Pages::new(
        foundry_catalog_pages::Site::new("https://catalog.example.com").expect("a site"),
    );
    let cards = foundry_catalog_pages::list::Cards::new(foundry_catalog_pages::list::Card::of(&record));
    let page = pages.product(&record, &cards).expect("renders").into_bytes();
    let c_brotli = |bytes: &[u8], quality: u8| {
        let options = brotlic::BrotliEncoderOptions::new()
            .quality(brotlic::Quality::new(quality).expect("a quality"))
            .window_size(brotlic::WindowSize::new(22).expect("a window"))
            .build()
            .expect("options");
        let mut writer = brotlic::CompressorWriter::with_encoder(options, Vec::new());
        writer.write_all(bytes).expect("in memory");
        writer.into_inner().expect("in memory").len()
    };
    let encode = |bytes: &[u8]| -> usize {
        match setting {
            "br (catalog)" => ContentCoding::Br.encode(bytes).expect("compression").len(),
            "gzip (catalog)" => ContentCoding::Gzip.encode(bytes).expect("compression").len(),
            "br rust q5" => {
                let mut out = Vec::new();
                brotli::CompressorWriter::new(&mut out, 4096, 5, 22).write_all(bytes).expect("in memory");
                out.len()
            }
            "br q4" => c_brotli(bytes, 4),
            "br q11" => c_brotli(bytes, 11),
            "gzip zlib-rs 6" => {
                let mut encoder = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::new(6));
                encoder.write_all(bytes).expect("in memory");
                encoder.finish().expect("in memory").len()
            }
            _ => {
                let mut compressor =
                    libdeflater::Compressor::new(libdeflater::CompressionLvl::new(9).expect("a level"));
                let mut out = vec![0; compressor.gzip_compress_bound(bytes.len())];
                compressor.gzip_compress(bytes, &mut out).expect("in bounds")
            }
        }
    };
    eprintln!(
        "{setting}: body {} bytes from {}, page {} bytes from {}",
        encode(&body),
        body.len(),
        encode(&page),
        page.len()
    );
    bencher.bench(|| encode(divan::black_box(&body)) + encode(divan::black_box(&page)));
}

/// The example catalog written to a file and opened from it, with a body
/// cache of `cache` bytes; the file is removed (the catalog holds it open).
fn opened(cache: u64) -> ResponseCatalog {
    use foundry_catalog_serving::catalog::{BodyCache, OpenOptions};
    let file = std::env::temp_dir().join(format!("foundry-catalog-bench-serve-{}-{cache}.fcat", std::process::id()));
    std::fs::write(&file, catalog().artifact().to_vec()).expect("write");
    let options = OpenOptions::default().body_cache(BodyCache::new(cache));
    let opened = ResponseCatalog::open_with(&file, &options).expect("opens");
    let _ = std::fs::remove_file(&file);
    assert!(opened.reads_bodies_from_file());
    opened
}

#[divan::bench(args = ["identity", "br"], sample_count = 200, sample_size = 1000)]
fn stored_body_kept(bencher: divan::Bencher, coding: &str) {
    let catalog = opened(1 << 20);
    let coding = coding.parse().expect("a coding");
    let entry = catalog.get(SLUG).expect("entry");
    entry.representation(coding).body().expect("checked");
    bencher.bench(|| entry.representation(divan::black_box(coding)).body().map(|body| body.len()));
}

#[divan::bench(args = ["identity", "br"], sample_count = 200, sample_size = 1000)]
fn stored_body_read_and_checked(bencher: divan::Bencher, coding: &str) {
    let catalog = opened(0);
    let coding = coding.parse().expect("a coding");
    let entry = catalog.get(SLUG).expect("entry");
    bencher.bench(|| entry.representation(divan::black_box(coding)).body().map(|body| body.len()));
}

/// Storing only the compressed codings (identity is 62 % of an artifact
/// with pages): what a client without `Accept-Encoding` would then cost,
/// inflating the stored gzip body (zlib-rs) or decoding the brotli one,
/// against keeping identity stored (`stored_body_kept`).
#[divan::bench(args = ["gzip", "br"], sample_count = 200, sample_size = 100)]
fn identity_from(bencher: divan::Bencher, coding: &str) {
    use std::io::Read;
    let catalog = catalog();
    let entry = catalog.get(SLUG).expect("entry");
    let identity = entry.body().expect("body");
    let stored = entry.representation(coding.parse().expect("a coding")).body().expect("body");
    let decode = |bytes: &[u8]| -> Vec<u8> {
        let mut out = Vec::with_capacity(identity.len());
        match coding {
            "gzip" => flate2::read::GzDecoder::new(bytes).read_to_end(&mut out),
            _ => brotli::Decompressor::new(bytes, 4096).read_to_end(&mut out),
        }
        .expect("decodes");
        out
    };
    assert_eq!(decode(&stored), identity);
    bencher.bench(|| decode(divan::black_box(&stored)));
}
