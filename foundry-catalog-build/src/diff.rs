//! Schema evolution: what changed between two sets of record-type
//! definitions, what each change does to `schema_hash`, and whether JSON
//! readers of either side can still read records of the other.
//!
//! The compatibility words are the Confluent Schema Registry's, applied to
//! JSON records: **backward** — readers built for the new definitions read
//! records written under the old ones; **forward** — readers built for the
//! old definitions read records written under the new ones; **full** —
//! both; **breaking** — neither. Unlike Avro, JSON carries no writer schema
//! and no defaults, so the answer depends on the reader:
//!
//! - a **strict** reader (this crate's validator, the generated JSON
//!   Schemas with `additionalProperties: false`) rejects a key it does not
//!   know and a missing required key;
//! - a **tolerant** reader (serde's default, most JSON clients) ignores a
//!   key it does not know but still needs its required keys.
//!
//! Record types are matched by label, fields by wire name. Field order is
//! part of `schema_hash` but not of a JSON object, so a move changes the
//! hash and nothing else.

use std::collections::BTreeMap;

use foundry_catalog_core::{EnumValue, FieldDescriptor, FieldType, RecordSchema};
use serde::Serialize;

use crate::CheckedType;
use crate::model::Place;

foundry_catalog_core::wire_enum! {
    /// Who can read across a change.
    pub enum Compatibility {
        /// New readers read old records, and old readers read new records.
        Full = "full",
        /// New readers read old records.
        Backward = "backward",
        /// Old readers read new records.
        Forward = "forward",
        /// Neither.
        Breaking = "breaking",
    }
}

impl Compatibility {
    /// Whether a change of this compatibility is allowed in `mode`.
    pub const fn allowed_in(self, mode: Compatibility) -> bool {
        match mode {
            Compatibility::Full => matches!(self, Compatibility::Full),
            Compatibility::Backward => matches!(self, Compatibility::Full | Compatibility::Backward),
            Compatibility::Forward => matches!(self, Compatibility::Full | Compatibility::Forward),
            Compatibility::Breaking => true,
        }
    }
}

foundry_catalog_core::wire_enum! {
    /// What kind of change.
    pub enum ChangeKind {
        /// A record type that only the new side has.
        TypeAdded = "type_added",
        /// A record type that only the old side has.
        TypeRemoved = "type_removed",
        /// A new required field.
        RequiredFieldAdded = "required_field_added",
        /// A new optional field.
        OptionalFieldAdded = "optional_field_added",
        /// A required field that is gone.
        RequiredFieldRemoved = "required_field_removed",
        /// An optional field that is gone.
        OptionalFieldRemoved = "optional_field_removed",
        /// A field (or a list's items, or a nested field) whose JSON type changed (other than the two below).
        FieldRetyped = "field_retyped",
        /// An integer field that became a number, an object with fields that became an open object, or a closed set that became any string.
        FieldWidened = "field_widened",
        /// A number field that became an integer, an open object that got fields, or a string that became a closed set.
        FieldNarrowed = "field_narrowed",
        /// A required field that became optional.
        FieldMadeOptional = "field_made_optional",
        /// An optional field that became required.
        FieldMadeRequired = "field_made_required",
        /// A field at another position.
        FieldMoved = "field_moved",
        /// `digest_length` changed: `schema_hash` is cut to another length.
        DigestLengthChanged = "digest_length_changed",
        /// `sample_type` changed (and with it `sample_status`).
        SampleTypeChanged = "sample_type_changed",
        /// `sample_rows` changed.
        SampleRowsChanged = "sample_rows_changed",
        /// A field got a format (its values are now checked).
        FormatAdded = "format_added",
        /// A field's format was dropped (any value of its type is allowed).
        FormatRemoved = "format_removed",
        /// A field's format became another one.
        FormatChanged = "format_changed",
        /// A field's explicit `rust_name` changed (the wire is untouched).
        RustNameChanged = "rust_name_changed",
        /// A list's `min_items` / `max_items` allow every list they allowed before, and more.
        ListBoundsLoosened = "list_bounds_loosened",
        /// A list's `min_items` / `max_items` allow only lists they allowed before.
        ListBoundsTightened = "list_bounds_tightened",
        /// A list's bounds moved both ways (one end allows more, the other fewer).
        ListBoundsChanged = "list_bounds_changed",
        /// A number's `minimum` / `maximum` allow every value they allowed before, and more.
        ValueBoundsLoosened = "value_bounds_loosened",
        /// A number's `minimum` / `maximum` allow only values they allowed before.
        ValueBoundsTightened = "value_bounds_tightened",
        /// A number's bounds moved both ways.
        ValueBoundsChanged = "value_bounds_changed",
        /// A value added to a closed set.
        EnumValueAdded = "enum_value_added",
        /// A value removed from a closed set.
        EnumValueRemoved = "enum_value_removed",
        /// A value that may now be `null`.
        MadeNullable = "made_nullable",
        /// A value that may no longer be `null`.
        MadeNonNullable = "made_non_nullable",
        /// A field's fixture hint changed.
        FixtureChanged = "fixture_changed",
        /// A description changed (the type's or a field's).
        DescriptionChanged = "description_changed",
    }
}

