//! Incremental compilation (`Generator::compile`): the output with its
//! shards inlined is `generate`'s output; a warm run writes nothing; an
//! edit regenerates one definition and rewrites one shard; damaged,
//! stale and foreign state is never trusted and never a panic.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::PathBuf;

use foundry_catalog_build::{Compilation, Generator, Source};

/// A fresh, empty folder for one test, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("foundry-catalog-incremental-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("temp folder");
        TempDir(dir)
    }

    fn output(&self) -> PathBuf {
        self.0.join("records.rs")
    }

    fn shards(&self) -> PathBuf {
        self.0.join("records.d")
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

fn definition(label: &str, description: &str) -> Source {
    Source::new(
        format!("types/{label}.json"),
        format!(
            r#"{{"record_label": "{label}", "description": "{description}", "sample_type": "deterministic_executable_fixture",
                "fields": [{{"name": "entityName", "type": "string", "required": true, "description": "Name."}},
                           {{"name": "score", "type": "number", "required": false, "description": "Score.", "fixture": {{"fraction": 0.5}}}}]}}"#
        ),
    )
}

/// The corpus and enough small definitions for several shards.
fn sources() -> Vec<Source> {
    let root = crate::root();
    let mut sources = Source::read_dir(root, "tests/corpus/good").expect("corpus reads");
    sources.extend((0..150).map(|i| definition(&format!("type_{i:03}"), "One of many.")));
    sources
}

fn paths(sources: &[Source]) -> Vec<String> {
    let mut paths: Vec<String> = sources.iter().map(|s| s.path.clone()).collect();
    paths.sort();
    paths
}

/// The shard file an output line includes, if it is an `include!` line.
fn included(line: &str) -> Option<&str> {
    line.trim_end().strip_prefix("include!(\"records.d/").and_then(|rest| rest.strip_suffix("\");"))
}

/// The output with each `include!` line replaced by the shard it names.
fn inlined(dir: &TempDir) -> String {
    let output = fs::read_to_string(dir.output()).expect("output reads");
    let mut text = String::with_capacity(output.len() * 40);
    for line in output.split_inclusive('\n') {
        match included(line) {
            Some(file) => text.push_str(&fs::read_to_string(dir.shards().join(file)).expect("shard")),
            None => text.push_str(line),
        }
    }
    text
}

/// Every file of the output (not the index) with its inode and
/// modification time: a rewritten file gets a new inode (files are
/// written beside their name and renamed over it).
fn files(dir: &TempDir) -> BTreeMap<PathBuf, (u64, i64, i64)> {
    let shards = fs::read_dir(dir.shards()).expect("shard folder").map(|e| e.expect("entry").path());
    shards
        .chain([dir.output()])
        .map(|p| {
            let m = fs::metadata(&p).expect("metadata");
            (p, (m.ino(), m.mtime(), m.mtime_nsec()))
        })
        .collect()
}

fn compile(generator: &Generator, sources: &[Source], dir: &TempDir) -> Compilation {
    let compilation = generator.compile(sources, &dir.output()).expect("compiles");
    let expected = generator.generate(sources).expect("generates");
    assert_eq!(inlined(dir), expected, "the output with its shards inlined is generate's output");
    compilation
}

