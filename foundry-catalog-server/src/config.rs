//! Server settings: each declared once, here, with its default, its
//! documentation (which is also its `--help` text in
//! `foundry-catalog serve`, through the `clap` feature) and its
//! environment variable.

use std::fmt;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use foundry_catalog_core::RecordSchema;
use foundry_catalog_serving::artifact::ArtifactError;
use foundry_catalog_serving::catalog::{Builder, CatalogError, CatalogErrors, OpenOptions, Progress, ResponseCatalog};
use foundry_catalog_serving::signing::VerifyKey;

/// Where the catalog comes from; reloads rebuild or reread it from the
/// same place.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[non_exhaustive]
pub enum CatalogSource {
    /// The default catalog built into this crate ([`crate::default_catalog`]).
    #[default]
    Embedded,
    /// A folder of product manifests, built in memory at start and on
    /// every reload.
    Dir(PathBuf),
    /// An artifact file written by `foundry-catalog build`, read once at
    /// start and on every reload.
    Artifact(PathBuf),
    /// An artifact at an origin (`https://…/catalog.fcat`, or `http://`
    /// inside the network): downloaded into [`Config::state_dir`],
    /// checked, then served; polled every [`Config::poll_interval`] with
    /// `If-None-Match`. A restart with the origin down serves the last
    /// good artifact of the state folder.
    Url(String),
}

impl CatalogSource {
    /// A folder of manifests or an artifact file, by what `path` is.
    pub fn from_path(path: PathBuf) -> Self {
        if path.is_dir() { CatalogSource::Dir(path) } else { CatalogSource::Artifact(path) }
    }

    /// An origin's URL (`http://` or `https://`, checked to be a URL with
    /// a host), or else a path ([`CatalogSource::from_path`]), which must
    /// exist.
    pub fn parse(text: &str) -> Result<Self, String> {
        if text.starts_with("http://") || text.starts_with("https://") {
            let uri: ureq::http::Uri = text.parse().map_err(|e| format!("not a URL: {e}"))?;
            if uri.host().is_none_or(str::is_empty) {
                return Err("a URL needs a host".to_owned());
            }
            return Ok(CatalogSource::Url(text.to_owned()));
        }
        let path = PathBuf::from(text);
        std::fs::metadata(&path).map_err(|e| format!("cannot read it: {e}"))?;
        Ok(CatalogSource::from_path(path))
    }

    /// Builds or loads and validates the catalog (all problems, each
    /// naming its file). An artifact is opened with `open` (its size
    /// limit; with verify keys, only an artifact signed by one of them
    /// loads: [`foundry_catalog_serving::artifact::Artifact::verify_any`]);
    /// with verify keys, a folder or the embedded catalog, which carry no
    /// signature, are refused. A folder is built with `record_types`
    /// besides the shipped ones, manifests of at most `max_manifest_len`
    /// bytes, incrementally from `previous`, the catalog being served, when
    /// it can be (else the log says why). A folder, and the embedded
    /// catalog when its own pages are not these, are built with `pages`.
    pub(crate) fn load(
        &self,
        record_types: &[RecordSchema],
        open: &OpenOptions,
        max_manifest_len: u64,
        previous: Option<&ResponseCatalog>,
        pages: Option<foundry_catalog_pages::Pages>,
    ) -> Result<ResponseCatalog, CatalogErrors> {
        if !open.verify_keys.is_empty() && !matches!(self, CatalogSource::Artifact(_)) {
            let expected = open.verify_keys.iter().map(VerifyKey::fingerprint).collect::<Vec<_>>().join(", ");
            let error = ArtifactError::Unsigned { expected };
            return Err(CatalogError::Artifact { file: self.to_string(), error }.into());
        }
        match self {
            CatalogSource::Embedded => {
                let embedded = crate::default_catalog()?;
                let built_with = embedded.metadata().pages.as_ref().map(|p| p.digest.as_str());
                match pages {
                    Some(pages) if built_with != Some(pages.digest()) => {
                        let sources = foundry_catalog::examples::MANIFESTS
                            .iter()
                            .map(|(name, text)| (format!("examples/catalog/{name}"), (*text).to_owned()));
                        Builder::new().pages(pages).build(sources)
                    }
                    _ => Ok(embedded),
                }
            }
            CatalogSource::Dir(dir) => {
                let last = std::sync::Arc::new(std::sync::Mutex::new(Progress::default()));
                let seen = std::sync::Arc::clone(&last);
                let builder = Builder::new().record_types(record_types.to_vec()).max_manifest_len(max_manifest_len);
                let builder = match pages {
                    Some(pages) => builder.pages(pages),
                    None => builder,
                };
                let source = dir.display().to_string();
                let mut builder = builder
                    .on_progress(move |progress| {
                        if let Ok(mut last) = seen.lock() {
                            *last = *progress;
                        }
                    })
                    .on_warning(move |file, warning| tracing::warn!(%source, file, "{warning}"));
                match previous.map(|previous| builder.previous(previous)) {
                    Some(Err(reason)) => tracing::warn!(
                        source = %self,
                        "building every product: the catalog being served cannot be reused: {reason}"
                    ),
                    Some(Ok(changes)) if !changes.is_empty() => tracing::info!(
                        source = %self,
                        %changes,
                        "record types changed: rendering their products again"
                    ),
                    _ => {}
                }
                let catalog = builder.build_dir(dir)?;
                let progress = *last.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
                tracing::info!(
                    source = %self,
                    products = catalog.len(),
                    read = progress.read,
                    rendered = progress.rendered,
                    compressed = progress.compressed,
                    reused = progress.reused(),
                    "catalog built"
                );
                Ok(catalog)
            }
            CatalogSource::Artifact(file) => ResponseCatalog::open_with(file, open),
            // Downloaded by the loader (crate::load), which opens the file.
            CatalogSource::Url(url) => Err(CatalogError::Read {
                file: url.clone(),
                reason: "an origin is read through a state folder".to_owned(),
            }
            .into()),
        }
    }
}

