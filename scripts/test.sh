#!/usr/bin/env bash
# Sets up and runs every test: unit, property and integration tests (swift test, on real
# SQLite files and a real HTTP server), the wasm build and its parity test against the
# native engine under node, schemathesis against the live server's OpenAPI document, and the browser tests in Debian's Chromium when present.
set -euo pipefail
cd "$(dirname "$0")/.."
# What compiling needs first; the rest (PostgreSQL, Chromium, the venv) and the wasm build (single-threaded
# swiftc runs) go on in the background beside the debug build, their output kept until they end.
scripts/setup.sh --build
mkdir -p .build
scripts/setup.sh --browser > .build/setup.log 2>&1 & setup=$!
scripts/build-wasm.sh --test-support > .build/build-wasm.log 2>&1 & wasm=$!
# background NAME PID LOG: waits for it, shows its output, stops the run if it failed.
background() {
  local status=0
  wait "$2" || status=$?
  echo "== $1"; cat "$3"
  (( status == 0 )) || { echo "test: $1 failed (exit $status)" >&2; exit "$status"; }
}

# GALLERY_TEST_LEAN_BUILD=1 (.ci/run sets it: a fresh clone every time) builds without debug info
# (a fresh debug build without Swift's took 711 s against 775 s, session 25) and each module as a
# whole (`-wmo`: its files type-checked once, not once per batch of them; `-num-threads 2` keeps one
# object file per source file, which swift build expects, and codegen on both cores): 690 s against
# 769 s from clean, session 37. Incremental builds are off with -wmo, which a fresh clone never has.
# The index store stays: on Linux, swift build's test discovery step needs it (with
# --disable-index-store the build stops there, Swift Testing alone or not). A developer's tree keeps
# the flags of a plain `swift build`, which would otherwise rebuild everything after each run.
build_flags=()
[[ ${GALLERY_TEST_LEAN_BUILD:-} == 1 ]] && build_flags=(-Xswiftc -gnone -Xcc -g0 -Xswiftc -wmo -Xswiftc -num-threads -Xswiftc 2)
# limited NAME SECONDS LOG COMMAND…: runs COMMAND, its output shown and kept in LOG. Still running after
# SECONDS is a hang (each step takes a fraction of its limit, on a machine three times slower too):
# scripts/hang-report.py prints what was running (the processes, their threads in the project's
# code, the Swift tests that started and never ended), stops it all and the run fails, instead of
# the CI's time running out with nothing said.
limited() {
  local name=$1 limit=$2 log=$3 waited=0 status=0; shift 3
  "$@" > >(tee "$log") 2>&1 &
  local pid=$!
  while kill -0 "$pid" 2>/dev/null; do
    if (( waited >= limit )); then
      python3 scripts/hang-report.py --kill "$pid" "$log" || true
      echo "test: $name did not end within $limit s: stopped (the report above says what was running)" >&2
      exit 1
    fi
    sleep 1; waited=$((waited + 1))
  done
  wait "$pid" || status=$?
  return "$status"
}

echo "== swift build (debug, with the tests)"
swift build --build-tests "${build_flags[@]}"
background "setup (the rest)" "$setup" .build/setup.log
background "wasm build (engine.wasm, and engine-test.wasm with the test support for the parity test)" "$wasm" .build/build-wasm.log

echo "== swift test (the store suite on SQLite and on a private PostgreSQL cluster)"
# The PostgreSQL cases fail, not skip, without GALLERY_TEST_POSTGRES unless
# GALLERY_TEST_POSTGRES=skip is set by hand (Tests/GalleryStoreTests/Support.swift).
eval "$(scripts/pg-test-cluster.sh start)"
trap 'kill $(jobs -p) 2>/dev/null || true; scripts/pg-test-cluster.sh stop "$GALLERY_PG_DIR"' EXIT
limited "swift test" "${GALLERY_SWIFT_TEST_LIMIT:-1800}" .build/swift-test.log swift test --skip-build --parallel

echo "== the API contract fuzzed (schemathesis against a live server, Tests/contract/fuzz.py)"
# The same passes against a server on PostgreSQL (an empty database of the private cluster; fewer
# examples) run at the same time, their output shown when they end: each run keeps ~1.2 of the two
# cores busy (schemathesis, and the debug server between its requests).
fuzz_database=$(scripts/pg-test-cluster.sh createdb "$GALLERY_PG_DIR" gallery_fuzz)   # set -e stops here if it fails
.venv/bin/python Tests/contract/fuzz.py --gallery .build/debug/gallery --examples 20 --database "$fuzz_database" > .build/fuzz-postgres.log 2>&1 & fuzz_postgres=$!
.venv/bin/python Tests/contract/fuzz.py --gallery .build/debug/gallery
background "the same passes against a server on PostgreSQL" "$fuzz_postgres" .build/fuzz-postgres.log

echo "== wasm parity (engine.wasm under node vs the native engine)"
swift build --product engine-cli "${build_flags[@]}"
node Tests/wasm/parity.mjs .build/debug/engine-cli .build-wasm/engine.wasm .build-wasm/engine-test.wasm
node Tests/wasm/model.mjs .build-wasm/engine.wasm

echo "== page modules under node"
for t in Tests/web/*.test.mjs; do node "$t"; done

if [[ -d Tests/browser ]]; then
  echo "== browser tests (Playwright in Debian's chromium-headless-shell, against the real server)"
  # The debug server built above: a second (release) build would double CI's build time.
  # Two workers (pytest-xdist), each with its own servers and browser: 9.5 min instead of 13 on two cores
  # (5.5 min since the servers' data folders are copied and the browser is the headless shell).
  GALLERY_BIN=.build/debug/gallery limited "the browser tests" 1800 .build/browser-tests.log .venv/bin/python -m pytest -q -n 2 Tests/browser
fi
echo "== all tests passed"
