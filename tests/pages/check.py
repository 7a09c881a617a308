#!/usr/bin/env python3
"""Product pages, sitemap and robots.txt as a reader and a crawler meet them.

Given a site written by `foundry-catalog pages` and the JSON bodies of the
same catalog (`foundry-catalog render --out-dir`), checks, with parsers
that share no code with the project:

- every page and 404.html parses under html5lib in strict mode (any HTML
  parse error fails);
- each product page says what its record says: <title> is seo.title, the
  meta description seo.description, the canonical link the site URL plus
  canonical_path, robots noindex exactly where seo.noindex is true or
  is_visible false; the
  JSON-LD parses, has the type for its route and Google's properties of
  that type as expectations.json states them; the first link of the page's call to action is primary_cta's
  URL; the sample table has the schema preview's field names as columns
  and sample.rows as rows (a string as is, any other value as JSON, a
  field a row lacks as an em dash in a cell of class "missing");
- every sitemap file validates against tests/pages/sitemap.xsd (lxml);
  every indexable page is listed exactly once, no noindex page is, and
  each lastmod is the record's last_updated_at;
- a crawl from / over links alone (the static site's files, as nginx maps
  paths to them) reaches every indexable product, every link to the site
  leads to a page, every page it finds parses strictly, and the pages it
  finds that are not noindex are exactly the sitemap's;
- robots.txt names the sitemap;
- every product page's og:image is og-image.png, a PNG of 1200 × 630
  (each chunk's CRC, its pixels inflated with zlib);
- the Atom feed (feed.atom) parses under feedparser as Atom 1.0 with no
  error, has RFC 4287's required elements (lxml), lists the 50 most
  recently updated pages of the sitemap (or all), newest first, each
  entry's `updated` its page's lastmod, its title and summary the record's.

Usage: check.py --site DIR --bodies DIR --site-url URL
"""

import argparse
import datetime
import json
import pathlib
import re
import struct
import sys
import zlib

import feedparser
import html5lib
from lxml import etree, html as lhtml

EXPECTATIONS = json.loads(pathlib.Path(__file__).with_name("expectations.json").read_text())
KINDS = {route: e["type"] for route, e in EXPECTATIONS["json_ld"].items()}


def holds(ld, prop):
    """Whether the JSON-LD has `prop` (`a.b`: b on any of a's items; `a|b`: either)."""
    if "|" in prop:
        return any(holds(ld, p) for p in prop.split("|"))
    if "." in prop:
        outer, inner = prop.split(".", 1)
        value = ld.get(outer)
        items = value if isinstance(value, list) else [value] if isinstance(value, dict) else []
        return any(isinstance(item, dict) and inner in item for item in items)
    return prop in ld


def judge_json_ld(ld, record):
    """Google's properties of the type against expectations.json: each there
    unless the record cannot fill it (and then not there)."""
    kind = KINDS[record["route"]]
    google, not_held = EXPECTATIONS["google"][kind], EXPECTATIONS["not_held"][kind]
    problems = []
    for prop in google["required"] + google["recommended"] + EXPECTATIONS["ours"][kind]:
        source = EXPECTATIONS["held_when"].get(prop)
        if prop in not_held:
            if holds(ld, prop):
                problems.append(f"holds {prop}, which the record does not ({not_held[prop]})")
        elif source and not record[source]:
            continue
        elif not holds(ld, prop):
            problems.append(f"lacks {prop}")
    low, high = google.get("description_length", [1, 10**9])
    if not low <= len(ld.get("description", "")) <= high:
        problems.append(f"description of {len(ld.get('description', ''))} characters, not {low} to {high}")
    return problems
NS = {"s": "http://www.sitemaps.org/schemas/sitemap/0.9"}

failures = []


def fail(message):
    failures.append(message)
    print(f"FAIL {message}", file=sys.stderr)


def strict_parse(path):
    parser = html5lib.HTMLParser(strict=True)
    try:
        parser.parse(path.read_bytes())
    except html5lib.html5parser.ParseError as e:
        fail(f"{path}: html5lib (strict): {e}")


