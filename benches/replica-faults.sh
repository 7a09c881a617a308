#!/usr/bin/env bash
# Replica faults, side by side: each binary of BEFORE (older release
# binaries, space-separated) and this tree's release build (or AFTER, a
# binary named instead) runs as `serve --catalog http://… --state-dir …
# --verify-key … --drain-timeout 1s` against an origin written here (a
# python3 HTTP server on loopback: strong ETags, If-None-Match -> 304,
# one Range with If-Range; faults turned on and off by the script), one
# figure after the other for every binary in turn:
#
#  1. SIGTERM -> exit while a pull hangs (the origin accepts the
#     connection, reads the request and never answers): (a) a fresh
#     replica (empty state folder) at start, (b) a replica serving the
#     example catalog whose next poll hangs (--poll-interval 1s). From
#     the signal to the process gone, capped at 30 s (then SIGKILL:
#     "> 30 s"); the goal is --drain-timeout + 1 s.
#  2. A new release after one corrupted range: a replica serving release
#     1 of SIZE products (benches/make-catalog.py, a default build),
#     --poll-interval 1s; release 2 (one product retitled, built
#     --previous) is published (renamed into place), and the origin flips
#     one byte (the signature's first) in the first 206 of release 2 that
#     starts at byte 0 (a delta's first request), once; nothing changes
#     at the origin afterwards. From the publication to the new title
#     served, in seconds and poll intervals, capped at 60 s ("until the
#     next release").
#  3. Peak RSS (`/usr/bin/time`'s maximum resident set) of `serve`
#     refusing an artifact whose summary claims 40,000,000 products,
#     built as foundry-catalog-serving/tests/bounded.rs `claiming()`
#     does: the example catalog built `--codings identity --no-pages`,
#     its header and metadata with "products" set to 40,000,000, an index
#     of 40M x (its index length / its products), a table of 40M x 50
#     bytes, one 40-byte block, its signature (which no longer matches),
#     a sparse file of the summed length (about 4.2 GB). (a) the file
#     (`--catalog FILE`), (b) pulled from the origin by a fresh replica;
#     both with --max-artifact-bytes 1TiB, so that the size limit is not
#     what refuses. Capped at 300 s.
#  4. An origin that sends no ETag, the artifact unchanged: the body
#     bytes the origin writes a poll over 10 polls after the first load
#     (--poll-interval 500ms; a poll is counted from each request for
#     the range at byte 0, which every poll of a replica holding an
#     artifact starts with), and at how many of those polls the catalog
#     was swapped ("catalog reloaded" in the replica's log).
#
#   BEFORE=/tmp/bench-bin/c6db58a bash benches/replica-faults.sh
#   BEFORE=/tmp/bench-bin/c6db58a AFTER=/tmp/bench-bin/10c6c6e bash benches/replica-faults.sh
#   SIZE=10000 bash benches/replica-faults.sh         # this build alone
#
# Every artifact is built once, by the after binary (format 4: a BEFORE
# binary must read it). Prints a markdown table, one column a binary,
# then what each refusal said. Release builds, loopback, whatever cores
# the machine has. Not run in CI (minutes, and machine-dependent
# figures); results go in BENCHMARKS.md.
set -euo pipefail
cd "$(dirname "$0")/.."

BEFORE=${BEFORE:-}
AFTER=${AFTER:-}
SIZE=${SIZE:-2000}
ADDR=127.0.0.1:18097
ORIGIN=127.0.0.1:18098
PRODUCTS=/api/public/foundry/products
CAP_TERM=30
CAP_STALE=60
CAP_REFUSE=300
CLAIMED=40000000

# benches/common.sh builds this tree's release binary; with AFTER, that
# binary is the after column and nothing is built.
if [ -n "$AFTER" ]; then cargo() { :; }; fi
source benches/common.sh
unset -f cargo
if [ -n "$AFTER" ]; then
  bin=$AFTER
  after_name=$(basename "$AFTER")
else
  after_name="this tree ($(git rev-parse --short HEAD))"
fi
binaries=()
names=()
for b in $BEFORE; do
  binaries+=("$b")
  names+=("$(basename "$b")")
done
binaries+=("$bin")
names+=("$after_name")
for b in "${binaries[@]}"; do
  [ -x "$b" ] || { echo "not an executable: $b" >&2; exit 2; }
