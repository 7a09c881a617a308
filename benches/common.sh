# Shared by benches/scale.sh, benches/rebuild.sh and benches/replica.sh
# (sourced, not run): the release binary, a work folder removed on exit
# with any server still running, clock helpers, a server started and
# waited for, and a manifest retitled.
#
# Needs ADDR and PRODUCTS set by the script that sources it.

cargo build --release --locked --quiet --bin foundry-catalog
bin=$PWD/target/release/foundry-catalog
work=$(mktemp -d)
server_pid=
stop() { [ -n "$server_pid" ] && kill "$server_pid" 2>/dev/null && wait "$server_pid" 2>/dev/null || true; server_pid=; }
trap 'stop; rm -rf "$work"' EXIT

now() { date +%s.%N; }
seconds() { printf '%.2f' "$(echo "$2 - $1" | bc)"; }

# serve <binary> <catalog> <slug> [serve flags…]: starts a server in the
# background (its pid in server_pid, its log in $work/serve.log) and
# returns once the product <slug> answers 200.
serve() {
  RUST_LOG=warn "$1" serve --addr "$ADDR" --catalog "$2" "${@:4}" 2>"$work/serve.log" &
  server_pid=$!
  until curl -fs -o /dev/null "http://$ADDR$PRODUCTS/$3"; do
    kill -0 "$server_pid" 2>/dev/null || { cat "$work/serve.log" >&2; exit 1; }
    sleep 0.01
  done
}

# retitle <dir> <slug> <title>: edits one manifest's title in place.
retitle() {
  python3 - "$1/$2.json" "$3" <<'PY'
import json, sys
path, title = sys.argv[1], sys.argv[2]
manifest = json.load(open(path))
manifest["title"] = title
json.dump(manifest, open(path, "w"))
PY
}

# start_origin <address>: nginx (installed if missing) serving $work/www
# at <address> with ETags, as an origin of replicas (benches/replica.sh,
# benches/fleet.sh); stop_origin stops it.
start_origin() {
  if ! command -v nginx >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq nginx-light >/dev/null
  fi
  mkdir -p "$work/www" "$work/nginx-tmp"
  cat > "$work/nginx.conf" <<CONF
user root;
worker_processes 1;
pid $work/nginx.pid;
error_log $work/nginx-error.log;
daemon on;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path $work/nginx-tmp/body; proxy_temp_path $work/nginx-tmp/proxy;
  fastcgi_temp_path $work/nginx-tmp/fastcgi; uwsgi_temp_path $work/nginx-tmp/uwsgi; scgi_temp_path $work/nginx-tmp/scgi;
  server { listen $1; root $work/www; etag on; }
}
CONF
  nginx -c "$work/nginx.conf"
}
stop_origin() { [ -f "$work/nginx.pid" ] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true; }