def cell_text(value):
    return value if isinstance(value, str) else json.dumps(value, separators=(",", ":"), ensure_ascii=False)


def check_page(path, record, site_url):
    strict_parse(path)
    doc = lhtml.fromstring(path.read_bytes())
    slug = record["slug"]
    title = doc.findtext(".//title")
    if title != record["seo"]["title"]:
        fail(f"{slug}: <title> is {title!r}, seo.title is {record['seo']['title']!r}")
    description = doc.xpath('//meta[@name="description"]/@content')
    if description != [record["seo"]["description"]]:
        fail(f"{slug}: meta description {description!r}")
    canonical = doc.xpath('//link[@rel="canonical"]/@href')
    if canonical != [site_url + record["canonical_path"]]:
        fail(f"{slug}: canonical {canonical!r}")
    image = doc.xpath('//meta[@property="og:image"]/@content')
    if image != [site_url + "/og-image.png"]:
        fail(f"{slug}: og:image {image!r}")
    robots = doc.xpath('//meta[@name="robots"]/@content')
    if (robots == ["noindex"]) != hidden(record) or len(robots) > 1:
        fail(f"{slug}: robots {robots!r} with seo.noindex {record['seo']['noindex']}, is_visible {record['is_visible']}")
    scripts = doc.xpath('//script[@type="application/ld+json"]/text()')
    if len(scripts) != 1:
        fail(f"{slug}: {len(scripts)} JSON-LD scripts")
    else:
        ld = json.loads(scripts[0])
        kind = KINDS[record["route"]]
        if ld.get("@context") != "https://schema.org" or ld.get("@type") != kind:
            fail(f"{slug}: JSON-LD is {ld.get('@type')!r}, not {kind}")
        for problem in judge_json_ld(ld, record):
            fail(f"{slug}: JSON-LD {problem}")
        if ld.get("name") != record["title"] or ld.get("url") != site_url + record["canonical_path"]:
            fail(f"{slug}: JSON-LD name or url differ from the record")
        if record["marketplaces"] and [o["url"] for o in ld.get("offers", [])][:1] != [record["primary_cta"]["url"]]:
            fail(f"{slug}: JSON-LD offers do not start with the primary listing")
    cta = doc.xpath('//a[contains(concat(" ", @class, " "), " button ")]/@href')
    expected_cta = [record["primary_cta"]["url"]] if record["primary_cta"] else []
    if cta[:1] != expected_cta:
        fail(f"{slug}: call to action {cta[:1]!r}, primary_cta {expected_cta!r}")
    tables = doc.xpath('//table[contains(concat(" ", @class, " "), " sample ")]')
    if len(tables) != 1:
        fail(f"{slug}: {len(tables)} sample tables")
        return
    columns = [th.text_content() for th in tables[0].xpath("./thead/tr/th")]
    names = [f["name"] for f in record["schema_preview"]["fields"]]
    if columns != names:
        fail(f"{slug}: sample columns {columns} are not the schema preview's {names}")
    rows = []
    for tr in tables[0].xpath("./tbody/tr"):
        rows.append([(td.text_content(), "missing" in (td.get("class") or "").split()) for td in tr.xpath("./td")])
    expected = [
        [(cell_text(row[name]), False) if name in row else ("—", True) for name in names]
        for row in record["sample"]["rows"]
    ]
    if rows != expected:
        fail(f"{slug}: sample rows {rows} are not sample.rows {expected}")


