//! A head read a block at a time (`Artifact::open`): start-up reads the
//! summary and the slug directory, and each block is read, checked against
//! its digest and its entries checked when it is first used; a block that
//! fails is never served from, and the rest of the catalog is.

use foundry_catalog_serving::artifact::Artifact;
use foundry_catalog_serving::catalog::{Builder, ResponseCatalog};
use foundry_catalog_serving::endpoint::{Request, answer};

use crate::catalog::{HEADER, index_start, length, temp};
use crate::incremental::manifest;

/// A catalog of `count` products, as an artifact file's bytes.
fn products(count: usize) -> Vec<u8> {
    let sources = (0..count).map(|n| manifest(n, &format!("Product {n}")));
    Builder::new().build(sources).expect("builds").artifact().to_vec()
}

/// The blocks of a version-5 file: for each, its first entry, its entry
/// count and where its table bytes start in the file.
fn blocks(bytes: &[u8]) -> Vec<(usize, usize, usize)> {
    let at = HEADER + length(bytes, 16) + length(bytes, 24);
    let table_at = index_start(bytes) + length(bytes, 48);
    let (mut first, mut table) = (0, table_at);
    (0..length(bytes, 32) / 48)
        .map(|k| {
            let entry = &bytes[at + 48 * k..at + 48 * k + 8];
            let count = u32::from_le_bytes(entry[..4].try_into().expect("4")) as usize;
            let table_len = u32::from_le_bytes(entry[4..8].try_into().expect("4")) as usize;
            let block = (first, count, table);
            (first, table) = (first + count, table + table_len);
            block
        })
        .collect()
}

/// Every slug of `bytes`, read whole.
fn slugs(bytes: &[u8]) -> (ResponseCatalog, Vec<String>) {
    let whole = ResponseCatalog::from_artifact(Artifact::parse(bytes.to_vec().into()).expect("parses")).expect("loads");
    let slugs = whole.slugs();
    (whole, slugs)
}

/// A copy of an artifact with its second block of products changed,
/// opened from its file with a body cache of its own.
struct Changed {
    /// The changed block's first entry and its entry count.
    first: usize,
    count: usize,
    dir: std::path::PathBuf,
    cache: foundry_catalog_serving::catalog::BodyCache,
    catalog: ResponseCatalog,
}

fn changed_block(bytes: &[u8], name: &str) -> Changed {
    let (first, count, table_at) = blocks(bytes)[1];
    let mut changed = bytes.to_vec();
    // The block's first slug's first byte, made uppercase: a valid slug no more, and not its digest.
    changed[table_at] = changed[table_at].to_ascii_uppercase();
    let dir = temp(name);
    let file = dir.join("catalog.fcat");
    std::fs::write(&file, &changed).expect("write");
    let cache = foundry_catalog_serving::catalog::BodyCache::default();
    let options = foundry_catalog_serving::catalog::OpenOptions::default().body_cache(cache.clone());
    let catalog = ResponseCatalog::open_with(&file, &options).expect("what start-up reads is whole");
    Changed { first, count, dir, cache, catalog }
}

