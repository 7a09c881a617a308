//! Logs to stderr with `tracing`: human-readable or JSON lines.

use std::io::IsTerminal;

use tracing_subscriber::filter::Targets;
use tracing_subscriber::prelude::*;

/// How log lines are written.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
#[cfg_attr(feature = "clap", derive(clap::ValueEnum))]
#[non_exhaustive]
pub enum LogFormat {
    /// One human-readable line per event (the default).
    #[default]
    Text,
    /// One JSON object per event, for log collectors.
    Json,
}

/// Installs the global subscriber: events at `info` and above (or what
/// `RUST_LOG` asks for, as `target=level` pairs such as
/// `info,access=warn`) to stderr, in `format`. Access-log lines have the
/// target `access`. A second call changes nothing.
pub fn init_logging(format: LogFormat) {
    let filter = std::env::var("RUST_LOG")
        .ok()
        .and_then(|spec| spec.parse::<Targets>().ok())
        .unwrap_or_else(|| Targets::new().with_default(tracing::Level::INFO));
    let layer =
        tracing_subscriber::fmt::layer().with_writer(std::io::stderr).with_ansi(std::io::stderr().is_terminal());
    let result = match format {
        LogFormat::Text => tracing_subscriber::registry().with(layer.with_filter(filter)).try_init(),
        LogFormat::Json => {
            tracing_subscriber::registry().with(layer.json().flatten_event(true).with_filter(filter)).try_init()
        }
    };
    drop(result);
}
