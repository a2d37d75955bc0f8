#!/usr/bin/env bash
# Instructions per move over HTTP, counted by callgrind (they do not depend on the machine's load):
# the move benchmark's server (`gallery-bench serve-moves`) runs under valgrind, a Python client in
# another process posts MOVES sequential single-item moves (random item, random section, index in
# its first half: the same moves as `gallery-bench move`'s wrk script, seeded, so two builds get the
# same ones), and only those are counted (instrumentation is switched on after 50 warm-up moves).
#
# Usage: scripts/profile-moves.sh GALLERY_BENCH [MOVES=2000] [cookie|bearer] [OUT_PREFIX]
#   e.g. swift build -c release --product gallery-bench && scripts/profile-moves.sh .build/release/gallery-bench 2000 cookie /tmp/new
# Prints instructions per move; OUT_PREFIX.callgrind is kept for `callgrind_annotate --inclusive=yes`.
# ITEMS and SECTIONS (environment) size the gallery (100000 in 10); it is seeded once natively into
# a template folder and copied for each run.
set -euo pipefail
bin=$(realpath "$1"); moves=${2:-2000}; auth=${3:-cookie}; out=${4:-/tmp/profile-moves-$$}
items=${ITEMS:-100000}; sections=${SECTIONS:-10}
command -v valgrind >/dev/null && command -v callgrind_control >/dev/null || { echo "profile-moves: valgrind is missing (apt-get install valgrind)" >&2; exit 2; }
template=${TMPDIR:-/tmp}/profile-moves-template-$items-$sections
if [[ ! -f $template/.seeded ]]; then
  rm -rf "$template"
  "$bin" serve-moves --data "$template" --items "$items" --sections "$sections" --seed-only
  touch "$template/.seeded"
fi
data=$(mktemp -d)
cp -a "$template/." "$data/"
port=$((19000 + RANDOM % 1000))
log=$out.log
valgrind --tool=callgrind --instr-atstart=no --callgrind-out-file="$out.callgrind" \
  "$bin" serve-moves --data "$data" --items "$items" --sections "$sections" --port "$port" >"$log" 2>&1 &
pid=$!
cleanup() { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$data"; }
trap cleanup EXIT
for _ in $(seq 1 1200); do grep -q '^base=' "$log" && break; kill -0 "$pid" || { cat "$log" >&2; exit 1; }; sleep 0.5; done
line=$(grep '^base=' "$log")
python3 - "$pid" "$moves" "$auth" "$line" <<'EOF'
import http.client, random, subprocess, sys, time
pid, moves, auth, line = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
f = dict(kv.split("=", 1) for kv in line.split())
base = f["base"]; host, port = base.split("//")[1].split(":")
gallery, first, count, per = int(f["gallery"]), int(f["first"]), int(f["count"]), int(f["per"])
sections = [int(s) for s in f["sections"].split(",")]
headers = {"Content-Type": "application/json"}
if auth == "cookie":
    headers.update({"Cookie": "gallery_session=bench-session", "Origin": base})
else:
    headers["Authorization"] = "Bearer gat_bench_token"
conn = http.client.HTTPConnection(host, int(port), timeout=600)
rng = random.Random(42)
def move():
    body = '{"operations":[{"op":"move","items":[%d],"to":{"section":%d,"index":%d}}]}' % (
        first + rng.randrange(count), rng.choice(sections), rng.randrange(per // 2 + 1))
    conn.request("POST", "/api/galleries/%d/batch" % gallery, body, headers)
    r = conn.getresponse(); data = r.read()
    if r.status != 200: sys.exit("move answered %d: %s" % (r.status, data[:300]))
for _ in range(50): move()
time.sleep(2)  # the warm-up's background work (WAL copy) settles
subprocess.run(["callgrind_control", "-i", "on", pid], check=True, stdout=subprocess.DEVNULL)
t = time.time()
for _ in range(moves): move()
time.sleep(2)
subprocess.run(["callgrind_control", "-i", "off", pid], check=True, stdout=subprocess.DEVNULL)
subprocess.run(["callgrind_control", "-d", pid], check=True, stdout=subprocess.DEVNULL)
print("%d moves in %.1f s under callgrind" % (moves, time.time() - t), file=sys.stderr)
EOF
sleep 1
dump=$(ls -t "$out.callgrind"* | head -1)
total=$(callgrind_annotate "$dump" 2>/dev/null | awk '/PROGRAM TOTALS/ { gsub(",", "", $1); print $1; exit }')
echo "instructions per move ($auth, $moves moves, $items items): $((total / moves)) ($total in all; $dump)"
