//! The long-form documentation, the same text as `docs/` in the
//! repository: read it here next to the API it describes.

#[doc = include_str!("../docs/record-types.md")]
pub mod record_types {}

#[doc = include_str!("../docs/fixtures.md")]
pub mod fixtures {}

#[doc = include_str!("../docs/schema-hash.md")]
pub mod schema_hash {}

#[doc = include_str!("../docs/evolution.md")]
pub mod evolution {}

#[doc = include_str!("../docs/serving.md")]
pub mod http {}
