//! Generates `$OUT_DIR/records.rs` from `record-types/*.json`.
//!
//! Thin on purpose: it finds the definition files, calls the generator,
//! writes the result only when its bytes change and prints the `cargo:`
//! lines. Everything else is in `src/codegen/`, compiled in below and
//! tested through the library.

use std::path::PathBuf;
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

/// The definitions folder, relative to the crate root.
const DEFINITIONS: &str = "record-types";
/// The generated file, in `OUT_DIR`.
const OUTPUT: &str = "records.rs";
/// Every source file compiled into this script (see the `#[path]`s above).
const COMPILED_IN: &[&str] = &["src/codegen", "src/fixture.rs", "src/hash.rs", "src/model.rs"];

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(errors) => {
            // rustc's format; cargo shows this when the build fails.
            eprintln!("{errors}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), codegen::Errors> {
    for path in COMPILED_IN {
        println!("cargo:rerun-if-changed={path}");
    }
    println!("cargo:rerun-if-changed={DEFINITIONS}");
    let root = env_path("CARGO_MANIFEST_DIR")?;
    let out_dir = env_path("OUT_DIR")?;

    let files = codegen::files::definition_files(&root, DEFINITIONS)?;
    for file in &files {
        println!("cargo:rerun-if-changed={file}");
    }
    let sources = codegen::files::read_sources(&root, &files).map_err(codegen::Errors)?;
    let code = codegen::Generator::new().runtime_path("crate").generate(&sources)?;
    let output = out_dir.join(OUTPUT);
    codegen::files::write_if_changed(&output, code.as_bytes()).map_err(|e| codegen::DefinitionError::Read {
        file: output.display().to_string(),
        reason: format!("cannot write generated code: {e}"),
    })?;
    Ok(())
}

fn env_path(name: &str) -> Result<PathBuf, codegen::DefinitionError> {
    std::env::var_os(name).map(PathBuf::from).ok_or_else(|| codegen::DefinitionError::Read {
        file: format!("${name}"),
        reason: "cargo did not set this variable; run the build through cargo".to_owned(),
    })
}