impl ChangeKind {
    /// Compatibility for strict readers, then for tolerant readers.
    pub const fn compatibility(self) -> (Compatibility, Compatibility) {
        use Compatibility::{Backward, Breaking, Forward, Full};
        match self {
            ChangeKind::TypeAdded
            | ChangeKind::FieldMoved
            | ChangeKind::DigestLengthChanged
            | ChangeKind::SampleTypeChanged
            | ChangeKind::SampleRowsChanged
            | ChangeKind::FixtureChanged
            | ChangeKind::RustNameChanged
            | ChangeKind::DescriptionChanged => (Full, Full),
            ChangeKind::TypeRemoved | ChangeKind::FieldRetyped | ChangeKind::FormatChanged => (Breaking, Breaking),
            ChangeKind::FormatAdded => (Forward, Forward),
            ChangeKind::FormatRemoved => (Backward, Backward),
            ChangeKind::OptionalFieldAdded => (Backward, Full),
            ChangeKind::RequiredFieldAdded => (Breaking, Forward),
            ChangeKind::OptionalFieldRemoved => (Forward, Full),
            ChangeKind::RequiredFieldRemoved => (Breaking, Backward),
            ChangeKind::FieldMadeOptional | ChangeKind::FieldWidened => (Backward, Backward),
            ChangeKind::FieldNarrowed => (Forward, Forward),
            ChangeKind::ListBoundsTightened | ChangeKind::ValueBoundsTightened => (Forward, Forward),
            ChangeKind::ListBoundsLoosened | ChangeKind::ValueBoundsLoosened => (Backward, Backward),
            ChangeKind::ListBoundsChanged | ChangeKind::ValueBoundsChanged => (Breaking, Breaking),
            ChangeKind::EnumValueAdded | ChangeKind::MadeNullable => (Backward, Backward),
            ChangeKind::EnumValueRemoved | ChangeKind::MadeNonNullable => (Forward, Forward),
            ChangeKind::FieldMadeRequired => (Forward, Forward),
        }
    }

    /// Whether the change alters `schema_hash` (its canonical form is the
    /// record label and each field's name, type and required flag, in
    /// order, with list items and bounds and nested fields at every depth;
    /// the digest length cuts it).
    pub const fn changes_hash(self) -> bool {
        !matches!(
            self,
            ChangeKind::SampleTypeChanged
                | ChangeKind::SampleRowsChanged
                | ChangeKind::FormatAdded
                | ChangeKind::FormatRemoved
                | ChangeKind::FormatChanged
                | ChangeKind::RustNameChanged
                | ChangeKind::FixtureChanged
                | ChangeKind::DescriptionChanged
        )
    }

