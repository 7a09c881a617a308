#!/usr/bin/env python3
"""A crawl of a running site over HTTP, breadth first from /, as a search
engine's crawler or a visitor clicking links meets it.

Follows every link to the site (`href` of `<a>`; absolute URLs under
--site-url, or paths), the JSON records pages link to among them,
fetching each once over one keep-alive
connection to --base, and records how many clicks from / each page is
first reached. Then reads the sitemap (an index and its parts, or one
file) and fails when:

- a link to the site answers anything but 200 (a broken link, or one to a
  redirect: the site links to canonical URLs only);
- a page the sitemap lists is not reached;
- a product's page the sitemap lists is more than --max-depth clicks
  from / (default 4). Other pages (a long route's later pages, a facet's)
  may be deeper: the promise is about products.

Prints the pages fetched, and the maximum and mean depth of the sitemap's
product pages and of all its pages. No dependency outside Python's standard library, so that it runs
the same in CI and against a 100,000-product catalog in a benchmark.

Usage: crawl.py --base http://127.0.0.1:PORT --site-url https://catalog.example.com [--max-depth 4]
"""

import argparse
import collections
import http.client
import re
import sys
import urllib.parse
import xml.etree.ElementTree as ET

HREF = re.compile(rb'<a\b[^>]*?\bhref="([^"]*)"')
SITEMAP = "{http://www.sitemaps.org/schemas/sitemap/0.9}"
# Files a page links to that are not pages.
NOT_PAGES = ("/robots.txt", "/sitemap.xml", "/favicon.ico")
# A product's page: /<route>/<slug>.
PRODUCT = re.compile(r"^/(datasets|actors|automation)/[^/]+$")


class Site:
    """One keep-alive connection to the site under test."""

    def __init__(self, base):
        parts = urllib.parse.urlsplit(base)
        self.host, self.port = parts.hostname, parts.port or 80
        self.connection = http.client.HTTPConnection(self.host, self.port, timeout=30)
        self.fetched = 0

    def get(self, path):
        """(status, Content-Type, body) of GET `path`."""
        for attempt in (1, 2):
            try:
                self.connection.request("GET", path)
                response = self.connection.getresponse()
                body = response.read()
                self.fetched += 1
                return response.status, response.getheader("Content-Type", ""), body
            except (http.client.HTTPException, ConnectionError):
                # A server may close an idle keep-alive connection: open another.
                self.connection.close()
                self.connection = http.client.HTTPConnection(self.host, self.port, timeout=30)
                if attempt == 2:
                    raise
        raise AssertionError("unreachable")


def path_of(href, site_url):
    """The site path `href` links to; None for a link off the site."""
    href = href.decode() if isinstance(href, bytes) else href
    href = href.replace("&amp;", "&").split("#")[0]
    if href.startswith(site_url + "/"):
        return href[len(site_url):]
    if href.startswith("/") and not href.startswith("//"):
        return href
    return None


def sitemap_paths(site, site_url):
    """Every page path the sitemap lists (through its index, if it has one)."""
    paths, files = [], ["/sitemap.xml"]
    while files:
        status, _, body = site.get(files.pop())
        if status != 200:
            sys.exit(f"the sitemap answered {status}")
        root = ET.fromstring(body)
        for loc in root.iter(SITEMAP + "loc"):
            path = path_of(loc.text.strip(), site_url)
            if path is None:
                sys.exit(f"the sitemap lists {loc.text}, off the site")
            (files if root.tag == SITEMAP + "sitemapindex" else paths).append(path)
    return paths


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--base", required=True)
    parser.add_argument("--site-url", required=True)
    parser.add_argument("--max-depth", type=int, default=4)
    args = parser.parse_args()
    site_url = args.site_url.rstrip("/")
    site = Site(args.base)
    depth, queue, broken = {"/": 0}, collections.deque(["/"]), []
    while queue:
        path = queue.popleft()
        status, kind, body = site.get(path)
        if status != 200:
            broken.append(f"{path}: {status}")
            continue
        if not kind.startswith("text/html"):
            continue
        for href in HREF.findall(body):
            target = path_of(href, site_url)
            if target is None or target.endswith(NOT_PAGES):
                continue
            if target not in depth:
                depth[target] = depth[path] + 1
                queue.append(target)
    listed = sitemap_paths(site, site_url)
    missed = [path for path in listed if path not in depth]
    products = [path for path in listed if PRODUCT.match(path)]
    deep = [f"{path}: {depth[path]} clicks" for path in products if depth.get(path, 0) > args.max_depth]
    depths = [depth[path] for path in products if path in depth]
    every = [depth[path] for path in listed if path in depth]
    print(
        f"crawl: {len(depth)} pages and records reached from / in {site.fetched} requests; the sitemap's {len(products)} "
        f"product pages at most {max(depths, default=0)} clicks from /, {sum(depths) / max(len(depths), 1):.2f} on average; "
        f"all its {len(listed)} pages at most {max(every, default=0)}, {sum(every) / max(len(every), 1):.2f} on average"
    )
    problems = [f"broken link: {b}" for b in broken[:20]]
    problems += [f"not reached from /: {p}" for p in missed[:20]]
    problems += [f"deeper than {args.max_depth}: {d}" for d in deep[:20]]
    if problems:
        sys.exit("\n".join(problems))


if __name__ == "__main__":
    main()
