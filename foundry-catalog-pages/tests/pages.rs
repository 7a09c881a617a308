//! The pages of the example catalog (snapshots, reviewed with `cargo
//! insta review`), and what a broken template says.

use std::path::Path;

use foundry_catalog::examples::MANIFESTS;
use foundry_catalog::product::{ProductManifest, ProductRecord};
use foundry_catalog_pages::{PageError, Pages, Site, json_ld, sitemap};

fn examples() -> Vec<ProductRecord> {
    MANIFESTS.iter().map(|(_, text)| ProductManifest::from_json(text).unwrap().build().unwrap()).collect()
}

/// What CI requires of each route's JSON-LD (one file, shared with
/// tests/pages/check.py and browser.mjs).
fn expectations() -> serde_json::Value {
    let path = concat!(env!("CARGO_MANIFEST_DIR"), "/../tests/pages/expectations.json");
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Whether JSON-LD has `prop` (`a.b`: b on any of a's items; `a|b`: either).
fn holds(ld: &serde_json::Value, prop: &str) -> bool {
    if prop.contains('|') {
        return prop.split('|').any(|p| holds(ld, p));
    }
    if let Some((outer, inner)) = prop.split_once('.') {
        let items = match &ld[outer] {
            serde_json::Value::Array(items) => items.clone(),
            serde_json::Value::Object(_) => vec![ld[outer].clone()],
            _ => Vec::new(),
        };
        return items.iter().any(|item| item.get(inner).is_some());
    }
    ld.get(prop).is_some()
}

/// Google's properties of the record's type (expectations.json, written
/// from Google's documentation) against the JSON-LD: each there unless
/// the record cannot fill it, and then not there.
fn judge_json_ld(ld: &serde_json::Value, record: &serde_json::Value) -> Vec<String> {
    let expectations = expectations();
    let kind = expectations["json_ld"][record["route"].as_str().unwrap()]["type"].as_str().unwrap().to_owned();
    let (google, not_held) = (&expectations["google"][&kind], &expectations["not_held"][&kind]);
    let mut problems = Vec::new();
    let listed =
        |key: &str| google[key].as_array().unwrap().iter().map(|p| p.as_str().unwrap().to_owned()).collect::<Vec<_>>();
    let ours = expectations["ours"][&kind].as_array().unwrap().iter().map(|p| p.as_str().unwrap().to_owned());
    for prop in listed("required").into_iter().chain(listed("recommended")).chain(ours) {
        let source = expectations["held_when"][&prop].as_str();
        if let Some(reason) = not_held.get(&prop) {
            if holds(ld, &prop) {
                problems.push(format!("holds {prop}, which the record does not ({reason})"));
            }
        } else if source.is_some_and(|key| record[key].as_array().is_some_and(Vec::is_empty)) {
            continue;
        } else if !holds(ld, &prop) {
            problems.push(format!("lacks {prop}"));
        }
    }
    if let Some([low, high]) =
        google["description_length"].as_array().map(|r| [r[0].as_u64().unwrap(), r[1].as_u64().unwrap()])
    {
        let length = ld["description"].as_str().map_or(0, |d| d.chars().count() as u64);
        if !(low..=high).contains(&length) {
            problems.push(format!("description of {length} characters, not {low} to {high}"));
        }
    }
    problems
}

fn site() -> Site {
    Site::new("https://catalog.example.com").unwrap()
}

#[test]
fn example_pages() {
    let pages = Pages::new(site());
    for record in examples() {
        let html = pages.product(&record).unwrap();
        insta::assert_snapshot!(format!("page-{}", record.slug), html);
        // The same record and templates give the same bytes.
        assert_eq!(pages.product(&record).unwrap(), html);
    }
    insta::assert_snapshot!("not-found", pages.not_found().unwrap());
    let cards: Vec<_> = examples().iter().filter_map(foundry_catalog_pages::list::Card::of).collect();
    let lists = pages.list_pages(&cards).unwrap();
    let paths: Vec<&str> = lists.iter().map(|list| list.path.as_str()).collect();
    assert_eq!(paths, ["/", "/datasets", "/actors", "/automation"]);
    insta::assert_snapshot!("home", lists[0].html);
    insta::assert_snapshot!("list-datasets", lists[1].html);
    assert_eq!(pages.list_pages(&cards).unwrap(), lists, "the same cards give the same bytes");
}

#[test]
fn example_sitemap_and_robots() {
    let site = site();
    let files = sitemap::files(&site, examples().iter().filter_map(sitemap::Entry::of));
    assert_eq!(files.len(), 1);
    insta::assert_snapshot!("sitemap", files[0].xml);
    insta::assert_snapshot!("robots", sitemap::robots(&site));
}

/// What the page says equals what the record says, read back from the
/// HTML as a reader would: not the template's own output compared with
/// itself.
/// An empty or over-long `seo.title` or `seo.description` is an error
/// naming the product and the field, not an empty `<title>` (invalid
/// HTML) or a cut search result; at the limits, a page.
#[test]
fn an_empty_or_over_long_seo_title_or_description_is_an_error() {
    let pages = Pages::new(site());
    let record = examples().remove(0);
    let with = |title: String, description: String| {
        let mut record = record.clone();
        record.seo.title = title;
        record.seo.description = description;
        pages.product(&record)
    };
    let (title, description) = (record.seo.title.clone(), record.seo.description.clone());
    let at_limits = with("é".repeat(Pages::MAX_SEO_TITLE), "é".repeat(Pages::MAX_SEO_DESCRIPTION));
    assert!(at_limits.is_ok(), "{at_limits:?}");
    for (title, description, field) in [
        (String::new(), description.clone(), "seo.title"),
        ("   ".to_owned(), description.clone(), "seo.title"),
        ("x".repeat(Pages::MAX_SEO_TITLE + 1), description.clone(), "seo.title"),
        (title.clone(), " ".to_owned(), "seo.description"),
        (title.clone(), "x".repeat(Pages::MAX_SEO_DESCRIPTION + 1), "seo.description"),
    ] {
        let error = with(title, description).expect_err(field).to_string();
        assert!(error.contains(field) && error.contains(record.slug.as_str()) && error.contains("hint:"), "{error}");
    }
}

/// A product not listed publicly (`is_visible: false`) keeps its page,
/// with `noindex`, and is out of the sitemap, as a `seo.noindex` one is.
#[test]
fn a_hidden_product_is_noindex_and_out_of_the_sitemap() {
    let pages = Pages::new(site());
    let mut records = examples();
    let hidden = records[0].slug.as_str().to_owned();
    records[0].is_visible = false;
    let html = pages.product(&records[0]).unwrap();
    assert!(html.contains(r#"<meta name="robots" content="noindex">"#), "{html}");
    let files = sitemap::files(&site(), records.iter().filter_map(sitemap::Entry::of));
    assert!(!files[0].xml.contains(&format!("/{hidden}<")), "{}", files[0].xml);
    for record in &records[1..] {
        assert!(files[0].xml.contains(&record.canonical_path()), "{}", record.slug);
    }
}

#[test]
fn a_page_holds_its_record() {
    let pages = Pages::new(site());
    for mut record in examples() {
        record.seo.noindex = record.slug.as_str() == "crm-webhook-connector";
        record.seo.title = "Fish & <Chips> \"quoted\"".to_owned();
        let html = pages.product(&record).unwrap();
        assert!(html.contains("<title>Fish &amp; &lt;Chips&gt; &quot;quoted&quot;</title>"), "{html}");
        assert_eq!(html.contains(r#"<meta name="robots" content="noindex">"#), record.seo.noindex);
        let canonical =
            format!(r#"<link rel="canonical" href="https://catalog.example.com{}">"#, record.canonical_path());
        assert!(html.contains(&canonical));
        // The JSON-LD parses and is the object json_ld::object makes.
        let start = html.find(r#"<script type="application/ld+json">"#).unwrap() + 35;
        let end = start + html[start..].find("</script>").unwrap();
        let parsed: serde_json::Value = serde_json::from_str(&html[start..end]).unwrap();
        assert_eq!(parsed["name"], record.title.as_str());
        assert_eq!(parsed["@type"], json_ld::schema_type(record.route));
        let expected = &expectations()["json_ld"][record.route.as_str()];
        assert_eq!(parsed["@type"], expected["type"]);
        let problems = judge_json_ld(&parsed, &serde_json::to_value(&record).unwrap());
        assert!(problems.is_empty(), "{}: {problems:?}", record.slug);
        // The update's day as a reader writes it, the timestamp kept for machines.
        let stamp = record.last_updated_at.as_str();
        let months = [
            "January",
            "February",
            "March",
            "April",
            "May",
            "June",
            "July",
            "August",
            "September",
            "October",
            "November",
            "December",
        ];
        let (year, month, day) =
            (&stamp[..4], stamp[5..7].parse::<usize>().unwrap(), stamp[8..10].parse::<u8>().unwrap());
        let updated = format!(r#"<time datetime="{stamp}">{day} {} {year}</time>"#, months[month - 1]);
        assert!(html.contains(&updated), "{updated}");
        // Each listing's link names its marketplace once: "View on Data
        // Exchange", not "View on Data Exchange on Data Exchange".
        for listing in &record.marketplaces {
            let link = format!("{}</a>", listing.cta_label);
            let named = format!("{link} on {}", listing.label);
            assert_eq!(html.contains(&named), !listing.cta_label.contains(listing.label.as_str()), "{named}");
            assert!(html.contains(&link), "{link}");
        }
        // The primary call to action comes first.
        if let Some(primary) = record.primary_cta() {
            let first_link = html.find("<a class=\"button\" href=\"").unwrap() + 24;
            assert!(html[first_link..].starts_with(&primary.url));
        }
    }
}

#[test]
fn a_value_cannot_break_out_of_the_page() {
    let pages = Pages::new(site());
    let mut record = examples().remove(0);
    record.title = "</script><script>alert(1)</script>".to_owned();
    record.summary = "<img src=x onerror=alert(1)>".to_owned();
    let html = pages.product(&record).unwrap();
    assert!(!html.contains("<script>alert(1)"));
    assert!(!html.contains("<img src=x"));
    assert_eq!(html.matches("</script>").count(), 1);
}

fn folder(files: &[(&str, &str)]) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    for (name, text) in files {
        std::fs::write(dir.path().join(name), text).unwrap();
    }
    dir
}

fn template_error(dir: &Path) -> (String, usize, String) {
    let pages = Pages::from_dir(site(), dir);
    let error = match pages {
        Err(e) => e,
        Ok(pages) => pages.product(&examples()[0]).unwrap_err(),
    };
    let text = error.to_string();
    match error {
        PageError::Template { file, line, .. } => (file, line, text),
        other => panic!("not a template error: {other}"),
    }
}

#[test]
fn a_broken_template_names_its_file_line_and_a_hint() {
    let dir = folder(&[(
        "product.html",
        "{% extends \"base.html\" %}\n{% block main %}\n{% if product.title %}\n{% endblock %}\n",
    )]);
    let (file, line, text) = template_error(dir.path());
    assert_eq!(file, dir.path().join("product.html").display().to_string());
    assert_eq!(line, 4, "{text}");
    assert!(text.contains("hint: check that every {% … %} tag is closed"), "{text}");

    let dir = folder(&[(
        "product.html",
        "{% extends \"base.html\" %}\n{% block main %}\n<p>{{ product.no_such_key }}</p>\n{% endblock %}\n",
    )]);
    let (file, line, text) = template_error(dir.path());
    assert!(file.ends_with("product.html") && line == 3, "{text}");
    assert!(
        text.contains("undefined") && text.contains("rendering the page of") && text.contains("docs/pages.md"),
        "{text}"
    );
}

/// A template that would loop 10^10 times stops at its fuel, with an
/// error naming it and a hint, within seconds; every default page takes
/// far less than the fuel.
#[test]
fn a_template_that_loops_for_ever_runs_out_of_fuel() {
    let dir = folder(&[(
        "product.html",
        "{% extends \"base.html\" %}\n{% block main %}\n{% for a in range(100000) %}{% for b in range(100000) %}{% endfor %}{% endfor %}\n{% endblock %}\n",
    )]);
    let started = std::time::Instant::now();
    let (file, line, text) = template_error(dir.path());
    assert!(started.elapsed() < std::time::Duration::from_secs(30), "{:?}", started.elapsed());
    assert!(file.ends_with("product.html") && line == 3, "{text}");
    assert!(text.contains("ran out of fuel") && text.contains("loops nested in loops"), "{text}");
    let pages = Pages::new(site());
    for record in examples() {
        pages.product(&record).expect("a default page is far within its fuel");
    }
}

#[test]
fn a_folder_replaces_the_defaults_it_names() {
    let dir = folder(&[("style.css", "body { color: #123456; }"), (".swap", "ignored")]);
    let pages = Pages::from_dir(site(), dir.path()).unwrap();
    let html = pages.product(&examples()[0]).unwrap();
    assert!(html.contains("body { color: #123456; }") && html.contains("<h1>"));
    assert_ne!(pages.digest(), Pages::new(site()).digest());
    assert_ne!(Pages::new(Site::unknown()).digest(), Pages::new(site()).digest());
}

#[test]
fn a_templates_folder_is_read_as_an_attacker_would_write_it() {
    let target = folder(&[("secret.html", "secret")]);
    let dir = folder(&[]);
    std::os::unix::fs::symlink(target.path().join("secret.html"), dir.path().join("product.html")).unwrap();
    let error = Pages::from_dir(site(), dir.path()).unwrap_err().to_string();
    assert!(error.contains("product.html: not a regular file"), "{error}");

    let dir = folder(&[]);
    let made = std::process::Command::new("mkfifo").arg(dir.path().join("product.html")).status().unwrap();
    assert!(made.success());
    let error = Pages::from_dir(site(), dir.path()).unwrap_err().to_string();
    assert!(error.contains("product.html: not a regular file"), "a FIFO is refused, not waited on: {error}");

    let dir = folder(&[("notes.txt", "")]);
    assert!(Pages::from_dir(site(), dir.path()).unwrap_err().to_string().contains("holds .html and .css files only"));

    let dir = folder(&[]);
    std::fs::write(dir.path().join("big.html"), vec![b'a'; 1024 * 1024 + 1]).unwrap();
    assert!(Pages::from_dir(site(), dir.path()).unwrap_err().to_string().contains("larger than"));

    let dir = folder(&[]);
    std::fs::write(dir.path().join("bad.html"), [0xff, 0xfe]).unwrap();
    assert!(Pages::from_dir(site(), dir.path()).unwrap_err().to_string().contains("not UTF-8"));
}

#[test]
fn without_a_site_links_are_paths() {
    let pages = Pages::new(Site::unknown());
    let record = &examples()[0];
    let html = pages.product(record).unwrap();
    assert!(html.contains(&format!(r#"<link rel="canonical" href="{}">"#, record.canonical_path())));
}

/// A route's products are split into pages of `PAGE_SIZE` in path order:
/// each product on exactly one page, each page linking the one before and
/// after, and the pages past the first at `/<route>/page/<n>`; the home
/// page shows the first few of each route.
#[test]
fn list_pages_show_every_product_once_in_pages_of_fifty() {
    use foundry_catalog_pages::list::{Card, HOME_SIZE, PAGE_SIZE};
    let pages = Pages::new(site());
    let total = 2 * PAGE_SIZE + 7;
    let cards: Vec<Card> = (0..total)
        .rev()
        .map(|n| Card {
            path: format!("/actors/a-{n:04}"),
            title: format!("Actor {n:04}"),
            summary: format!("Summary {n}"),
            lastmod: format!("2026-01-{:02}T00:00:00+00:00", n % 28 + 1),
        })
        .collect();
    let lists = pages.list_pages(&cards).unwrap();
    let actors: Vec<_> = lists.iter().filter(|l| l.path.starts_with("/actors")).collect();
    let paths: Vec<&str> = actors.iter().map(|l| l.path.as_str()).collect();
    assert_eq!(paths, ["/actors", "/actors/page/2", "/actors/page/3"]);
    let mut seen = Vec::new();
    for (i, list) in actors.iter().enumerate() {
        let titles: Vec<usize> =
            list.html.match_indices("\">Actor ").map(|(at, _)| list.html[at + 8..at + 12].parse().unwrap()).collect();
        assert_eq!(titles.len(), if i < 2 { PAGE_SIZE } else { total - 2 * PAGE_SIZE }, "{}", list.path);
        seen.extend(titles);
        assert_eq!(list.html.contains("rel=\"prev\""), i > 0, "{}", list.path);
        assert_eq!(list.html.contains("rel=\"next\""), i < 2, "{}", list.path);
    }
    assert_eq!(seen, (0..total).collect::<Vec<_>>(), "each product once, in path order");
    assert!(actors[1].html.contains(r#"<link rel="canonical" href="https://catalog.example.com/actors/page/2">"#));
    let home = &lists[0];
    assert_eq!(home.path, "/");
    assert_eq!(home.html.matches("\">Actor ").count(), HOME_SIZE);
    assert!(home.html.contains(&format!("All {total} actors")));
    // A route with no product still has its page, kept from search engines.
    let datasets = lists.iter().find(|l| l.path == "/datasets").unwrap();
    assert!(datasets.html.contains(r#"<meta name="robots" content="noindex">"#));
}