    /// Why readers break, and how to get there safely.
    pub const fn hint(self) -> &'static str {
        match self {
            ChangeKind::TypeAdded => "no reader of another type is affected",
            ChangeKind::TypeRemoved => "stop producing the type and let its readers go before removing the definition",
            ChangeKind::RequiredFieldAdded => {
                "new readers reject old records without it: add the field as optional first, make it required once every record carries it"
            }
            ChangeKind::OptionalFieldAdded => {
                "strict old readers reject the unknown key: deploy readers that know the field before writers send it"
            }
            ChangeKind::RequiredFieldRemoved => {
                "old readers reject new records without it: make the field optional first, remove it once readers no longer need it"
            }
            ChangeKind::OptionalFieldRemoved => {
                "strict new readers reject old records that still carry it: remove it from readers after writers stop sending it"
            }
            ChangeKind::FieldRetyped => {
                "no reader accepts both types: add a field with the new type under a new name and retire the old one"
            }
            ChangeKind::FieldWidened => {
                "new readers take every old value (an integer is a number, an object with fields is an object, a closed set's value is a string); old readers reject the new values outside the old type: update readers first"
            }
            ChangeKind::FieldNarrowed => {
                "new readers reject old values outside the new type (a number with a fraction, an object without the fields, a string outside the closed set): make sure every record already fits it, then update readers"
            }
            ChangeKind::ListBoundsLoosened => {
                "new readers take every old list; old readers reject the longer or shorter lists now allowed: update readers first"
            }
            ChangeKind::ListBoundsTightened => {
                "new readers reject old lists outside the new bounds: make sure every record's list already fits them, then update readers"
            }
            ChangeKind::ListBoundsChanged => {
                "each side rejects some lists of the other: loosen the bounds in one step and tighten them in another"
            }
            ChangeKind::ValueBoundsLoosened => {
                "new readers take every old value; old readers reject the values now allowed outside the old bounds: update readers first"
            }
            ChangeKind::ValueBoundsTightened => {
                "new readers reject old values outside the new bounds: make sure every record already fits them, then update readers"
            }
            ChangeKind::ValueBoundsChanged => {
                "each side rejects some values of the other: loosen the bounds in one step and tighten them in another"
            }
            ChangeKind::EnumValueAdded => {
                "new readers take every old value; old readers (and exhaustive matches on the Rust enum) reject the new one: update readers before writers send it"
            }
            ChangeKind::EnumValueRemoved => {
                "new readers reject old records holding the value: make sure no record holds it, then update readers"
            }
            ChangeKind::MadeNullable => "old readers reject null: update readers before writers send null",
            ChangeKind::MadeNonNullable => {
                "new readers reject old records holding null: make sure no record holds null, then update readers"
            }
            ChangeKind::FieldMadeOptional => "old readers reject new records without the field: update readers first",
            ChangeKind::FieldMadeRequired => "new readers reject old records without the field: update writers first",
            ChangeKind::FieldMoved => {
                "JSON objects are unordered; only schema_hash changes. Reported for the fewest fields whose order among the fields both versions hold changed: a field added or removed moves none, two swapped move one"
            }
            ChangeKind::DigestLengthChanged => {
                "records are unchanged; consumers comparing schema_hash see another length"
            }
            ChangeKind::SampleTypeChanged => "records are unchanged; sample_type and sample_status change in previews",
            ChangeKind::SampleRowsChanged => "records are unchanged; samples hold another number of rows",
            ChangeKind::FormatAdded => {
                "new readers (the validator, the schemas, typed Rust) reject old values outside the format: make sure every record already has it before readers check it"
            }
            ChangeKind::FormatRemoved => {
                "old readers reject new values outside the format: update readers before writers send such values"
            }
            ChangeKind::FormatChanged => {
                "no reader accepts both formats: add a field with the new format under a new name and retire the old one"
            }
            ChangeKind::RustNameChanged => "records are unchanged; Rust code naming the field must follow the new name",
            ChangeKind::FixtureChanged => "sample values change; records and schema_hash do not",
            ChangeKind::DescriptionChanged => "documentation only",
        }
    }
}

