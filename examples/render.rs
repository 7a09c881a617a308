//! Prints the full response body `{"data": …}` for a product manifest.
//!
//! ```text
//! cargo run --example render -- examples/catalog/eu-regulatory-status-signals.json
//! ```
//!
//! A manifest that breaks a rule prints every violation and exits with 1.

use std::process::ExitCode;

use foundry_catalog::{ProductManifest, ProductResponse};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [path] = args.as_slice() else {
        eprintln!("usage: render <manifest.json>");
        return ExitCode::from(2);
    };
    let text = match std::fs::read_to_string(path) {
        Ok(text) => text,
        Err(e) => {
            eprintln!("error: {path}: {e}");
            return ExitCode::from(2);
        }
    };
    let manifest = match ProductManifest::from_json(&text) {
        Ok(manifest) => manifest,
        Err(e) => {
            eprintln!("error: {path}:{}:{}: {e}", e.line(), e.column());
            return ExitCode::FAILURE;
        }
    };
    match manifest.build() {
        Ok(record) => match serde_json::to_string_pretty(&ProductResponse { data: record }) {
            Ok(body) => {
                println!("{body}");
                ExitCode::SUCCESS
            }
            Err(e) => {
                eprintln!("error: {path}: {e}");
                ExitCode::FAILURE
            }
        },
        Err(violations) => {
            for v in &violations.0 {
                eprintln!("error: {path}: {v}");
            }
            ExitCode::FAILURE
        }
    }
}
