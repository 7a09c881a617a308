//! `foundry-catalog build`: a folder of product manifests → one catalog
//! artifact file (`foundry_catalog_serving::artifact`) that `serve --catalog`
//! loads without building anything.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use foundry_catalog_serving::catalog::{Builder, ContentCoding, Progress, ResponseCatalog};
use foundry_catalog_serving::signing::SigningKey;

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
/// never reads half a file. Progress goes to stderr: a bar on a terminal,
/// else a line per 10 % on builds of 1,000 products or more; then a
/// closing line (products, rendered, compressed, reused, bytes, seconds).
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
    /// The artifact built last time: products whose manifest is unchanged
    /// (or whose body comes out the same) are taken from it rather than
    /// rendered and compressed again, and the output is the same bytes as
    /// without it. One that cannot be used (missing, failing a load
    /// check, built by another version or with other codings, or, with
    /// --sign-key, not signed by that key) is ignored with a line saying
    /// why. When a record type's definition changed, only its products
    /// are rendered again.
    #[arg(long, value_name = "ARTIFACT")]
    previous: Option<PathBuf>,
    /// Sign the artifact with this secret key (`foundry-catalog keygen`),
    /// so that `serve --verify-key` with its .pub file accepts it.
    #[arg(long, env = "FOUNDRY_CATALOG_SIGN_KEY", value_name = "FILE", value_parser = signing_key)]
    sign_key: Option<SigningKey>,
    #[command(flatten)]
    record_types: crate::record_types::RecordTypeDirs,
}

fn coding(text: &str) -> Result<ContentCoding, String> {
    text.parse().map_err(|e: foundry_catalog_core::UnknownValue| e.to_string())
}

fn signing_key(path: &str) -> Result<SigningKey, String> {
    SigningKey::read(Path::new(path)).map_err(|e| e.reason)
}

/// Builds of at least this many products report progress when stderr is
/// not a terminal (smaller ones take a moment).
const LOGGED_PROGRESS: usize = 1000;

pub(crate) fn run(args: &Args) -> ExitCode {
    let started = Instant::now();
    if !args.dir.is_dir() {
        return fail(USAGE, format!("{}: not a folder of manifests", args.dir.display()));
    }
    let loaded = match args.record_types.load() {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let mut builder = match Builder::new().codings(&args.codings) {
        Ok(builder) => builder.record_types(loaded),
        Err(e) => return fail(USAGE, e),
    };
    if let Some(previous) = &args.previous {
        let reused = load_previous(previous, args.sign_key.as_ref())
            .and_then(|catalog| builder.previous(&catalog).map_err(|e| e.to_string()));
        match reused {
            Err(reason) => {
                eprintln!("note: not building on {}: {reason}; building every product", previous.display());
            }
            Ok(changes) if !changes.is_empty() => eprintln!(
                "note: record types changed since {} ({changes}): rendering their products again",
                previous.display()
            ),
            Ok(_) => {}
        }
    }
    let last = Arc::new(Mutex::new(Progress::default()));
    let builder = builder.on_progress(reporter(Arc::clone(&last)));
    let catalog = builder.build_dir(&args.dir);
    let progress = *last.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut catalog = match catalog {
        Ok(catalog) => catalog,
        Err(errors) => {
            eprintln!("{errors}");
            return ExitCode::from(BROKEN);
        }
    };
    if let Some(key) = &args.sign_key {
        catalog.sign(key);
    }
    let artifact = catalog.artifact();
    let metadata = artifact.metadata();
    let summary = format!(
        "{} products ({} rendered, {} compressed, {} reused), {} bytes, codings {}, content sha256 {}{}",
        artifact.len(),
        progress.rendered,
        progress.compressed,
        progress.reused(),
        artifact.file_len(),
        metadata.codings.iter().map(|c| c.as_str()).collect::<Vec<_>>().join(", "),
        metadata.content_sha256,
        args.sign_key.as_ref().map(|k| format!(", signed by {}", k.verify_key().fingerprint())).unwrap_or_default(),
    );
    let (verb, result) = match &args.output {
        None => (format!("checked {}", args.dir.display()), Ok(())),
        Some(output) => (format!("wrote {}", output.display()), write_atomically(&catalog, output)),
    };
    match result {
        Ok(()) => {
            eprintln!("{verb}: {summary} in {:.2} s", started.elapsed().as_secs_f64());
            ExitCode::SUCCESS
        }
        Err(e) => fail(USAGE, format!("{}: cannot write: {e}", args.output.as_deref().unwrap_or(&args.dir).display())),
    }
}

/// The previous artifact, loaded with every load check, and verified
/// with the signing key's verify key when signing.
/// It is kept open, so that the bytes the new artifact shares with it are
/// copied file to file.
fn load_previous(path: &Path, sign_key: Option<&SigningKey>) -> Result<ResponseCatalog, String> {
    let catalog = ResponseCatalog::open_to_build_on(path).map_err(|e| e.to_string())?;
    if let Some(key) = sign_key {
        catalog.artifact().verify(&key.verify_key()).map_err(|e| e.to_string())?;
    }
    Ok(catalog)
}

/// What reports progress: a bar on a terminal, else a line per 10 % of a
/// build of [`LOGGED_PROGRESS`] products or more; either way it keeps
/// the latest counts in `last`.
fn reporter(last: Arc<Mutex<Progress>>) -> impl Fn(&Progress) + Send + Sync + 'static {
    let bar = std::io::stderr().is_terminal().then(|| {
        let bar = indicatif::ProgressBar::with_draw_target(None, indicatif::ProgressDrawTarget::stderr());
        let style = indicatif::ProgressStyle::with_template(
            "{bar:40} {human_pos}/{human_len} products, {msg} ({per_sec}, {eta} left)",
        );
        if let Ok(style) = style {
            bar.set_style(style);
        }
        bar
    });
    let decile = AtomicUsize::new(0);
    move |progress: &Progress| {
        if let Ok(mut last) = last.lock() {
            *last = *progress;
        }
        match &bar {
            Some(bar) => {
                bar.set_length(progress.total as u64);
                bar.set_position(progress.done as u64);
                bar.set_message(format!("{} reused", progress.reused()));
                if progress.done == progress.total {
                    bar.finish_and_clear();
                }
            }
            None if progress.total >= LOGGED_PROGRESS => {
                let tenth = progress.done * 10 / progress.total;
                if decile.fetch_max(tenth, Ordering::Relaxed) < tenth {
                    eprintln!(
                        "building: {} % ({} of {} products, {} reused)",
                        tenth * 10,
                        progress.done,
                        progress.total,
                        progress.reused()
                    );
                }
            }
            None => {}
        }
    }
}

/// Writes to `<output>.tmp-<pid>` beside it, then renames over `output`.
fn write_atomically(catalog: &ResponseCatalog, output: &Path) -> std::io::Result<()> {
    let mut name = output.file_name().unwrap_or_default().to_owned();
    name.push(format!(".tmp-{}", std::process::id()));
    let temporary = output.with_file_name(name);
    let written = std::fs::File::create(&temporary).and_then(|mut file| {
        catalog.write_file(&mut file)?;
        file.sync_all()
    });
    match written.and_then(|()| std::fs::rename(&temporary, output)) {
        Ok(()) => Ok(()),
        Err(e) => {
            let _ = std::fs::remove_file(&temporary);
            Err(e)
        }
    }
}
