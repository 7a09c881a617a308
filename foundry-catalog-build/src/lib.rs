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
//! | emit | `emit` | checked types → Rust text, formatted as prettyplease formats it (`layout`) |
//! | reuse | `cache` | each definition's code, kept while its bytes are unchanged |
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

mod cache;
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
    cache: Option<std::path::PathBuf>,
}

impl Default for Generator {
    fn default() -> Self {
        Generator {
            runtime: "::foundry_catalog".to_owned(),
            threads: std::thread::available_parallelism().map_or(1, usize::from),
            cache: None,
        }
    }
}

/// A definition on its way to the output: generated now, or taken from the cache.
enum Unit<'a> {
    Fresh(CheckedType, &'a Source),
    Cached(&'a Source, cache::Entry),
}

impl Unit<'_> {
    fn file(&self) -> &str {
        match self {
            Unit::Fresh(t, _) => &t.file,
            Unit::Cached(source, _) => &source.path,
        }
    }

    fn label(&self) -> &str {
        match self {
            Unit::Fresh(t, _) => &t.schema.record_label,
            Unit::Cached(_, entry) => entry.record_label(),
        }
    }

    fn type_name(&self) -> &str {
        match self {
            Unit::Fresh(t, _) => &t.type_name,
            Unit::Cached(_, entry) => entry.type_name(),
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

    /// Sets how many threads generate record types (default: the machine's
    /// available parallelism). The output is the same for any count.
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = threads.max(1);
        self
    }

    /// Keeps each definition's generated code in `dir` and reuses it while
    /// the definition's bytes, its path, the runtime path and the generator
    /// are unchanged, so editing one definition among many regenerates only
    /// that one. The output is the same bytes with or without the cache.
    /// [`Generator::build_script`] uses `$OUT_DIR/<output>.cache` unless
    /// this is set. An entry that does not match (stale, foreign, damaged)
    /// is ignored and replaced; entries of definitions that are gone are
    /// removed; a cache that cannot be written only costs time.
    pub fn cache_dir(mut self, dir: impl Into<std::path::PathBuf>) -> Self {
        self.cache = Some(dir.into());
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
            match read_and_check(source) {
                Ok(t) => types.push(t),
                Err(e) => errors.extend(e),
            }
        }
        types.sort_by(|a, b| a.schema.record_label.cmp(&b.schema.record_label).then_with(|| a.file.cmp(&b.file)));
        errors.extend(check::check_set(
            types.iter().map(|t| (t.file.as_str(), &*t.schema.record_label, t.type_name.as_str())),
        ));
        if errors.is_empty() { Ok(types) } else { Err(Errors(errors)) }
    }

    /// Reads, checks and emits every definition as one Rust file. It
    /// returns the source and writes nothing, except the entries of the
    /// cache when [`Generator::cache_dir`] is set.
    pub fn generate(&self, sources: &[Source]) -> Result<String, Errors> {
        let runtime = emit::runtime_path(&self.runtime)?;
        let cache = self.cache.as_deref().and_then(|dir| cache::Cache::new(dir, &runtime));
        let mut sorted: Vec<&Source> = sources.iter().collect();
        sorted.sort_by(|a, b| a.path.cmp(&b.path));
        // Reading entries is file system work: spread over the threads too.
        let cached = match &cache {
            Some(cache) => emit::in_parallel(&sorted, self.threads, |s| Ok(cache.get(&s.path, &s.bytes)))?,
            None => Vec::new(),
        };
        let mut cached = cached.into_iter();
        let mut units = Vec::with_capacity(sorted.len());
        let mut errors = Vec::new();
        for source in &sorted {
            if let Some(entry) = cached.next().flatten() {
                units.push(Unit::Cached(source, entry));
                continue;
            }
            match read_and_check(source) {
                Ok(t) => units.push(Unit::Fresh(t, source)),
                Err(e) => errors.extend(e),
            }
        }
        units.sort_by(|a, b| a.label().cmp(b.label()).then_with(|| a.file().cmp(b.file())));
        errors.extend(check::check_set(units.iter().map(|u| (u.file(), u.label(), u.type_name()))));
        if !errors.is_empty() {
            return Err(Errors(errors));
        }
        let fresh: Vec<(&CheckedType, &Source)> = units
            .iter()
            .filter_map(|u| match u {
                Unit::Fresh(t, source) => Some((t, *source)),
                Unit::Cached(..) => None,
            })
            .collect();
        let fresh_code = emit::in_parallel(&fresh, self.threads, |(t, source)| {
            let code = emit::record_type(t, &runtime)?;
            if let Some(cache) = &cache {
                let entry =
                    cache::EntryRef { record_label: &t.schema.record_label, type_name: &t.type_name, code: &code };
                cache.put(&source.path, &source.bytes, entry);
            }
            Ok(code)
        })?;
        let mut fresh_code = fresh_code.into_iter();
        let mut pieces: Vec<std::borrow::Cow<'_, str>> = Vec::with_capacity(units.len());
        for unit in &units {
            match unit {
                Unit::Cached(_, entry) => pieces.push(entry.code().into()),
                Unit::Fresh(t, _) => {
                    let code = fresh_code.next().ok_or_else(|| DefinitionError::Internal {
                        file: t.file.clone(),
                        message: "a record type was not generated".to_owned(),
                    })?;
                    pieces.push(code.into());
                }
            }
        }
        if let Some(cache) = &cache {
            cache.retain(&sorted.iter().map(|s| s.path.as_str()).collect::<Vec<_>>());
        }
        let registry = emit::registry(units.iter().map(Unit::type_name), &runtime);
        Ok(emit::join(units.iter().map(Unit::file), &pieces, &registry))
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
        let generator = match &self.cache {
            Some(_) => self.clone(),
            None => self.clone().cache_dir(out_dir.join(format!("{output}.cache"))),
        };
        let code = generator.generate(&files::read_sources(&root, &names).map_err(Errors)?)?;
        let path = out_dir.join(output);
        files::write_if_changed(&path, code.as_bytes()).map_err(|e| DefinitionError::Read {
            file: path.display().to_string(),
            reason: format!("cannot write generated code: {e}"),
        })?;
        Ok(())
    }
}

/// Reads and checks one definition.
fn read_and_check(source: &Source) -> Result<CheckedType, Vec<DefinitionError>> {
    let definition = definition::parse(&source.path, &source.bytes).map_err(|e| vec![e])?;
    check::check(&source.path, definition)
}
