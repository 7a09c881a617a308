//! Every behaviour of `GET /api/public/foundry/products/{slug}`: the
//! shared table of cases over raw sockets, and the compressed
//! representations with a real client (ureq).

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
}

fn reply(response: Result<ureq::http::Response<ureq::Body>, ureq::Error>) -> Reply {
    let mut response = response.expect("the server answers");
    let body = response.body_mut().read_to_vec().expect("a body");
    Reply { status: response.status().as_u16(), headers: response.headers().clone(), body }
}

fn get(path: &str) -> Reply {
    reply(agent().get(format!("{}{path}", base())).call())
}

/// The table every server of the product endpoint passes
/// (`tests/http-cases/cases.json`): the same cases `examples/axum-app`
/// runs against its mounted `CatalogService`.
#[test]
fn the_shared_http_cases() {
    foundry_catalog_http_cases::run(base().trim_start_matches("http://").parse().expect("an address"), "");
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
