#!/usr/bin/env bash
# Where a move's latency under 50 clients is spent: wrk's latencies (from the client) beside the
# server's own (Hummingbird's MetricsMiddleware histogram of POST …/batch, from /metrics before and
# after the run: from the middleware chain's start to the handler's answer, so without NIO's read
# and parse and the answer's socket write). The move benchmark's server (`gallery-bench
# serve-moves`, a fresh copy of a seeded 100k gallery in 10 sections), 3 s of wrk to warm up, then
# `wrk -t2 -c50 -d RUN_SECONDS` of single moves with a bearer token.
#
# Usage: scripts/moves-server-latency.sh GALLERY_BENCH   (RUN_SECONDS: 10)
set -euo pipefail
[[ $# -ge 1 && -x $1 ]] || { echo "moves-server-latency: ${1:-the gallery-bench binary} is missing: swift build -c release --product gallery-bench" >&2; exit 2; }
for tool in wrk curl python3; do
  command -v $tool >/dev/null || { echo "moves-server-latency: $tool is missing: install it with scripts/setup.sh --bench" >&2; exit 2; }
done
bin=$(realpath "$1"); items=100000; sections=10; seconds=${RUN_SECONDS:-10}
source "$(dirname "$0")/moves-template.sh"
template=$(moves_template "$bin" "$items" "$sections")
work=$(mktemp -d); pid=
cleanup() { [[ -n $pid ]] && { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }; rm -rf "$work"; }
trap cleanup EXIT
mkdir -p "$work/data"; cp -a "$template/." "$work/data/"
"$bin" serve-moves --data "$work/data" --items "$items" --sections "$sections" --wrk-script "$work/moves.lua"
port=$((21000 + RANDOM % 500))
"$bin" serve-moves --data "$work/data" --items "$items" --sections "$sections" --port "$port" >"$work/serve.log" 2>&1 &
pid=$!
for _ in $(seq 1 240); do grep -q '^base=' "$work/serve.log" && break; kill -0 "$pid" || { cat "$work/serve.log" >&2; exit 1; }; sleep 0.5; done
url=http://127.0.0.1:$port
histogram() {
  curl -sf -H "Authorization: Bearer gat_bench_token" "$url/metrics" \
    | grep '^http_server_request_duration_bucket' | grep 'batch' | grep 'POST' | grep '"200"'
}
wrk -t2 -c50 -d3s -s "$work/moves.lua" "$url" >/dev/null
histogram >"$work/before"
echo "wrk: $(wrk -t2 -c50 -d"${seconds}s" -s "$work/moves.lua" "$url" | tail -1)"
histogram >"$work/after"
python3 - "$work/before" "$work/after" <<'PY'
import re, sys
def read(path):
    out = {}
    for line in open(path):
        out[re.search(r'le="([^"]+)"', line).group(1)] = float(line.rsplit(" ", 1)[1])
    return out
a, b = read(sys.argv[1]), read(sys.argv[2])
keys = sorted(b, key=lambda k: float("inf") if k == "+Inf" else float(k))
total = b["+Inf"] - a.get("+Inf", 0)
print("server (MetricsMiddleware), %d moves, share answered within:" % total,
      " ".join("%g ms %.1f%%" % (float(k) * 1000, 100 * (b[k] - a.get(k, 0)) / total) for k in keys if k != "+Inf" and float(k) <= 0.1))
PY
