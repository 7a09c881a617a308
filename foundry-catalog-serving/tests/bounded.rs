//! Bounded before trusted: an artifact whose summary claims 40 million
//! products (a head of gigabytes) and fails its signature is refused
//! having taken at most 64 MiB of memory, read from a file or pulled
//! from an origin, with or without a last good artifact to pull a delta
//! of; read from a file without a verify key, it is refused by its CRC,
//! checked as its head is read, within the same bound. Memory is what this test binary's allocator was asked for (its
//! own binary, so no other test's allocations count).

#![cfg(feature = "replica")]

use std::alloc::{GlobalAlloc, Layout, System};
use std::io::{Read, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};

use foundry_catalog_serving::catalog::{Builder, OpenOptions, ResponseCatalog};
use foundry_catalog_serving::replica::{Replica, Settings};
use foundry_catalog_serving::signing::SigningKey;

/// The system allocator, counting what is held and the most held since
/// the last [`reset_peak`].
struct Counting;

static HELD: AtomicUsize = AtomicUsize::new(0);
static PEAK: AtomicUsize = AtomicUsize::new(0);

// SAFETY: every call is passed to the system allocator unchanged.
unsafe impl GlobalAlloc for Counting {
    unsafe fn alloc(&self, layout: Layout) -> *mut u8 {
        let held = HELD.fetch_add(layout.size(), Ordering::Relaxed) + layout.size();
        PEAK.fetch_max(held, Ordering::Relaxed);
        // SAFETY: the caller's layout, as given.
        unsafe { System.alloc(layout) }
    }

    unsafe fn dealloc(&self, ptr: *mut u8, layout: Layout) {
        HELD.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: allocated by `alloc` with this layout.
        unsafe { System.dealloc(ptr, layout) }
    }

    unsafe fn realloc(&self, ptr: *mut u8, layout: Layout, new_size: usize) -> *mut u8 {
        let held = HELD.fetch_add(new_size, Ordering::Relaxed) + new_size;
        PEAK.fetch_max(held, Ordering::Relaxed);
        HELD.fetch_sub(layout.size(), Ordering::Relaxed);
        // SAFETY: allocated by `alloc` with this layout.
        unsafe { System.realloc(ptr, layout, new_size) }
    }
}

#[global_allocator]
static ALLOCATOR: Counting = Counting;

/// Held by each test while it runs, so that no other test's allocations
/// count in its peak (the tests of a binary run on threads of one
/// process, and the counter is the process's).
static ONE_AT_A_TIME: Mutex<()> = Mutex::new(());

/// [`ONE_AT_A_TIME`], taken (a test that failed while holding it left
/// nothing the next one reads).
fn alone() -> std::sync::MutexGuard<'static, ()> {
    ONE_AT_A_TIME.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

/// What is held now, made the peak.
fn reset_peak() -> usize {
    let held = HELD.load(Ordering::Relaxed);
    PEAK.store(held, Ordering::Relaxed);
    held
}

/// The most held above `base` since [`reset_peak`].
fn peak_above(base: usize) -> usize {
    PEAK.load(Ordering::Relaxed).saturating_sub(base)
}

const BOUND: usize = 64 << 20;
const CLAIMED: u64 = 40_000_000;

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../examples/catalog")
}

/// The example catalog, signed by `key`, as an artifact file's bytes.
fn signed(key: &SigningKey, sequence: u64) -> Vec<u8> {
    let mut catalog = Builder::new().sequence(sequence).build_dir(&examples()).expect("the example catalog");
    catalog.sign(key);
    let mut bytes = Vec::new();
    catalog.artifact().write_to(&mut bytes).expect("written");
    bytes
}

/// The header's length, and where it gives each region's length:
/// metadata, signature, block list, slug directory, index, table, bodies.
const HEADER: usize = 72;
const LENGTHS: [usize; 7] = [16, 24, 32, 40, 48, 56, 64];

fn le_u64(bytes: &[u8], at: usize) -> u64 {
    u64::from_le_bytes(bytes[at..at + 8].try_into().expect("8 bytes"))
}

