//! Shared code of the benchmarks (`generate.rs`, `serve.rs`,
//! `side_by_side.rs`): the synthetic record types, as our definitions and
//! as equivalent JSON Schemas for typify, and the side-by-side runner.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use foundry_catalog_build::{Generator, Source};

/// Fields per synthetic record type.
pub const FIELDS_PER_TYPE: usize = 20;

/// One synthetic field: wire name, JSON type, required, description and
/// our fixture hint (JSON, possibly empty).
struct Field {
    name: String,
    json_type: &'static str,
    required: bool,
    description: String,
    hint: &'static str,
}

fn label(t: usize) -> String {
    format!("synthetic_type_{t:04}")
}

/// The fields of synthetic type `t`: every type, optional fields and every
/// fixture hint.
fn fields(t: usize) -> Vec<Field> {
    (0..FIELDS_PER_TYPE)
        .map(|f| {
            let (json_type, hint) = match f % 7 {
                0 => ("string", r#", "fixture": {"token": "fixture_validated"}"#),
                1 => ("string", r#", "fixture": {"date": "2026-01-15"}"#),
                2 => ("string", r#", "fixture": {"url": "https://registry.example.org/records"}"#),
                3 => ("number", r#", "fixture": {"fraction": 0.91}"#),
                4 => ("object", r#", "fixture": {"payload": "bench_mode"}"#),
                5 => ("number", ""),
                _ => ("string", ""),
            };
            Field {
                name: format!("fieldNumber{f}"),
                json_type,
                required: f % 5 != 4,
                description: format!("Synthetic field {f} of {}.", label(t)),
                hint,
            }
        })
        .collect()
}

/// Definition `t` with `description` as its description.
fn definition(t: usize, description: &str) -> Source {
    let label = label(t);
    let fields: Vec<String> = fields(t)
        .iter()
        .map(|f| {
            format!(
                r#"{{"name": "{}", "type": "{}", "required": {}, "description": "{}"{}}}"#,
                f.name, f.json_type, f.required, f.description, f.hint
            )
        })
        .collect();
    let json = format!(
        r#"{{"record_label": "{label}", "description": "{description}", "sample_type": "deterministic_executable_fixture", "fields": [{}]}}"#,
        fields.join(",\n")
    );
    Source::new(format!("bench/{label}.json"), json)
}

/// `types` definitions of 20 fields, as files in one folder would be.
pub fn synthetic(types: usize) -> Vec<Source> {
    (0..types).map(|t| definition(t, "A synthetic record type.")).collect()
}

/// The two corpora of the side-by-side comparison.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Corpus {
    /// Strings, numbers and open objects, with formats and every fixture
    /// hint ([`synthetic`]).
    Flat,
    /// Every construct: integers, booleans, bounds, closed sets, null,
    /// lists (of strings, of objects holding lists), objects with fields
    /// two deep ([`rich_field`]).
    Rich,
}

impl Corpus {
    /// Its name in tables and result files.
    pub fn name(self) -> &'static str {
        match self {
            Corpus::Flat => "flat",
            Corpus::Rich => "rich",
        }
    }

    /// `types` definitions of this corpus.
    pub fn sources(self, types: usize) -> Vec<Source> {
        match self {
            Corpus::Flat => synthetic(types),
            Corpus::Rich => (0..types).map(rich_definition).collect(),
        }
    }

    /// The same shapes as one JSON Schema document for typify.
    pub fn json_schema(self, types: usize) -> String {
        match self {
            Corpus::Flat => synthetic_json_schema(types),
            Corpus::Rich => {
                let definitions: serde_json::Map<String, serde_json::Value> = (0..types)
                    .map(|t| {
                        let fields: Vec<serde_json::Value> = (0..FIELDS_PER_TYPE).map(|f| rich_field(t, f)).collect();
                        (heck_upper_camel(&label(t)), object_schema(&fields, "A synthetic record type."))
                    })
                    .collect();
                serde_json::json!({"$schema": "http://json-schema.org/draft-07/schema#", "definitions": definitions})
                    .to_string()
            }
        }
    }
}

/// Field `f` of rich type `t`, as a definition writes it: ten shapes in
/// turn, every fifth field optional.
pub fn rich_field(t: usize, f: usize) -> serde_json::Value {
    use serde_json::json;
    let name = format!("fieldNumber{f}");
    let description = format!("Synthetic field {f} of {}.", label(t));
    let mut field = match f % 10 {
        0 => json!({"type": "string"}),
        1 => json!({"type": "integer", "minimum": 0, "maximum": 1000}),
        2 => json!({"type": "boolean"}),
        3 => json!({"type": "number", "minimum": 0, "maximum": 1, "nullable": true}),
        4 => json!({"type": "string", "enum": ["alpha", "beta", "gamma", "delta"]}),
        5 => json!({"type": "array", "items": {"type": "string"}, "min_items": 1, "max_items": 5}),
        6 => json!({"type": "object", "fields": [
            {"name": "name", "type": "string", "required": true, "description": "A name."},
            {"name": "code", "type": "string", "enum": ["a", "b"], "required": true, "description": "A code."},
            {"name": "counts", "type": "array", "items": {"type": "integer"}, "required": false, "description": "Counts."}
        ]}),
        7 => json!({"type": "array", "items": {"type": "object", "fields": [
            {"name": "price", "type": "number", "minimum": 0, "required": true, "description": "A price."},
            {"name": "seenOn", "type": "string", "format": "date", "nullable": true, "required": true, "description": "A day."},
            {"name": "flags", "type": "array", "items": {"type": "boolean"}, "required": true, "description": "Flags."}
        ]}}),
        8 => json!({"type": "string", "nullable": true}),
        _ => json!({"type": "object"}),
    };
    field["name"] = json!(name);
    field["required"] = json!(f % 5 != 4);
    field["description"] = json!(description);
    field
}

/// Rich definition `t`.
fn rich_definition(t: usize) -> Source {
    let fields: Vec<serde_json::Value> = (0..FIELDS_PER_TYPE).map(|f| rich_field(t, f)).collect();
    let json = serde_json::json!({
        "record_label": label(t),
        "description": "A synthetic record type.",
        "sample_type": "deterministic_executable_fixture",
        "fields": fields,
    });
    Source::new(format!("bench/{}.json", label(t)), json.to_string())
}

/// A definition's fields as a JSON Schema object (`properties`,
/// `required`).
fn object_schema(fields: &[serde_json::Value], description: &str) -> serde_json::Value {
    let properties: serde_json::Map<String, serde_json::Value> = fields
        .iter()
        .map(|f| {
            let mut schema = value_schema(f);
            schema["description"] = f["description"].clone();
            (f["name"].as_str().unwrap_or_default().to_owned(), schema)
        })
        .collect();
    let required: Vec<&serde_json::Value> =
        fields.iter().filter(|f| f["required"] == true).map(|f| &f["name"]).collect();
    serde_json::json!({"description": description, "type": "object", "required": required, "properties": properties})
}

/// A definition's value (field or item) as a JSON Schema.
fn value_schema(value: &serde_json::Value) -> serde_json::Value {
    use serde_json::json;
    let mut schema = match value["type"].as_str().unwrap_or_default() {
        "object" if value.get("fields").is_some() => {
            object_schema(value["fields"].as_array().map(Vec::as_slice).unwrap_or_default(), "A nested object.")
        }
        "array" => json!({"type": "array", "items": value_schema(&value["items"])}),
        other => json!({"type": other}),
    };
    for (ours, theirs) in [
        ("min_items", "minItems"),
        ("max_items", "maxItems"),
        ("minimum", "minimum"),
        ("maximum", "maximum"),
        ("enum", "enum"),
        ("format", "format"),
    ] {
        if let Some(v) = value.get(ours) {
            schema[theirs] = v.clone();
        }
    }
    if value["nullable"] == true { json!({"anyOf": [schema, {"type": "null"}]}) } else { schema }
}

/// The same `types` shapes as one JSON Schema document for typify: each
/// record type an object schema under `definitions`, with the same
/// property names, JSON types, required lists and descriptions (fixture
/// hints have no JSON Schema equivalent and are left out).
pub fn synthetic_json_schema(types: usize) -> String {
    let definitions: serde_json::Map<String, serde_json::Value> = (0..types)
        .map(|t| {
            let fields = fields(t);
            let properties: serde_json::Map<String, serde_json::Value> = fields
                .iter()
                .map(|f| (f.name.clone(), serde_json::json!({"type": f.json_type, "description": f.description})))
                .collect();
            let required: Vec<&str> = fields.iter().filter(|f| f.required).map(|f| f.name.as_str()).collect();
            let schema = serde_json::json!({
                "description": "A synthetic record type.",
                "type": "object",
                "required": required,
                "properties": properties,
            });
            (heck_upper_camel(&label(t)), schema)
        })
        .collect();
    serde_json::json!({"$schema": "http://json-schema.org/draft-07/schema#", "definitions": definitions}).to_string()
}

/// `synthetic_type_0001` → `SyntheticType0001`, as our struct names.
fn heck_upper_camel(label: &str) -> String {
    label
        .split('_')
        .map(|w| {
            let mut chars = w.chars();
            chars.next().map(|c| c.to_ascii_uppercase().to_string() + chars.as_str()).unwrap_or_default()
        })
        .collect()
}

/// typify's build-script recipe: parse the schema text, add it to a type
/// space, print the tokens with prettyplease. Returns the output length.
pub fn typify_generate(schema: &str) -> usize {
    let root: schemars::schema::RootSchema = serde_json::from_str(schema).expect("the schema parses");
    let mut space = typify::TypeSpace::new(&typify::TypeSpaceSettings::default());
    space.add_root_schema(root).expect("typify accepts the schema");
    let file: syn::File = syn::parse2(space.to_stream()).expect("typify's tokens parse");
    prettyplease::unparse(&file).len()
}

/// Ours on the same shapes, in memory, on `threads` threads. Returns the output length.
pub fn ours_generate(sources: &[Source], threads: usize) -> usize {
    Generator::new().threads(threads).generate(sources).expect("synthetic types generate").len()
}

fn median(mut times: Vec<Duration>) -> Duration {
    times.sort();
    times[times.len() / 2]
}

fn micros_per_type(total: Duration, types: usize) -> f64 {
    total.as_secs_f64() * 1e6 / types as f64
}

fn time(work: impl FnOnce() -> usize) -> Duration {
    let start = Instant::now();
    std::hint::black_box(work());
    start.elapsed()
}

/// A folder for the incremental run, removed when dropped.
struct Scratch(PathBuf);

impl Drop for Scratch {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// The header of the side-by-side result file (`benches/results/side-by-side.csv`).
pub const SIDE_BY_SIDE_CSV: &str =
    "corpus,types,rounds,ours_1_thread_us,ours_all_threads_us,threads,typify_1_thread_us\n";

/// What [`side_by_side`] measured: Markdown tables to print, and the
/// generation rows as CSV lines (without [`SIDE_BY_SIDE_CSV`]'s header).
pub struct SideBySide {
    /// The tables of medians, generation and incremental.
    pub tables: String,
    /// One line per size: the medians in µs per record type.
    pub csv: String,
}

/// Runs ours (one thread, all cores) and typify on the same shapes,
/// alternating within each round, then the incremental case.
/// `rounds(types)` says how many rounds.
pub fn side_by_side(profile: &str, sizes: &[usize], rounds: impl Fn(usize) -> usize) -> SideBySide {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let mut out = String::new();
    let mut csv = String::new();
    let _ = writeln!(
        out,
        "Generation side by side ({profile} profile, {cores} cores), median of alternating rounds, µs per record type:\n"
    );
    let _ = writeln!(
        out,
        "| corpus | types | rounds | ours, 1 thread | ours, {cores} threads | typify 0.8.0 (+ prettyplease), 1 thread | typify ÷ ours, 1 thread | typify ÷ ours, {cores} threads |"
    );
    let _ = writeln!(out, "|---|---|---|---|---|---|---|---|");
    for (corpus, types) in [Corpus::Flat, Corpus::Rich].into_iter().flat_map(|c| sizes.iter().map(move |&t| (c, t))) {
        let sources = corpus.sources(types);
        let schema = corpus.json_schema(types);
        let name = corpus.name();
        let (mut one, mut all, mut theirs) = (Vec::new(), Vec::new(), Vec::new());
        let rounds = rounds(types).max(1);
        for _ in 0..rounds {
            one.push(time(|| ours_generate(&sources, 1)));
            theirs.push(time(|| typify_generate(&schema)));
            all.push(time(|| ours_generate(&sources, cores)));
        }
        let (one, all, theirs) = (median(one), median(all), median(theirs));
        let _ = writeln!(
            csv,
            "{name},{types},{rounds},{:.1},{:.1},{cores},{:.1}",
            micros_per_type(one, types),
            micros_per_type(all, types),
            micros_per_type(theirs, types),
        );
        let _ = writeln!(
            out,
            "| {name} | {types} | {rounds} | {:.1} | {:.1} | {:.1} | {:.1}× | {:.1}× |",
            micros_per_type(one, types),
            micros_per_type(all, types),
            micros_per_type(theirs, types),
            theirs.as_secs_f64() / one.as_secs_f64(),
            theirs.as_secs_f64() / all.as_secs_f64(),
        );
        eprintln!("{name}: {types} types done");
    }
    let types = sizes.iter().copied().max().unwrap_or(1000);
    out.push_str(&incremental(types, rounds(types).max(3)));
    SideBySide { tables: out, csv }
}

/// The build script's job on a folder of `types` definitions (read every
/// file, then `Generator::compile` to `out/records.rs`): cold (no previous
/// output) against warm with one definition edited, alternating.
fn incremental(types: usize, rounds: usize) -> String {
    let scratch = Scratch(std::env::temp_dir().join(format!("foundry-catalog-side-by-side-{}", std::process::id())));
    let root = scratch.0.as_path();
    let defs = root.join("defs");
    let out = root.join("out");
    std::fs::create_dir_all(&defs).expect("scratch folder");
    for source in synthetic(types) {
        std::fs::write(defs.join(file_name(&source.path)), &source.bytes).expect("definition written");
    }
    let output = out.join("records.rs");
    let generated = std::cell::Cell::new(0);
    let build = |root: &Path| {
        let sources = Source::read_dir(root, "defs").expect("definitions read");
        let compilation = Generator::new().compile(&sources, &output).expect("generates");
        generated.set(compilation.generated.len());
        compilation.reused
    };
    let edited = types / 2;
    let (mut cold, mut warm) = (Vec::new(), Vec::new());
    let mut warm_generated = Vec::new();
    let mut warm_bytes = Vec::new();
    for round in 0..rounds {
        let _ = std::fs::remove_dir_all(&out);
        std::fs::create_dir_all(&out).expect("scratch folder");
        cold.push(time(|| build(root)));
        // One definition edited (its description), another text each round.
        let source = definition(edited, &format!("Edited in round {round}."));
        std::fs::write(defs.join(file_name(&source.path)), &source.bytes).expect("definition edited");
        warm.push(time(|| build(root)));
        warm_generated.push(generated.get());
        warm_bytes = output_files(&out);
    }
    // The warm output must be what a cold run makes of the same files.
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).expect("scratch folder");
    build(root);
    let same = output_files(&out) == warm_bytes;
    let (cold, warm) = (median(cold), median(warm));
    let mut text = String::new();
    let _ = writeln!(
        text,
        "\nIncremental: a folder of {types} definitions read and compiled (output, shards, index), as `build_script` does (median of {rounds} alternating rounds):\n"
    );
    let _ = writeln!(
        text,
        "| cold (no previous output) | warm, one definition edited | warm ÷ cold | generated when warm | warm output = cold output |"
    );
    let _ = writeln!(text, "|---|---|---|---|---|");
    warm_generated.dedup();
    let _ = writeln!(
        text,
        "| {:.1} ms | {:.1} ms | {:.1} % | {} of {types} | {} |",
        cold.as_secs_f64() * 1e3,
        warm.as_secs_f64() * 1e3,
        100.0 * warm.as_secs_f64() / cold.as_secs_f64(),
        warm_generated.iter().map(usize::to_string).collect::<Vec<_>>().join(", "),
        if same && !warm_bytes.is_empty() { "yes" } else { "NO" }
    );
    text
}

/// Every file of a compiled output in `out` (the output and its shards,
/// not the index), by path.
fn output_files(out: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut files = Vec::new();
    let mut folders = vec![out.to_owned()];
    while let Some(folder) = folders.pop() {
        for entry in std::fs::read_dir(&folder).into_iter().flatten().flatten() {
            let path = entry.path();
            if path.is_dir() {
                folders.push(path);
            } else if path.extension().is_some_and(|e| e == "rs") {
                files.push((path.clone(), std::fs::read(&path).unwrap_or_default()));
            }
        }
    }
    files.sort();
    files
}

fn file_name(path: &str) -> &str {
    path.rsplit('/').next().unwrap_or(path)
}