/// One change between the two sides.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Change {
    /// The record type.
    pub record_label: String,
    /// The file on the new side (the old side for a removed type).
    pub file: String,
    /// The field's wire path, for field changes: its name, or for a
    /// nested field the names on the way joined by `.` (`seller.name`),
    /// `[]` marking a list's items (`offers[].price`, `tags[]`).
    pub field: Option<String>,
    /// What changed.
    pub kind: ChangeKind,
    /// The change in words, with the old and new values.
    pub detail: String,
    /// Whether `schema_hash` changes because of it.
    pub changes_hash: bool,
    /// For readers that reject unknown keys.
    pub strict: Compatibility,
    /// For readers that ignore unknown keys.
    pub tolerant: Compatibility,
    /// A remark, such as a possible rename.
    pub note: Option<String>,
    /// Why readers break, and how to get there safely.
    pub hint: &'static str,
}

/// One record type's `schema_hash` on both sides.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct HashChange {
    /// The record type.
    pub record_label: String,
    /// The old hash (none for an added type).
    pub old: Option<String>,
    /// The new hash (none for a removed type).
    pub new: Option<String>,
}

/// Every change between two sets of checked definitions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Report {
    /// The changes, by record label, then in field order.
    pub changes: Vec<Change>,
    /// The record types whose `schema_hash` differs.
    pub hashes: Vec<HashChange>,
}

impl Report {
    /// The changes `mode` forbids, for strict or tolerant readers.
    pub fn violations(&self, mode: Compatibility, strict: bool) -> Vec<&Change> {
        self.changes.iter().filter(|c| !(if strict { c.strict } else { c.tolerant }).allowed_in(mode)).collect()
    }

    /// The report as text: one line per change, then the hashes.
    pub fn to_text(&self) -> String {
        let mut out = String::new();
        if self.changes.is_empty() {
            out.push_str("no changes\n");
        }
        for c in &self.changes {
            let field = c.field.as_deref().map(|f| format!(" field `{f}`")).unwrap_or_default();
            out.push_str(&format!(
                "{}: `{}`{field}: {} ({}); strict readers: {}, tolerant readers: {}; schema_hash {}\n",
                c.file,
                c.record_label,
                c.detail,
                c.kind,
                c.strict,
                c.tolerant,
                if c.changes_hash { "changes" } else { "unchanged" },
            ));
            if let Some(note) = &c.note {
                out.push_str(&format!("  note: {note}\n"));
            }
        }
        for h in &self.hashes {
            out.push_str(&format!(
                "schema_hash `{}`: {} -> {}\n",
                h.record_label,
                h.old.as_deref().unwrap_or("(none)"),
                h.new.as_deref().unwrap_or("(none)")
            ));
        }
        out
    }
}

/// Where `change` is in `text`, the definition file [`Change::file`]
/// names: the line and column (from 1, the column in characters) of the
/// changed field's object, following its wire path through nested
/// objects' `fields` and lists' `items`; of the `fields` list a field the
/// file no longer has was in; or of the `record_label` key for a change
/// of the record type itself. `None` when `text` is not JSON. What
/// `diff --format github` and `--format sarif` annotate.
pub fn place_in(text: &str, change: &Change) -> Option<(usize, usize)> {
    let value: serde_json::Value = serde_json::from_str(text).ok()?;
    let positions = crate::positions::Positions::new(text);
    let Some(path) = change.field.as_deref() else {
        return Some(positions.key_of("/record_label"));
    };
    let mut pointer = String::new();
    for step in path.split('.') {
        let mut name = step;
        let mut lists = 0;
        while let Some(inner) = name.strip_suffix("[]") {
            name = inner;
            lists += 1;
        }
        let fields = format!("{pointer}/fields");
        let found = value.pointer(&fields).and_then(serde_json::Value::as_array).and_then(|fields| {
            fields.iter().position(|field| field.get("name").and_then(serde_json::Value::as_str) == Some(name))
        });
        match found {
            Some(at) => pointer = format!("{fields}/{at}"),
            None => return Some(positions.key_of(&fields)),
        }
        pointer.push_str(&"/items".repeat(lists));
    }
    Some(positions.of(&pointer))
}

