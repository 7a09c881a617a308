//! `foundry-catalog serve`: the HTTP server (`foundry-catalog-server`).

use std::process::ExitCode;

use foundry_catalog_server::{CatalogSource, Config, LogFormat, ServeError};

use crate::{BROKEN, USAGE};

/// Serve GET /api/public/foundry/products/{slug} from pre-built bodies,
/// and each product's page at its canonical_path, /sitemap.xml and
/// /robots.txt.
///
/// An artifact (`foundry-catalog build`) is loaded as is, its pages as
/// built; a folder of manifests is built and validated at start, its
/// pages with it (--site-url, --templates). A bad catalog stops the
/// server before it listens, naming the file and every problem. SIGTERM or
/// SIGINT drain and exit 0; SIGHUP reloads the catalog (a broken one is
/// logged and the old one kept). /healthz, /readyz and /metrics
/// (Prometheus) sit outside the product path. Logs go to stderr; RUST_LOG
/// takes target=level pairs (for example `info,access=warn`).
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// An artifact file written by `foundry-catalog build` (loaded, no
    /// building), a folder of product manifests (built in memory), or an
    /// origin's URL (`https://…/catalog.fcat`: downloaded into
    /// --state-dir, checked, served and polled every --poll-interval)
    /// [default: the catalog compiled in].
    #[arg(long, env = "FOUNDRY_CATALOG", value_name = "FILE|DIR|URL", value_parser = CatalogSource::parse)]
    catalog: Option<CatalogSource>,
    #[command(flatten)]
    config: Config,
    #[command(flatten)]
    record_types: crate::record_types::RecordTypeDirs,
    /// Listen on this port instead of the one in --addr. Platforms that
    /// hand out a port set PORT: it replaces the port of FOUNDRY_CATALOG_ADDR
    /// or the default, never that of an --addr on the command line.
    #[arg(long, env = "PORT")]
    port: Option<u16>,
    /// Log lines as text or JSON.
    #[arg(long, env = "FOUNDRY_CATALOG_LOG_FORMAT", value_enum, default_value_t = LogFormat::Text)]
    log_format: LogFormat,
}

impl Args {
    /// What the command line says wins over what the environment says: a
    /// `PORT` from the environment gives way to an `--addr` on the command
    /// line (`--port` on the command line still wins over both).
    pub(crate) fn settle_port(&mut self, matches: &clap::ArgMatches) {
        use clap::parser::ValueSource;
        if matches.value_source("port") == Some(ValueSource::EnvVariable)
            && matches.value_source("addr") == Some(ValueSource::CommandLine)
        {
            self.port = None;
        }
    }
}

pub(crate) fn run(args: Args) -> ExitCode {
    let Args { catalog, mut config, record_types, port, log_format } = args;
    let artifact = matches!(catalog, Some(CatalogSource::Artifact(_) | CatalogSource::Url(_)));
    if config.watch && !matches!(catalog, Some(CatalogSource::Artifact(_) | CatalogSource::Dir(_))) {
        return crate::usage_error(
            "--watch needs --catalog FILE or DIR (the compiled-in catalog never changes; an origin is polled)",
        );
    }
    if (!config.verify_keys.is_empty() || config.verify_key_dir.is_some()) && !artifact {
        return crate::usage_error(
            "--verify-key needs --catalog FILE or URL, an artifact (a folder of manifests or the compiled-in catalog carries no signature)",
        );
    }
    let pages = &config.pages;
    let site_given = pages.site_url.is_some() || pages.site_name.is_some() || pages.site_language.is_some();
    if (site_given || pages.templates.is_some()) && artifact {
        return crate::usage_error(
            "--site-url, --site-name, --site-language and --templates need --catalog DIR or the compiled-in catalog (an artifact's pages were built with them: `build --site-url`)",
        );
    }
    config.record_types = record_types.for_server();
    foundry_catalog_server::init_logging(log_format);
    if let Some(port) = port {
        config = config.port(port);
    }
    config = config.source(catalog.unwrap_or_default());
    match foundry_catalog_server::run(config) {
        Ok(()) => ExitCode::SUCCESS,
        Err(ServeError::Catalog(errors)) => {
            eprintln!("{errors}");
            ExitCode::from(BROKEN)
        }
        Err(ServeError::RecordTypes(problems)) => {
            eprintln!("{problems}");
            ExitCode::from(USAGE)
        }
        Err(e) => crate::fail(USAGE, e),
    }
}
