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
//! one definition edited. The same comparison built like a build script
//! (opt-level 0) is `cargo run -p foundry-catalog-benches --bin side-by-side-debug`.

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` passes nothing
    // and gets a one-round smoke run.
    let quick = !std::env::args().any(|a| a == "--bench");
    let rounds = |types: usize| if quick { 1 } else { (2000 / types).clamp(7, 41) };
    print!("{}", foundry_catalog_benches::side_by_side("release", &[10, 100, 1000], rounds));
}