/// How product pages are built and served: `foundry-catalog build` and
/// `serve` take these flags. A build renders every product's page at its
/// `canonical_path` with the default templates (or `--templates`), with
/// `/robots.txt`, the sitemap (given `--site-url`) and a not-found page.
///
/// ```
/// use foundry_catalog_server::PageOptions;
/// let site = foundry_catalog_pages::Site::new("https://catalog.example.com").unwrap();
/// let pages = PageOptions::default().site_url(site).pages(None).unwrap().expect("pages are on");
/// assert_eq!(pages.site().url("/datasets/x"), "https://catalog.example.com/datasets/x");
/// assert!(PageOptions::default().no_pages(true).pages(None).unwrap().is_none());
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[non_exhaustive]
pub struct PageOptions {
    /// The public site's URL (`https://catalog.example.com`): the pages'
    /// canonical links and JSON-LD name it, and the sitemap lists its
    /// pages. Without it, links are paths and there is no sitemap; `serve`
    /// without a catalog names its own address.
    #[cfg_attr(feature = "clap", arg(long, env = "FOUNDRY_CATALOG_SITE_URL", value_name = "URL",
        value_parser = cli::site, conflicts_with = "no_pages"))]
    pub site_url: Option<foundry_catalog_pages::Site>,
    /// The site's name ("Product catalog" unless given): the header,
    /// every page's title, `og:site_name` and the home page's JSON-LD say
    /// it.
    #[cfg_attr(feature = "clap", arg(long, env = "FOUNDRY_CATALOG_SITE_NAME", value_name = "NAME",
        value_parser = |s: &str| foundry_catalog_pages::SiteName::new(s), conflicts_with = "no_pages"))]
    pub site_name: Option<foundry_catalog_pages::SiteName>,
    /// The language of the site's own words, a BCP 47 tag (`en` unless
    /// given; `ar` or `he` lay the site out right to left): `<html lang>`
    /// and `og:locale` say it. A product's own text is shown in its own
    /// direction whatever the site's.
    #[cfg_attr(feature = "clap", arg(long, env = "FOUNDRY_CATALOG_SITE_LANGUAGE", value_name = "TAG",
        value_parser = |s: &str| foundry_catalog_pages::Language::new(s), conflicts_with = "no_pages"))]
    pub site_language: Option<foundry_catalog_pages::Language>,
    /// A folder of templates replacing the compiled-in ones
    /// (`product.html`, `base.html`, `home.html`, `list.html`,
    /// `breadcrumbs.html`, `cards.html`, `not_found.html`, `style.css`; see
    /// docs/pages.md), read at every build: a broken one fails the build
    /// naming its file and line.
    #[cfg_attr(
        feature = "clap",
        arg(long, env = "FOUNDRY_CATALOG_TEMPLATES", value_name = "DIR", conflicts_with = "no_pages")
    )]
    pub templates: Option<PathBuf>,
    /// Build no pages (`serve`: and serve none, even an artifact's); the
    /// product endpoint is the same either way.
    #[cfg_attr(feature = "clap", arg(long, env = "FOUNDRY_CATALOG_NO_PAGES"))]
    pub no_pages: bool,
}