/// Compares two sets of checked definitions (each as returned by
/// [`crate::Generator::check`]).
pub fn diff(old: &[CheckedType], new: &[CheckedType]) -> Report {
    let by_label = |types: &[CheckedType]| -> BTreeMap<String, CheckedType> {
        types.iter().map(|t| (t.schema.record_label.to_string(), t.clone())).collect()
    };
    let (old, new) = (by_label(old), by_label(new));
    let mut changes = Vec::new();
    let mut hashes = Vec::new();
    let labels: std::collections::BTreeSet<&String> = old.keys().chain(new.keys()).collect();
    for label in labels {
        match (old.get(label), new.get(label)) {
            (None, Some(n)) => {
                changes.push(change(n, None, ChangeKind::TypeAdded, "record type added".to_owned()));
                hashes.push(HashChange {
                    record_label: label.clone(),
                    old: None,
                    new: Some(n.schema.schema_hash.to_string()),
                });
            }
            (Some(o), None) => {
                changes.push(change(o, None, ChangeKind::TypeRemoved, "record type removed".to_owned()));
                hashes.push(HashChange {
                    record_label: label.clone(),
                    old: Some(o.schema.schema_hash.to_string()),
                    new: None,
                });
            }
            (Some(o), Some(n)) => {
                type_changes(o, n, &mut changes);
                if o.schema.schema_hash != n.schema.schema_hash {
                    hashes.push(HashChange {
                        record_label: label.clone(),
                        old: Some(o.schema.schema_hash.to_string()),
                        new: Some(n.schema.schema_hash.to_string()),
                    });
                }
            }
            (None, None) => {}
        }
    }
    Report { changes, hashes }
}

fn change(t: &CheckedType, field: Option<&str>, kind: ChangeKind, detail: String) -> Change {
    let (strict, tolerant) = kind.compatibility();
    Change {
        record_label: t.schema.record_label.to_string(),
        file: t.file.clone(),
        field: field.map(str::to_owned),
        kind,
        detail,
        changes_hash: kind.changes_hash(),
        strict,
        tolerant,
        note: None,
        hint: kind.hint(),
    }
}

fn type_changes(o: &CheckedType, n: &CheckedType, out: &mut Vec<Change>) {
    let (os, ns): (&RecordSchema, &RecordSchema) = (&o.schema, &n.schema);
    if os.description != ns.description {
        out.push(change(n, None, ChangeKind::DescriptionChanged, "the type's description changed".to_owned()));
    }
    if os.digest_length != ns.digest_length {
        let detail = format!("digest_length {} -> {}", os.digest_length.hex_chars(), ns.digest_length.hex_chars());
        out.push(change(n, None, ChangeKind::DigestLengthChanged, detail));
    }
    if os.sample_type != ns.sample_type {
        let detail = format!("sample_type {} -> {}", os.sample_type, ns.sample_type);
        out.push(change(n, None, ChangeKind::SampleTypeChanged, detail));
    }
    if os.sample_rows != ns.sample_rows {
        let detail = format!("sample_rows {} -> {}", os.sample_rows, ns.sample_rows);
        out.push(change(n, None, ChangeKind::SampleRowsChanged, detail));
    }
    fields_changes(n, &os.fields, &ns.fields, &Place::record(&ns.record_label), out);
}

