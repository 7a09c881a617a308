//! `foundry-catalog-axum-app [ADDR] [CATALOG_DIR]`: serves the example
//! application on ADDR (default 127.0.0.1:3000) with the manifests in
//! CATALOG_DIR (default examples/catalog); SIGHUP rebuilds the catalog.
//!
//! `foundry-catalog-axum-app ADDR URL STATE_DIR VERIFY_KEY`: the same
//! application as a replica of the signed artifacts at URL, polled every
//! 10 s (`foundry_catalog_axum_app::replicated`).

use std::path::PathBuf;

use std::time::Duration;

use foundry_catalog_serving::catalog::{Builder, OpenOptions};
use foundry_catalog_serving::service::SharedCatalog;
use foundry_catalog_serving::signing::VerifyKey;
use tokio::signal::unix::{SignalKind, signal};

#[tokio::main(flavor = "current_thread")]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let addr = args.next().unwrap_or_else(|| "127.0.0.1:3000".to_owned());
    let source = args.next().unwrap_or_else(|| "examples/catalog".to_owned());
    if source.starts_with("http://") || source.starts_with("https://") {
        let state_dir = PathBuf::from(args.next().ok_or("a replica needs a state folder")?);
        let key = VerifyKey::read(&PathBuf::from(args.next().ok_or("a replica needs a verify key")?))?;
        let open = OpenOptions::default().verify_keys(vec![key]);
        let (catalog, _poller) =
            foundry_catalog_axum_app::replicated(&source, &state_dir, open, Duration::from_secs(10))?;
        let listener = tokio::net::TcpListener::bind(&addr).await?;
        eprintln!("serving http://{}/api/public/foundry/products/{{slug}}", listener.local_addr()?);
        axum::serve(listener, foundry_catalog_axum_app::app(catalog)).await?;
        return Ok(());
    }
    let dir = PathBuf::from(source);
    let catalog = SharedCatalog::new(Builder::new().build_dir(&dir)?);
    let reloaded = catalog.clone();
    let mut hangup = signal(SignalKind::hangup())?;
    tokio::spawn(async move {
        while hangup.recv().await.is_some() {
            match Builder::new().build_dir(&dir) {
                Ok(catalog) => reloaded.store(catalog),
                Err(errors) => eprintln!("{errors}"),
            }
        }
    });
    let listener = tokio::net::TcpListener::bind(&addr).await?;
    eprintln!("serving http://{}/api/public/foundry/products/{{slug}}", listener.local_addr()?);
    axum::serve(listener, foundry_catalog_axum_app::app(catalog)).await?;
    Ok(())
}
