//! `foundry-catalog pages`: the product pages of a catalog, its sitemap
//! and robots.txt, as files for any static web server.

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use foundry_catalog::product::ProductRecord;
use foundry_catalog::response::ProductResponse;
use foundry_catalog_core::RecordSchema;
use foundry_catalog_pages::list::{Card, Cards, HOME_PATH};
use foundry_catalog_pages::{Language, Pages, Site, SiteName, sitemap};
use foundry_catalog_serving::catalog::{Builder, ContentCoding, ResponseCatalog};

use crate::{BROKEN, USAGE, fail};

/// Write the HTML page of every product (at its canonical_path), the
/// sitemap and robots.txt.
///
/// The catalog is a folder of manifests (built and checked as `build`
/// does) or an artifact file. Each page is rendered from the product's
/// JSON body, with the templates compiled in or those of --templates.
/// Files written: OUT/<route>/<slug>.html, each product's JSON record
/// at OUT/api/public/foundry/products/<slug>.json (the body the endpoint
/// answers, which each page links to), the list pages (OUT/index.html,
/// OUT/<route>.html, OUT/<route>/page/<n>.html), OUT/404.html,
/// OUT/search.html (which says that a static site has no search and
/// links to the list and facet pages), OUT/robots.txt,
/// OUT/favicon.ico and, with --site-url, OUT/sitemap.xml (and
/// OUT/sitemap-N.xml past 50,000 pages); with --precompress, each also
/// as FILE.gz and FILE.br. A static server maps /<route>/<slug> to the
/// .html file (nginx: `try_files $uri $uri.html =404;`).
#[derive(Debug, clap::Args)]
pub(crate) struct Args {
    /// A folder of product manifests, or an artifact file written by
    /// `foundry-catalog build`.
    #[arg(value_name = "DIR|FILE")]
    catalog: PathBuf,
    /// Where to write the pages.
    #[arg(long, value_name = "OUT")]
    out_dir: PathBuf,
    /// The public site's URL (https://catalog.example.com): canonical
    /// links and JSON-LD become absolute, and the sitemap is written
    /// (it takes absolute URLs only).
    #[arg(long, env = "FOUNDRY_CATALOG_SITE_URL", value_name = "URL", value_parser = |s: &str| Site::new(s))]
    site_url: Option<Site>,
    /// The site's name ("Product catalog" unless given): the header,
    /// every page's title, og:site_name and the home page's JSON-LD.
    #[arg(long, env = "FOUNDRY_CATALOG_SITE_NAME", value_name = "NAME", value_parser = |s: &str| SiteName::new(s))]
    site_name: Option<SiteName>,
    /// The language of the site's own words, a BCP 47 tag (en unless
    /// given; ar or he lay the site out right to left): <html lang> and
    /// og:locale.
    #[arg(long, env = "FOUNDRY_CATALOG_SITE_LANGUAGE", value_name = "TAG", value_parser = |s: &str| Language::new(s))]
    site_language: Option<Language>,
    /// Write FILE.gz and FILE.br beside every file, compressed as `build`
    /// stores them, for a server that sends a file's compressed sibling
    /// when the request accepts it (nginx's gzip_static, brotli_static).
    #[arg(long)]
    precompress: bool,
    /// A folder of templates replacing the defaults of the same name
    /// (base.html, product.html, home.html, list.html, breadcrumbs.html,
    /// cards.html, not_found.html, style.css).
    #[arg(long, env = "FOUNDRY_CATALOG_TEMPLATES", value_name = "DIR")]
    templates: Option<PathBuf>,
    #[command(flatten)]
    record_types: crate::record_types::RecordTypeDirs,
}

pub(crate) fn run(args: &Args) -> ExitCode {
    let site = args
        .site_url
        .clone()
        .unwrap_or_else(Site::unknown)
        .with_settings(args.site_name.as_ref(), args.site_language.as_ref());
    let pages = match &args.templates {
        None => Pages::new(site),
        Some(dir) => match Pages::from_dir(site, dir) {
            Ok(pages) => pages,
            Err(e) => return fail(BROKEN, e),
        },
    };
    for warning in foundry_catalog_pages::sitemap::warnings(pages.site()) {
        eprintln!("warning: {warning}");
    }
    let loaded = match args.record_types.load() {
        Ok(loaded) => loaded,
        Err(code) => return code,
    };
    if !args.catalog.exists() {
        return fail(
            USAGE,
            format!(
                "{}: no such file or folder; hint: give a folder of product manifests or an artifact written by `foundry-catalog build`",
                args.catalog.display()
            ),
        );
    }
    let manifests = args.catalog.is_dir().then_some(args.catalog.as_path());
    let catalog = if let Some(dir) = manifests {
        Builder::new().record_types(loaded.clone()).build_dir(dir)
    } else {
        ResponseCatalog::open(&args.catalog)
    };
    let catalog = match catalog {
        Ok(catalog) => catalog,
        Err(errors) => return crate::catalog_failed(&errors),
    };
    let out = Out { dir: &args.out_dir, precompress: args.precompress };
    match write_site(&catalog, &pages, &loaded, &out, manifests) {
        Ok(written) => {
            eprintln!("wrote {}: {written} pages, site {}", args.out_dir.display(), pages.site());
            ExitCode::SUCCESS
        }
        Err((code, message)) => fail(code, message),
    }
}

