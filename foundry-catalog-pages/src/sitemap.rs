//! The sitemap (<https://www.sitemaps.org/protocol.html>) and
//! `robots.txt` of a catalog's pages.
//!
//! Every page that is not `noindex` is listed once, by its absolute URL,
//! with `lastmod` the record's `last_updated_at` (never the build's
//! clock). Up to [`MAX_URLS`] URLs (and [`MAX_BYTES`] bytes) the sitemap
//! is one file, `/sitemap.xml`; past either, `/sitemap.xml` is a sitemap
//! index naming `/sitemap-1.xml`, `/sitemap-2.xml`, … as the protocol
//! says. URLs are in the order of their paths, so the same records give
//! the same files.

use foundry_catalog::product::ProductRecord;

use crate::Site;
use crate::markup::escape;

/// The most URLs one sitemap file lists (the protocol's limit).
pub const MAX_URLS: usize = 50_000;

/// The most bytes one sitemap file holds, uncompressed (the protocol's
/// limit, 50 MiB).
pub const MAX_BYTES: usize = 50 * 1024 * 1024;

/// The path of the sitemap (or of the sitemap index).
pub const PATH: &str = "/sitemap.xml";

/// The path of [`robots`].
pub const ROBOTS_PATH: &str = "/robots.txt";

/// One page the sitemap lists.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord)]
pub struct Entry {
    /// The page's path (`canonical_path`).
    pub path: String,
    /// `lastmod`: the record's `last_updated_at` (W3C Datetime).
    pub lastmod: String,
}

impl Entry {
    /// The entry of `record`'s page; none when the page is not
    /// [`indexable`].
    pub fn of(record: &ProductRecord) -> Option<Entry> {
        indexable(record)
            .then(|| Entry { path: record.canonical_path(), lastmod: record.last_updated_at.as_str().to_owned() })
    }
}

/// Whether `record`'s page is for search engines: listed publicly
/// (`is_visible`) and not `seo.noindex`. A page that is not still
/// answers (the record does, at the API), with `noindex` and out of the
/// sitemap.
pub fn indexable(record: &ProductRecord) -> bool {
    record.is_visible && !record.seo.noindex
}

/// What a build for `site` should warn about, each a sentence
/// with a hint: an unknown site (links are paths, no sitemap), and a
/// site with a path, whose `robots.txt` crawlers never read (they ask
/// for it at the origin's root only).
pub fn warnings(site: &Site) -> Vec<String> {
    if !site.is_known() {
        return vec![
            "no site URL: canonical links, Open Graph and JSON-LD URLs are paths, not absolute URLs, and no sitemap is written; hint: give the public site's URL with --site-url".to_owned(),
        ];
    }
    let base = site.url("");
    let Ok(uri) = iri_string::types::UriStr::new(&base) else { return Vec::new() };
    let path = uri.path_str();
    if path.is_empty() || path == "/" {
        return Vec::new();
    }
    let origin = &base[..base.len() - path.len()];
    vec![format!(
        "the site {} has a path ({path}): crawlers read robots.txt only at {origin}/robots.txt, not the one written at {}; hint: put its rules and its Sitemap line ({}) in the origin's robots.txt",
        base,
        site.url(ROBOTS_PATH),
        site.url(PATH),
    )]
}

/// One file of the sitemap: its path on the site and its XML.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct File {
    /// `/sitemap.xml`, or `/sitemap-N.xml` past the limits.
    pub path: String,
    /// The XML document.
    pub xml: String,
}

const HEADER: &str = "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n";
const URLSET_OPEN: &str = "<urlset xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n";
const URLSET_CLOSE: &str = "</urlset>\n";

/// The sitemap files of `entries` on `site`: none when the site is
/// unknown (the protocol takes absolute URLs only); one `urlset` when
/// the entries fit in one file; else a sitemap index at [`PATH`] and the
/// `urlset` files it names. [`Sitemap`] makes the same files one at a
/// time.
pub fn files(site: &Site, entries: impl IntoIterator<Item = Entry>) -> Vec<File> {
    let entries: Vec<Entry> = entries.into_iter().collect();
    Sitemap::new(site, entries.iter().map(|entry| (entry.path.as_str(), entry.lastmod.as_str()))).files().collect()
}

