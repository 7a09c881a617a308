//! Definition text → read, check, generate: never a panic, and every error
//! names the file and carries a hint.
#![no_main]

use foundry_catalog_build::{Generator, Source};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let source = Source::new("fuzz/fuzzed.json", data);
    match Generator::new().threads(1).generate(&[source]) {
        Ok(code) => assert!(code.starts_with("// @generated")),
        Err(errors) => {
            for error in &errors.0 {
                let message = error.to_string();
                assert!(message.starts_with("fuzz/fuzzed.json") || message.starts_with("<generator>"), "{message}");
                assert!(message.contains("; hint: "), "{message}");
                assert!(!message.contains("internal generator error"), "{message}");
            }
        }
    }
});
