//! Generates code for `tests/corpus/good/*.json` the way a user's build
//! script would: through the library, naming it `::foundry_catalog`.

fn main() -> std::process::ExitCode {
    foundry_catalog::codegen::Generator::new().build_script("../corpus/good", "corpus.rs")
}
