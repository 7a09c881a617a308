//! Prints `{"schema_preview": …, "sample": …}` for one shipped record type.
//!
//! ```text
//! cargo run --example preview -- <record_label> [--slug <slug>]
//!     [--refreshed-at <YYYY-MM-DDTHH:MM:SS.ffffffZ>] [--actor-manifest <scheme>/<publisher>]
//! ```
//!
//! Without `--slug`, the slug is the label with `-` for `_`. Without
//! `--refreshed-at`, a fixed instant is used (nothing here reads the clock).
//! The manifest path has the generated shape
//! `products/generated/<slug>/product.json` unless `--actor-manifest` asks
//! for `<scheme>://actors/<publisher>/<slug>`.

use std::process::ExitCode;

use foundry_catalog::{ManifestLocation, OutputPreview, ProductContext, Slug, UtcTimestamp};

/// The `refreshed_at` used when none is given.
const DEFAULT_REFRESHED_AT: &str = "2026-01-01T00:00:00.000000Z";

const USAGE: &str = "usage: preview <record_label> [--slug <slug>] [--refreshed-at <timestamp>] [--actor-manifest <scheme>/<publisher>]";

fn main() -> ExitCode {
    match run(std::env::args().skip(1).collect()) {
        Ok(json) => {
            println!("{json}");
            ExitCode::SUCCESS
        }
        Err(message) => {
            eprintln!("error: {message}");
            ExitCode::from(2)
        }
    }
}

fn run(args: Vec<String>) -> Result<String, String> {
    let mut label = None;
    let mut slug = None;
    let mut refreshed_at = DEFAULT_REFRESHED_AT.to_owned();
    let mut manifest = ManifestLocation::Generated;
    let mut args = args.into_iter();
    while let Some(arg) = args.next() {
        let mut value = |name: &str| args.next().ok_or_else(|| format!("{name} needs a value\n{USAGE}"));
        match arg.as_str() {
            "--slug" => slug = Some(value("--slug")?),
            "--refreshed-at" => refreshed_at = value("--refreshed-at")?,
            "--actor-manifest" => {
                let spec = value("--actor-manifest")?;
                let (scheme, publisher) = spec
                    .split_once('/')
                    .ok_or_else(|| format!("--actor-manifest takes <scheme>/<publisher>, not {spec:?}"))?;
                manifest = ManifestLocation::actor(scheme, publisher).map_err(|e| e.to_string())?;
            }
            "-h" | "--help" => return Err(USAGE.to_owned()),
            flag if flag.starts_with('-') => return Err(format!("unknown option {flag:?}\n{USAGE}")),
            _ if label.is_none() => label = Some(arg),
            _ => return Err(format!("unexpected argument {arg:?}\n{USAGE}")),
        }
    }
    let label = label.ok_or_else(|| USAGE.to_owned())?;
    let schema = foundry_catalog::record_type(&label).ok_or_else(|| {
        let known: Vec<_> = foundry_catalog::record_types().iter().map(|t| &*t.record_label).collect();
        format!("no record type {label:?}; hint: choose one of {}", known.join(", "))
    })?;
    let slug = Slug::new(slug.unwrap_or_else(|| label.replace('_', "-"))).map_err(|e| e.to_string())?;
    let refreshed_at: UtcTimestamp =
        refreshed_at.parse().map_err(|e: foundry_catalog::InvalidTimestamp| e.to_string())?;
    let ctx = ProductContext::new(slug, refreshed_at).with_manifest(manifest);
    serde_json::to_string_pretty(&OutputPreview::new(schema, &ctx)).map_err(|e| e.to_string())
}