/// A sitemap planned: its entries in order and where its files split,
/// each file's XML made only when it is asked for ([`Sitemap::file`]),
/// so that a large catalog's sitemap is never all in memory at once. The
/// files are [`files`]'s.
#[derive(Debug)]
pub struct Sitemap<'a> {
    site: &'a Site,
    /// Each page's path and `lastmod`, in order, one entry a path.
    entries: Vec<(&'a str, &'a str)>,
    /// The entries of each `urlset` file.
    parts: Vec<std::ops::Range<usize>>,
}

impl<'a> Sitemap<'a> {
    /// The sitemap of `entries` (each page's path and `lastmod`) on
    /// `site`: in the order of their paths, a path listed once (with its
    /// earliest `lastmod` as text, should it come twice), split where a
    /// file would pass [`MAX_URLS`] or [`MAX_BYTES`].
    pub fn new(site: &'a Site, entries: impl IntoIterator<Item = (&'a str, &'a str)>) -> Sitemap<'a> {
        if !site.is_known() {
            return Sitemap { site, entries: Vec::new(), parts: Vec::new() };
        }
        // Sized by the upper bound where there is one (a build's pages
        // less those not indexed), not grown by doubling to twice that;
        // a bound no allocation can meet is not taken (it grows instead).
        let entries = entries.into_iter();
        let mut entries: Vec<(&str, &str)> = {
            let mut all = Vec::new();
            let _ = all.try_reserve_exact(entries.size_hint().1.unwrap_or_default());
            all.extend(entries);
            all
        };
        entries.sort_unstable();
        entries.dedup_by(|a, b| a.0 == b.0);
        let frame = HEADER.len() + URLSET_OPEN.len() + URLSET_CLOSE.len();
        let mut parts = Vec::new();
        // The current file's first entry and bytes of URLs.
        let (mut first, mut bytes) = (0, 0);
        for (at, &(path, lastmod)) in entries.iter().enumerate() {
            let len = url(site, path, lastmod).len();
            let count = at - first;
            if count == MAX_URLS || (count > 0 && frame + bytes + len > MAX_BYTES) {
                parts.push(first..at);
                (first, bytes) = (at, 0);
            }
            bytes += len;
        }
        parts.push(first..entries.len());
        Sitemap { site, entries, parts }
    }

    /// How many files the sitemap is: none when the site is unknown, one
    /// `urlset`, or an index and the files it names.
    pub fn len(&self) -> usize {
        match self.parts.len() {
            0 | 1 => self.parts.len(),
            parts => parts + 1,
        }
    }

    /// Whether there is no sitemap (the site is unknown).
    pub fn is_empty(&self) -> bool {
        self.parts.is_empty()
    }

    /// The `n`th file (from 0: [`PATH`] first), made now.
    pub fn file(&self, n: usize) -> Option<File> {
        let urlset = |part: &std::ops::Range<usize>| {
            let mut xml = format!("{HEADER}{URLSET_OPEN}");
            for &(path, lastmod) in &self.entries[part.clone()] {
                xml.push_str(&url(self.site, path, lastmod));
            }
            xml.push_str(URLSET_CLOSE);
            xml
        };
        if self.parts.len() == 1 {
            return (n == 0).then(|| File { path: PATH.to_owned(), xml: urlset(&self.parts[0]) });
        }
        if n > 0 {
            let part = self.parts.get(n - 1)?;
            return Some(File { path: format!("/sitemap-{n}.xml"), xml: urlset(part) });
        }
        let mut index = format!("{HEADER}<sitemapindex xmlns=\"http://www.sitemaps.org/schemas/sitemap/0.9\">\n");
        for (n, part) in self.parts.iter().enumerate() {
            // Compared as instants, as a list page's `lastmod` is: the
            // offsets differ from record to record.
            let newest = newest_of(self.entries[part.clone()].iter().map(|&(_, lastmod)| lastmod));
            index.push_str(&format!(
                "  <sitemap>\n    <loc>{}</loc>\n    <lastmod>{}</lastmod>\n  </sitemap>\n",
                escape(&self.site.url(&format!("/sitemap-{}.xml", n + 1))),
                escape(&newest)
            ));
        }
        index.push_str("</sitemapindex>\n");
        Some(File { path: PATH.to_owned(), xml: index })
    }

    /// Every file, in order, each made as the iterator reaches it.
    pub fn files(&self) -> impl Iterator<Item = File> + '_ {
        (0..self.len()).filter_map(|n| self.file(n))
    }
}

