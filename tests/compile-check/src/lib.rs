//! The generator's output for every good corpus definition, compiled in
//! another crate under `#![deny(warnings)]` (and, in CI, clippy with
//! `-D warnings`): keywords, digits, hyphens and Markdown in descriptions
//! must all give code that builds cleanly, not only a snapshot.

#![deny(warnings)]

/// Every type in `tests/corpus/good/`.
pub mod corpus {
    include!(concat!(env!("OUT_DIR"), "/corpus.rs"));
}

/// Every type in `tests/corpus/good/`, generated as strict readers
/// (`Generator::strict_readers`).
pub mod strict {
    include!(concat!(env!("OUT_DIR"), "/strict.rs"));
}

/// `settings/*.json`, generated with extra derives (`Eq`, `Hash`,
/// `PartialOrd`, `Ord`) and attributes (see `build.rs`).
pub mod settings {
    include!(concat!(env!("OUT_DIR"), "/settings.rs"));
}