/// A sparse file whose summary is `real`'s with its metadata claiming
/// `claimed_products` products (its signature, `real`'s, no longer matches): a
/// slug directory, an index and a table of gigabytes, in blocks of 256
/// entries, no bodies.
fn claiming(real: &[u8], path: &Path, claimed_products: u64) -> u64 {
    let [meta_len, signature_len, _, _, index_len, _, _] = LENGTHS.map(|at| le_u64(real, at));
    let metadata: serde_json::Value =
        serde_json::from_slice(&real[HEADER..HEADER + meta_len as usize]).expect("metadata");
    let products = metadata["products"].as_u64().expect("a count");
    assert!(metadata.get("pages").is_none_or(serde_json::Value::is_null), "no site documents in the index");
    let entry_len = index_len / products;
    let mut claimed = metadata.clone();
    claimed["products"] = serde_json::json!(claimed_products);
    let claimed = serde_json::to_vec(&claimed).expect("JSON");
    let (index_len, table_len) = (claimed_products * entry_len, claimed_products * 50);
    let mut head = Vec::new();
    head.extend_from_slice(&real[..16]);
    // Blocks of 256 entries, the most a block holds.
    assert_eq!(claimed_products % 256, 0, "whole blocks");
    let blocks = claimed_products / 256;
    let lengths = [claimed.len() as u64, signature_len, blocks * 48, claimed_products * 20, index_len, table_len, 0];
    for len in lengths {
        head.extend_from_slice(&len.to_le_bytes());
    }
    head.extend_from_slice(&claimed);
    let signature_at = HEADER + meta_len as usize;
    head.extend_from_slice(&real[signature_at..signature_at + signature_len as usize]);
    for _ in 0..blocks {
        head.extend_from_slice(&256_u32.to_le_bytes());
        head.extend_from_slice(&u32::try_from(table_len / blocks).expect("u32").to_le_bytes());
        head.extend_from_slice(&0_u64.to_le_bytes());
        head.extend_from_slice(&[0; 32]);
    }
    let total = HEADER as u64 + lengths.iter().sum::<u64>();
    let file = std::fs::File::create(path).expect("created");
    file.write_all_at(&head, 0).expect("written");
    file.set_len(total).expect("sparse");
    total
}

/// An origin on loopback serving a file (a strong ETag per publication,
/// `If-None-Match`, `Range` with `If-Range`), read from disk as asked.
fn origin() -> (String, Arc<Mutex<(PathBuf, u32)>>) {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/catalog.fcat", listener.local_addr().expect("address"));
    let published = Arc::new(Mutex::new((PathBuf::new(), 0)));
    let shared = Arc::clone(&published);
    std::thread::spawn(move || {
        for mut stream in listener.incoming().map_while(Result::ok) {
            let mut head = Vec::new();
            let mut byte = [0; 1];
            while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).is_ok_and(|n| n == 1) {
                head.push(byte[0]);
            }
            let head = String::from_utf8_lossy(&head).to_lowercase();
            let (path, version) = shared.lock().expect("published").clone();
            let etag = format!("\"v{version}\"");
            let file = std::fs::File::open(&path).expect("published file");
            let total = file.metadata().expect("metadata").len();
            let header = |name: &str| head.lines().find_map(|line| line.strip_prefix(name)).map(str::trim);
            if header("if-none-match:").is_some_and(|tags| tags.split(',').any(|tag| tag.trim() == etag)) {
                let _ = write!(stream, "HTTP/1.1 304 Not Modified\r\netag: {etag}\r\nconnection: close\r\n\r\n");
                continue;
            }
            let range = header("range:")
                .filter(|_| header("if-range:").is_none_or(|tag| tag == etag))
                .and_then(|value| value.strip_prefix("bytes="))
                .and_then(|value| value.split_once('-'))
                .and_then(|(first, last)| Some((first.parse::<u64>().ok()?, last.parse::<u64>().ok()?)))
                .map(|(first, last)| (first, last.min(total - 1)));
            let (first, last) = range.unwrap_or((0, total - 1));
            let status = if range.is_some() {
                format!("206 Partial Content\r\ncontent-range: bytes {first}-{last}/{total}")
            } else {
                "200 OK".to_owned()
            };
            let len = last + 1 - first;
            let sent = write!(
                stream,
                "HTTP/1.1 {status}\r\ncontent-length: {len}\r\netag: {etag}\r\nconnection: close\r\n\r\n"
            );
            let mut at = first;
            let mut chunk = vec![0; 64 << 10];
            while sent.is_ok() && at <= last {
                let n = chunk.len().min((last + 1 - at) as usize);
                if file.read_exact_at(&mut chunk[..n], at).is_err() || stream.write_all(&chunk[..n]).is_err() {
                    break;
                }
                at += n as u64;
            }
        }
    });
    (url, published)
}

