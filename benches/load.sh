#!/usr/bin/env bash
# Load test on loopback: release `foundry-catalog serve` against nginx
# serving the very same bodies as static files, side by side, alternating.
#
# For each catalog size (3 = the example catalog; 10,000 and 100,000 are
# made by benches/make-catalog.py): build the catalog artifact
# (`foundry-catalog build`), start the server on it and report start-up
# time (until the first product answers) and RSS at rest per product; copy
# every body it serves, as is and gzip-compressed, into nginx's folder
# (`gzip_static on`); then wrk with random slugs (benches/random-slug.lua),
# once as is and once with `Accept-Encoding: br, gzip`, ours, nginx and
# ours again on random product pages (`foundry-catalog pages`: the HTML
# page at each product's canonical_path, stored beside its body)
# alternating, ROUNDS times each; each run's figures go to stderr, and the
# table gives per server and encoding the median of the rounds and the
# range (single runs vary, most when wrk and the servers share CPUs),
# the CPU time the server's threads ran per request (summed from each
# thread's /proc/<pid>/task/<tid>/schedstat, nginx's master and workers
# alike: what a request costs, whoever else wanted the CPU), and the
# share of CPU time the virtual machine's host took away during the runs
# (steal): figures taken with much of it are noise, so a run during which
# the host took more than MAX_STEAL % is run again, RETRIES times at most,
# and the table says how many were. nginx-light has no brotli module, so
# it answers the second case with its gzip file; we answer with brotli.
#
#   bash benches/load.sh                               # 10 s runs, 64 connections, sizes 3 10000 100000
#   SIZES="3 10000" DURATION=5s ROUNDS=1 bash benches/load.sh
#   PIN=1 bash benches/load.sh                         # wrk and the servers on CPUs of their own
#   MAX_STEAL=2 RETRIES=5 bash benches/load.sh         # stricter about the host's share (default 5 %, 3)
#
# By default wrk and both servers share every CPU (wrk with THREADS=2
# threads, each server with a worker per CPU, nothing bound to a CPU, as
# both ship). Each server runs in a session of its own: nginx daemonizes,
# and ours runs under setsid, because the kernel shares CPU time between
# sessions (autogroups) before threads, and a server in wrk's session
# would be scheduled differently from nginx. Sharing 2 CPUs with the load
# generator measures the kernel's scheduler as much as the servers, and
# those rows are reported as they come, not a target. PIN=1 gives wrk and
# the servers CPUs of their own, as a deployment behind a load balancer
# has them: the first half of the CPUs runs wrk, with a thread per CPU,
# the second half the server being measured, with a worker per CPU; this
# measures what a request costs each server on a core. Keep-alive, no
# access log (`RUST_LOG=warn` for ours). Installs wrk and nginx from
# Debian's packages when they are missing. Not run in CI: it takes
# minutes and its figures depend on the machine. Every run's figures go
# to benches/results/load-pinned.csv or load-shared.csv (the rows of the
# sizes run replace the old ones), and `python3 benches/charts.py` then
# redraws BENCHMARKS.md's tables and charts from them. The binary is taken
# from where cargo puts it (CARGO_TARGET_DIR is honoured).
set -euo pipefail
cd "$(dirname "$0")/.."

SIZES=${SIZES:-3 10000 100000}
DURATION=${DURATION:-10s}
ROUNDS=${ROUNDS:-5}
CONNECTIONS=${CONNECTIONS:-64}
MAX_STEAL=${MAX_STEAL:-5}
RETRIES=${RETRIES:-3}
PIN=${PIN:-0}
cpus=$(nproc)
if [ "$PIN" = 1 ] && [ "$cpus" -ge 2 ]; then
  # CPUs 0..half-1 for wrk, half..cpus-1 for the server being measured.
  half=$((cpus / 2))
  client_cpus=0-$((half - 1))
  server_cpus=$half-$((cpus - 1))
  CLIENT=(taskset -c "$client_cpus")
  SERVER=(taskset -c "$server_cpus")
  THREADS=${THREADS:-$half}
  # Both servers confined to the server CPUs by taskset, their workers
  # free within them (with 2 CPUs: one worker each, on CPU 1).
  WORKERS=$((cpus - half))
