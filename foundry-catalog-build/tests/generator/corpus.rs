//! The definition corpus: every good definition's generated Rust and every
//! bad definition's error message, pinned with insta.

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};

use foundry_catalog_build::{Generator, Source};

/// Runs `check` on every `*.json` file of a corpus folder, sorted, with
/// insta's snapshot suffix set to the file name (snapshots are named
/// `<test>@<file>.json`), and reports every failing file at the end.
fn each_corpus_file(dir: &str, check: impl Fn(&Path)) {
    let root = crate::root();
    let mut files: Vec<PathBuf> = std::fs::read_dir(root.join(dir))
        .expect("corpus folder is readable")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(!files.is_empty(), "{dir} holds definitions");
    let mut failed = Vec::new();
    for path in files {
        let name = path.file_name().and_then(|n| n.to_str()).unwrap_or_default().to_owned();
        let mut settings = insta::Settings::clone_current();
        settings.set_snapshot_suffix(name.clone());
        settings.set_input_file(&path);
        if catch_unwind(AssertUnwindSafe(|| settings.bind(|| check(&path)))).is_err() {
            failed.push(name);
        }
    }
    assert!(failed.is_empty(), "failing corpus files in {dir}: {failed:?}");
}

/// A corpus file as a source named by its path from the crate root.
fn source(path: &Path) -> Source {
    let root = crate::root();
    let display = path.strip_prefix(root).unwrap_or(path).to_string_lossy().replace('\\', "/");
    Source::new(display, std::fs::read(path).expect("corpus file is readable"))
}

#[test]
fn good_definitions_generate() {
    each_corpus_file("tests/corpus/good", |path| {
        let code = Generator::new()
            .generate(&[source(path)])
            .unwrap_or_else(|e| panic!("{} should generate:\n{e}", path.display()));
        insta::assert_snapshot!("good_definitions_generate", code);
    });
}

#[test]
fn bad_definitions_fail_with_pinned_messages() {
    each_corpus_file("tests/corpus/bad", |path| {
        let errors = Generator::new().generate(&[source(path)]).expect_err("a bad definition must not generate");
        let message = errors.to_string();
        for line in message.lines() {
            assert!(line.starts_with("error: tests/corpus/bad/"), "names the file: {line}");
            assert!(line.contains("; hint: "), "carries a hint: {line}");
        }
        insta::assert_snapshot!("bad_definitions_fail_with_pinned_messages", message);
    });
}

/// Definitions whose faults only a reader of the numbers' text sees (a
/// bound of 2^53+1 reads as 2^53 in JavaScript, so `tests/corpus/bad/`,
/// which three JSON Schema validators also judge, cannot hold them).
#[test]
fn bounds_are_read_as_written() {
    each_corpus_file("tests/corpus/precision", |path| {
        let errors = Generator::new().generate(&[source(path)]).expect_err("a bad definition must not generate");
        insta::assert_snapshot!("bounds_are_read_as_written", errors.to_string());
    });
}

#[test]
fn every_problem_in_a_file_is_reported() {
    let path = crate::root().join("tests/corpus/bad/many_problems.json");
    let errors = Generator::new().generate(&[source(&path)]).expect_err("bad");
    assert!(errors.0.len() >= 5, "{errors}");
}

#[test]
fn oversized_file_is_rejected_before_parsing() {
    let limit = foundry_catalog_build::MAX_DEFINITION_BYTES;
    let mut bytes = br#"{"record_label": "huge", "description": ""#.to_vec();
    bytes.resize(limit + 1, b'x');
    let errors = Generator::new().generate(&[Source::new("types/huge.json", bytes)]).expect_err("too large");
    insta::assert_snapshot!(errors.to_string(), @"error: types/huge.json: the file is 1048577 bytes, over the 1048576-byte limit; hint: a definition describes one record type; shorten it");
}

fn definition(label: &str) -> String {
    format!(
        r#"{{"record_label": "{label}", "sample_type": "deterministic_executable_fixture",
            "fields": [{{"name": "a", "type": "string", "required": true, "description": "A."}}]}}"#
    )
}

#[test]
fn duplicate_labels_name_both_files() {
    let errors = Generator::new()
        .generate(&[Source::new("a/twin.json", definition("twin")), Source::new("b/twin.json", definition("twin"))])
        .expect_err("duplicate labels");
    insta::assert_snapshot!(errors.to_string(), @"error: b/twin.json: record type `twin` is also defined in a/twin.json; hint: keep one definition per record label");
}

#[test]
fn labels_that_make_one_struct_name_are_an_error() {
    let errors = Generator::new()
        .generate(&[
            Source::new("t/ab_c1.json", definition("ab_c1")),
            Source::new("t/ab_c_1.json", definition("ab_c_1")),
        ])
        .expect_err("struct names collide");
    insta::assert_snapshot!(errors.to_string(), @"error: t/ab_c_1.json: record type `ab_c_1` and `ab_c1` both become the struct `AbC1`; the other is t/ab_c1.json; hint: rename one of the two record labels");
}

#[test]
fn an_invalid_runtime_path_is_an_error_not_a_panic() {
    let errors = Generator::new()
        .runtime_path("not a path")
        .generate(&[Source::new("t/minimal.json", definition("minimal"))])
        .expect_err("bad runtime path");
    assert!(errors.to_string().starts_with("error: <generator>: internal generator error: runtime path `not a path`"));
}
