//! `foundry-catalog build`: a folder of product manifests → one catalog
//! artifact file (`foundry_catalog_serving::artifact`) that `serve --catalog`
//! loads without building anything.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use foundry_catalog_serving::catalog::{Builder, ContentCoding, Manifests, Progress, ResponseCatalog};
use foundry_catalog_serving::signing::SigningKey;

use crate::{BROKEN, USAGE, fail};

/// Build a catalog artifact from a folder of product manifests.
///
/// Every manifest is read, checked against its file name, built into its
/// record and validated against the spec; every body is serialized once,
/// compressed once per content coding and given its strong ETag. Every
/// problem of every file is printed to stderr, followed by a summary such
/// as `3 of 10,000 manifests are invalid: 5 problems`, and the exit code
/// is then 1 (nothing is written). The file is written to a new file next
/// to OUTPUT (created exclusively: never through a link) and renamed into
/// place, so a server reloading it never reads half a file. Progress goes to stderr: a bar on a terminal,
/// else a line per 10 % on builds of 1,000 products or more; then a
/// closing line (products, rendered, compressed, reused, bytes, seconds).
/// Every product's HTML page at its canonical_path is built with its body
/// and stored beside it, with /robots.txt, the sitemap (given --site-url)
/// and a not-found page, unless --no-pages.
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
    /// Write OUTPUT as a packed artifact: a small pack list naming its
    /// bytes in packs in the folder `fcpacks` beside it (each named by its
    /// SHA-256, never changed). With --previous a packed artifact in the
    /// same folder, only the new head and the bodies that changed are
    /// written (two new packs); the packs no list in the folder names any
    /// more are removed (those of the list replaced, by the next build). `serve` and a build read it from its folder as
    /// they read one file; a replica pulls an artifact in one file, so
    /// publish to replicas one built without --packs.
    #[arg(long, conflicts_with = "check")]
    packs: bool,
    /// Read every manifest: do not take one whose length, times and inode
    /// are those `ARTIFACT.stamps` recorded as unchanged, and write no
    /// `OUT.stamps` (by default `build -o OUT` writes what it saw of each
    /// manifest there, and `--previous ARTIFACT` reads it).
    #[arg(long)]
    no_stat_cache: bool,
    /// Sign the artifact with this secret key (`foundry-catalog keygen`),
    /// so that `serve --verify-key` with its .pub file accepts it.
    #[arg(long, env = "FOUNDRY_CATALOG_SIGN_KEY", value_name = "FILE", value_parser = signing_key)]
    sign_key: Option<SigningKey>,
    /// The artifact's place in a series of releases (say the CI run
    /// number), signed with it: a replica refuses an artifact whose
    /// sequence is below the highest it has served.
    #[arg(long, env = "FOUNDRY_CATALOG_SEQUENCE", value_name = "N")]
    sequence: Option<u64>,
    /// When the artifact stops being fresh, as an RFC 3339 UTC time
    /// (`2026-12-02T00:00:00Z`): a replica refuses it from then on, and
    /// reports it when it is still serving it then.
    #[arg(long, value_name = "TIME", value_parser = rfc3339, conflicts_with = "expires_in")]
    expires_at: Option<std::time::SystemTime>,
    /// The same, as a time from now (`7d`, `36h`): the one setting that
    /// makes the build read the clock, so its output depends on when it
    /// runs.
    #[arg(long, value_name = "DURATION", value_parser = humantime::parse_duration)]
    expires_in: Option<std::time::Duration>,
    /// The largest manifest file read, in bytes (`16MiB`, `1048576`): a
    /// larger one is a problem of the build, never read.
    #[arg(long, env = "FOUNDRY_CATALOG_MAX_MANIFEST_BYTES", value_name = "BYTES",
        value_parser = foundry_catalog_server::parse_size, default_value = "16MiB")]
    max_manifest_bytes: u64,
    #[command(flatten)]
    record_types: crate::record_types::RecordTypeDirs,
    #[command(flatten)]
    pages: foundry_catalog_server::PageOptions,
}