done
[ -x /usr/bin/time ] || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq time >/dev/null; }
for port in "${ADDR##*:}" "${ORIGIN##*:}"; do
  if ss -Htln "sport = :$port" | grep -q .; then echo "port $port is taken" >&2; exit 2; fi
done

origin_pid=
# halt: the replica (server_pid) killed, whatever it was doing.
halt() {
  if [ -n "$server_pid" ]; then
    kill -9 "$server_pid" 2>/dev/null || true
    wait "$server_pid" 2>/dev/null || true
    server_pid=
  fi
}
trap 'halt; [ -z "$origin_pid" ] || kill "$origin_pid" 2>/dev/null || true; rm -rf "$work"' EXIT

# The origin: serves $work/www at $ORIGIN. /_control?KEY=VALUE… turns its
# faults on and off (etag=0|1, hang=0|1, arm=NAME: the next 206 from
# byte 0 of NAME with another ETag than NAME has now gets its
# signature's first byte flipped, once) and answers its counters, or one
# of them with get=KEY. Every request is a JSON line of $work/origin.log.
cat > "$work/origin.py" <<'PY'
import http.server, json, os, sys, threading, time, urllib.parse

addr, root, log_path = sys.argv[1], sys.argv[2], sys.argv[3]
lock = threading.Lock()
state = {"etag": True, "hang": False, "requests": 0, "bytes": 0, "hung": 0, "corrupted": 0}
armed = None  # (file name, its ETag when armed)
release = threading.Event()
log = open(log_path, "a", buffering=1)
log_lock = threading.Lock()


def note(record):
    with log_lock:
        log.write(json.dumps(record) + "\n")


def etag_of(st):
    return '"%x-%x-%x"' % (st.st_ino, st.st_mtime_ns, st.st_size)


def byte_range(value, total):
    """(first, last) of a single `bytes=` range, "unsatisfiable", or None (the whole file)."""
    if not value or not value.startswith("bytes=") or "," in value:
        return None
    first, _, last = value[len("bytes="):].strip().partition("-")
    try:
        if first == "":
            suffix = int(last)
            return (max(0, total - suffix), total - 1) if suffix > 0 and total > 0 else "unsatisfiable"
        first, last = int(first), int(last) if last else total - 1
    except ValueError:
        return None
    if first > last or first >= total:
        return "unsatisfiable"
    return first, min(last, total - 1)


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.answer(True)

    def do_HEAD(self):
        self.answer(False)

    def head(self, status, headers):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("Connection", "close")
        self.end_headers()
        self.close_connection = True

    def control(self, query):
        global armed, release
        with lock:
            if "etag" in query:
                state["etag"] = query["etag"][0] == "1"
            if "hang" in query:
                hang = query["hang"][0] == "1"
                if hang and not state["hang"]:
                    release = threading.Event()
                if not hang:
                    release.set()
                state["hang"] = hang
            if "arm" in query:
                name = query["arm"][0]
                armed = (name, etag_of(os.stat(os.path.join(root, name)))) if name else None
            body = str(state[query["get"][0]]) if "get" in query else json.dumps(state)
        body = body.encode()
        self.head(200, [("Content-Type", "text/plain"), ("Content-Length", str(len(body)))])
        self.wfile.write(body)

    def answer(self, with_body):
        global armed
        started = time.time()
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/_control":
            return self.control(urllib.parse.parse_qs(url.query, keep_blank_values=True))
        record = {"t": started, "path": url.path, "range": self.headers.get("Range"),
                  "if_range": self.headers.get("If-Range"), "if_none_match": self.headers.get("If-None-Match")}
        with lock:
            state["requests"] += 1
            hang = release if state["hang"] else None
            if hang is not None:
                state["hung"] += 1
        if hang is not None:
            # Accepted, read, never answered; closed once the fault is off.
            note({**record, "status": "hung"})
            hang.wait(900)
            self.close_connection = True
            return
        name = os.path.basename(url.path)
        try:
            f = open(os.path.join(root, name), "rb")
        except OSError:
            self.head(404, [("Content-Length", "0")])
            note({**record, "status": 404, "bytes": 0})
            return
        with f:
            st = os.fstat(f.fileno())
            total = st.st_size
            etag = etag_of(st) if state["etag"] else None
            tags = [t.strip() for t in (self.headers.get("If-None-Match") or "").split(",") if t.strip()]
            if etag and ("*" in tags or etag in tags):
                self.head(304, [("ETag", etag)])
                note({**record, "status": 304, "bytes": 0})
                return
            wanted = byte_range(self.headers.get("Range"), total)
            if_range = self.headers.get("If-Range")
            if wanted is not None and if_range is not None and (etag is None or if_range.strip() != etag):
                wanted = None  # If-Range names another version (or the origin has no ETag): the whole file
            if wanted == "unsatisfiable":
                self.head(416, [("Content-Range", f"bytes */{total}"), ("Content-Length", "0")])
                note({**record, "status": 416, "bytes": 0})
                return
            first, last = wanted or (0, total - 1)
            status = 206 if wanted else 200
            headers = [("Content-Length", str(last + 1 - first)), ("Accept-Ranges", "bytes")]
            if etag:
                headers.append(("ETag", etag))
            if wanted:
                headers.append(("Content-Range", f"bytes {first}-{last}/{total}"))
            flip = None
            with lock:
                if status == 206 and first == 0 and armed and armed[0] == name and etag != armed[1]:
                    head = os.pread(f.fileno(), 64, 0)
                    at = 64 + int.from_bytes(head[16:24], "little")  # the signature's first byte
                    if at <= last:
                        flip, armed = at, None
                        state["corrupted"] += 1
            self.head(status, headers)
            self.sent = 0
            try:
                if with_body:
                    self.body(f, first, last + 1 - first, flip)
            except OSError:
                pass
            with lock:
                state["bytes"] += self.sent
            note({**record, "status": status, "bytes": self.sent, "flipped": flip,
                  "seconds": round(time.time() - started, 4)})

    def body(self, f, first, length, flip):
        sock = self.connection
        if flip is not None:
            data = bytearray(os.pread(f.fileno(), length, first))
            data[flip - first] ^= 0xFF
            sock.sendall(data)
            self.sent = len(data)
            return
        at, end = first, first + length
        while at < end:
            n = os.sendfile(sock.fileno(), f.fileno(), at, min(end - at, 1 << 20))
            if n == 0:
                break
            at += n
            self.sent += n


