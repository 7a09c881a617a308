//! # foundry-catalog-build
//!
//! The generator of foundry-catalog: record-type definitions (JSON files)
//! → checked record schemas → Rust source. It is to `foundry-catalog` what
//! `prost-build` is to `prost`: a build-dependency. It writes
//! prettyplease-formatted text itself, so it depends on no `syn`, `quote`
//! or `prettyplease` (its tests hold every byte to prettyplease).
//!
//! Its public API is [`Generator`] (configure — runtime path, threads,
//! [`Generator::derive`], [`Generator::type_attribute`],
//! [`Generator::field_attribute`], [`Generator::strict_readers`] — then [`Generator::check`],
//! [`Generator::generate`], [`Generator::compile`] or
//! [`Generator::build_script`]), the [`Source`] it reads, the
//! [`CheckedType`] and [`Compilation`] it returns, and the errors
//! ([`Errors`], [`DefinitionError`], [`Location`]).
//!
//! Inside, one module per step, in pipeline order:
//!
//! | step | module | in → out |
//! |---|---|---|
//! | read | `definition` | bytes → a definition, every format error with line:column |
//! | place | `positions` | JSON text → the line:column of every value and key |
//! | check | `check` | definition → [`CheckedType`] (schema, hash, and the resolved model) |
//! | resolve | `model` | every struct, enum, variant, field name, Rust type and place of a record type, decided once; what each type can derive |
//! | name | `naming` | wire names → Rust identifiers (for `check`) |
//! | emit | `emit` | the model → Rust text, formatted as prettyplease formats it (`layout`) |
//! | settings | `settings` | derives and attributes for generated types, checked against the model (`proc-macro2`) |
//! | reuse | `cache` | the index of a compiled output: each definition's bytes and where its code lies |
//! | write | `compile` | the output and its shards, each written only on change |
//! | files | `files` | folder → sources; files replaced whole |
//! | evolve | [`diff`] | two sets of checked types → changes, hash effects, compatibility |
//!
//! The hash and fixture rules live in `foundry-catalog-core`, the crate
//! generated code targets, which the records crate uses too.
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
mod compile;
mod definition;
pub mod diff;
mod emit;
mod error;
mod files;
mod layout;
mod model;
mod naming;
mod positions;
mod settings;
mod suggest;

pub use check::CheckedType;
pub use compile::Compilation;
pub use definition::MAX_DEFINITION_BYTES;
pub use error::{DefinitionError, Errors, Location};
pub use files::Source;

/// Generates Rust source from record-type definitions, like
/// `prost_build::Config`: [`Generator::generate`] returns the source,
/// [`Generator::compile`] writes it to a file, incrementally.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Generator {
    runtime: String,
    threads: usize,
    derives: Vec<String>,
    type_attributes: Vec<(String, String)>,
    field_attributes: Vec<(String, String)>,
    strict_readers: bool,
}

impl Default for Generator {
    fn default() -> Self {
        Generator {
            runtime: "::foundry_catalog_core".to_owned(),
            threads: emit::available_threads(),
            derives: Vec::new(),
            type_attributes: Vec::new(),
            field_attributes: Vec::new(),
            strict_readers: false,
        }
    }
}

impl Generator {
    /// A generator whose code names the crate it targets as
    /// `::foundry_catalog_core`.
    pub fn new() -> Self {
        Self::default()
    }

    /// Sets the path by which generated code names the crate it targets
    /// (default `::foundry_catalog_core`), like `prost-build`'s runtime path: a
    /// crate that renames its dependency, or re-exports the core from a
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

    /// Adds a derive to every generated struct and enum, like typify's
    /// `with_derive`: a path such as `"Eq"`, `"Hash"` or
    /// `"schemars::JsonSchema"` (the crate that includes the code must
    /// depend on what it names). A standard derive (`Eq`, `Hash`,
    /// `PartialOrd`, `Ord`, `Default`, `Copy`) that a type's fields cannot
    /// have fails the build naming the type and the field (`Eq` beside an
    /// `f64`); `Ord` needs `Eq` and `PartialOrd` beside it.
    ///
    /// ```
    /// use foundry_catalog_build::{Generator, Source};
    /// let definition = r#"{"record_label": "tally", "sample_type": "deterministic_executable_fixture",
    ///     "fields": [{"name": "count", "type": "integer", "required": true, "description": "How many."}]}"#;
    /// let code = Generator::new().derive("Eq").derive("Hash").generate(&[Source::new("t/tally.json", definition)]).unwrap();
    /// assert!(code.contains("::std::cmp::Eq"));
    /// let money = definition.replace("integer", "number");
    /// let refused = Generator::new().derive("Eq").generate(&[Source::new("t/tally.json", money)]).unwrap_err();
    /// assert!(refused.to_string().contains("`tally.count` is a number (f64)"));
    /// ```
    pub fn derive(mut self, path: impl Into<String>) -> Self {
        self.derives.push(path.into());
        self
    }

