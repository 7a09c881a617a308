//! Bounded resources, health and metrics, reloads and the drain, with
//! short timeouts so nothing waits on wall-clock minutes.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::path::Path;
use std::time::{Duration, Instant};

use foundry_catalog_server::CatalogSource;

use crate::support::{
    Response, TestServer, catalog_copy, closed_after, eventually, exchange, get, representations, send, sha256_tag,
};

const PRODUCT: &str = "/api/public/foundry/products/eu-regulatory-status-signals";

#[test]
fn silent_dripping_and_idle_clients_are_closed_by_their_timeouts() {
    let server = TestServer::start(|c| {
        c.header_timeout = Duration::from_millis(300);
        c.idle_timeout = Duration::from_millis(900);
    });

    // Silent: never sends a byte; closed by the idle timeout.
    let mut silent = TcpStream::connect(server.addr).expect("connect");
    let waited = closed_after(&mut silent, Duration::from_secs(5)).expect("a silent client is closed");
    assert!(waited >= Duration::from_millis(700), "closed too early: {waited:?}");

    // Dripping: a started request, one header line every 100 ms; closed
    // by the header timeout although it never goes quiet.
    let mut drip = TcpStream::connect(server.addr).expect("connect");
    drip.write_all(format!("GET {PRODUCT} HTTP/1.1\r\nHost: t\r\n").as_bytes()).expect("send");
    let started = Instant::now();
    let mut closed = None;
    for i in 0..40 {
        std::thread::sleep(Duration::from_millis(100));
        if drip.write_all(format!("X-Drip-{i}: x\r\n").as_bytes()).is_err() {
            closed = Some(started.elapsed());
            break;
        }
        if let Some(after) = closed_after(&mut drip, Duration::from_millis(1)) {
            closed = Some(started.elapsed().max(after));
            break;
        }
    }
    let closed = closed.expect("a dripping client is closed");
    assert!(closed < Duration::from_millis(900), "the header timeout applies, not the idle one: {closed:?}");

    // Idle between requests: answered, then closed by the idle timeout.
    let mut keep_alive = TcpStream::connect(server.addr).expect("connect");
    keep_alive.write_all(format!("GET {PRODUCT} HTTP/1.1\r\nHost: t\r\n\r\n").as_bytes()).expect("send");
    let mut first = [0u8; 12];
    keep_alive.read_exact(&mut first).expect("an answer");
    assert_eq!(&first, b"HTTP/1.1 200");
    assert!(closed_after(&mut keep_alive, Duration::from_secs(5)).is_some(), "an idle keep-alive connection is closed");

    assert!(server.metric("foundry_timeouts_total{phase=\"header\"}") >= 1);
    assert!(server.metric("foundry_timeouts_total{phase=\"idle\"}") >= 2);
    // The server still answers.
    assert_eq!(exchange(server.addr, &get(PRODUCT)).status, 200);
}

#[test]
fn a_slow_but_steady_client_within_the_header_timeout_is_served() {
    let server = TestServer::start(|c| {
        c.header_timeout = Duration::from_millis(800);
        c.idle_timeout = Duration::from_millis(400);
    });
    let mut stream = TcpStream::connect(server.addr).expect("connect");
    std::thread::sleep(Duration::from_millis(200));
    for part in
        [format!("GET {PRODUCT} HTTP/1.1\r\n"), "Host: t\r\n".to_owned(), "Connection: close\r\n\r\n".to_owned()]
    {
        stream.write_all(part.as_bytes()).expect("send");
        std::thread::sleep(Duration::from_millis(150));
    }
    let answer = Response::read(&mut stream, false).expect("a whole answer").expect("an answer");
    assert_eq!(answer.status, 200);
}

#[test]
fn connections_over_the_cap_are_closed_at_once_and_counted() {
    let server = TestServer::start(|c| c.max_connections = 2);
    let held: Vec<TcpStream> = (0..2).map(|_| TcpStream::connect(server.addr).expect("connect")).collect();
    std::thread::sleep(Duration::from_millis(100));
    let mut over = TcpStream::connect(server.addr).expect("the kernel accepts the connection");
    let _ = over.write_all(get(PRODUCT).as_bytes());
    assert!(closed_after(&mut over, Duration::from_secs(2)).is_some(), "a connection over the cap is closed at once");
    drop(held);
    std::thread::sleep(Duration::from_millis(100));
    assert_eq!(exchange(server.addr, &get(PRODUCT)).status, 200, "served again once below the cap");
    assert!(server.metric("foundry_connections_refused_total") >= 1);
}

