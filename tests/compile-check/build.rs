//! Generates code for `tests/corpus/good/*.json` the way a user's build
//! script would: with the generator crate, naming the runtime
//! `::foundry_catalog`. `settings/*.json` is generated again with extra
//! derives and attributes, which the tests use.

use std::process::ExitCode;

use foundry_catalog_build::Generator;

fn main() -> ExitCode {
    let corpus = Generator::new().build_script("../corpus/good", "corpus.rs");
    let settings = Generator::new()
        .derive("Eq")
        .derive("Hash")
        .derive("PartialOrd")
        .derive("Ord")
        .type_attribute("tally", "#[serde(deny_unknown_fields)]")
        .type_attribute("tally.parts[]", "#[serde(deny_unknown_fields)]")
        .field_attribute("tally.parts[].code", "#[serde(alias = \"id\")]")
        .build_script("settings", "settings.rs");
    if corpus == ExitCode::SUCCESS { settings } else { corpus }
}