#[test]
fn start_up_reads_no_block_of_products_and_each_is_read_once_when_first_used() {
    let bytes = products(600);
    let blocks = blocks(&bytes);
    assert!(blocks.len() >= 4, "{} blocks", blocks.len());
    let dir = temp("lazy-reads");
    let file = dir.join("catalog.fcat");
    std::fs::write(&file, &bytes).expect("write");
    let catalog = ResponseCatalog::open(&file).expect("opens");
    assert_eq!(catalog.artifact().head_blocks_read(), (0, blocks.len()), "no product's block at start");
    let (_, slugs) = slugs(&bytes);
    assert!(catalog.lookup(&slugs[0]).expect("readable").is_some());
    assert_eq!(catalog.artifact().head_blocks_read().0, 1, "one product: its block");
    assert!(catalog.lookup("no-such-product").expect("readable").is_none());
    assert!(catalog.artifact().head_blocks_read().0 <= 2, "a missing slug reads at most the block its key names");
    assert_eq!(catalog.slugs().len(), 600);
    assert_eq!(catalog.artifact().head_blocks_read(), (blocks.len(), blocks.len()));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A byte of one block's table changed in the file (which the CRC-32 does
/// not cover, and a start-up does not read): that block's products answer
/// an error, every other product is served, and the block is read again at
/// each request, never kept. Each refusal counts as a failure of the
/// catalog's body cache (what a replica repairs its last good file for).
#[test]
fn a_changed_block_is_refused_when_first_used_and_the_others_are_served() {
    let bytes = products(600);
    let Changed { first, count, dir, cache, catalog } = changed_block(&bytes, "lazy-changed");
    let (whole, slugs) = slugs(&bytes);
    let mut refused = 0;
    for slug in &slugs {
        match catalog.lookup(slug) {
            Err(error) => {
                assert!(error.to_string().contains("does not match its digest"), "{error}");
                assert!(catalog.get(slug).is_none(), "{slug}: refused by `get` too");
                // The endpoint answers 503, GET and HEAD, never 404 nor a 200 without its ETag.
                let path = format!("/api/public/foundry/products/{slug}");
                for method in ["GET", "HEAD"] {
                    let reply = answer(&catalog, &Request::new(method, &path));
                    assert_eq!((reply.status, reply.etag), (503, None), "{method} {path}");
                }
                refused += 1;
            }
            Ok(found) => {
                let entry = found.expect("served");
                assert_eq!(entry.body().expect("checked"), whole.get(slug).expect("there").body().expect("checked"));
            }
        }
    }
    assert_eq!(refused, count, "the products of the changed block (from entry {first}), and no other");
    // A lookup each, `get`, GET and HEAD.
    assert_eq!(cache.failures(), 4 * count as u64, "every refusal counted");
    let (read, all) = catalog.artifact().head_blocks_read();
    assert_eq!(read + 1, all, "every block but the changed one is kept");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A slug directory whose entries name each other's products (keys in
/// order, every product once, its digest in the metadata and the CRC-32
/// made good, as an unsigned file can be made): the products it misplaces
/// are refused when their block is checked, read whole or a block at a
/// time, never served under another's slug.
#[test]
fn a_directory_that_names_another_entry_is_refused() {
    use sha2::Digest;
    let bytes = products(3);
    let at = HEADER + length(&bytes, 16) + length(&bytes, 24) + length(&bytes, 32);
    let mut swapped = bytes.clone();
    // The first two entries' numbers swapped.
    let (first, second) = (at + 16..at + 20, at + 36..at + 40);
    let number = bytes[first.clone()].to_vec();
    swapped.copy_within(second.clone(), first.start);
    swapped[second].copy_from_slice(&number);
    let stated = hex::encode(sha2::Sha256::digest(&bytes[at..at + 60]));
    let made = hex::encode(sha2::Sha256::digest(&swapped[at..at + 60]));
    let digest_at = swapped.windows(64).position(|w| w == stated.as_bytes()).expect("the directory's digest");
    swapped[digest_at..digest_at + 64].copy_from_slice(made.as_bytes());
    let swapped = crate::catalog::with_checksum(swapped);
    let whole = Artifact::parse(swapped.clone().into()).and_then(ResponseCatalog::from_artifact);
    let error = whole.expect_err("read whole").to_string();
    assert!(error.contains("is not where the slug directory finds it"), "{error}");
    let dir = temp("lazy-directory");
    let file = dir.join("catalog.fcat");
    std::fs::write(&file, &swapped).expect("write");
    let catalog = ResponseCatalog::open(&file).expect("what start-up reads is consistent");
    let (_, slugs) = slugs(&bytes);
    for slug in &slugs {
        let error = catalog.lookup(slug).expect_err("its block fails its checks").to_string();
        assert!(error.contains("is not where the slug directory finds it"), "{slug}: {error}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// A page whose product's block fails its digest is unavailable (503),
/// and each such lookup counts as a failure of the body cache, as a
/// product's does: what a replica repairs its last good artifact for.
#[cfg(feature = "pages")]
#[test]
fn a_page_in_a_changed_block_is_unavailable_and_counted() {
    use foundry_catalog_serving::catalog::SiteResource;
    let sources = (0..600).map(|n| manifest(n, &format!("Product {n}")));
    let bytes = Builder::new().pages(crate::pages::pages("https://catalog.example.com")).build(sources);
    let bytes = bytes.expect("builds").artifact().to_vec();
    let Changed { first, count, dir, cache, catalog } = changed_block(&bytes, "lazy-changed-page");
    let (whole, _) = slugs(&bytes);
    let paths = whole.page_paths();
    assert!(paths.len() > 600, "a page a product, and the list pages");
    let mut unavailable = 0;
    for path in &paths {
        match catalog.site_resource(path) {
            Some(SiteResource::Unavailable) => unavailable += 1,
            Some(SiteResource::Page(_) | SiteResource::Document(_)) => {}
            _ => panic!("{path}: neither served nor unavailable"),
        }
    }
    assert_eq!(unavailable, count, "the pages of the changed block (from entry {first}), and no other");
    assert_eq!(cache.failures(), count as u64, "every unavailable page counted");
    let _ = std::fs::remove_dir_all(&dir);
}
