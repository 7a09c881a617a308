//! Builds the default catalog, the runtime's example catalog
//! (`foundry_catalog::examples`, the manifests of `examples/catalog`), into
//! an artifact in `$OUT_DIR` with the runtime (a build-dependency), so the
//! server starts from it without building anything, and a bad manifest
//! fails `cargo build` with its file and every problem instead of failing
//! the server's start. The manifests travel inside the runtime's package,
//! so this crate builds from its own package too.

use std::process::ExitCode;

fn main() -> ExitCode {
    // Rerun only when this script or the runtime (with its manifests) changes.
    println!("cargo:rerun-if-changed=build.rs");
    let sources = foundry_catalog::examples::MANIFESTS
        .iter()
        .map(|(name, text)| (format!("examples/catalog/{name}"), (*text).to_owned()));
    // Its pages name the server's default address (`serve` builds them
    // again for another address or --site-url).
    let site = foundry_catalog_pages::Site::new("http://127.0.0.1:8080").expect("a site URL");
    let builder = foundry_catalog_serving::catalog::Builder::new().pages(foundry_catalog_pages::Pages::new(site));
    let catalog = match builder.build(sources) {
        Ok(catalog) => catalog,
        Err(errors) => return foundry_catalog_build::fail_build_script(&errors.to_string()),
    };
    let out = std::env::var_os("OUT_DIR").map(std::path::PathBuf::from).unwrap_or_default().join("default.fcat");
    let bytes = catalog.artifact().to_vec();
    if std::fs::read(&out).ok().as_deref() != Some(&bytes[..])
        && let Err(e) = std::fs::write(&out, bytes)
    {
        return foundry_catalog_build::fail_build_script(&format!(
            "{}: cannot write the default catalog: {e}",
            out.display()
        ));
    }
    ExitCode::SUCCESS
}
