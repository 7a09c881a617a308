//! `foundry-catalog diff`: what changed between two sets of record-type
//! definitions, and whether readers still read across it.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use foundry_catalog_build::diff::{Compatibility, Report, diff, place_in};
use foundry_catalog_build::{Generator, Source};

use crate::{BROKEN, USAGE, fail};

/// Compare record-type definitions and gate on compatibility.
///
/// Each side is a definition file or a folder of them; with --base REV the
/// old side is the same path at a git revision (read with `git`, nothing
/// checked out); with --history, every version of the path in git history
/// is an old side in turn. Record types are matched by label, fields by
/// wire name. Every change is listed with its effect on schema_hash and on
/// strict and tolerant readers. Exit code 1 when a change breaks --mode.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// OLD and NEW definitions (each a file or a folder); with --base or --history, NEW only.
    #[arg(value_name = "OLD NEW", required = true, num_args = 1..=2)]
    paths: Vec<PathBuf>,
    /// Read the old side from this git revision, at NEW's path.
    #[arg(long, value_name = "REV", conflicts_with = "history")]
    base: Option<String>,
    /// Check NEW against every earlier version of its path in git history
    /// (the commits of `git log REVS -- NEW`, newest first; REVS, given as
    /// --history=REVS, is a revision, a range such as v1.0..HEAD, or HEAD
    /// when left out), as
    /// Schema Registry's transitive modes do: a change that the last
    /// version allows may break an older one, whose readers are still out
    /// there.
    #[arg(long, value_name = "REVS", num_args = 0..=1, require_equals = true, default_missing_value = "HEAD")]
    history: Option<String>,
    /// The compatibility a change must keep: backward (new readers read old
    /// records), forward (old readers read new records) or full (both).
    #[arg(long, value_enum, default_value_t = Mode::Full)]
    mode: Mode,
    /// Judge for tolerant readers (they ignore unknown keys) instead of
    /// strict ones (they reject them, as the validator and the JSON Schemas do).
    #[arg(long)]
    tolerant: bool,
    /// Report as text, JSON, GitHub Actions annotations (an error at the
    /// definition's file and line for each change that breaks --mode, a
    /// notice for the others) or SARIF 2.1.0 (for code scanning).
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
    Github,
    Sarif,
}

/// One old side compared with NEW: its git revision (none for a second
/// path), and the report.
struct Compared {
    revision: Option<Revision>,
    report: Report,
    /// The old side's files, for a change placed in one (a removed type).
    old: Vec<Source>,
}

/// An old side to compare, read or not: its revision, if any, and its files.
type OldSide = (Option<Revision>, Result<Vec<Source>, String>);

/// A commit whose version of the definitions is compared.
#[derive(Debug, Clone)]
struct Revision {
    commit: String,
    subject: String,
}

