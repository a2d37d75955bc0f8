#!/usr/bin/env bash
# CPU per move over HTTP: the move benchmark's server (`gallery-bench serve-moves`, a 100k gallery)
# in its own process, a Python client in another posting MOVES sequential single-item moves
# (random item, random section, index in its first half: the same moves as `gallery-bench move`'s
# wrk script, seeded, so two builds get the same ones). Prints the server's CPU time (user + system,
# from /proc) per move over those moves, after 200 warm-up moves; with PERF=1 also records them
# with `perf record -g` (cpu-clock samples) into OUT_PREFIX.perf for `perf report`.
#
# Usage: scripts/profile-moves.sh GALLERY_BENCH [MOVES=3000] [cookie|bearer] [OUT_PREFIX]
#   e.g. swift build -c release --product gallery-bench && scripts/profile-moves.sh .build/release/gallery-bench 3000 cookie /tmp/new
# ITEMS and SECTIONS (environment) size the gallery (100000 in 10); it is seeded once into a
# template folder and copied for each run.
#
# (valgrind's callgrind would count instructions independently of the machine's load, but the
# valgrind 3.19 of Debian 12 cannot read Swift 6's DWARF 5 and crashes on this server, stripped
# or not; the CPU time per move of a sequential client is the next best, and varies with load.)
set -euo pipefail
[[ $# -ge 1 && -x $1 ]] || { echo "profile-moves: ${1:-the gallery-bench binary} is missing: swift build -c release --product gallery-bench" >&2; exit 2; }
command -v python3 >/dev/null || { echo "profile-moves: python3 is missing: install it with scripts/setup.sh" >&2; exit 2; }
if [[ ${PERF:-0} == 1 ]] && ! command -v perf >/dev/null; then
  echo "profile-moves: PERF=1 needs perf, which is missing: install it with scripts/setup.sh --bench (Debian package linux-perf)" >&2; exit 2
fi
bin=$(realpath "$1"); moves=${2:-3000}; auth=${3:-cookie}; out=${4:-/tmp/profile-moves-$$}
items=${ITEMS:-100000}; sections=${SECTIONS:-10}
source "$(dirname "$0")/moves-template.sh"
template=$(moves_template "$bin" "$items" "$sections")
data=$(mktemp -d)
cp -a "$template/." "$data/"
port=$((19000 + RANDOM % 1000))
log=$out.log
"$bin" serve-moves --data "$data" --items "$items" --sections "$sections" --port "$port" >"$log" 2>&1 &
pid=$!
cleanup() { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; rm -rf "$data"; }
trap cleanup EXIT
for _ in $(seq 1 600); do grep -q '^base=' "$log" && break; kill -0 "$pid" || { cat "$log" >&2; exit 1; }; sleep 0.5; done
line=$(grep '^base=' "$log")
PERF=${PERF:-0} python3 - "$pid" "$moves" "$auth" "$line" "$out" <<'EOF'
import http.client, os, random, signal, subprocess, sys, time
pid, moves, auth, line, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4], sys.argv[5]
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
def cpu():
    fields = open("/proc/%s/stat" % pid).read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
for _ in range(200): move()
time.sleep(1)
perf = None
if os.environ.get("PERF") == "1":
    perf = subprocess.Popen(["perf", "record", "-e", "cpu-clock", "-g", "-p", pid, "-o", out + ".perf"],
                            stdout=subprocess.DEVNULL, stderr=open(out + ".perf.log", "w"))
    time.sleep(1)
    if perf.poll() is not None:  # e.g. not permitted (kernel.perf_event_paranoid): say so in one line
        why = (open(out + ".perf.log").read().strip().splitlines() or ["no message"])[0]
        sys.exit("profile-moves: perf record stopped at once (exit %d): %s (log: %s.perf.log)" % (perf.returncode, why, out))
c0, t0 = cpu(), time.time()
for _ in range(moves): move()
c1, t1 = cpu(), time.time()
if perf:
    perf.send_signal(signal.SIGINT); perf.wait()
print("server CPU per move (%s, %d sequential moves): %.1f µs; wall per move %.1f µs; load %s" % (
    auth, moves, (c1 - c0) / moves * 1e6, (t1 - t0) / moves * 1e6, open("/proc/loadavg").read().split()[0]))
EOF