    /// Adds attributes (`"#[serde(deny_unknown_fields)]"`, one or more
    /// `#[…]`) to the generated type at `address`, like prost-build's
    /// `type_attribute`: a record type by its label
    /// (`"price_observation"`), a nested object or closed set by the field
    /// names on its path (`"price_observation.seller"`,
    /// `"price_observation.condition"`), a list's items with `[]`
    /// (`"price_observation.offers[]"`). An address that matches nothing,
    /// or text that is not `#[path]`, `#[path = literal]` or `#[path(…)]`,
    /// fails the build naming the setting.
    pub fn type_attribute(mut self, address: impl Into<String>, attribute: impl Into<String>) -> Self {
        self.type_attributes.push((address.into(), attribute.into()));
        self
    }

    /// Adds attributes to the generated field at `address`: its object's
    /// address and its wire name (`"price_observation.seller.name"`). As
    /// [`Generator::type_attribute`] otherwise.
    pub fn field_attribute(mut self, address: impl Into<String>, attribute: impl Into<String>) -> Self {
        self.field_attributes.push((address.into(), attribute.into()));
        self
    }

    /// Makes every generated struct, at every depth, a strict reader:
    /// `#[serde(deny_unknown_fields)]`, so a row with a key its definition
    /// does not name fails to deserialize, as the validator and the row JSON
    /// Schema refuse it. The default is a tolerant reader, which skips
    /// unknown keys (docs/evolution.md); what a strict reader
    /// still leaves to the validator is listed in docs/record-types.md,
    /// "One contract".
    ///
    /// ```
    /// use foundry_catalog_build::{Generator, Source};
    /// let definition = r#"{"record_label": "tally", "sample_type": "deterministic_executable_fixture",
    ///     "fields": [{"name": "count", "type": "integer", "required": true, "description": "How many."}]}"#;
    /// let code = Generator::new().strict_readers(true).generate(&[Source::new("t/tally.json", definition)]).unwrap();
    /// assert!(code.contains("#[serde(deny_unknown_fields)]"));
    /// ```
    pub fn strict_readers(mut self, strict: bool) -> Self {
        self.strict_readers = strict;
        self
    }

    /// The settings, checked on their own.
    fn settings(&self) -> Result<settings::Settings, Errors> {
        settings::Settings::new(&self.derives, &self.type_attributes, &self.field_attributes, self.strict_readers)
            .map_err(Errors)
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
        errors
            .extend(check::check_set(types.iter().map(|t| (t.file.as_str(), &*t.schema.record_label, t.type_name()))));
        match self.settings() {
            Ok(settings) if settings.is_empty() => {}
            Ok(settings) => errors.extend(settings.check(&types.iter().collect::<Vec<_>>(), &Default::default())),
            Err(e) => errors.extend(e.0),
        }
        if errors.is_empty() { Ok(types) } else { Err(Errors(errors)) }
    }

    /// Reads, checks and emits every definition as one Rust file. It
    /// returns the source and writes nothing.
    pub fn generate(&self, sources: &[Source]) -> Result<String, Errors> {
        let runtime = emit::runtime_path(&self.runtime)?;
        let settings = self.settings()?;
        let parts = self.assemble(sources, &runtime, &settings, None)?;
        // Without an index every part is generated now.
        let pieces: Vec<&str> = parts
            .iter()
            .filter_map(|p| match &p.code {
                compile::Code::Fresh(code) => Some(code.as_str()),
                compile::Code::Reused(_) => None,
            })
            .collect();
        let registry = emit::registry(parts.iter().map(|p| p.type_name.as_str()), &runtime);
        let capacity = pieces.iter().map(|p| p.len() + 1).sum::<usize>() + registry.len() + 4096;
        let mut joined = emit::Joined { out: String::with_capacity(capacity), pieces: &pieces };
        let files = parts.iter().map(|p| p.source.path.as_str());
        emit::join(files, parts.len(), &registry, &mut joined)
            .map_err(|e| DefinitionError::Internal { file: "<generator>".to_owned(), message: e.to_string() })?;
        Ok(joined.out)
    }

