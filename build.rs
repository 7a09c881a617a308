//! Generates `$OUT_DIR/records.rs` from `record-types/*.json`.
//!
//! Thin on purpose: everything is in `src/codegen/`, compiled in below and
//! tested through the library. A broken definition fails the build with
//! `error: record-types/<file>.json:<line>:<column>: …; hint: …`.

use std::process::ExitCode;

// The generator and the hash and fixture rules it uses are the library's
// own source files, compiled in here so there is one copy of each. Parts
// only the library calls are unused here.
#[allow(dead_code, unused_imports)]
#[path = "src/codegen/mod.rs"]
mod codegen;
#[allow(dead_code)]
#[path = "src/fixture.rs"]
mod fixture;
#[allow(dead_code)]
#[path = "src/hash.rs"]
mod hash;
#[allow(dead_code)]
#[path = "src/model.rs"]
mod model;

/// Every source file compiled into this script (see the `#[path]`s above).
const COMPILED_IN: &[&str] = &["src/codegen", "src/fixture.rs", "src/hash.rs", "src/model.rs"];

fn main() -> ExitCode {
    for path in COMPILED_IN {
        println!("cargo:rerun-if-changed={path}");
    }
    // Inside this crate the generated code names the library `crate`.
    codegen::Generator::new().runtime_path("crate").build_script("record-types", "records.rs")
}
