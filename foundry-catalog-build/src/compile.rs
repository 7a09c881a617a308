//! Writing a compiled output: the output file itself (the header naming
//! every definition, one `include!` per shard, the registry) and the
//! shards, files of consecutive record types in a folder beside it
//! (`records.rs` → `records.d/<first record label>.rs`). With every
//! `include!` replaced by the file it names, the output is what
//! [`Generator::generate`](crate::Generator::generate) returns, byte for
//! byte.
//!
//! Shards keep an edit local without a file per record type (creating a
//! thousand files costs more than generating them). A shard ends after
//! each record type whose label's CRC-32 is a multiple of
//! [`SHARD_SPREAD`], so it holds that many record types on average, and
//! adding or removing a record type moves no boundary but its own: an edit
//! rewrites one shard, copying the code of its unchanged record types from
//! the old file. Each file is written only when its bytes change, beside
//! its name and renamed over it, so a reader never sees half a file.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

use crate::cache::{self, Previous, Shard, Span, Stamp};
use crate::emit::{self, Sink};
use crate::error::{DefinitionError, Errors};
use crate::files::{self, Source};
use crate::layout::string_literal;

/// Record types per shard, on average.
pub(crate) const SHARD_SPREAD: u32 = 32;

/// What [`Generator::compile`](crate::Generator::compile) did.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Compilation {
    /// Whether any file was written or removed; `false` when the output
    /// and its shards already held exactly these bytes.
    pub written: bool,
    /// The definitions generated in this run, by path, sorted; every other
    /// definition's code was kept from the previous run.
    pub generated: Vec<String>,
    /// How many definitions' code was kept from the previous run.
    pub reused: usize,
}

/// Where a compiled output's files go.
#[derive(Debug, Clone)]
pub(crate) struct Layout {
    output: PathBuf,
    dir: PathBuf,
    /// The folder's name, as `include!` names it from the output.
    dir_name: String,
}

impl Layout {
    /// The layout of `output`: its shards go in the folder named like it
    /// with the extension `d`.
    pub(crate) fn new(output: &Path) -> Result<Layout, DefinitionError> {
        let refuse =
            |reason: &str| DefinitionError::Read { file: output.display().to_string(), reason: reason.to_owned() };
        if output.extension().is_some_and(|e| e == "d") {
            return Err(refuse("the output's extension may not be `d`: its shards go in the folder `<name>.d`"));
        }
        let dir = output.with_extension("d");
        let dir_name = dir
            .file_name()
            .and_then(|n| n.to_str())
            .ok_or_else(|| refuse("the output needs a file name in UTF-8"))?
            .to_owned();
        Ok(Layout { output: output.to_owned(), dir, dir_name })
    }

    /// The file of the shard `name`.
    fn shard_file(&self, name: &str) -> PathBuf {
        self.dir.join(format!("{name}.rs"))
    }
}

/// One record type of the output, in output order.
pub(crate) struct Part<'a> {
    pub(crate) source: &'a Source,
    pub(crate) record_label: String,
    pub(crate) type_name: String,
    pub(crate) code: Code<'a>,
}

/// A record type's code: generated now, or where it lies in the previous
/// output.
pub(crate) enum Code<'a> {
    Fresh(String),
    Reused(&'a Span),
}

