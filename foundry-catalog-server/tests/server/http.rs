//! Every behaviour of
//! `GET /api/public/foundry/products/{slug}`, with a real client (ureq) and
//! a raw socket for requests a client would not send.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::OnceLock;

use crate::support::TestServer;

const PRODUCTS: &str = "/api/public/foundry/products";

/// One server for the whole module, on an ephemeral loopback port.
fn base() -> &'static str {
    static SERVER: OnceLock<TestServer> = OnceLock::new();
    &SERVER.get_or_init(|| TestServer::start(|_| {})).base
}

fn agent() -> ureq::Agent {
    ureq::Agent::config_builder().http_status_as_error(false).build().into()
}

struct Reply {
    status: u16,
    headers: ureq::http::HeaderMap,
    body: Vec<u8>,
}

impl Reply {
    fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }

    fn error_code(&self) -> String {
        let json: serde_json::Value = serde_json::from_slice(&self.body).expect("a JSON error body");
        assert_eq!(json["error"]["status"], self.status);
        assert!(json["error"]["message"].is_string());
        json["error"]["code"].as_str().expect("a code").to_owned()
    }
}

fn reply(response: Result<ureq::http::Response<ureq::Body>, ureq::Error>) -> Reply {
    let mut response = response.expect("the server answers");
    let body = response.body_mut().read_to_vec().expect("a body");
    Reply { status: response.status().as_u16(), headers: response.headers().clone(), body }
}

fn get(path: &str) -> Reply {
    reply(agent().get(format!("{}{path}", base())).call())
}

fn get_if_none_match(path: &str, tag: &str) -> Reply {
    reply(agent().get(format!("{}{path}", base())).header("If-None-Match", tag).call())
}

#[test]
fn get_returns_the_prebuilt_body_with_etag_and_cache_control() {
    let catalog = foundry_catalog_server::default_catalog().expect("catalog");
    for slug in catalog.slugs() {
        let r = get(&format!("{PRODUCTS}/{slug}"));
        assert_eq!(r.status, 200);
        assert_eq!(r.header("content-type"), Some("application/json"));
        assert_eq!(r.header("cache-control"), Some("public, max-age=300"));
        let entry = catalog.get(slug).expect("entry");
        assert_eq!(r.header("etag"), Some(entry.etag()));
        assert_eq!(r.body, entry.body().to_vec());
        let body: serde_json::Value = serde_json::from_slice(&r.body).expect("JSON");
        assert_eq!(body["data"]["api_path"], format!("{PRODUCTS}/{slug}"));
        assert!(foundry_catalog::conformance::validate(&body).is_empty());
    }
}

#[test]
fn head_has_the_same_headers_and_no_body() {
    let path = format!("{PRODUCTS}/eu-regulatory-status-signals");
    let full = get(&path);
    let head = reply(agent().head(format!("{}{path}", base())).call());
    assert_eq!(head.status, 200);
    assert!(head.body.is_empty());
    for name in ["content-type", "etag", "cache-control", "content-length"] {
        assert_eq!(head.header(name), full.header(name), "{name}");
    }
    assert_eq!(head.header("content-length"), Some(full.body.len().to_string().as_str()));
}

#[test]
fn if_none_match_gives_304_with_weak_comparison_star_and_lists() {
    let path = format!("{PRODUCTS}/lead-signal-extractor");
    let etag = get(&path).header("etag").expect("etag").to_owned();
    for header in [
        etag.clone(),
        format!("W/{etag}"),
        "*".to_owned(),
        format!("\"other\", {etag}"),
        format!("W/\"x\" ,W/{etag} , \"y\""),
    ] {
        let r = get_if_none_match(&path, &header);
        assert_eq!(r.status, 304, "{header}");
        assert!(r.body.is_empty(), "{header}");
        assert_eq!(r.header("etag"), Some(etag.as_str()));
    }
    for header in ["\"other\"", "W/\"other\", \"more\"", "garbage", &etag[..etag.len() - 2]] {
        assert_eq!(get_if_none_match(&path, header).status, 200, "{header}");
    }
}

