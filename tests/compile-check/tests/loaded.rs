//! A record type read at run time (`Generator::check`, what `foundry-catalog
//! --record-types DIR` does) is the generated type of the same definition:
//! the same record schema, hence byte for byte the same preview, fixture
//! rows, `schema_hash` and row JSON Schema, for every corpus definition
//! and the example crate's.

use std::path::Path;

use foundry_catalog::json_schema::record_type_schema;
use foundry_catalog::preview::{OutputPreview, ProductContext};
use foundry_catalog_build::{Generator, Source};
use foundry_catalog_core::{RecordSchema, Slug, fixture};

fn loaded(dir: &Path) -> Vec<RecordSchema> {
    let sources = Source::read_dir(dir, ".").expect("the definitions read");
    Generator::new().check(&sources).expect("the definitions check").iter().map(|t| t.runtime_schema()).collect()
}

fn same_as_generated(loaded: &[RecordSchema], generated: &[RecordSchema]) {
    assert_eq!(loaded.len(), generated.len(), "one loaded type per generated one");
    let ctx = ProductContext::new(
        Slug::new("loaded-or-generated").expect("a slug"),
        "2026-03-01T08:30:00.000000Z".parse().expect("a time"),
    );
    for generated in generated {
        let label = &generated.record_label;
        let loaded = loaded.iter().find(|t| &t.record_label == label).unwrap_or_else(|| panic!("{label} loads"));
        assert_eq!(loaded, generated, "{label}: the record schema");
        let preview = |t: &RecordSchema| serde_json::to_string(&OutputPreview::new(t, &ctx)).expect("JSON");
        assert_eq!(preview(loaded), preview(generated), "{label}: the preview's bytes");
        assert_eq!(fixture::rows(loaded, "x"), fixture::rows(generated, "x"), "{label}: the fixture rows");
        assert_eq!(record_type_schema(loaded), record_type_schema(generated), "{label}: the row JSON Schema");
        loaded.verify_schema_hash().unwrap_or_else(|e| panic!("{label}: {e}"));
    }
}

#[test]
fn every_corpus_definition_loads_as_its_generated_type() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../corpus/good");
    same_as_generated(&loaded(&corpus), foundry_catalog_compile_check::corpus::RECORD_TYPES);
}

#[test]
fn the_shipped_definitions_load_as_their_generated_types() {
    let shipped = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../record-types");
    same_as_generated(&loaded(&shipped), foundry_catalog::record_types());
}

#[test]
fn the_example_crates_definitions_load_as_its_generated_types() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/record-types-app/record-types");
    same_as_generated(&loaded(&dir), foundry_catalog_record_types_app::records::RECORD_TYPES);
}
