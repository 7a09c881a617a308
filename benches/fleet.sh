#!/usr/bin/env bash
# Fleet benchmark: from a one-manifest edit to every replica serving it,
# at SIZE products (default 100,000) made by benches/make-catalog.py.
# nginx on loopback is the origin (as in .ci/fleet); REPLICAS (default 5)
# release `foundry-catalog serve --catalog http://… --verify-key …`
# replicas poll it every POLL (default 0.5 s), each with a state folder of
# its own. Once every replica serves the first artifact, a first edit
# is published, untimed (every replica then holds a delta layered over
# its last good file, as after any edit, and the disk settles from the
# first whole downloads); then one manifest is retitled and, timed from
# that edit:
#
#  - build: `build --previous` on the last artifact (its stamps beside it,
#    as a CI cache keeps them), signed, with the next sequence;
#  - publish: the new file renamed into nginx's folder;
#  - pull: until every replica answers the product with the new title
#    (each pulls a delta of its last good artifact: head blocks and the
#    changed product's bodies, and writes those, the first edit's
#    product it carries, and holes where its last good file has the
#    bodies);
#
# and the bytes each replica fetched for it (its /metrics) against the
# artifact's size, and what each keeps on disk for it.
#
#   bash benches/fleet.sh
#   SIZE=10000 REPLICAS=3 bash benches/fleet.sh
#   BIN=/tmp/foundry-catalog-before bash benches/fleet.sh   # a previous binary
#   PACKS=1 bash benches/fleet.sh   # packed artifacts (`build --packs`)
#   REPLICA_LOG=info bash benches/fleet.sh   # the replicas' logs after the table
#
# With PACKS=1 every build is `build --packs` into a folder of its own
# (on the last one, `--previous` its own list), and publishing copies
# the packs nginx does not hold yet into its `fcpacks/`, then renames
# the list into place: replicas pull the list and ranges of packs.
#
# Release build, loopback, whatever cores the machine has (the replicas,
# nginx and the build share them). Not run in CI (minutes, and
# machine-dependent figures); results go in BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."

SIZE=${SIZE:-100000}
PACKS=${PACKS:-0}
REPLICAS=${REPLICAS:-5}
POLL=${POLL:-500ms}
ORIGIN=127.0.0.1:18095
FIRST_PORT=18100
ADDR=127.0.0.1:$FIRST_PORT
PRODUCTS=/api/public/foundry/products

source benches/common.sh
# BIN=path runs another build of foundry-catalog (a previous commit's, side by side).
bin=${BIN:-$bin}
pids=()
stop_all() { for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done; for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done; }
trap 'stop_all; stop_origin; rm -rf "$work"' EXIT
start_origin "$ORIGIN"
"$bin" keygen --out "$work/ci" >/dev/null 2>&1

catalog=$work/catalog
python3 benches/make-catalog.py "$SIZE" "$catalog"
slug=$(ls "$catalog" | sed -n '1s/\.json$//p')
# build OUT PREVIOUS SEQUENCE: one file, or (PACKS=1) the pack list
# $work/site/catalog.fcat, built on the last one.
build() {
  if [ "$PACKS" = 1 ]; then
    local previous=()
    [ -e "$work/site/catalog.fcat" ] && previous=(--previous "$work/site/catalog.fcat")
    "$bin" build "$catalog" -o "$work/site/catalog.fcat" --packs "${previous[@]}" \
      --sign-key "$work/ci.key" --sequence "$3"
  else
    local previous=()
    [ -n "$2" ] && previous=(--previous "$2")
    "$bin" build "$catalog" -o "$1" "${previous[@]}" --sign-key "$work/ci.key" --sequence "$3"
  fi
}
# publish FILE: renamed into nginx's folder; a pack list's new packs
# copied there first.
publish() {
  if [ "$PACKS" = 1 ]; then
    mkdir -p "$work/www/fcpacks"
    for pack in "$work/site/fcpacks/"*.fcpack; do
      [ -e "$work/www/fcpacks/${pack##*/}" ] || cp "$pack" "$work/www/fcpacks/"
    done
    cp "$work/site/catalog.fcat" "$work/www/.catalog.tmp"
    mv "$work/www/.catalog.tmp" "$work/www/catalog.fcat"
  else
    mv "$1" "$work/www/catalog.fcat"
  fi
}
mkdir -p "$work/site"
# Settled, as a checkout is by the time CI builds it.
sleep 2.1
build "$work/last.fcat" "" 1 2>/dev/null
[ "$PACKS" = 1 ] || cp "$work/last.fcat" "$work/first.fcat"
publish "$work/first.fcat"
if [ "$PACKS" = 1 ]; then
  bytes=$(python3 -c 'import struct,sys; print(struct.unpack_from("<Q", open(sys.argv[1], "rb").read(24), 16)[0])' "$work/site/catalog.fcat")