#[test]
fn a_warm_run_writes_nothing_and_an_edit_rewrites_one_shard() {
    let dir = TempDir::new("warm");
    let mut sources = sources();
    let generator = Generator::new();
    let cold = compile(&generator, &sources, &dir);
    assert!(cold.written);
    assert_eq!((cold.generated.clone(), cold.reused), (paths(&sources), 0), "a cold run generates everything");
    let cold_files = files(&dir);
    let shard_count = cold_files.len() - 1;
    assert!(shard_count >= 2, "several shards: {shard_count}");
    assert!(fs::read_to_string(dir.output()).expect("output").contains("include!(\"records.d/"));

    let warm = compile(&generator, &sources, &dir);
    assert_eq!((warm.written, warm.generated.len(), warm.reused), (false, 0, sources.len()), "{warm:?}");
    assert_eq!(files(&dir), cold_files, "a warm run touches no file");
    let one_thread = compile(&generator.clone().threads(1), &sources, &dir);
    assert!(one_thread.generated.is_empty());

    // An edit: one definition generated, one shard rewritten, the rest kept.
    let edited = sources.iter().position(|s| s.path == "types/type_077.json").expect("present");
    sources[edited] = definition("type_077", "Edited.");
    let after_edit = compile(&generator, &sources, &dir);
    assert_eq!(after_edit.generated, ["types/type_077.json"]);
    assert_eq!(after_edit.reused, sources.len() - 1);
    let changed: Vec<_> = files(&dir).into_iter().filter(|(p, stamp)| cold_files.get(p) != Some(stamp)).collect();
    assert_eq!(changed.len(), 1, "only the edited definition's shard is rewritten: {changed:?}");
    assert!(fs::read_to_string(&changed[0].0).expect("shard").contains("Edited."));

    // A definition's bytes changed but not its code: nothing is written, and
    // the index learns the new bytes, so the next run generates nothing.
    sources[edited].bytes.extend_from_slice(b"\n");
    let whitespace = compile(&generator, &sources, &dir);
    assert_eq!((whitespace.written, whitespace.generated.len()), (false, 1));
    assert!(compile(&generator, &sources, &dir).generated.is_empty());

    // Removing and adding definitions keeps the output right and removes
    // the shards that are gone.
    for removed in [0, 3, 40, 41, 42] {
        sources.remove(removed);
    }
    let after_removal = compile(&generator, &sources, &dir);
    assert!(after_removal.generated.is_empty(), "removing generates nothing: {after_removal:?}");
    sources.push(definition("type_999", "Added."));
    assert_eq!(compile(&generator, &sources, &dir).generated, ["types/type_999.json"]);
    let output = fs::read_to_string(dir.output()).expect("output");
    let expected_shards: std::collections::BTreeSet<String> =
        output.lines().filter_map(included).map(str::to_owned).collect();
    let actual_shards: std::collections::BTreeSet<String> = fs::read_dir(dir.shards())
        .expect("folder")
        .map(|e| e.expect("entry").file_name().into_string().expect("UTF-8"))
        .collect();
    assert_eq!(actual_shards, expected_shards, "no shard file left over");
}

/// What a damage makes of a file's bytes.
type Damage = fn(&[u8]) -> Vec<u8>;

#[test]
fn a_damaged_index_means_a_full_generation_then_reuse_again() {
    let dir = TempDir::new("index");
    let sources = sources();
    let generator = Generator::new();
    compile(&generator, &sources, &dir);
    let index = dir.0.join("records.rs.index");
    let good = fs::read(&index).expect("index written");
    let damages: [(&str, Damage); 5] = [
        ("empty", |_| Vec::new()),
        ("garbage", |_| b"\xff\xfe not an index \x00".repeat(50)),
        ("truncated", |b| b[..b.len() / 2].to_vec()),
        ("one byte longer", |b| [b, b" "].concat()),
        ("a bit flipped", |b| {
            let mut b = b.to_vec();
            let at = b.len() * 2 / 3;
            b[at] ^= 0x04;
            b
        }),
    ];
    for (name, damage) in damages {
        fs::write(&index, damage(&good)).expect("damage");
        let run = compile(&generator, &sources, &dir);
        assert_eq!(run.generated.len(), sources.len(), "{name}: everything generated again");
        assert!(!run.written, "{name}: the same bytes, so no file is rewritten");
        assert!(compile(&generator, &sources, &dir).generated.is_empty(), "{name}: the new index is used");
    }
    fs::remove_file(&index).expect("remove");
    assert_eq!(compile(&generator, &sources, &dir).generated.len(), sources.len(), "no index");
}

