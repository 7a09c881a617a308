//! What a product page costs beside the product's JSON body, per product
//! of the example catalog, side by side in one run: the body as a build
//! makes it (`ProductResponse::body`: serialized and validated against
//! the spec), the page with the default templates (`Pages::product`:
//! JSON-LD, the template context and minijinja, with four related
//! products), and the page's sitemap entry. Pages are built once per catalog build, so the ratio of the
//! first two is what pages add to a build before compression (and the
//! compressors then see a page about as large as the body).
//!
//! ```text
//! cargo bench -p foundry-catalog-benches --bench pages
//! ```

use foundry_catalog::examples::MANIFESTS;
use foundry_catalog::product::{ProductManifest, ProductRecord};
use foundry_catalog::response::ProductResponse;
use foundry_catalog_pages::list::{Card, Cards};
use foundry_catalog_pages::{Pages, Site, sitemap};

fn main() {
    divan::main();
}

fn records() -> Vec<ProductRecord> {
    MANIFESTS
        .iter()
        .map(|(_, text)| ProductManifest::from_json(text).expect("reads").build().expect("builds"))
        .collect()
}

#[divan::bench]
fn json_body(bencher: divan::Bencher) {
    let records = records();
    bencher.counter(divan::counter::ItemsCount::new(records.len())).bench(|| {
        for record in &records {
            divan::black_box(ProductResponse::body(record, &[]).expect("valid"));
        }
    });
}

#[divan::bench]
fn html_page(bencher: divan::Bencher) {
    let records = records();
    let pages = Pages::new(Site::new("https://catalog.example.com").expect("a site"));
    // Eight more products beside each, so that every page has its four
    // related products.
    let cards = Cards::new(records.iter().filter_map(Card::of).flat_map(|card| {
        let more: Vec<Card> = (0..8).map(|n| Card { path: format!("{}-{n}", card.path), ..card.clone() }).collect();
        more.into_iter().chain([card])
    }));
    bencher.counter(divan::counter::ItemsCount::new(records.len())).bench(|| {
        for record in &records {
            divan::black_box(pages.product(record, &cards).expect("renders"));
        }
    });
}

#[divan::bench]
fn sitemap_entry(bencher: divan::Bencher) {
    let records = records();
    bencher.counter(divan::counter::ItemsCount::new(records.len())).bench(|| {
        for record in &records {
            divan::black_box(sitemap::Entry::of(record));
        }
    });
}