/// One page's `<url>` element, on its own lines.
fn url(site: &Site, path: &str, lastmod: &str) -> String {
    format!(
        "  <url>\n    <loc>{}</loc>\n    <lastmod>{}</lastmod>\n  </url>\n",
        escape(&site.url(path)),
        escape(lastmod)
    )
}

/// The newest of `lastmods`, compared as instants (the offsets differ
/// from record to record), written as given; of those at the same
/// instant, the last. Empty when none reads.
pub(crate) fn newest_of<'a>(lastmods: impl IntoIterator<Item = &'a str>) -> String {
    lastmods
        .into_iter()
        .filter_map(|text| Some((foundry_catalog_core::OffsetTimestamp::instant_of(text)?, text)))
        .max_by_key(|(instant, _)| *instant)
        .map(|(_, text)| text.to_owned())
        .unwrap_or_default()
}

/// `robots.txt`: every path may be crawled but the search page's (its
/// pages are made on request, one per query: crawling them would only
/// find again the pages the sitemap lists), and the sitemap is named when
/// the site is known.
pub fn robots(site: &Site) -> String {
    let mut robots = format!("User-agent: *\nAllow: /\nDisallow: {}\n", foundry_catalog::product::SEARCH_PATH);
    if site.is_known() {
        robots.push_str(&format!("\nSitemap: {}\n", site.url(PATH)));
    }
    robots
}

#[cfg(test)]
mod tests {
    use super::{Entry, MAX_BYTES, MAX_URLS, files, robots};
    use crate::Site;

    /// An unknown site and a site with a path are warned about; an
    /// origin, with or without its trailing slash, is not.
    #[test]
    fn an_unknown_site_and_a_site_with_a_path_are_warned_about() {
        for origin in ["https://catalog.example.com", "https://catalog.example.com/", "http://127.0.0.1:8080"] {
            assert_eq!(super::warnings(&Site::new(origin).unwrap()), Vec::<String>::new(), "{origin}");
        }
        let unknown = super::warnings(&Site::unknown());
        assert!(unknown.len() == 1 && unknown[0].contains("--site-url"), "{unknown:?}");
        let prefixed = super::warnings(&Site::new("https://example.com/catalog/").unwrap());
        assert_eq!(prefixed.len(), 1);
        assert!(prefixed[0].contains("only at https://example.com/robots.txt"), "{prefixed:?}");
        assert!(prefixed[0].contains("https://example.com/catalog/sitemap.xml"), "{prefixed:?}");
    }

    /// Entries whose iterator says it may yield up to `usize::MAX` (true,
    /// if loose) make the sitemap of what it yields: the bound is not an
    /// allocation made before the first entry.
    #[test]
    fn a_loose_size_hint_is_not_allocated() {
        struct Loose<'a>(Vec<(&'a str, &'a str)>);
        impl<'a> Iterator for Loose<'a> {
            type Item = (&'a str, &'a str);
            fn next(&mut self) -> Option<Self::Item> {
                self.0.pop()
            }
            fn size_hint(&self) -> (usize, Option<usize>) {
                (0, Some(usize::MAX))
            }
        }
        let site = Site::new("https://example.com").unwrap();
        let loose = Loose(vec![("/datasets/b", "2026-01-02"), ("/datasets/a", "2026-01-01")]);
        let sitemap = super::Sitemap::new(&site, loose);
        let xml = sitemap.file(0).expect("one file").xml;
        assert_eq!(xml.matches("<url>").count(), 2, "{xml}");
    }

    fn entries(n: usize) -> impl Iterator<Item = Entry> {
        (0..n).map(|i| Entry {
            path: format!("/datasets/p-{i:06}"),
            lastmod: format!("2026-01-{:02}T00:00:00+00:00", i % 28 + 1),
        })
    }

