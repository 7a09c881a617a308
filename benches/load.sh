#!/usr/bin/env bash
# Load test on loopback: release `foundry-catalog serve` against nginx serving
# the same response bodies as static files, with the same settings: two
# workers each (this machine has two cores), keep-alive, no access log, and
# the same Content-Type and Cache-Control. wrk drives both the same way.
#
#   bash benches/load.sh                 # 10 s per run, 64 connections
#   DURATION=30s CONNECTIONS=128 bash benches/load.sh
#
# Prints requests/s and p99 latency for each. Installs wrk and nginx from
# Debian's packages when they are missing. Not run in CI (it takes time and
# its figures depend on the machine); the figures go in the issue notes.
set -euo pipefail
cd "$(dirname "$0")/.."

DURATION=${DURATION:-10s}
CONNECTIONS=${CONNECTIONS:-64}
THREADS=${THREADS:-2}
OURS=127.0.0.1:18080
NGINX=127.0.0.1:18081
SLUG=${SLUG:-eu-regulatory-status-signals}
PRODUCTS=/api/public/foundry/products

if ! command -v wrk >/dev/null || ! command -v nginx >/dev/null; then
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq wrk nginx-light >/dev/null
fi

work=$(mktemp -d)
cleanup() {
  [ -n "${server_pid:-}" ] && kill "$server_pid" 2>/dev/null || true
  [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
  rm -rf "$work"
}
trap cleanup EXIT

cargo build --release --locked --quiet --bin foundry-catalog
# No access log, as nginx runs here without one.
RUST_LOG=warn target/release/foundry-catalog serve --addr "$OURS" 2>"$work/serve.log" &
server_pid=$!
for _ in $(seq 50); do curl -fs "http://$OURS$PRODUCTS/$SLUG" >/dev/null && break; sleep 0.1; done

# The very bytes our server sends, as static files for nginx.
mkdir -p "$work/static$PRODUCTS"
for manifest in examples/catalog/*.json; do
  slug=$(basename "$manifest" .json)
  curl -fs "http://$OURS$PRODUCTS/$slug" -o "$work/static$PRODUCTS/$slug"
done

cat > "$work/nginx.conf" <<CONF
user root;
worker_processes 2;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
daemon on;
events { worker_connections 4096; }
http {
  access_log off;
  keepalive_requests 1000000;
  client_body_temp_path $work/tmp-body;
  proxy_temp_path $work/tmp-proxy;
  fastcgi_temp_path $work/tmp-fastcgi;
  uwsgi_temp_path $work/tmp-uwsgi;
  scgi_temp_path $work/tmp-scgi;
  server {
    listen $NGINX;
    root $work/static;
    location $PRODUCTS/ {
      default_type application/json;
      add_header Cache-Control "public, max-age=300";
      etag on;
    }
  }
}
CONF
nginx -c "$work/nginx.conf"
for _ in $(seq 50); do curl -fs "http://$NGINX$PRODUCTS/$SLUG" >/dev/null && break; sleep 0.1; done
cmp <(curl -fs "http://$OURS$PRODUCTS/$SLUG") <(curl -fs "http://$NGINX$PRODUCTS/$SLUG")

run() {
  local name=$1 url=$2 out
  wrk -t"$THREADS" -c"$CONNECTIONS" -d2s "$url" >/dev/null # warm-up
  out=$(wrk -t"$THREADS" -c"$CONNECTIONS" -d"$DURATION" --latency "$url")
  printf '%-16s %12s req/s   p50 %8s   p99 %8s\n' "$name" \
    "$(awk '/Requests\/sec/ {print $2}' <<<"$out")" \
    "$(awk '$1 == "50%" {print $2}' <<<"$out")" \
    "$(awk '$1 == "99%" {print $2}' <<<"$out")"
}
echo "wrk -t$THREADS -c$CONNECTIONS -d$DURATION, body $(stat -c %s "$work/static$PRODUCTS/$SLUG") bytes, $(nproc) cores"
run foundry-serve "http://$OURS$PRODUCTS/$SLUG"
run nginx "http://$NGINX$PRODUCTS/$SLUG"