#[test]
fn oversized_heads_get_431() {
    let server = TestServer::start(|c| {
        c.max_header_bytes = 16 * 1024;
        c.max_headers = 20;
    });
    let big =
        format!("GET {PRODUCT} HTTP/1.1\r\nHost: t\r\nX-Big: {}\r\nConnection: close\r\n\r\n", "a".repeat(20_000));
    assert_eq!(exchange(server.addr, &big).status, 431);
    let many: String = (0..30).map(|i| format!("X-{i}: x\r\n")).collect();
    let many = format!("GET {PRODUCT} HTTP/1.1\r\nHost: t\r\n{many}Connection: close\r\n\r\n");
    assert_eq!(exchange(server.addr, &many).status, 431);
    assert_eq!(exchange(server.addr, &get(PRODUCT)).status, 200);
}

#[test]
fn the_default_header_cap_is_100() {
    let server = TestServer::start(|_| {});
    // `Host` and `Connection` count: 98 more make 100, 99 more make 101.
    let head = |extra: usize| {
        let lines: String = (0..extra).map(|i| format!("X-{i}: x\r\n")).collect();
        format!("GET {PRODUCT} HTTP/1.1\r\nHost: t\r\n{lines}Connection: close\r\n\r\n")
    };
    assert_eq!(exchange(server.addr, &head(98)).status, 200);
    assert_eq!(exchange(server.addr, &head(99)).status, 431);
}

#[test]
fn every_if_none_match_line_is_one_list() {
    let server = TestServer::start(|_| {});
    let answer = exchange(server.addr, &get(PRODUCT));
    let etag = answer.header("etag").expect("an ETag").to_owned();
    let request = format!(
        "GET {PRODUCT} HTTP/1.1\r\nHost: t\r\nIf-None-Match: \"other\"\r\nIf-None-Match: {etag}\r\nConnection: close\r\n\r\n"
    );
    assert_eq!(exchange(server.addr, &request).status, 304);
}

#[test]
fn health_readiness_and_metrics() {
    let server = TestServer::start(|_| {});
    let health = exchange(server.addr, &get("/healthz"));
    assert_eq!(health.status, 200);
    assert!(health.text().ends_with("ok\n"));
    assert_eq!(exchange(server.addr, &get("/readyz")).status, 200);
    assert_eq!(
        exchange(server.addr, "POST /healthz HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
            .status,
        405
    );
    assert_eq!(exchange(server.addr, &get(PRODUCT)).status, 200);
    assert_eq!(exchange(server.addr, &get("/api/public/foundry/products/no-such-thing")).status, 404);
    let metrics = exchange(server.addr, &get("/metrics"));
    let content_type = metrics.header("content-type").unwrap_or_default();
    assert!(content_type.starts_with("text/plain; version=0.0.4"), "{content_type}");
    let metrics = metrics.text();
    for family in [
        "foundry_requests_total",
        "foundry_response_bytes_total",
        "foundry_connections_open",
        "foundry_connections_refused_total",
        "foundry_timeouts_total",
        "foundry_catalog_products",
        "foundry_catalog_generation",
        "foundry_reloads_total",
    ] {
        assert!(metrics.contains(&format!("# TYPE {family} ")), "{family} missing");
    }
    assert!(server.metric("foundry_requests_total{status=\"200\"}") >= 2);
    assert!(server.metric("foundry_requests_total{status=\"404\"}") >= 1);
    assert_eq!(server.metric("foundry_catalog_products"), 3);
    for shipped in foundry_catalog::record_types() {
        let (label, hash) = (&shipped.record_label, &shipped.schema_hash);
        assert_eq!(
            server.metric(&format!("foundry_catalog_record_types{{record_label=\"{label}\",schema_hash=\"{hash}\"}}")),
            1
        );
    }
    assert_eq!(server.metric("foundry_catalog_generation"), 1);
    let openapi = exchange(server.addr, &get("/openapi.json"));
    let document: serde_json::Value = serde_json::from_slice(&openapi.body).expect("the OpenAPI document is JSON");
    assert_eq!(document, foundry_catalog::json_schema::openapi());
}

/// A copy of the example catalog in a fresh folder.
fn retitle(dir: &Path, title: &str) {
    let path = dir.join("eu-regulatory-status-signals.json");
    let mut manifest: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&path).expect("readable")).expect("JSON");
    manifest["title"] = serde_json::json!(title);
    std::fs::write(&path, manifest.to_string()).expect("write");
}

