//! Our generator and typify side by side on the same shapes, in one
//! process, alternating (release profile), then the incremental case:
//!
//! ```text
//! cargo bench -p foundry-catalog-benches --bench side_by_side
//! ```
//!
//! 10, 100 and 1,000 synthetic record types of 20 fields (the definitions
//! of `generate.rs`; for typify the same shapes as JSON Schemas, formatted
//! with prettyplease as typify's build-script recipe does). Prints the
//! time per record type of each and the ratio, on one thread and on all
//! cores; then a folder of 1,000 definitions generated cold and warm with
//! one definition edited. A full run (not the smoke run of `cargo test
//! --benches`) writes the generation medians to
//! `benches/results/side-by-side.csv`, from which `benches/charts.py` draws
//! BENCHMARKS.md's chart and table. The same comparison built like a build
//! script (opt-level 0) is `cargo run -p foundry-catalog-benches --bin side-by-side-debug`.

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` passes nothing
    // and gets a one-round smoke run.
    let quick = !std::env::args().any(|a| a == "--bench");
    let rounds = |types: usize| if quick { 1 } else { (2000 / types).clamp(7, 41) };
    let measured = foundry_catalog_benches::side_by_side("release", &[10, 100, 1000], rounds);
    print!("{}", measured.tables);
    if !quick {
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/results/side-by-side.csv");
        let csv = format!("{}{}", foundry_catalog_benches::SIDE_BY_SIDE_CSV, measured.csv);
        std::fs::write(path, csv).unwrap_or_else(|e| panic!("cannot write {path}: {e}"));
        eprintln!("wrote {path}; `python3 benches/charts.py` redraws BENCHMARKS.md");
    }
}