class Server(http.server.ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True
    request_queue_size = 64


host, port = addr.rsplit(":", 1)
Server((host, int(port)), Handler).serve_forever()
PY

# waitexit.py <pid> <start> <cap>: the seconds from <start> (date +%s.%N;
# "term": SIGTERM sent to <pid> now) until <pid> has exited (gone or a
# zombie), or "cap" past <cap> seconds.
cat > "$work/waitexit.py" <<'PY'
import os, signal, sys, time
pid, start, cap = int(sys.argv[1]), sys.argv[2], float(sys.argv[3])
if start == "term":
    start = time.time()
    os.kill(pid, signal.SIGTERM)
else:
    start = float(start)
def alive():
    try:
        with open(f"/proc/{pid}/stat") as f:
            stat = f.read()
    except FileNotFoundError:
        return False
    return stat[stat.rindex(")") + 2] != "Z"
while alive():
    if time.time() - start > cap:
        print("cap")
        sys.exit()
    time.sleep(0.002)
print(f"{time.time() - start:.3f}")
PY

# polls.py <origin log> <replica log> <since> <name> <polls>: the polls
# from the origin's log (each from a request for the range at byte 0 of
# <name> made after <since> to the next), the first <polls> of them after
# the first load; prints "<polls seen> <bytes a poll: mean> <min> <max>
# <catalog reloaded lines within them>", or "<polls seen>" alone when
# there are not <polls> + 1 yet.
cat > "$work/polls.py" <<'PY'
import datetime, json, re, sys
origin_log, replica_log, since, name, wanted = sys.argv[1], sys.argv[2], float(sys.argv[3]), sys.argv[4], int(sys.argv[5])
requests = []
for line in open(origin_log):
    r = json.loads(line)
    if r["t"] >= since and r["path"].endswith("/" + name):
        requests.append(r)
starts = [i for i, r in enumerate(requests) if (r.get("range") or "").startswith("bytes=0-")]
if len(starts) < wanted + 1:
    print(len(starts))
    sys.exit()
polls = [sum(r.get("bytes", 0) for r in requests[a:b]) for a, b in zip(starts, starts[1:wanted + 1])]
first, end = requests[starts[0]]["t"], requests[starts[wanted]]["t"]
reloads = 0
for line in open(replica_log):
    m = re.match(r"(\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+)Z", line)
    if m and "catalog reloaded" in line:
        t = datetime.datetime.fromisoformat(m.group(1)).replace(tzinfo=datetime.timezone.utc).timestamp()
        reloads += first <= t < end
print(wanted, sum(polls) / len(polls), min(polls), max(polls), reloads)
PY

# claiming.py <real artifact> <out>: the artifact of foundry-catalog-
# serving/tests/bounded.rs `claiming()` (see the top of this file).
cat > "$work/claiming.py" <<'PY'
import json, struct, sys
real, out, claimed_products = open(sys.argv[1], "rb").read(), sys.argv[2], int(sys.argv[3])
meta_len, signature_len, _, _, index_len, _, _ = struct.unpack_from("<7Q", real, 16)
metadata = json.loads(real[72:72 + meta_len])
assert not metadata.get("pages"), "no site documents in the index"
entry_len = index_len // metadata["products"]
metadata["products"] = claimed_products
claimed = json.dumps(metadata, separators=(",", ":")).encode()
index_len, table_len = claimed_products * entry_len, claimed_products * 50
assert claimed_products % 256 == 0, "whole blocks of 256 entries"
blocks = claimed_products // 256
lengths = [len(claimed), signature_len, blocks * 48, claimed_products * 20, index_len, table_len, 0]
head = real[:16] + struct.pack("<7Q", *lengths) + claimed
head += real[72 + meta_len:72 + meta_len + signature_len]
head += b"".join(struct.pack("<IIQ", 256, table_len // blocks, 0) + bytes(32) for _ in range(blocks))
with open(out, "wb") as f:
    f.write(head)
    f.truncate(72 + sum(lengths))
print(72 + sum(lengths))
PY

mkdir -p "$work/www"
python3 "$work/origin.py" "$ORIGIN" "$work/www" "$work/origin.log" 2>"$work/origin.err" &
origin_pid=$!
ctl() { curl -fsS "http://$ORIGIN/_control?$1"; }
until ctl get=requests >/dev/null 2>&1; do
  kill -0 "$origin_pid" 2>/dev/null || { cat "$work/origin.err" >&2; exit 1; }
  sleep 0.05
done

# until_cap <seconds> <command…>: runs the command until it succeeds (0)
# or <seconds> have passed (1).
until_cap() {
  local cap=$1 start
  shift
  start=$(now)
  until "$@"; do
    [ "$(echo "$(now) - $start > $cap" | bc)" = 0 ] || return 1
    sleep 0.02
  done
}
hung_above() { [ "$(ctl get=hung)" -gt "$1" ]; }
# answers <slug> [text]: the replica answers 200 for <slug> (with <text> in the body).
answers() {
  local body
  body=$(curl -fs "http://$ADDR$PRODUCTS/$1" 2>/dev/null) || return 1
  [[ $body == *"${2:-}"* ]]
}
# replica <binary> <file at the origin> [serve flags…]: a replica with a
# new state folder, in the background (server_pid; log $work/replica.log).
replica() {
  local binary=$1 file=$2
  shift 2
  rm -rf "$work/state"
  RUST_LOG=info,access=warn "$binary" serve --addr "$ADDR" --catalog "http://$ORIGIN/$file" \
    --state-dir "$work/state" --verify-key "$work/key.pub" --drain-timeout 1s "$@" 2>"$work/replica.log" &
  server_pid=$!
}
# publish <artifact> <name>: copied beside, then renamed into place.
publish() { cp "$1" "$work/www/.$2.tmp" && mv "$work/www/.$2.tmp" "$work/www/$2"; }
# sigterm_exit: SIGTERM to the replica; result: the seconds to its exit
# and its status, or "> CAP_TERM s" (then SIGKILL).
sigterm_exit() {
  local pid=$server_pid elapsed status=0
  elapsed=$(python3 "$work/waitexit.py" "$pid" term "$CAP_TERM")
  if [ "$elapsed" = cap ]; then
    halt
    result="> $CAP_TERM s"
    return
  fi
  wait "$pid" || status=$?
  server_pid=
  result="$elapsed s (exit $status)"
}

echo "foundry-catalog replica faults: ${names[*]}; $(nproc) cores, $(uname -r), $(date -u +%F)" >&2

# The artifacts, built by the after binary.
"$bin" keygen --out "$work/key" >/dev/null 2>&1
small_slug=$(ls examples/catalog | sed -n '1s/\.json$//p')
"$bin" build examples/catalog -o "$work/small.fcat" --sign-key "$work/key.key" --sequence 1 \
  --codings identity --no-pages 2>/dev/null
publish "$work/small.fcat" small.fcat
claimed_len=$(python3 "$work/claiming.py" "$work/small.fcat" "$work/www/claims.fcat" "$CLAIMED")
python3 benches/make-catalog.py "$SIZE" "$work/catalog"
slug=$(ls "$work/catalog" | sed -n '1s/\.json$//p')
"$bin" build "$work/catalog" -o "$work/one.fcat" --sign-key "$work/key.key" --sequence 1 2>/dev/null
retitle "$work/catalog" "$slug" "Published after a corrupted range"
"$bin" build "$work/catalog" -o "$work/two.fcat" --sign-key "$work/key.key" --sequence 2 --previous "$work/one.fcat" 2>/dev/null
big_len=$(stat -c %s "$work/one.fcat")
echo "artifacts: the example catalog $(stat -c %s "$work/small.fcat") bytes; $SIZE products $big_len bytes; the claim $claimed_len bytes (sparse)" >&2

declare -A cell
notes=()

# 1a. A fresh replica whose first pull hangs.
term_fresh() {
  local hung
  ctl hang=1 >/dev/null
  hung=$(ctl get=hung)
  replica "$1" small.fcat --poll-interval 1s
  if until_cap 10 hung_above "$hung"; then sigterm_exit; else result="no request came"; halt; fi
  ctl hang=0 >/dev/null
}

# 1b. A replica serving the example catalog, its next poll hanging.
term_serving() {
  local hung
  ctl hang=0 >/dev/null
  replica "$1" small.fcat --poll-interval 1s
  if ! until_cap 30 answers "$small_slug"; then result="did not serve"; halt; return; fi
  hung=$(ctl get=hung)
  ctl hang=1 >/dev/null
  if until_cap 10 hung_above "$hung"; then sigterm_exit; else result="no poll came"; halt; fi
  ctl hang=0 >/dev/null
}

# 2. Release 2 published, its first range at byte 0 corrupted once.
stale() {
  local corrupted start elapsed
  publish "$work/one.fcat" big.fcat
  replica "$1" big.fcat --poll-interval 1s
  if ! until_cap 60 answers "$slug"; then result="did not serve"; halt; return; fi
  sleep 1.5
  ctl arm=big.fcat >/dev/null
  corrupted=$(ctl get=corrupted)
  cp "$work/two.fcat" "$work/www/.big.fcat.tmp"
  start=$(now)
  mv "$work/www/.big.fcat.tmp" "$work/www/big.fcat"
  if until_cap "$CAP_STALE" answers "$slug" "Published after a corrupted range"; then
    elapsed=$(seconds "$start" "$(now)")
    result="$elapsed s ($(printf '%.1f' "$elapsed") polls of 1 s)"
  else
    result="until the next release (> $CAP_STALE s)"
  fi
  [ "$(ctl get=corrupted)" -gt "$corrupted" ] || result="$result; no range at byte 0 asked, nothing corrupted"
  ctl arm= >/dev/null
  halt
}

# 3. Peak RSS refusing the claim: <binary> <catalog> [serve flags…].
refusing() {
  local binary=$1 catalog=$2 sent start elapsed tpid status=0 kib
  shift 2
  sent=$(ctl get=bytes)
  rm -rf "$work/state"
  start=$(now)
  RUST_LOG=info,access=warn /usr/bin/time -f %M -o "$work/time.out" "$binary" serve --addr "$ADDR" \
    --catalog "$catalog" --verify-key "$work/key.pub" --max-artifact-bytes 1TiB --drain-timeout 1s "$@" \
    2>"$work/refuse.log" &
  tpid=$!
  elapsed=$(python3 "$work/waitexit.py" "$tpid" "$start" "$CAP_REFUSE")
  if [ "$elapsed" = cap ]; then
    kill -9 $(cat "/proc/$tpid/task/$tpid/children") 2>/dev/null || true
    elapsed="> $CAP_REFUSE"
  fi
  wait "$tpid" || status=$?
  kib=$(tail -n 1 "$work/time.out")
  result="$((kib / 1024)) MiB (exit $status after $elapsed s"
  case $catalog in
    http*) result="$result, $(( ($(ctl get=bytes) - sent) / 1000 )) kB sent)" ;;
    *) result="$result)" ;;
  esac
  notes+=("$(basename "$binary"), $(case $catalog in http*) echo from the origin ;; *) echo the file ;; esac): $(grep -m 1 -E 'ERROR|error' "$work/refuse.log" | cut -c 1-300)")
}

# 4. No ETag, the artifact unchanged.
no_etag() {
  local since seen=0 stats
  publish "$work/one.fcat" big.fcat
  ctl etag=0 >/dev/null
  since=$(now)
  replica "$1" big.fcat --poll-interval 500ms
  if ! until_cap 60 answers "$slug"; then result="did not serve"; result2=$result; halt; ctl etag=1 >/dev/null; return; fi
  local start
  start=$(now)
  while :; do
    stats=$(python3 "$work/polls.py" "$work/origin.log" "$work/replica.log" "$since" big.fcat 10)
    [ "$(wc -w <<<"$stats")" = 1 ] || break
    seen=$stats
    [ "$(echo "$(now) - $start > 60" | bc)" = 0 ] || break
    sleep 0.1
  done
  halt
  ctl etag=1 >/dev/null
  if [ "$(wc -w <<<"$stats")" = 1 ]; then
    result="$seen polls in 60 s"
    result2=$result
    return
  fi
  read -r polls mean least most reloads <<<"$stats"
  result="$(printf '%.1f' "$(echo "$mean / 1024" | bc -l)") KiB ($(printf '%.1f' "$(echo "$least / 1024" | bc -l)")–$(printf '%.1f' "$(echo "$most / 1024" | bc -l)"), $polls polls)"
  result2="$reloads of $polls polls"
}

for i in "${!binaries[@]}"; do
  term_fresh "${binaries[$i]}"
  cell[term_fresh,$i]=$result
done
for i in "${!binaries[@]}"; do
  term_serving "${binaries[$i]}"
  cell[term_serving,$i]=$result
done
for i in "${!binaries[@]}"; do
  stale "${binaries[$i]}"
  cell[stale,$i]=$result
done
for i in "${!binaries[@]}"; do
  refusing "${binaries[$i]}" "$work/www/claims.fcat"
  cell[rss_file,$i]=$result
  refusing "${binaries[$i]}" "http://$ORIGIN/claims.fcat" --state-dir "$work/state"
  cell[rss_origin,$i]=$result
done
for i in "${!binaries[@]}"; do
  no_etag "${binaries[$i]}"
  cell[bytes,$i]=$result
  cell[reloads,$i]=$result2
done

row() {
  local key=$1 label=$2 goal=$3 line i
  line="| $label |"
  for i in "${!binaries[@]}"; do line="$line ${cell[$key,$i]} |"; done
  echo "$line $goal |"
}
header="| figure |"
rule="|---|"
for name in "${names[@]}"; do
  header="$header $name |"
  rule="$rule---|"
done
echo "$header goal |"
echo "$rule---|"
row term_fresh "SIGTERM → exit: a fresh replica, its first pull hanging (--drain-timeout 1s)" "≤ 2 s"
row term_serving "SIGTERM → exit: a replica serving, its poll hanging (--drain-timeout 1s)" "≤ 2 s"
row stale "one corrupted range of a new release: publication → new title served (--poll-interval 1s)" "≤ 2 polls"
row rss_file "peak RSS refusing a summary that claims 40,000,000 products: the file" "≤ 64 MiB"
row rss_origin "the same, pulled from the origin by a fresh replica" "≤ 64 MiB"
row bytes "origin without ETag, artifact unchanged ($(printf '%.1f' "$(echo "$big_len / 1000000" | bc -l)") MB): bytes the origin sends a poll, mean (range) (--poll-interval 500ms)" "≤ 64 KiB"
row reloads "the same: polls at which the catalog was swapped" "none"
echo
printf '%s\n' "${notes[@]}"
