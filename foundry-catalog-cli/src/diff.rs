//! `foundry-catalog diff`: what changed between two sets of record-type
//! definitions, and whether readers still read across it.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use foundry_catalog_build::diff::{Compatibility, diff};
use foundry_catalog_build::{Generator, Source};

use crate::{BROKEN, USAGE, fail};

/// Compare record-type definitions and gate on compatibility.
///
/// Each side is a definition file or a folder of them; with --base REV the
/// old side is the same path at a git revision (read with `git`, nothing
/// checked out). Record types are matched by label, fields by wire name.
/// Every change is listed with its effect on schema_hash and on strict and
/// tolerant readers. Exit code 1 when a change breaks --mode.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// OLD and NEW definitions (each a file or a folder); with --base, NEW only.
    #[arg(value_name = "OLD NEW", required = true, num_args = 1..=2)]
    paths: Vec<PathBuf>,
    /// Read the old side from this git revision, at NEW's path.
    #[arg(long, value_name = "REV")]
    base: Option<String>,
    /// The compatibility a change must keep: backward (new readers read old
    /// records), forward (old readers read new records) or full (both).
    #[arg(long, value_enum, default_value_t = Mode::Full)]
    mode: Mode,
    /// Judge for tolerant readers (they ignore unknown keys) instead of
    /// strict ones (they reject them, as the validator and the JSON Schemas do).
    #[arg(long)]
    tolerant: bool,
    /// Report as text or JSON.
    #[arg(long, value_enum, default_value_t = Format::Text)]
    format: Format,
}

/// The compatibility modes a change can be judged in.
#[derive(Debug, Clone, Copy, clap::ValueEnum)]
enum Mode {
    Backward,
    Forward,
    Full,
}

impl From<Mode> for Compatibility {
    fn from(mode: Mode) -> Self {
        match mode {
            Mode::Backward => Compatibility::Backward,
            Mode::Forward => Compatibility::Forward,
            Mode::Full => Compatibility::Full,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum Format {
    Text,
    Json,
}

pub(crate) fn run(args: &Args) -> ExitCode {
    let (old, new) = match (&args.base, args.paths.as_slice()) {
        (Some(rev), [path]) => (git_side(rev, path), local_side(path)),
        (None, [old, new]) => (local_side(old), local_side(new)),
        _ => return fail(USAGE, "give OLD and NEW, or --base REV and NEW"),
    };
    let (old, new) = match (old, new) {
        (Ok(old), Ok(new)) => (old, new),
        (Err(e), _) | (_, Err(e)) => return fail(USAGE, e),
    };
    let generator = Generator::new();
    let checked = |sources: &[Source]| generator.check(sources).map_err(|e| e.to_string());
    let (old, new) = match (checked(&old), checked(&new)) {
        (Ok(old), Ok(new)) => (old, new),
        (Err(e), _) | (_, Err(e)) => {
            eprintln!("{e}");
            return ExitCode::from(USAGE);
        }
    };
    let report = diff(&old, &new);
    let mode = Compatibility::from(args.mode);
    let violations = report.violations(mode, !args.tolerant);
    if args.format == Format::Json {
        let json = serde_json::json!({
            "mode": mode,
            "readers": if args.tolerant { "tolerant" } else { "strict" },
            "changes": report.changes,
            "hashes": report.hashes,
            "violations": violations,
        });
        crate::outln!("{}", serde_json::to_string_pretty(&json).unwrap_or_default());
    } else {
        crate::out!("{}", report.to_text());
    }
    if violations.is_empty() {
        return ExitCode::SUCCESS;
    }
    let readers = if args.tolerant { "tolerant" } else { "strict" };
    for c in &violations {
        let field = c.field.as_deref().map(|f| format!(", field `{f}`")).unwrap_or_default();
        eprintln!(
            "error: {}: record type `{}`{field}: {} is {} for {readers} readers, not {mode}; hint: {}",
            c.file,
            c.record_label,
            c.kind,
            if args.tolerant { c.tolerant } else { c.strict },
            c.hint
        );
    }
    ExitCode::from(BROKEN)
}

/// A file, or every `*.json` in a folder (`.` and an absolute path too).
fn local_side(path: &Path) -> Result<Vec<Source>, String> {
    if path.is_dir() {
        let (root, dir) = parent_and_name(path)?;
        Source::read_dir(&root, &dir).map_err(|e| e.to_string())
    } else {
        let bytes = std::fs::read(path).map_err(|e| format!("{}: {e}", path.display()))?;
        Ok(vec![Source::new(path.display().to_string(), bytes)])
    }
}

/// `path` made absolute, as the folder it is in and its own name (UTF-8):
/// `.` is the current folder by its name, `/a/b` is `/a` and `b`.
fn parent_and_name(path: &Path) -> Result<(std::path::PathBuf, String), String> {
    let full = path.canonicalize().map_err(|e| format!("{}: {e}", path.display()))?;
    let name = full
        .file_name()
        .and_then(|n| n.to_str())
        .ok_or_else(|| format!("{}: a name that is not UTF-8", full.display()))?;
    let parent = full.parent().unwrap_or(Path::new("/")).to_owned();
    Ok((parent, name.to_owned()))
}

/// The same path at a git revision: a file, or every `*.json` directly in
/// a folder, read with `git ls-tree` and `git show`, run in that folder
/// (or the file's), so the path may be the repository's root, absolute,
/// or outside the current folder's repository.
fn git_side(rev: &str, path: &Path) -> Result<Vec<Source>, String> {
    let (parent, name) = parent_and_name(path)?;
    let folder = path.is_dir();
    let cwd = if folder { parent.join(&name) } else { parent };
    let git = |args: &[&str]| -> Result<Vec<u8>, String> {
        let out =
            Command::new("git").arg("-C").arg(&cwd).args(args).output().map_err(|e| format!("cannot run git: {e}"))?;
        if out.status.success() {
            Ok(out.stdout)
        } else {
            Err(format!("git {}: {}", args.join(" "), String::from_utf8_lossy(&out.stderr).trim()))
        }
    };
    // `<rev>:<folder>/<file>`, or `<rev>:./<file>`: the file name is the
    // last component, as the label check reads it.
    let files: Vec<(String, String)> = if folder {
        let listing = git(&["ls-tree", "-z", "--name-only", rev, "--", "./"])?;
        listing
            .split(|&b| b == 0)
            .map(|n| String::from_utf8_lossy(n).into_owned())
            .filter(|n| n.ends_with(".json") && !n.contains('/'))
            .map(|n| (format!("./{n}"), format!("{rev}:{name}/{n}")))
            .collect()
    } else {
        vec![(format!("./{name}"), format!("{rev}:./{name}"))]
    };
    files.into_iter().map(|(file, shown)| Ok(Source::new(shown, git(&["show", &format!("{rev}:{file}")])?))).collect()
}
