//! `foundry-catalog schemas`: writes or checks the JSON Schema files.

use std::path::PathBuf;
use std::process::ExitCode;

use crate::{BROKEN, USAGE};

/// Write the JSON Schemas (2020-12) for consumers outside Rust, or check
/// that the files on disk are current.
///
/// Writes DIR/product-response.schema.json, DIR/product-manifest.schema.json,
/// DIR/openapi.json, DIR/field-formats.schema.json and
/// DIR/record-types/<record_label>.schema.json (for
/// the shipped record types and those of --record-types), generated from
/// the same tables as the code. DIR/record-type.schema.json (the definition format)
/// is written by hand and left alone.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The schema folder.
    #[arg(long, default_value = "schema")]
    dir: PathBuf,
    /// Write nothing; exit 1 if any file is missing or differs.
    #[arg(long)]
    check: bool,
    #[command(flatten)]
    record_types: crate::record_types::RecordTypeDirs,
}

/// ` --dir DIR` when DIR is not the default, for the hint.
fn dir_flag(args: &Args) -> String {
    if args.dir == std::path::Path::new("schema") { String::new() } else { format!(" --dir {}", args.dir.display()) }
}

pub(crate) fn run(args: &Args) -> ExitCode {
    let loaded = match args.record_types.load() {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let mut stale = 0;
    for (path, contents) in foundry_catalog::json_schema::schema_files_with(&loaded) {
        let path = args.dir.join(path);
        let shown = path.display();
        let problem = match std::fs::read_to_string(&path) {
            Ok(current) if current == contents => continue,
            Ok(_) => format!("stale: {shown} (it differs from what the definitions give)"),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => format!("missing: {shown}"),
            Err(e) => format!("unreadable: {shown} ({e})"),
        };
        stale += 1;
        if args.check {
            eprintln!("{problem}");
        } else if let Err(e) = path.parent().map_or(Ok(()), std::fs::create_dir_all).and_then(|()| {
            foundry_catalog_serving::files::replace(&path, |out| std::io::Write::write_all(out, contents.as_bytes()))
        }) {
            eprintln!("error: {}: {e}", path.display());
            return ExitCode::from(USAGE);
        } else {
            crate::outln!("wrote {}", path.display());
        }
    }
    if args.check && stale > 0 {
        eprintln!("hint: run `foundry-catalog schemas{}` and commit the result", dir_flag(args));
        ExitCode::from(BROKEN)
    } else {
        ExitCode::SUCCESS
    }
}