/// An exit code and what to say.
type Failure = (u8, String);

/// Writes every file; returns how many product pages. A page that does
/// not render names its manifest (`DIR/<slug>.json`), as `build` does,
/// when the catalog is a folder of them. Every record is
/// read twice on every core, each thread taking a run of them: once for
/// the cards (what the list pages and each page's related products show),
/// then to render and write its page; the first failure in slug order is
/// the one reported.
fn write_site(
    catalog: &ResponseCatalog,
    pages: &Pages,
    record_types: &[RecordSchema],
    out: &Out<'_>,
    manifests: Option<&Path>,
) -> Result<usize, Failure> {
    let slugs = catalog.slugs();
    let slugs: Vec<&str> = slugs.iter().map(String::as_str).collect();
    // A product's JSON body, as the endpoint answers it, and its record.
    let record = |slug: &str| {
        let body = catalog.get(slug).map(|entry| entry.body()).transpose();
        let body = body.map_err(|e| (BROKEN, format!("{slug}: {e}")))?.unwrap_or_default();
        let record: ProductRecord = serde_json::from_slice(&body)
            .map_err(|e| e.to_string())
            .and_then(|body| ProductResponse::from_value_with(&body, record_types).map_err(|e| e.to_string()))
            .map_err(|e| (BROKEN, format!("{slug}: the body does not read as a record: {e}")))?
            .data;
        Ok::<_, Failure>((body, record))
    };
    let cards = Cards::new(on_all_cores(&slugs, |slug| Ok(Card::of(&record(slug)?.1)))?.into_iter().flatten());
    // What a warning or an error names a product by: its manifest, as
    // `build` does, or its slug in an artifact.
    let name = |slug: &str| match manifests {
        Some(dir) => dir.join(format!("{slug}.json")).display().to_string(),
        None => slug.to_owned(),
    };
    let names: Vec<String> = cards.iter().map(|card| name(card.path.rsplit('/').next().unwrap_or_default())).collect();
    let named: Vec<(&str, &Card)> = names.iter().map(String::as_str).zip(cards.iter()).collect();
    for (at, warning) in foundry_catalog_pages::warnings::duplicates(&named) {
        eprintln!("warning: {}: {warning}", named[at].0);
    }
    on_all_cores(&slugs, |slug| {
        let (body, record) = record(slug)?;
        // The JSON record each page links to, at its `api_path`, so that
        // a static site's links all answer (docs/pages.md: nginx serves
        // `<api_path>` from `<api_path>.json`).
        out.write(&format!("{}.json", record.api_path()), &body)?;
        for warning in foundry_catalog_pages::warnings::of(&record) {
            eprintln!("warning: {}: {warning}", name(slug));
        }
        let html = pages.product(&record, &cards).map_err(|e| match manifests {
            Some(_) => (BROKEN, format!("{}: cannot render its page: {e}", name(slug))),
            None => (BROKEN, e.to_string()),
        })?;
        out.write(&format!("{}.html", record.canonical_path()), html.as_bytes())
    })?;
    // The list pages, as a build stores them: `/` as index.html, the
    // others as <path>.html.
    let lists = pages.list_pages(&cards).map_err(|e| (BROKEN, e.to_string()))?;
    for list in &lists {
        let file = if list.path == HOME_PATH { "/index.html".to_owned() } else { format!("{}.html", list.path) };
        out.write(&file, list.html.as_deref().unwrap_or_default().as_bytes())?;
    }
    let entries = cards
        .iter()
        .map(|card| sitemap::Entry { path: card.path.clone(), lastmod: card.lastmod.clone() })
        .chain(lists.iter().map(|list| sitemap::Entry { path: list.path.clone(), lastmod: list.lastmod.clone() }))
        .filter(|entry| !entry.lastmod.is_empty());
    let not_found = pages.not_found().map_err(|e| (BROKEN, e.to_string()))?;
    out.write("/404.html", not_found.as_bytes())?;
    // A static site has no search: its search page says so.
    let search = pages.search_unavailable().map_err(|e| (BROKEN, e.to_string()))?;
    out.write(&format!("{}.html", foundry_catalog_pages::search::PATH), search.as_bytes())?;
    out.write(sitemap::ROBOTS_PATH, sitemap::robots(pages.site()).as_bytes())?;
    out.write(foundry_catalog_pages::favicon::PATH, &foundry_catalog_pages::favicon::ico())?;
    if let Some(feed) = foundry_catalog_pages::feed::atom(pages.site(), &cards) {
        out.write(foundry_catalog_pages::feed::PATH, feed.as_bytes())?;
        out.write(foundry_catalog_pages::share_image::PATH, &foundry_catalog_pages::share_image::png())?;
    }
    for file in sitemap::files(pages.site(), entries) {
        out.write(&file.path, file.xml.as_bytes())?;
    }
    Ok(slugs.len())
}