    /// Generates `output` from `sources`, incrementally. The record types
    /// go in a few files, shards of about 32 consecutive record types, in
    /// the folder beside `output` named like it with the extension `d`
    /// (`records.rs` → `records.d/<first record label>.rs`), and `output`
    /// holds the header, an `include!` of each shard and the registry:
    /// with the `include!`s replaced by the files, it is what
    /// [`Generator::generate`] returns, byte for byte.
    ///
    /// An index beside the output (`<output>.index`) keeps, for each
    /// definition, its bytes and where its code lies. The
    /// next run, with the same runtime path and generator, generates only
    /// the definitions whose path or bytes changed and rewrites only the
    /// shards that hold them, copying the other record types' code from the
    /// old files after checking it; an edit to one definition among a
    /// thousand rewrites one shard. Every file is written only when its
    /// bytes change, beside its name and renamed over it, so a reader never
    /// sees half a file, and shards that are gone are removed. A missing,
    /// stale or damaged index, or a shard changed since, only means more
    /// generation, and an index that cannot be written only costs time.
    /// Nothing is written when a definition has a problem.
    pub fn compile(&self, sources: &[Source], output: &std::path::Path) -> Result<Compilation, Errors> {
        let runtime = emit::runtime_path(&self.runtime)?;
        let settings = self.settings()?;
        let layout = compile::Layout::new(output)?;
        let identity = cache::identity(&runtime, &settings);
        let previous = identity.as_deref().and_then(|identity| cache::Previous::load(output, identity));
        let parts = self.assemble(sources, &runtime, &settings, previous.as_ref())?;
        let registry = emit::registry(parts.iter().map(|p| p.type_name.as_str()), &runtime);
        let regenerate = |source: &Source| -> Result<String, Errors> {
            let t = read_and_check(source).map_err(Errors)?;
            Ok(emit::record_type(&t, &runtime, &settings)?)
        };
        compile::write(&layout, &parts, &registry, identity.as_deref(), previous.as_ref(), &regenerate)
    }

    /// Every definition in output order (by record label, then path): its
    /// code generated now, or where it lies in the previous output when
    /// `previous` has it for its exact bytes. All problems are reported.
    fn assemble<'a>(
        &self,
        sources: &'a [Source],
        runtime: &str,
        settings: &settings::Settings,
        previous: Option<&'a cache::Previous>,
    ) -> Result<Vec<compile::Part<'a>>, Errors> {
        let mut parts = Vec::with_capacity(sources.len());
        let mut checked = Vec::new();
        let mut errors = Vec::new();
        for source in sources {
            if let Some(reused) = previous.and_then(|previous| previous.get(&source.path, &source.bytes)) {
                parts.push(compile::Part {
                    source,
                    record_label: reused.record_label.to_owned(),
                    type_name: reused.type_name.to_owned(),
                    code: compile::Code::Reused(reused.span),
                });
                continue;
            }
            match read_and_check(source) {
                Ok(t) => {
                    parts.push(compile::Part {
                        source,
                        record_label: t.schema.record_label.to_string(),
                        type_name: t.type_name().to_owned(),
                        code: compile::Code::Fresh(String::new()),
                    });
                    checked.push(t);
                }
                Err(e) => errors.extend(e),
            }
        }
        parts.sort_by(|a, b| a.record_label.cmp(&b.record_label).then_with(|| a.source.path.cmp(&b.source.path)));
        errors.extend(check::check_set(
            parts.iter().map(|p| (p.source.path.as_str(), p.record_label.as_str(), p.type_name.as_str())),
        ));
        if !settings.is_empty() {
            let reused = parts
                .iter()
                .filter(|p| matches!(p.code, compile::Code::Reused(_)))
                .map(|p| p.record_label.as_str())
                .collect();
            errors.extend(settings.check(&checked.iter().collect::<Vec<_>>(), &reused));
        }
        if !errors.is_empty() {
            return Err(Errors(errors));
        }
        let code = emit::in_parallel(&checked, self.threads, |t| emit::record_type(t, runtime, settings))?;
        let mut code: std::collections::BTreeMap<&str, String> =
            checked.iter().map(|t| t.file.as_str()).zip(code).collect();
        for part in &mut parts {
            if let compile::Code::Fresh(fresh) = &mut part.code {
                *fresh = code.remove(part.source.path.as_str()).ok_or_else(|| DefinitionError::Internal {
                    file: part.source.path.clone(),
                    message: "a record type was not generated".to_owned(),
                })?;
            }
        }
        Ok(parts)
    }

    /// The whole job of a build script, like `prost_build::compile_protos`:
    /// generates `$OUT_DIR/<output>` (and its shards in
    /// `$OUT_DIR/<output stem>.d/`) from the `*.json` files in
    /// `definitions_dir` (relative to the crate root) with
    /// [`Generator::compile`], printing `cargo:rerun-if-changed` for the
    /// folder and each file. On failure it reports every problem with
    /// [`fail_build_script`], so `cargo build` opens with them, each named
    /// from the workspace's root (`error: <package>: <file>:<line>:<column>:
    /// …; hint: …`); it never panics.
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
            Err(mut errors) => {
                let prefix = std::env::var_os("CARGO_MANIFEST_DIR")
                    .map(|dir| workspace_prefix(std::path::Path::new(&dir)))
                    .unwrap_or_default();
                for error in &mut errors.0 {
                    error.prefix_file(&prefix);
                }
                fail_build_script(&errors.to_string())
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
        let sources = files::read_sources(&root, &names, self.threads).map_err(Errors)?;
        self.compile(&sources, &out_dir.join(output))?;
        Ok(())
    }
}

