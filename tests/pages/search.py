#!/usr/bin/env python3
"""The search page of `foundry-catalog serve` as a visitor meets it.

Given a running `serve` and the static site `pages` wrote for the same
catalog (its sitemap names the indexable products, its JSON records say
what each is), checks over HTTP, with parsers that share no code with the
project:

- every indexable product is found by its title, by the first word of its
  title and by each of its use cases: its page is among the matches, on
  one of the pages the search's `rel=next` links lead to;
- the count a search states is the number of matches its pages list,
  each product once; a query with words no product has matches nothing
  and says so;
- no noindex product is ever listed;
- every search page parses under html5lib in strict mode, carries
  `noindex`, keeps the query in its form, and shows a query of markup as
  text (escaped), never as markup;
- a page number no search has (0, past the last, not a number) is 404
  with the not-found page; HEAD has no body; gzip decodes to the page;
- the static site's search.html says it has no search and links to the
  list and facet pages, and every page of both has the same search form.

Usage: search.py --serve http://127.0.0.1:PORT --site DIR --site-url URL
"""

import argparse
import gzip
import http.client
import json
import pathlib
import re
import sys
import urllib.parse
import xml.etree.ElementTree as ET

import html5lib

SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
PRODUCT = re.compile(r"^/(datasets|actors|automation)/[^/]+$")
FORM = re.compile(r'<form class="search"[^>]*>.*?</form>', re.S)


def fail(message):
    sys.exit(f"search: {message}")


class Serve:
    def __init__(self, base):
        parts = urllib.parse.urlsplit(base)
        self.host, self.port = parts.hostname, parts.port
        self.asked = 0

    def get(self, target, method="GET", headers=None):
        connection = http.client.HTTPConnection(self.host, self.port, timeout=30)
        connection.request(method, target, headers=headers or {})
        response = connection.getresponse()
        body = response.read()
        connection.close()
        self.asked += 1
        return response.status, {k.lower(): v for k, v in response.getheaders()}, body


def search(serve, site_url, query):
    """(product paths in the order listed, the stated count) of `query`, across its pages."""
    listed, stated, pages = [], None, 0
    target = "/search?" + urllib.parse.urlencode({"q": query})
    while target:
        status, headers, body = serve.get(target)
        if status != 200 or not headers.get("content-type", "").startswith("text/html"):
            fail(f"{target}: {status} {headers.get('content-type')}")
        text = body.decode()
        try:
            html5lib.HTMLParser(strict=True).parse(text)
        except html5lib.html5parser.ParseError as e:
            fail(f"{target}: html5lib (strict): {e}")
        if '<meta name="robots" content="noindex">' not in text:
            fail(f"{target}: not noindex")
        value = re.search(r'<main>.*?<input type="search" name="q" value="([^"]*)"', text, re.S)
        if not value or value.group(1) != html_escape(query):
            fail(f"{target}: the form does not keep the query {query!r}")
        meta = re.search(r'<p class="meta">(\d+) product', text)
        if meta:
            stated = int(meta.group(1))
        cards = re.search(r'<ul class="cards">(.*?)</ul>', text, re.S)
        if cards:
            listed += [urllib.parse.urlsplit(h).path for h in re.findall(r'<a href="([^"]*)"', cards.group(1))]
        pages += 1
        following = re.search(r'<a rel="next" href="([^"]*)"', text)
        target = None
        if following:
            url = urllib.parse.urlsplit(following.group(1).replace("&amp;", "&"))
            if f"{url.scheme}://{url.netloc}" != site_url.rstrip("/"):
                fail(f"{query!r}: next page {following.group(1)} is not on the site")
            target = f"{url.path}?{url.query}"
    return listed, (stated if stated is not None else 0), pages


def html_escape(text):
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;").replace('"', "&quot;").replace("'", "&#39;")


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--serve", required=True)
    parser.add_argument("--site", required=True, type=pathlib.Path)
    parser.add_argument("--site-url", required=True)
    args = parser.parse_args()
    serve = Serve(args.serve)
    sitemap = ET.parse(args.site / "sitemap.xml").getroot()
    paths = [urllib.parse.urlsplit(loc.text).path for loc in sitemap.iter(f"{SITEMAP}loc")]
    products = [p for p in paths if PRODUCT.match(p)]
    if len(products) < 3:
        fail(f"only {len(products)} products in the sitemap")
    records = {}
    for record in (args.site / "api/public/foundry/products").glob("*.json"):
        data = json.loads(record.read_text())["data"]
        records[data["canonical_path"]] = data
    hidden = {path for path in records if path not in products}
    queries = 0
    for path in products:
        data = records[path]
        asked = [data["title"], data["title"].split()[0]] + data.get("use_cases", [])
        for query in asked:
            listed, stated, _ = search(serve, args.site_url, query)
            queries += 1
            if path not in listed:
                fail(f"{query!r} does not find {path}")
            if len(listed) != len(set(listed)) or stated != len(listed):
                fail(f"{query!r}: says {stated} matches, lists {len(listed)} ({len(set(listed))} distinct)")
            if hidden & set(listed):
                fail(f"{query!r} lists noindex pages {sorted(hidden & set(listed))}")
    listed, stated, _ = search(serve, args.site_url, "zzzunknownword")
    if listed or stated:
        fail("a word no product has matches something")
    markup = '<script>alert("x")</script> & <b>'
    status, _, body = serve.get("/search?" + urllib.parse.urlencode({"q": markup}))
    if status != 200 or b"<script>alert" in body or b"<b>" in body:
        fail("a query of markup is shown as markup")
    search(serve, args.site_url, markup)
    status, headers, body = serve.get("/search?q=signals")
    for bad in ("/search?q=signals&page=0", "/search?q=signals&page=999", "/search?q=signals&page=x"):
        bad_status, bad_headers, _ = serve.get(bad)
        if bad_status != 404 or not bad_headers.get("content-type", "").startswith("text/html"):
            fail(f"{bad}: {bad_status}, not the not-found page")
    head_status, head_headers, head_body = serve.get("/search?q=signals", "HEAD")
    if head_status != 200 or head_body or head_headers.get("content-length") != str(len(body)):
        fail(f"HEAD: {head_status}, {len(head_body)} bytes, length {head_headers.get('content-length')}")
    _, gz_headers, gz_body = serve.get("/search?q=signals", headers={"Accept-Encoding": "gzip"})
    if gz_headers.get("content-encoding") != "gzip" or gzip.decompress(gz_body) != body:
        fail("gzip does not decode to the page")
    if headers.get("vary") != "Accept-Encoding":
        fail(f"Vary: {headers.get('vary')}")
    static = (args.site / "search.html").read_text()
    if "it has no search" not in static or 'href="' + args.site_url.rstrip("/") + '/use-cases"' not in static:
        fail("the static site's search.html does not say what it offers instead")
    forms = {FORM.search(static).group(0), FORM.search(body.decode()).group(0)}
    forms |= {FORM.search((args.site / f).read_text()).group(0) for f in ("index.html", "datasets.html", "404.html")}
    if len(forms) != 1:
        fail(f"the header's search form differs between pages: {forms}")
    print(f"search: {len(products)} products each found by title, first word and use cases "
          f"({queries} queries, {serve.asked} requests); escaping, 404s, HEAD, gzip, static page and forms checked")


if __name__ == "__main__":
    main()
