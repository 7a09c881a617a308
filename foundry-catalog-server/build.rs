//! Builds the default catalog, `examples/catalog/*.json`, into an
//! artifact in `$OUT_DIR` with the runtime (a build-dependency), so the
//! server starts from it without building anything, and a bad manifest
//! fails `cargo build` with its file and every problem instead of failing
//! the server's start.

use std::path::Path;
use std::process::ExitCode;

/// The default catalog, relative to this crate.
const CATALOG: &str = "../examples/catalog";

fn main() -> ExitCode {
    println!("cargo:rerun-if-changed={CATALOG}");
    let Ok(entries) = std::fs::read_dir(CATALOG) else {
        eprintln!("error: {CATALOG}: cannot read the default catalog; hint: check that the folder exists");
        return ExitCode::FAILURE;
    };
    let mut names: Vec<String> =
        entries.filter_map(Result::ok).map(|e| e.file_name().to_string_lossy().into_owned()).collect();
    names.sort();
    for name in &names {
        println!("cargo:rerun-if-changed={CATALOG}/{name}");
    }
    let artifact = match foundry_catalog::catalog::Builder::new().build_dir(Path::new(CATALOG)) {
        Ok(artifact) => artifact,
        Err(errors) => {
            eprintln!("{errors}");
            return ExitCode::FAILURE;
        }
    };
    let out = std::env::var_os("OUT_DIR").map(std::path::PathBuf::from).unwrap_or_default().join("default.fcat");
    let bytes = artifact.to_vec();
    if std::fs::read(&out).ok().as_deref() != Some(&bytes[..])
        && let Err(e) = std::fs::write(&out, bytes)
    {
        eprintln!("error: {}: cannot write the default catalog: {e}", out.display());
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}
