#!/usr/bin/env bash
# A cold `foundry-catalog build` with pages, side by side: wall time, peak
# RSS and the artifact's size, for this tree's release binary and, with
# BEFORE=<an older foundry-catalog binary>, that one, on catalogs made by
# benches/make-catalog.py. The two artifacts must be byte for byte the
# same (their SHA-256 digests are compared, each file removed once hashed,
# so a million products need room for one artifact and its spool), unless
# SAME_BYTES=0: the two binaries compress differently, and the digests
# are printed, not compared.
#
#   bash benches/build-memory.sh
#   SIZES="100000 1000000" BEFORE=/tmp/foundry-catalog-4bcd65a bash benches/build-memory.sh
#   SAME_BYTES=0 BEFORE=/tmp/foundry-catalog-73a7676 bash benches/build-memory.sh
#
# Release build; the output (and so the spooled bodies) in $WORK (default
# a folder under /var/tmp: a disk, not memory). Not run in CI (minutes,
# and machine-dependent figures); results go in BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."

SIZES=${SIZES:-100000}
BEFORE=${BEFORE:-}
SAME_BYTES=${SAME_BYTES:-1}
WORK=${WORK:-/var/tmp/foundry-catalog-build-memory}
SITE=https://catalog.example.com

cargo build --release -q -p foundry-catalog-cli
after=$PWD/target/release/foundry-catalog
mkdir -p "$WORK"

# Prints "<seconds> <peak RSS in MB>" of one build of $2 into $3 by $1.
measure() {
    rm -f "$3"
    /usr/bin/time -f '%e %M' -o "$WORK/time" "$1" build "$2" -o "$3" --site-url "$SITE" 2>/dev/null >/dev/null
    read -r seconds kib < "$WORK/time"
    echo "$seconds $((kib / 1024))"
}

echo "| products | binary | build (s) | peak RSS (MB) | artifact (bytes) | peak RSS ÷ artifact |"
echo "|---|---|---|---|---|---|"
for n in $SIZES; do
    catalog=$WORK/catalog-$n
    [ -d "$catalog" ] || python3 benches/make-catalog.py "$n" "$catalog"
    for which in before after; do
        bin=$after
        if [ "$which" = before ]; then
            [ -n "$BEFORE" ] || continue
            bin=$BEFORE
        fi
        sync
        read -r seconds mb < <(measure "$bin" "$catalog" "$WORK/$which-$n.fcat")
        size=$(stat -c %s "$WORK/$which-$n.fcat")
        sha256sum < "$WORK/$which-$n.fcat" > "$WORK/$which-$n.sha256"
        rm -f "$WORK/$which-$n.fcat"
        ratio=$(python3 -c "print(f'{$mb * 2**20 / $size:.3f}')")
        echo "| $n | $which | $seconds | $mb | $size | $ratio |"
    done
    if [ -n "$BEFORE" ] && [ "$SAME_BYTES" = 1 ]; then
        cmp "$WORK/before-$n.sha256" "$WORK/after-$n.sha256"
        echo "(before and after: the same $size bytes, SHA-256 $(cut -c1-16 "$WORK/after-$n.sha256")…)"
    elif [ -n "$BEFORE" ]; then
        echo "(SHA-256 before $(cut -c1-16 "$WORK/before-$n.sha256")…, after $(cut -c1-16 "$WORK/after-$n.sha256")…)"
    fi
done
