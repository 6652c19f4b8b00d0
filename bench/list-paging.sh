#!/bin/bash
# list-paging.sh — paged list figures (not a test) for one slurmlinkd binary:
#   bench/list-paging.sh [--daemon PATH] [--pods N] [--changes N]
# (default: the plain build). See list-paging.py.
set -eu
. "$(dirname "$0")/lib.sh"
bench_args "$@"
bench_start
/usr/bin/python3 "$ROOT/bench/list-paging.py" --port "$PORT" "${BENCH_ARGS[@]}"