/// `f` of every slug on every core, each thread taking a run of them;
/// the results in slug order, or the first failure in slug order.
fn on_all_cores<R: Send>(slugs: &[&str], f: impl Fn(&str) -> Result<R, Failure> + Sync) -> Result<Vec<R>, Failure> {
    let threads = std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get);
    let run = slugs.len().div_ceil(threads).max(1);
    let f = &f;
    let results: Vec<Result<Vec<R>, Failure>> = std::thread::scope(|scope| {
        let workers: Vec<_> = slugs
            .chunks(run)
            .map(|chunk| scope.spawn(move || chunk.iter().map(|slug| f(slug)).collect::<Result<Vec<R>, Failure>>()))
            .collect();
        workers
            .into_iter()
            .map(|worker| worker.join().unwrap_or_else(|_| Err((BROKEN, "a rendering thread panicked".to_owned()))))
            .collect()
    });
    let mut all = Vec::with_capacity(slugs.len());
    for result in results {
        all.extend(result?);
    }
    Ok(all)
}

/// Where the site is written, and whether with compressed siblings.
struct Out<'a> {
    dir: &'a Path,
    precompress: bool,
}

impl Out<'_> {
    /// Writes `bytes` at the site path `path` ([`write`]) and, with
    /// `precompress`, `path.gz` and `path.br`; without, removes those an
    /// earlier run wrote, so that no server sends stale bytes for it.
    fn write(&self, path: &str, bytes: &[u8]) -> Result<(), Failure> {
        write(self.dir, path, bytes)?;
        if !self.precompress {
            for extension in ["gz", "br"] {
                let sibling = self.dir.join(format!("{}.{extension}", path.trim_start_matches('/')));
                match std::fs::remove_file(&sibling) {
                    Err(e) if e.kind() != std::io::ErrorKind::NotFound => {
                        return Err((USAGE, format!("{}: cannot remove: {e}", sibling.display())));
                    }
                    _ => {}
                }
            }
        }
        if self.precompress {
            for coding in [ContentCoding::Gzip, ContentCoding::Br] {
                let extension = if coding == ContentCoding::Gzip { "gz" } else { "br" };
                let compressed = coding
                    .encode(bytes)
                    .ok_or_else(|| (BROKEN, format!("{path}: {coding} is not built into this binary")))?;
                write(self.dir, &format!("{path}.{extension}"), &compressed)?;
            }
        }
        Ok(())
    }
}

/// Writes `bytes` at the site path `path` (`/actors/x.html`) under `out`:
/// `out` is created if need be, and each folder under it on the way is
/// created or must be a folder (a link planted there is refused, not
/// followed); the file is created exclusively and renamed into place.
fn write(out: &Path, path: &str, bytes: &[u8]) -> Result<(), Failure> {
    let file = out.join(path.trim_start_matches('/'));
    let failed = |e: std::io::Error| (USAGE, format!("{}: cannot write: {e}", file.display()));
    std::fs::create_dir_all(out).map_err(failed)?;
    // Each folder between `out` and the file, outermost first.
    let mut folders: Vec<&Path> = file.ancestors().skip(1).take_while(|folder| *folder != out).collect();
    folders.reverse();
    for folder in folders {
        match std::fs::create_dir(folder) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => {
                if !std::fs::symlink_metadata(folder).map_err(failed)?.is_dir() {
                    return Err((USAGE, format!("{}: not a folder (links are not followed)", folder.display())));
                }
            }
            Err(e) => return Err(failed(e)),
        }
    }
    foundry_catalog_serving::files::replace(&file, |f| std::io::Write::write_all(f, bytes)).map_err(failed)
}
