//! `foundry-catalog preview`: `{"schema_preview": …, "sample": …}` for one
//! generated record type.

use std::process::ExitCode;

use foundry_catalog::preview::{ManifestLocation, OutputPreview, ProductContext};
use foundry_catalog_core::{Slug, UtcTimestamp};

use crate::{USAGE, fail};

/// Print the schema preview and sample of a generated record type.
///
/// Nothing reads the clock: without --refreshed-at a fixed instant is used.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The record label, such as regulatory_status_signal.
    record_label: String,
    /// The product slug [default: the label with - for _].
    #[arg(long, value_parser = parse_slug)]
    slug: Option<Slug>,
    /// sample.refreshed_at, as YYYY-MM-DDTHH:MM:SS.ffffffZ.
    #[arg(long, default_value = "2026-01-01T00:00:00.000000Z", value_parser = parse_timestamp)]
    refreshed_at: UtcTimestamp,
    /// Put the manifest at <scheme>://actors/<publisher>/<slug> instead of
    /// products/generated/<slug>/product.json.
    #[arg(long, value_name = "SCHEME/PUBLISHER", value_parser = parse_actor_manifest)]
    actor_manifest: Option<ManifestLocation>,
    #[command(flatten)]
    record_types: crate::record_types::RecordTypeDirs,
}

fn parse_slug(text: &str) -> Result<Slug, String> {
    Slug::new(text).map_err(|e| e.to_string())
}

fn parse_timestamp(text: &str) -> Result<UtcTimestamp, String> {
    text.parse().map_err(|e: foundry_catalog_core::InvalidTimestamp| e.to_string())
}

fn parse_actor_manifest(text: &str) -> Result<ManifestLocation, String> {
    let (scheme, publisher) =
        text.split_once('/').ok_or_else(|| format!("expected <scheme>/<publisher>, not {text:?}"))?;
    ManifestLocation::actor(scheme, publisher).map_err(|e| e.to_string())
}

pub(crate) fn run(args: &Args) -> ExitCode {
    let loaded = match args.record_types.load() {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    let Some(schema) = crate::record_types::find(&loaded, &args.record_label) else {
        let known = crate::record_types::labels(&loaded);
        return fail(
            USAGE,
            format!(
                "no record type {:?}; hint: choose one of {} (or add a folder of definitions with --record-types DIR)",
                args.record_label,
                known.join(", ")
            ),
        );
    };
    let slug = match &args.slug {
        Some(slug) => slug.clone(),
        None => match Slug::new(args.record_label.replace('_', "-")) {
            Ok(slug) => slug,
            Err(e) => return fail(USAGE, e),
        },
    };
    let ctx = ProductContext::new(slug, args.refreshed_at)
        .with_manifest(args.actor_manifest.clone().unwrap_or(ManifestLocation::Generated));
    match serde_json::to_string_pretty(&OutputPreview::new(schema, &ctx)) {
        Ok(json) => {
            crate::outln!("{json}");
            ExitCode::SUCCESS
        }
        Err(e) => fail(USAGE, e),
    }
}
