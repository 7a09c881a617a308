//! Every definition of the record-types example becomes a struct, its
//! fixtures and its schema_hash, exactly as the README shows.

fn main() -> std::process::ExitCode {
    foundry_catalog_build::Generator::new().build_script("../record-types-app/record-types", "records.rs")
}