def check_sitemap(site, records, site_url):
    schema = etree.XMLSchema(etree.parse(str(pathlib.Path(__file__).with_name("sitemap.xsd"))))
    files = sorted(site.glob("sitemap*.xml"))
    if not files:
        fail("no sitemap.xml")
        return
    listed = {}
    for path in files:
        doc = etree.parse(str(path))
        if not schema.validate(doc):
            fail(f"{path.name}: not valid against sitemap.xsd: {schema.error_log}")
        for url in doc.getroot().findall("s:url", NS):
            loc, lastmod = url.findtext("s:loc", namespaces=NS), url.findtext("s:lastmod", namespaces=NS)
            if loc in listed:
                fail(f"{loc} listed twice")
            listed[loc] = lastmod
    for record in records:
        loc = site_url + record["canonical_path"]
        if hidden(record):
            if loc in listed:
                fail(f"noindex page {loc} is in the sitemap")
        elif loc not in listed:
            fail(f"{loc} is not in the sitemap")
        elif listed[loc] != record["last_updated_at"]:
            fail(f"{loc}: lastmod {listed[loc]} is not last_updated_at {record['last_updated_at']}")
    robots = (site / "robots.txt").read_text()
    if f"Sitemap: {site_url}/sitemap.xml" not in robots.splitlines():
        fail(f"robots.txt does not name the sitemap: {robots!r}")
    return listed


ATOM = {"a": "http://www.w3.org/2005/Atom"}


def instant(text):
    return datetime.datetime.fromisoformat(text.replace("Z", "+00:00"))


def check_feed(site, site_url, listed, records):
    """The Atom feed, read by feedparser and by lxml against RFC 4287."""
    path = site / "feed.atom"
    parsed = feedparser.parse(path.read_bytes())
    if parsed.bozo or parsed.version != "atom10":
        fail(f"feed.atom: feedparser reads {parsed.version!r}, error {parsed.get('bozo_exception')!r}")
    feed = etree.parse(str(path)).getroot()
    if feed.tag != "{http://www.w3.org/2005/Atom}feed":
        fail(f"feed.atom: the root is {feed.tag}")
    for required in ("a:id", "a:title", "a:updated", "a:author/a:name", "a:link[@rel='self']"):
        if feed.find(required, ATOM) is None:
            fail(f"feed.atom: no {required}")
    products = {loc: lastmod for loc, lastmod in listed.items()
                if re.fullmatch(r"/(datasets|actors|automation)/[^/]+", loc[len(site_url):])}
    entries = feed.findall("a:entry", ATOM)
    if len(entries) != min(50, len(products)):
        fail(f"feed.atom: {len(entries)} entries for {len(products)} products")
    by_url = {site_url + r["canonical_path"]: r for r in records}
    updated = []
    for entry in entries:
        link = entry.find("a:link[@rel='alternate']", ATOM)
        url, when = entry.findtext("a:id", namespaces=ATOM), entry.findtext("a:updated", namespaces=ATOM)
        if link is None or link.get("href") != url or url not in products:
            fail(f"feed.atom: an entry's id {url} is no page of the sitemap, or not its link")
            continue
        if when != products[url]:
            fail(f"feed.atom: {url} updated {when}, its lastmod {products[url]}")
        record = by_url.get(url)
        if record and (entry.findtext("a:title", namespaces=ATOM) != record["title"]
                       or entry.findtext("a:summary", namespaces=ATOM) != record["summary"]):
            fail(f"feed.atom: {url}'s title or summary is not the record's")
        updated.append(instant(when))
    if updated != sorted(updated, reverse=True):
        fail("feed.atom: the entries are not newest first")
    ids = {entry.findtext("a:id", namespaces=ATOM) for entry in entries}
    left_out = [instant(lastmod) for url, lastmod in products.items() if url not in ids]
    if updated and left_out and max(left_out) > min(updated):
        fail("feed.atom: a newer product is left out for an older one")
    if updated and feed.findtext("a:updated", namespaces=ATOM) != entries[0].findtext("a:updated", namespaces=ATOM):
        fail("feed.atom: the feed's updated is not its newest entry's")
    return len(entries)