impl PageOptions {
    /// Sets the `site_url` field.
    #[must_use]
    pub fn site_url(mut self, site: foundry_catalog_pages::Site) -> Self {
        self.site_url = Some(site);
        self
    }

    /// Sets the `site_name` field.
    #[must_use]
    pub fn site_name(mut self, name: foundry_catalog_pages::SiteName) -> Self {
        self.site_name = Some(name);
        self
    }

    /// Sets the `site_language` field.
    #[must_use]
    pub fn site_language(mut self, language: foundry_catalog_pages::Language) -> Self {
        self.site_language = Some(language);
        self
    }

    /// Sets the `templates` field.
    #[must_use]
    pub fn templates(mut self, dir: PathBuf) -> Self {
        self.templates = Some(dir);
        self
    }

    /// Sets the `no_pages` field.
    #[must_use]
    pub fn no_pages(mut self, no_pages: bool) -> Self {
        self.no_pages = no_pages;
        self
    }

    /// The pages a server builds for `source`, listening on `addr`: a
    /// folder's name the site given (or none); the embedded catalog's name
    /// it or else the server's own address (none on port 0, which is
    /// chosen when bound); an artifact's are served as built (none to
    /// build).
    pub(crate) fn for_source(
        &self,
        source: &CatalogSource,
        addr: SocketAddr,
    ) -> Result<Option<foundry_catalog_pages::Pages>, CatalogErrors> {
        let pages = match source {
            CatalogSource::Dir(_) => self.pages(None),
            // Port 0 is not known until bound (after the load): no site.
            CatalogSource::Embedded if addr.port() == 0 => self.pages(None),
            CatalogSource::Embedded => {
                let host = if addr.ip().is_unspecified() {
                    SocketAddr::new(Ipv4Addr::LOCALHOST.into(), addr.port())
                } else {
                    addr
                };
                self.pages(foundry_catalog_pages::Site::new(&format!("http://{host}")).ok())
            }
            CatalogSource::Artifact(_) | CatalogSource::Url(_) => Ok(None),
        };
        pages.map_err(|error| {
            let file =
                self.templates.as_ref().map_or_else(|| "<templates>".to_owned(), |dir| dir.display().to_string());
            CatalogErrors::from(CatalogError::Page { file, error: error.to_string() })
        })
    }

    /// The pages to build, with the site URL given or else `default_site`
    /// (the templates folder read now); `None` with `no_pages`.
    pub fn pages(
        &self,
        default_site: Option<foundry_catalog_pages::Site>,
    ) -> Result<Option<foundry_catalog_pages::Pages>, foundry_catalog_pages::PageError> {
        if self.no_pages {
            return Ok(None);
        }
        let site = self
            .site_url
            .clone()
            .or(default_site)
            .unwrap_or_else(foundry_catalog_pages::Site::unknown)
            .with_settings(self.site_name.as_ref(), self.site_language.as_ref());
        match &self.templates {
            Some(dir) => foundry_catalog_pages::Pages::from_dir(site, dir).map(Some),
            None => Ok(Some(foundry_catalog_pages::Pages::new(site))),
        }
    }
}

/// The record types a folder of manifests is built with besides the
/// shipped ones: a serving crate's own generated `RECORD_TYPES`, fixed for
/// the server's life, and definition folders read at start and again at
/// every reload (and watched with [`Config::watch`]), so that a definition
/// edit re-renders the products of that type and no others.
///
/// ```
/// use foundry_catalog_server::{Config, RecordTypes};
///
/// let fixed = RecordTypes::new(foundry_catalog::record_types().to_vec());
/// let config = Config::default().record_types(fixed);
/// assert_eq!(config.record_types.load().map(|types| types.len()), Ok(3));
/// ```
#[derive(Clone, Default)]
pub struct RecordTypes {
    fixed: Vec<RecordSchema>,
    folders: Vec<PathBuf>,
    read: Option<Arc<ReadFolders>>,
}

/// What reads definition folders: every record type of every folder, or
/// one problem per line, each naming its file.
type ReadFolders = dyn Fn(&[PathBuf]) -> Result<Vec<RecordSchema>, String> + Send + Sync;

