//! Generates code for `tests/corpus/good/*.json` the way a user's build
//! script would: through the library, with the default runtime path
//! `::foundry_catalog`.

use std::path::PathBuf;
use std::process::ExitCode;

use foundry_catalog::codegen::{Errors, Generator, files};

const CORPUS: &str = "../corpus/good";

fn main() -> ExitCode {
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(errors) => {
            eprintln!("{errors}");
            ExitCode::FAILURE
        }
    }
}

fn run() -> Result<(), Errors> {
    let root = PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_default());
    let out = PathBuf::from(std::env::var_os("OUT_DIR").unwrap_or_default());
    println!("cargo:rerun-if-changed={CORPUS}");
    let names = files::definition_files(&root, CORPUS)?;
    for name in &names {
        println!("cargo:rerun-if-changed={name}");
    }
    let sources = files::read_sources(&root, &names).map_err(Errors)?;
    let code = Generator::new().generate(&sources)?;
    files::write_if_changed(&out.join("corpus.rs"), code.as_bytes()).map_err(|e| {
        foundry_catalog::codegen::DefinitionError::Read { file: "corpus.rs".into(), reason: e.to_string() }
    })?;
    Ok(())
}