pub(crate) fn run(args: &Args) -> ExitCode {
    for rev in args.base.iter().chain(&args.history) {
        if rev.starts_with('-') {
            return fail(USAGE, format!("{rev:?} is not a git revision"));
        }
    }
    let generator = Generator::new();
    let checked = |sources: &[Source]| generator.check(sources).map_err(|e| e.to_string());
    let new_path = match args.paths.as_slice() {
        [path] if args.base.is_some() || args.history.is_some() => path,
        [_, new] if args.base.is_none() && args.history.is_none() => new,
        _ => return fail(USAGE, "give OLD and NEW, or --base REV (or --history) and NEW"),
    };
    let new_sources = match local_side(new_path) {
        Ok(sources) => sources,
        Err(e) => return fail(USAGE, e),
    };
    let new = match checked(&new_sources) {
        Ok(new) => new,
        Err(e) => {
            eprintln!("{e}");
            return ExitCode::from(USAGE);
        }
    };
    // Each old side in turn: a second path, a revision, or every version in history.
    let olds: Vec<OldSide> = match (&args.base, &args.history, &args.paths[..]) {
        (Some(rev), _, _) => vec![(None, git_side(rev, new_path))],
        (_, Some(revs), _) => match history(revs, new_path) {
            Ok(revisions) => revisions
                .into_iter()
                .map(|revision| {
                    let side = git_side(&revision.commit, new_path);
                    (Some(revision), side)
                })
                .collect(),
            Err(e) => return fail(USAGE, e),
        },
        (_, _, [old, _]) => vec![(None, local_side(old))],
        _ => Vec::new(),
    };
    let mut compared = Vec::new();
    for (revision, old) in olds {
        let old = match old {
            Ok(old) => old,
            Err(e) => return fail(USAGE, e),
        };
        match checked(&old) {
            Ok(checked) => compared.push(Compared { revision, report: diff(&checked, &new), old }),
            // An old version that never checked had no readers to keep.
            Err(e) if revision.is_some() => {
                let short = revision.as_ref().map(|r| short(&r.commit)).unwrap_or_default();
                eprintln!("warning: skipped version {short}: its definitions do not check:\n{e}");
            }
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::from(USAGE);
            }
        }
    }
    let mode = Compatibility::from(args.mode);
    let strict = !args.tolerant;
    let readers = if args.tolerant { "tolerant" } else { "strict" };
    match args.format {
        Format::Text => {
            for c in &compared {
                match &c.revision {
                    Some(revision) => {
                        crate::outln!("against {} ({}):", short(&revision.commit), revision.subject);
                        for line in c.report.to_text().lines() {
                            crate::outln!("  {line}");
                        }
                    }
                    None => crate::out!("{}", c.report.to_text()),
                }
            }
            if args.history.is_some() && compared.is_empty() {
                crate::outln!("no earlier version in history");
            }
        }
        Format::Json => {
            let side = |c: &Compared| {
                serde_json::json!({
                    "revision": c.revision.as_ref().map(|r| serde_json::json!({"commit": r.commit, "subject": r.subject})),
                    "changes": c.report.changes,
                    "hashes": c.report.hashes,
                    "violations": c.report.violations(mode, strict),
                })
            };
            let json = match (&args.history, compared.as_slice()) {
                (None, [only]) => {
                    let mut json = side(only);
                    if let Some(object) = json.as_object_mut() {
                        object.remove("revision");
                        object.insert("mode".to_owned(), serde_json::json!(mode));
                        object.insert("readers".to_owned(), serde_json::json!(readers));
                    }
                    json
                }
                _ => serde_json::json!({
                    "mode": mode,
                    "readers": readers,
                    "versions": compared.iter().map(side).collect::<Vec<_>>(),
                }),
            };
            crate::outln!("{}", serde_json::to_string_pretty(&json).unwrap_or_default());
        }
        Format::Github => {
            for annotation in annotations(&compared, &new_sources, mode, strict) {
                crate::outln!("{}", annotation.github());
            }
        }
        Format::Sarif => {
            let log = sarif(&annotations(&compared, &new_sources, mode, strict));
            crate::outln!("{}", serde_json::to_string_pretty(&log).unwrap_or_default());
        }
    }
    let mut broken = false;
    for c in &compared {
        let against = c.revision.as_ref().map(|r| format!(" against version {} ({})", short(&r.commit), r.subject));
        for v in c.report.violations(mode, strict) {
            broken = true;
            let field = v.field.as_deref().map(|f| format!(", field `{f}`")).unwrap_or_default();
            eprintln!(
                "error: {}: record type `{}`{field}: {} is {} for {readers} readers, not {mode}{}; hint: {}",
                v.file,
                v.record_label,
                v.kind,
                if args.tolerant { v.tolerant } else { v.strict },
                against.as_deref().unwrap_or_default(),
                v.hint
            );
        }
    }
    if broken { ExitCode::from(BROKEN) } else { ExitCode::SUCCESS }
}

/// A commit's short name.
fn short(commit: &str) -> &str {
    commit.get(..12).unwrap_or(commit)
}

/// One change to annotate: where it is, how grave, and what it says.
struct Annotation {
    /// The file, as the repository names it (a revision's `REV:` dropped).
    file: String,
    place: Option<(usize, usize)>,
    error: bool,
    kind: String,
    hint: &'static str,
    message: String,
    revision: Option<String>,
}

impl Annotation {
    /// A GitHub Actions workflow command (`::error file=…,line=…::…`).
    fn github(&self) -> String {
        // The escapes of the runner's command parser: `%`, CR and LF
        // everywhere, and `:` and `,` in properties too.
        let data = |text: &str| text.replace('%', "%25").replace('\r', "%0D").replace('\n', "%0A");
        let property = |text: &str| data(text).replace(':', "%3A").replace(',', "%2C");
        let mut properties = vec![format!("file={}", property(&self.file))];
        if let Some((line, column)) = self.place {
            properties.push(format!("line={line},col={column}"));
        }
        properties.push(format!("title={}", property(&format!("foundry-catalog diff: {}", self.kind))));
        let level = if self.error { "error" } else { "notice" };
        format!("::{level} {}::{}", properties.join(","), data(&self.message))
    }
}