#[test]
fn a_damaged_shard_is_repaired_and_only_its_damaged_code_generated() {
    let dir = TempDir::new("shard");
    let sources = sources();
    let generator = Generator::new();
    compile(&generator, &sources, &dir);
    let shard = fs::read_dir(dir.shards()).expect("folder").map(|e| e.expect("entry").path()).max().expect("a shard");
    let good = fs::read(&shard).expect("shard reads");
    // What each damage leaves to generate: one record type, some, all of
    // the shard's (never all definitions).
    let damages: [(&str, Option<usize>, Damage); 3] = [
        // The same length, one byte of the first record type changed.
        ("a byte changed", Some(1), |b| {
            let mut b = b.to_vec();
            let at = b.iter().position(|&c| c == b'{').expect("a brace");
            b[at] = b'(';
            b
        }),
        ("truncated", None, |b| b[..b.len() / 2].to_vec()),
        ("emptied", None, |_| Vec::new()),
    ];
    for (name, generated, damage) in damages {
        fs::write(&shard, damage(&good)).expect("damage");
        // A later modification time, so the damage is seen however fast
        // the clock ticks.
        let later =
            fs::metadata(&shard).expect("metadata").modified().expect("mtime") + std::time::Duration::from_secs(2);
        fs::File::options().write(true).open(&shard).expect("open").set_modified(later).expect("set mtime");
        let run = compile(&generator, &sources, &dir);
        assert!(run.written, "{name}: the shard is rewritten");
        assert!(!run.generated.is_empty(), "{name}: the damaged code is generated again");
        assert!(run.generated.len() < sources.len(), "{name}: not everything: {run:?}");
        if let Some(count) = generated {
            assert_eq!(run.generated.len(), count, "{name}: {run:?}");
        }
        assert_eq!(fs::read(&shard).expect("shard"), good, "{name}: repaired");
        assert!(compile(&generator, &sources, &dir).generated.is_empty(), "{name}: then reused");
    }
    fs::remove_file(&shard).expect("remove");
    let run = compile(&generator, &sources, &dir);
    assert!(!run.generated.is_empty() && run.generated.len() < sources.len(), "a removed shard: {run:?}");
}

#[test]
fn another_runtime_path_or_a_foreign_index_is_not_used() {
    let dir = TempDir::new("runtime");
    let sources = sources();
    compile(&Generator::new(), &sources, &dir);
    let other = Generator::new().runtime_path("crate::runtime");
    assert_eq!(compile(&other, &sources, &dir).generated.len(), sources.len());
    assert_eq!(compile(&Generator::new(), &sources, &dir).generated.len(), sources.len());
}

#[test]
fn an_index_that_cannot_be_written_only_costs_time() {
    let dir = TempDir::new("unwritable");
    fs::create_dir_all(dir.0.join("records.rs.index")).expect("a folder where the index would go");
    let sources = sources();
    compile(&Generator::new(), &sources, &dir);
    assert_eq!(compile(&Generator::new(), &sources, &dir).generated.len(), sources.len(), "nothing reused");
}

#[test]
fn a_cold_run_removes_stray_files_and_keeps_others() {
    let dir = TempDir::new("stray");
    fs::create_dir_all(dir.shards()).expect("folder");
    for stray in ["old_shard.rs", "half_written.rs.tmp"] {
        fs::write(dir.shards().join(stray), "stray").expect("stray");
    }
    fs::write(dir.shards().join("notes.txt"), "kept").expect("other file");
    compile(&Generator::new(), &sources(), &dir);
    assert!(!dir.shards().join("old_shard.rs").exists());
    assert!(!dir.shards().join("half_written.rs.tmp").exists());
    assert!(dir.shards().join("notes.txt").exists(), "files that are not ours are left alone");
}

#[test]
fn errors_are_reported_whether_or_not_an_index_exists_and_nothing_is_written() {
    let dir = TempDir::new("errors");
    let mut sources = sources();
    let generator = Generator::new();
    compile(&generator, &sources, &dir);
    let before = files(&dir);
    // A second file with a label already defined (and indexed) is an error
    // naming both, as without an index.
    sources.push(Source::new("other/type_003.json", definition("type_003", "Twin.").bytes));
    let incremental = generator.compile(&sources, &dir.output()).expect_err("duplicate label").to_string();
    let full = generator.generate(&sources).expect_err("duplicate label").to_string();
    assert_eq!(incremental, full);
    assert!(incremental.contains("is also defined in"), "{incremental}");
    assert_eq!(files(&dir), before, "nothing written");
}

#[test]
fn an_output_named_like_its_shard_folder_is_refused() {
    let dir = TempDir::new("named");
    let error = Generator::new().compile(&sources(), &dir.0.join("records.d")).expect_err("refused").to_string();
    assert!(error.contains("may not be `d`"), "{error}");
}
