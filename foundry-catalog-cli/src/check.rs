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
    /// A folder of record-type definitions (a serving crate's own
    /// `record-types/`): samples of these types are checked against their
    /// definitions at every depth, as the built-in ones are.
    #[arg(long, value_name = "DIR")]
    record_types: Option<std::path::PathBuf>,
}

pub(crate) fn run(args: &Args) -> ExitCode {
    let record_types = match &args.record_types {
        None => Vec::new(),
        Some(dir) => match definitions(dir) {
            Ok(types) => types,
            Err(e) => {
                eprintln!("{e}");
                return ExitCode::from(USAGE);
            }
        },
    };
    let mut worst = 0;
    for source in &args.sources {
        let body = match read(source) {
            Ok(body) => body,
            Err(e) => {
                eprintln!("error: {source}: {e}");
                worst = USAGE;
                continue;
            }
        };
        let violations = foundry_catalog::conformance::validate_with(&body, &record_types);
        for v in &violations {
            crate::outln!("{source}: {v}");
        }
        if violations.is_empty() {
            crate::outln!("{source}: ok");
        } else {
            worst = worst.max(BROKEN);
        }
    }
    ExitCode::from(worst)
}

/// The record types defined in `dir`, checked as a build script checks them.
fn definitions(dir: &std::path::Path) -> Result<Vec<foundry_catalog_core::RecordSchema>, String> {
    let sources = foundry_catalog_build::Source::read_dir(dir, ".").map_err(|e| e.to_string())?;
    let checked = foundry_catalog_build::Generator::new().check(&sources).map_err(|e| e.to_string())?;
    Ok(checked.into_iter().map(|t| t.schema).collect())
}

/// The JSON body of a file or a URL.
fn read(source: &str) -> Result<Value, String> {
    let bytes = if source.starts_with("http://") || source.starts_with("https://") {
        fetch(source)?
    } else {
        std::fs::read(source).map_err(|e| e.to_string())?
    };
    serde_json::from_slice(&bytes).map_err(|e| format!("not JSON at {}:{}: {e}", e.line(), e.column()))
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
