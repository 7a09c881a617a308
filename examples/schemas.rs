//! Writes the JSON Schemas (2020-12) that non-Rust consumers use, generated
//! from the same source as the code:
//!
//! - `schema/product-response.schema.json` and
//!   `schema/product-manifest.schema.json`, from `foundry_catalog::shape`;
//! - `schema/record-types/<record_label>.schema.json`, from each generated
//!   record type.
//!
//! ```text
//! cargo run --example schemas            # rewrite the files
//! cargo run --example schemas -- --check # exit 1 if any file is stale
//! ```
//!
//! `tests/json_schemas.rs` fails when a committed file differs from what
//! this would write.

use std::path::Path;
use std::process::ExitCode;

fn main() -> ExitCode {
    let check = std::env::args().any(|a| a == "--check");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut stale = 0;
    for (path, contents) in foundry_catalog::shape::schema_files() {
        let path = root.join(path);
        let current = std::fs::read_to_string(&path).unwrap_or_default();
        if current == contents {
            continue;
        }
        stale += 1;
        if check {
            eprintln!("stale: {}", path.display());
        } else if let Err(e) =
            path.parent().map_or(Ok(()), std::fs::create_dir_all).and_then(|()| std::fs::write(&path, contents))
        {
            eprintln!("error: {}: {e}", path.display());
            return ExitCode::FAILURE;
        } else {
            println!("wrote {}", path.display());
        }
    }
    if check && stale > 0 { ExitCode::FAILURE } else { ExitCode::SUCCESS }
}
