//! Product pages over real sockets: the compiled-in catalog's and a
//! folder's pages at their `canonical_path`, the sitemap and robots.txt,
//! the not-found page, `--no-pages`, and templates that break at start
//! or on reload.

use std::net::TcpStream;

use foundry_catalog_pages::Site;
use foundry_catalog_server::{CatalogSource, Config, PageOptions, ServeError};

use crate::support::{TestServer, catalog_copy, eventually, exchange, get, representations, send, sha256_tag};

const SITE: &str = "https://catalog.example.com";
const PAGES: [&str; 3] =
    ["/datasets/eu-regulatory-status-signals", "/actors/lead-signal-extractor", "/automation/crm-webhook-connector"];

fn with_site(config: &mut Config) {
    config.pages = PageOptions::default().site_url(Site::new(SITE).expect("a site"));
}

#[test]
fn the_compiled_in_catalog_serves_every_page_the_sitemap_and_robots() {
    let server = TestServer::start(with_site);
    let mut stream = TcpStream::connect(server.addr).expect("connect");
    for path in PAGES {
        let reps = representations(&mut stream, path);
        for (coding, r) in &reps {
            assert_eq!(r.header("content-type"), Some("text/html; charset=utf-8"), "{path} {coding}");
            assert_eq!(r.header("etag"), Some(sha256_tag(&r.body).as_str()), "{path} {coding}");
            assert_eq!(r.header("vary"), Some("Accept-Encoding"));
            assert!(r.header("last-modified").is_some());
        }
        let page = reps[0].1.text().into_owned();
        assert!(page.contains(&format!(r#"<link rel="canonical" href="{SITE}{path}">"#)), "{page}");
        // Revalidation and HEAD, as for the JSON body.
        let etag = reps[0].1.header("etag").expect("an ETag").to_owned();
        let cached = send(&mut stream, &format!("GET {path} HTTP/1.1\r\nHost: t\r\nIf-None-Match: {etag}\r\n\r\n"));
        assert_eq!((cached.status, cached.body.len()), (304, 0));
        let head = send(&mut stream, &format!("HEAD {path} HTTP/1.1\r\nHost: t\r\n\r\n"));
        assert_eq!(
            (head.status, head.header("content-length")),
            (200, Some(reps[0].1.body.len().to_string().as_str()))
        );
        let post = send(&mut stream, &format!("POST {path} HTTP/1.1\r\nHost: t\r\nContent-Length: 0\r\n\r\n"));
        assert_eq!((post.status, post.header("allow")), (405, Some("GET, HEAD")));
    }
    let sitemap = exchange(server.addr, &get("/sitemap.xml"));
    assert_eq!((sitemap.status, sitemap.header("content-type")), (200, Some("application/xml")));
    for path in PAGES {
        assert_eq!(sitemap.text().matches(&format!("<loc>{SITE}{path}</loc>")).count(), 1, "{path}");
    }
    let robots = exchange(server.addr, &get("/robots.txt"));
    assert!(robots.text().contains(&format!("Sitemap: {SITE}/sitemap.xml")), "{}", robots.text());
    let missing = exchange(server.addr, &get("/datasets/no-such-product"));
    assert_eq!((missing.status, missing.header("content-type")), (404, Some("text/html; charset=utf-8")));
    assert!(missing.text().contains("<h1>Page not found</h1>"));
    // The search page: the query read from the request target, each word
    // of it (percent-encoded or `+`) matched; CSP lets its form be sent.
    let search = exchange(server.addr, &get("/search?q=Lead+signal%20EXTRACTOR&utm=x"));
    assert_eq!((search.status, search.header("content-type")), (200, Some("text/html; charset=utf-8")));
    assert!(search.text().contains(&format!(r#"<a href="{SITE}/actors/lead-signal-extractor""#)), "{}", search.text());
    assert!(search.text().contains(r#"value="Lead signal EXTRACTOR""#));
    assert!(search.header("content-security-policy").is_some_and(|csp| csp.contains("form-action 'self'")));
    let beyond = exchange(server.addr, &get("/search?q=lead&page=2"));
    assert_eq!(beyond.status, 404);
    // The product endpoint is as it was.
    let json = exchange(server.addr, &get("/api/public/foundry/products/lead-signal-extractor"));
    assert_eq!((json.status, json.header("content-type")), (200, Some("application/json")));
}

#[test]
fn no_pages_serves_none_and_keeps_the_endpoint() {
    let server = TestServer::start(|config| config.pages = PageOptions::default().no_pages(true));
    for path in [PAGES[0], "/sitemap.xml", "/robots.txt"] {
        let reply = exchange(server.addr, &get(path));
        assert_eq!((reply.status, reply.header("content-type")), (404, Some("application/json")), "{path}");
    }
    assert_eq!(exchange(server.addr, &get("/api/public/foundry/products/lead-signal-extractor")).status, 200);
}

#[test]
fn a_broken_template_stops_the_start_and_a_broken_reload_keeps_the_pages() {
    let dir = catalog_copy("pages-templates");
    let templates = dir.join("templates");
    std::fs::create_dir_all(&templates).expect("templates");
    // A manifest folder reads `*.json` only: the templates folder inside it is not a manifest.
    std::fs::write(templates.join("not_found.html"), "<p>Gone</p>\n{{ no_such_thing.deeper }}\n").expect("write");
    let mut config =
        Config::default().addr(std::net::SocketAddr::from(([127, 0, 0, 1], 0))).source(CatalogSource::Dir(dir.clone()));
    config.pages = PageOptions::default().templates(templates.clone());
    let runtime = tokio::runtime::Builder::new_current_thread().enable_all().build().expect("runtime");
    let Err(ServeError::Catalog(errors)) = runtime.block_on(foundry_catalog_server::Server::bind(config)) else {
        panic!("a broken template starts a server")
    };
    let message = errors.to_string();
    assert!(message.contains("not_found.html:2:") && message.contains("hint:"), "{message}");

    std::fs::write(
        templates.join("not_found.html"),
        "{% extends \"base.html\" %}{% block main %}<h1>Gone</h1>{% endblock %}\n",
    )
    .expect("write");
    let server = TestServer::start(|c| {
        c.source = CatalogSource::Dir(dir.clone());
        c.pages = PageOptions::default().templates(templates.clone());
    });
    let missing = exchange(server.addr, &get("/datasets/none"));
    assert!(missing.text().contains("<h1>Gone</h1>"), "{}", missing.text());
    std::fs::write(templates.join("product.html"), "{% block").expect("break a template");
    server.handle.reload();
    eventually("the broken reload is counted", || server.metric("foundry_reloads_total{result=\"failed\"}") == 1);
    assert_eq!(exchange(server.addr, &get(PAGES[0])).status, 200, "the last good pages still serve");
    assert!(exchange(server.addr, &get("/datasets/none")).text().contains("<h1>Gone</h1>"));
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn watch_reloads_when_a_template_changes() {
    let dir = catalog_copy("pages-watch");
    let templates = dir.join("templates");
    std::fs::create_dir_all(&templates).expect("templates");
    let not_found =
        |heading: &str| format!("{{% extends \"base.html\" %}}{{% block main %}}<h1>{heading}</h1>{{% endblock %}}\n");
    std::fs::write(templates.join("not_found.html"), not_found("Gone")).expect("write");
    let server = TestServer::start(|c| {
        c.source = CatalogSource::Dir(dir.clone());
        c.pages = PageOptions::default().templates(templates.clone());
        c.watch = true;
        c.watch_interval = std::time::Duration::from_millis(50);
    });
    assert!(exchange(server.addr, &get("/nothing")).text().contains("<h1>Gone</h1>"));
    std::thread::sleep(std::time::Duration::from_millis(120));
    std::fs::write(templates.join("not_found.html"), not_found("Moved away")).expect("write");
    eventually("the template edit is served", || {
        exchange(server.addr, &get("/nothing")).text().contains("<h1>Moved away</h1>")
    });
    let _ = std::fs::remove_dir_all(&dir);
}

/// A page asked for with a trailing slash or as the static site's file
/// moves, for good, to its canonical path (one URL a page, as crawlers
/// want); anything that is not a page's other form stays a 404, and no
/// redirect leaves the site.
#[test]
fn a_page_in_another_form_moves_to_its_canonical_path() {
    let server = TestServer::start(with_site);
    let mut stream = TcpStream::connect(server.addr).expect("connect");
    for path in PAGES {
        for other in [format!("{path}/"), format!("{path}//"), format!("{path}.html")] {
            for method in ["GET", "HEAD"] {
                let reply = send(&mut stream, &format!("{method} {other} HTTP/1.1\r\nHost: t\r\n\r\n"));
                assert_eq!((reply.status, reply.header("location")), (301, Some(path)), "{method} {other}");
                assert!(reply.body.is_empty(), "{method} {other}");
            }
        }
    }
    // A list page's other forms too; the home page's file is /index.html.
    for (other, path) in [("/datasets/", "/datasets"), ("/actors.html", "/actors"), ("/index.html", "/")] {
        let reply = exchange(server.addr, &get(other));
        assert_eq!((reply.status, reply.header("location")), (301, Some(path)), "{other}");
    }
    for other in [
        "/datasets/no-such-product/",
        "/datasets/no-such-product.html",
        "//evil.example/",
        "/datasets/page/2/",
        "/.html",
    ] {
        let reply = exchange(server.addr, &get(other));
        assert_eq!((reply.status, reply.header("location")), (404, None), "{other}");
    }
}
