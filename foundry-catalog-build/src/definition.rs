//! Reading a definition file: bytes → [`RecordTypeDefinition`], with
//! line:column for every syntax or format error.

use serde::Deserialize;

use crate::error::DefinitionError;
use crate::positions::{Positions, child};
use foundry_catalog_core::{DigestLength, FieldDescriptor, SampleType};
use serde_json::Value;

/// The largest definition file accepted, in bytes.
pub const MAX_DEFINITION_BYTES: usize = 1 << 20;

/// The number of sample rows when a definition does not say.
pub(crate) const DEFAULT_SAMPLE_ROWS: u64 = 3;

/// A definition file as written (see `schema/record-type.schema.json`).
#[derive(Debug, Clone, PartialEq, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct RecordTypeDefinition {
    /// Optional pointer to the JSON Schema of this format, for editors.
    #[serde(rename = "$schema", default)]
    pub(crate) schema: Option<String>,
    /// The record label; must equal the file name without `.json`.
    pub(crate) record_label: String,
    /// What a record of this type is (optional).
    #[serde(default)]
    pub(crate) description: String,
    /// How sample rows of this type are produced.
    pub(crate) sample_type: SampleType,
    /// Length of the hex `schema_hash`: 64 (default) or 40.
    #[serde(default)]
    pub(crate) digest_length: DigestLength,
    /// Number of fixture rows in a sample (default 3).
    #[serde(default = "default_sample_rows")]
    pub(crate) sample_rows: u64,
    /// The fields, in wire order.
    pub(crate) fields: Vec<FieldDescriptor>,
}

fn default_sample_rows() -> u64 {
    DEFAULT_SAMPLE_ROWS
}

/// A definition that did not read as written, read with what was wrong
/// set aside: its format errors, and (when the rest read) the definition
/// the rule checks can look at, with the places whose values were put in.
#[derive(Debug)]
pub(crate) struct Unread<'a> {
    /// Every format error found.
    pub(crate) errors: Vec<DefinitionError>,
    /// The definition with each broken value set aside, when it read
    /// (boxed: the error stays small).
    pub(crate) rest: Option<Box<(RecordTypeDefinition, Positions<'a>, SetAside)>>,
}

impl From<Vec<DefinitionError>> for Unread<'_> {
    fn from(errors: Vec<DefinitionError>) -> Self {
        Unread { errors, rest: None }
    }
}

/// The places whose values were put in or taken out to read on: a rule
/// error there would be about the stand-in, not the file.
#[derive(Debug, Default)]
pub(crate) struct SetAside {
    /// Errors at exactly these pointers (a field whose key was changed).
    at: Vec<String>,
    /// Errors at or under these pointers (a value replaced whole).
    under: Vec<String>,
}

impl SetAside {
    /// Whether a rule error at `pointer` may be about a stand-in value.
    pub(crate) fn covers(&self, pointer: &str) -> bool {
        self.at.iter().any(|p| p == pointer)
            || self
                .under
                .iter()
                .any(|p| pointer == p || pointer.strip_prefix(p.as_str()).is_some_and(|r| r.starts_with('/')))
    }
}

