//! `render MANIFEST`: prints the response body of a product manifest that
//! names one of this crate's record types (CI feeds it to
//! `foundry-catalog check --record-types record-types`).
//!
//! `render --row-schema LABEL` prints the JSON Schema of one row of the
//! record type, `render --rows LABEL SLUG` its fixture rows (CI checks the
//! rows against the schema with three independent validators).

use std::process::ExitCode;

use foundry_catalog::json_schema;
use foundry_catalog_core::{Slug, fixture};
use foundry_catalog_record_types_app::records::RECORD_TYPES;

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let schema = |label: &str| RECORD_TYPES.iter().find(|t| t.record_label == label);
    let usage = || {
        eprintln!("usage: render MANIFEST | render --row-schema LABEL | render --rows LABEL SLUG");
        ExitCode::from(2)
    };
    match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["--row-schema", label] => match schema(label) {
            Some(schema) => {
                out(&format!("{:#}", json_schema::record_type_schema(schema)));
                ExitCode::SUCCESS
            }
            None => usage(),
        },
        ["--rows", label, slug] => match (schema(label), Slug::new(*slug)) {
            (Some(schema), Ok(slug)) => {
                out(&format!("{:#}", serde_json::Value::from(fixture::rows(schema, slug.as_str()))));
                ExitCode::SUCCESS
            }
            _ => usage(),
        },
        [path] if !path.starts_with("--") => render(path),
        _ => usage(),
    }
}

fn render(path: &str) -> ExitCode {
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("error: {path}: {e}");
            return ExitCode::from(2);
        }
    };
    match foundry_catalog_record_types_app::render(&text) {
        Ok(record) => {
            out(&foundry_catalog_record_types_app::body(&record));
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("error: {path}: {e}");
            ExitCode::FAILURE
        }
    }
}

/// Writes a line to standard output; a closed pipe ends the output quietly.
fn out(text: &str) {
    use std::io::Write;
    let _ = writeln!(std::io::stdout().lock(), "{text}");
}
