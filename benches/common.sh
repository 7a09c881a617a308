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
