#!/usr/bin/env bash
# Serving from the artifact file: what start-up, memory and a swap cost a
# server of SIZE products with pages (made by benches/make-catalog.py),
# this build side by side with BEFORE (an older release binary), each
# building and serving its own artifact format, in one run:
#
#  - build: cold, signed (`build --sign-key`), time and artifact size;
#  - start-up: `serve --catalog FILE --verify-key KEY`, from exec to the
#    first 200, with the file in the page cache (read once before), the
#    median of three starts;
#  - RSS at rest, one second after the first 200, against the artifact's
#    size;
#  - a swap: one manifest retitled, built on the served artifact
#    (`build --previous`), renamed over it, SIGHUP; once the new title is
#    served, the process's peak RSS (VmHWM, start-up included) against the
#    artifact's size.
#
#   BEFORE=/tmp/foundry-catalog-e07c0e0 bash benches/serve-from-file.sh
#   SIZE=10000 bash benches/serve-from-file.sh        # this build alone
#
# Release build, loopback, whatever cores the machine has. Not run in CI
# (minutes, and machine-dependent figures); results go in BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."

SIZE=${SIZE:-100000}
BEFORE=${BEFORE:-}
ADDR=127.0.0.1:18094
PRODUCTS=/api/public/foundry/products

source benches/common.sh

"$bin" keygen --out "$work/key" >/dev/null 2>&1
catalog=$work/catalog
python3 benches/make-catalog.py "$SIZE" "$catalog"
first=$(ls "$catalog" | sed -n '1s/\.json$//p')

# measure <name> <binary>: one table row.
measure() {
  local name=$1 binary=$2 artifact=$work/$1.fcat start built size starts=() rss hwm
  start=$(now)
  "$binary" build "$catalog" -o "$artifact" --sign-key "$work/key.key" 2>/dev/null
  built=$(seconds "$start" "$(now)")
  size=$(stat -c %s "$artifact")
  cat "$artifact" >/dev/null
  for round in 1 2 3; do
    start=$(now)
    serve "$binary" "$artifact" "$first" --verify-key "$work/key.pub"
    starts+=("$(seconds "$start" "$(now)")")
    [ "$round" = 3 ] || stop
  done
  sleep 1
  rss=$(awk '/VmRSS/ {print $2}' "/proc/$server_pid/status")
  retitle "$catalog" "$first" "Swapped by $name"
  "$binary" build "$catalog" -o "$work/next.fcat" --previous "$artifact" --sign-key "$work/key.key" 2>/dev/null
  mv "$work/next.fcat" "$artifact"
  kill -HUP "$server_pid"
  until curl -fs "http://$ADDR$PRODUCTS/$first" | grep -q "Swapped by $name"; do sleep 0.05; done
  hwm=$(awk '/VmHWM/ {print $2}' "/proc/$server_pid/status")
  stop
  rm -f "$artifact"
  local median
  median=$(printf '%s\n' "${starts[@]}" | sort -n | sed -n 2p)
  ratio() { echo "scale=3; $1 * 1024 / $size" | bc; }
  echo "| $name | $built s | $((size / 1000000)) MB | $median s (${starts[*]}) | $((rss / 1024)) MiB ($(ratio "$rss")) | $((hwm / 1024)) MiB ($(ratio "$hwm")) |"
}

echo "foundry-catalog serving from the file, $SIZE products with pages, $(nproc) cores"
echo
echo "| binary | build | artifact | verified start-up: first 200, median (3 runs) | RSS at rest (× artifact) | peak RSS after a swap (× artifact) |"
echo "|---|---|---|---|---|---|"
if [ -n "$BEFORE" ]; then
  measure before "$BEFORE"
fi
measure this "$bin"
