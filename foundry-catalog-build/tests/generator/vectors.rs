//! The schema_hash test vectors (`tests/hash-vectors/`): each definition
//! must give the canonical JSON and `schema_hash` stored beside it. The
//! stored values come from the Python recipe of docs/schema-hash.md
//! (`tests/hash-vectors/check.py`, run in CI), an implementation of its own,
//! so any drift of ours from the documented form fails here.

use foundry_catalog_build::{Generator, Source};
use foundry_catalog_core::hash::canonical_json;
use serde_json::Value;

#[test]
fn every_vector_gives_its_canonical_form_and_hash() {
    let dir = crate::root().join("tests/hash-vectors");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("tests/hash-vectors reads")
        .map(|e| e.expect("entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    assert!(files.len() >= 8, "the vectors are there: {files:?}");
    for path in files {
        let vector: Value = serde_json::from_slice(&std::fs::read(&path).expect("reads")).expect("JSON");
        let definition = &vector["definition"];
        let label = definition["record_label"].as_str().expect("a label");
        let source = Source::new(format!("vectors/{label}.json"), definition.to_string());
        let checked = Generator::new().check(&[source]).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        let schema = &checked[0].schema;
        assert_eq!(
            canonical_json(&schema.record_label, &schema.fields),
            vector["canonical"].as_str().expect("canonical"),
            "{}",
            path.display()
        );
        assert_eq!(&*schema.schema_hash, vector["schema_hash"].as_str().expect("hash"), "{}", path.display());
    }
}
