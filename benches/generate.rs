//! Generation speed: 10, 100 and 1,000 synthetic record types of 20 fields
//! each, through the whole pipeline (read, check, hash, emit, format) and
//! through read + check alone, to show where the time goes.
//!
//! ```text
//! cargo bench -p foundry-catalog-benches --bench generate
//! ```
//!
//! The per-type cost stays flat from 10 to 1,000 (divan's items/s column).
//! `side_by_side.rs` compares the same shapes with typify.

use divan::Bencher;
use divan::counter::ItemsCount;
use foundry_catalog_benches::synthetic;
use foundry_catalog_build::Generator;

fn main() {
    divan::main();
}

/// Read, check, hash and emit formatted code.
#[divan::bench(args = [10, 100, 1000], sample_count = 10)]
fn generate(bencher: Bencher, types: usize) {
    let sources = synthetic(types);
    let generator = Generator::new();
    bencher
        .counter(ItemsCount::new(types))
        .bench(|| generator.generate(divan::black_box(&sources)).map(|code| code.len()).unwrap_or_default());
}

/// Read and check only (parse, rules, names, hash): the part before emitting.
#[divan::bench(args = [10, 100, 1000], sample_count = 10)]
fn check(bencher: Bencher, types: usize) {
    let sources = synthetic(types);
    let generator = Generator::new();
    bencher
        .counter(ItemsCount::new(types))
        .bench(|| generator.check(divan::black_box(&sources)).map(|types| types.len()).unwrap_or_default());
}