fn rfc3339(text: &str) -> Result<std::time::SystemTime, String> {
    humantime::parse_rfc3339(text).map_err(|e| format!("{e} (write it like 2026-12-02T00:00:00Z)"))
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
    // Built on a previous artifact, the folder is listed while that is
    // opened and checked (0.04 s at 100,000 manifests); a cold build has
    // nothing to list it beside.
    let listing = args.previous.is_some().then(|| {
        let dir = args.dir.clone();
        std::thread::spawn(move || Manifests::list(&dir))
    });
    let loaded = match args.record_types.load() {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let mut builder = match Builder::new().codings(&args.codings) {
        Ok(builder) => builder.record_types(loaded).max_manifest_len(args.max_manifest_bytes),
        Err(e) => return fail(USAGE, e),
    };
    match args.pages.pages(None) {
        Ok(Some(pages)) => {
            for warning in foundry_catalog_pages::sitemap::warnings(pages.site()) {
                eprintln!("warning: {warning}");
            }
            builder = builder.pages(pages);
        }
        Ok(None) => {}
        Err(e) => {
            eprintln!("error: {e}");
            return ExitCode::from(BROKEN);
        }
    }
    if let Some(sequence) = args.sequence {
        builder = builder.sequence(sequence);
    }
    // An expiry is an RFC 3339 time: at most 9999-12-31T23:59:59Z.
    const LAST: std::time::Duration = std::time::Duration::from_secs(253_402_300_799);
    let expires = match (args.expires_at, args.expires_in) {
        (Some(at), _) => Some(at),
        (None, Some(within)) => {
            match std::time::SystemTime::now().checked_add(within).filter(|&at| at <= std::time::UNIX_EPOCH + LAST) {
                Some(at) => Some(at),
                None => {
                    let within = humantime::format_duration(within);
                    return fail(
                        USAGE,
                        format!("--expires-in {within}: past any time this clock can say (9999-12-31)"),
                    );
                }
            }
        }
        (None, None) => None,
    };
    if let Some(expires) = expires {
        builder = builder.expires(expires);
    }
    if let Some(previous) = &args.previous {
        let stamps = (!args.no_stat_cache).then(|| stamps_file(previous));
        let reused = load_previous(previous, stamps.as_deref(), args.sign_key.as_ref())
            .map(|(catalog, read)| {
                match (read, &stamps) {
                    (Some(Err(reason)), Some(stamps)) => {
                        eprintln!("note: not using {}: {reason}; reading every manifest", stamps.display());
                    }
                    (Some(Ok(true)), _) => eprintln!(
                        "note: {} is as the build that wrote it left it (its stamp is unchanged): its bodies are taken unread",
                        previous.display()
                    ),
                    _ => {}
                }
                catalog
            })
            .and_then(|catalog| builder.previous(&catalog).map_err(|e| e.to_string()));
        match reused {
            Err(reason) => {
                eprintln!("note: not building on {}: {reason}; building every product", previous.display());
            }
            Ok(changes) => {
                if !changes.is_empty() {
                    eprintln!(
                        "note: record types changed since {} ({changes}): rendering their products again",
                        previous.display()
                    );
                }
                if args.sign_key.is_none() {
                    eprintln!(
                        "note: building on {} unverified: a product whose manifest is unchanged is taken as that file holds it; hint: sign builds (--sign-key) to have the previous artifact verified",
                        previous.display()
                    );
                }
            }
        }
    }
    // The bodies go to the output's folder as they are made, not to
    // memory: a build holds its head, whatever the bodies come to.
    if let Some(output) = &args.output {
        let dir = output.parent().filter(|dir| !dir.as_os_str().is_empty()).unwrap_or(std::path::Path::new("."));
        builder = builder.spool_bodies(dir);
    }
    let last = Arc::new(Mutex::new(Progress::default()));
    let builder = builder
        .on_progress(reporter(Arc::clone(&last)))
        .on_warning(|file, warning| eprintln!("warning: {file}: {warning}"));
    let listed = match listing.map(std::thread::JoinHandle::join) {
        Some(Ok(listed)) => listed,
        // Listing a folder does not panic; if it did, so does the build.
        Some(Err(panic)) => std::panic::resume_unwind(panic),
        None => Manifests::list(&args.dir),
    };
    let catalog = listed.and_then(|manifests| builder.build_listed(manifests));
    let progress = *last.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
    let mut catalog = match catalog {
        Ok(catalog) => catalog,
        Err(errors) => return crate::catalog_failed(&errors),
    };
    if let Some(key) = &args.sign_key {
        catalog.sign(key);
    }
    let artifact = catalog.artifact();
    let metadata = artifact.metadata();
    let summary = format!(
        "{} products{} ({} rendered, {} compressed, {} reused), {} of {} manifests read{}, {} bytes, codings {}, content sha256 {}{}",
        artifact.len(),
        match &metadata.pages {
            Some(pages) if pages.site.is_empty() => " with pages".to_owned(),
            Some(pages) => format!(" with pages for {}", pages.site),
            None => String::new(),
        },
        progress.rendered,
        progress.compressed,
        progress.reused(),
        progress.read,
        progress.total,
        match &metadata.pages {
            // What an edit rendered beside its own products' pages.
            Some(_) => format!(
                ", {} of {} list pages rendered, {} product pages rendered again for their related products",
                progress.lists_rendered, progress.list_pages, progress.repaged
            ),
            None => String::new(),
        },
        artifact.file_len(),
        metadata.codings.iter().map(|c| c.as_str()).collect::<Vec<_>>().join(", "),
        metadata.content_sha256,
        args.sign_key.as_ref().map(|k| format!(", signed by {}", k.verify_key().fingerprint())).unwrap_or_default(),
    );
    let summary = match (metadata.sequence, expires) {
        (None, None) => summary,
        (sequence, expires) => format!(
            "{summary}, sequence {}, expires {}",
            sequence.map_or_else(|| "none".to_owned(), |n| n.to_string()),
            expires.map_or_else(|| "never".to_owned(), |t| humantime::format_rfc3339_seconds(t).to_string())
        ),
    };
    let (verb, result) = match &args.output {
        None => (format!("checked {}", args.dir.display()), Ok(())),
        Some(output) => {
            // What this build saw of each manifest, for the next one: a
            // cache beside the artifact (a stale one is replaced, a lost
            // one costs reading every manifest once), written on a thread
            // while the artifact is; its last record, the artifact file's
            // own stamp, once that is written and renamed into place. A
            // build that fails to write the artifact leaves the old one.
            let stamps = stamps_file(output);
            std::thread::scope(|scope| {
                // Made here, so that a panic drops the sender, and the thread returns.
                let (tell, artifact_written) = std::sync::mpsc::channel::<std::io::Result<Option<std::fs::Metadata>>>();
                let stamped = (!args.no_stat_cache).then(|| {
                    let catalog = &catalog;
                    let stamps = &stamps;
                    scope.spawn(move || {
                        foundry_catalog_serving::files::replace(stamps, |file| {
                            let written = || {
                                artifact_written
                                    .recv()
                                    .unwrap_or_else(|_| Err(std::io::Error::other("the build stopped")))
                            };
                            catalog.write_stamps_then(file, written).map(drop)
                        })
                    })
                });
                let written = write_artifact(&catalog, output, args.packs);
                let _ = tell.send(match &written {
                    // The artifact's own stamp, as written and renamed into place.
                    Ok(()) => Ok(std::fs::symlink_metadata(output).ok()),
                    Err(_) => Err(std::io::Error::other("the artifact was not written")),
                });
                let stamped =
                    stamped.map(|thread| thread.join().unwrap_or_else(|panic| std::panic::resume_unwind(panic)));
                if let (Ok(()), Some(Err(e))) = (&written, stamped) {
                    eprintln!("note: cannot write {}: {e}; the next build reads every manifest", stamps.display());
                }
                (format!("wrote {}", output.display()), written)
            })
        }
    };
    match result {
        Ok(()) => {
            eprintln!("{verb}: {summary} in {:.2} s", started.elapsed().as_secs_f64());
            // The process ends now: the kernel takes back its memory whole,
            // where dropping the catalogs would free it piece by piece (and
            // the allocator hand each page back): 0.07 s of a one-edit
            // build at 100,000 products. Nothing they hold needs a drop:
            // their files are open read-only or already unlinked.
            std::mem::forget(catalog);
            std::mem::forget(builder);
            ExitCode::SUCCESS
        }
        Err(e) => fail(USAGE, format!("{}: cannot write: {e}", args.output.as_deref().unwrap_or(&args.dir).display())),
    }
}

/// Writes the artifact of `catalog` to `output`: in packs beside it when
/// `packs` (and says what they hold), else whole.
fn write_artifact(catalog: &ResponseCatalog, output: &Path, packs: bool) -> std::io::Result<()> {
    if !packs {
        return foundry_catalog_serving::files::replace(output, |file| catalog.write_file(file));
    }
    catalog.write_packed(output).map(|tally| {
        eprintln!(
            "packs: {} bytes written to new packs, {} named in packs already, {} ranges, {} packs removed{}",
            tally.written,
            tally.kept,
            tally.ranges,
            tally.removed,
            if tally.compacted { ", written as new packs again" } else { "" }
        );
        if let Some(cleanup) = &tally.cleanup {
            eprintln!("note: {cleanup}; the next build removes them");
        }
    })
}

/// Where the stamps of the artifact at `artifact` are kept: `<artifact>.stamps`.
fn stamps_file(artifact: &Path) -> PathBuf {
    let mut name = artifact.as_os_str().to_owned();
    name.push(".stamps");
    PathBuf::from(name)
}

/// The previous artifact of a build, and what reading its stamps file
/// found (none when it was not read).
type Previous = (ResponseCatalog, Option<Result<bool, String>>);

/// The previous artifact, loaded with every load check, with the stamps
/// file at `stamps` (what reading it found), and verified with the signing
/// key's verify key when signing.
/// It is kept open, so that the bytes the new artifact shares with it are
/// copied file to file.
fn load_previous(path: &Path, stamps: Option<&Path>, sign_key: Option<&SigningKey>) -> Result<Previous, String> {
    let (catalog, read) = match stamps {
        Some(stamps) => {
            let (catalog, read) = ResponseCatalog::open_to_build_on_stamped(path, stamps).map_err(|e| e.to_string())?;
            (catalog, Some(read))
        }
        None => (ResponseCatalog::open_to_build_on(path).map_err(|e| e.to_string())?, None),
    };
    if let Some(key) = sign_key {
        catalog.artifact().verify(&key.verify_key()).map_err(|e| e.to_string())?;
    }
    Ok((catalog, read))
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
        // The build's tally is its last report, made once every product
        // is done: the reports before it are not kept (a lock a product,
        // taken by every building thread, cost 0.01 s at 100,000).
        if progress.done == progress.total
            && let Ok(mut last) = last.lock()
        {
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