impl RecordTypes {
    /// These record types, for the server's life.
    pub fn new(fixed: Vec<RecordSchema>) -> Self {
        RecordTypes { fixed, folders: Vec::new(), read: None }
    }

    /// The record types of `folders`, read by `read` at start and at every
    /// reload (`foundry-catalog serve --record-types DIR` reads them with
    /// the generator's checks, `foundry_catalog_build::Generator::check`).
    /// A reload whose definitions do not read keeps serving the catalog it
    /// has, and logs every problem.
    pub fn from_folders(
        folders: Vec<PathBuf>,
        read: impl Fn(&[PathBuf]) -> Result<Vec<RecordSchema>, String> + Send + Sync + 'static,
    ) -> Self {
        RecordTypes { fixed: Vec::new(), folders, read: Some(Arc::new(read)) }
    }

    /// The definition folders read at every load.
    pub fn folders(&self) -> &[PathBuf] {
        &self.folders
    }

    /// The fixed record types and those of the folders, read now.
    pub fn load(&self) -> Result<Vec<RecordSchema>, String> {
        let mut types = self.fixed.clone();
        if let Some(read) = &self.read {
            types.extend(read(&self.folders)?);
        }
        Ok(types)
    }
}

impl From<Vec<RecordSchema>> for RecordTypes {
    fn from(fixed: Vec<RecordSchema>) -> Self {
        RecordTypes::new(fixed)
    }
}

impl fmt::Debug for RecordTypes {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let labels: Vec<&str> = self.fixed.iter().map(|t| &*t.record_label).collect();
        f.debug_struct("RecordTypes").field("fixed", &labels).field("folders", &self.folders).finish()
    }
}

impl PartialEq for RecordTypes {
    /// The same fixed types, and the same folders read by the same reader.
    fn eq(&self, other: &Self) -> bool {
        let same_reader = match (&self.read, &other.read) {
            (Some(a), Some(b)) => Arc::ptr_eq(a, b),
            (a, b) => a.is_none() && b.is_none(),
        };
        self.fixed == other.fixed && self.folders == other.folders && same_reader
    }
}

impl std::fmt::Display for CatalogSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            CatalogSource::Embedded => f.write_str("the default catalog"),
            CatalogSource::Dir(dir) => write!(f, "manifests in {}", dir.display()),
            CatalogSource::Artifact(file) => write!(f, "artifact {}", file.display()),
            CatalogSource::Url(url) => write!(f, "origin {url}"),
        }
    }
}