def check_image(site):
    """og-image.png: a PNG (its signature, each chunk's CRC) of 1200 × 630,
    the size Open Graph and X's large cards ask for, read with zlib alone."""
    data = (site / "og-image.png").read_bytes()
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        fail("og-image.png: no PNG signature")
        return
    at, kinds = 8, []
    while at < len(data):
        (length,) = struct.unpack(">I", data[at:at + 4])
        kind, body = data[at + 4:at + 8], data[at + 8:at + 8 + length]
        (crc,) = struct.unpack(">I", data[at + 8 + length:at + 12 + length])
        if zlib.crc32(kind + body) != crc:
            fail(f"og-image.png: the {kind!r} chunk's CRC is wrong")
        kinds.append((kind, body))
        at += 12 + length
    width, height = struct.unpack(">II", kinds[0][1][:8])
    if kinds[0][0] != b"IHDR" or (width, height) != (1200, 630) or kinds[-1][0] != b"IEND":
        fail(f"og-image.png: {kinds[0][0]!r} of {width} × {height}, ending {kinds[-1][0]!r}")
    raw = zlib.decompress(b"".join(body for kind, body in kinds if kind == b"IDAT"))
    if len(raw) != height * (1 + width * 3):
        fail(f"og-image.png: {len(raw)} bytes of pixels for RGB {width} × {height}")


def page_file(site, path):
    """The static site's file of a page path: / is index.html, others <path>.html;
    none for a path the site has no page at."""
    file = site / "index.html" if path == "/" else site / (path.lstrip("/") + ".html")
    return file if file.is_file() else None


def crawl(site, site_url, listed):
    """From / over links alone, as a crawler meets the site: every link to the
    site resolves to a page (the static site's files, as nginx maps them), each
    page found is valid HTML (html5lib, strict), and the pages found that are
    not noindex are exactly the sitemap's. Returns the paths found."""
    found, queue, links = set(), ["/"], 0
    while queue:
        path = queue.pop()
        if path in found:
            continue
        found.add(path)
        file = page_file(site, path)
        if file is None:
            fail(f"a link leads to {path}, which the site has no page at")
            continue
        strict_parse(file)
        doc = lhtml.fromstring(file.read_bytes())
        for href in doc.xpath("//a/@href | //link[@rel='canonical']/@href"):
            if not href.startswith(site_url + "/"):
                continue
            links += 1
            target = href[len(site_url):].split("#")[0]
            if target.endswith(("/robots.txt", "/sitemap.xml", "/favicon.ico", "/feed.atom")):
                continue
            if target not in found:
                queue.append(target)
    indexable = set()
    for path in found:
        file = page_file(site, path)
        if file is None:
            continue
        robots = lhtml.fromstring(file.read_bytes()).xpath("//meta[@name='robots']/@content")
        if "noindex" not in robots:
            indexable.add(site_url + path)
    if indexable != set(listed):
        fail(f"the crawl from / found {sorted(indexable - set(listed))} not in the sitemap, "
             f"and missed {sorted(set(listed) - indexable)} of it")
    return found, links


# Each taxonomy's pages, and the values of a record it groups it by.
TAXONOMIES = {
    "use-cases": lambda r: r["use_cases"],
    "audiences": lambda r: r["target_audiences"],
    "formats": lambda r: r["output_formats"],
    "marketplaces": lambda r: [e["label"] for e in r["marketplace_availability"]],
    "availability": None,
}


def term_products(site, site_url, first):
    """The product links of a term's pages, from its first page along each
    page's rel=next link, in order."""
    products, path = [], first
    while path:
        file = page_file(site, path)
        if file is None:
            fail(f"no page at {path}")
            return products
        doc = lhtml.fromstring(file.read_bytes())
        products += [h[len(site_url):] for h in doc.xpath('//ul[@class="cards"]/li/a/@href')]
        following = doc.xpath('//a[@rel="next"]/@href')
        path = following[0][len(site_url):] if following else None
    return products


