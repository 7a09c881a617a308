#!/usr/bin/env bash
# One-edit benchmark, binaries alternated: the packed `build --previous`
# of one retitled manifest at SIZE products (default 100,000, made by
# benches/make-catalog.py), each binary on a packed artifact of its own
# (built first, untimed), RUNS rounds (default 4) in turn, so that what
# the machine does meanwhile falls on every binary alike. Each run edits
# the same manifest's title anew (waiting out the two seconds a stamp
# needs to be trusted), then times the build: wall seconds and peak RSS,
# and the artifact's content digest (the same for every binary, or the
# script stops).
#
#   bash benches/edit-ab.sh /tmp/foundry-catalog-before      # against this tree's
#   RUNS=8 SIZE=10000 bash benches/edit-ab.sh /tmp/a /tmp/b  # any binaries
#
# Release build, whatever cores the machine has. Not run in CI (minutes,
# and machine-dependent figures); results go in BENCHMARKS.md ("Rebuilds").
set -euo pipefail
cd "$(dirname "$0")/.."
SIZE=${SIZE:-100000}
RUNS=${RUNS:-4}
ADDR=127.0.0.1:0 PRODUCTS=/
source benches/common.sh
bins=("$@" "$bin")
catalog=$work/catalog
python3 benches/make-catalog.py "$SIZE" "$catalog" >/dev/null
slug=$(basename "$(ls "$catalog" | head -1)" .json)
sleep 2.1
for n in "${!bins[@]}"; do
  mkdir "$work/out-$n"
  "${bins[$n]}" build "$catalog" -o "$work/out-$n/catalog.fcat" --packs 2>/dev/null
done
for run in $(seq "$RUNS"); do
  retitle "$catalog" "$slug" "Edited in run $run"
  sleep 2.1
  digest=
  for n in "${!bins[@]}"; do
    out=$work/out-$n/catalog.fcat
    line=$( { /usr/bin/time -f '%e s %M KiB' "${bins[$n]}" build "$catalog" -o "$out" --packs --previous "$out"; } 2>&1)
    this=$(grep -o 'content sha256 [0-9a-f]*' <<<"$line")
    [ -z "$digest" ] && digest=$this
    [ "$this" = "$digest" ] || { echo "run $run: ${bins[$n]} built other bytes: $this, not $digest" >&2; exit 1; }
    echo "run $run | ${bins[$n]} | $(tail -1 <<<"$line")"
  done
done
