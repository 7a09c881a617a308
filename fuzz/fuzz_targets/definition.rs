//! Definition text → read, check, generate: never a panic, and every error
//! names the file and carries a hint.
#![no_main]

use foundry_catalog_build::{Generator, Source};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    // Named after its label when it has a plain one, so a well-formed
    // definition passes the file-name rule and reaches the emitter.
    let label = serde_json::from_slice::<serde_json::Value>(data)
        .ok()
        .and_then(|v| v.get("record_label")?.as_str().map(str::to_owned))
        .filter(|l| !l.is_empty() && l.len() < 64 && l.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_'));
    let source = Source::new(format!("fuzz/{}.json", label.as_deref().unwrap_or("fuzzed")), data);
    match Generator::new().threads(1).generate(&[source]) {
        Ok(code) => assert!(code.starts_with("// @generated")),
        Err(errors) => {
            for error in &errors.0 {
                let message = error.to_string();
                assert!(message.starts_with("fuzz/") || message.starts_with("<generator>"), "{message}");
                assert!(message.contains("; hint: "), "{message}");
                assert!(!message.contains("internal generator error"), "{message}");
            }
        }
    }
});
