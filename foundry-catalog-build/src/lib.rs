//! # foundry-catalog-build
//!
//! The generator of foundry-catalog: record-type definitions (JSON files)
//! → checked record schemas → Rust source. It is to `foundry-catalog` what
//! `prost-build` is to `prost`: a build-dependency, and the only crate of
//! the workspace that depends on `syn`, `quote` and `prettyplease`.
//!
//! Its public API is [`Generator`] (configure, then [`Generator::check`],
//! [`Generator::generate`] or [`Generator::build_script`]), the [`Source`]
//! it reads, the [`CheckedType`] it returns, and the errors ([`Errors`],
//! [`DefinitionError`], [`Location`]).
//!
//! Inside, one module per step, in pipeline order:
//!
//! | step | module | in → out |
//! |---|---|---|
//! | read | `definition` | bytes → a definition, line:column errors |
//! | check | `check` | definition → [`CheckedType`] (schema, hash, names) |
//! | name | `naming` | wire names → Rust identifiers |
//! | emit | `emit` | checked types → formatted Rust |
//! | files | `files` | folder → sources; output written only on change |
//! | evolve | [`diff`] | two sets of checked types → changes, hash effects, compatibility |
//!
//! The hash and fixture rules live in `foundry-catalog-core`, which the
//! runtime uses too.
//!
//! ```
//! use foundry_catalog_build::{Generator, Source};
//! let definition = r#"{
//!     "record_label": "weather_reading",
//!     "sample_type": "deterministic_executable_fixture",
//!     "fields": [
//!         {"name": "station", "type": "string", "required": true, "description": "Station name."},
//!         {"name": "celsius", "type": "number", "required": false, "description": "Temperature."}
//!     ]
//! }"#;
//! let code = Generator::new().generate(&[Source::new("types/weather_reading.json", definition)]).unwrap();
//! assert!(code.starts_with("// @generated"));
//! assert!(code.contains("pub struct WeatherReading"));
//! ```

#![forbid(unsafe_code)]
#![warn(missing_docs)]

mod check;
mod definition;
pub mod diff;
mod emit;
mod error;
mod files;
mod layout;
mod naming;

pub use check::CheckedType;
pub use definition::MAX_DEFINITION_BYTES;
pub use error::{DefinitionError, Errors, Location};
pub use files::Source;

/// Generates Rust source from record-type definitions, like
/// `prost_build::Config`: it returns the source and writes nothing.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Generator {
    runtime: String,
    threads: usize,
}

impl Default for Generator {
    fn default() -> Self {
        Generator {
            runtime: "::foundry_catalog".to_owned(),
            threads: std::thread::available_parallelism().map_or(1, usize::from),
        }
    }
}

impl Generator {
    /// A generator whose code refers to the runtime as `::foundry_catalog`.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the path by which generated code names the runtime crate
    /// (default `::foundry_catalog`), like `prost-build`'s runtime path: a
    /// crate that renames its dependency, or re-exports the runtime from a
    /// crate of its own, sets it here.
    pub fn runtime_path(mut self, path: impl Into<String>) -> Self {
        self.runtime = path.into();
        self
    }

    /// Sets how many threads format record types (default: the machine's
    /// available parallelism). The output is the same for any count.
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = threads.max(1);
        self
    }

    /// Reads and checks every definition. Sources may come in any order;
    /// they are processed sorted by path. All problems are reported.
    pub fn check(&self, sources: &[Source]) -> Result<Vec<CheckedType>, Errors> {
        let mut sorted: Vec<&Source> = sources.iter().collect();
        sorted.sort_by(|a, b| a.path.cmp(&b.path));
        let mut types = Vec::with_capacity(sorted.len());
        let mut errors = Vec::new();
        for source in sorted {
            match definition::parse(&source.path, &source.bytes) {
                Ok(def) => match check::check(&source.path, def) {
                    Ok(t) => types.push(t),
                    Err(e) => errors.extend(e),
                },
                Err(e) => errors.push(e),
            }
        }
        types.sort_by(|a, b| a.schema.record_label.cmp(&b.schema.record_label).then_with(|| a.file.cmp(&b.file)));
        errors.extend(check::check_set(&types));
        if errors.is_empty() { Ok(types) } else { Err(Errors(errors)) }
    }

    /// Reads, checks and emits every definition as one Rust file.
    pub fn generate(&self, sources: &[Source]) -> Result<String, Errors> {
        let types = self.check(sources)?;
        Ok(emit::file(&types, &self.runtime, self.threads)?)
    }

    /// The whole job of a build script, like `prost_build::compile_protos`:
    /// generates `$OUT_DIR/<output>` from the `*.json` files in
    /// `definitions_dir` (relative to the crate root), printing
    /// `cargo:rerun-if-changed` for the folder and each file, and writing
    /// only when the bytes change. On failure it prints every problem the
    /// way rustc does (`error: <file>:<line>:<column>: …; hint: …`) and
    /// returns a failing exit code; it never panics.
    ///
    /// ```no_run
    /// // build.rs
    /// fn main() -> std::process::ExitCode {
    ///     foundry_catalog_build::Generator::new().build_script("record-types", "records.rs")
    /// }
    /// // src/lib.rs: pub mod records { include!(concat!(env!("OUT_DIR"), "/records.rs")); }
    /// ```
    pub fn build_script(&self, definitions_dir: &str, output: &str) -> std::process::ExitCode {
        match self.compile_dir(definitions_dir, output) {
            Ok(()) => std::process::ExitCode::SUCCESS,
            Err(errors) => {
                eprintln!("{errors}");
                std::process::ExitCode::FAILURE
            }
        }
    }

    fn compile_dir(&self, definitions_dir: &str, output: &str) -> Result<(), Errors> {
        let env_path = |name: &str| {
            std::env::var_os(name).map(std::path::PathBuf::from).ok_or_else(|| DefinitionError::Read {
                file: format!("${name}"),
                reason: "cargo did not set this variable; run the build through cargo".to_owned(),
            })
        };
        let root = env_path("CARGO_MANIFEST_DIR")?;
        let out_dir = env_path("OUT_DIR")?;
        println!("cargo:rerun-if-changed={definitions_dir}");
        let names = files::definition_files(&root, definitions_dir)?;
        for name in &names {
            println!("cargo:rerun-if-changed={name}");
        }
        let code = self.generate(&files::read_sources(&root, &names).map_err(Errors)?)?;
        let path = out_dir.join(output);
        files::write_if_changed(&path, code.as_bytes()).map_err(|e| DefinitionError::Read {
            file: path.display().to_string(),
            reason: format!("cannot write generated code: {e}"),
        })?;
        Ok(())
    }
}
