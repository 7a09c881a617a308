//! The pages of the example catalog (snapshots, reviewed with `cargo
//! insta review`), and what a broken template says.

use std::path::Path;

use foundry_catalog::examples::MANIFESTS;
use foundry_catalog::product::{ProductManifest, ProductRecord, Taxonomy, term_slug};
use foundry_catalog_pages::list::{Card, Cards};
use foundry_catalog_pages::{Language, PageError, Pages, Site, SiteName, json_ld, sitemap};

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
    let cards = Cards::new(examples().iter().filter_map(Card::of));
    for record in examples() {
        let html = pages.product(&record, &cards).unwrap();
        insta::assert_snapshot!(format!("page-{}", record.slug), html);
        // The same record and templates give the same bytes.
        assert_eq!(pages.product(&record, &cards).unwrap(), html);
    }
    insta::assert_snapshot!("not-found", pages.not_found().unwrap());
    let lists = pages.list_pages(&cards).unwrap();
    let paths: Vec<&str> = lists.iter().map(|list| list.path.as_str()).collect();
    assert_eq!(paths[..4], ["/", "/datasets", "/actors", "/automation"]);
    // Then each taxonomy's index and its terms' pages, from the records'
    // values: the three examples share none but `JSON`, `published` and
    // `Data Exchange`.
    let mut facets = Vec::new();
    for taxonomy in Taxonomy::ALL {
        let mut terms = std::collections::BTreeSet::new();
        for record in examples() {
            let values: Vec<String> = match taxonomy {
                Taxonomy::UseCases => record.use_cases.clone(),
                Taxonomy::Audiences => record.target_audiences.clone(),
                Taxonomy::Formats => record.output_formats.clone(),
                Taxonomy::Marketplaces => record.marketplace_availability.iter().map(|e| e.key.clone()).collect(),
                Taxonomy::Availability => {
                    record.marketplace_availability.iter().map(|e| e.status.as_str().to_owned()).collect()
                }
            };
            terms.extend(values.iter().map(|value| taxonomy.term_path(&term_slug(value), 1)));
        }
        facets.push(taxonomy.index_path(1));
        facets.extend(terms);
    }
    assert_eq!(paths[4..], facets);
    insta::assert_snapshot!("home", lists[0].html.as_deref().unwrap());
    insta::assert_snapshot!("list-datasets", lists[1].html.as_deref().unwrap());
    let page = |path: &str| lists.iter().find(|list| list.path == path).and_then(|list| list.html.as_deref()).unwrap();
    insta::assert_snapshot!("terms-marketplaces", page("/marketplaces"));
    insta::assert_snapshot!("term-formats-json", page("/formats/json"));
    assert_eq!(pages.list_pages(&cards).unwrap(), lists, "the same cards give the same bytes");
    insta::assert_snapshot!("feed", foundry_catalog_pages::feed::atom(&site(), &cards).unwrap());
}

#[test]
fn example_sitemap_and_robots() {
    let site = site();
    let files = sitemap::files(&site, examples().iter().filter_map(sitemap::Entry::of));
    assert_eq!(files.len(), 1);
    insta::assert_snapshot!("sitemap", files[0].xml);
    insta::assert_snapshot!("robots", sitemap::robots(&site));
}

