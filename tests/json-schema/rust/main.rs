//! Checks the shipped JSON Schemas with the Rust `jsonschema` crate
//! (Draft 2020-12, format checking on, patterns compiled by the `regex`
//! crate, not `fancy-regex`, so a pattern that needs lookaround fails here)
//! against tests/json-schema/cases.json: the third validator beside
//! python-jsonschema (check.py) and ajv (check.mjs), with the same
//! expectations, so any disagreement between the three fails CI.
//!
//!     cargo run -p foundry-catalog-json-schema-check -- --generated DIR
//!
//! Run by .ci/json-schemas, which fills DIR with rendered bodies and sample
//! rows. Prints one line per failed expectation and exits 1 if there is any.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

use jsonschema::{Draft, PatternOptions, Validator};
use serde_json::Value;

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../..")
}

fn load(path: &Path) -> Result<Value, String> {
    let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
    serde_json::from_slice(&bytes).map_err(|e| format!("{}: {e}", path.display()))
}

/// The files of `dir/*.json`-style patterns, sorted; `generated/` is `generated`.
fn files(patterns: &Value, generated: &Path) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for pattern in patterns.as_array().into_iter().flatten().filter_map(Value::as_str) {
        let (base, pattern) = match pattern.strip_prefix("generated/") {
            Some(rest) => (generated.to_owned(), rest),
            None => (root(), pattern),
        };
        let (dir, name) = pattern.rsplit_once('/').unwrap_or((".", pattern));
        let (prefix, suffix) = name.split_once('*').unwrap_or((name, ""));
        let mut matched: Vec<PathBuf> = std::fs::read_dir(base.join(dir))
            .map_err(|e| format!("{dir}: {e}"))?
            .filter_map(|entry| entry.ok().map(|e| e.path()))
            .filter(|path| {
                path.file_name().and_then(|n| n.to_str()).is_some_and(|n| {
                    if name.contains('*') { n.starts_with(prefix) && n.ends_with(suffix) } else { n == name }
                })
            })
            .collect();
        matched.sort();
        if matched.is_empty() {
            return Err(format!("no files match {pattern}"));
        }
        out.extend(matched);
    }
    Ok(out)
}

fn compile(schema: &Value) -> Result<Validator, String> {
    jsonschema::meta::validate(schema).map_err(|e| format!("not a valid schema: {e}"))?;
    jsonschema::options()
        .with_draft(Draft::Draft202012)
        .should_validate_formats(true)
        .with_pattern_options(PatternOptions::regex())
        .build(schema)
        .map_err(|e| format!("does not compile: {e}"))
}

fn set_pointer(document: &mut Value, pointer: &str, value: Value) {
    if let Some(target) = document.pointer_mut(pointer) {
        *target = value;
    } else if let Some((parent, key)) = pointer.rsplit_once('/')
        && let Some(Value::Object(object)) = document.pointer_mut(parent)
    {
        object.insert(key.replace("~1", "/").replace("~0", "~"), value);
    }
}

fn stem(path: &Path) -> String {
    path.file_stem().and_then(|s| s.to_str()).unwrap_or_default().to_owned()
}

fn rel(path: &Path) -> String {
    let root = root().canonicalize().unwrap_or_else(|_| root());
    let path = path.canonicalize().unwrap_or_else(|_| path.to_owned());
    path.strip_prefix(&root).unwrap_or(&path).display().to_string()
}

struct Run {
    checks: usize,
    failures: Vec<String>,
    validators: BTreeMap<String, Validator>,
    /// The --generated folder: a schema named `generated/…` is there.
    generated: PathBuf,
}

impl Run {
    fn expect(&mut self, valid: bool, schema: &str, instance: &Value, what: &str) -> Result<(), String> {
        let validator = self.validator(schema)?;
        let first_error = validator.iter_errors(instance).next().map(|e| format!("{e} at {}", e.instance_path()));
        self.checks += 1;
        match (valid, first_error) {
            (true, Some(error)) => self.failures.push(format!("{what}: rejected: {error}")),
            (false, None) => self.failures.push(format!("{what}: accepted")),
            _ => {}
        }
        Ok(())
    }

    fn validator(&mut self, file: &str) -> Result<&Validator, String> {
        if !self.validators.contains_key(file) {
            let schema = load(&schema_path(&self.generated, file))?;
            let validator = compile(&schema).map_err(|e| format!("{file}: {e}"))?;
            self.validators.insert(file.to_owned(), validator);
        }
        self.validators.get(file).ok_or_else(|| format!("{file}: not compiled"))
    }
}

/// A schema named `generated/…` is in the --generated folder, others in schema/.
fn schema_path(generated: &Path, file: &str) -> PathBuf {
    match file.strip_prefix("generated/") {
        Some(rest) => generated.join(rest),
        None => root().join("schema").join(file),
    }
}

