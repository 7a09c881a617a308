#!/usr/bin/env bash
# How many clicks from / a visitor (or a crawler) needs to reach each
# product, at scale, side by side with older binaries (BEFORE: zero or
# more, separated by spaces): each builds a catalog of N products
# (benches/make-catalog.py) with its pages, serves the artifact, and
# tests/pages/crawl.py crawls it from / over HTTP, breadth first: the
# build's time, peak RSS and artifact size, the requests the crawl made,
# and the maximum and mean depth of the sitemap's pages (the goal: at
# most 4).
#
#   BEFORE=/tmp/foundry-catalog-f033c52 N=100000 bash benches/crawl.sh
#
# Release build of this checkout; not run in CI (minutes a binary); results
# go in BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-100000}
BEFORE=${BEFORE:-}
cargo build --release --locked --quiet --bin foundry-catalog
now="$(cargo metadata --locked --format-version 1 --no-deps | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')/release/foundry-catalog"
work=$(mktemp -d)
serve_pid=
trap '[ -n "$serve_pid" ] && kill "$serve_pid" 2>/dev/null; rm -rf "$work"' EXIT
python3 benches/make-catalog.py "$N" "$work/catalog"
site_url=https://catalog.example.com
for binary in $BEFORE "$now"; do
  label=$([ "$binary" = "$now" ] && echo now || basename "$binary")
  /usr/bin/time -f "%e %M" "$binary" build "$work/catalog" -o "$work/catalog.fcat" --site-url "$site_url" 2> "$work/err"
  read -r seconds kb < <(tail -n 1 "$work/err")
  port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
  "$binary" serve --catalog "$work/catalog.fcat" --port "$port" 2> "$work/serve.log" &
  serve_pid=$!
  until curl -fs -o /dev/null "http://127.0.0.1:$port/robots.txt"; do
    kill -0 "$serve_pid" 2>/dev/null || { cat "$work/serve.log" >&2; exit 1; }
    sleep 0.2
  done
  echo "$label ($N products): build ${seconds} s, peak RSS $((kb / 1024)) MiB, artifact $(stat -c %s "$work/catalog.fcat") bytes"
  # An older binary may miss the goal: its figures still print.
  python3 tests/pages/crawl.py --base "http://127.0.0.1:$port" --site-url "$site_url" 2>&1 | head -n 5 || true
  kill "$serve_pid"; wait "$serve_pid" 2>/dev/null || true
  serve_pid=
  rm -f "$work/catalog.fcat"
done