else
  CLIENT=()
  SERVER=()
  THREADS=${THREADS:-2}
  WORKERS=$cpus
fi
OURS=127.0.0.1:18080
NGINX=127.0.0.1:18081
PRODUCTS=/api/public/foundry/products

if ! command -v wrk >/dev/null || ! command -v nginx >/dev/null || ! command -v pgrep >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk nginx-light procps >/dev/null
fi

# A server left over from an interrupted run would be measured in place of
# the new one.
for addr in "$OURS" "$NGINX"; do
  if curl -s -o /dev/null --max-time 1 "http://$addr/"; then
    echo "load.sh: something already answers on $addr; stop it first" >&2
    exit 1
  fi
done

work=$(mktemp -d)
stop_servers() {
  [ -n "${server_pid:-}" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true
  [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
  server_pid=
  sleep 0.5
}
trap 'stop_servers; rm -rf "$work"' EXIT
cargo build --release --locked --quiet --bin foundry-catalog
bin="$(cargo metadata --locked --format-version 1 --no-deps | python3 -c 'import json, sys; print(json.load(sys.stdin)["target_directory"])')/release/foundry-catalog"

# One wrk run; appends "<server>|<accept>|<req/s>|<p50 ms>|<p99 ms>|<CPU
# stolen %>|<server CPU µs a request>" to $results (and shows it on stderr).
# A run during which the host took more than MAX_STEAL % of the CPU time
# is run again, up to RETRIES times (the last one counts whatever it
# took); each repeat is noted in $results.repeated.
wrk_run() { # name, accept-encoding or "", slug file, url base, server pids...
  local name=$1 accept=$2 slugs=$3 base=$4 out line stolen attempt
  shift 4
  local header=()
  [ -n "$accept" ] && header=(-H "Accept-Encoding: $accept")
  SLUGS=$slugs "${CLIENT[@]}" wrk -t"$THREADS" -c"$CONNECTIONS" -d2s -s benches/random-slug.lua "${header[@]}" "$base" >/dev/null
  for attempt in $(seq 0 "$RETRIES"); do
    local before after cpu_before cpu_after
    before=$(cpu_times)
    cpu_before=$(cpu_ns "$@")
    out=$(SLUGS=$slugs "${CLIENT[@]}" wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency -s benches/random-slug.lua "${header[@]}" "$base")
    cpu_after=$(cpu_ns "$@")
    after=$(cpu_times)
    # wrk prints latencies as 512.00us, 1.02ms or 1.20s: in milliseconds.
    line=$(awk -v name="$name" -v accept="${accept:-identity}" -v before="$before" -v after="$after" -v cpu=$((cpu_after - cpu_before)) '
      function ms(v) { if (v ~ /us$/) return v / 1000; if (v ~ /ms$/) return v + 0; if (v ~ /s$/) return v * 1000; return v }
      /Requests\/sec/ { rps = $2 } $1 == "50%" { p50 = ms($2) } $1 == "99%" { p99 = ms($2) } / requests in / { requests = $1 }
      END { split(before, b, " "); split(after, a, " "); total = a[2] - b[2]
        stolen = total > 0 ? 100 * (a[1] - b[1]) / total : 0
        printf "%s|%s|%.0f|%.3f|%.3f|%.0f|%.2f\n", name, accept, rps, p50, p99, stolen, (requests > 0 ? cpu / 1000 / requests : 0) }' <<<"$out")
    stolen=$(cut -d'|' -f6 <<<"$line")
    if [ "$stolen" -le "$MAX_STEAL" ] || [ "$attempt" = "$RETRIES" ]; then
      break
    fi
    echo "$line (the host took $stolen % of the CPU time: running it again)" >&2
    echo "$name|${accept:-identity}|$stolen" >>"$results.repeated"
    sleep 2
  done
  tee -a "$results" <<<"$line" >&2
}

# The CPU time every thread of the given processes has run so far, in
# nanoseconds (the first field of each thread's schedstat).
cpu_ns() {
  local total=0 pid stat run
  for pid in "$@"; do
    for stat in /proc/"$pid"/task/*/schedstat; do
      read -r run _ 2>/dev/null <"$stat" && total=$((total + run))
    done
  done
  echo "$total"
}

# The machine's stolen CPU time (a virtual machine's host running
# something else) and all CPU time so far, in ticks: "<steal> <total>".
cpu_times() {
  awk '$1 == "cpu" { print $9, $2 + $3 + $4 + $5 + $6 + $7 + $8 + $9 }' /proc/stat
}

# The table of one catalog size: per server and encoding, the median of
# the rounds (and the range of req/s and p99).
summary() {
  echo
  echo "| server | Accept-Encoding | req/s (median) | req/s (range) | p50 (median) | p99 (median) | p99 (range) | CPU µs a request (median) | CPU stolen (median) |"
  echo "|---|---|---|---|---|---|---|---|---|"
  for accept in identity "br, gzip"; do
    for name in foundry-catalog nginx "foundry-catalog pages"; do
      awk -F'|' -v name="$name" -v accept="$accept" '
        function median(a, n,   i, j, t) { for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
          return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2 }
        $1 == name && $2 == accept { n++; rps[n] = $3; p50[n] = $4; p99[n] = $5; steal[n] = $6; cpu[n] = $7 }
        END { printf "| %s | %s | %.0f | %.0f–%.0f | %.2f ms | %.2f ms | %.2f–%.2f ms | %.2f µs | %.0f %% |\n", name, accept,
          median(rps, n), rps[1], rps[n], median(p50, n), median(p99, n), p99[1], p99[n], median(cpu, n), median(steal, n) }' "$results"
    done
  done
  local repeated detail=""
  repeated=$(wc -l <"$results.repeated")
  if [ "$repeated" -gt 0 ]; then
    detail=" ($(cut -d'|' -f1,2 "$results.repeated" | sort | uniq -c | awk '{ c = $1; sub(/^ *[0-9]+ /, ""); sub(/\|/, ", "); printf "%s%s: %d", (NR > 1 ? "; " : ""), $0, c }'))"
  fi
  echo
  echo "Runs repeated because the host took more than $MAX_STEAL % of the CPU time: $repeated$detail."
}

# The result file: the rows of the sizes not run now are kept.
csv=benches/results/load-$([ ${#SERVER[@]} -gt 0 ] && echo pinned || echo shared).csv
kept=$(awk -F, -v sizes=" $SIZES " 'NR > 1 && index(sizes, " " $1 " ") == 0' "$csv" 2>/dev/null || true)
{ echo "products,server,accept_encoding,req_per_s,p50_ms,p99_ms,cpu_us_per_request,steal_pct"; [ -n "$kept" ] && echo "$kept"; } > "$csv.new"
mv "$csv.new" "$csv"

if [ ${#SERVER[@]} -gt 0 ]; then
  echo "wrk -t$THREADS -c$CONNECTIONS -d$DURATION on CPUs $client_cpus, random slugs; each server on CPUs $server_cpus with $WORKERS worker(s); $cpus CPUs"
else
  echo "wrk -t$THREADS -c$CONNECTIONS -d$DURATION, random slugs; each server with $WORKERS workers; $cpus CPUs, shared"
fi
for size in $SIZES; do
  stop_servers
  if [ "$size" = 3 ]; then catalog=examples/catalog; else catalog="$work/catalog-$size"; python3 benches/make-catalog.py "$size" "$catalog"; fi
  slugs="$work/slugs-$size"
  ls "$catalog" | sed -n 's/\.json$//p' > "$slugs"
  first=$(sed -n 1p "$slugs")
  # Each product's page path (`/<route>/<slug>`), in the slugs' order.
  pages="$work/pages-$size"
  python3 - "$catalog" "$slugs" > "$pages" <<'PY'
import json, sys
folder, slugs = sys.argv[1:]
for slug in open(slugs).read().split():
    print(f"/{json.load(open(f'{folder}/{slug}.json'))['route']}/{slug}")
PY
  artifact="$work/catalog-$size.fcat"
  "$bin" build "$catalog" -o "$artifact" 2>/dev/null

  start=$(date +%s.%N)
  RUST_LOG=warn "${SERVER[@]}" setsid "$bin" serve --addr "$OURS" --catalog "$artifact" \
    --workers "$WORKERS" 2>"$work/serve.log" &
  server_pid=$!
  until curl -fs -o /dev/null "http://$OURS$PRODUCTS/$first"; do sleep 0.05; kill -0 "$server_pid"; done
  ready=$(date +%s.%N)
  sleep 1
  rss_kb=$(awk '/VmRSS/ {print $2}' "/proc/$server_pid/status")
  echo
  echo "## $size products: start-up $(printf '%.2f' "$(echo "$ready - $start" | bc)") s, RSS at rest $((rss_kb / 1024)) MiB ($((rss_kb * 1024 / size)) bytes a product)"

  # The very bytes our server sends, as is and gzip-compressed, for nginx.
  static="$work/static-$size"
  python3 - "$OURS" "$PRODUCTS" "$slugs" "$static$PRODUCTS" <<'PY'
import http.client, os, sys
host, prefix, slugs, out = sys.argv[1:]
os.makedirs(out, exist_ok=True)
conn = http.client.HTTPConnection(host)
for slug in open(slugs).read().split():
    for name, headers in ((slug, {}), (slug + ".gz", {"Accept-Encoding": "gzip"})):
        conn.request("GET", f"{prefix}/{slug}", headers=headers)
        response = conn.getresponse()
        body = response.read()
        assert response.status == 200, (slug, response.status)
        with open(os.path.join(out, name), "wb") as f:
            f.write(body)
PY
  cat > "$work/nginx.conf" <<CONF
user root;
worker_processes $WORKERS;
worker_rlimit_nofile 16384;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
daemon on;
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_requests 1000000;
  # A descriptor cache smaller than the descriptor limit: larger, and a
  # 100,000-file tree runs nginx out of descriptors.
  open_file_cache max=8192 inactive=60s;
  client_body_temp_path $work/tmp-body;
  proxy_temp_path $work/tmp-proxy;
  fastcgi_temp_path $work/tmp-fastcgi;
  uwsgi_temp_path $work/tmp-uwsgi;
  scgi_temp_path $work/tmp-scgi;
  server {
    listen $NGINX;
    root $static;
    location $PRODUCTS/ {
      default_type application/json;
      gzip_static on;
      gzip_vary on;
      add_header Cache-Control "public, max-age=300";
      etag on;
    }
  }
}
CONF
  "${SERVER[@]}" nginx -c "$work/nginx.conf"
  until curl -fs -o /dev/null "http://$NGINX$PRODUCTS/$first"; do sleep 0.05; done
  nginx_pid=$(cat "$work/nginx.pid")
  cmp <(curl -fs "http://$OURS$PRODUCTS/$first") <(curl -fs "http://$NGINX$PRODUCTS/$first")
  curl -fs -o /dev/null "http://$OURS$(sed -n 1p "$pages")"

  results="$work/results-$size"
  : > "$results"
  : > "$results.repeated"
  for accept in "" "br, gzip"; do
    for _ in $(seq "$ROUNDS"); do
      wrk_run foundry-catalog "$accept" "$slugs" "http://$OURS" "$server_pid"
      # nginx's master and its workers (a failure here stops the script:
      # without the workers, nginx's CPU time would read as next to none).
      nginx_workers=$(pgrep -P "$nginx_pid")
      # shellcheck disable=SC2086 # one argument per worker pid
      wrk_run nginx "$accept" "$slugs" "http://$NGINX" "$nginx_pid" $nginx_workers
      wrk_run "foundry-catalog pages" "$accept" "$pages" "http://$OURS" "$server_pid"
    done
  done
  summary
  awk -F'|' -v size="$size" -v OFS=, '{ print size, $1, "\"" $2 "\"", $3, $4, $5, $7, $6 }' "$results" >> "$csv"
done
python3 benches/charts.py
