//! The trait every generated record type implements.

use std::borrow::Cow;

use serde::Serialize;
use serde::de::DeserializeOwned;
use serde::de::value::MapDeserializer;

use crate::{DigestLength, FieldDescriptor, RecordSchema, SampleType, Slug};

/// A record type generated from a definition by `foundry-catalog-build`.
///
/// The constants come straight from the definition (and the hash from
/// [`crate::hash::schema_hash`] at build time); [`RecordType::SCHEMA`]
/// bundles them for code that picks a record type at run time.
///
/// Generated code implements it; `foundry-catalog`'s `records` module
/// shows the shipped types, and the generator's documentation shows a
/// crate generating its own.
pub trait RecordType: Sized + std::fmt::Debug + Clone + PartialEq + Serialize + DeserializeOwned + 'static {
    /// The record label, e.g. `regulatory_status_signal`.
    const LABEL: &'static str;
    /// What a record of this type is (may be empty).
    const DESCRIPTION: &'static str;
    /// The field descriptors, in wire order.
    const FIELDS: &'static [FieldDescriptor];
    /// The wire names of the required fields, in field order.
    const REQUIRED_FIELDS: &'static [&'static str];
    /// How sample rows of this type are produced.
    const SAMPLE_TYPE: SampleType;
    /// The length of [`RecordType::SCHEMA_HASH`].
    const DIGEST_LENGTH: DigestLength;
    /// How many fixture rows a sample holds.
    const SAMPLE_ROWS: usize;
    /// The schema hash computed at build time.
    const SCHEMA_HASH: &'static str;

    /// All of the above as one value, as stored in the registry.
    const SCHEMA: RecordSchema = RecordSchema {
        record_label: Cow::Borrowed(Self::LABEL),
        description: Cow::Borrowed(Self::DESCRIPTION),
        sample_type: Self::SAMPLE_TYPE,
        digest_length: Self::DIGEST_LENGTH,
        sample_rows: Self::SAMPLE_ROWS,
        fields: Cow::Borrowed(Self::FIELDS),
        schema_hash: Cow::Borrowed(Self::SCHEMA_HASH),
    };

    /// The deterministic fixture rows for a product: the rows of
    /// [`crate::fixture::rows`] over [`RecordType::FIELDS`], typed.
    ///
    /// One implementation for every record type, driven by the field table,
    /// so generated code carries no per-field fixture code: each row is
    /// deserialized from the field values (wire name → value, in field
    /// order), the same values the untyped rows of a `schema_preview` hold.
    ///
    /// # Panics
    ///
    /// If `FIELDS` does not describe `Self` (a field's wire name or type
    /// differs from the struct's), which generated code never does; a
    /// hand-written implementation that gets its table wrong fails here on
    /// its first call rather than producing rows that disagree with it.
    fn fixture_rows(slug: &Slug) -> Vec<Self> {
        (1..=Self::SAMPLE_ROWS)
            .map(|row| {
                fixture_row(Self::FIELDS, slug.as_str(), row)
                    .unwrap_or_else(|e| panic!("{}::FIELDS does not describe the struct: {e}", Self::LABEL))
            })
            .collect()
    }
}

/// One typed fixture row: the field values of `row`, fed to `T`'s
/// `Deserialize` as a map from wire name to value (no intermediate
/// `serde_json::Map`).
fn fixture_row<T: DeserializeOwned>(
    fields: &[FieldDescriptor],
    slug: &str,
    row: usize,
) -> Result<T, serde_json::Error> {
    let entries = fields.iter().filter_map(|field| Some((&*field.name, crate::fixture::value(field, slug, row)?)));
    T::deserialize(MapDeserializer::<_, serde_json::Error>::new(entries))
}