fn items(case: &Value, instance: Value) -> Vec<(Option<usize>, Value)> {
    match instance {
        Value::Array(items) if case["each_item"] == Value::Bool(true) => {
            items.into_iter().enumerate().map(|(i, v)| (Some(i), v)).collect()
        }
        other => vec![(None, other)],
    }
}

fn run(generated: &Path) -> Result<Run, String> {
    let cases = load(&root().join("tests/json-schema/cases.json"))?;
    let mut run = Run { checks: 0, failures: Vec::new(), validators: BTreeMap::new(), generated: generated.to_owned() };
    let list = |key: &str| cases[key].as_array().cloned().unwrap_or_default();
    let text = |value: &Value| value.as_str().unwrap_or_default().to_owned();

    for case in list("valid") {
        for path in files(&case["instances"], generated)? {
            let schema = text(&case["schema"]).replace("{stem}", &stem(&path));
            for (i, instance) in items(&case, load(&path)?) {
                let what = format!("{}{}", rel(&path), i.map(|i| format!("[{i}]")).unwrap_or_default());
                run.expect(true, &schema, &instance, &what)?;
            }
        }
    }

    for case in list("invalid") {
        let except: Vec<String> = case["except"].as_array().into_iter().flatten().map(text).collect();
        for path in files(&case["instances"], generated)? {
            let schema = text(&case["schema"]).replace("{stem}", &stem(&path));
            // Not JSON at all: rejected before any schema.
            let Ok(instance) = load(&path) else { continue };
            let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
            for (i, one) in items(&case, instance) {
                let what = i.map_or_else(|| rel(&path), |i| format!("{}[{i}]", rel(&path)));
                run.expect(except.contains(&name), &schema, &one, &what)?;
            }
        }
    }

    for case in list("mutations") {
        let schema = text(&case["schema"]);
        for path in files(&case["instances"], generated)? {
            for set in case["set"].as_array().into_iter().flatten() {
                let (pointer, value) = (text(&set[0]), set[1].clone());
                let mut instance = load(&path)?;
                set_pointer(&mut instance, &pointer, value.clone());
                run.expect(false, &schema, &instance, &format!("{} with {pointer} = {value}", rel(&path)))?;
            }
        }
    }

    for case in list("required") {
        for path in files(&case["instances"], generated)? {
            let stem = stem(&path);
            let schema = text(&case["schema"]).replace("{stem}", &stem);
            let required = load(&schema_path(generated, &schema))?["required"].clone();
            for (i, row) in items(&case, load(&path)?) {
                for key in required.as_array().into_iter().flatten().map(text) {
                    let mut missing = row.clone();
                    if let Some(object) = missing.as_object_mut() {
                        object.remove(&key);
                    }
                    run.expect(false, &schema, &missing, &format!("{stem}[{i:?}] without {key}"))?;
                    let mut retyped = row.clone();
                    retyped[key.as_str()] = serde_json::json!([1, 2]);
                    run.expect(false, &schema, &retyped, &format!("{stem}[{i:?}] with {key} = [1, 2]"))?;
                }
            }
        }
    }

    for case in list("formats") {
        let root_schema = load(&root().join("schema").join(text(&case["schema"])))?;
        let at = text(&case["at"]);
        let mut sub = root_schema.pointer(&at).cloned().ok_or_else(|| format!("no schema at {at}"))?;
        if let Value::Object(object) = &mut sub {
            object.insert("$schema".to_owned(), root_schema["$schema"].clone());
        }
        let key = format!("{}#{at}", text(&case["schema"]));
        let validator = compile(&sub).map_err(|e| format!("{key}: {e}"))?;
        run.validators.insert(key.clone(), validator);
        for (valid, list) in [(true, &case["good"]), (false, &case["bad"])] {
            for value in list.as_array().into_iter().flatten() {
                run.expect(valid, &key, value, &format!("{at} {value}"))?;
            }
        }
    }
    Ok(run)
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().collect();
    let Some(generated) = args.iter().position(|a| a == "--generated").and_then(|i| args.get(i + 1)) else {
        eprintln!("usage: json-schema-check --generated DIR");
        return ExitCode::from(2);
    };
    match run(Path::new(generated)) {
        Err(e) => {
            eprintln!("jsonschema (Rust): {e}");
            ExitCode::from(2)
        }
        Ok(run) => {
            for line in &run.failures {
                println!("jsonschema (Rust): {line}");
            }
            println!("jsonschema (Rust): {}/{} expectations hold", run.checks - run.failures.len(), run.checks);
            if run.failures.is_empty() { ExitCode::SUCCESS } else { ExitCode::FAILURE }
        }
    }
}