/// The positions in `values` of a longest strictly increasing subsequence
/// (patience sorting, O(n log n): a definition may hold thousands of
/// fields; the same lists always give the same answer).
fn longest_increasing(values: &[usize]) -> std::collections::BTreeSet<usize> {
    // tails[k]: the position of the least value ending a run of k + 1.
    let mut tails: Vec<usize> = Vec::new();
    let mut before: Vec<Option<usize>> = Vec::with_capacity(values.len());
    for (i, &value) in values.iter().enumerate() {
        let k = tails.partition_point(|&t| values[t] < value);
        before.push(k.checked_sub(1).map(|k| tails[k]));
        match tails.get_mut(k) {
            Some(tail) => *tail = i,
            None => tails.push(i),
        }
    }
    let mut kept = std::collections::BTreeSet::new();
    let mut end = tails.last().copied();
    while let Some(i) = end {
        kept.insert(i);
        end = before[i];
    }
    kept
}

/// The changes between two field lists of one object (the record's or a
/// nested object's at `prefix`), nested ones with their paths.
fn fields_changes(
    n: &CheckedType,
    old: &[FieldDescriptor],
    new: &[FieldDescriptor],
    prefix: &Place,
    out: &mut Vec<Change>,
) {
    let position = |fields: &[FieldDescriptor], name: &str| fields.iter().position(|f| f.name == name);
    let mut added = Vec::new();
    let mut removed = Vec::new();
    // A field moved when its order among the fields both lists hold
    // changed, not when a field before it came or went: the most fields
    // kept in their order stay, the others moved (one removal moves none).
    let common: Vec<(usize, usize)> =
        new.iter().enumerate().filter_map(|(index, nf)| position(old, &nf.name).map(|at| (index, at))).collect();
    let in_order = longest_increasing(&common.iter().map(|&(_, at)| at).collect::<Vec<_>>());
    let moved: std::collections::BTreeSet<usize> =
        common.iter().enumerate().filter(|(k, _)| !in_order.contains(k)).map(|(_, &(index, _))| index).collect();
    for (index, nf) in new.iter().enumerate() {
        let at = prefix.field(&nf.name);
        let Some(old_index) = position(old, &nf.name) else {
            added.push((out.len(), nf));
            let (kind, what) = if nf.required {
                (ChangeKind::RequiredFieldAdded, "required")
            } else {
                (ChangeKind::OptionalFieldAdded, "optional")
            };
            out.push(change(
                n,
                Some(at.path()),
                kind,
                format!("{what} {} field added at position {index}", nf.field_type),
            ));
            continue;
        };
        let of = &old[old_index];
        value_changes(n, of, nf, &at, out);
        if of.required != nf.required {
            let (kind, detail) = if nf.required {
                (ChangeKind::FieldMadeRequired, "optional -> required")
            } else {
                (ChangeKind::FieldMadeOptional, "required -> optional")
            };
            out.push(change(n, Some(at.path()), kind, detail.to_owned()));
        }
        if moved.contains(&index) {
            let detail = format!("position {old_index} -> {index}");
            out.push(change(n, Some(at.path()), ChangeKind::FieldMoved, detail));
        }
        if of.rust_name != nf.rust_name {
            let name =
                |n: &Option<std::borrow::Cow<'static, str>>| n.as_deref().unwrap_or("(from the wire name)").to_owned();
            let detail = format!("rust_name {} -> {}", name(&of.rust_name), name(&nf.rust_name));
            out.push(change(n, Some(at.path()), ChangeKind::RustNameChanged, detail));
        }
        if of.description != nf.description {
            out.push(change(n, Some(at.path()), ChangeKind::DescriptionChanged, "description changed".to_owned()));
        }
    }
    for of in old {
        if position(new, &of.name).is_none() {
            removed.push((out.len(), of));
            let (kind, what) = if of.required {
                (ChangeKind::RequiredFieldRemoved, "required")
            } else {
                (ChangeKind::OptionalFieldRemoved, "optional")
            };
            let at = prefix.field(&of.name);
            out.push(change(n, Some(at.path()), kind, format!("{what} {} field removed", of.field_type)));
        }
    }
    // A removed and an added field of the same type may be one rename; it
    // is reported as both, with a note, never guessed.
    for &(r, of) in &removed {
        for &(a, nf) in &added {
            if of.field_type == nf.field_type {
                let note = format!(
                    "possible rename `{}` -> `{}`: renaming is a removal and an addition for every reader",
                    of.name, nf.name
                );
                out[r].note = Some(note.clone());
                out[a].note = Some(note);
            }
        }
    }
}

