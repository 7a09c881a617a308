//! Generation speed: 10, 100 and 1,000 synthetic record types of 20 fields
//! each, through the whole pipeline (read, check, hash, emit, format) and
//! through read + check alone, to show where the time goes.
//!
//! ```text
//! cargo bench -p foundry-catalog-benches --bench generate
//! ```
//!
//! The target is 1,000 types in under a second on a 2-core machine, with a
//! per-type cost that stays flat from 10 to 1,000 (divan's items/s column).

use divan::Bencher;
use divan::counter::ItemsCount;
use foundry_catalog_build::{Generator, Source};

fn main() {
    divan::main();
}

const FIELDS_PER_TYPE: usize = 20;

/// `types` definitions of 20 fields mixing every type, optional fields and
/// every fixture hint, as files in one folder would be.
fn synthetic(types: usize) -> Vec<Source> {
    (0..types)
        .map(|t| {
            let label = format!("synthetic_type_{t:04}");
            let fields: Vec<String> = (0..FIELDS_PER_TYPE)
                .map(|f| {
                    let (ty, hint) = match f % 7 {
                        0 => ("string", r#", "fixture": {"token": "fixture_validated"}"#),
                        1 => ("string", r#", "fixture": {"date": "2026-01-15"}"#),
                        2 => ("string", r#", "fixture": {"url": "https://registry.example.org/records"}"#),
                        3 => ("number", r#", "fixture": {"fraction": 0.91}"#),
                        4 => ("object", r#", "fixture": {"payload": "bench_mode"}"#),
                        5 => ("number", ""),
                        _ => ("string", ""),
                    };
                    format!(
                        r#"{{"name": "fieldNumber{f}", "type": "{ty}", "required": {}, "description": "Synthetic field {f} of {label}."{hint}}}"#,
                        f % 5 != 4
                    )
                })
                .collect();
            let json = format!(
                r#"{{"record_label": "{label}", "sample_type": "deterministic_executable_fixture", "fields": [{}]}}"#,
                fields.join(",\n")
            );
            Source::new(format!("bench/{label}.json"), json)
        })
        .collect()
}

/// Read, check, hash, emit and format with prettyplease.
#[divan::bench(args = [10, 100, 1000], sample_count = 10)]
fn generate(bencher: Bencher, types: usize) {
    let sources = synthetic(types);
    let generator = Generator::new();
    bencher
        .counter(ItemsCount::new(types))
        .bench(|| generator.generate(divan::black_box(&sources)).map(|code| code.len()).unwrap_or_default());
}

/// Read and check only (parse, rules, names, hash): the part before emitting.
#[divan::bench(args = [10, 100, 1000], sample_count = 10)]
fn check(bencher: Bencher, types: usize) {
    let sources = synthetic(types);
    let generator = Generator::new();
    bencher
        .counter(ItemsCount::new(types))
        .bench(|| generator.check(divan::black_box(&sources)).map(|types| types.len()).unwrap_or_default());
}
