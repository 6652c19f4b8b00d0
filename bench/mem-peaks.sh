#!/bin/bash
# mem-peaks.sh — resident memory peaks of whole-store operations (a /metrics
# scrape, a list, a namespace's deletion) with M pods and N Events stored
# (not a test); see mem-peaks.py.
#   bench/mem-peaks.sh [--daemon PATH] [--events N] [--pods M]
set -eu
. "$(dirname "$0")/lib.sh"
bench_args "$@"
bench_start
echo "slurmlinkd $("$DAEMON" --version | cut -d' ' -f2) on $(nproc) cores, load $(cut -d' ' -f1-3 /proc/loadavg)"
/usr/bin/python3 "$ROOT/bench/mem-peaks.py" --port "$PORT" --pid "$PID" "${BENCH_ARGS[@]}"
