#!/bin/bash
# list-paging.sh — paged list figures (not a test) for one slurmlinkd binary:
#   bench/list-paging.sh [--daemon PATH] [--pods N] [--changes N]
# (default: the plain build). See list-paging.py.
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DAEMON=$ROOT/build/slurmlinkd
if [ "${1:-}" = --daemon ]; then DAEMON=$2; shift 2; fi
D=$(mktemp -d /tmp/slb.XXXXXX)
PORT=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$DAEMON" --port "$PORT" --state-dir "$D/state" --max-per-ip 1000 >"$D/daemon.log" 2>&1 &
PID=$!
cleanup() { kill "$PID" 2>/dev/null; wait "$PID" 2>/dev/null; rm -rf "$D"; }
trap cleanup EXIT
for _ in $(seq 1 50); do curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && break; sleep 0.1; done
/usr/bin/python3 "$ROOT/bench/list-paging.py" --port "$PORT" "$@"
