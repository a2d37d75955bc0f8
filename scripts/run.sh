#!/usr/bin/env bash
# Sets up and runs the gallery: installs the system libraries, builds engine.wasm and the
# server (release), then serves http://127.0.0.1:8080 with the data folder ./gallery-data
# (created with a sample gallery on first start). Extra arguments go to `gallery serve`.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh
scripts/build-wasm.sh
swift build -c release --product gallery
exec .build/release/gallery serve "$@"
