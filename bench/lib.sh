# lib.sh — what the bench scripts share (sourced): the slurmlinkd binary
# (--daemon PATH, default the plain build) started alone on a free port with
# a fresh state folder, and stopped on exit.
#   bench_args "$@"     sets DAEMON, leaves the rest in BENCH_ARGS
#   bench_start [OPT..] starts it (options added); sets PORT, PID, D
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
DAEMON=$ROOT/build/slurmlinkd
BENCH_ARGS=()

bench_args() {
    if [ "${1:-}" = --daemon ]; then
        DAEMON=$2
        shift 2
    fi
    BENCH_ARGS=("$@")
}

bench_cleanup() {
    if [ -n "${PID:-}" ]; then
        kill "$PID" 2>/dev/null
        wait "$PID" 2>/dev/null
    fi
    rm -rf "$D"
}

bench_start() {
    D=$(mktemp -d /tmp/slb.XXXXXX)
    PORT=$(/usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
    "$DAEMON" --port "$PORT" --state-dir "$D/state" --max-per-ip 1000 "$@" >"$D/daemon.log" 2>&1 &
    PID=$!
    trap bench_cleanup EXIT
    for _ in $(seq 1 100); do
        curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null && return 0
        sleep 0.1
    done
    echo "slurmlinkd did not answer on port $PORT:" >&2
    cat "$D/daemon.log" >&2
    exit 1
}
