//! `foundry-catalog diff`: what changed between two sets of record-type
//! definitions, and whether readers still read across it.

use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};

use foundry_catalog_build::diff::{ChangeKind, Compatibility, Report, diff, place_in};
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
    /// How files are named in every format: `repo`, from the root of the
    /// git repository that holds them (what GitHub annotations and code
    /// scanning need; as given outside a repository), or `cwd`, as given
    /// on the command line. A removed type is named at its old path.
    #[arg(long, value_enum, value_name = "FROM", default_value_t = RelativeTo::Repo)]
    relative_to: RelativeTo,
}

/// Where the paths in a report start.
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
enum RelativeTo {
    Repo,
    Cwd,
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
        // `--history REVS NEW`: clap reads REVS as a path.
        [first, _] if args.history.is_some() && !first.exists() => {
            let first = first.display();
            return fail(
                USAGE,
                format!(
                    "{first}: no such file or folder; hint: --history takes its revisions after `=`: --history={first}"
                ),
            );
        }
        _ => return fail(USAGE, "give OLD and NEW, or --base REV (or --history) and NEW"),
    };
    let named = |path: &Path| Named::new(path, args.relative_to);
    let new_named = match named(new_path) {
        Ok(named) => named,
        Err(e) => return fail(USAGE, e),
    };
    let new_sources = match local_side(&new_named) {
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
        (Some(rev), _, _) => vec![(None, git_side(rev, &new_named))],
        (_, Some(revs), _) => match history(revs, &new_named) {
            Ok(revisions) => revisions
                .into_iter()
                .map(|revision| {
                    let side = git_side(&revision.commit, &new_named);
                    (Some(revision), side)
                })
                .collect(),
            Err(e) => return fail(USAGE, e),
        },
        (_, _, [old, _]) => vec![(None, named(old).and_then(|old| local_side(&old)))],
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
            let log = sarif(&annotations(&compared, &new_sources, mode, strict), args.relative_to);
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
    kind: ChangeKind,
    message: String,
    revision: Option<String>,
    /// What stays the same while lines move: the file, the record type,
    /// the field, the kind of change and the revision compared with.
    identity: String,
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
        properties.push(format!("title={}", property(&format!("foundry-catalog diff: {}", self.kind.as_str()))));
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
            // A removed type is in the old side's file, whatever the new side holds at that path.
            let (first, second) =
                if change.kind == ChangeKind::TypeRemoved { (c.old.as_slice(), new) } else { (new, c.old.as_slice()) };
            let source = first.iter().chain(second).find(|s| s.path == change.file);
            let place = source.and_then(|s| std::str::from_utf8(&s.bytes).ok()).and_then(|t| place_in(t, change));
            let file = change.file.clone();
            let field = change.field.as_deref().map(|f| format!(", field `{f}`")).unwrap_or_default();
            let readers = if strict { change.strict } else { change.tolerant };
            let against = c.revision.as_ref().map(|r| format!("; against version {}", short(&r.commit)));
            out.push(Annotation {
                file,
                place,
                error: violations.iter().any(|v| std::ptr::eq(*v, change)),
                kind: change.kind,
                identity: [
                    change.file.as_str(),
                    &change.record_label,
                    change.field.as_deref().unwrap_or_default(),
                    change.kind.as_str(),
                    c.revision.as_ref().map(|r| r.commit.as_str()).unwrap_or_default(),
                ]
                .join("\0"),
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
/// change (its verdicts as the full description, its hint as help), a
/// result per change (`error` for one that breaks the mode asked, `note`
/// otherwise) at its file and line, with a fingerprint that survives the
/// line moving. Paths are from the repository's root (`%SRCROOT%`) unless
/// `--relative-to cwd` was asked.
fn sarif(annotations: &[Annotation], relative_to: RelativeTo) -> serde_json::Value {
    use serde_json::json;
    use sha2::Digest;
    let kinds: std::collections::BTreeSet<ChangeKind> = annotations.iter().map(|a| a.kind).collect();
    let index: std::collections::BTreeMap<ChangeKind, usize> = kinds.iter().enumerate().map(|(i, k)| (*k, i)).collect();
    let rules: Vec<_> = kinds.iter().map(|kind| rule(*kind)).collect();
    let results: Vec<_> = annotations
        .iter()
        .map(|a| {
            let mut location = json!({"artifactLocation": {"uri": uri(&a.file)}});
            // From the checkout's root only when the path is: not outside a
            // repository (as given, absolute or up from the current folder).
            if relative_to == RelativeTo::Repo && !a.file.starts_with('/') && !a.file.starts_with("../") {
                location["artifactLocation"]["uriBaseId"] = json!("%SRCROOT%");
            }
            if let Some((line, column)) = a.place {
                location["region"] = json!({"startLine": line, "startColumn": column});
            }
            let mut result = json!({
                "ruleId": a.kind.as_str(),
                "ruleIndex": index.get(&a.kind).copied().unwrap_or_default(),
                "level": if a.error { "error" } else { "note" },
                "message": {"text": a.message},
                "locations": [{"physicalLocation": location}],
                "partialFingerprints": {"definitionChange/v1": hex::encode(sha2::Sha256::digest(a.identity.as_bytes()))},
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
                "informationUri": EVOLUTION_DOC,
                "rules": rules,
            }},
            "results": results,
        }],
    })
}

/// A path as a relative URI reference: every byte but the unreserved
/// ones and `/` percent-encoded (a space, `%`, `#`, `?` and non-ASCII).
fn uri(path: &str) -> String {
    path.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'.' | b'_' | b'~' | b'/' => char::from(b).to_string(),
            _ => format!("%{b:02X}"),
        })
        .collect()
}

