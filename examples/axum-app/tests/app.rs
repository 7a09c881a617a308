//! The application over loopback: the shared table of HTTP cases at the
//! root and under `/catalog`, its own routes, and a reload.

use std::net::SocketAddr;
use std::path::Path;

use foundry_catalog_http_cases::client::{self, Response};
use foundry_catalog_serving::catalog::ResponseCatalog;
use foundry_catalog_serving::service::SharedCatalog;

/// The example catalog, as the project's server has it by default.
fn catalog() -> ResponseCatalog {
    foundry_catalog_serving::catalog::Builder::new()
        .build_dir(&Path::new(env!("CARGO_MANIFEST_DIR")).join("../catalog"))
        .expect("the example catalog")
}

/// The application on an ephemeral loopback port, on a thread of its own.
fn start(catalog: SharedCatalog) -> SocketAddr {
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    listener.set_nonblocking(true).expect("nonblocking");
    let addr = listener.local_addr().expect("address");
    std::thread::spawn(move || {
        let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
        runtime.block_on(async move {
            let listener = tokio::net::TcpListener::from_std(listener).expect("listener");
            axum::serve(listener, foundry_catalog_axum_app::app(catalog)).await.expect("serves");
        });
    });
    addr
}

fn get(addr: SocketAddr, path: &str) -> Response {
    client::exchange(addr, &client::get(path)).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn the_shared_http_cases_at_the_root_and_under_a_prefix() {
    let addr = start(SharedCatalog::new(catalog()));
    foundry_catalog_http_cases::run(addr, "");
    foundry_catalog_http_cases::run(addr, "/catalog");
}

#[test]
fn the_application_keeps_its_own_routes_and_reloads_the_catalog() {
    let shared = SharedCatalog::new(catalog());
    let addr = start(shared.clone());
    assert_eq!(get(addr, "/hello").text(), "hello\n");
    assert!(get(addr, "/").text().contains("also serves a product catalog"));
    let product = "/api/public/foundry/products/crm-webhook-connector";
    assert_eq!(get(addr, product).status, 200);

    // A catalog without that product, stored while serving: the next
    // request sees it.
    let dir = std::env::temp_dir().join(format!("foundry-catalog-axum-app-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).expect("temp dir");
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../catalog");
    std::fs::copy(examples.join("lead-signal-extractor.json"), dir.join("lead-signal-extractor.json")).expect("copy");
    shared.store(foundry_catalog_serving::catalog::Builder::new().build_dir(&dir).expect("a one-product catalog"));
    assert_eq!(get(addr, product).status, 404);
    assert_eq!(get(addr, "/catalog/api/public/foundry/products/lead-signal-extractor").status, 200);
    let _ = std::fs::remove_dir_all(&dir);
}

/// One request through the router in process, as an axum test sends it
/// with `oneshot` (no socket, no Host unless the test adds one).
fn in_process(router: &axum::Router, request: axum::http::Request<axum::body::Body>) -> (u16, Vec<u8>) {
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    runtime.block_on(async {
        let response = tower_service::Service::call(&mut router.clone(), request).await.expect("infallible");
        let status = response.status().as_u16();
        let body = axum::body::to_bytes(response.into_body(), usize::MAX).await.expect("a body");
        (status, body.to_vec())
    })
}

fn request(path: &str, host: Option<&str>) -> axum::http::Request<axum::body::Body> {
    let builder = axum::http::Request::get(path);
    let builder = match host {
        Some(host) => builder.header("host", host),
        None => builder,
    };
    builder.body(axum::body::Body::empty()).expect("a request")
}

/// The service docs' promise: a request built in process is HTTP/1.1
/// without a Host, so the endpoint answers 400 `bad_host` until the test
/// adds one.
#[test]
fn an_in_process_request_needs_a_host() {
    let app = foundry_catalog_axum_app::app(SharedCatalog::new(catalog()));
    let path = "/api/public/foundry/products/crm-webhook-connector";
    let (status, body) = in_process(&app, request(path, None));
    assert_eq!(status, 400);
    assert!(String::from_utf8_lossy(&body).contains("\"bad_host\""));
    assert_eq!(in_process(&app, request(path, Some("catalog.example"))).0, 200);
}

/// The service docs' promise: `route_service` with `{slug}` leaves the
/// empty slug to axum (404, no body), where `fallback_service` answers it
/// as the catalog does (400 `invalid_slug`); `nest_service("/")` panics.
#[test]
fn how_each_mount_answers_the_empty_slug() {
    let shared = SharedCatalog::new(catalog());
    let service = foundry_catalog_serving::service::CatalogService::new(shared.clone());
    let routed = axum::Router::new().route_service("/api/public/foundry/products/{slug}", service.clone());
    let empty = "/api/public/foundry/products/";
    assert_eq!(in_process(&routed, request(empty, Some("t"))), (404, Vec::new()));
    let (status, body) = in_process(&foundry_catalog_axum_app::app(shared), request(empty, Some("t")));
    assert_eq!(status, 400);
    assert!(String::from_utf8_lossy(&body).contains("\"invalid_slug\""));
    let nested_at_root = std::panic::catch_unwind(|| axum::Router::<()>::new().nest_service("/", service));
    assert!(nested_at_root.is_err(), "axum 0.8 refuses nest_service at the root");
}

/// An origin on loopback serving one artifact with a strong ETag (304 to
/// a match; `Range` ignored, as an origin may), replaced by `publish`.
fn origin() -> (String, std::sync::Arc<std::sync::Mutex<Vec<u8>>>) {
    use std::io::{Read, Write};
    let listener = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let url = format!("http://{}/catalog.fcat", listener.local_addr().expect("address"));
    let published = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let served = std::sync::Arc::clone(&published);
    std::thread::spawn(move || {
        for mut stream in listener.incoming().map_while(Result::ok) {
            let mut head = Vec::new();
            let mut byte = [0; 1];
            while !head.ends_with(b"\r\n\r\n") && stream.read(&mut byte).is_ok_and(|n| n == 1) {
                head.push(byte[0]);
            }
            let body = served.lock().expect("published").clone();
            let etag = format!("\"{}-{}\"", body.len(), body.iter().map(|&b| u64::from(b)).sum::<u64>());
            let head = String::from_utf8_lossy(&head).to_lowercase();
            let response = if head.contains(&format!("if-none-match: {etag}")) {
                format!("HTTP/1.1 304 Not Modified\r\netag: {etag}\r\nconnection: close\r\n\r\n").into_bytes()
            } else {
                let mut response = format!(
                    "HTTP/1.1 200 OK\r\ncontent-length: {}\r\netag: {etag}\r\nconnection: close\r\n\r\n",
                    body.len()
                )
                .into_bytes();
                response.extend_from_slice(&body);
                response
            };
            let _ = stream.write_all(&response);
        }
    });
    (url, published)
}

/// The example catalog as a signed artifact of release `sequence`, the
/// product `crm-webhook-connector` titled by it.
fn release(key: &foundry_catalog_serving::signing::SigningKey, sequence: u64) -> Vec<u8> {
    let examples = Path::new(env!("CARGO_MANIFEST_DIR")).join("../catalog");
    let sources = std::fs::read_dir(&examples).expect("the example catalog").map(|entry| {
        let path = entry.expect("an entry").path();
        let text = std::fs::read_to_string(&path).expect("a manifest");
        let text = text.replacen("\"title\": \"", &format!("\"title\": \"Release {sequence}: "), 1);
        (path.display().to_string(), text)
    });
    // Bodies stored as they are, so a test can find one in the file.
    let identity = [foundry_catalog_serving::catalog::ContentCoding::Identity];
    let builder = foundry_catalog_serving::catalog::Builder::new().codings(&identity).expect("identity");
    let mut catalog = builder.sequence(sequence).build(sources).expect("built");
    catalog.sign(key);
    let mut bytes = Vec::new();
    catalog.artifact().write_to(&mut bytes).expect("written");
    bytes
}

/// The application as a replica of an origin: the origin's artifact at
/// start, each new release served within a poll, an older one refused,
/// and a restart on the last good artifact with the origin down.
#[test]
fn the_application_is_kept_current_from_an_origin() {
    use foundry_catalog_serving::catalog::OpenOptions;
    let key = foundry_catalog_serving::signing::SigningKey::from_seed([7; 32]);
    let open = || OpenOptions::default().verify_keys(vec![key.verify_key()]);
    let (url, published) = origin();
    *published.lock().expect("published") = release(&key, 1);
    let state = std::env::temp_dir().join(format!("foundry-catalog-axum-replica-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&state);
    let interval = std::time::Duration::from_millis(100);
    let (catalog, poller) = foundry_catalog_axum_app::replicated(&url, &state, open(), interval).expect("pulled");
    let addr = start(catalog);
    let product = "/api/public/foundry/products/crm-webhook-connector";
    let title = || get(addr, product).text().to_string();
    assert!(title().contains("Release 1: "));
    *published.lock().expect("published") = release(&key, 2);
    let started = std::time::Instant::now();
    while !title().contains("Release 2: ") {
        assert!(started.elapsed() < std::time::Duration::from_secs(10), "release 2 never served");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    // A body of the last good file damaged on disk (the catalog served
    // reads it from there): answered 503, then repaired from the origin,
    // though the origin is unchanged.
    let last_good = state.join("last-good.fcat");
    let mut bytes = std::fs::read(&last_good).expect("kept");
    let needle = b"\"title\":\"Release 2: EU";
    let at = bytes.windows(needle.len()).position(|w| w == needle).expect("a body as is");
    bytes[at + 12] ^= 0x20;
    std::fs::OpenOptions::new()
        .write(true)
        .open(&last_good)
        .and_then(|file| std::os::unix::fs::FileExt::write_all_at(&file, &bytes[at..at + needle.len()], at as u64))
        .expect("damaged in place");
    let damaged = "/api/public/foundry/products/eu-regulatory-status-signals";
    assert_eq!(get(addr, damaged).status, 503, "never the damaged bytes");
    let started = std::time::Instant::now();
    while get(addr, damaged).status != 200 {
        assert!(started.elapsed() < std::time::Duration::from_secs(10), "never repaired");
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    assert!(get(addr, damaged).text().contains("Release 2: EU"));
    // An older release is refused: release 2 stays.
    *published.lock().expect("published") = release(&key, 1);
    std::thread::sleep(std::time::Duration::from_millis(500));
    assert!(title().contains("Release 2: "));
    poller.stop();
    // A restart with the origin gone: the last good artifact.
    let gone = "http://127.0.0.1:9/catalog.fcat";
    let (catalog, _poller) = foundry_catalog_axum_app::replicated(gone, &state, open(), interval).expect("last good");
    assert!(catalog.load().get("crm-webhook-connector").is_some());
    let _ = std::fs::remove_dir_all(&state);
}
