#!/bin/bash
# api-bench.sh — slurmlinkd API figures (not a test): with 10,000 pods stored,
# list as Table and as JSON (p50/p99), a watch fan-out of 100 watchers x 1,000
# changes (delivery latency), resident memory. Uses the plain build unless
# --daemon PATH names another binary.
#   bench/api-bench.sh [--daemon PATH] [--pods N] [--watchers N] [--changes N] [--rate N/s]
set -eu
. "$(dirname "$0")/lib.sh"
bench_args "$@"
bench_start
echo "slurmlinkd $("$DAEMON" --version | cut -d' ' -f2) on $(nproc) cores, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/python3 "$ROOT/bench/api-bench.py" --port "$PORT" --pid "$PID" "${BENCH_ARGS[@]}"
