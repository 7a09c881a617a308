//! `foundry-catalog serve`: the HTTP server (`foundry-catalog-server`).

use std::net::SocketAddr;
use std::path::PathBuf;
use std::process::ExitCode;
use std::sync::Arc;

use foundry_catalog::catalog::ResponseCatalog;

use crate::{BROKEN, USAGE, fail};

/// Serve GET /api/public/foundry/products/{slug} from pre-built bodies.
///
/// Every manifest is built and validated at start; a catalog with a bad
/// manifest stops the server before it listens, naming the file and the
/// problem.
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// The address to listen on.
    #[arg(long, env = "FOUNDRY_CATALOG_ADDR", default_value = "127.0.0.1:8080")]
    addr: SocketAddr,
    /// A folder of product manifests [default: the catalog compiled in].
    #[arg(long, env = "FOUNDRY_CATALOG_DIR", value_name = "DIR")]
    catalog: Option<PathBuf>,
}

pub(crate) fn run(args: Args) -> ExitCode {
    let catalog = match &args.catalog {
        Some(dir) => ResponseCatalog::from_dir(dir),
        None => ResponseCatalog::embedded(),
    };
    let catalog = match catalog {
        Ok(catalog) => Arc::new(catalog),
        Err(errors) => {
            eprintln!("{errors}");
            return ExitCode::from(BROKEN);
        }
    };
    match foundry_catalog_server::serve(args.addr, catalog) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => fail(USAGE, format!("{}: {e}", args.addr)),
    }
}
