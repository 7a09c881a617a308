//! What can be wrong with a definition, with the file, the place and a hint.

use std::fmt;

/// Where the definition format is described, for hints: the record-type
/// JSON Schema as the project publishes it (a path of this repository
/// would name nothing in a crate that uses the generator).
pub(crate) const FORMAT_URL: &str = concat!(env!("CARGO_PKG_REPOSITORY"), "/blob/main/schema/record-type.schema.json");

/// Where in a definition a check failed.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Location {
    /// The `record_label` key.
    RecordLabel,
    /// The `sample_rows` key.
    SampleRows,
    /// The `fields` list as a whole.
    Fields,
    /// One entry of `fields`, by index (from 0) and wire name.
    Field {
        /// Index in `fields`, from 0.
        index: usize,
        /// The field's wire name.
        name: String,
    },
    /// A place inside a field: a field of a nested object or the items of
    /// a list, written as the steps to it from the top-level field, such
    /// as ``fields[2] `seller`.fields[0] `name` `` or ``fields[1] `tags`.items``.
    Nested {
        /// The steps, joined by `.`.
        path: String,
        /// The same place as a JSON pointer (`/fields/2/fields/0`).
        pointer: String,
    },
    /// A key of a field or of a list's items (its `minimum`, `format`,
    /// `fixture`, or an entry of its `enum`, `/enum/2`): a rule about that
    /// key is broken there. An error names the place as [`Location::Key::of`]
    /// does, and its line and column are the key's.
    Key {
        /// The field or items the key belongs to.
        of: Box<Location>,
        /// The key, or the steps to the entry below it (`enum/2`).
        key: String,
    },
}

impl Location {
    /// The place as a JSON pointer into the definition file.
    pub fn pointer(&self) -> String {
        match self {
            Location::RecordLabel => "/record_label".to_owned(),
            Location::SampleRows => "/sample_rows".to_owned(),
            Location::Fields => "/fields".to_owned(),
            Location::Field { index, .. } => format!("/fields/{index}"),
            Location::Nested { pointer, .. } => pointer.clone(),
            Location::Key { of, key } => format!("{}/{key}", of.pointer()),
        }
    }

    /// The pointers a rule error here may be about: its own, and for a
    /// key, its field's too.
    pub(crate) fn pointers(&self) -> Vec<String> {
        match self {
            Location::Key { of, .. } => vec![of.pointer(), self.pointer()],
            _ => vec![self.pointer()],
        }
    }
}

impl fmt::Display for Location {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Location::RecordLabel => f.write_str("record_label"),
            Location::SampleRows => f.write_str("sample_rows"),
            Location::Fields => f.write_str("fields"),
            Location::Field { index, name } => f.write_str(&Step::Field(*index, name.clone()).to_string()),
            Location::Nested { path, .. } => f.write_str(path),
            Location::Key { of, .. } => write!(f, "{of}"),
        }
    }
}

/// One step into a definition's fields.
#[derive(Debug, Clone)]
enum Step {
    /// A field of `fields`, by index and wire name.
    Field(usize, String),
    /// A list's `items`.
    Items,
}

impl fmt::Display for Step {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Step::Field(index, name) => write!(f, "fields[{index}] `{name}`"),
            Step::Items => f.write_str("items"),
        }
    }
}

/// The steps from a definition's `fields` to a field or item, as the
/// checks walk them.
#[derive(Debug, Clone, Default)]
pub(crate) struct Path(Vec<Step>);

impl Path {
    /// The definition's own `fields`.
    pub(crate) fn root() -> Path {
        Path::default()
    }

    /// The field `index` (wire name `name`) of the object at this path.
    pub(crate) fn field(&self, index: usize, name: &str) -> Path {
        let mut steps = self.0.clone();
        steps.push(Step::Field(index, name.to_owned()));
        Path(steps)
    }

    /// The key `key` of the field or items at this path.
    pub(crate) fn key(&self, key: &str) -> Location {
        Location::Key { of: Box::new(self.location()), key: key.to_owned() }
    }

    /// The items of the list at this path.
    pub(crate) fn items(&self) -> Path {
        let mut steps = self.0.clone();
        steps.push(Step::Items);
        Path(steps)
    }

