#!/usr/bin/env bash
# The search page under load: release `foundry-catalog serve` on an
# artifact of N products with pages (benches/make-catalog.py, default
# 100,000), wrk asking `/search?q=…` for queries drawn at random from
# QUERIES (a word in a third of the products, one in two thirds, one in
# all, two words, a title's number: one match), on CPUs of their own as
# load.sh's PIN=1 gives them (wrk on the first, the server on the second,
# one worker). Reports the server's RSS at rest (before any search), the
# first search's time (it reads the index and settings from the artifact),
# RSS after the load, and wrk's requests per second and latency
# percentiles (p50, p99), ROUNDS times. Not run in CI.
#
#   bash benches/search-load.sh                       # N=100000, 10 s, 3 rounds
#   N=20000 DURATION=5s ROUNDS=1 bash benches/search-load.sh
#   CATALOG=/var/tmp/cat100k ARTIFACT=/var/tmp/a.fcat bash benches/search-load.sh   # reuse them
set -euo pipefail
cd "$(dirname "$0")/.."

N=${N:-100000}
DURATION=${DURATION:-10s}
ROUNDS=${ROUNDS:-3}
CONNECTIONS=${CONNECTIONS:-16}
ADDR=${ADDR:-127.0.0.1:18181}
PRODUCTS=/api/public/foundry/products
source benches/common.sh
command -v wrk >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk >/dev/null; }

catalog=${CATALOG:-$work/catalog}
[ -d "$catalog" ] || python3 benches/make-catalog.py "$N" "$catalog"
artifact=${ARTIFACT:-$work/catalog.fcat}
[ -f "$artifact" ] || "$bin" build "$catalog" -o "$artifact" --site-url https://catalog.example.com 2>/dev/null
slug=$(find "$catalog" -name '*.json' -print -quit); slug=${slug##*/}; slug=${slug%.json}

# The queries, as paths: words the bench catalog's products share (its
# three examples' words), and title numbers, each matching one product.
queries=$work/queries
{
  for q in webhook signals json monitoring+teams eu+regulatory lead+extractor; do echo "/search?q=$q"; done
  for n in $(seq 0 97 "$((N - 1))"); do echo "/search?q=$n"; done
} > "$queries"

rss() { awk '/VmRSS/ { print $2 }' "/proc/$server_pid/status"; }
RUST_LOG=warn taskset -c 1 "$bin" serve --addr "$ADDR" --catalog "$artifact" --workers 1 2>"$work/serve.log" &
server_pid=$!
until curl -fs -o /dev/null "http://$ADDR$PRODUCTS/$slug"; do
  kill -0 "$server_pid" 2>/dev/null || { cat "$work/serve.log" >&2; exit 1; }
  sleep 0.01
done
sleep 1
echo "RSS at rest: $(rss) KB"
start=$(now)
curl -fs -o /dev/null "http://$ADDR/search?q=webhook"
echo "first search: $(seconds "$start" "$(now)") s, RSS after it: $(rss) KB"
for round in $(seq 1 "$ROUNDS"); do
  SLUGS=$queries taskset -c 0 wrk -t1 -c"$CONNECTIONS" -d"$DURATION" --latency -s benches/random-slug.lua "http://$ADDR" \
    | awk -v round="$round" '
        /Requests\/sec/ { rps = $2 }
        $1 == "50%" { p50 = $2 } $1 == "99%" { p99 = $2 }
        /Non-2xx/ { bad = $4 }
        END { printf "round %s: %s req/s, p50 %s, p99 %s%s\n", round, rps, p50, p99, bad ? ", NON-2xx " bad : "" }'
done
echo "RSS after the load: $(rss) KB"
