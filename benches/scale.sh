#!/usr/bin/env bash
# Scale benchmark: catalogs of 1,000 / 10,000 / 100,000 products made from
# the example manifests (benches/make-catalog.py), and for each:
#
#  - `foundry-catalog build` time and the artifact's size, with pages (the
#    default: every product's HTML page, the sitemap and robots.txt) and
#    with --no-pages, side by side;
#  - start-up to the first 200 and RSS at rest (1 s after), loading the
#    artifact (`serve --catalog <file>`), loading it with its signature
#    and every body verified (`--verify-key`), and building the folder in
#    memory (`serve --catalog <dir>`), each against the stored representations
#    (the artifact's data region: every body in every coding, slugs, dates
#    and ETags);
#  - with BEFORE=<an older foundry-catalog binary>, the same folder start-up
#    with it, side by side.
#
#   bash benches/scale.sh
#   SIZES="1000 10000" BEFORE=/tmp/foundry-catalog-e3d1808 bash benches/scale.sh
#   ARTIFACT_ONLY=1 SIZES=1000000 bash benches/scale.sh   # the artifact's columns alone (no --no-pages build, no folder served)
#   LOAD=1 ARTIFACT_ONLY=1 SIZES=1000000 bash benches/scale.sh   # and req/s (below)
#
# With LOAD=1, the artifact served (`serve --catalog FILE --workers 1`,
# on the second half of the CPUs) is asked for random products by wrk
# (benches/random-slug.lua, on the first half), as load.sh's PIN=1 does,
# two runs of DURATION (default 10s) back to back: the first from a
# catalog that has read no body yet (each body read from the file and
# checked at its first request), the second after it.
#
# Release build, loopback, whatever cores the machine has. Not run in CI
# (minutes, and machine-dependent figures); results go in BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."

SIZES=${SIZES:-1000 10000 100000}
LOAD=${LOAD:-}
DURATION=${DURATION:-10s}
BEFORE=${BEFORE:-}
ARTIFACT_ONLY=${ARTIFACT_ONLY:-}
ADDR=127.0.0.1:18090
PRODUCTS=/api/public/foundry/products

source benches/common.sh

# start-up <binary> <catalog> <slug> [serve flags…]: prints "<seconds to first 200> <RSS KiB at rest>".
startup() {
  local start ready rss
  start=$(now)
  serve "$@"
  ready=$(now)
  sleep 1
  rss=$(awk '/VmRSS/ {print $2}' "/proc/$server_pid/status")
  stop
  echo "$(seconds "$start" "$ready") $rss"
}

# The data region's length (format 4: the table and the bodies), from the artifact's header.
data_bytes() { python3 -c 'import struct,sys; h=open(sys.argv[1],"rb").read(64); print(sum(struct.unpack_from("<QQ", h, 48)))' "$1"; }

echo "foundry-catalog scale benchmark, $(nproc) cores"
echo
"$bin" keygen --out "$work/key" 2>/dev/null
echo "| products | build | build, --no-pages | artifact | artifact, --no-pages | stored | load: first 200 | load: RSS (× stored) | load, verified: first 200 | folder: first 200 | folder: RSS (× stored) |${BEFORE:+ before: folder first 200 | before: RSS |}"
echo "|---|---|---|---|---|---|---|---|---|---|---|${BEFORE:+---|---|}"
for size in $SIZES; do
  catalog="$work/catalog-$size"
  python3 benches/make-catalog.py "$size" "$catalog"
  first=$(ls "$catalog" | sed -n '1s/\.json$//p')
  artifact="$work/catalog-$size.fcat"
  start=$(now)
  "$bin" build "$catalog" -o "$artifact" --sign-key "$work/key.key" 2>/dev/null
  built=$(seconds "$start" "$(now)")
  built_plain=– plain_mb=–
  if [ -z "$ARTIFACT_ONLY" ]; then
    start=$(now)
    "$bin" build "$catalog" -o "$artifact.no-pages" --sign-key "$work/key.key" --no-pages 2>/dev/null
    built_plain="$(seconds "$start" "$(now)") s"
    plain_mb="$(( $(stat -c %s "$artifact.no-pages") / 1000000 )) MB"
    rm -f "$artifact.no-pages"
  fi
  size_mb=$(( $(stat -c %s "$artifact") / 1000000 ))
  stored=$(data_bytes "$artifact")
  read -r load_s load_rss <<<"$(startup "$bin" "$artifact" "$first")"
  read -r verified_s _ <<<"$(startup "$bin" "$artifact" "$first" --verify-key "$work/key.pub")"
  ratio() { echo "scale=2; $1 * 1024 / $stored" | bc; }
  folder="– | – |"
  if [ -z "$ARTIFACT_ONLY" ]; then
    read -r dir_s dir_rss <<<"$(startup "$bin" "$catalog" "$first")"
    folder="$dir_s s | $((dir_rss / 1024)) MiB ($(ratio "$dir_rss")) |"
  fi
  row="| $size | $built s | $built_plain | $size_mb MB | $plain_mb | $((stored / 1000000)) MB | $load_s s | $((load_rss / 1024)) MiB ($(ratio "$load_rss")) | $verified_s s | $folder"
  if [ -n "$BEFORE" ]; then
    read -r before_s before_rss <<<"$(startup "$BEFORE" "$catalog" "$first")"
    row="$row $before_s s | $((before_rss / 1024)) MiB |"
  fi
  echo "$row"
  if [ -n "$LOAD" ]; then
    command -v wrk >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }
    half=$(( $(nproc) / 2 )); [ "$half" -ge 1 ] || half=1
    slugs="$work/slugs-$size"
    ls "$catalog" | sed 's/\.json$//' > "$slugs"
    RUST_LOG=warn taskset -c "$half-$(( $(nproc) - 1 ))" "$bin" serve --addr "$ADDR" --catalog "$artifact" --workers 1 2>"$work/serve.log" &
    server_pid=$!
    until curl -fs -o /dev/null "http://$ADDR$PRODUCTS/$first"; do sleep 0.01; done
    for run in first second; do
      rps=$(SLUGS=$slugs taskset -c "0-$((half - 1))" wrk -t"$half" -c64 -d"$DURATION" -s benches/random-slug.lua "http://$ADDR" | awk '/Requests\/sec/ {print $2}')
      echo "  $size products, $run $DURATION of random products: $rps req/s (wrk on CPUs 0-$((half - 1)), the server on $half-$(( $(nproc) - 1 )), one worker)"
    done
    stop
  fi
  rm -rf "$catalog" "$artifact"
done
