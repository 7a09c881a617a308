//! `--record-types DIR`: record types read from definition folders at run
//! time, known besides the shipped (compiled-in) ones, checked exactly as
//! a build script checks them and interpreted by the same model.

use std::path::PathBuf;

use foundry_catalog_core::RecordSchema;

/// The `--record-types` flag every command that needs record types takes.
#[derive(Debug, Clone, Default, clap::Args)]
pub(crate) struct RecordTypeDirs {
    /// A folder of record-type definitions (a serving crate's own
    /// `record-types/`), known besides the shipped types, as generated code
    /// of the same files would know them. Repeatable; the environment
    /// variable takes folders separated by `:`.
    #[arg(long = "record-types", value_name = "DIR", env = "FOUNDRY_CATALOG_RECORD_TYPES", value_delimiter = ':')]
    dirs: Vec<PathBuf>,
}

impl RecordTypeDirs {
    /// [`RecordTypeDirs::read`], its problems printed to stderr (exit code 2).
    pub(crate) fn load(&self) -> Result<Vec<RecordSchema>, std::process::ExitCode> {
        self.read().map_err(|problems| {
            eprintln!("{problems}");
            std::process::ExitCode::from(crate::USAGE)
        })
    }

    /// [`read`] of these folders.
    pub(crate) fn read(&self) -> Result<Vec<RecordSchema>, String> {
        read(&self.dirs)
    }

    /// The folders, for a server that reads them again at every reload.
    pub(crate) fn for_server(self) -> foundry_catalog_server::RecordTypes {
        if self.dirs.is_empty() {
            return foundry_catalog_server::RecordTypes::default();
        }
        foundry_catalog_server::RecordTypes::from_folders(self.dirs, read)
    }
}

/// The record types of every folder, checked (every mistake of every
/// file, each on a line `error: …`), without the shipped types; a folder
/// type with a shipped type's label must be that type.
fn read(dirs: &[PathBuf]) -> Result<Vec<RecordSchema>, String> {
    let mut loaded: Vec<(String, RecordSchema)> = Vec::new();
    for dir in dirs {
        // Files named by the folder as given, so every message names
        // the file a user can open.
        let sources = foundry_catalog_build::Source::read_dir(std::path::Path::new("."), &dir.to_string_lossy())
            .map_err(|e| e.to_string())?;
        let checked = foundry_catalog_build::Generator::new().check(&sources).map_err(|e| e.to_string())?;
        for checked in checked {
            let (schema, file) = (checked.runtime_schema(), checked.file);
            if let Some(shipped) = foundry_catalog::record_type(&schema.record_label) {
                if shipped == &schema {
                    continue;
                }
                let how = if shipped.schema_hash == schema.schema_hash {
                    format!("the same schema_hash {} but other descriptions or fixture hints", schema.schema_hash)
                } else {
                    format!("schema_hash {} where the shipped one has {}", schema.schema_hash, shipped.schema_hash)
                };
                return Err(format!(
                    "error: {file}: record type `{}` is shipped (record-types/{}.json, compiled in) and this definition differs from it: {how}; hint: give the definition another record_label, or make it the shipped one",
                    schema.record_label, schema.record_label
                ));
            }
            if let Some((other, earlier)) = loaded.iter().find(|(_, t)| t.record_label == schema.record_label) {
                if earlier == &schema {
                    continue;
                }
                return Err(format!(
                    "error: {file}: record type `{}` is also defined, differently, in {other}; hint: keep one definition of each record type",
                    schema.record_label
                ));
            }
            loaded.push((file, schema));
        }
    }
    Ok(loaded.into_iter().map(|(_, schema)| schema).collect())
}

/// The record type with this label: a loaded one, else a shipped one.
pub(crate) fn find<'a>(loaded: &'a [RecordSchema], label: &str) -> Option<&'a RecordSchema> {
    loaded.iter().find(|t| t.record_label == label).or_else(|| foundry_catalog::record_type(label))
}

/// Every label known: the shipped ones and the loaded ones, sorted.
pub(crate) fn labels(loaded: &[RecordSchema]) -> Vec<&str> {
    let mut labels: Vec<&str> =
        foundry_catalog::record_types().iter().chain(loaded).map(|t| &*t.record_label).collect();
    labels.sort_unstable();
    labels.dedup();
    labels
}