#[test]
fn a_summary_that_fails_its_signature_costs_at_most_64_mib_from_a_file_or_an_origin() {
    let _alone = alone();
    let dir = std::env::temp_dir().join(format!("foundry-catalog-bounded-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("made");
    let key = SigningKey::from_seed([3; 32]);
    let open = OpenOptions::default().verify_keys(vec![key.verify_key()]);
    let real = signed(&key, 1);
    let hostile = dir.join("claims-40m.fcat");
    let claimed = claiming(&real, &hostile, CLAIMED);
    assert!(claimed > 3 << 30, "a head of {claimed} bytes claimed");

    // A file.
    let base = reset_peak();
    let error = ResponseCatalog::open_with(&hostile, &open).expect_err("refused");
    let peak = peak_above(base);
    eprintln!("a file, verify key: {peak} bytes taken before the refusal");
    assert!(error.to_string().contains("signature does not match"), "{error}");
    assert!(peak <= BOUND, "{peak} bytes taken before refusing a file");

    // A file, without a verify key: its claims are checked against its
    // CRC as its head is read, before memory is taken for them.
    // (A tenth of the claim: what is read is its length, zeros here.)
    let smaller = dir.join("claims-4m.fcat");
    claiming(&real, &smaller, CLAIMED / 10);
    let base = reset_peak();
    let error = ResponseCatalog::open_with(&smaller, &OpenOptions::default()).expect_err("refused");
    let peak = peak_above(base);
    eprintln!("a file, no verify key: {peak} bytes taken before the refusal");
    assert!(error.to_string().contains("checksum mismatch"), "{error}");
    assert!(peak <= BOUND, "{peak} bytes taken before refusing a file without a verify key");

    // An origin, with no last good artifact: a whole download, judged by its summary.
    let (url, published) = origin();
    *published.lock().expect("published") = (hostile.clone(), 1);
    let replica = Replica::open(&url, &dir.join("state"), Settings::default()).expect("state folder");
    let base = reset_peak();
    let error = replica.start(&open).expect_err("refused");
    let peak = peak_above(base);
    eprintln!("an origin, whole: {peak} bytes taken before the refusal");
    assert!(error.to_string().contains("signature does not match"), "{error}");
    assert!(peak <= BOUND, "{peak} bytes taken before refusing an origin's artifact");
    assert!(replica.counters().fetched_bytes() < BOUND as u64, "{} bytes fetched", replica.counters().fetched_bytes());

    // An origin, without a verify key: a whole download's head is checked
    // against its CRC as it is written, before memory is taken for it.
    *published.lock().expect("published") = (smaller.clone(), 9);
    let unsigned = Replica::open(&url, &dir.join("state-unsigned"), Settings::default()).expect("state folder");
    let base = reset_peak();
    let error = unsigned.start(&OpenOptions::default()).expect_err("refused");
    let peak = peak_above(base);
    eprintln!("an origin, whole, no verify key: {peak} bytes taken before the refusal");
    assert!(error.to_string().contains("checksum mismatch"), "{error}");
    assert!(peak <= BOUND, "{peak} bytes taken before refusing an origin's artifact without a verify key");

    // An origin, with a last good artifact: a delta, judged by its summary.
    let good = dir.join("good.fcat");
    std::fs::write(&good, &real).expect("written");
    *published.lock().expect("published") = (good, 2);
    let catalog = replica.start(&open).expect("the good artifact");
    *published.lock().expect("published") = (hostile, 3);
    let fetched = replica.counters().fetched_bytes();
    let base = reset_peak();
    let error = replica.pull(&open, Some(&catalog)).expect_err("refused");
    let peak = peak_above(base);
    eprintln!("an origin, delta: {peak} bytes taken before the refusal");
    assert!(error.to_string().contains("signature does not match"), "{error}");
    assert!(peak <= BOUND, "{peak} bytes taken before refusing a delta");
    assert!(replica.counters().fetched_bytes() - fetched < BOUND as u64);
    let _ = std::fs::remove_dir_all(&dir);
}

/// With no size limit set, what a whole download's bodies take is what
/// signed bytes say: an artifact whose header claims 2 GiB more bodies
/// than its head's index adds up to is refused once its head is fetched,
/// not after the bodies it claims, whether its CRC-32 was left alone or
/// fixed up so that only the index can tell.
#[test]
fn a_header_claiming_more_bodies_than_its_head_is_refused_before_the_bodies() {
    let _alone = alone();
    let dir = std::env::temp_dir().join(format!("foundry-catalog-claimed-bodies-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("made");
    let key = SigningKey::from_seed([4; 32]);
    let open = OpenOptions::default().verify_keys(vec![key.verify_key()]);
    assert_eq!(open.max_len, u64::MAX, "no size limit by default");
    let real = signed(&key, 1);
    let lengths = LENGTHS.map(|at| le_u64(&real, at));
    // The CRC-32 covers the head up to the index.
    let index_at = HEADER + lengths[..4].iter().sum::<u64>() as usize;
    const EXTRA: u64 = 2 << 30;
    let (url, published) = origin();
    for (n, fix_crc) in [(1, false), (2, true)] {
        let mut claiming = real.clone();
        claiming[64..72].copy_from_slice(&(lengths[6] + EXTRA).to_le_bytes());
        if fix_crc {
            let crc = crc32fast::hash(&claiming[16..index_at]);
            claiming[12..16].copy_from_slice(&crc.to_le_bytes());
        }
        let path = dir.join(format!("claims-{n}.fcat"));
        let file = std::fs::File::create(&path).expect("created");
        file.write_all_at(&claiming, 0).expect("written");
        file.set_len(real.len() as u64 + EXTRA).expect("sparse");
        *published.lock().expect("published") = (path, n);
        let replica = Replica::open(&url, &dir.join(format!("state-{n}")), Settings::default()).expect("state folder");
        let error = replica.start(&open).expect_err("refused").to_string();
        // The block list, which says where every block's bodies end,
        // is read before the CRC-32 is checked: fixed up or not, the
        // claim is refused there.
        let expected = "belong to no product";
        assert!(error.contains(expected), "{error}");
        let fetched = replica.counters().fetched_bytes();
        assert!(fetched <= real.len() as u64, "{fetched} bytes fetched of an artifact of {} bytes", real.len());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// `count` manifests made from the examples (each with its own slug and
/// title) in `dir/catalog`, which is returned (`dir` is made anew).
fn many_manifests(dir: &Path, count: usize) -> PathBuf {
    let _ = std::fs::remove_dir_all(dir);
    let manifests = dir.join("catalog");
    std::fs::create_dir_all(&manifests).expect("made");
    let mut examples: Vec<serde_json::Value> = std::fs::read_dir(examples())
        .expect("the examples")
        .map(|entry| {
            serde_json::from_slice(&std::fs::read(entry.expect("listed").path()).expect("read")).expect("JSON")
        })
        .collect();
    examples.sort_by(|a, b| a["slug"].as_str().cmp(&b["slug"].as_str()));
    for n in 0..count {
        let mut manifest = examples[n % examples.len()].clone();
        let slug = format!("{}-{n}", manifest["slug"].as_str().expect("a slug"));
        manifest["title"] = serde_json::json!(format!("Product {n}"));
        manifest["slug"] = serde_json::json!(slug);
        std::fs::write(manifests.join(format!("{slug}.json")), manifest.to_string()).expect("written");
    }
    manifests
}

/// A build whose bodies are spooled (`Builder::spool_bodies`, what
/// `build -o` does) holds its head and a block of bodies per thread, not
/// its bodies: its peak stays under half of what the bodies come to, and
/// under half of what the same build holds in memory.
#[test]
fn a_build_spooling_its_bodies_holds_its_head_not_its_bodies() {
    let _alone = alone();
    use foundry_catalog_serving::catalog::ContentCoding;
    let dir = std::env::temp_dir().join(format!("foundry-catalog-spooled-{}", std::process::id()));
    let manifests = many_manifests(&dir, 3000);
    let builder = Builder::new().codings(&[ContentCoding::Identity]).expect("identity");
    let base = reset_peak();
    let in_memory = builder.clone().build_dir(&manifests).expect("builds");
    let held = peak_above(base);
    let bodies = in_memory.artifact().file_len();
    drop(in_memory);
    let base = reset_peak();
    let spooled = builder.spool_bodies(&dir).build_dir(&manifests).expect("builds");
    let spooled_peak = peak_above(base);
    eprintln!("a build of {bodies} bytes: {held} bytes at peak in memory, {spooled_peak} spooled");
    assert!(spooled_peak < bodies as usize / 2, "{spooled_peak} bytes at peak for {bodies} bytes of artifact");
    assert!(spooled_peak < held / 2, "{spooled_peak} bytes at peak spooled, {held} in memory");
    drop(spooled);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A build with pages writes its site documents (list pages, their
/// cards, the sitemap) as it makes them, a few at a time: with one
/// product a list page, 3,000 list pages, its peak stays under what
/// their HTML alone comes to (counted by rendering them apart, with the
/// pages crate itself). Rendered all before any was written, the same
/// build peaked at 2.9 times it.
#[cfg(feature = "pages")]
#[test]
fn a_build_writes_its_site_documents_as_it_makes_them() {
    use foundry_catalog::product::ProductManifest;
    use foundry_catalog_pages::list::{Card, Cards};
    use foundry_catalog_pages::{Pages, Site};
    use foundry_catalog_serving::catalog::ContentCoding;
    let _alone = alone();
    let dir = std::env::temp_dir().join(format!("foundry-catalog-documents-{}", std::process::id()));
    let manifests = many_manifests(&dir, 3000);
    let pages = || Pages::new(Site::new("https://catalog.example.com").expect("a site")).with_page_size(1);
    let records: Vec<_> = std::fs::read_dir(&manifests)
        .expect("listed")
        .map(|entry| {
            let text = std::fs::read_to_string(entry.expect("listed").path()).expect("read");
            ProductManifest::from_json(&text).expect("a manifest").build().expect("a record")
        })
        .collect();
    let cards = Cards::new(records.iter().filter_map(Card::of));
    let lists: usize = pages()
        .list_pages(&cards)
        .expect("rendered")
        .iter()
        .map(|list| list.html.as_ref().map_or(0, String::len))
        .sum();
    let last = format!("/datasets/page/{}", cards.route(foundry_catalog::product::Route::Datasets).len());
    drop((records, cards));
    let builder =
        Builder::new().codings(&[ContentCoding::Identity]).expect("identity").pages(pages()).spool_bodies(&dir);
    let base = reset_peak();
    let catalog = builder.build_dir(&manifests).expect("builds");
    let peak = peak_above(base);
    eprintln!("list pages of {lists} bytes: {peak} bytes at peak");
    assert!(catalog.site_resource(&last).is_some(), "one product a list page: {last}");
    assert!(peak < lists, "{peak} bytes at peak for {lists} bytes of list pages");
    drop(catalog);
    let _ = std::fs::remove_dir_all(&dir);
}