    #[test]
    fn one_file_up_to_the_limit_then_an_index() {
        let site = Site::new("https://example.com").unwrap();
        let one = files(&site, entries(MAX_URLS));
        assert_eq!(one.len(), 1);
        assert_eq!(one[0].xml.matches("<url>").count(), MAX_URLS);
        let split = files(&site, entries(MAX_URLS + 1));
        assert_eq!(
            split.iter().map(|f| f.path.as_str()).collect::<Vec<_>>(),
            ["/sitemap.xml", "/sitemap-1.xml", "/sitemap-2.xml"]
        );
        assert!(
            split[0].xml.contains("<sitemapindex")
                && split[0].xml.contains("<loc>https://example.com/sitemap-2.xml</loc>")
        );
        assert_eq!(split[1].xml.matches("<url>").count(), MAX_URLS);
        assert_eq!(split[2].xml.matches("<url>").count(), 1);
        // The newest lastmod of each file is the index's lastmod for it.
        assert!(split[0].xml.contains("<lastmod>2026-01-28T00:00:00+00:00</lastmod>"));
    }

    /// The index's `lastmod` for a file is its newest entry's as an
    /// instant, not the greatest text: `23:00-05:00` is after `03:00+00:00`
    /// the next day, though it sorts before it.
    #[test]
    fn the_index_names_each_files_newest_instant() {
        let site = Site::new("https://example.com").unwrap();
        let mut all: Vec<Entry> = entries(MAX_URLS).collect();
        all[0].lastmod = "2026-02-01T23:00:00-05:00".to_owned();
        all[1].lastmod = "2026-02-02T03:00:00+00:00".to_owned();
        all.push(Entry { path: "/datasets/z".to_owned(), lastmod: "2026-03-01T00:00:00+00:00".to_owned() });
        let split = files(&site, all);
        let index = &split[0].xml;
        assert!(index.contains("<lastmod>2026-02-01T23:00:00-05:00</lastmod>"), "{index}");
        assert!(index.contains("<lastmod>2026-03-01T00:00:00+00:00</lastmod>"), "{index}");
    }

    /// A file holds at most MAX_BYTES with its frame (the XML declaration
    /// and the `urlset` element): URL entries of 2,048 bytes each fill
    /// MAX_BYTES exactly, so a split that forgot the frame would write a
    /// file over the limit.
    #[test]
    fn no_file_passes_the_byte_limit_with_its_frame() {
        let site = Site::new("https://example.com").unwrap();
        let entry = |i: usize, pad: usize| Entry {
            path: format!("/datasets/p-{i:06}-{}", "a".repeat(pad)),
            lastmod: "2026-01-01T00:00:00+00:00".to_owned(),
        };
        let url_len = |pad: usize| {
            let entry = entry(0, pad);
            let url = format!(
                "  <url>\n    <loc>{}</loc>\n    <lastmod>{}</lastmod>\n  </url>\n",
                site.url(&entry.path),
                entry.lastmod
            );
            url.len()
        };
        let pad = 2048 - url_len(0);
        assert_eq!(url_len(pad), 2048);
        assert_eq!(MAX_BYTES % 2048, 0);
        let count = MAX_BYTES / 2048 + 10;
        let split = files(&site, (0..count).map(|i| entry(i, pad)));
        assert!(split.len() >= 3, "split into an index and two files");
        for file in &split {
            assert!(file.xml.len() <= MAX_BYTES, "{}: {} bytes", file.path, file.xml.len());
        }
        let urls: usize = split[1..].iter().map(|file| file.xml.matches("<url>").count()).sum();
        assert_eq!(urls, count, "every URL once");
        assert!(count < MAX_URLS, "the byte limit, not the count, splits here");
    }

    #[test]
    fn no_site_no_sitemap_and_robots_names_it_when_known() {
        assert!(files(&Site::unknown(), entries(3)).is_empty());
        assert!(!robots(&Site::unknown()).contains("Sitemap"));
        assert!(
            robots(&Site::new("https://example.com/").unwrap())
                .ends_with("\nSitemap: https://example.com/sitemap.xml\n")
        );
    }

    #[test]
    fn urls_are_escaped() {
        let site = Site::new("https://example.com/a&b").unwrap();
        let xml = &files(&site, entries(1))[0].xml;
        assert!(xml.contains("<loc>https://example.com/a&amp;b/datasets/p-000000</loc>"), "{xml}");
    }
}