/// Parses the bytes of one definition file, with the place of each of its
/// values. `file` is the path used in error messages. Every format error
/// of the file is reported (a fault that stops reading, such as invalid
/// JSON, alone), with what read of the rest, for the rule checks.
pub(crate) fn parse<'a>(file: &str, bytes: &'a [u8]) -> Result<(RecordTypeDefinition, Positions<'a>), Unread<'a>> {
    let file = file.to_owned();
    if bytes.len() > MAX_DEFINITION_BYTES {
        return Err(vec![DefinitionError::TooLarge { file, size: bytes.len(), limit: MAX_DEFINITION_BYTES }].into());
    }
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        return Err(vec![DefinitionError::ByteOrderMark { file }].into());
    }
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let (line, column) = line_column(bytes, e.valid_up_to());
            return Err(vec![DefinitionError::NotUtf8 { file, line, column }].into());
        }
    };
    let Some(start) = text.find(|c: char| !c.is_ascii_whitespace()) else {
        return Err(vec![DefinitionError::Empty { file }].into());
    };
    if !text[start..].starts_with('{') {
        let (line, column) = line_column(bytes, start);
        return Err(vec![DefinitionError::Format {
            file,
            line,
            column,
            message: "a definition must be a JSON object".to_owned(),
            hint: "write one object: {\"record_label\": …, \"sample_type\": …, \"fields\": […]}".to_owned(),
        }]
        .into());
    }
    // Syntax first, on the plain JSON tree, so a value of the wrong type is
    // never reported as invalid JSON.
    let mut value: Value =
        serde_json::from_str(text).map_err(|e| Unread::from(vec![syntax_error(file.clone(), &e)]))?;
    let mut positions = Positions::new(text);
    let mut set_aside_at = SetAside::default();
    // serde also accepts a struct written as an array; the format does not.
    let mut errors: Vec<DefinitionError> = array_forms(&value, "")
        .into_iter()
        .map(|pointer| {
            let (line, column) = positions.of(&pointer);
            set_aside_at.under.push(pointer);
            DefinitionError::Format {
                file: file.clone(),
                line,
                column,
                message: "a field or an item is written as an array".to_owned(),
                hint: "write it as an object: {\"name\": …, \"type\": …, \"required\": …, \"description\": …}"
                    .to_owned(),
            }
        })
        .collect();
    // Most definitions read at once; only one that does not is read again,
    // error by error, with the path of each.
    if errors.is_empty()
        && let Ok(definition) = RecordTypeDefinition::deserialize(&value)
    {
        positions.keep(value);
        return Ok((definition, positions));
    }
    // Every format error, not only the first: each one found is set aside
    // (an unknown key removed, a wrong or missing value replaced by one that
    // reads) and the tree read again, until it reads or nothing changes.
    let mut rest = None;
    for _ in 0..MAX_FORMAT_ERRORS {
        match serde_path_to_error::deserialize::<_, RecordTypeDefinition>(&value) {
            Ok(definition) if errors.is_empty() => return Ok((definition, positions)),
            Ok(definition) => {
                rest = Some(definition);
                break;
            }
            Err(e) => {
                let pointer = pointer_of(e.path());
                let message = e.into_inner().to_string();
                // An unknown or misspelt key is shown at the key itself.
                let (line, column) = match unknown_key(&message) {
                    Some(key) if !pointer.ends_with(&child("", &key)) => positions.key_of(&child(&pointer, &key)),
                    Some(_) => positions.key_of(&pointer),
                    None => positions.of(&pointer),
                };
                errors.push(format_error(file.clone(), message.clone(), line, column));
                if !set_aside(&mut value, &pointer, &message, &mut set_aside_at) {
                    break;
                }
            }
        }
    }
    // In the file's order, whatever order the keys were read in (serde_json
    // keeps a file's order only where `preserve_order` is on).
    errors.sort_by_key(DefinitionError::place);
    Err(Unread { errors, rest: rest.map(|definition| Box::new((definition, positions, set_aside_at))) })
}

/// The most format errors reported for one file.
const MAX_FORMAT_ERRORS: usize = 64;

/// A serde path (`fields[2].items.type`) as a JSON pointer
/// (`/fields/2/items/type`); an enum's variant is the key it is written as.
fn pointer_of(path: &serde_path_to_error::Path) -> String {
    use serde_path_to_error::Segment;
    let mut pointer = String::new();
    for segment in path.iter() {
        pointer = match segment {
            Segment::Seq { index } => child(&pointer, &index.to_string()),
            Segment::Map { key } | Segment::Enum { variant: key } => child(&pointer, key),
            Segment::Unknown => pointer,
        };
    }
    pointer
}

/// The pointers of fields and items written as arrays, at every depth.
fn array_forms(value: &Value, pointer: &str) -> Vec<String> {
    let mut out = Vec::new();
    let Some(object) = value.as_object() else { return out };
    // Pointers are made only for what is found (the walk is on every file).
    if let Some(Value::Array(fields)) = object.get("fields") {
        for (i, field) in fields.iter().enumerate() {
            if field.is_array() {
                out.push(child(&child(pointer, "fields"), &i.to_string()));
            } else if field.get("fields").is_some() || field.get("items").is_some() {
                out.extend(array_forms(field, &child(&child(pointer, "fields"), &i.to_string())));
            }
        }
    }
    if let Some(item) = object.get("items") {
        if item.is_array() {
            out.push(child(pointer, "items"));
        } else if item.get("fields").is_some() || item.get("items").is_some() {
            out.extend(array_forms(item, &child(pointer, "items")));
        }
    }
    out
}

