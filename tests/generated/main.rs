//! Generated record types, fixtures and previews judged by the runtime:
//! the preview and sample of a nested definition pinned, and property
//! tests that fixture rows of random definitions pass the validator. The
//! generator's own tests are `foundry-catalog-build`'s
//! (`foundry-catalog-build/tests/generator`).

mod nested;
mod properties;
