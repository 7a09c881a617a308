//! Benchmarks of foundry-catalog live in `generate.rs` and `serve.rs`
//! (`cargo bench -p foundry-catalog-benches`); this crate has no library code.