#[test]
fn unknown_and_malformed_slugs_and_other_paths() {
    let r = get(&format!("{PRODUCTS}/no-such-product"));
    assert_eq!((r.status, r.error_code().as_str()), (404, "not_found"));
    let long = "a".repeat(201);
    for bad in ["Uppercase", "..", "a%2Fb", "a%00b", "under_score", long.as_str(), "a--b", "%3Cscript%3E"] {
        let r = get(&format!("{PRODUCTS}/{bad}"));
        assert!(matches!(r.status, 400 | 404), "{bad}: {}", r.status);
        assert!(!r.error_code().is_empty());
        assert!(!r.body.contains(&b'<') && !r.body.contains(&b'>'), "{bad}: input echoed");
    }
    for path in [
        "/",
        "/api/public/foundry/products",
        &format!("{PRODUCTS}/"),
        &format!("{PRODUCTS}/a/b"),
        "/products/crm-webhook-connector",
    ] {
        let r = get(path);
        assert_eq!(r.status, if path.ends_with('/') && path.len() > PRODUCTS.len() { 400 } else { 404 }, "{path}");
        r.error_code();
    }
}

#[test]
fn other_methods_get_405_with_allow() {
    let url = format!("{}{PRODUCTS}/crm-webhook-connector", base());
    for r in [
        reply(agent().post(&url).send_empty()),
        reply(agent().put(&url).send_empty()),
        reply(agent().delete(&url).call()),
        reply(agent().options(&url).call()),
    ] {
        assert_eq!(r.status, 405);
        assert_eq!(r.header("allow"), Some("GET, HEAD"));
        assert_eq!(r.error_code(), "method_not_allowed");
    }
}

/// Requests no well-behaved client sends still get a 4xx, never a 5xx or
/// a hang, and never see their input echoed.
#[test]
fn raw_requests_never_get_a_server_error() {
    let addr = base().trim_start_matches("http://");
    for request in [
        format!("GET {PRODUCTS}/<script>alert(1)</script> HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
        format!(
            "GET {PRODUCTS}/crm-webhook-connector HTTP/1.1\r\nHost: x\r\nIf-None-Match: \"\u{7f}\r\nConnection: close\r\n\r\n"
        ),
        format!("BREW {PRODUCTS}/crm-webhook-connector HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"),
        format!("GET {PRODUCTS}/{} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n", "%ff".repeat(300)),
        "GET * HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".to_owned(),
    ] {
        let mut stream = TcpStream::connect(addr).expect("connect");
        stream.set_read_timeout(Some(std::time::Duration::from_secs(5))).expect("timeout");
        stream.write_all(request.as_bytes()).expect("send");
        let mut answer = Vec::new();
        let _ = stream.read_to_end(&mut answer);
        let answer = String::from_utf8_lossy(&answer);
        let status: u16 = answer.split(' ').nth(1).and_then(|s| s.parse().ok()).unwrap_or(0);
        assert!((200..500).contains(&status), "{request:?} -> {answer}");
        let body = answer.split("\r\n\r\n").nth(1).unwrap_or_default();
        assert!(!body.contains('<'), "{request:?} echoed: {body}");
    }
}

/// A raw request's status and headers (lowercase names).
fn raw(request: &str) -> (u16, Vec<(String, String)>) {
    let addr = base().trim_start_matches("http://").parse().expect("an address");
    let answer = crate::support::exchange(addr, request);
    let head = answer.split("\r\n\r\n").next().unwrap_or_default();
    let headers = head
        .lines()
        .skip(1)
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_lowercase(), v.trim().to_owned()))
        .collect();
    (crate::support::status(&answer), headers)
}

#[test]
fn http_1_1_needs_exactly_one_valid_host() {
    let path = format!("{PRODUCTS}/crm-webhook-connector");
    assert_eq!(raw(&format!("GET {path} HTTP/1.1\r\nConnection: close\r\n\r\n")).0, 400);
    assert_eq!(raw(&format!("GET {path} HTTP/1.1\r\nHost: a\r\nHost: b\r\nConnection: close\r\n\r\n")).0, 400);
    assert_eq!(raw(&format!("GET {path} HTTP/1.1\r\nHost: user@x\r\nConnection: close\r\n\r\n")).0, 400);
    assert_eq!(raw(&format!("GET {path} HTTP/1.1\r\nHost: catalog.example:8080\r\nConnection: close\r\n\r\n")).0, 200);
    assert_eq!(raw(&format!("GET {path} HTTP/1.0\r\n\r\n")).0, 200, "HTTP/1.0 needs no Host");
}