/// The changes between what a field (or a list's items) holds on the two
/// sides: its type, format and fixture hint, its list bounds and items,
/// its nested fields.
fn value_changes(n: &CheckedType, of: &FieldDescriptor, nf: &FieldDescriptor, at: &Place, out: &mut Vec<Change>) {
    let open = |f: &FieldDescriptor| f.field_type == FieldType::Object && f.fields.is_none();
    let structured = |f: &FieldDescriptor| f.nested_fields().is_some();
    if of.field_type != nf.field_type {
        let detail = format!("type {} -> {}", of.field_type, nf.field_type);
        let kind = match (of.field_type, nf.field_type) {
            (FieldType::Integer, FieldType::Number) => ChangeKind::FieldWidened,
            (FieldType::Number, FieldType::Integer) => ChangeKind::FieldNarrowed,
            _ => ChangeKind::FieldRetyped,
        };
        out.push(change(n, Some(at.path()), kind, detail));
        return;
    }
    if open(of) && structured(nf) {
        out.push(change(n, Some(at.path()), ChangeKind::FieldNarrowed, "open object -> object with fields".to_owned()));
    } else if structured(of) && open(nf) {
        out.push(change(n, Some(at.path()), ChangeKind::FieldWidened, "object with fields -> open object".to_owned()));
    }
    match (of.format, nf.format) {
        (None, Some(new)) => {
            out.push(change(n, Some(at.path()), ChangeKind::FormatAdded, format!("format `{new}` added")))
        }
        (Some(old), None) => {
            out.push(change(n, Some(at.path()), ChangeKind::FormatRemoved, format!("format `{old}` removed")))
        }
        (Some(old), Some(new)) if old != new => {
            out.push(change(n, Some(at.path()), ChangeKind::FormatChanged, format!("format `{old}` -> `{new}`")))
        }
        _ => {}
    }
    if of.fixture != nf.fixture {
        out.push(change(n, Some(at.path()), ChangeKind::FixtureChanged, "fixture hint changed".to_owned()));
    }
    match (of.values(), nf.values()) {
        (None, Some(_)) => {
            out.push(change(n, Some(at.path()), ChangeKind::FieldNarrowed, "string -> closed set".to_owned()));
        }
        (Some(_), None) => {
            out.push(change(n, Some(at.path()), ChangeKind::FieldWidened, "closed set -> string".to_owned()));
        }
        (Some(old), Some(new)) => {
            let has = |set: &[EnumValue], value: &str| set.iter().any(|v| v.value == value);
            for value in new.iter().filter(|v| !has(old, &v.value)) {
                out.push(change(
                    n,
                    Some(at.path()),
                    ChangeKind::EnumValueAdded,
                    format!("value {:?} added", value.value),
                ));
            }
            for value in old.iter().filter(|v| !has(new, &v.value)) {
                let detail = format!("value {:?} removed", value.value);
                out.push(change(n, Some(at.path()), ChangeKind::EnumValueRemoved, detail));
            }
        }
        (None, None) => {}
    }
    match (of.nullable, nf.nullable) {
        (false, true) => out.push(change(n, Some(at.path()), ChangeKind::MadeNullable, "now nullable".to_owned())),
        (true, false) => {
            out.push(change(n, Some(at.path()), ChangeKind::MadeNonNullable, "no longer nullable".to_owned()))
        }
        _ => {}
    }
    let items = |f: &FieldDescriptor| (f.min_items.map(f64::from), f.max_items.map(f64::from));
    let kinds = [ChangeKind::ListBoundsLoosened, ChangeKind::ListBoundsTightened, ChangeKind::ListBoundsChanged];
    if let Some((kind, detail)) = bounds_change(items(of), items(nf), kinds) {
        out.push(change(n, Some(at.path()), kind, format!("list bounds {detail}")));
    }
    let values = |f: &FieldDescriptor| (f.minimum, f.maximum);
    let kinds = [ChangeKind::ValueBoundsLoosened, ChangeKind::ValueBoundsTightened, ChangeKind::ValueBoundsChanged];
    if let Some((kind, detail)) = bounds_change(values(of), values(nf), kinds) {
        out.push(change(n, Some(at.path()), kind, format!("bounds {detail}")));
    }
    if let (Some(oi), Some(ni)) = (of.item_type(), nf.item_type()) {
        value_changes(n, oi, ni, &at.items(), out);
    }
    if let (Some(ofs), Some(nfs)) = (of.nested_fields(), nf.nested_fields()) {
        fields_changes(n, ofs, nfs, at, out);
    }
}

