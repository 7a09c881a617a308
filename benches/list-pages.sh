#!/usr/bin/env bash
# What the site's list pages, related products (and every page's header,
# footer and breadcrumbs) cost a build at scale, side by side with older
# binaries (BEFORE: one or more, separated by spaces):
# a full `build --site-url` of a catalog of N products (benches/make-catalog.py),
# then a build on that artifact after one product's title is edited, each
# with its time, peak RSS and artifact size.
#
#   BEFORE="/tmp/foundry-catalog-b297228 /tmp/foundry-catalog-0e4b0ed" N=100000 bash benches/list-pages.sh
#
# Release build of this checkout; /usr/bin/time; not run in CI (a minute
# a binary, machine-dependent figures); results go in BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."
N=${N:-100000}
BEFORE=${BEFORE:?older foundry-catalog binaries to compare with, separated by spaces}
cargo build --release --locked --quiet --bin foundry-catalog
now="$(cargo metadata --locked --format-version 1 --no-deps | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')/release/foundry-catalog"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 benches/make-catalog.py "$N" "$work/catalog"
measure() {
  local name=$1; shift
  /usr/bin/time -f "%e %M" "$@" 2> "$work/err" > /dev/null || { cat "$work/err" >&2; return 1; }
  read -r seconds kb < <(tail -n 1 "$work/err")
  echo "$name: ${seconds} s, peak RSS $((kb / 1024)) MiB"
}
for binary in $BEFORE "$now"; do
  label=$([ "$binary" = "$now" ] && echo now || basename "$binary")
  measure "$label full build" "$binary" build "$work/catalog" -o "$work/$label.fcat" --site-url https://catalog.example.com
  echo "$label artifact: $(stat -c %s "$work/$label.fcat") bytes"
  first=$(python3 -c 'import os, sys; print(min(os.listdir(sys.argv[1])))' "$work/catalog")
  python3 -c 'import json, sys; p = sys.argv[1]; m = json.load(open(p)); m["title"] += " (edited)"; json.dump(m, open(p, "w"))' "$work/catalog/$first"
  measure "$label build --previous (one title edited)" "$binary" build "$work/catalog" -o "$work/$label-2.fcat" \
    --previous "$work/$label.fcat" --site-url https://catalog.example.com
done