/// Everything the server can be told. [`Config::default`] gives the
/// defaults; each field has a setter of its name, so settings chain:
///
/// ```
/// use std::time::Duration;
/// use foundry_catalog_server::{CatalogSource, Config};
///
/// let config = Config::default()
///     .source(CatalogSource::Embedded)
///     .port(0)
///     .idle_timeout(Duration::from_secs(30));
/// assert_eq!(config.addr.port(), 0);
/// ```
#[derive(Debug, Clone, PartialEq)]
#[cfg_attr(feature = "clap", derive(clap::Args))]
#[non_exhaustive]
pub struct Config {
    /// The address to listen on.
    #[cfg_attr(feature = "clap", arg(long, env = "FOUNDRY_CATALOG_ADDR", default_value_t = Config::ADDR))]
    pub addr: SocketAddr,
    /// The catalog to serve (`foundry-catalog serve` sets it from
    /// `--catalog`).
    #[cfg_attr(feature = "clap", arg(skip))]
    pub source: CatalogSource,
    /// Record types known besides the shipped ones when a folder of
    /// manifests is built (`foundry-catalog serve --record-types DIR`
    /// sets it); an artifact's bodies are served as built.
    #[cfg_attr(feature = "clap", arg(skip))]
    pub record_types: RecordTypes,
    /// The product pages: built with a folder of manifests or the
    /// compiled-in catalog, served from an artifact as built.
    #[cfg_attr(feature = "clap", command(flatten))]
    pub pages: PageOptions,
    /// Serve only artifacts signed by one of these keys (the `.pub` files
    /// of `foundry-catalog keygen`; repeatable, so an old and a new key
    /// are both trusted while a key is rotated): an unsigned artifact, one
    /// signed by another key or one with a changed byte is refused at
    /// start (exit code 1) and on reload (the old catalog keeps serving).
    /// Needs an artifact file as the catalog.
    #[cfg_attr(feature = "clap", arg(long = "verify-key", env = "FOUNDRY_CATALOG_VERIFY_KEY", value_name = "FILE",
        value_parser = cli::verify_key, value_delimiter = ':'))]
    pub verify_keys: Vec<VerifyKey>,
    /// A folder of verify keys (`*.pub`), read at start and again at every
    /// reload: trusted as `--verify-key` files are, so a key is added or
    /// retired by adding or removing its file, then SIGHUP.
    #[cfg_attr(feature = "clap", arg(long, env = "FOUNDRY_CATALOG_VERIFY_KEY_DIR", value_name = "DIR"))]
    pub verify_key_dir: Option<PathBuf>,
    /// A folder this replica keeps its state in across restarts: the
    /// highest artifact sequence it has served (`highest-sequence`), so an
    /// older artifact stays refused after a restart, and with an origin
    /// the last good artifact and its ETag. Without it, the highest
    /// sequence is remembered only while the process runs; an origin needs
    /// it.
    #[cfg_attr(feature = "clap", arg(long, env = "FOUNDRY_CATALOG_STATE_DIR", value_name = "DIR"))]
    pub state_dir: Option<PathBuf>,
    /// How often an origin (`--catalog https://…`) is asked for a new
    /// artifact, plus up to a tenth of it at random so that replicas do
    /// not ask at once; after a failed poll the wait doubles, up to 16
    /// times, until one succeeds.
    #[cfg_attr(feature = "clap", arg(long, env = "FOUNDRY_CATALOG_POLL_INTERVAL", value_name = "DURATION",
        value_parser = cli::duration, default_value = cli::show(Config::POLL_INTERVAL)))]
    pub poll_interval: Duration,
    /// Time a download from the origin may take, whole (connecting is
    /// given a tenth of it, at most 10 s); past it, the download fails and
    /// changes nothing.
    #[cfg_attr(feature = "clap", arg(long, env = "FOUNDRY_CATALOG_ORIGIN_TIMEOUT", value_name = "DURATION",
        value_parser = cli::duration, default_value = cli::show(Config::ORIGIN_TIMEOUT)))]
    pub origin_timeout: Duration,
    /// The largest manifest file read when a folder is built, in bytes
    /// (written as for --max-artifact-bytes): a larger one is a problem of
    /// the build, never read.
    #[cfg_attr(feature = "clap", arg(long, env = "FOUNDRY_CATALOG_MAX_MANIFEST_BYTES", value_name = "BYTES",
        value_parser = parse_size,
        default_value = cli::show_size(foundry_catalog_serving::catalog::DEFAULT_MAX_MANIFEST_LEN)))]
    pub max_manifest_bytes: u64,
    /// The largest artifact file loaded or downloaded, in bytes (suffixes
    /// KiB, MiB, GiB and K, M, G, as powers of 1,024): a larger one is
    /// refused before anything is read, and on reload the old catalog
    /// keeps serving. No limit by default: a file's head is bounded by
    /// what its metadata says, its bodies stay in the file, and a replica
    /// downloads bodies only once their length is the one its head adds
    /// up to.
    #[cfg_attr(feature = "clap", arg(long, env = "FOUNDRY_CATALOG_MAX_ARTIFACT_BYTES", value_name = "BYTES",
        value_parser = parse_size))]
    pub max_artifact_bytes: Option<u64>,
    /// How many bytes of bodies read from an artifact file are kept in
    /// memory (written as for --max-artifact-bytes; 0 keeps none; by
    /// default a quarter of the machine's memory on Linux, else 1 GiB).
    /// The bodies stay in the file, in the page cache, and each is checked
    /// against its ETag when read; one kept is served without reading or
    /// checking it again. Past the limit, a body is read and checked at
    /// every request. A reload shares the limit with the catalog it
    /// replaces.
    #[cfg_attr(feature = "clap", arg(long, env = "FOUNDRY_CATALOG_BODY_CACHE_BYTES", value_name = "BYTES",
        value_parser = parse_size_or_zero, default_value = cli::show_size(default_body_cache())))]
    pub body_cache_bytes: u64,
    /// Reload the catalog when it changes on disk: the artifact file, or a
    /// `*.json` file of the manifest folder or of a record-type definition
    /// folder, or a template of --templates (its length, modification or
    /// change time, or inode). A
    /// change is reloaded once it has held still for one watch interval.
    #[cfg_attr(feature = "clap", arg(long, env = "FOUNDRY_CATALOG_WATCH"))]
    pub watch: bool,
    /// How often the catalog is looked at when watching.
    #[cfg_attr(feature = "clap", arg(long, env = "FOUNDRY_CATALOG_WATCH_INTERVAL", value_name = "DURATION",
        value_parser = cli::duration, default_value = cli::show(Config::WATCH_INTERVAL)))]
    pub watch_interval: Duration,
    /// Time a client has to send a request's headers, counted from their
    /// first byte: a client dripping a byte at a time is closed when it
    /// runs out.
    #[cfg_attr(feature = "clap", arg(long, env = "FOUNDRY_CATALOG_HEADER_TIMEOUT", value_name = "DURATION",
        value_parser = cli::duration, default_value = cli::show(Config::HEADER_TIMEOUT)))]
    pub header_timeout: Duration,
    /// Time a connection may sit without traffic: between requests, or
    /// while a response is not being read. Both timeouts are checked once
    /// a tick (a sixteenth of the shorter one, at most 250 ms): a
    /// connection is closed at most two ticks after its time is up, never
    /// before.
    #[cfg_attr(feature = "clap", arg(long, env = "FOUNDRY_CATALOG_IDLE_TIMEOUT", value_name = "DURATION",
        value_parser = cli::duration, default_value = cli::show(Config::IDLE_TIMEOUT)))]
    pub idle_timeout: Duration,
    /// Time in-flight requests get to finish after SIGTERM or SIGINT
    /// before the server exits anyway.
    #[cfg_attr(feature = "clap", arg(long, env = "FOUNDRY_CATALOG_DRAIN_TIMEOUT", value_name = "DURATION",
        value_parser = cli::duration, default_value = cli::show(Config::DRAIN_TIMEOUT)))]
    pub drain_timeout: Duration,
    /// Threads that serve connections, each with a single-threaded
    /// runtime; a connection stays on the one it was handed to. The
    /// default is the number of CPUs the process may use.
    #[cfg_attr(feature = "clap", arg(long, env = "FOUNDRY_CATALOG_WORKERS", value_name = "N",
        value_parser = cli::Count::new().range(1..), default_value_t = default_workers()))]
    pub workers: usize,
    /// Most connections open at once; one over it is closed as soon as it
    /// is accepted, and counted. The default is the file-descriptor limit
    /// less a tenth (at least 32) for the listener, catalog files and logs.
    #[cfg_attr(feature = "clap", arg(long, env = "FOUNDRY_CATALOG_MAX_CONNECTIONS", value_name = "N",
        value_parser = cli::Count::new().range(1..), default_value_t = default_max_connections()))]
    pub max_connections: usize,
    /// Largest request head (request line and headers), in bytes; over it,
    /// 431.
    #[cfg_attr(feature = "clap", arg(long, env = "FOUNDRY_CATALOG_MAX_HEADER_BYTES", value_name = "BYTES",
        value_parser = cli::Count::new().range(1024..=1 << 20), default_value_t = Config::MAX_HEADER_BYTES))]
    pub max_header_bytes: usize,
    /// Most request headers; over it, 431.
    #[cfg_attr(feature = "clap", arg(long, env = "FOUNDRY_CATALOG_MAX_HEADERS", value_name = "N",
        value_parser = cli::Count::new().range(1..=1000), default_value_t = Config::MAX_HEADERS))]
    pub max_headers: usize,
}

