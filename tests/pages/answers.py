#!/usr/bin/env python3
"""The static site under the nginx recipe answers as `serve` does.

Asks both servers the same requests (every path given on stdin, and many
other forms of a path: trailing slashes, `.html`, `//`, `/./`, `/../`,
`/index`, compressed siblings, invalid and unknown slugs, …), each with and
without `Accept-Encoding: gzip`, and compares, answer for answer:

- the status and, for a move, where it moves to (as a path);
- Content-Type, Content-Encoding, Vary and Cache-Control, header for header
  (ETag and Last-Modified are each server's own);
- the body, byte for byte, when it is not compressed (but a move's, which
  no client shows, nor its Content-Type; and the search page's, which
  searches on `serve` and says the static site cannot).

Usage: answers.py --serve http://127.0.0.1:A --static http://127.0.0.1:B < paths
"""

import argparse
import http.client
import sys
import urllib.parse

HEADERS = ("content-type", "content-encoding", "vary", "cache-control")
# Pages whose body differs by design: serve's search page searches, the
# static site's says it cannot (tests/pages/search.py checks both).
DYNAMIC = ("/search",)


def forms(page, record):
    """The other forms of a page's path and of a record's, and paths no one has."""
    slug = record.rsplit("/", 1)[1]
    api = "/api/public/foundry/products/"
    return [
        page + "/", page + "//", page + ".html", page + ".html.gz", page + ".html.br", page + "?q=1",
        "/" + page.lstrip("/").replace("/", "//", 1), page.replace("/", "/./", 2), page.replace("/", "/x/../", 2),
        page + "/.", "/", "/index", "/index.html", "/index.html.gz", "//", "/./", "/datasets/", "/datasets.html",
        "/datasets/page/1", "/datasets/page/02", "/datasets/page/2/", "/datasets/page/999", "/Datasets",
        "/robots.txt.gz", "/sitemap.xml.gz", "/404.html", "/404", "/.html", "/no-such-page", "/datasets/no-such-page",
        record + "/", record + ".json", record + "x", api, api + "UPPER", api + "a--b", api + "-a", api + "a" * 201,
        api + "a" * 200, api + "a/b", api + slug + "/x", "/api/", "/api/x", "/api/public/foundry/", api + "%61",
    ]


def answer(base, path, gzip):
    parts = urllib.parse.urlsplit(base)
    connection = http.client.HTTPConnection(parts.hostname, parts.port, timeout=30)
    connection.putrequest("GET", path, skip_accept_encoding=True)
    if gzip:
        connection.putheader("Accept-Encoding", "gzip")
    connection.endheaders()
    response = connection.getresponse()
    body = response.read()
    connection.close()
    location = response.getheader("Location")
    if location is not None:
        location = urllib.parse.urlsplit(location).path
    headers = {name: response.getheader(name) for name in HEADERS}
    shown = body if headers["content-encoding"] is None else None
    if response.status == 301:
        # What a move says besides where to is no one's to read.
        headers["content-type"], shown = None, None
    return response.status, location, headers, shown


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--serve", required=True)
    parser.add_argument("--static", required=True)
    args = parser.parse_args()
    paths = [line.strip() for line in sys.stdin if line.strip()]
    page = next(p for p in paths if p.count("/") == 2 and not p.startswith("/api/"))
    record = next(p for p in paths if p.startswith("/api/"))
    differ, asked = [], 0
    for path in paths + forms(page, record):
        for gzip in (False, True):
            want, got = answer(args.serve, path, gzip), answer(args.static, path, gzip)
            asked += 1
            if path in DYNAMIC:
                want, got = want[:3], got[:3]
            if want != got:
                differ.append(f"{path} (gzip: {gzip}):\n  serve  {want[:3]}\n  static {got[:3]}"
                              + ("" if want[3] == got[3] else "\n  and the bodies differ"))
    if differ:
        sys.exit(f"{len(differ)} of {asked} answers differ:\n" + "\n".join(differ[:30]))
    print(f"the nginx recipe answers as serve does: {asked} requests, status, move, "
          f"{', '.join(HEADERS)} and body")


if __name__ == "__main__":
    main()