/// The page that explains every kind of change.
const EVOLUTION_DOC: &str = concat!(env!("CARGO_PKG_REPOSITORY"), "/blob/main/docs/evolution.md");

/// A SARIF rule for a kind of change: its wire name as the id, a readable
/// name (`OptionalFieldRemoved`), what it does to readers and to
/// `schema_hash`, and how to make it safely.
fn rule(kind: ChangeKind) -> serde_json::Value {
    let words = kind.as_str().replace('_', " ");
    let sentence = words.get(..1).map(|first| first.to_uppercase() + &words[1..]).unwrap_or_default();
    let name: String = kind
        .as_str()
        .split('_')
        .map(|word| word.get(..1).map(|first| first.to_uppercase() + &word[1..]).unwrap_or_default())
        .collect();
    let (strict, tolerant) = kind.compatibility();
    let hash = if kind.changes_hash() { "changes" } else { "keeps" };
    serde_json::json!({
        "id": kind.as_str(),
        "name": name,
        "shortDescription": {"text": format!("{sentence}.")},
        "fullDescription": {"text": format!(
            "{sentence}: {} for strict readers, {} for tolerant readers; it {hash} schema_hash.",
            strict.as_str(),
            tolerant.as_str()
        )},
        "help": {"text": kind.hint()},
        "helpUri": EVOLUTION_DOC,
    })
}

/// The commits of `git log REVS -- PATH` (newest first) with their subjects.
fn history(revs: &str, named: &Named) -> Result<Vec<Revision>, String> {
    let spec = named.file.as_deref().map_or_else(|| "./".to_owned(), |file| format!("./{file}"));
    let out = git(named, revs, &["log", "-z", "--format=%H%x09%s", revs, "--", &spec])?;
    Ok(out
        .split(|&b| b == 0)
        .filter_map(|entry| {
            let entry = String::from_utf8_lossy(entry);
            let (commit, subject) = entry.trim_start_matches('\n').split_once('\t')?;
            Some(Revision { commit: commit.to_owned(), subject: subject.to_owned() })
        })
        .collect())
}

/// A side's path, resolved: the folder that holds the definitions (or the
/// one definition file), and how its files are named in the report.
struct Named {
    /// The definitions' folder, absolute.
    folder: PathBuf,
    /// The file, when the side is one file (its name in `folder`).
    file: Option<String>,
    /// What a file name in `folder` is prefixed with in the report: the
    /// folder from the repository's root, or as given, ending in `/` (or empty).
    prefix: String,
}

impl Named {
    /// `path` (a file or a folder, `.` and absolute paths too) made
    /// absolute, and the prefix its files are shown with.
    fn new(path: &Path, relative_to: RelativeTo) -> Result<Named, String> {
        let canonical = |p: &Path| p.canonicalize().map_err(|e| format!("{}: {e}", path.display()));
        let utf8 = |p: &Path| {
            p.to_str().map(str::to_owned).ok_or_else(|| format!("{}: a name that is not UTF-8", p.display()))
        };
        let full = canonical(path)?;
        let (folder, file, given) = if full.is_dir() {
            (full, None, path.to_owned())
        } else {
            // The file by the name it was given (a link keeps its own name,
            // which the label check reads), in its folder made absolute.
            let name = path.file_name().map(Path::new).map(utf8).transpose()?.unwrap_or_default();
            let parent = path.parent().filter(|p| !p.as_os_str().is_empty()).unwrap_or(Path::new("."));
            (canonical(parent)?, Some(name), parent.to_owned())
        };
        // `git rev-parse --show-prefix`: the folder from the root of its
        // repository ("" at the root); outside one, the path as given.
        let from_root = match relative_to {
            RelativeTo::Repo => {
                match Command::new("git").arg("-C").arg(&folder).args(["rev-parse", "--show-prefix"]).output() {
                    Ok(out) if out.status.success() => {
                        String::from_utf8(out.stdout).ok().map(|prefix| prefix.trim_end_matches('\n').to_owned())
                    }
                    // Outside a repository, paths are as given; any other
                    // refusal (a repository git will not read, "dubious
                    // ownership") is said, not silently worked around.
                    Ok(out) => {
                        let stderr = String::from_utf8_lossy(&out.stderr);
                        if !stderr.contains("not a git repository") {
                            eprintln!(
                                "warning: {}: paths are as given, not from the repository's root: git says: {}",
                                folder.display(),
                                stderr.trim().replace('\n', " ")
                            );
                        }
                        None
                    }
                    Err(_) => None,
                }
            }
            RelativeTo::Cwd => None,
        };
        let prefix = match from_root {
            Some(prefix) => prefix,
            None => {
                let given = utf8(&given)?;
                let given = given.trim_start_matches("./").trim_end_matches('/');
                if given.is_empty() || given == "." { String::new() } else { format!("{given}/") }
            }
        };
        Ok(Named { folder, file, prefix })
    }

