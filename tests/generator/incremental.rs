//! The incremental cache (`Generator::cache_dir`): warm output is the same
//! bytes as cold output; an edit regenerates only the edited definition;
//! stale, foreign and damaged entries are ignored, never trusted and never
//! a panic.

use std::collections::BTreeMap;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use foundry_catalog_build::{Generator, Source};

/// A fresh, empty folder for one test, removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(name: &str) -> TempDir {
        let dir = std::env::temp_dir().join(format!("foundry-catalog-incremental-{}-{name}", std::process::id()));
        let _ = fs::remove_dir_all(&dir);
        fs::create_dir_all(&dir).expect("temp folder");
        TempDir(dir)
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

fn sources() -> Vec<Source> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let mut sources = Source::read_dir(root, "tests/corpus/good").expect("corpus reads");
    sources.extend((0..20).map(|i| definition(&format!("type_{i:02}"), "One of twenty.")));
    sources
}

/// Each entry file with its inode: a rewritten entry gets a new inode
/// (entries are written beside their name and renamed over it).
fn entries(dir: &Path) -> BTreeMap<PathBuf, u64> {
    fs::read_dir(dir)
        .expect("cache folder exists")
        .map(|e| e.expect("entry").path())
        .map(|p| {
            let inode = fs::metadata(&p).expect("metadata").ino();
            (p, inode)
        })
        .collect()
}

#[test]
fn warm_output_is_cold_output_and_an_edit_rewrites_one_entry() {
    let cache = TempDir::new("warm");
    let mut sources = sources();
    let uncached = Generator::new().generate(&sources).expect("generates");
    let generator = Generator::new().cache_dir(&cache.0);
    assert_eq!(generator.generate(&sources).expect("cold"), uncached, "cold cached run");
    let cold_entries = entries(&cache.0);
    assert_eq!(cold_entries.len(), sources.len(), "one entry per definition");
    assert_eq!(generator.generate(&sources).expect("warm"), uncached, "warm run");
    assert_eq!(entries(&cache.0), cold_entries, "a warm run rewrites no entry");
    assert_eq!(generator.clone().threads(1).generate(&sources).expect("warm"), uncached, "one thread");

    // Edit one definition: only its entry is rewritten, and the output is
    // what an uncached run makes of the new sources (the stale entry is not used).
    let edited = sources.iter().position(|s| s.path == "types/type_07.json").expect("present");
    sources[edited] = definition("type_07", "Edited.");
    let expected = Generator::new().generate(&sources).expect("generates");
    assert_ne!(expected, uncached);
    assert!(expected.contains("Edited."));
    assert_eq!(generator.generate(&sources).expect("after edit"), expected);
    let after = entries(&cache.0);
    let rewritten: Vec<_> = after.iter().filter(|(path, inode)| cold_entries.get(*path) != Some(inode)).collect();
    assert_eq!(rewritten.len(), 1, "only the edited definition's entry is rewritten: {rewritten:?}");

    // A removed definition's entry is removed.
    sources.remove(edited);
    assert_eq!(generator.generate(&sources).expect("after removal"), Generator::new().generate(&sources).expect("ok"));
    assert_eq!(entries(&cache.0).len(), sources.len());
}

/// What a damage makes of the entry at an index.
type Damage<'a> = Box<dyn Fn(usize) -> Vec<u8> + 'a>;

#[test]
fn damaged_and_foreign_entries_are_ignored_and_replaced() {
    let cache = TempDir::new("damaged");
    let sources = sources();
    let expected = Generator::new().generate(&sources).expect("generates");
    let generator = Generator::new().cache_dir(&cache.0);
    generator.generate(&sources).expect("cold");
    let paths: Vec<PathBuf> = entries(&cache.0).into_keys().collect();
    let contents: Vec<Vec<u8>> = paths.iter().map(|p| fs::read(p).expect("entry reads")).collect();
    let damages: Vec<(&str, Damage)> = vec![
        ("empty", Box::new(|_| Vec::new())),
        ("garbage", Box::new(|_| b"\xff\xfe not an entry \x00".repeat(50))),
        ("truncated", Box::new(|i| contents[i][..contents[i].len() / 2].to_vec())),
        ("one byte longer", Box::new(|i| [contents[i].as_slice(), b" "].concat())),
        // Another definition's entry under this one's name: its key names
        // another file and other bytes.
        ("foreign", Box::new(|i| contents[(i + 1) % contents.len()].clone())),
        // A length field pointing past the end.
        (
            "bad length",
            Box::new(|i| String::from_utf8_lossy(&contents[i]).replacen('\n', "\n999999999 ", 1).into_bytes()),
        ),
    ];
    for (name, damage) in &damages {
        for (i, path) in paths.iter().enumerate() {
            fs::write(path, damage(i)).expect("damage");
        }
        assert_eq!(generator.generate(&sources).expect(name), expected, "{name}");
        // The damaged entries were replaced by good ones, which the next run uses.
        let repaired = entries(&cache.0);
        assert_eq!(generator.generate(&sources).expect(name), expected, "{name}, then warm");
        assert_eq!(entries(&cache.0), repaired, "{name}: the repaired entries are used");
    }
}

#[test]
fn entries_of_another_runtime_path_are_not_used() {
    let cache = TempDir::new("runtime");
    let sources = sources();
    let generator = Generator::new().cache_dir(&cache.0);
    generator.generate(&sources).expect("cold");
    let other = generator.clone().runtime_path("crate::runtime");
    assert_eq!(
        other.generate(&sources).expect("other runtime"),
        Generator::new().runtime_path("crate::runtime").generate(&sources).expect("uncached")
    );
}

#[test]
fn a_cache_that_cannot_be_written_only_costs_time() {
    let cache = TempDir::new("unwritable");
    let file = cache.0.join("not-a-folder");
    fs::write(&file, "a file where the cache folder would go").expect("write");
    let sources = sources();
    let expected = Generator::new().generate(&sources).expect("generates");
    assert_eq!(Generator::new().cache_dir(&file).generate(&sources).expect("generates"), expected);
}

#[test]
fn errors_are_reported_whether_or_not_entries_exist() {
    let cache = TempDir::new("errors");
    let mut sources = sources();
    let generator = Generator::new().cache_dir(&cache.0);
    generator.generate(&sources).expect("cold");
    // A second file with a label already defined (and cached) is an error
    // naming both, as without a cache.
    sources.push(Source::new("other/type_03.json", definition("type_03", "Twin.").bytes));
    let cached = generator.generate(&sources).expect_err("duplicate label").to_string();
    let uncached = Generator::new().generate(&sources).expect_err("duplicate label").to_string();
    assert_eq!(cached, uncached);
    assert!(cached.contains("is also defined in"), "{cached}");
}
