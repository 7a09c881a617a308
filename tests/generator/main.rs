//! Integration tests of the generator (`foundry-catalog-build`) on the
//! definition corpus, in one binary: pinned output and errors, the
//! definition format's JSON Schema, property tests, and reproducibility
//! across processes.

mod corpus;
mod definition_schema;
mod properties;
mod reproducible;