    /// Where this is, as an error names it.
    pub(crate) fn location(&self) -> Location {
        match self.0.as_slice() {
            [Step::Field(index, name)] => Location::Field { index: *index, name: name.clone() },
            steps => Location::Nested {
                path: steps.iter().map(Step::to_string).collect::<Vec<_>>().join("."),
                pointer: steps
                    .iter()
                    .map(|step| match step {
                        Step::Field(index, _) => format!("/fields/{index}"),
                        Step::Items => "/items".to_owned(),
                    })
                    .collect(),
            },
        }
    }
}

/// One problem with one definition file. Every message starts with the
/// file (and line:column where there is one) and ends with a hint.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub enum DefinitionError {
    /// The file or folder could not be read.
    Read {
        /// The path, relative to the crate root.
        file: String,
        /// What the operating system said.
        reason: String,
    },
    /// The file holds nothing but whitespace.
    Empty {
        /// The path, relative to the crate root.
        file: String,
    },
    /// The file is larger than a definition may be.
    TooLarge {
        /// The path, relative to the crate root.
        file: String,
        /// The file's size in bytes.
        size: usize,
        /// The largest size allowed.
        limit: usize,
    },
    /// The file starts with a byte-order mark.
    ByteOrderMark {
        /// The path, relative to the crate root.
        file: String,
    },
    /// The file is not UTF-8.
    NotUtf8 {
        /// The path, relative to the crate root.
        file: String,
        /// Line of the first bad byte, from 1.
        line: usize,
        /// Column (in characters) of the first bad byte, from 1.
        column: usize,
    },
    /// The text is not JSON.
    Syntax {
        /// The path, relative to the crate root.
        file: String,
        /// Line, from 1.
        line: usize,
        /// Column, from 1.
        column: usize,
        /// What the JSON parser said.
        message: String,
        /// How to fix it.
        hint: String,
    },
    /// The JSON does not have the definition format: an unknown or missing
    /// key, a value of the wrong type, an unknown field type.
    Format {
        /// The path, relative to the crate root.
        file: String,
        /// Line, from 1.
        line: usize,
        /// Column, from 1.
        column: usize,
        /// What is wrong.
        message: String,
        /// How to fix it.
        hint: String,
    },
    /// A well-formed definition breaks a rule.
    Invalid {
        /// The path, relative to the crate root.
        file: String,
        /// Line of the place, from 1.
        line: usize,
        /// Column of the place (in characters), from 1.
        column: usize,
        /// The definition's record label.
        record_label: String,
        /// Where in the definition (boxed to keep the error small).
        location: Box<Location>,
        /// What is wrong.
        message: String,
        /// How to fix it.
        hint: String,
    },
    /// Two definitions clash with each other.
    Conflict {
        /// The path of the later definition.
        file: String,
        /// Its record label.
        record_label: String,
        /// The path of the definition it clashes with.
        other_file: String,
        /// What clashes.
        message: String,
        /// How to fix it.
        hint: String,
    },
    /// A generator setting (a derive or an attribute) that cannot be
    /// applied.
    Setting {
        /// The setting, as the `Generator` method call that made it.
        setting: String,
        /// What is wrong.
        message: String,
        /// How to fix it.
        hint: String,
    },
    /// The generator made something it could not print: a bug.
    Internal {
        /// The path (or `<generator>` for configuration).
        file: String,
        /// What went wrong.
        message: String,
    },
}

