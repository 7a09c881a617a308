//! Generates code for `tests/corpus/good/*.json` the way a user's build
//! script would: with the generator crate, naming the runtime
//! `::foundry_catalog`.

fn main() -> std::process::ExitCode {
    foundry_catalog_build::Generator::new().build_script("../corpus/good", "corpus.rs")
}
