//! The HTTP behaviour of `GET /api/public/foundry/products/{slug}` as a
//! table of cases (`cases.json`: a raw request, the status, headers and
//! body expected), and [`run`], which sends each one to a server over
//! loopback and reports every case that does not hold. The project's
//! server and `examples/axum-app` pass the same table, so their HTTP rules
//! cannot drift apart.
//!
//! A case's request is sent as written on a connection of its own, after
//! these placeholders are filled in:
//!
//! | placeholder | value |
//! |---|---|
//! | `{products}` | the mount prefix, then `/api/public/foundry/products` |
//! | `{etag:SLUG:CODING}` | the `ETag` the server sends for SLUG with `Accept-Encoding: CODING` |
//! | `{weak_etag:SLUG:CODING}` | the same, as a weak validator (`W/"…"`) |
//! | `{last_modified:SLUG}` | the `Last-Modified` the server sends for SLUG |
//!
//! Expected header values take the same placeholders; `null` means the
//! header is absent. `status` is one code or a list of acceptable ones.
//! `body` is `"product"` (a conforming product record whose `data.slug`
//! is the slug requested), `"empty"`, `"nonempty"` or `{"error": CODE}`
//! (the fixed error body with that code). Whatever the case, an error
//! body is `{"error": {"status", "code", "message"}}` with the response's
//! status, and no uncompressed body echoes a `<` from the request.
//!
//! [`client`] is the raw HTTP/1.1 client the cases are sent with, and the
//! one every other test that speaks raw HTTP uses.

use std::collections::BTreeMap;
use std::net::SocketAddr;

use serde::Deserialize;

pub mod client;

use client::{Response, exchange};

/// The table.
pub const CASES: &str = include_str!("../cases.json");

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Case {
    name: String,
    request: String,
    status: Statuses,
    #[serde(default)]
    headers: BTreeMap<String, Option<String>>,
    #[serde(default)]
    body: Option<Body>,
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Statuses {
    One(u16),
    Any(Vec<u16>),
}

#[derive(Debug, Deserialize)]
#[serde(untagged)]
enum Body {
    Kind(String),
    Error { error: String },
}

/// Sends every case to the server at `addr`, where the product endpoint
/// is mounted under `prefix` (`""` at the root, `"/catalog"` under it),
/// and panics listing every case that does not hold.
pub fn run(addr: SocketAddr, prefix: &str) {
    let cases: Vec<Case> = serde_json::from_str(CASES).expect("cases.json is a list of cases");
    let products = format!("{prefix}/api/public/foundry/products");
    let mut failures = Vec::new();
    for case in &cases {
        if let Err(problem) = check(addr, &products, case) {
            failures.push(format!("{}: {problem}", case.name));
        }
    }
    assert!(failures.is_empty(), "{} of {} HTTP cases failed:\n{}", failures.len(), cases.len(), failures.join("\n"));
}

fn check(addr: SocketAddr, products: &str, case: &Case) -> Result<(), String> {
    let request = fill(addr, products, &case.request)?;
    let response = exchange(addr, &request)?;
    let statuses = match &case.status {
        Statuses::One(status) => vec![*status],
        Statuses::Any(statuses) => statuses.clone(),
    };
    if !statuses.contains(&response.status) {
        return Err(format!("status {}, expected {statuses:?}", response.status));
    }
    for (name, expected) in &case.headers {
        let expected = expected.as_deref().map(|value| fill(addr, products, value)).transpose()?;
        let got = response.header(name);
        if got != expected.as_deref() {
            return Err(format!("header {name}: {got:?}, expected {expected:?}"));
        }
    }
    if response.header("content-encoding").is_none() && response.body.contains(&b'<') {
        return Err("the body echoes the request".to_owned());
    }
    if response.status >= 400 && !response.body.is_empty() {
        error_code(&response)?;
    }
    let slug = request.split_whitespace().nth(1).and_then(|target| target.rsplit('/').next()).unwrap_or_default();
    match &case.body {
        None => Ok(()),
        Some(Body::Kind(kind)) => match kind.as_str() {
            "empty" if response.body.is_empty() => Ok(()),
            "nonempty" if !response.body.is_empty() => Ok(()),
            "product" => product(&response, slug),
            _ => Err(format!("the body is not {kind}: {} bytes", response.body.len())),
        },
        Some(Body::Error { error }) => match error_code(&response)? {
            code if &code == error => Ok(()),
            code => Err(format!("error code {code}, expected {error}")),
        },
    }
}

/// The code of a fixed error body, checked whole.
fn error_code(response: &Response) -> Result<String, String> {
    let body: serde_json::Value =
        serde_json::from_slice(&response.body).map_err(|e| format!("the error body is not JSON: {e}"))?;
    let error = &body["error"];
    if error["status"] != response.status
        || !error["message"].is_string()
        || body.as_object().map(|o| o.len()) != Some(1)
    {
        return Err(format!("not the error body: {body}"));
    }
    error["code"].as_str().map(str::to_owned).ok_or_else(|| format!("no error code: {body}"))
}

/// A conforming product record for `slug`, with its length as sent.
fn product(response: &Response, slug: &str) -> Result<(), String> {
    let body: serde_json::Value =
        serde_json::from_slice(&response.body).map_err(|e| format!("the product body is not JSON: {e}"))?;
    let violations = foundry_catalog::conformance::validate(&body);
    if !violations.is_empty() {
        return Err(format!("the product breaks the spec: {violations:?}"));
    }
    if body["data"]["slug"] != slug {
        return Err(format!("the product is {}, not {slug}", body["data"]["slug"]));
    }
    match response.header("content-length").and_then(|l| l.parse::<usize>().ok()) {
        Some(length) if length == response.body.len() => Ok(()),
        length => Err(format!("Content-Length {length:?} for {} bytes", response.body.len())),
    }
}

/// `text` with its placeholders filled in (the validators asked of the
/// server over the wire).
fn fill(addr: SocketAddr, products: &str, text: &str) -> Result<String, String> {
    let mut out = text.replace("{products}", products);
    while let Some(start) = out.find('{') {
        let Some(end) = out[start..].find('}').map(|end| start + end) else { break };
        let parts: Vec<&str> = out[start + 1..end].split(':').collect();
        let value = match parts[..] {
            ["etag", slug, coding] => validator(addr, products, slug, coding, "etag")?,
            ["weak_etag", slug, coding] => format!("W/{}", validator(addr, products, slug, coding, "etag")?),
            ["last_modified", slug] => validator(addr, products, slug, "identity", "last-modified")?,
            _ => break,
        };
        out.replace_range(start..=end, &value);
    }
    Ok(out)
}

/// Header `name` of the response to a GET of `slug` with `Accept-Encoding: coding`.
fn validator(addr: SocketAddr, products: &str, slug: &str, coding: &str, name: &str) -> Result<String, String> {
    let request = format!("GET {products}/{slug} HTTP/1.1\r\nHost: t\r\nAccept-Encoding: {coding}\r\n\r\n");
    let response = exchange(addr, &request)?;
    response.header(name).map(str::to_owned).ok_or_else(|| format!("no {name} for {slug} ({coding})"))
}