/// Past the protocol's 50,000 URLs a file, the sitemap is an index
/// naming files each within them, which list every path once, in order,
/// the index giving each file's newest `lastmod`: read back from the XML,
/// not from the code's own plan. Made one file at a time
/// ([`sitemap::Sitemap`]), the files are those made at once.
#[test]
fn a_sitemap_past_the_protocols_limits_is_an_index_of_files_within_them() {
    let site = site();
    let locs = |xml: &str, tag: &str| -> Vec<String> {
        xml.split(&format!("<{tag}>")).skip(1).map(|rest| rest.split_once('<').unwrap().0.to_owned()).collect()
    };
    let check = |entries: &[sitemap::Entry], files_expected: usize| -> Vec<sitemap::File> {
        let mut paths: Vec<String> = entries.iter().map(|e| e.path.clone()).collect();
        paths.sort();
        paths.dedup();
        let files: Vec<sitemap::File> =
            sitemap::Sitemap::new(&site, entries.iter().map(|e| (e.path.as_str(), e.lastmod.as_str())))
                .files()
                .collect();
        assert_eq!(files.len(), files_expected + 1, "an index and its files");
        assert_eq!(files[0].path, sitemap::PATH);
        assert!(files[0].xml.contains("<sitemapindex"), "{}", &files[0].xml[..200]);
        let named = locs(&files[0].xml, "loc");
        let newest = locs(&files[0].xml, "lastmod");
        let mut listed = Vec::new();
        for (n, file) in files[1..].iter().enumerate() {
            assert_eq!(file.path, format!("/sitemap-{}.xml", n + 1));
            assert_eq!(named[n], site.url(&file.path));
            assert!(file.xml.starts_with("<?xml") && file.xml.contains("<urlset"));
            let urls = locs(&file.xml, "loc");
            assert!(urls.len() <= sitemap::MAX_URLS, "{} URLs in {}", urls.len(), file.path);
            assert!(file.xml.len() <= sitemap::MAX_BYTES, "{} bytes in {}", file.xml.len(), file.path);
            let lastmods = locs(&file.xml, "lastmod");
            assert_eq!(&newest[n], lastmods.iter().max().unwrap(), "{}", file.path);
            listed.extend(urls);
        }
        let expected: Vec<String> = paths.iter().map(|path| site.url(path)).collect();
        assert_eq!(listed, expected, "every path once, in order");
        files
    };
    let entry =
        |path: String, n: usize| sitemap::Entry { path, lastmod: format!("2026-{:02}-01T00:00:00+00:00", n % 12 + 1) };
    // By count: 120,001 paths (one given twice) in three files.
    let mut entries: Vec<sitemap::Entry> = (0..120_001).map(|n| entry(format!("/datasets/p-{n:06}"), n)).collect();
    entries.push(entry("/datasets/p-000007".to_owned(), 3));
    let files = check(&entries, 3);
    assert_eq!(sitemap::files(&site, entries), files, "made at once, the same files");
    // By bytes: `sitemap::tests::no_file_passes_the_byte_limit_with_its_frame`.
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
        pages.product(&record, &Cards::default())
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
    let html = pages.product(&records[0], &Cards::default()).unwrap();
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
        let html = pages.product(&record, &Cards::default()).unwrap();
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
        for listing in record.marketplaces.iter().filter(|l| l.public_safe) {
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
    let html = pages.product(&record, &Cards::default()).unwrap();
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
        Ok(pages) => pages.product(&examples()[0], &Cards::default()).unwrap_err(),
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
        pages.product(&record, &Cards::default()).expect("a default page is far within its fuel");
    }
}