def check_facets(site, site_url, records):
    """Each indexable product page links each of its values to a term page
    whose pages list the product; a noindex product links to none and is on
    none; each taxonomy's pages count each term's products as its pages list
    them. Returns how many term pages were read."""
    listed_on, terms = {}, 0
    for taxonomy in TAXONOMIES:
        # The taxonomy's pages, along rel=next: each term's name, link, count.
        path = f"/{taxonomy}"
        while path:
            doc = lhtml.fromstring(page_file(site, path).read_bytes())
            for li in doc.xpath('//ul[@class="terms"]/li'):
                link, count = li.xpath("./a")[0], li.xpath('./span[@class="meta"]')[0].text_content()
                first = link.get("href")[len(site_url):]
                products = term_products(site, site_url, first)
                terms += 1
                if count != f"({len(products)} product{'' if len(products) == 1 else 's'})":
                    fail(f"{path}: {link.text_content()} says {count}, its pages list {len(products)}")
                heading = lhtml.fromstring(page_file(site, first).read_bytes()).findtext(".//h1")
                if heading != link.text_content():
                    fail(f"{first}: heading {heading!r}, named {link.text_content()!r} on {path}")
                for product in products:
                    listed_on.setdefault(product, set()).add(first)
            following = doc.xpath('//a[@rel="next"]/@href')
            path = following[0][len(site_url):] if following else None
    for record in records:
        doc = lhtml.fromstring(page_file(site, record["canonical_path"]).read_bytes())
        links = {
            (a.get("href")[len(site_url):], a.text_content())
            for a in doc.xpath("//main//a[@href]")
            if a.get("href").startswith(site_url + "/") and a.get("href")[len(site_url) + 1:].split("/")[0] in TAXONOMIES
        }
        if hidden(record):
            if links or record["canonical_path"] in listed_on:
                fail(f"{record['slug']}: a noindex page links to terms {sorted(links)} or is on a term's page")
            continue
        for taxonomy, values in TAXONOMIES.items():
            for value in values(record) if values else []:
                targets = [path for path, text in links if text == value and path.startswith(f"/{taxonomy}/")]
                if len(targets) != 1:
                    fail(f"{record['slug']}: {value!r} links to {targets}, not one {taxonomy} page")
                elif targets[0] not in listed_on.get(record["canonical_path"], set()):
                    fail(f"{record['slug']}: not listed on {targets[0]}, which its page links {value!r} to")
        statuses = {path for path, _ in links if path.startswith("/availability/")}
        if len(statuses) != len({e["status"] for e in record["marketplace_availability"]}):
            fail(f"{record['slug']}: links to availability {sorted(statuses)}")
        if not statuses <= listed_on.get(record["canonical_path"], set()):
            fail(f"{record['slug']}: not listed on each availability it links to")
    return terms


def hidden(record):
    """Whether a page is kept from search engines: seo.noindex, or not listed publicly."""
    return record["seo"]["noindex"] or not record["is_visible"]


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--site", required=True, type=pathlib.Path)
    parser.add_argument("--bodies", required=True, type=pathlib.Path)
    parser.add_argument("--site-url", required=True)
    args = parser.parse_args()
    records = [json.loads(p.read_text())["data"] for p in sorted(args.bodies.glob("*.json"))]
    if not records:
        fail("no bodies")
    for record in records:
        check_page(args.site / (record["canonical_path"].lstrip("/") + ".html"), record, args.site_url)
    strict_parse(args.site / "404.html")
    listed = check_sitemap(args.site, records, args.site_url)
    found, links = crawl(args.site, args.site_url, listed or {})
    for record in records:
        if not hidden(record) and record["canonical_path"] not in found:
            fail(f"the crawl from / does not reach {record['canonical_path']}")
    entries = check_feed(args.site, args.site_url, listed or {}, records)
    terms = check_facets(args.site, args.site_url, records)
    check_image(args.site)
    noindex = sum(hidden(r) for r in records)
    print(f"pages: {len(records)} product pages ({noindex} noindex), 404.html, sitemap, robots.txt, the feed "
          f"({entries} entries), og-image.png and {terms} terms' pages checked; "
          f"a crawl from / over {links} links found {len(found)} pages, the sitemap's indexable set exactly")
    sys.exit(1 if failures else 0)


if __name__ == "__main__":
    main()