impl Config {
    /// How this server opens an artifact now: its size limit and every
    /// verify key (the `verify_keys`, and the `*.pub` files of
    /// `verify_key_dir` read now).
    pub(crate) fn open_options(&self) -> Result<OpenOptions, CatalogErrors> {
        let mut keys = self.verify_keys.clone();
        if let Some(dir) = &self.verify_key_dir {
            // Summed up as an artifact's problem: it is one that cannot be verified.
            let problem = |file: &std::path::Path, reason: String| {
                let error = ArtifactError::Read(reason);
                CatalogErrors::from(CatalogError::Artifact { file: file.display().to_string(), error })
            };
            let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
                .map_err(|e| problem(dir, e.to_string()))?
                .filter_map(Result::ok)
                .map(|entry| entry.path())
                .filter(|path| path.extension().is_some_and(|e| e == "pub"))
                .collect();
            files.sort();
            for file in &files {
                keys.push(VerifyKey::read(file).map_err(|e| problem(file, e.reason))?);
            }
            if files.is_empty() {
                return Err(problem(dir, "no verify key (`*.pub`) in this folder".to_owned()));
            }
        }
        let options = OpenOptions::default().verify_keys(keys);
        Ok(match self.max_artifact_bytes {
            Some(max_len) => options.max_len(max_len),
            None => options,
        })
    }

