#!/bin/bash
# bench/scale/mem.sh — on the bigger host, from .devscale/ (prepare.sh made
# it), as root, after run.sh has installed the bundle (it runs run.sh first
# when it has not): slurmlinkd's resident memory at scale.
#   1. a 10,000-pod api round with three watchers of its pods (run.sh,
#      ONLY=api WATCHERS=2: the round's own watch and two more), its peak
#      RSS and CPU per pod by thread;
#   2. bench/mem-peaks.sh with PODS_STORED pods (default 100,000) and
#      EVENTS Events stored (default 20,000): RSS with them stored and the
#      peaks of a /metrics scrape, a full list and the namespace's deletion;
#   3. bench/store-size.sh with PODS_STORED pods created and deleted.
# Each part's output goes to $OUT (or here) as mem-*.txt; LIMIT_MEM bounds
# parts 2 and 3 (seconds each, default 200).
set -u
G=$(cd "$(dirname "$0")" && pwd)
[ -e "$G/b/bundle.tgz" ] || G=$(cd "$G/../.." && pwd) # run as .devscale/bench/scale/mem.sh
OUTD=${OUT:-$G} SL=/opt/slurmlink/build
N=${PODS_STORED:-100000}
[ -e /tmp/slwork/ready ] || PODS=1000 ONLY=api REPEAT=1 TAG=setup bash "$G/run.sh" >"$OUTD/mem-setup.txt" 2>&1
ONLY=api PODS=${PODS_ROUND:-10000} REPEAT=1 WATCHERS=2 TAG=w3 LIMIT=${LIMIT_ROUND:-200} bash "$G/run.sh" >"$OUTD/mem-round.txt" 2>&1
cd "$G/bench" || exit 1
timeout "${LIMIT_MEM:-200}" bash mem-peaks.sh --daemon $SL/slurmlinkd --pods "$N" --events "${EVENTS:-20000}" \
    >"$OUTD/mem-peaks.txt" 2>&1
echo "mem-peaks rc=$?" >>"$OUTD/mem-peaks.txt"
timeout "${LIMIT_MEM:-200}" bash store-size.sh --daemon $SL/slurmlinkd --pods "$N" >"$OUTD/mem-store.txt" 2>&1
echo "store-size rc=$?" >>"$OUTD/mem-store.txt"
tail -n 30 "$OUTD"/mem-*.txt
