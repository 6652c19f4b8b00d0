#!/bin/bash
# api-bench.sh — slurmlinkd API figures (not a test): with 10,000 pods stored,
# list as Table and as JSON (p50/p99), a watch fan-out of 100 watchers x 1,000
# changes (delivery latency), resident memory. Uses the plain build.
#   bench/api-bench.sh [--pods N] [--watchers N] [--changes N] [--rate N/s]
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
D=$(mktemp -d /tmp/slb.XXXXXX)
PORT=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$ROOT/build/slurmlinkd" --port "$PORT" --state-dir "$D/state" --max-per-ip 1000 >"$D/daemon.log" 2>&1 &
PID=$!
cleanup() { kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null; rm -rf "$D"; }
trap cleanup EXIT
for _ in $(seq 1 50); do curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.1; done
echo "slurmlinkd $("$ROOT/build/slurmlinkd" --version | cut -d' ' -f2) on $(nproc) cores, $(uname -r)"
/usr/bin/python3 "$ROOT/bench/api-bench.py" --port "$PORT" --pid "$PID" "$@"