#[test]
fn a_folder_replaces_the_defaults_it_names() {
    let dir = folder(&[("style.css", "body { color: #123456; }"), (".swap", "ignored")]);
    let pages = Pages::from_dir(site(), dir.path()).unwrap();
    let html = pages.product(&examples()[0], &Cards::default()).unwrap();
    assert!(html.contains("body { color: #123456; }") && html.contains("<h1 dir=\"auto\">"));
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
    let html = pages.product(record, &Cards::default()).unwrap();
    assert!(html.contains(&format!(r#"<link rel="canonical" href="{}">"#, record.canonical_path())));
}

/// `n` actor cards, titled `Actor 0000` on, given in reverse path order.
fn actors(n: usize) -> Vec<Card> {
    (0..n)
        .rev()
        .map(|n| Card {
            path: format!("/actors/a-{n:04}"),
            title: format!("Actor {n:04}"),
            summary: format!("Summary {n}"),
            lastmod: format!("2026-01-{:02}T00:00:00+00:00", n % 28 + 1),
            terms: Vec::new(),
        })
        .collect()
}

/// Planned against the cards an in-place edit changed, the list pages are
/// the ones planned against the previous cards' pages; told of another
/// catalog's cards, the plans are made the slow way, not trusted.
#[test]
fn list_plans_in_place_are_the_plans_compared_with_the_previous_pages() {
    use foundry_catalog_pages::list::PAGE_SIZE;
    let pages = Pages::new(site());
    let before = Cards::new(actors(3 * PAGE_SIZE));
    let mut edited = actors(3 * PAGE_SIZE);
    edited[10].title = "Retitled".to_owned();
    edited[70].lastmod = "2026-02-28T00:00:00+00:00".to_owned();
    let now = Cards::new(edited);
    let plans = |plans: Vec<foundry_catalog_pages::ListPlan<'_>>| -> Vec<(String, bool, bool)> {
        plans.into_iter().map(|plan| (plan.path, plan.changed, plan.same_cards)).collect()
    };
    let compared = plans(pages.list_plans_since(&now, Some(&before)));
    let in_place = now.in_place(&before).expect("in place");
    assert_eq!(plans(pages.list_plans_in_place(&now, &before, &in_place)), compared);
    assert!(compared.iter().any(|(_, changed, _)| *changed) && compared.iter().any(|(_, _, same)| !same));
    // Another catalog's: its addresses say nothing of these cards.
    let copy = now.clone();
    let other = copy.in_place(&before).expect("in place");
    assert_eq!(plans(pages.list_plans_in_place(&now, &before, &other)), compared);
}

/// The numbers of the actors `html` links to (`">Actor 0042`), in order.
fn actors_linked(html: &str) -> Vec<usize> {
    html.match_indices("\">Actor ").map(|(at, _)| html[at + 8..at + 12].parse().unwrap()).collect()
}

/// A route's products are split into pages of `PAGE_SIZE` in path order:
/// each product on exactly one page, each page linking the one before and
/// after, and the pages past the first at `/<route>/page/<n>`; the home
/// page shows the first few of each route.
#[test]
fn list_pages_show_every_product_once_in_pages_of_fifty() {
    use foundry_catalog_pages::list::{HOME_SIZE, PAGE_SIZE};
    let pages = Pages::new(site());
    let total = 2 * PAGE_SIZE + 7;
    let cards = Cards::new(actors(total));
    let lists = pages.list_pages(&cards).unwrap();
    let html = |path: &str| lists.iter().find(|l| l.path == path).and_then(|l| l.html.as_deref()).unwrap();
    let paths: Vec<&str> = lists.iter().map(|l| l.path.as_str()).filter(|p| p.starts_with("/actors")).collect();
    assert_eq!(paths, ["/actors", "/actors/page/2", "/actors/page/3"]);
    let mut seen = Vec::new();
    for (i, path) in paths.iter().enumerate() {
        let page = html(path);
        let titles = actors_linked(page);
        assert_eq!(titles.len(), if i < 2 { PAGE_SIZE } else { total - 2 * PAGE_SIZE }, "{path}");
        seen.extend(titles);
        assert_eq!(page.contains("rel=\"prev\""), i > 0, "{path}");
        assert_eq!(page.contains("rel=\"next\""), i < 2, "{path}");
    }
    assert_eq!(seen, (0..total).collect::<Vec<_>>(), "each product once, in path order");
    assert!(
        html("/actors/page/2").contains(r#"<link rel="canonical" href="https://catalog.example.com/actors/page/2">"#)
    );
    // The count is on the route's first page, and on no other.
    assert!(html("/actors").contains(&format!("{total} products on 3 pages")));
    assert!(!html("/actors/page/2").contains(&total.to_string()));
    let home = html("/");
    // The newest first: actors 27, 55 and 83 were updated on the 28th,
    // 26, 54 and 82 on the 27th; the same day's in path order.
    assert_eq!(actors_linked(home), [27, 55, 83, 26, 54, 82]);
    assert_eq!(HOME_SIZE, 6);
    assert!(home.contains(&format!("All {total} actors")));
    // A route with no product still has its page, kept from search engines.
    assert!(html("/datasets").contains(r#"<meta name="robots" content="noindex">"#));
}

/// A visitor following links from the home page reaches every product of
/// a long route in at most 4 clicks: the home page links to the route's
/// first page, which reaches any page in two (a crawl of the rendered
/// HTML, 1,000 pages of one product each); and each page's numbered
/// links are the first, the last and a window about itself.
#[test]
fn every_product_is_four_clicks_from_home() {
    let total = 1_000;
    let pages = Pages::new(site()).with_page_size(1);
    let cards = Cards::new(actors(total));
    let lists = pages.list_pages(&cards).unwrap();
    let html: std::collections::BTreeMap<String, String> =
        lists.into_iter().map(|l| (format!("https://catalog.example.com{}", l.path), l.html.unwrap())).collect();
    let mut depth = std::collections::BTreeMap::from([("https://catalog.example.com/".to_owned(), 0)]);
    let mut queue = std::collections::VecDeque::from(["https://catalog.example.com/".to_owned()]);
    while let Some(url) = queue.pop_front() {
        let Some(page) = html.get(&url) else { continue };
        let here = depth[&url];
        for (at, _) in page.match_indices("href=\"") {
            let link = &page[at + 6..];
            let link = &link[..link.find('"').unwrap()];
            if link.starts_with("https://catalog.example.com/") && !depth.contains_key(link) {
                depth.insert(link.to_owned(), here + 1);
                queue.push_back(link.to_owned());
            }
        }
    }
    let products: Vec<usize> = depth.iter().filter(|(url, _)| url.contains("/actors/a-")).map(|(_, &d)| d).collect();
    assert_eq!(products.len(), total, "every product reached");
    assert_eq!(products.iter().max(), Some(&4));
    let page = &html["https://catalog.example.com/actors/page/500"];
    let nav = &page[page.find("<nav aria-label=\"Pages\"").unwrap()..];
    insta::assert_snapshot!("pagination-500-of-1000", &nav[..nav.find("</nav>").unwrap() + 6]);
}

/// A route of exactly k pages' products has k pages, no empty one after
/// them; one more product opens page k + 1. Each page's `lastmod` is the
/// newest of its own products', not of its route's.
#[test]
fn a_full_last_page_is_the_last_and_each_page_has_its_own_lastmod() {
    let pages = Pages::new(site()).with_page_size(5);
    let route_pages = |n: usize| -> Vec<(String, String)> {
        let cards = Cards::new(actors(n));
        let lists = pages.list_pages(&cards).unwrap();
        lists.into_iter().filter(|l| l.path.starts_with("/actors")).map(|l| (l.path, l.lastmod)).collect()
    };
    let ten = route_pages(10);
    assert_eq!(ten.iter().map(|(path, _)| path.as_str()).collect::<Vec<_>>(), ["/actors", "/actors/page/2"]);
    assert_eq!(route_pages(11).len(), 3);
    // Actors 0 to 4 on the first page (January 1 to 5), 5 to 9 on the second.
    assert_eq!(ten[0].1, "2026-01-05T00:00:00+00:00");
    assert_eq!(ten[1].1, "2026-01-10T00:00:00+00:00");
}

/// A product page links to its four nearest neighbours of its route in
/// path order, two before and two after, wrapping at the ends; never to
/// itself, nor to another route's products; all of them when there are
/// no more.
#[test]
fn a_product_page_links_to_its_nearest_neighbours_in_its_route() {
    let pages = Pages::new(site());
    let record = examples().into_iter().find(|r| r.route == foundry_catalog::product::Route::Actors).unwrap();
    let place = |slug: &str| {
        let mut record = record.clone();
        record.slug = slug.parse().unwrap();
        record
    };
    let mut cards = actors(10);
    cards.push(Card {
        path: "/datasets/d".to_owned(),
        title: "Actor 9999".to_owned(),
        summary: String::new(),
        lastmod: String::new(),
        terms: Vec::new(),
    });
    let cards = Cards::new(cards);
    let related = |slug: &str| {
        let html = pages.product(&place(slug), &cards).unwrap();
        let (_, section) = html.split_once(r#"<h2 id="related">"#).expect("a related section");
        actors_linked(section)
    };
    assert_eq!(related("a-0005"), [3, 4, 6, 7]);
    assert_eq!(related("a-0000"), [8, 9, 1, 2], "wrapping at the start");
    assert_eq!(related("a-0009"), [7, 8, 0, 1], "wrapping at the end");
    // A page that is on no list (noindex) still has its place among them.
    assert_eq!(related("a-0004a"), [3, 4, 5, 6]);
    let few = Cards::new(actors(3));
    let html = pages.product(&place("a-0001"), &few).unwrap();
    assert_eq!(actors_linked(html.split_once(r#"<h2 id="related">"#).unwrap().1), [0, 2]);
    let alone = pages.product(&place("a-0000"), &Cards::new(actors(1))).unwrap();
    assert!(!alone.contains(r#"id="related""#), "no section without a related product");
    assert!(pages.same_related(record.route, "/actors/a-0005", &cards, &cards.clone()));
}

/// Given the cards the pages were last made with, exactly the list pages
/// that show something new are rendered: an edited title renders its own
/// page (and the home page when it is among the newest), a product added
/// renders the pages from its place on and the route's first page (its
/// count), and a `lastmod` alone renders none, though its page's cards
/// are new, but the home page when it changes which are the newest.
#[test]
fn list_pages_since_render_exactly_the_pages_that_changed() {
    let pages = Pages::new(site()).with_page_size(3);
    let before = Cards::new(actors(10));
    let rendered = |cards: &Cards| -> Vec<String> {
        let lists = pages.list_pages_since(cards, Some(&before)).unwrap();
        let all = pages.list_pages(cards).unwrap();
        for (list, full) in lists.iter().zip(&all) {
            assert_eq!(list.path, full.path);
            assert_eq!(list.lastmod, full.lastmod);
            if list.html.is_some() {
                assert_eq!(list.html, full.html, "a page rendered is the full rendering's");
            }
        }
        lists.iter().filter(|list| list.html.is_some()).map(|list| list.path.clone()).collect()
    };
    assert!(rendered(&before).is_empty(), "nothing changed");
    let edited = |n: usize, edit: fn(&mut Card)| {
        let mut cards = actors(10);
        edit(&mut cards[9 - n]);
        Cards::new(cards)
    };
    // Actors 4 to 9 are the newest: the home page shows them.
    assert_eq!(rendered(&edited(7, |c| c.title.push_str(" again"))), ["/", "/actors/page/3"]);
    assert_eq!(rendered(&edited(1, |c| c.summary.push('!'))), ["/actors"]);
    assert_eq!(rendered(&edited(3, |c| c.title.push('!'))), ["/actors/page/2"]);
    // Still older than actor 5's: the newest are in the same order.
    let lastmod = edited(4, |c| c.lastmod = "2026-01-05T12:00:00+00:00".to_owned());
    assert!(rendered(&lastmod).is_empty());
    let newest = edited(1, |c| c.lastmod = "2026-02-01T00:00:00+00:00".to_owned());
    assert_eq!(rendered(&newest), ["/"], "the newest product moves to the home page");
    let lists = pages.list_pages_since(&lastmod, Some(&before)).unwrap();
    let same: Vec<bool> = lists.iter().map(|list| list.same_cards).collect();
    // /, /datasets, /actors, its pages 2 (actor 4's), 3 and 4, /automation,
    // then each taxonomy's (empty) index.
    assert_eq!(same, [true, true, true, false, true, true, true, true, true, true, true, true]);
    let mut added = actors(10);
    added.push(Card { path: "/actors/a-0007a".to_owned(), ..added[0].clone() });
    assert_eq!(rendered(&Cards::new(added)), ["/", "/actors", "/actors/page/3", "/actors/page/4"]);
}

/// Every page a site has: each example's, the not-found page, the home
/// page and each route's first list page.
fn every_page(pages: &Pages) -> Vec<String> {
    let cards = Cards::new(examples().iter().filter_map(Card::of));
    let mut html: Vec<String> = examples().iter().map(|record| pages.product(record, &cards).unwrap()).collect();
    html.push(pages.not_found().unwrap());
    html.extend(pages.list_pages(&cards).unwrap().into_iter().filter_map(|page| page.html));
    html
}

/// The value of `<meta property="{property}" content="…">` in `html`.
fn meta<'a>(html: &'a str, property: &str) -> Option<&'a str> {
    let start = html.find(&format!(r#"<meta property="{property}" content=""#))? + property.len() + 27;
    Some(&html[start..start + html[start..].find('"')?])
}

#[test]
fn a_site_says_its_name_and_language_on_every_page() {
    let default = every_page(&Pages::new(site()));
    for html in &default {
        assert!(html.starts_with("<!DOCTYPE html>\n<html lang=\"en\" dir=\"ltr\">"), "{html}");
        assert_eq!(meta(html, "og:site_name"), Some("Product catalog"));
        assert_eq!(meta(html, "og:locale"), Some("en"));
    }
    let named = site().named(SiteName::new("Katalog & Co").unwrap()).in_language(Language::new("ar-EG").unwrap());
    let pages = Pages::new(named);
    let default = Pages::new(site());
    let name = Pages::new(site().named(SiteName::new("Katalog & Co").unwrap()));
    let language = Pages::new(site().in_language(Language::new("ar-EG").unwrap()));
    for other in [&pages, &name, &language] {
        assert_ne!(other.digest(), default.digest(), "the name and the language each render every page");
    }
    assert_ne!(name.digest(), language.digest());
    for html in every_page(&pages) {
        assert!(html.starts_with("<!DOCTYPE html>\n<html lang=\"ar-EG\" dir=\"rtl\">"), "{html}");
        assert_eq!(meta(&html, "og:site_name"), Some("Katalog &amp; Co"));
        assert_eq!(meta(&html, "og:locale"), Some("ar_EG"));
        // The default name is nowhere the site's own words are.
        for default in [">Product catalog<", "content=\"Product catalog", "· Product catalog"] {
            assert!(!html.contains(default), "{default} in {html}");
        }
    }
    let cards = Cards::new(examples().iter().filter_map(Card::of));
    // A list page's title ends with the site's name (a product's is its seo.title).
    for html in pages.list_pages(&cards).unwrap().into_iter().filter_map(|page| page.html) {
        let title = &html[html.find("<title>").unwrap()..html.find("</title>").unwrap()];
        assert!(title.contains("Katalog &amp; Co"), "{title}");
    }
    let home = pages.list_pages(&cards).unwrap().remove(0).html.unwrap();
    let start = home.find(r#"<script type="application/ld+json">"#).unwrap() + 35;
    let ld: serde_json::Value =
        serde_json::from_str(&home[start..start + home[start..].find("</script>").unwrap()]).unwrap();
    assert_eq!((ld["name"].as_str(), ld["inLanguage"].as_str()), (Some("Katalog & Co"), Some("ar-EG")));
    // Home and list pages describe themselves to a shared link too.
    for html in pages.list_pages(&cards).unwrap().into_iter().filter_map(|page| page.html) {
        let description = meta(&html, "og:description").unwrap();
        assert!(html.contains(&format!(r#"<meta name="description" content="{description}">"#)), "{html}");
    }
}

/// The start tag of the element whose text begins at `at` in `html`.
fn tag_before(html: &str, at: usize) -> &str {
    &html[html[..at].rfind('<').unwrap()..at]
}

#[test]
fn a_products_own_words_read_in_their_own_direction() {
    let pages = Pages::new(site());
    let mut record = examples().remove(0);
    record.title = "כותרת בעברית".to_owned();
    record.summary = "ملخص باللغة العربية.".to_owned();
    record.buyer_outcome = "نتيجة للمشتري.".to_owned();
    record.use_cases = vec!["حالة استخدام".to_owned()];
    record.target_audiences = vec!["קהל יעד".to_owned()];
    let cards = Cards::new(std::iter::once(Card::of(&record).unwrap()));
    let texts =
        [&record.title, &record.summary, &record.buyer_outcome, &record.use_cases[0], &record.target_audiences[0]];
    let product = pages.product(&record, &cards).unwrap();
    let lists = pages.list_pages(&cards).unwrap();
    let home = lists[0].html.clone().unwrap();
    for text in texts {
        let shown: Vec<usize> = product.match_indices(&format!(">{text}<")).map(|(at, _)| at + 1).collect();
        assert!(!shown.is_empty(), "{text}");
        for at in shown {
            let tag = tag_before(&product, at);
            assert!(tag.contains(r#"dir="auto""#) || tag == "<title>", "{text} in {tag}");
        }
    }
    for text in [&record.title, &record.summary] {
        let at = home.find(&format!(">{text}<")).unwrap() + 1;
        assert!(tag_before(&home, at).contains(r#"dir="auto""#), "{text}");
    }
}

#[test]
fn listings_not_safe_for_the_public_are_neither_linked_nor_offered() {
    let pages = Pages::new(site());
    let mut record = examples().into_iter().find(|r| r.marketplaces.len() > 1).expect("an example with two listings");
    let hidden = record.marketplaces.iter_mut().find(|l| !l.primary).unwrap();
    hidden.public_safe = false;
    let (url, label) = (hidden.url.clone(), hidden.cta_label.clone());
    let html = pages.product(&record, &Cards::default()).unwrap();
    let listings = &html
        [html.find(r#"<section aria-labelledby="where">"#).unwrap()..html.find(r#"<div class="table-wrap""#).unwrap()];
    assert!(!listings.contains(&url) && !listings.contains(&label), "{listings}");
    let ld = json_ld::object(&record, &site()).to_string();
    assert!(!ld.contains(&url), "{ld}");
    let shown = record.marketplaces.iter().filter(|l| l.public_safe).count();
    assert_eq!(listings.matches("<li dir=\"auto\"><a href=").count(), shown, "{listings}");
}

#[test]
fn an_update_time_with_microseconds_is_a_valid_html_datetime() {
    let (_, text) = MANIFESTS[0];
    let mut manifest: serde_json::Value = serde_json::from_str(text).unwrap();
    manifest["last_updated_at"] = "2026-11-04T07:45:10.123456-05:00".into();
    let record = ProductManifest::from_json(&manifest.to_string()).unwrap().build().unwrap();
    let html = Pages::new(site()).product(&record, &Cards::default()).unwrap();
    assert!(html.contains(r#"<time datetime="2026-11-04T07:45:10.123-05:00">4 November 2026</time>"#), "{html}");
}

#[test]
fn a_long_summary_is_clipped_on_cards_and_whole_on_its_page() {
    let pages = Pages::new(site());
    let mut record = examples().remove(0);
    record.summary = "A summary that goes on. ".repeat(40);
    let cards = Cards::new(std::iter::once(Card::of(&record).unwrap()));
    let lists = pages.list_pages(&cards).unwrap();
    let mut shown_on = 0;
    for html in lists.iter().filter_map(|page| page.html.as_deref()) {
        assert!(!html.contains(record.summary.trim()), "the card shows the summary whole");
        if let Some(at) = html.find(r#"<p dir="auto">A summary"#) {
            let shown = &html[at + 14..at + html[at..].find("</p>").unwrap()];
            assert!(shown.chars().count() <= foundry_catalog_pages::CARD_SUMMARY && shown.ends_with('…'), "{shown}");
            shown_on += 1;
        }
    }
    let terms = Card::of(&record).unwrap().terms.len();
    assert_eq!(shown_on, 2 + terms, "the home page, its route's page and each of its terms' show its card");
    assert!(pages.product(&record, &cards).unwrap().contains(record.summary.as_str()));
}

/// A dataset whose description is shorter than Google's Dataset results
/// take is warned about; at 50 characters, as a noindex page or as an
/// actor, it is not.
#[test]
fn a_short_dataset_description_is_warned_about() {
    use foundry_catalog::product::Route;
    use foundry_catalog_pages::warnings;
    let dataset = examples().into_iter().find(|r| r.route == Route::Datasets).unwrap();
    let with = |description: &str, noindex: bool| {
        let mut record = dataset.clone();
        record.seo.description = description.to_owned();
        record.seo.noindex = noindex;
        warnings::of(&record)
    };
    let short = with("Ten chars.", false);
    assert_eq!(short.len(), 1);
    assert!(short[0].starts_with("its seo.description, its Dataset's description, is 10 characters"), "{short:?}");
    assert!(with(&"x".repeat(50), false).is_empty());
    assert_eq!(with(&"x".repeat(49), false).len(), 1);
    assert!(with("Ten chars.", true).is_empty(), "a noindex page is judged by no one");
    let mut actor = examples().into_iter().find(|r| r.route == Route::Actors).unwrap();
    actor.seo.description = "Short.".to_owned();
    assert!(warnings::of(&actor).is_empty());
    assert!(warnings::of(&dataset).is_empty(), "the example's own description is long enough");
}

/// The links of `html` to product pages, in order, as paths.
fn product_links(html: &str) -> Vec<String> {
    html.split(r#"<a href="https://catalog.example.com/actors/"#)
        .skip(1)
        .map(|rest| format!("/actors/{}", rest.split_once('"').unwrap().0))
        .collect()
}

/// Each term's pages list, across their page numbers and in order,
/// exactly the products that have it; its taxonomy's page counts them;
/// an edit renders again only the pages that show it.
#[test]
fn facet_pages_list_each_terms_products_and_render_again_only_what_changed() {
    use foundry_catalog_pages::facets::Term;
    let pages = Pages::new(site()).with_page_size(3);
    let tagged = |edit: &dyn Fn(usize, &mut Card)| -> Cards {
        let mut cards = actors(10);
        for card in &mut cards {
            let n: usize = card.path["/actors/a-".len()..].parse().unwrap();
            card.terms.push(Term::new(Taxonomy::UseCases, "Monitoring", "Monitoring").into());
            if n.is_multiple_of(3) {
                card.terms.push(Term::new(Taxonomy::UseCases, "Lead alerts", "Lead alerts").into());
            }
            edit(n, card);
        }
        Cards::new(cards)
    };
    let before = tagged(&|_, _| {});
    let lists = pages.list_pages(&before).unwrap();
    let html = |lists: &[foundry_catalog_pages::ListPage<'_>], path: &str| {
        lists.iter().find(|list| list.path == path).and_then(|list| list.html.clone()).unwrap_or_default()
    };
    // Each term's pages, followed by their numbered links from the first.
    for (slug, every) in [("monitoring", 1), ("lead-alerts", 3)] {
        let want: Vec<String> = (0..10).filter(|n| n % every == 0).map(|n| format!("/actors/a-{n:04}")).collect();
        let mut listed = Vec::new();
        for number in 1..=want.len().div_ceil(3) {
            let path = Taxonomy::UseCases.term_path(slug, number);
            let page = html(&lists, &path);
            assert!(!page.is_empty(), "{path} is a page");
            listed.extend(product_links(&page));
            if number > 1 {
                let first = html(&lists, &Taxonomy::UseCases.term_path(slug, 1));
                assert!(first.contains(&format!(r#"href="https://catalog.example.com{path}""#)), "{path} linked");
            }
        }
        assert_eq!(listed, want, "{slug}");
        let index = html(&lists, "/use-cases");
        let entry = format!(r#"href="https://catalog.example.com/use-cases/{slug}" dir="auto">"#);
        let at = index.find(&entry).unwrap_or_else(|| panic!("{slug} on the index: {index}"));
        let count = format!("({} products)", want.len());
        assert!(index[at..].split("</li>").next().unwrap().contains(&count), "{slug}: {count}");
    }
    let rendered = |cards: &Cards| -> Vec<String> {
        let lists = pages.list_pages_since(cards, Some(&before)).unwrap();
        let full = pages.list_pages(cards).unwrap();
        for (list, full) in lists.iter().zip(&full) {
            assert_eq!(list.path, full.path);
            if list.html.is_some() {
                assert_eq!(list.html, full.html, "a page rendered is the full rendering's");
            }
        }
        lists.iter().filter(|list| list.html.is_some()).map(|list| list.path.clone()).collect()
    };
    assert!(rendered(&before).is_empty(), "nothing changed");
    // Actor 2 (not a lead alert, and not among the six newest) is on
    // /actors and /use-cases/monitoring.
    let retitled = tagged(&|n, card| {
        if n == 2 {
            card.title.push('!');
        }
    });
    assert_eq!(rendered(&retitled), ["/actors", "/use-cases/monitoring"]);
    // A term added to actor 2: lead alerts has 5 products, which moves
    // the two after it to its second page, and its count changes on the
    // index; what the card shows did not change elsewhere.
    let added = tagged(&|n, card| {
        if n == 2 {
            card.terms.push(Term::new(Taxonomy::UseCases, "Lead alerts", "Lead alerts").into());
        }
    });
    assert_eq!(rendered(&added), ["/use-cases", "/use-cases/lead-alerts", "/use-cases/lead-alerts/page/2"]);
    // A term of its own: a new page, and the index.
    let new = tagged(&|n, card| {
        if n == 2 {
            card.terms.push(Term::new(Taxonomy::Formats, "Parquet", "Parquet").into());
        }
    });
    assert_eq!(rendered(&new), ["/formats", "/formats/parquet"]);
}

/// A `noindex` product is on no term's page, so its page shows its
/// terms as text: every link it has to a facet would be to a page
/// without it (or to none).
#[test]
fn a_noindex_page_links_no_term() {
    let pages = Pages::new(site());
    let mut record = examples().remove(0);
    let linked = |record: &ProductRecord| {
        let html = pages.product(record, &Cards::default()).unwrap();
        Taxonomy::ALL
            .iter()
            .map(|taxonomy| html.matches(&format!(r#"href="https://catalog.example.com/{taxonomy}/"#)).count())
            .sum::<usize>()
    };
    let terms = Card::of(&record).unwrap().terms.len();
    assert!(linked(&record) >= terms, "an indexable page links each of its {terms} terms");
    record.seo.noindex = true;
    assert_eq!(linked(&record), 0);
    assert!(pages.product(&record, &Cards::default()).unwrap().contains(&format!(">{}<", record.use_cases[0])));
}

/// A blank value (the spec's text may be empty) names no term: it is
/// on no facet page, and its product's page shows it without a link; a
/// marketplace with a blank label is named by its key.
#[test]
fn a_blank_value_names_no_term() {
    let pages = Pages::new(site());
    let mut record = examples().remove(0);
    record.use_cases = vec![String::new(), " - ".to_owned(), "Real one".to_owned()];
    record.marketplace_availability[0].label = "  ".to_owned();
    let card = Card::of(&record).unwrap();
    let use_cases: Vec<&str> =
        card.terms.iter().filter(|t| t.taxonomy == Taxonomy::UseCases).map(|t| t.slug.as_str()).collect();
    assert_eq!(use_cases, ["real-one"]);
    let key = &record.marketplace_availability[0].key;
    assert!(card.terms.iter().any(|t| t.taxonomy == Taxonomy::Marketplaces && &t.label == key));
    let cards = Cards::new([card]);
    let html = pages.product(&record, &cards).unwrap();
    assert!(!html.contains("\"></a>") && !html.contains("\" dir=\"auto\"></a>"), "an empty link");
    assert_eq!(html.matches(r#"href="https://catalog.example.com/use-cases/"#).count(), 1);
    for list in pages.list_pages(&cards).unwrap() {
        let page = list.html.unwrap();
        assert!(!page.contains("\" dir=\"auto\"></a>") && !page.contains("<h1 dir=\"auto\"></h1>"), "{}", list.path);
    }
}

/// The settings a build stores make, in a server, the pages the build
/// made: the same digest, the same bytes, a folder's templates included.
#[test]
fn pages_read_back_from_their_settings_render_the_same_bytes() {
    let dir = folder(&[
        ("style.css", "body { color: #123456; }"),
        ("cards.html", "<ol>{% for c in cards %}<li>{{ c.title }}</li>{% endfor %}</ol>"),
    ]);
    let site = site().named(SiteName::new("Shop").unwrap()).in_language(Language::new("he").unwrap());
    for pages in [Pages::new(Site::unknown()), Pages::from_dir(site, dir.path()).unwrap().with_page_size(7)] {
        let again = Pages::from_settings(&pages.settings()).unwrap();
        assert_eq!(again.digest(), pages.digest());
        assert_eq!(again.page_size(), pages.page_size());
        let cards = Cards::new(actors(30));
        let query = foundry_catalog_pages::search::Query::parse(Some("q=actor")).unwrap();
        let shown: Vec<Card> = cards.iter().take(3).cloned().collect();
        assert_eq!(again.search_page(&query, 30, &shown).unwrap(), pages.search_page(&query, 30, &shown).unwrap());
        assert_eq!(again.product(&examples()[0], &cards).unwrap(), pages.product(&examples()[0], &cards).unwrap());
    }
    for broken in
        [&b"{}"[..], b"not json", br#"{"url":"ftp://x","name":"a","language":"en","page_size":1,"templates":{}}"#]
    {
        assert!(Pages::from_settings(broken).is_err());
    }
    let bad_template = br#"{"url":"","name":"a","language":"en","page_size":1,"templates":{"base.html":"{% if %}"}}"#;
    assert!(Pages::from_settings(bad_template).unwrap_err().to_string().contains("base.html"));
}

/// The search page as a server renders it (matches, page numbers, no
/// match, no words) and as the static site writes it.
#[test]
fn search_pages() {
    use foundry_catalog_pages::search::Query;
    let pages = Pages::new(site());
    let cards = Cards::new(actors(60));
    let shown: Vec<Card> = cards.iter().skip(20).take(20).cloned().collect();
    let query = Query::parse(Some("q=actor+%3Cb%3E&page=2")).unwrap();
    let found = pages.search_page(&query, 60, &shown).unwrap();
    // The query is escaped wherever it is shown, and kept in the links.
    assert!(!found.contains("<b>") && found.contains("actor &lt;b&gt;"), "{found}");
    assert!(found.contains(r#"href="https://catalog.example.com/search?q=actor+%3Cb%3E&amp;page=3""#), "{found}");
    assert_eq!(actors_linked(&found), (20..40).collect::<Vec<_>>());
    insta::assert_snapshot!("search-found", main_of(&found));
    let none = pages.search_page(&Query::parse(Some("q=zzz")).unwrap(), 0, &[]).unwrap();
    insta::assert_snapshot!("search-none", main_of(&none));
    let blank = pages.search_page(&Query::parse(None).unwrap(), 0, &[]).unwrap();
    assert!(blank.contains("A product matches when it has every word") && !blank.contains("No product matches"));
    let unavailable = pages.search_unavailable().unwrap();
    insta::assert_snapshot!("search-static", main_of(&unavailable));
    // Every page's header has the same search form, served or static.
    let form = |html: &str| html[html.find("<form").unwrap()..html.find("</form>").unwrap()].to_owned();
    let home = &pages.list_pages(&cards).unwrap()[0];
    assert_eq!(form(home.html.as_deref().unwrap()), form(&unavailable));
    assert!(form(&unavailable).contains(r#"action="https://catalog.example.com/search""#));
}

/// The `<main>` of a page: what a snapshot of it reviews.
fn main_of(html: &str) -> String {
    html[html.find("<main>").unwrap()..html.find("</main>").unwrap() + 7].to_owned()
}
