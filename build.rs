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

/// The default catalog compiled into the library (`ResponseCatalog::embedded`).
const CATALOG: &str = "examples/catalog";

fn main() -> ExitCode {
    for path in COMPILED_IN {
        println!("cargo:rerun-if-changed={path}");
    }
    if let Err(errors) = embed_catalog() {
        eprintln!("{errors}");
        return ExitCode::FAILURE;
    }
    // Inside this crate the generated code names the library `crate`.
    codegen::Generator::new().runtime_path("crate").build_script("record-types", "records.rs")
}

/// Writes `$OUT_DIR/default_catalog.rs`: every manifest in `examples/catalog`
/// as a `(path, contents)` pair of string literals. The manifests are
/// checked when the catalog is built at run time (and by the tests).
fn embed_catalog() -> Result<(), codegen::Errors> {
    let root = std::path::PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let out = std::path::PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default());
    println!("cargo:rerun-if-changed={CATALOG}");
    let files = codegen::files::definition_files(&root, CATALOG)?;
    let sources = codegen::files::read_sources(&root, &files).map_err(codegen::Errors)?;
    let mut code = String::from(
        "// @generated from examples/catalog/*.json; do not edit.\n/// Every embedded manifest as (path, contents).\npub static MANIFESTS: &[(&str, &str)] = &[\n",
    );
    for source in &sources {
        println!("cargo:rerun-if-changed={}", source.path);
        let text = String::from_utf8_lossy(&source.bytes);
        code.push_str(&format!("    ({:?}, {:?}),\n", source.path, text));
    }
    code.push_str("];\n");
    codegen::files::write_if_changed(&out.join("default_catalog.rs"), code.as_bytes()).map_err(|e| {
        codegen::Errors(vec![codegen::DefinitionError::Read {
            file: "default_catalog.rs".to_owned(),
            reason: e.to_string(),
        }])
    })?;
    Ok(())
}