/// Sets aside what made reading fail at `pointer`, so the next reading
/// goes further: an unknown key is removed, a missing key gets a value
/// that reads, a wrong value is replaced by one. Returns whether anything
/// changed, and notes in `at` where a stand-in now is: a file with a format
/// error fails, and its rule checks skip those places.
fn set_aside(value: &mut Value, pointer: &str, message: &str, at: &mut SetAside) -> bool {
    let quoted = |prefix: &str| message.strip_prefix(prefix).and_then(|rest| rest.split('`').nth(1)).map(str::to_owned);
    // A key of the object at `object` was changed: the checks of that
    // object (a field, or the definition's own key) may see the stand-in.
    // Its stand-ins for `required` (false), `nullable` and `description`
    // make no rule error, so those keys leave the object's checks alone.
    let changed = |at: &mut SetAside, object: &str, key: &str| {
        if !object.is_empty() && !matches!(key, "required" | "nullable" | "description") {
            at.at.push(object.to_owned());
        }
        at.under.push(child(object, key));
    };
    if let Some(key) = unknown_key(message) {
        // The path may end at the key or at its object. A key the format
        // does not have changes nothing the checks look at.
        let object = if pointer.ends_with(&child("", &key)) { parent(pointer) } else { pointer };
        return value.pointer_mut(object).and_then(Value::as_object_mut).and_then(|o| o.remove(&key)).is_some();
    }
    if let Some(key) = quoted("missing field ") {
        let Some(placeholder) = placeholder(&key) else { return false };
        changed(at, pointer, &key);
        return value
            .pointer_mut(pointer)
            .and_then(Value::as_object_mut)
            .is_some_and(|o| o.insert(key, placeholder).is_none());
    }
    // A fixture hint is one value: whatever is wrong inside it, it goes.
    if let Some(cut) = pointer.find("/fixture") {
        let hint = &pointer[..cut + "/fixture".len()];
        if hint.len() == pointer.len() || pointer[hint.len()..].starts_with('/') {
            let object = parent(hint);
            changed(at, object, "fixture");
            return value
                .pointer_mut(object)
                .and_then(Value::as_object_mut)
                .and_then(|o| o.remove("fixture"))
                .is_some();
        }
    }
    let key = pointer.rsplit('/').next().unwrap_or_default();
    let replacement = match placeholder(key) {
        Some(placeholder) => placeholder,
        // An entry of `enum`: its field's closed set.
        None if key.parse::<usize>().is_ok() && parent(pointer).ends_with("/enum") => {
            changed(at, parent(parent(pointer)), "enum");
            Value::from("x")
        }
        // An entry of `fields`: a stand-in field, wholly.
        None if key.parse::<usize>().is_ok() => {
            at.under.push(pointer.to_owned());
            placeholder_field()
        }
        None => {
            let object = parent(pointer);
            changed(at, object, key);
            return value.pointer_mut(object).and_then(Value::as_object_mut).and_then(|o| o.remove(key)).is_some();
        }
    };
    changed(at, parent(pointer), key);
    match value.pointer_mut(pointer) {
        Some(slot) if *slot != replacement => {
            *slot = replacement;
            true
        }
        _ => false,
    }
}

/// The key serde's message names as unknown.
fn unknown_key(message: &str) -> Option<String> {
    message.strip_prefix("unknown field ").and_then(|rest| rest.split('`').nth(1)).map(str::to_owned)
}

/// The pointer of the value that holds the one at `pointer`.
fn parent(pointer: &str) -> &str {
    pointer.rfind('/').map_or("", |cut| &pointer[..cut])
}