#[test]
fn if_match_last_modified_and_if_modified_since() {
    let path = format!("{PRODUCTS}/crm-webhook-connector");
    let request = |extra: &str| format!("GET {path} HTTP/1.1\r\nHost: t\r\n{extra}Connection: close\r\n\r\n");
    let (status, headers) = raw(&request(""));
    assert_eq!(status, 200);
    let header = |name: &str| headers.iter().find(|(n, _)| n == name).map(|(_, v)| v.clone()).expect(name);
    let etag = header("etag");
    let last_modified = header("last-modified");
    assert!(last_modified.ends_with(" GMT"), "an IMF-fixdate: {last_modified}");

    assert_eq!(raw(&request(&format!("If-Match: {etag}\r\n"))).0, 200);
    assert_eq!(raw(&request("If-Match: *\r\n")).0, 200);
    assert_eq!(raw(&request("If-Match: \"other\"\r\n")).0, 412);
    assert_eq!(raw(&request(&format!("If-Match: W/{etag}\r\n"))).0, 412, "If-Match compares strongly");
    assert_eq!(raw(&request(&format!("If-Match: \"other\"\r\nIf-Match: {etag}\r\n"))).0, 200, "lines form one list");

    assert_eq!(raw(&request(&format!("If-Modified-Since: {last_modified}\r\n"))).0, 304);
    assert_eq!(raw(&request("If-Modified-Since: Thu, 01 Jan 1970 00:00:00 GMT\r\n")).0, 200);
    assert_eq!(raw(&request("If-Modified-Since: not a date\r\n")).0, 200, "an unparsable date is ignored");
    // If-None-Match wins over If-Modified-Since (RFC 9110 §13.2.2).
    assert_eq!(raw(&request(&format!("If-None-Match: \"other\"\r\nIf-Modified-Since: {last_modified}\r\n"))).0, 200);
}

#[test]
fn percent_encoded_unreserved_characters_are_the_same_url() {
    assert_eq!(get(&format!("{PRODUCTS}/crm-webhook-connec%74or")).status, 200);
    assert_eq!(get("/api/public/foundry/product%73/crm-webhook-connector").status, 200);
    assert_eq!(get(&format!("{PRODUCTS}/crm%2Dwebhook-connector")).status, 200);
    assert_eq!(get(&format!("{PRODUCTS}/crm-webhook-connector%2F")).status, 400);
    assert_eq!(get(&format!("{PRODUCTS}/crm-webhook%00-connector")).status, 400);
}

#[test]
fn compressed_representations_over_http() {
    let path = format!("{}{PRODUCTS}/eu-regulatory-status-signals", base());
    let identity = get(&format!("{PRODUCTS}/eu-regulatory-status-signals"));
    assert_eq!(identity.header("vary"), Some("Accept-Encoding"));
    assert_eq!(identity.header("content-encoding"), None);
    for (accept, coding) in [("br, gzip", "br"), ("gzip", "gzip"), ("gzip;q=0.5, br;q=0.1", "gzip")] {
        let r = reply(agent().get(&path).header("Accept-Encoding", accept).call());
        assert_eq!(r.status, 200);
        assert_eq!(r.header("content-encoding"), Some(coding), "{accept}");
        assert_eq!(r.header("vary"), Some("Accept-Encoding"));
        assert_eq!(r.header("content-length"), Some(r.body.len().to_string().as_str()));
        assert_ne!(r.header("etag"), identity.header("etag"), "{coding} has its own ETag");
        assert!(r.body.len() < identity.body.len() / 2, "{coding}: {} bytes", r.body.len());
        let etag = r.header("etag").expect("an ETag").to_owned();
        let again = reply(agent().get(&path).header("Accept-Encoding", accept).header("If-None-Match", &etag).call());
        assert_eq!((again.status, again.body.len()), (304, 0));
    }
    let refused = reply(agent().get(&path).header("Accept-Encoding", "identity;q=0").call());
    assert_eq!(refused.status, 406);
}