    /// How the file `name` of this side's folder is shown.
    fn shown(&self, name: &str) -> String {
        format!("{}{name}", self.prefix)
    }
}

/// A file, or every `*.json` in a folder, named as the report shows them.
fn local_side(named: &Named) -> Result<Vec<Source>, String> {
    let Some(file) = &named.file else {
        let (root, dir) = match (named.folder.parent(), named.folder.file_name().and_then(|n| n.to_str())) {
            (Some(root), Some(dir)) => (root, dir),
            _ => (named.folder.as_path(), "."),
        };
        let sources = Source::read_dir(root, dir).map_err(|e| e.to_string())?;
        return Ok(sources
            .into_iter()
            .map(|s| {
                let name = s.path.rsplit('/').next().unwrap_or_default().to_owned();
                Source::new(named.shown(&name), s.bytes)
            })
            .collect());
    };
    let path = named.folder.join(file);
    let bytes = std::fs::read(&path).map_err(|e| format!("{}: {e}", named.shown(file)))?;
    Ok(vec![Source::new(named.shown(file), bytes)])
}

/// Runs `git` in the side's folder, and says what went wrong as a person
/// would: not a repository, an unknown revision (a shallow clone), no git.
fn git(named: &Named, rev: &str, args: &[&str]) -> Result<Vec<u8>, String> {
    let out = Command::new("git").arg("-C").arg(&named.folder).args(args).output().map_err(|e| {
        format!("cannot run git: {e}; hint: --base and --history read git history; install git, or compare two paths (diff OLD NEW)")
    })?;
    if out.status.success() {
        return Ok(out.stdout);
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    let folder = named.folder.display();
    Err(if stderr.contains("not a git repository") {
        format!(
            "{folder} is not in a git repository; hint: --base and --history read git history; compare two paths instead (diff OLD NEW)"
        )
    } else if ["unknown revision", "bad revision", "invalid object name", "Not a valid object name", "bad object"]
        .iter()
        .any(|needle| stderr.contains(needle))
    {
        format!(
            "`{rev}` is not a revision of the repository that holds {folder}; hint: name a commit, branch or tag (`git log --oneline` lists them); a shallow clone lacks older commits (fetch them with `git fetch --unshallow`, or `fetch-depth: 0` in actions/checkout)"
        )
    } else {
        // git's first lines: what went wrong, and its own hint if it gives one.
        let said: Vec<&str> = stderr.lines().map(str::trim).filter(|l| !l.is_empty()).take(4).collect();
        format!("git {}: {}", args.join(" "), said.join(" ").trim_start_matches("fatal: "))
    })
}

/// The same path at a git revision: a file, or every `*.json` directly in
/// a folder, read with `git ls-tree` and `git show`, run in that folder
/// (so the path may be the repository's root, absolute, or outside the
/// current folder's repository). What was not there at the revision is an
/// empty side: every type in it is new.
fn git_side(rev: &str, named: &Named) -> Result<Vec<Source>, String> {
    let spec = named.file.as_deref().map_or_else(|| "./".to_owned(), |file| format!("./{file}"));
    let listing = git(named, rev, &["ls-tree", "-z", "--name-only", rev, "--", &spec])?;
    listing
        .split(|&b| b == 0)
        .map(|n| String::from_utf8_lossy(n).into_owned())
        .filter(|n| n.ends_with(".json") && !n.contains('/'))
        .map(|name| Ok(Source::new(named.shown(&name), git(named, rev, &["show", &format!("{rev}:./{name}")])?)))
        .collect()
}