/// How a pair of bounds (least, greatest; `None` for none) moved: the
/// loosened, tightened or changed kind of `kinds` and the change in words,
/// or `None` when they did not. Bounds that only allow more values let new
/// readers read every old value; bounds that allow fewer, only old readers
/// every new one.
fn bounds_change(
    old: (Option<f64>, Option<f64>),
    new: (Option<f64>, Option<f64>),
    [loosened, tightened, changed]: [ChangeKind; 3],
) -> Option<(ChangeKind, String)> {
    if old == new {
        return None;
    }
    let (old_lo, old_hi) = (old.0.unwrap_or(f64::NEG_INFINITY), old.1.unwrap_or(f64::INFINITY));
    let (new_lo, new_hi) = (new.0.unwrap_or(f64::NEG_INFINITY), new.1.unwrap_or(f64::INFINITY));
    let kind = if new_lo <= old_lo && new_hi >= old_hi {
        loosened
    } else if new_lo >= old_lo && new_hi <= old_hi {
        tightened
    } else {
        changed
    };
    let show = |(lo, hi): (Option<f64>, Option<f64>)| {
        let bound = |b: Option<f64>| b.map_or_else(|| "-".to_owned(), foundry_catalog_core::hash::es_number);
        format!("{}..{}", bound(lo), bound(hi))
    };
    Some((kind, format!("{} -> {}", show(old), show(new))))
}

/// The compatibility policy as a Markdown table, from
/// [`ChangeKind::compatibility`] (docs/evolution.md shows this table).
pub fn policy_table() -> String {
    let mut out =
        String::from("| change | strict readers | tolerant readers | `schema_hash` | hint |\n|---|---|---|---|---|\n");
    for kind in ChangeKind::ALL {
        let (strict, tolerant) = kind.compatibility();
        out.push_str(&format!(
            "| `{kind}` | {strict} | {tolerant} | {} | {} |\n",
            if kind.changes_hash() { "changes" } else { "unchanged" },
            kind.hint()
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::longest_increasing;

    /// The kept positions are increasing in value and as many as the
    /// longest such run (found by trying every subset of short lists).
    #[test]
    fn the_kept_fields_are_a_longest_run_in_order() {
        let lists: [&[usize]; 7] =
            [&[], &[0], &[1, 0], &[0, 2, 1, 3], &[3, 2, 1, 0], &[0, 1, 2, 3, 4, 5], &[4, 0, 5, 1, 6, 2, 3]];
        for values in lists {
            let kept: Vec<usize> = longest_increasing(values).into_iter().collect();
            assert!(kept.windows(2).all(|w| values[w[0]] < values[w[1]]), "{values:?}: {kept:?}");
            let longest = (0u32..1 << values.len())
                .filter(|mask| {
                    let chosen: Vec<usize> = (0..values.len()).filter(|i| mask & (1 << i) != 0).collect();
                    chosen.windows(2).all(|w| values[w[0]] < values[w[1]])
                })
                .map(u32::count_ones)
                .max()
                .unwrap_or(0) as usize;
            assert_eq!(kept.len(), longest, "{values:?}: {kept:?}");
        }
    }
}
