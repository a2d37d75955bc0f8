#!/usr/bin/env bash
# A private PostgreSQL cluster for the tests (issue 14): Debian's PostgreSQL 15 (scripts/setup.sh
# installs it), `initdb` into a new temporary folder, listening on a free loopback port with its
# socket in that folder, trust authentication for loopback only, fsync off (test data only).
# PostgreSQL refuses to run as root (CI runs as root): then the cluster runs as the `postgres`
# user that Debian's package creates (runuser); as another user it runs as that user.
#
#   eval "$(scripts/pg-test-cluster.sh start)"   # sets GALLERY_PG_DIR and GALLERY_TEST_POSTGRES
#   scripts/pg-test-cluster.sh stop "$GALLERY_PG_DIR"
#   PG_DURABLE=1 scripts/pg-test-cluster.sh start # PostgreSQL's durable defaults (fsync, synchronous_commit on):
#                                                 # for benchmarks (gallery-bench backends), not test speed
#   scripts/pg-test-cluster.sh createdb DIR NAME  # a new empty database; prints its URL
#   scripts/pg-test-cluster.sh down|up DIR        # the server stopped / started again, data kept
#                                                 # (the outage test: PostgreSQL going away mid-run)
#
# `start` prints the two assignments (the URL names a new database `gallery_test`; the store
# tests create one database per test beside it).
set -euo pipefail

bin=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1 || true)  # none: the line below says so
[[ -x "$bin/initdb" ]] || { echo "pg-test-cluster: no PostgreSQL server binaries (run scripts/setup.sh)" >&2; exit 1; }

as_owner() {
  if [[ $(id -u) -eq 0 ]]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "${1:-}" in
  start)
    dir=$(mktemp -d "${TMPDIR:-/tmp}/gallery-pg.XXXXXX")
    chmod 755 "$dir"
    [[ $(id -u) -eq 0 ]] && chown postgres: "$dir"
    port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    as_owner "$bin/initdb" -D "$dir/data" -U gallery --auth=trust --no-locale -E UTF8 >"$dir/initdb.log" 2>&1 \
      || { cat "$dir/initdb.log" >&2; exit 1; }
    echo "$port" >"$dir/port"
    [[ "${PG_DURABLE:-}" == 1 ]] && touch "$dir/durable"
    "$0" up "$dir"
    as_owner "$bin/createdb" -h 127.0.0.1 -p "$port" -U gallery gallery_test
    echo "export GALLERY_PG_DIR=$dir"
    echo "export GALLERY_TEST_POSTGRES=postgres://gallery@127.0.0.1:$port/gallery_test"
    ;;
  up)
    dir=$2; port=$(cat "$dir/port")
    fast="-c fsync=off -c synchronous_commit=off -c full_page_writes=off"
    [[ -e "$dir/durable" ]] && fast=""
    # The server outlives this script: it must hold no descriptor of whoever ran it beyond stdio.
    # A test process that runs this through system(3) has pipes and sockets open (Foundation's
    # Process learns that a child ended when its socket closes; a reader, when a pipe's last writer
    # does); held by a server that lives on, they never close and their waits never end.
    for fd in /proc/$$/fd/*; do
      fd=${fd##*/}
      (( fd > 2 && fd != 255 )) && eval "exec $fd>&-" 2>/dev/null || true
    done
    as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
      -o "-p $port -k $dir -c listen_addresses=127.0.0.1 $fast -c max_connections=300" \
      start >/dev/null || { cat "$dir/server.log" >&2; exit 1; }
    ;;
  createdb)
    # A new empty database in a running cluster: prints its URL (the fuzzer's PostgreSQL pass).
    dir=$2; port=$(cat "$dir/port")
    as_owner "$bin/createdb" -h 127.0.0.1 -p "$port" -U gallery "$3"
    echo "postgres://gallery@127.0.0.1:$port/$3"
    ;;
  down)
    as_owner "$bin/pg_ctl" -D "$2/data" -m fast -w stop >/dev/null
    ;;
  stop)
    dir=${2:-${GALLERY_PG_DIR:-}}
    [[ -n "$dir" && -d "$dir/data" ]] || { echo "pg-test-cluster: stop needs the folder start printed" >&2; exit 1; }
    as_owner "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null || true
    rm -rf "$dir"
    ;;
  *)
    echo "usage: scripts/pg-test-cluster.sh start | stop DIR | createdb DIR NAME | down DIR | up DIR" >&2; exit 2 ;;
esac
