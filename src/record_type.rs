//! The registry of the record types generated from `record-types/`.

use foundry_catalog_core::RecordSchema;

/// Every generated record type, sorted by record label.
///
/// ```
/// let labels: Vec<_> = foundry_catalog::record_types().iter().map(|t| &*t.record_label).collect();
/// assert!(labels.contains(&"regulatory_status_signal"));
/// assert!(labels.is_sorted());
/// ```
pub fn record_types() -> &'static [RecordSchema] {
    crate::records::RECORD_TYPES
}

/// The record type with this label, if one was generated.
///
/// ```
/// let t = foundry_catalog::record_type("actor_product_record").unwrap();
/// assert_eq!(t.required_fields().count(), 5);
/// assert!(foundry_catalog::record_type("no_such_type").is_none());
/// ```
pub fn record_type(label: &str) -> Option<&'static RecordSchema> {
    let types = record_types();
    types.binary_search_by(|t| (*t.record_label).cmp(label)).ok().and_then(|i| types.get(i))
}
