//! `foundry-catalog check`: the conformance validator on response bodies,
//! read from files or fetched from a live service.

use std::process::ExitCode;

use serde_json::Value;

use crate::{BROKEN, USAGE};

/// Check response bodies against every rule of the spec.
///
/// Each argument is a file, or an http:// or https:// URL fetched with GET
/// (point it at a live service). Prints each violation as
/// `<source>: <json pointer>: [<rule>] <message>`, or `<source>: ok`. Exit
/// code 1 if any body breaks a rule, 2 if one cannot be read or is not JSON
/// (or a `--record-types` definition is broken).
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// Response files or http(s) URLs.
    #[arg(required = true, value_name = "FILE_OR_URL")]
    sources: Vec<String>,
    #[command(flatten)]
    record_types: crate::record_types::RecordTypeDirs,
    /// Print `ok` for a body whose record type is not known (its rows were
    /// not checked against a definition) instead of failing it.
    #[arg(long)]
    allow_unknown_record_types: bool,
}

pub(crate) fn run(args: &Args) -> ExitCode {
    let record_types = match args.record_types.load() {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let mut worst = 0;
    for source in &args.sources {
        let (body, duplicates) = match read(source) {
            Ok(read) => read,
            Err(e) => {
                eprintln!("error: {source}: {e}");
                worst = USAGE;
                continue;
            }
        };
        let mut violations = duplicates;
        violations.extend(foundry_catalog::conformance::validate_with(&body, &record_types));
        for v in &violations {
            crate::outln!("{source}: {v}");
        }
        let unknown = unknown_record_type(&body, &record_types);
        if let Some(label) = &unknown {
            let (verdict, hint) = if args.allow_unknown_record_types {
                ("note", "")
            } else {
                ("error", "; hint: pass its definitions with --record-types DIR, or --allow-unknown-record-types")
            };
            eprintln!(
                "{verdict}: {source}: record type `{label}` is not known, so its sample rows and schema preview were not checked against a definition{hint}"
            );
        }
        if !violations.is_empty() || (unknown.is_some() && !args.allow_unknown_record_types) {
            worst = worst.max(BROKEN);
        } else {
            crate::outln!("{source}: ok");
        }
    }
    ExitCode::from(worst)
}

/// The record label of a body's sample when it names a record type that
/// neither the shipped nor the loaded ones hold.
fn unknown_record_type(body: &Value, loaded: &[foundry_catalog_core::RecordSchema]) -> Option<String> {
    let label = body.pointer("/data/sample/record_label").or_else(|| body.pointer("/data/schema_preview/record_label"));
    let label = label?.as_str()?;
    crate::record_types::find(loaded, label).is_none().then(|| label.to_owned())
}

/// The JSON body of a file or a URL, and the keys its text repeats in an
/// object (which the parsed value cannot show).
fn read(source: &str) -> Result<(Value, Vec<foundry_catalog::conformance::Violation>), String> {
    let bytes = if source.starts_with("http://") || source.starts_with("https://") {
        fetch(source)?
    } else {
        std::fs::read(source).map_err(|e| e.to_string())?
    };
    let body = serde_json::from_slice(&bytes).map_err(|e| format!("not JSON at {}:{}: {e}", e.line(), e.column()))?;
    Ok((body, foundry_catalog::conformance::duplicate_keys(&bytes)))
}

/// The largest body fetched, in bytes.
const MAX_BODY: u64 = 16 << 20;

fn fetch(url: &str) -> Result<Vec<u8>, String> {
    let agent: ureq::Agent = ureq::Agent::config_builder()
        .http_status_as_error(false)
        .timeout_global(Some(std::time::Duration::from_secs(30)))
        .build()
        .into();
    let mut response =
        agent.get(url).header("Accept", "application/json").call().map_err(|e| format!("cannot fetch: {e}"))?;
    let status = response.status();
    if !status.is_success() {
        return Err(format!("the server answered {status}"));
    }
    response.body_mut().with_config().limit(MAX_BODY).read_to_vec().map_err(|e| format!("cannot read the body: {e}"))
}
