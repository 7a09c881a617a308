//! Reading a definition file: bytes → [`RecordTypeDefinition`], with
//! line:column for every syntax or format error.

use serde::Deserialize;

use crate::error::{DefinitionError, Location};
use foundry_catalog_core::{DigestLength, FieldDescriptor, SampleType};

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

/// Parses the bytes of one definition file. `file` is the path used in
/// error messages.
pub(crate) fn parse(file: &str, bytes: &[u8]) -> Result<RecordTypeDefinition, DefinitionError> {
    let file = file.to_owned();
    if bytes.len() > MAX_DEFINITION_BYTES {
        return Err(DefinitionError::TooLarge { file, size: bytes.len(), limit: MAX_DEFINITION_BYTES });
    }
    if bytes.starts_with(b"\xEF\xBB\xBF") {
        return Err(DefinitionError::ByteOrderMark { file });
    }
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        Err(e) => {
            let (line, column) = line_column(bytes, e.valid_up_to());
            return Err(DefinitionError::NotUtf8 { file, line, column });
        }
    };
    let Some(start) = text.find(|c: char| !c.is_ascii_whitespace()) else {
        return Err(DefinitionError::Empty { file });
    };
    if !text[start..].starts_with('{') {
        let (line, column) = line_column(bytes, start);
        return Err(DefinitionError::Format {
            file,
            line,
            column,
            message: "a definition must be a JSON object".to_owned(),
            hint: "write one object: {\"record_label\": …, \"sample_type\": …, \"fields\": […]}".to_owned(),
        });
    }
    // Syntax first, on the plain JSON tree, so a value of the wrong type is
    // never reported as invalid JSON.
    let value: serde_json::Value = serde_json::from_str(text).map_err(|e| syntax_error(file.clone(), &e))?;
    let definition: RecordTypeDefinition = serde_json::from_str(text).map_err(|e| format_error(file.clone(), &e))?;
    // serde also accepts a struct written as an array; the format does not.
    let entries = value.get("fields").and_then(|f| f.as_array()).map(Vec::as_slice).unwrap_or_default();
    for (index, (entry, field)) in entries.iter().zip(&definition.fields).enumerate() {
        if !entry.is_object() {
            return Err(DefinitionError::Invalid {
                file,
                record_label: definition.record_label.clone(),
                location: Box::new(Location::Field { index, name: field.name.to_string() }),
                message: "the field is written as an array".to_owned(),
                hint: "write each field as an object with `name`, `type`, `required` and `description`".to_owned(),
            });
        }
    }
    Ok(definition)
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

fn format_error(file: String, e: &serde_json::Error) -> DefinitionError {
    let (mut message, line, column) = message_and_place(e);
    let hint = if message.starts_with("unknown field") {
        "remove the key or correct its spelling; the allowed keys are listed above"
    } else if message.starts_with("unknown variant") {
        "use one of the values listed above"
    } else if message.starts_with("missing field") {
        "add the key; see schema/record-type.schema.json for the format"
    } else if message.contains("digest length") {
        "write 64 (the default) or 40"
    } else if message == "expected value" {
        // What serde_json says when an enum (a field type, sample type or
        // fixture hint) meets a number, array, boolean or null.
        message = "this value has the wrong type".to_owned();
        "`sample_type` and a field's `type` are strings; a fixture hint is a string (\"sequence\", \"absent\") or an object with one key, such as {\"text\": \"entity name\"}"
    } else {
        "see schema/record-type.schema.json for the type each key takes"
    };
    DefinitionError::Format { file, line, column, message, hint: hint.to_owned() }
}