    const ADDR: SocketAddr = SocketAddr::V4(SocketAddrV4::new(Ipv4Addr::LOCALHOST, 8080));
    const WATCH_INTERVAL: Duration = Duration::from_millis(500);
    const POLL_INTERVAL: Duration = Duration::from_secs(30);
    const ORIGIN_TIMEOUT: Duration = Duration::from_secs(300);
    const HEADER_TIMEOUT: Duration = Duration::from_secs(10);
    const IDLE_TIMEOUT: Duration = Duration::from_secs(60);
    const DRAIN_TIMEOUT: Duration = Duration::from_secs(10);
    const MAX_HEADER_BYTES: usize = 32 * 1024;
    /// hyper's own cap on request headers (the server leaves hyper's
    /// setting alone when they agree).
    pub(crate) const HYPER_MAX_HEADERS: usize = 100;
    const MAX_HEADERS: usize = Config::HYPER_MAX_HEADERS;

    /// Sets the port of the `addr` field.
    #[must_use]
    pub fn port(mut self, port: u16) -> Self {
        self.addr.set_port(port);
        self
    }
}

impl Default for Config {
    /// `127.0.0.1:8080`, the embedded catalog, no watching; timeouts 10 s
    /// (headers), 60 s (idle) and 10 s (drain); a worker per CPU; the
    /// connection cap from the file-descriptor limit; request heads up to
    /// 32 KiB and 100 headers.
    fn default() -> Self {
        Config {
            addr: Config::ADDR,
            source: CatalogSource::Embedded,
            record_types: RecordTypes::default(),
            pages: PageOptions::default(),
            verify_keys: Vec::new(),
            verify_key_dir: None,
            max_artifact_bytes: None,
            body_cache_bytes: default_body_cache(),
            max_manifest_bytes: foundry_catalog_serving::catalog::DEFAULT_MAX_MANIFEST_LEN,
            state_dir: None,
            poll_interval: Config::POLL_INTERVAL,
            origin_timeout: Config::ORIGIN_TIMEOUT,
            watch: false,
            watch_interval: Config::WATCH_INTERVAL,
            header_timeout: Config::HEADER_TIMEOUT,
            idle_timeout: Config::IDLE_TIMEOUT,
            drain_timeout: Config::DRAIN_TIMEOUT,
            workers: default_workers(),
            max_connections: default_max_connections(),
            max_header_bytes: Config::MAX_HEADER_BYTES,
            max_headers: Config::MAX_HEADERS,
        }
    }
}

/// A setter per field: `config.header_timeout(d)` sets `config.header_timeout`.
macro_rules! setters {
    ($($field:ident: $type:ty),* $(,)?) => {
        impl Config {
            $(
                #[doc = concat!("Sets the `", stringify!($field), "` field.")]
                #[must_use]
                pub fn $field(mut self, value: $type) -> Self {
                    self.$field = value;
                    self
                }
            )*
        }
    };
}

setters! {
    addr: SocketAddr,
    source: CatalogSource,
    record_types: RecordTypes,
    pages: PageOptions,
    verify_keys: Vec<VerifyKey>,
    verify_key_dir: Option<PathBuf>,
    max_artifact_bytes: Option<u64>,
    body_cache_bytes: u64,
    max_manifest_bytes: u64,
    state_dir: Option<PathBuf>,
    poll_interval: Duration,
    origin_timeout: Duration,
    watch: bool,
    watch_interval: Duration,
    header_timeout: Duration,
    idle_timeout: Duration,
    drain_timeout: Duration,
    workers: usize,
    max_connections: usize,
    max_header_bytes: usize,
    max_headers: usize,
}

/// A size in bytes as settings write it: `1073741824`, `512MiB`, `8GiB`
/// (`K`, `M`, `G`, `T` or `KiB` … `TiB`, powers of 1,024); never zero.
///
/// ```
/// assert_eq!(foundry_catalog_server::parse_size("8GiB"), Ok(8 << 30));
/// assert_eq!(foundry_catalog_server::parse_size("512"), Ok(512));
/// assert!(foundry_catalog_server::parse_size("8 GB").is_err());
/// ```
pub fn parse_size(text: &str) -> Result<u64, String> {
    parse_size_or_zero(text).and_then(|n| if n > 0 { Ok(n) } else { Err("must be between 1 byte and 2^64".to_owned()) })
}