impl std::fmt::Display for DefinitionError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            DefinitionError::Read { file, reason } => {
                write!(f, "{file}: cannot read: {reason}; hint: check that the path exists and is readable")
            }
            DefinitionError::Empty { file } => write!(
                f,
                "{file}: the file is empty; hint: a definition is a JSON object with `record_label`, `sample_type` and `fields` (see {})",
                FORMAT_URL
            ),
            DefinitionError::TooLarge { file, size, limit } => write!(
                f,
                "{file}: the file is {size} bytes, over the {limit}-byte limit; hint: a definition describes one record type; shorten it"
            ),
            DefinitionError::ByteOrderMark { file } => write!(
                f,
                "{file}:1:1: the file starts with a UTF-8 byte-order mark; hint: save the file as UTF-8 without a BOM"
            ),
            DefinitionError::NotUtf8 { file, line, column } => {
                write!(f, "{file}:{line}:{column}: the file is not valid UTF-8; hint: save the file as UTF-8")
            }
            DefinitionError::Syntax { file, line, column, message, hint } => {
                write!(f, "{file}:{line}:{column}: invalid JSON: {message}; hint: {hint}")
            }
            DefinitionError::Format { file, line, column, message, hint } => {
                write!(f, "{file}:{line}:{column}: {message}; hint: {hint}")
            }
            DefinitionError::Invalid { file, line, column, record_label, location, message, hint } => {
                write!(f, "{file}:{line}:{column}: record type `{record_label}`, {location}: {message}; hint: {hint}")
            }
            DefinitionError::Conflict { file, record_label, other_file, message, hint } => {
                write!(f, "{file}: record type `{record_label}` {message} {other_file}; hint: {hint}")
            }
            DefinitionError::Setting { setting, message, hint } => {
                write!(f, "generator setting {setting}: {message}; hint: {hint}")
            }
            DefinitionError::Internal { file, message } => {
                write!(f, "{file}: internal generator error: {message}; hint: report this together with the definition")
            }
        }
    }
}

impl std::error::Error for DefinitionError {}

impl DefinitionError {
    /// The file the problem is in.
    pub fn file(&self) -> &str {
        match self {
            DefinitionError::Read { file, .. }
            | DefinitionError::Empty { file }
            | DefinitionError::TooLarge { file, .. }
            | DefinitionError::ByteOrderMark { file }
            | DefinitionError::NotUtf8 { file, .. }
            | DefinitionError::Syntax { file, .. }
            | DefinitionError::Format { file, .. }
            | DefinitionError::Invalid { file, .. }
            | DefinitionError::Conflict { file, .. }
            | DefinitionError::Internal { file, .. } => file,
            DefinitionError::Setting { .. } => "<generator>",
        }
    }

    /// Names the file (and the other file, for a conflict) from a folder
    /// above: `prefix` (`examples/app/`) before each path.
    pub(crate) fn prefix_file(&mut self, prefix: &str) {
        if prefix.is_empty() {
            return;
        }
        let files = match self {
            DefinitionError::Read { file, .. }
            | DefinitionError::Empty { file }
            | DefinitionError::TooLarge { file, .. }
            | DefinitionError::ByteOrderMark { file }
            | DefinitionError::NotUtf8 { file, .. }
            | DefinitionError::Syntax { file, .. }
            | DefinitionError::Format { file, .. }
            | DefinitionError::Invalid { file, .. }
            | DefinitionError::Internal { file, .. } => vec![file],
            DefinitionError::Conflict { file, other_file, .. } => vec![file, other_file],
            DefinitionError::Setting { .. } => Vec::new(),
        };
        // `$OUT_DIR` and the like name a variable, not a file; an absolute
        // path (the output under `OUT_DIR`) is named whole already.
        for file in files.into_iter().filter(|file| !file.starts_with('$') && !file.starts_with('/')) {
            *file = format!("{prefix}{file}");
        }
    }

    /// The line and column the problem is at, where it has one.
    pub fn place(&self) -> Option<(usize, usize)> {
        match self {
            DefinitionError::NotUtf8 { line, column, .. }
            | DefinitionError::Syntax { line, column, .. }
            | DefinitionError::Format { line, column, .. }
            | DefinitionError::Invalid { line, column, .. } => Some((*line, *column)),
            _ => None,
        }
    }
}

/// Every problem found in a set of definitions; displayed one per line,
/// each prefixed `error: ` as rustc does.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Errors(pub Vec<DefinitionError>);

impl fmt::Display for Errors {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, error) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "error: {error}")?;
        }
        Ok(())
    }
}

impl std::error::Error for Errors {}

impl From<DefinitionError> for Errors {
    fn from(error: DefinitionError) -> Self {
        Errors(vec![error])
    }
}
