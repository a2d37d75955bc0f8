#!/usr/bin/env bash
# Moves under 50 clients, two or more builds side by side: each build in turn serves a fresh copy
# of one seeded gallery (`gallery-bench serve-moves`, 100k items in 10 sections), takes 3 s of
# wrk to warm up, then `wrk -t2 -c50` of single moves (the move benchmark's wrk script, with a
# bearer token, written by the last build given: random item, random section, index in its first
# half) for RUN_SECONDS; ROUNDS rounds, alternating, so that each round's rows compare on a machine
# whose speed drifts. Prints one line per run: moves/s, wrk's p50/p90/p99/max, the server's CPU
# time per move (user + system, from /proc) and the CPU the hypervisor took meanwhile (steal, in
# jiffies of /proc/stat).
#
# With RATE=R the load is open instead of wrk's closed loop: `gallery-bench open-moves` (of the last
# build given, for every build) posts the same kind of moves at R a second over 50 connections, each
# move's latency counted from when it was due (3 s of it to warm up, then RUN_SECONDS measured);
# `late` counts the measured moves still unanswered at the end (the server did not keep up), each in
# the percentiles with what it had waited by then.
#
# Usage: scripts/ab-moves.sh ROUNDS GALLERY_BENCH [GALLERY_BENCH…]
#   e.g. scripts/ab-moves.sh 3 /tmp/old/gallery-bench .build/release/gallery-bench
#        RATE=3000 scripts/ab-moves.sh 2 .build/release/gallery-bench
#        TOGETHER=1 scripts/ab-moves.sh 3 /tmp/old/gallery-bench .build/release/gallery-bench
# With TOGETHER=1 the builds are served at the same time (each its own copy of the gallery), each
# under its own `wrk -t1` with 50 / (number of builds) connections: both meet the same machine in
# the same seconds, so their CPU per move compares even while the machine's speed drifts (one build
# against itself, run in turn: 3,100–4,700 moves/s and 425–512 µs per move within 20 minutes;
# together: within 3 %). Their latencies are those of a shared machine, not the target's.
# ITEMS, SECTIONS and RUN_SECONDS (environment) change the gallery (100000 in 10) and the run (10 s).
set -euo pipefail
[[ $# -ge 2 ]] || { echo "usage: scripts/ab-moves.sh ROUNDS GALLERY_BENCH [GALLERY_BENCH…]" >&2; exit 2; }
rounds=$1; shift
for bin in "$@"; do
  [[ -x $bin ]] || { echo "ab-moves: $bin is missing: swift build -c release --product gallery-bench" >&2; exit 2; }
done
command -v wrk >/dev/null || { echo "ab-moves: wrk is missing: install it with scripts/setup.sh --bench" >&2; exit 2; }
items=${ITEMS:-100000}; sections=${SECTIONS:-10}; seconds=${RUN_SECONDS:-10}
source "$(dirname "$0")/moves-template.sh"
template=$(moves_template "$1" "$items" "$sections")
work=$(mktemp -d); pid=
cleanup() { [[ -n $pid ]] && { kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; }; rm -rf "$work"; }
trap cleanup EXIT
# The move benchmark's wrk script for the seeded gallery, from the last build given (the same
# gallery and ids for every build: they all serve copies of one template).
cp -a "$template" "$work/data"
"${@: -1}" serve-moves --data "$work/data" --items "$items" --sections "$sections" --wrk-script "$work/moves.lua"
steal() { awk '/^cpu /{print $9}' /proc/stat; }
cpu() { awk '{print $14 + $15}' "/proc/$1/stat"; }   # a process's user + system time, in 1/100 s
# serve BIN DATA LOG K: a fresh copy of the template in DATA served by BIN on a random port of its
# own (K: the build's place, so that builds served together never share one; its pid in $served);
# then `base LOG PID BIN` waits for its `base=` line and prints the URL.
serve() {
  rm -rf "$2"; cp -a "$template" "$2"
  "$1" serve-moves --data "$2" --items "$items" --sections "$sections" --port $((20000 + 100 * $4 + RANDOM % 100)) >"$3" 2>&1 &
  served=$!
}
base() {
  for _ in $(seq 1 240); do grep -q '^base=' "$1" && break; kill -0 "$2" || { cat "$1" >&2; exit 1; }; sleep 0.5; done
  local line
  line=$(grep '^base=' "$1") || { echo "ab-moves: $3 did not start" >&2; exit 1; }
  echo "$line" | tr ' ' '\n' | sed -n 's/^base=//p'
}
if [[ -n ${TOGETHER:-} ]]; then
  [[ -z ${RATE:-} ]] || { echo "ab-moves: TOGETHER=1 runs wrk's closed loop only (unset RATE)" >&2; exit 2; }
  n=$#; pids=(); trap 'kill "${pids[@]}" 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT
  for round in $(seq "$rounds"); do
    pids=(); bases=(); k=0
    for bin in "$@"; do
      k=$((k + 1)); serve "$bin" "$work/data$k" "$work/log$k" "$k"; pids+=("$served")
    done
    for k in $(seq "$n"); do url=$(base "$work/log$k" "${pids[k-1]}" "${!k}"); bases+=("$url"); done
    clients=$((50 / n)); ws=()
    for k in $(seq "$n"); do wrk -t1 -c"$clients" -d3s -s "$work/moves.lua" "${bases[k-1]}" >/dev/null & ws+=($!); done
    wait "${ws[@]}"; ws=(); c0=()
    s0=$(steal)
    for k in $(seq "$n"); do c0+=("$(cpu "${pids[k-1]}")"); done
    for k in $(seq "$n"); do wrk -t1 -c"$clients" -d"${seconds}s" -s "$work/moves.lua" "${bases[k-1]}" >"$work/out$k" & ws+=($!); done
    wait "${ws[@]}"
    s1=$(steal); k=0
    for bin in "$@"; do
      k=$((k + 1)); c1=$(cpu "${pids[k-1]}")
      sent=$(tail -1 "$work/out$k" | tr ' ' '\n' | sed -n 's/^requests=//p')
      echo "round $round together $bin: $(awk '/Requests\/sec/{print $2}' "$work/out$k") moves/s $(tail -1 "$work/out$k") cpu/move $(( (c1 - c0[k-1]) * 10000 / (sent > 0 ? sent : 1) )) us steal $((s1 - s0))"
    done
    kill "${pids[@]}"; wait "${pids[@]}" 2>/dev/null || true; pids=()
  done
  exit 0
fi
for round in $(seq "$rounds"); do
  for bin in "$@"; do
    serve "$bin" "$work/data" "$work/log" 0; pid=$served
    url=$(base "$work/log" "$pid" "$bin")
    if [[ -n ${RATE:-} ]]; then
      s0=$(steal); c0=$(cpu "$pid")
      out=$("${@: -1}" open-moves --serve-line "$work/log" --rate "$RATE" --clients 50 --seconds "$seconds" --warmup 3)
      s1=$(steal); c1=$(cpu "$pid")
      rate="offered $RATE/s"
      sent=$(echo "$out" | tail -1 | tr ' ' '\n' | sed -n 's/^answered=//p')   # the warm-up's too: the CPU was read around both
    else
      wrk -t2 -c50 -d3s -s "$work/moves.lua" "$url" >/dev/null
      s0=$(steal); c0=$(cpu "$pid")
      out=$(wrk -t2 -c50 -d"${seconds}s" -s "$work/moves.lua" "$url")
      s1=$(steal); c1=$(cpu "$pid")
      rate="$(echo "$out" | awk '/Requests\/sec/{print $2}') moves/s"
      sent=$(echo "$out" | tail -1 | tr ' ' '\n' | sed -n 's/^requests=//p')
    fi
    echo "round $round $bin: $rate $(echo "$out" | tail -1) cpu/move $(( (c1 - c0) * 10000 / (sent > 0 ? sent : 1) )) us steal $((s1 - s0)) load $(cut -d' ' -f1 /proc/loadavg)"
    kill "$pid"; wait "$pid" 2>/dev/null || true; pid=
  done
done
