#!/usr/bin/env bash
# Replica benchmark: what pulling a catalog from an origin costs a replica,
# at 10,000 and 100,000 products made by benches/make-catalog.py. nginx on
# loopback is the origin (as in .ci/fleet); the replica is the release
# `foundry-catalog serve --catalog http://… --verify-key …`.
#
#  - start-up: from launch to the first 200 (download, verify every body,
#    load), with an empty state folder;
#  - a new artifact (one manifest edited, a new sequence) published while
#    the replica serves: the reload's own figure (`catalog reloaded …
#    seconds=`: download, verify, check, swap) and from publication (the
#    rename of a file already copied beside it) to the first 200 with the
#    new body (that adds up to one poll interval, 1 s, and its jitter);
#  - the bytes the replica fetched for that edit (its /metrics), against
#    the artifact's size: a delta of its last good artifact;
#  - the replica's peak RSS (VmHWM) after the swap, against the artifact's
#    size;
#  - a restart with the origin up and unchanged (one 304): to the first 200.
#
#   bash benches/replica.sh
#   SIZES=10000 bash benches/replica.sh
#
# Release build, loopback, whatever cores the machine has. Not run in CI
# (minutes, and machine-dependent figures); results go in BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."

SIZES=${SIZES:-10000 100000}
ADDR=127.0.0.1:18092
ORIGIN=127.0.0.1:18093
PRODUCTS=/api/public/foundry/products

source benches/common.sh
trap 'stop; stop_origin; rm -rf "$work"' EXIT
start_origin "$ORIGIN"
"$bin" keygen --out "$work/ci" >/dev/null 2>&1

# stage <artifact>, then publish: puts it at the origin whole (copied
# beside, then renamed: the rename is the publication).
stage() { cp "$1" "$work/www/.catalog.tmp"; }
publish() { mv "$work/www/.catalog.tmp" "$work/www/catalog.fcat"; }
# replica <slug>: starts the replica (its log at INFO, for the reload's
# figure) and returns once <slug> answers 200.
replica() {
  RUST_LOG=info,access=warn "$bin" serve --addr "$ADDR" --catalog "http://$ORIGIN/catalog.fcat" \
    --state-dir "$work/state" --verify-key "$work/ci.pub" --poll-interval 1s --max-artifact-bytes 64GiB \
    2>"$work/serve.log" &
  server_pid=$!
  until curl -fs -o /dev/null "http://$ADDR$PRODUCTS/$1"; do
    kill -0 "$server_pid" 2>/dev/null || { cat "$work/serve.log" >&2; exit 1; }
    sleep 0.01
  done
}

echo "foundry-catalog replica benchmark, $(nproc) cores, $(date -u +%F)"
echo
# The bytes the replica has fetched from the origin for new artifacts (its /metrics).
fetched() { curl -fs "http://$ADDR/metrics" | awk '/^foundry_catalog_origin_fetched_bytes_total / {print $2}'; }

echo "| products | artifact | start-up: first 200 | new artifact: reload | publication to new 200 | fetched for the edit (× artifact) | peak RSS (× artifact) | restart, origin unchanged: first 200 |"
echo "|---|---|---|---|---|---|---|---|"
for size in $SIZES; do
  catalog="$work/catalog-$size"
  python3 benches/make-catalog.py "$size" "$catalog"
  slug=$(ls "$catalog" | sed -n '1s/\.json$//p')
  "$bin" build "$catalog" -o "$work/one.fcat" --sign-key "$work/ci.key" --sequence 1 2>/dev/null
  retitle "$catalog" "$slug" "Published while served"
  "$bin" build "$catalog" -o "$work/two.fcat" --sign-key "$work/ci.key" --sequence 2 --previous "$work/one.fcat" 2>/dev/null
  bytes=$(stat -c %s "$work/one.fcat")
  stage "$work/one.fcat"
  publish
  rm -rf "$work/state"

  start=$(now)
  replica "$slug"
  started=$(seconds "$start" "$(now)")
  stage "$work/two.fcat"
  sleep 1
  fetched_before=$(fetched)
  start=$(now)
  publish
  until curl -fs "http://$ADDR$PRODUCTS/$slug" | grep -q "Published while served"; do sleep 0.01; done
  published=$(seconds "$start" "$(now)")
  sleep 0.5
  edit_fetched=$(( $(fetched) - fetched_before ))
  reload=$(grep -o 'catalog reloaded.*seconds=[0-9.]*' "$work/serve.log" | tail -n 1 | sed 's/.*seconds=//' || true)
  reload=$(printf '%.2f' "${reload:-0}")
  hwm=$(awk '/VmHWM/ {print $2}' "/proc/$server_pid/status")
  stop

  start=$(now)
  replica "$slug"
  restarted=$(seconds "$start" "$(now)")
  stop
  ratio=$(echo "scale=2; $hwm * 1024 / $bytes" | bc)
  share=$(echo "scale=6; $edit_fetched / $bytes" | bc)
  echo "| $size | $((bytes / 1000000)) MB | $started s | ${reload:-?} s | $published s | $((edit_fetched / 1000)) kB ($share×) | $((hwm / 1024)) MiB ($ratio×) | $restarted s |"
  rm -rf "$catalog" "$work/one.fcat" "$work/two.fcat"
done