else
  bytes=$(stat -c %s "$work/last.fcat")
fi

port() { echo $((FIRST_PORT + $1)); }
for n in $(seq 0 $((REPLICAS - 1))); do
  RUST_LOG=${REPLICA_LOG:-warn} "$bin" serve --addr "127.0.0.1:$(port "$n")" --catalog "http://$ORIGIN/catalog.fcat" \
    --state-dir "$work/state-$n" --verify-key "$work/ci.pub" --poll-interval "$POLL" --max-artifact-bytes 64GiB \
    --workers 1 2>"$work/replica-$n.log" &
  pids+=($!)
done
for n in $(seq 0 $((REPLICAS - 1))); do
  until curl -fs -o /dev/null "http://127.0.0.1:$(port "$n")$PRODUCTS/$slug"; do
    kill -0 "${pids[$n]}" 2>/dev/null || { cat "$work/replica-$n.log" >&2; exit 1; }
    sleep 0.05
  done
done
serving() {
  for n in $(seq 0 $((REPLICAS - 1))); do
    until curl -fs "http://127.0.0.1:$(port "$n")$PRODUCTS/$1" | grep -q "$2"; do
      kill -0 "${pids[$n]}" 2>/dev/null || { cat "$work/replica-$n.log" >&2; exit 1; }
      sleep 0.01
    done
  done
}
# A first edit, untimed: every replica then holds what it holds after
# any edit (a delta layered over its last good file), and the disk has
# settled from the first whole downloads (4 GB between five replicas).
warm=$(ls "$catalog" | sed -n '2s/\.json$//p')
sleep 2.1
retitle "$catalog" "$warm" "Warmed up"
sleep 2.1
build "$work/warm.fcat" "$work/last.fcat" 2 2>/dev/null
[ "$PACKS" = 1 ] || cp "$work/warm.fcat" "$work/published.fcat"
publish "$work/published.fcat"
serving "$warm" "Warmed up"
sync
sleep 5

fetched() { curl -fs "http://127.0.0.1:$(port "$1")/metrics" | awk '/^foundry_catalog_origin_fetched_bytes_total / {print $2}'; }
before=()
for n in $(seq 0 $((REPLICAS - 1))); do before+=("$(fetched "$n")"); done

start=$(now)
retitle "$catalog" "$slug" "Edited for the fleet benchmark"
build "$work/next.fcat" "$work/warm.fcat" 3 2>"$work/build.log"
built=$(now)
publish "$work/next.fcat"
published=$(now)
serving "$slug" "Edited for the fleet benchmark"
served=$(now)
shares=()
for n in $(seq 0 $((REPLICAS - 1))); do
  shares+=("$(echo "scale=6; ($(fetched "$n") - ${before[$n]}) / $bytes" | bc)")
done

echo "foundry-catalog fleet benchmark, $(nproc) cores, $(date -u +%F)$([ "$PACKS" = 1 ] && echo ", packed artifacts")"
echo
echo "| products | replicas | artifact | edit to every replica serving it | build --previous | publish to every replica serving it | fetched for the edit, each (× artifact) |"
echo "|---|---|---|---|---|---|---|"
echo "| $SIZE | $REPLICAS | $((bytes / 1000000)) MB | $(seconds "$start" "$served") s | $(seconds "$start" "$built") s | $(seconds "$published" "$served") s | ${shares[*]} |"
# What each replica keeps on disk for the edit: its delta over its last
# good file (a sparse file: its bytes written, not its length).
disk=()
for n in $(seq 0 $((REPLICAS - 1))); do
  for delta in "$work/state-$n"/last-good.*.delta; do
    [ -e "$delta" ] && disk+=("$(( $(stat -c '%b * %B' "$delta") ))")
  done
done
echo
echo "each replica's delta on disk, bytes: ${disk[*]:-none} (of $bytes)"
if [ -n "${REPLICA_LOG:-}" ]; then
  echo "published at $(date -u -d "@$published" +%T.%N)" >&2
  for n in $(seq 0 $((REPLICAS - 1))); do sed "s/^/replica $n: /" "$work/replica-$n.log" >&2; done
fi
grep -o "note: .*taken unread\|[0-9]* of [0-9]* manifests read\|packs: .*" "$work/build.log" >&2 || true
