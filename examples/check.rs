//! Checks response bodies against every rule of the spec.
//!
//! ```text
//! cargo run --example check -- response.json [more.json …]
//! ```
//!
//! Prints each violation as `<file>: <json pointer>: [<rule>] <message>` and
//! exits with 1 if there is any (2 if a file cannot be read or is not JSON).

use std::process::ExitCode;

fn main() -> ExitCode {
    let files: Vec<String> = std::env::args().skip(1).collect();
    if files.is_empty() {
        eprintln!("usage: check <response.json>…");
        return ExitCode::from(2);
    }
    let mut status = ExitCode::SUCCESS;
    for file in &files {
        let body: serde_json::Value = match std::fs::read(file).map_err(|e| e.to_string()).and_then(|b| {
            serde_json::from_slice(&b).map_err(|e| format!("not JSON at {}:{}: {e}", e.line(), e.column()))
        }) {
            Ok(body) => body,
            Err(e) => {
                eprintln!("{file}: {e}");
                status = ExitCode::from(2);
                continue;
            }
        };
        let violations = foundry_catalog::conformance::validate(&body);
        for v in &violations {
            println!("{file}: {v}");
        }
        if violations.is_empty() {
            println!("{file}: ok");
        } else if status == ExitCode::SUCCESS {
            status = ExitCode::FAILURE;
        }
    }
    status
}
