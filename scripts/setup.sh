#!/usr/bin/env bash
# Installs what the project needs on a fresh Debian machine (idempotent; quick when all is there):
# libvips and SQLite headers for the server, PostgreSQL (its second storage backend's tests), libvips' CLI and ImageMagick for the thumbnail
# benchmark baselines, Chromium for the browser tests, and a Python venv with Playwright.
# Usage: scripts/setup.sh [--browser] [--bench]   (--bench: wrk, vipsthumbnail, ImageMagick and GNU time for gallery-bench,
#   perf for PERF=1 scripts/profile-moves.sh)
#        scripts/setup.sh --build   only what compiling needs (headers, pkg-config, python3): scripts/test.sh
#   installs the rest in the background meanwhile
set -euo pipefail
cd "$(dirname "$0")/.."

# libimage-exiftool-perl, libvips-tools: tests tag real JPEGs with EXIF orientations and write JPEG XL fixtures.
# fonts-noto-color-emoji: the server draws the sample gallery's 🥸 tile with it (and the browser shows emoji titles).
# postgresql: the PostgreSQL backend's tests run a private cluster (scripts/pg-test-cluster.sh); its client's
#   pg_dump/pg_restore back up and restore (gallery backup --database, MigrateTests).
# libzstd-dev: the server sends the page's columns body zstd-compressed to browsers that take it (faster to
#   decode than gzip: ~20 ms instead of ~150 ms for a million items).
# nginx: DeployExamplesTests checks docs/deploy's nginx examples with `nginx -t` (nothing is started: the
#   package's service is not needed and may stay stopped).
# python3: scripts/pg-test-cluster.sh, scripts/build-wasm.sh (bundle-page.py), the benchmark scripts.
packages=(libvips-dev libvips-tools libsqlite3-dev libzstd-dev pkg-config fonts-noto-color-emoji libimage-exiftool-perl postgresql nginx python3)
# nodejs: the wasm parity test and the page-module tests (scripts/test.sh) and the node benchmarks
#   (scripts/bench-*.mjs) run under node; Debian's (18) when no node is on the PATH, else the one there.
command -v node >/dev/null || packages+=(nodejs)
browser=0
for arg in "$@"; do
  case "$arg" in
    --build) packages=(libvips-dev libsqlite3-dev libzstd-dev pkg-config python3) ;;
    # python3-venv: Debian's python3 makes no venv without it. chromium-headless-shell: the headless
    #   browser Playwright launches for headless runs (bench-page.py and bench-visit.py run in it unless --browser full).
    --browser) browser=1; packages+=(chromium chromium-headless-shell python3-venv) ;;
    # linux-perf: `perf record` for PERF=1 scripts/profile-moves.sh.
    --bench) packages+=(wrk libvips-tools imagemagick time linux-perf) ;;
    *) echo "setup: unknown option $arg" >&2; exit 2 ;;
  esac
done
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if (( ${#missing[@]} )); then
  SUDO=""; [[ $(id -u) -ne 0 ]] && SUDO="sudo"
  echo "setup: installing ${missing[*]}"
  # Another apt may hold the lock for a while (unattended upgrades): wait for it.
  $SUDO apt-get -o DPkg::Lock::Timeout=600 update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get -o DPkg::Lock::Timeout=600 install -y -qq "${missing[@]}" >/dev/null
fi

if (( browser )); then
  # pyotp: the browser tests compute TOTP codes for the two-factor sign-in.
  # pytest-xdist: scripts/test.sh runs the browser tests in two workers (9.5 min instead of 13 on two cores).
  # schemathesis and its hypothesis (pinned, so that a fuzz run repeats): fuzzes the live server against its
  # OpenAPI document (Tests/contract/fuzz.py).
  schemathesis=4.32.5 hypothesis=6.170.17
  if [[ ! -x .venv/bin/python ]] || ! .venv/bin/python -c 'import playwright, pyotp, axe_playwright_python, xdist' 2>/dev/null \
     || [[ "$(.venv/bin/python -c 'import importlib.metadata as m; print(m.version("schemathesis"), m.version("hypothesis"))' 2>/dev/null)" != "$schemathesis $hypothesis" ]]; then
    echo "setup: creating .venv with Playwright, pytest-xdist, pyotp and schemathesis (the browser is Debian's chromium)"
    [[ -x .venv/bin/python ]] || python3 -m venv .venv
    .venv/bin/pip install -q playwright pytest pytest-xdist pyotp axe-playwright-python "schemathesis==$schemathesis" "hypothesis==$hypothesis"
  fi
fi