/// Every change of every comparison, placed in its file: the new side's,
/// or the old side's for a record type only the old side has.
fn annotations(compared: &[Compared], new: &[Source], mode: Compatibility, strict: bool) -> Vec<Annotation> {
    let mut out = Vec::new();
    for c in compared {
        let violations = c.report.violations(mode, strict);
        for change in &c.report.changes {
            let source = new.iter().chain(&c.old).find(|s| s.path == change.file);
            let place = source.and_then(|s| std::str::from_utf8(&s.bytes).ok()).and_then(|t| place_in(t, change));
            let file = match (&c.revision, change.file.split_once(':')) {
                (Some(_), Some((_, path))) if !new.iter().any(|s| s.path == change.file) => path,
                _ => change.file.as_str(),
            };
            let file = file.strip_prefix("./").unwrap_or(file).to_owned();
            let field = change.field.as_deref().map(|f| format!(", field `{f}`")).unwrap_or_default();
            let readers = if strict { change.strict } else { change.tolerant };
            let against = c.revision.as_ref().map(|r| format!("; against version {}", short(&r.commit)));
            out.push(Annotation {
                file,
                place,
                error: violations.iter().any(|v| std::ptr::eq(*v, change)),
                kind: change.kind.to_string(),
                hint: change.hint,
                message: format!(
                    "record type `{}`{field}: {} ({}): {readers} for {} readers, --mode {mode}{}",
                    change.record_label,
                    change.detail,
                    change.kind,
                    if strict { "strict" } else { "tolerant" },
                    against.unwrap_or_default()
                ),
                revision: c.revision.as_ref().map(|r| r.commit.clone()),
            });
        }
    }
    out
}

/// A SARIF 2.1.0 log of the annotations: one run, a rule per kind of
/// change (its hint as help), a result per change (`error` for one that
/// breaks the mode asked, `note` otherwise) at its file and line.
fn sarif(annotations: &[Annotation]) -> serde_json::Value {
    use serde_json::json;
    let kinds: std::collections::BTreeMap<&str, &str> = annotations.iter().map(|a| (a.kind.as_str(), a.hint)).collect();
    let index: std::collections::BTreeMap<&str, usize> = kinds.keys().enumerate().map(|(i, k)| (*k, i)).collect();
    let rules: Vec<_> = kinds
        .iter()
        .map(|(kind, hint)| {
            json!({
                "id": kind,
                "name": kind,
                "shortDescription": {"text": format!("A definition change: {kind}")},
                "help": {"text": hint},
            })
        })
        .collect();
    let results: Vec<_> = annotations
        .iter()
        .map(|a| {
            let mut location = json!({"artifactLocation": {"uri": a.file}});
            if let Some((line, column)) = a.place {
                location["region"] = json!({"startLine": line, "startColumn": column});
            }
            let mut result = json!({
                "ruleId": a.kind,
                "ruleIndex": index.get(a.kind.as_str()).copied().unwrap_or_default(),
                "level": if a.error { "error" } else { "note" },
                "message": {"text": a.message},
                "locations": [{"physicalLocation": location}],
            });
            if let Some(revision) = &a.revision {
                result["properties"] = json!({"againstRevision": revision});
            }
            result
        })
        .collect();
    json!({
        "$schema": "https://json.schemastore.org/sarif-2.1.0.json",
        "version": "2.1.0",
        "runs": [{
            "tool": {"driver": {
                "name": "foundry-catalog diff",
                "version": env!("CARGO_PKG_VERSION"),
                "informationUri": concat!(env!("CARGO_PKG_REPOSITORY"), "/blob/main/docs/evolution.md"),
                "rules": rules,
            }},
            "results": results,
        }],
    })
}

/// The commits of `git log REVS -- PATH` (newest first) with their subjects.
fn history(revs: &str, path: &Path) -> Result<Vec<Revision>, String> {
    let (parent, name) = parent_and_name(path)?;
    let folder = path.is_dir();
    let cwd = if folder { parent.join(&name) } else { parent };
    let spec = if folder { "./".to_owned() } else { format!("./{name}") };
    let out = Command::new("git")
        .arg("-C")
        .arg(&cwd)
        .args(["log", "-z", "--format=%H%x09%s", revs, "--", &spec])
        .output()
        .map_err(|e| format!("cannot run git: {e}"))?;
    if !out.status.success() {
        return Err(format!("git log {revs}: {}", String::from_utf8_lossy(&out.stderr).trim()));
    }
    Ok(out
        .stdout
        .split(|&b| b == 0)
        .filter_map(|entry| {
            let entry = String::from_utf8_lossy(entry);
            let (commit, subject) = entry.trim_start_matches('\n').split_once('\t')?;
            Some(Revision { commit: commit.to_owned(), subject: subject.to_owned() })
        })
        .collect())
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
