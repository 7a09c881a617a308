//! `foundry-catalog build`: a folder of product manifests → one catalog
//! artifact file (`foundry_catalog::artifact`) that `serve --catalog`
//! loads without building anything.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use foundry_catalog::artifact::Artifact;
use foundry_catalog::catalog::Builder;
use foundry_catalog::catalog::ContentCoding;

use crate::{BROKEN, USAGE, fail};

/// Build a catalog artifact from a folder of product manifests.
///
/// Every manifest is read, checked against its file name, built into its
/// record and validated against the spec; every body is serialized once,
/// compressed once per content coding and given its strong ETag. Every
/// problem of every file is printed to stderr, followed by a summary such
/// as `3 of 10,000 manifests are invalid: 5 problems`, and the exit code
/// is then 1 (nothing is written). The file is written to a temporary
/// name next to OUTPUT and renamed into place, so a server reloading it
/// never reads half a file.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The folder of product manifests (`<slug>.json`).
    #[arg(value_name = "MANIFEST_DIR")]
    dir: PathBuf,
    /// The artifact file to write.
    #[arg(short, long, value_name = "OUTPUT", required_unless_present = "check", conflicts_with = "check")]
    output: Option<PathBuf>,
    /// Build and check everything, write nothing (for CI).
    #[arg(long)]
    check: bool,
    /// The content codings to store besides identity, comma-separated
    /// (`br,gzip`; `identity` alone when something in front compresses).
    #[arg(long, value_delimiter = ',', default_value = "br,gzip,identity", value_parser = coding)]
    codings: Vec<ContentCoding>,
}

fn coding(text: &str) -> Result<ContentCoding, String> {
    text.parse().map_err(|e: foundry_catalog::UnknownValue| e.to_string())
}

pub(crate) fn run(args: &Args) -> ExitCode {
    if !args.dir.is_dir() {
        return fail(USAGE, format!("{}: not a folder of manifests", args.dir.display()));
    }
    let builder = match Builder::new().codings(&args.codings) {
        Ok(builder) => builder,
        Err(e) => return fail(USAGE, e),
    };
    let artifact = match builder.build_dir(&args.dir) {
        Ok(artifact) => artifact,
        Err(errors) => {
            eprintln!("{errors}");
            return ExitCode::from(BROKEN);
        }
    };
    let metadata = artifact.metadata();
    let products = artifact.len();
    let summary = format!(
        "{products} products, {} bytes, codings {}, content sha256 {}",
        artifact.file_len(),
        metadata.codings.iter().map(|c| c.as_str()).collect::<Vec<_>>().join(", "),
        metadata.content_sha256
    );
    match &args.output {
        None => {
            eprintln!("checked {}: {summary}", args.dir.display());
            ExitCode::SUCCESS
        }
        Some(output) => match write_atomically(&artifact, output) {
            Ok(()) => {
                eprintln!("wrote {}: {summary}", output.display());
                ExitCode::SUCCESS
            }
            Err(e) => fail(USAGE, format!("{}: cannot write: {e}", output.display())),
        },
    }
}

/// Writes to `<output>.tmp-<pid>` beside it, then renames over `output`.
fn write_atomically(artifact: &Artifact, output: &Path) -> std::io::Result<()> {
    let mut name = output.file_name().unwrap_or_default().to_owned();
    name.push(format!(".tmp-{}", std::process::id()));
    let temporary = output.with_file_name(name);
    let written = std::fs::File::create(&temporary).and_then(|file| {
        let mut out = std::io::BufWriter::with_capacity(1 << 20, file);
        artifact.write_to(&mut out)?;
        out.into_inner().map_err(|e| e.into_error())?.sync_all()
    });
    match written.and_then(|()| std::fs::rename(&temporary, output)) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = std::fs::remove_file(&temporary);
            Err(e)
        }
    }
}
