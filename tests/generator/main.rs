//! Integration tests of the generator (`foundry-catalog-build`) on the
//! definition corpus, in one binary: pinned output and errors, property
//! tests, and reproducibility across processes. (The definition format's
//! JSON Schema is checked against the corpus by independent validators in
//! CI: `tests/json-schema/cases.json`.)

mod corpus;
mod diff;
mod format;
mod incremental;
mod nested;
mod properties;
mod reproducible;
mod settings;
mod vectors;
