//! The site search's index of a catalog of manifests, measured in process
//! (docs/pages.md, "Search"; BENCHMARKS.md, "Search at 100,000 products"):
//! the time to build it, its head's and parts' bytes (as is, gzip level
//! 6 and brotli quality 5, as a build stores them), what one product's
//! edited title changes of it (what a replica fetches for the edit), and
//! the latency of a few queries (p50 and p99 of 1,000 runs after 100).
//!
//!   python3 benches/make-catalog.py 100000 /var/tmp/cat100k
//!   cargo run --release -p foundry-catalog-benches --bin search-index -- /var/tmp/cat100k

use std::time::Instant;

use foundry_catalog::product::ProductManifest;
use foundry_catalog_pages::list::{Card, Cards, PAGE_SIZE};
use foundry_catalog_pages::search::{Query, Search, index};

/// `bytes` as is, in gzip and in brotli, as a build stores them.
fn sizes(bytes: &[u8]) -> (usize, usize, usize) {
    use foundry_catalog_serving::catalog::ContentCoding;
    let len = |coding: ContentCoding| coding.encode(bytes).expect("compression").len();
    (bytes.len(), len(ContentCoding::Gzip), len(ContentCoding::Br))
}

fn main() {
    let dir = std::env::args().nth(1).expect("usage: search-index <MANIFEST_DIR>");
    let mut cards = Vec::new();
    let mut entries: Vec<_> = std::fs::read_dir(&dir).expect("a folder").map(|e| e.expect("an entry").path()).collect();
    entries.sort();
    for path in entries {
        let text = std::fs::read_to_string(&path).expect("a manifest");
        let record = ProductManifest::from_json(&text).expect("a manifest").build().expect("builds");
        cards.extend(Card::of(&record));
    }
    let mut edited = cards.clone();
    let middle = edited.len() / 2;
    edited[middle].title.push_str(" renamed");
    let edited_path = edited[middle].path.clone();
    let (cards, edited) = (Cards::new(cards), Cards::new(edited));
    let start = Instant::now();
    let before = index(&cards, PAGE_SIZE);
    let took = start.elapsed();
    let parts: usize = before.parts.iter().map(Vec::len).sum();
    println!("{} products: index built in {took:.2?}", cards.len());
    println!(
        "head (as is, gzip, brotli): {:?}; {} parts, {parts} bytes as is",
        sizes(&before.head),
        before.parts.len()
    );
    let after = index(&edited, PAGE_SIZE);
    let changed: Vec<usize> = (0..after.parts.len()).filter(|&k| after.parts.get(k) != before.parts.get(k)).collect();
    let fetched: Vec<_> = changed.iter().map(|&k| sizes(&after.parts[k])).collect();
    println!(
        "{edited_path} retitled: head changed: {}; parts changed: {changed:?}, each (as is, gzip, brotli) {fetched:?}",
        after.head != before.head
    );
    let search = Search::open(&before.head[..]).expect("opens");
    let opened: Vec<_> =
        before.parts.iter().enumerate().map(|(k, part)| search.open_part(&part[..], k).expect("opens")).collect();
    for words in ["webhook", "signals", "42", "webhook 42", "monitoring teams", "json"] {
        let query = Query::parse(Some(&format!("q={}", words.replace(' ', "+")))).expect("a query");
        let find = || search.find(&query, |k| Ok(&opened[k])).expect("answers");
        for _ in 0..100 {
            find();
        }
        let mut times: Vec<u128> = (0..1000)
            .map(|_| {
                let start = Instant::now();
                std::hint::black_box(find());
                start.elapsed().as_nanos()
            })
            .collect();
        times.sort_unstable();
        let micros = |n: u128| n as f64 / 1000.0;
        println!(
            "{words:?}: {} matches, p50 {:.1} µs, p99 {:.1} µs",
            find().total,
            micros(times[500]),
            micros(times[990])
        );
    }
}
