//! What generated code calls and nothing else should: the field-table
//! builder, the serde helpers of optional, nullable and date fields, and
//! the closed-set parser. Not public API: it changes with the generator
//! that writes the calls.

mod codegen;
pub mod date;
pub mod nullable;

pub use codegen::*;
