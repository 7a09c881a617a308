//! `foundry-catalog render`: the response body `{"data": …}` of product
//! manifests.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use foundry_catalog::manifest::ManifestError;
use foundry_catalog::product::ProductManifest;
use foundry_catalog::response::ProductResponse;
use foundry_catalog_core::RecordSchema;

use crate::{BROKEN, USAGE};

/// Print the response body {"data": …} of each product manifest.
///
/// A manifest that breaks a rule prints every violation to stderr; the
/// exit code is then 1 (2 if a file cannot be read).
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Product manifests (JSON).
    #[arg(required = true, value_name = "MANIFEST")]
    manifests: Vec<PathBuf>,
    /// Write each body to DIR/<slug>.json instead of printing it.
    #[arg(long, value_name = "DIR")]
    out_dir: Option<PathBuf>,
    #[command(flatten)]
    record_types: crate::record_types::RecordTypeDirs,
}

pub(crate) fn run(args: &Args) -> ExitCode {
    let loaded = match args.record_types.load() {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let mut worst = 0;
    for path in &args.manifests {
        if let Err(code) = render(path, args.out_dir.as_deref(), &loaded) {
            worst = worst.max(code);
        }
    }
    ExitCode::from(worst)
}

/// Renders one manifest; errors are printed here, the exit code returned.
fn render(path: &Path, out_dir: Option<&Path>, record_types: &[RecordSchema]) -> Result<(), u8> {
    let shown = path.display();
    let text = std::fs::read_to_string(path).map_err(|e| {
        eprintln!("error: {shown}: {e}");
        USAGE
    })?;
    let manifest = ProductManifest::from_json(&text).map_err(|e| match e {
        // Not JSON: input that cannot be parsed.
        ManifestError::Syntax(e) => {
            eprintln!("error: {shown}:{}:{}: {e}", e.line(), e.column());
            USAGE
        }
        ManifestError::Invalid(violations) => {
            violations.as_slice().iter().for_each(|v| eprintln!("error: {shown}: {v}"));
            BROKEN
        }
    })?;
    let record = manifest.build_with(record_types).map_err(|violations| {
        violations.as_slice().iter().for_each(|v| eprintln!("error: {shown}: {v}"));
        BROKEN
    })?;
    let slug = record.slug.to_string();
    // Serializing the typed model into a String cannot fail.
    let body = serde_json::to_string_pretty(&ProductResponse { data: record }).unwrap_or_default();
    match out_dir {
        None => crate::outln!("{body}"),
        Some(dir) => {
            let out = dir.join(format!("{slug}.json"));
            let body = body + "\n";
            let write = |file: &mut std::fs::File| std::io::Write::write_all(file, body.as_bytes());
            std::fs::create_dir_all(dir).and_then(|()| foundry_catalog_serving::files::replace(&out, write)).map_err(
                |e| {
                    eprintln!("error: {}: {e}", out.display());
                    USAGE
                },
            )?;
        }
    }
    Ok(())
}