/// Fails a build script so that cargo shows why first: each line of
/// `report` (its `error: ` dropped) becomes a `cargo::error=` directive,
/// which cargo prints as `error: <package>: <line>` before anything else
/// and then fails the build (Rust 1.84 and later), instead of a last line
/// under its own "failed to run custom build command" block. Returns a
/// success: the directives are the failure.
///
/// ```no_run
/// // build.rs
/// fn main() -> std::process::ExitCode {
///     match std::fs::read_to_string("catalog.json") {
///         Ok(_) => std::process::ExitCode::SUCCESS,
///         Err(e) => foundry_catalog_build::fail_build_script(&format!("error: catalog.json: {e}")),
///     }
/// }
/// ```
pub fn fail_build_script(report: &str) -> std::process::ExitCode {
    use std::io::Write;
    let mut stdout = std::io::stdout().lock();
    for line in report.lines().filter(|line| !line.trim().is_empty()) {
        let line = line.strip_prefix("error: ").unwrap_or(line);
        // A directive is one line: anything after a CR would be lost.
        let _ = writeln!(stdout, "cargo::error={}", line.replace('\r', " "));
    }
    std::process::ExitCode::SUCCESS
}

/// The path from the workspace's root to the package in `manifest_dir`
/// (`examples/record-types-app/`), or nothing: the root is the nearest
/// folder at or above it whose `Cargo.toml` has a `[workspace]` table, as
/// cargo finds it. Cargo names files from there, so build-script errors do too.
fn workspace_prefix(manifest_dir: &std::path::Path) -> String {
    let is_root = |dir: &std::path::Path| {
        std::fs::read_to_string(dir.join("Cargo.toml"))
            .is_ok_and(|toml| toml.lines().any(|line| line.trim_start().starts_with("[workspace]")))
    };
    manifest_dir
        .ancestors()
        .find(|dir| is_root(dir))
        .and_then(|root| manifest_dir.strip_prefix(root).ok())
        .and_then(|rest| rest.to_str())
        .filter(|rest| !rest.is_empty())
        .map(|rest| format!("{rest}/"))
        .unwrap_or_default()
}

/// Reads and checks one definition. A file with format errors is checked
/// too, as far as it read: its rule errors are reported beside the format
/// errors, except where a broken value was set aside.
fn read_and_check(source: &Source) -> Result<CheckedType, Vec<DefinitionError>> {
    match definition::parse(&source.path, &source.bytes) {
        Ok((definition, positions)) => check::check(&source.path, definition, &positions),
        Err(unread) => {
            let mut errors = unread.errors;
            if let Some(rest) = unread.rest
                && let (definition, positions, set_aside) = *rest
                && let Err(rule_errors) = check::check(&source.path, definition, &positions)
            {
                errors.extend(rule_errors.into_iter().filter(|error| match error {
                    DefinitionError::Invalid { location, .. } => {
                        !location.pointers().iter().any(|pointer| set_aside.covers(pointer))
                    }
                    _ => true,
                }));
            }
            Err(errors)
        }
    }
}
