//! The side-by-side comparison (`benches/side_by_side.rs`) compiled like a
//! build script: in the dev profile, opt-level 0, as a user's `build.rs`
//! and its dependencies are built by default.
//!
//! ```text
//! cargo run -p foundry-catalog-benches --bin side-by-side-debug
//! ```

fn main() {
    let rounds = std::env::args().nth(1).and_then(|a| a.parse().ok()).unwrap_or(3);
    let profile = if cfg!(debug_assertions) { "dev (opt-level 0, as a build script)" } else { "release" };
    print!("{}", foundry_catalog_benches::side_by_side(profile, &[1000], |_| rounds).tables);
}
