#!/bin/bash
# store-size.sh — store file sizes after 10,000 pods created and deleted
# (not a test); see store-size.py. The daemon keeps the last 1,000 changes
# (--watch-log 1000), so the deleted pods' rows leave the log within the run.
#   bench/store-size.sh [--daemon PATH] [--pods N] [--writes N]
set -eu
. "$(dirname "$0")/lib.sh"
bench_args "$@"
bench_start --watch-log 1000
/usr/bin/python3 "$ROOT/bench/store-size.py" --port "$PORT" --state "$D/state" "${BENCH_ARGS[@]}"