/// The shards of `parts`, as ranges of them.
fn shards(parts: &[Part<'_>]) -> Vec<std::ops::Range<usize>> {
    let mut shards = Vec::new();
    let mut start = 0;
    for (i, part) in parts.iter().enumerate() {
        if crc32fast::hash(part.record_label.as_bytes()).is_multiple_of(SHARD_SPREAD) || i + 1 == parts.len() {
            shards.push(start..i + 1);
            start = i + 1;
        }
    }
    shards
}

/// Writes the shards that changed, removes those that are gone, writes the
/// output with `registry` and, when anything changed, the index. A reused
/// record type whose code is no longer in the previous output as the index
/// says is generated again with `regenerate`.
pub(crate) fn write(
    layout: &Layout,
    parts: &[Part<'_>],
    registry: &str,
    identity: Option<&str>,
    previous: Option<&Previous>,
    regenerate: &dyn Fn(&Source) -> Result<String, Errors>,
) -> Result<Compilation, Errors> {
    let write_error = |path: &Path, e: std::io::Error| DefinitionError::Read {
        file: path.display().to_string(),
        reason: format!("cannot write generated code: {e}"),
    };
    std::fs::create_dir_all(&layout.dir).map_err(|e| write_error(&layout.dir, e))?;
    let ranges = shards(parts);
    let kept: Vec<Option<Stamp>> =
        ranges.iter().map(|r| previous.and_then(|p| kept_shard(p, layout, &parts[r.clone()]))).collect();

    // The old shards that rewritten shards copy from, read before any file
    // is written (a new shard may take an old one's name).
    let mut old: BTreeMap<usize, Option<Vec<u8>>> = BTreeMap::new();
    for (range, kept) in ranges.iter().zip(&kept) {
        for part in &parts[range.clone()] {
            if let (None, Code::Reused(span)) = (kept, &part.code) {
                old.entry(span.shard).or_insert_with(|| {
                    let name = &previous?.shards().get(span.shard)?.name;
                    std::fs::read(layout.shard_file(name)).ok()
                });
            }
        }
    }

    let mut spans: Vec<Span> = Vec::with_capacity(parts.len());
    let mut new_shards: Vec<Option<Shard>> = Vec::with_capacity(ranges.len());
    let mut generated: BTreeSet<&str> =
        parts.iter().filter(|p| matches!(p.code, Code::Fresh(_))).map(|p| p.source.path.as_str()).collect();
    let mut written = false;
    for (k, (range, kept)) in ranges.iter().zip(&kept).enumerate() {
        let name = parts[range.start].record_label.clone();
        if let Some(stamp) = kept {
            for part in &parts[range.clone()] {
                if let Code::Reused(span) = &part.code {
                    spans.push(Span { shard: k, ..(*span).clone() });
                }
            }
            new_shards.push(Some(Shard { name, stamp: *stamp }));
            continue;
        }
        let mut content = Vec::new();
        for (i, part) in parts[range.clone()].iter().enumerate() {
            if i > 0 {
                content.push(b'\n');
            }
            let start = content.len();
            let copied = match &part.code {
                Code::Fresh(code) => Some(code.as_bytes()),
                Code::Reused(span) => old.get(&span.shard).and_then(|bytes| span.code_in(bytes.as_deref()?)),
            };
            match copied {
                Some(code) => content.extend_from_slice(code),
                None => {
                    content.extend_from_slice(regenerate(part.source)?.as_bytes());
                    generated.insert(&part.source.path);
                }
            }
            let crc = crc32fast::hash(&content[start..]);
            spans.push(Span { shard: k, range: start..content.len(), crc });
        }
        let file = layout.shard_file(&name);
        written |= files::write_if_changed(&file, &content).map_err(|e| write_error(&file, e))?;
        new_shards.push(Stamp::of(&file).map(|stamp| Shard { name, stamp }));
    }
    let removed = remove_stale(layout, &new_shards, previous);

    let mut top = Includes { out: String::new(), dir_name: &layout.dir_name, shards: &ranges, parts };
    let files = parts.iter().map(|p| p.source.path.as_str());
    emit::join(files, ranges.len(), registry, &mut top).map_err(|e| write_error(&layout.output, e))?;
    written |=
        files::write_if_changed(&layout.output, top.out.as_bytes()).map_err(|e| write_error(&layout.output, e))?;

    let unchanged = previous.is_some_and(|p| p.len() == parts.len())
        && kept.iter().all(Option::is_some)
        && generated.is_empty()
        && !removed;
    if let Some(identity) = identity.filter(|_| !unchanged) {
        write_index(layout, identity, parts, &spans, &new_shards);
    }
    Ok(Compilation {
        written: written || removed,
        generated: generated.iter().map(|&p| p.to_owned()).collect(),
        reused: parts.len() - generated.len(),
    })
}

/// The stamp of the previous shard that holds exactly `parts` (all reused,
/// in this order, and nothing else), under the name this shard gets, if
/// its file is unchanged since.
fn kept_shard(previous: &Previous, layout: &Layout, parts: &[Part<'_>]) -> Option<Stamp> {
    let name = &parts.first()?.record_label;
    let (j, shard) = previous.shards().iter().enumerate().find(|(_, s)| s.name == *name)?;
    if previous.members(j) != parts.len() {
        return None;
    }
    let mut end = None;
    for part in parts {
        let Code::Reused(span) = &part.code else { return None };
        // Record types are separated by one line end.
        let start = end.map_or(0, |end: usize| end + 1);
        if span.shard != j || span.range.start != start {
            return None;
        }
        end = Some(span.range.end);
    }
    let whole = end.and_then(|end| u64::try_from(end).ok()) == Some(shard.stamp.len());
    (whole && Stamp::of(&layout.shard_file(name)) == Some(shard.stamp)).then_some(shard.stamp)
}

/// Writes the index of this output; one that cannot be complete (a shard
/// that could not be stamped) is removed instead,
/// since it would not match. Failures only cost time on the next run.
fn write_index(layout: &Layout, identity: &str, parts: &[Part<'_>], spans: &[Span], shards: &[Option<Shard>]) {
    let shards: Option<Vec<Shard>> = shards.iter().cloned().collect();
    let produced: Vec<cache::Produced<'_>> = parts
        .iter()
        .zip(spans)
        .map(|(part, span)| cache::Produced {
            path: &part.source.path,
            bytes: &part.source.bytes,
            record_label: &part.record_label,
            type_name: &part.type_name,
            span,
        })
        .collect();
    let path = cache::index_path(&layout.output);
    match shards {
        Some(shards) => {
            let _ = files::replace(&path, &cache::encode(identity, &shards, &produced));
        }
        None => {
            let _ = std::fs::remove_file(&path);
        }
    }
}

/// Removes the files of shards the output no longer has: those the
/// previous index names, or without one every `*.rs` file (and leftover
/// temporary file) of the folder. Returns whether any was removed.
fn remove_stale(layout: &Layout, shards: &[Option<Shard>], previous: Option<&Previous>) -> bool {
    let keep: BTreeSet<&str> = shards.iter().flatten().map(|s| s.name.as_str()).collect();
    let stale: Vec<PathBuf> = match previous {
        Some(previous) => previous
            .shards()
            .iter()
            .filter(|s| !keep.contains(s.name.as_str()))
            .map(|s| layout.shard_file(&s.name))
            .collect(),
        None => std::fs::read_dir(&layout.dir)
            .map(|entries| {
                let stale = |p: &Path| match p.extension().and_then(|e| e.to_str()) {
                    Some("tmp") => true,
                    Some("rs") => p.file_stem().and_then(|s| s.to_str()).is_none_or(|name| !keep.contains(name)),
                    _ => false,
                };
                entries.flatten().map(|e| e.path()).filter(|p| stale(p)).collect()
            })
            .unwrap_or_default(),
    };
    let mut removed = false;
    for path in &stale {
        removed |= std::fs::remove_file(path).is_ok();
    }
    removed
}

/// The output file's text: an `include!` of each shard's file in place of
/// its record types' code.
struct Includes<'a> {
    out: String,
    dir_name: &'a str,
    shards: &'a [std::ops::Range<usize>],
    parts: &'a [Part<'a>],
}

impl Sink for Includes<'_> {
    fn text(&mut self, text: &str) -> std::io::Result<()> {
        self.out.push_str(text);
        Ok(())
    }

    fn block(&mut self, index: usize) -> std::io::Result<()> {
        let missing = || std::io::Error::other("no such shard");
        let first = self.shards.get(index).ok_or_else(missing)?.start;
        let name = &self.parts.get(first).ok_or_else(missing)?.record_label;
        let path = format!("{}/{name}.rs", self.dir_name);
        self.out.push_str(&format!("include!({});\n", string_literal(&path)));
        Ok(())
    }
}
