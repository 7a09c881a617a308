#!/usr/bin/env bash
# Rebuild benchmark: what a one-manifest edit costs a catalog team, at
# 10,000 and 100,000 products made by benches/make-catalog.py, side by
# side in one run:
#
#  - a cold `foundry-catalog build` (and, with BEFORE=<an older binary>,
#    the same build with it);
#  - one manifest edited, rebuilt with `--previous` (the output is checked
#    to be byte-identical to a cold build of the edited folder), and the
#    floor of any rebuild that checks the previous artifact and writes a
#    new one: reading the artifact, copying it (`cp`) and syncing the copy;
#  - the same edit written packed (`--packs`, the previous artifact packed
#    first, untimed; a second title edited): the one-edit build and the
#    bytes it wrote (and BEFORE's, on a packed artifact of its own), its artifact read back by benches/unpack.py (a second
#    reader of the pack list) and compared with a full build's;
#  - `serve --watch` on the folder: from the edit to the first 200 with
#    the new body (the watch interval is the default, 500 ms: a change is
#    reloaded once it has held still for one interval);
#  - peak RSS of each (the server's is its high-water mark after the reload).
#
#   bash benches/rebuild.sh
#   SIZES=10000 BEFORE=/tmp/foundry-catalog-e61e07b bash benches/rebuild.sh
#
# Release build, loopback, whatever cores the machine has. Not run in CI
# (minutes, and machine-dependent figures); results go in BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."

SIZES=${SIZES:-10000 100000}
BEFORE=${BEFORE:-}
ADDR=127.0.0.1:18091
PRODUCTS=/api/public/foundry/products

source benches/common.sh

# timed <binary> <args…>: runs it; prints "<seconds> <peak RSS MiB>".
timed() {
  /usr/bin/time -f '%e %M' -o "$work/time" "$@" 2>"$work/build.log" >/dev/null || { cat "$work/build.log" >&2; exit 1; }
  read -r s kib <"$work/time"
  echo "$s $((kib / 1024))"
}


echo "foundry-catalog rebuild benchmark, $(nproc) cores, $(date -u +%F)"
echo
echo "| products |${BEFORE:+ cold build, before |} cold build |${BEFORE:+ one edit, before (× its cold) |} one edit, --previous | (× cold) | manifests read | floor: read, cp, sync |${BEFORE:+ one edit, --packs, before (× cold) | written, before |} one edit, --packs (× cold) | written | serve --watch: edit to new 200 | server RSS |"
echo "|---|${BEFORE:+---|---|---|---|}---|---|---|---|---|---|---|---|---|"
for size in $SIZES; do
  catalog="$work/catalog-$size"
  python3 benches/make-catalog.py "$size" "$catalog"
  # Settled, as a checkout is by the time CI builds it: a manifest changed
  # within two seconds of a build is read again by the next one.
  sleep 2.1
  slug=$(ls "$catalog" | sed -n '1s/\.json$//p')
  row="| $size |"
  if [ -n "$BEFORE" ]; then
    read -r before_cold rss <<<"$(timed "$BEFORE" build "$catalog" -o "$work/before.fcat")"
    row="$row $before_cold s ($rss MiB) |"
  fi
  read -r cold rss <<<"$(timed "$bin" build "$catalog" -o "$work/first.fcat")"
  row="$row $cold s ($rss MiB) |"

  retitle "$catalog" "$slug" "Edited for the rebuild benchmark"
  if [ -n "$BEFORE" ]; then
    read -r s rss <<<"$(timed "$BEFORE" build "$catalog" -o "$work/before-edit.fcat" --previous "$work/before.fcat")"
    row="$row $s s ($rss MiB, $(echo "scale=3; $s / $before_cold" | bc)) |"
    rm -f "$work/before.fcat" "$work/before-edit.fcat"
  fi
  read -r s rss <<<"$(timed "$bin" build "$catalog" -o "$work/incremental.fcat" --previous "$work/first.fcat")"
  grep -q "1 rendered" "$work/build.log" || { cat "$work/build.log" >&2; exit 1; }
  read_count=$(grep -o '[0-9]* of [0-9]* manifests read' "$work/build.log" | cut -d' ' -f1)
  row="$row $s s ($rss MiB) | $(echo "scale=3; $s / $cold" | bc) | ${read_count:-?} |"
  start=$(now)
  cat "$work/first.fcat" >/dev/null
  cp "$work/first.fcat" "$work/copy.fcat"
  sync "$work/copy.fcat"
  row="$row $(seconds "$start" "$(now)") s |"
  rm -f "$work/copy.fcat"
  "$bin" build "$catalog" -o "$work/full.fcat" 2>/dev/null
  cmp -s "$work/incremental.fcat" "$work/full.fcat" || { echo "the incremental build differs from a full one" >&2; exit 1; }

  mkdir -p "$work/packed" "$work/packed-before"
  "$bin" build "$catalog" -o "$work/packed/catalog.fcat" --packs --previous "$work/full.fcat" 2>/dev/null
  [ -z "$BEFORE" ] || "$BEFORE" build "$catalog" -o "$work/packed-before/catalog.fcat" --packs --previous "$work/full.fcat" 2>/dev/null
  retitle "$catalog" "$slug" "Edited again for the rebuild benchmark"
  if [ -n "$BEFORE" ]; then
    read -r s rss <<<"$(timed "$BEFORE" build "$catalog" -o "$work/packed-before/catalog.fcat" --packs --previous "$work/packed-before/catalog.fcat")"
    written=$(grep -o 'packs: [0-9]* bytes written' "$work/build.log" | grep -o '[0-9]*')
    row="$row $s s ($rss MiB, $(echo "scale=3; $s / $cold" | bc)) | $(echo "scale=1; $written / 1000000" | bc) MB |"
  fi
  read -r s rss <<<"$(timed "$bin" build "$catalog" -o "$work/packed/catalog.fcat" --packs --previous "$work/packed/catalog.fcat")"
  written=$(grep -o 'packs: [0-9]* bytes written' "$work/build.log" | grep -o '[0-9]*')
  row="$row $s s ($rss MiB, $(echo "scale=3; $s / $cold" | bc)) | $(echo "scale=1; $written / 1000000" | bc) MB of $(($(stat -c %s "$work/full.fcat") / 1000000)) |"
  "$bin" build "$catalog" -o "$work/full.fcat" 2>/dev/null
  python3 benches/unpack.py "$work/packed/catalog.fcat" | cmp -s - "$work/full.fcat" \
    || { echo "the packed artifact differs from a full build" >&2; exit 1; }
  rm -rf "$work/first.fcat" "$work/incremental.fcat" "$work/full.fcat" "$work/packed" "$work/packed-before"

  serve "$bin" "$catalog" "$slug" --watch
  sleep 1
  start=$(now)
  retitle "$catalog" "$slug" "Edited while watched"
  until curl -fs "http://$ADDR$PRODUCTS/$slug" | grep -q "Edited while watched"; do sleep 0.01; done
  watched=$(seconds "$start" "$(now)")
  hwm=$(awk '/VmHWM/ {print $2}' "/proc/$server_pid/status")
  stop
  echo "$row $watched s | $((hwm / 1024)) MiB |"
  rm -rf "$catalog"
done
