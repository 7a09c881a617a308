//! Arbitrary JSON → the conformance validator and the typed parse: never a
//! panic; a body the validator accepts always reads into the typed model
//! and serializes back to an equal JSON value.
#![no_main]

use foundry_catalog::response::ProductResponse;
use foundry_catalog::conformance::validate;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(body) = serde_json::from_slice::<serde_json::Value>(data) else { return };
    let violations = validate(&body);
    for v in &violations {
        assert!(v.pointer.is_empty() || v.pointer.starts_with('/'), "{v}");
    }
    match ProductResponse::from_value(&body) {
        Ok(response) => {
            assert!(violations.is_empty());
            let again = serde_json::to_value(&response).expect("serializes");
            assert_eq!(again, body, "a valid body round-trips");
        }
        Err(_) => assert!(!violations.is_empty() || body.get("data").is_some()),
    }
});
