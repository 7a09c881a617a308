//! Generates code for `tests/corpus/good/*.json` the way a user's build
//! script would: with the generator crate, naming the runtime
//! `::foundry_catalog`, once as tolerant readers and once as strict ones.
//! `settings/*.json` is generated again with extra derives and attributes,
//! which the tests use.

use std::process::ExitCode;

use foundry_catalog_build::Generator;

fn main() -> ExitCode {
    let corpus = Generator::new().build_script("../corpus/good", "corpus.rs");
    // The same corpus as strict readers, the fourth judge of tests/contract.rs.
    let strict = Generator::new().strict_readers(true).build_script("../corpus/good", "strict.rs");
    let settings = Generator::new()
        .derive("Eq")
        .derive("Hash")
        .derive("PartialOrd")
        .derive("Ord")
        .type_attribute("tally", "#[serde(deny_unknown_fields)]")
        .type_attribute("tally.parts[]", "#[serde(deny_unknown_fields)]")
        .field_attribute("tally.parts[].code", "#[serde(alias = \"id\")]")
        .build_script("settings", "settings.rs");
    [corpus, strict, settings].into_iter().find(|code| *code != ExitCode::SUCCESS).unwrap_or(ExitCode::SUCCESS)
}