/// A size as [`parse_size`] reads it, where 0 (none) is allowed.
pub fn parse_size_or_zero(text: &str) -> Result<u64, String> {
    let digits = text.find(|c: char| !c.is_ascii_digit()).unwrap_or(text.len());
    let (number, unit) = text.split_at(digits);
    let shift = match unit {
        "" | "B" => 0,
        "K" | "KiB" => 10,
        "M" | "MiB" => 20,
        "G" | "GiB" => 30,
        "T" | "TiB" => 40,
        other => return Err(format!("unknown unit `{other}` (write it like 1048576, 512MiB or 8GiB)")),
    };
    let number: u64 = number.parse().map_err(|_| "a size is a whole number and a unit, like 8GiB".to_owned())?;
    number.checked_mul(1 << shift).ok_or_else(|| "must be between 0 bytes and 2^64".to_owned())
}

/// The default body cache: a quarter of the machine's memory (as a
/// database's shared buffers default to), in whole MiB, on Linux; else
/// [`BodyCache::DEFAULT_LIMIT`](foundry_catalog_serving::catalog::BodyCache::DEFAULT_LIMIT).
/// What it keeps is what requests asked for: memory grows with the bodies
/// served, up to it.
fn default_body_cache() -> u64 {
    #[cfg(any(target_os = "linux", target_os = "android"))]
    {
        let info = rustix::system::sysinfo();
        #[allow(clippy::useless_conversion)]
        let total = u64::try_from(info.totalram).unwrap_or(0).saturating_mul(u64::from(info.mem_unit.max(1)));
        if total > 0 {
            return (total / 4) >> 20 << 20;
        }
    }
    foundry_catalog_serving::catalog::BodyCache::DEFAULT_LIMIT
}

/// The default worker count: the CPUs the process may use.
fn default_workers() -> usize {
    std::thread::available_parallelism().map_or(1, usize::from)
}

/// The default connection cap: the soft file-descriptor limit less a
/// headroom of a tenth (at least 32) for the listener, catalog files,
/// logs and the connections accepted only to be closed. 1,024 descriptors
/// give 922 connections.
fn default_max_connections() -> usize {
    let limit = rustix::process::getrlimit(rustix::process::Resource::Nofile).current.unwrap_or(1 << 20);
    let limit = usize::try_from(limit).unwrap_or(usize::MAX);
    let headroom = (limit / 10).max(32);
    limit.saturating_sub(headroom).max(1)
}

/// How the settings are read from the command line.
#[cfg(feature = "clap")]
mod cli {
    use std::time::Duration;

    /// A duration as it is written: `10s`, `500ms`, `1m`; never zero.
    pub(super) fn duration(text: &str) -> Result<Duration, String> {
        let duration = humantime::parse_duration(text).map_err(|e| format!("{e} (write it like 10s, 500ms or 1m)"))?;
        if duration.is_zero() { Err("must be longer than zero".to_owned()) } else { Ok(duration) }
    }

    /// A default duration as [`duration`] reads it.
    pub(super) fn show(duration: Duration) -> String {
        humantime::format_duration(duration).to_string()
    }

    /// A default size as [`super::parse_size`] reads it: `8GiB`, `16MiB`,
    /// or bytes when no unit divides it.
    pub(super) fn show_size(bytes: u64) -> String {
        let unit = [(40, "TiB"), (30, "GiB"), (20, "MiB"), (10, "KiB")]
            .into_iter()
            .find(|&(shift, _)| bytes >= 1 << shift && bytes.is_multiple_of(1 << shift));
        unit.map_or_else(|| bytes.to_string(), |(shift, name)| format!("{}{name}", bytes >> shift))
    }

    /// A verify key file, read when the arguments are.
    pub(super) fn verify_key(path: &str) -> Result<foundry_catalog_serving::signing::VerifyKey, String> {
        foundry_catalog_serving::signing::VerifyKey::read(std::path::Path::new(path)).map_err(|e| e.reason)
    }

    /// A site URL ([`foundry_catalog_pages::Site::new`]).
    pub(super) fn site(text: &str) -> Result<foundry_catalog_pages::Site, String> {
        foundry_catalog_pages::Site::new(text).map_err(|e| e.to_string())
    }

    /// A count: a whole number in a range.
    pub(super) type Count = clap::builder::RangedU64ValueParser<usize>;
}
