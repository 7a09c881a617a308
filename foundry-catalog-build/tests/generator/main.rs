//! Integration tests of the generator on the definition corpus, in one
//! binary: pinned output and errors, the printer against prettyplease,
//! settings, `diff`, incremental output, the `schema_hash` vectors and
//! reproducibility across processes. (The definition format's JSON Schema
//! is checked against the corpus by independent validators in CI:
//! `tests/json-schema/cases.json`.)

use std::path::Path;

mod corpus;
mod diff;
mod format;
mod incremental;
mod reproducible;
mod settings;
mod vectors;

/// The workspace root, where `tests/corpus`, `record-types` and `docs` are.
fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR")).parent().expect("the crate is a folder of the workspace")
}