#[test]
fn reload_swaps_in_a_good_catalog_and_keeps_the_old_one_on_error() {
    let dir = catalog_copy("reload");
    let server = TestServer::start(|c| c.source = CatalogSource::Dir(dir.clone()));
    assert!(exchange(server.addr, &get(PRODUCT)).text().contains("\"title\":\"EU"));

    retitle(&dir, "Reloaded title");
    server.handle.reload();
    eventually("the good edit is served", || exchange(server.addr, &get(PRODUCT)).text().contains("Reloaded title"));
    assert_eq!(server.metric("foundry_catalog_generation"), 2);
    assert_eq!(server.metric("foundry_reloads_total{result=\"ok\"}"), 1);

    std::fs::write(dir.join("crm-webhook-connector.json"), "{").expect("break a manifest");
    server.handle.reload();
    eventually("the broken reload is counted", || server.metric("foundry_reloads_total{result=\"failed\"}") == 1);
    assert!(
        exchange(server.addr, &get(PRODUCT)).text().contains("Reloaded title"),
        "the last good catalog still serves"
    );
    assert_eq!(exchange(server.addr, &get("/api/public/foundry/products/crm-webhook-connector")).status, 200);
    assert_eq!(server.metric("foundry_catalog_generation"), 2);
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn watch_reloads_when_a_manifest_changes() {
    let dir = catalog_copy("watch");
    let server = TestServer::start(|c| {
        c.source = CatalogSource::Dir(dir.clone());
        c.watch = true;
        c.watch_interval = Duration::from_millis(50);
    });
    std::thread::sleep(Duration::from_millis(120));
    retitle(&dir, "Watched title");
    eventually("the edit is served", || exchange(server.addr, &get(PRODUCT)).text().contains("Watched title"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn shutdown_closes_idle_connections_stops_accepting_and_returns() {
    let server = TestServer::start(|c| c.drain_timeout = Duration::from_secs(5));
    let mut idle = TcpStream::connect(server.addr).expect("connect");
    idle.write_all(format!("GET {PRODUCT} HTTP/1.1\r\nHost: t\r\n\r\n").as_bytes()).expect("send");
    let mut first = [0u8; 12];
    idle.read_exact(&mut first).expect("an answer");
    server.handle.shutdown();
    assert!(closed_after(&mut idle, Duration::from_secs(3)).is_some(), "the idle connection is closed");
    assert!(server.finished_within(Duration::from_secs(3)), "run returns after the drain");
    assert!(TcpStream::connect(server.addr).is_err(), "no longer accepting");
}

#[test]
fn readiness_turns_503_on_an_open_connection_during_the_drain() {
    let server = TestServer::start(|c| c.drain_timeout = Duration::from_secs(5));
    let readyz = "GET /readyz HTTP/1.1\r\nHost: t\r\n\r\n";
    let before = send(&mut TcpStream::connect(server.addr).expect("connect"), readyz);
    assert_eq!((before.status, &before.body[..]), (200, &b"ready\n"[..]));
    // A request in flight (its head half sent) when the drain begins.
    let mut open = TcpStream::connect(server.addr).expect("connect");
    let (first, rest) = readyz.split_at(readyz.len() - 2);
    open.write_all(first.as_bytes()).expect("send");
    std::thread::sleep(Duration::from_millis(100));
    server.handle.shutdown();
    std::thread::sleep(Duration::from_millis(300));
    let during = send(&mut open, rest);
    assert_eq!((during.status, &during.body[..]), (503, &b"draining\n"[..]));
    assert_eq!(during.header("cache-control"), Some("no-store"));
    assert!(Response::read(&mut open, false).expect("no cut response").is_none(), "closed after the request in flight");
    assert!(server.finished_within(Duration::from_secs(3)));
}

/// The quoted lowercase hex SHA-256 of `bytes`: a strong ETag as the
/// catalog promises it.
#[test]
fn every_etag_is_the_sha256_of_the_bytes_sent_and_follows_a_reload() {
    let dir = catalog_copy("etag");
    let server = TestServer::start(|c| c.source = CatalogSource::Dir(dir.clone()));
    let mut stream = TcpStream::connect(server.addr).expect("connect");
    let slugs = ["crm-webhook-connector", "eu-regulatory-status-signals", "lead-signal-extractor"];
    let mut before = Vec::new();
    for slug in slugs {
        for (coding, r) in representations(&mut stream, &format!("/api/public/foundry/products/{slug}")) {
            assert_eq!(r.header("etag"), Some(sha256_tag(&r.body).as_str()), "{slug} {coding}");
            let head = send(
                &mut stream,
                &format!(
                    "HEAD /api/public/foundry/products/{slug} HTTP/1.1\r\nHost: t\r\nAccept-Encoding: {coding}\r\n\r\n"
                ),
            );
            assert_eq!(head.header("etag"), r.header("etag"), "HEAD {slug} {coding}");
            before.push(r);
        }
    }
    let tags: std::collections::BTreeSet<_> = before.iter().filter_map(|r| r.header("etag")).collect();
    assert_eq!(tags.len(), before.len(), "every representation has its own ETag");

    retitle(&dir, "Retitled for a new ETag");
    server.handle.reload();
    eventually("the reload is served", || server.metric("foundry_catalog_generation") == 2);
    for (index, (coding, r)) in representations(&mut stream, PRODUCT).into_iter().enumerate() {
        assert!(String::from_utf8_lossy(&r.body).contains("Retitled") || coding != "identity");
        assert_eq!(r.header("etag"), Some(sha256_tag(&r.body).as_str()), "{coding} after the reload");
        let old = &before[3 + index];
        assert_ne!(r.header("etag"), old.header("etag"), "{coding}: a new body, a new ETag");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn requests_across_reloads_each_get_a_whole_old_or_new_body() {
    let dir = catalog_copy("in-flight");
    let server = TestServer::start(|c| c.source = CatalogSource::Dir(dir.clone()));
    let stop = std::sync::Arc::new(std::sync::atomic::AtomicBool::new(false));
    let clients: Vec<_> = (0..4)
        .map(|_| {
            let (addr, stop) = (server.addr, std::sync::Arc::clone(&stop));
            std::thread::spawn(move || {
                let mut titles = std::collections::BTreeSet::new();
                let mut stream = TcpStream::connect(addr).expect("connect");
                let request = format!("GET {PRODUCT} HTTP/1.1\r\nHost: t\r\n\r\n");
                while !stop.load(std::sync::atomic::Ordering::Relaxed) {
                    let r = send(&mut stream, &request);
                    assert_eq!(r.status, 200);
                    assert_eq!(r.header("etag"), Some(sha256_tag(&r.body).as_str()), "the ETag of this very body");
                    let body: serde_json::Value = serde_json::from_slice(&r.body).expect("a whole JSON body");
                    titles.insert(body["data"]["title"].as_str().expect("a title").to_owned());
                }
                titles
            })
        })
        .collect();
    for generation in 2..=7 {
        retitle(&dir, &format!("Title {}", generation % 2));
        server.handle.reload();
        eventually("the reload is served", || server.metric("foundry_catalog_generation") == generation);
        std::thread::sleep(Duration::from_millis(30));
    }
    stop.store(true, std::sync::atomic::Ordering::Relaxed);
    let mut seen = std::collections::BTreeSet::new();
    for client in clients {
        seen.extend(client.join().expect("no client saw a mixed or cut body"));
    }
    assert!(seen.contains("Title 0") && seen.contains("Title 1"), "the requests crossed reloads: {seen:?}");
    assert_eq!(server.metric("foundry_reloads_total{result=\"failed\"}"), 0);
    let _ = std::fs::remove_dir_all(&dir);
}