/// A value that reads for a key of the format, to read on past an error.
fn placeholder(key: &str) -> Option<Value> {
    Some(match key {
        "record_label" | "name" | "description" | "value" => Value::from("x"),
        "sample_type" => Value::from("deterministic_public_source_fixture"),
        "type" => Value::from("string"),
        // `false`: an optional field takes every fixture hint a required one does.
        "required" => Value::from(false),
        "nullable" => Value::from(true),
        "fields" => Value::Array(vec![placeholder_field()]),
        "digest_length" => Value::from(64),
        "sample_rows" => Value::from(DEFAULT_SAMPLE_ROWS),
        "fixture" | "format" | "rust_name" | "items" | "min_items" | "max_items" | "minimum" | "maximum" | "enum"
        | "$schema" => return None,
        _ => return None,
    })
}

/// A field that reads, to read on past an entry of `fields` that does not.
fn placeholder_field() -> Value {
    serde_json::json!({"name": "x", "type": "string", "required": true, "description": "x"})
}

/// Line and column (from 1, column in characters) of a byte offset whose
/// prefix is valid UTF-8.
fn line_column(bytes: &[u8], offset: usize) -> (usize, usize) {
    let prefix = bytes.get(..offset).and_then(|p| std::str::from_utf8(p).ok()).unwrap_or_default();
    let line = prefix.matches('\n').count() + 1;
    let column = prefix.rsplit('\n').next().unwrap_or_default().chars().count() + 1;
    (line, column)
}

/// serde_json's message without its trailing " at line L column C", and the
/// place (columns from 1: at the end of input serde_json reports 0).
fn message_and_place(e: &serde_json::Error) -> (String, usize, usize) {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let message = full.strip_suffix(&suffix).unwrap_or(&full).to_owned();
    (message, e.line(), e.column().max(1))
}

fn syntax_error(file: String, e: &serde_json::Error) -> DefinitionError {
    let (message, line, column) = message_and_place(e);
    let hint = if message.contains("recursion limit") {
        "a definition nests objects only a few levels deep; remove the extra nesting"
    } else if e.classify() == serde_json::error::Category::Eof {
        "the file ends too early: close every string, `[` and `{`"
    } else {
        "look for a missing or extra comma, quote, colon or bracket just before this place"
    };
    DefinitionError::Syntax { file, line, column, message, hint: hint.to_owned() }
}

fn format_error(file: String, message: String, line: usize, column: usize) -> DefinitionError {
    // serde names Rust types (`expected f64`): say what to write instead.
    let mut message = message.replace(", expected f64", ", expected a number");
    for unsigned in ["u8", "u16", "u32", "u64", "usize"] {
        message = message.replace(&format!(", expected {unsigned}"), ", expected a whole number, 0 or more");
    }
    let suggestion = (message.starts_with("unknown field") || message.starts_with("unknown variant"))
        .then(|| {
            crate::suggest::written(&message).and_then(|w| crate::suggest::hint(w, &crate::suggest::listed(&message)))
        })
        .flatten();
    let hint = if let Some(suggestion) = suggestion {
        suggestion
    } else if message.starts_with("unknown field") {
        "remove the key or correct its spelling; the allowed keys are listed above".to_owned()
    } else if message.starts_with("unknown variant") {
        "use one of the values listed above".to_owned()
    } else if message.starts_with("missing field") {
        format!("add the key; see {} for the format", crate::error::FORMAT_URL)
    } else if message.contains("digest length") {
        "write 64 (the default) or 40".to_owned()
    } else if message.contains("expected string or map") || message.contains("expected map with a single key") {
        // What serde says when an enum (a field type, sample type or
        // fixture hint) meets a number, array, boolean or null, or a hint
        // object with other than one key.
        message = "this value has the wrong type".to_owned();
        "`sample_type` and a field's `type` are strings; a fixture hint is a string (\"sequence\", \"absent\") or an object with one key, such as {\"text\": \"entity name\"}".to_owned()
    } else if message.starts_with("invalid type: string")
        && (message.contains(", expected a number") || message.contains(", expected a whole number"))
    {
        "write the number bare, as JSON does (`0`, not `\"0\"`)".to_owned()
    } else if message.contains(", expected a whole number") {
        "write a whole number, 0 or more".to_owned()
    } else if message.contains(", expected a number") {
        "write a JSON number".to_owned()
    } else {
        format!("see {} for the type each key takes", crate::error::FORMAT_URL)
    };
    DefinitionError::Format { file, line, column, message, hint }
}
