#!/bin/bash
# bench/scale/mem.sh — on the bigger host, from .devscale/ (prepare.sh made
# it), as root, after run.sh has installed the bundle (it runs run.sh first
# when it has not): slurmlinkd's resident memory at scale, each daemon of
# DAEMONS_SET (NAME=PATH,...; default: base/ of prepare.sh BASE when there
# is one, and HEAD's) side by side in the same run:
#   1. a 10,000-pod api round with three watchers of its pods (run.sh,
#      ONLY=api WATCHERS=2: the round's own watch and two more), REPEAT_ROUND
#      rounds per daemon (default 2: the daemons take turns), its peak RSS,
#      the largest sampled RSS split into anonymous memory and files, the
#      RSS at the round's end and once its pods are gone, CPU per pod by
#      thread;
#   2. bench/mem-peaks.sh with PODS_STORED pods (default 100,000) and
#      EVENTS Events stored (default 20,000), per daemon: RSS with them
#      stored and the peaks of a /metrics scrape, a full list and the
#      namespace's deletion;
#   3. bench/store-size.sh with PODS_STORED pods created and deleted (HEAD's).
# Each part's output goes to $OUT (or here) as mem-*.txt; LIMIT_MEM bounds
# each daemon's part 2 and part 3 (seconds each, default 200).
#   bash .devscale/bench/scale/mem.sh                  # base and head
#   DAEMONS_SET=head=/opt/slurmlink/build/slurmlinkd bash .devscale/bench/scale/mem.sh
set -u
G=$(cd "$(dirname "$0")" && pwd)
[ -e "$G/b/bundle.tgz" ] || G=$(cd "$G/../.." && pwd) # run as .devscale/bench/scale/mem.sh
OUTD=${OUT:-$G} SL=/opt/slurmlink/build
N=${PODS_STORED:-100000}
[ -e /tmp/slwork/ready ] || PODS=1000 ONLY=api REPEAT=1 TAG=setup bash "$G/run.sh" >"$OUTD/mem-setup.txt" 2>&1
SET=${DAEMONS_SET:-}
if [ -z "$SET" ]; then
    [ -x /opt/slurmlink/base/slurmlinkd ] && SET=base=/opt/slurmlink/base/slurmlinkd,
    SET=${SET}head=$SL/slurmlinkd
fi
DAEMONS_SET=$SET ONLY=api PODS=${PODS_ROUND:-10000} REPEAT=${REPEAT_ROUND:-2} WATCHERS=2 TAG=w3 \
    LIMIT=${LIMIT_ROUND:-600} bash "$G/run.sh" >"$OUTD/mem-round.txt" 2>&1
cd "$G/bench" || exit 1
: >"$OUTD/mem-peaks.txt"
IFS=, read -ra DS <<<"$SET"
for d in "${DS[@]}"; do
    echo "== ${d%%=*}: ${d#*=}" >>"$OUTD/mem-peaks.txt"
    timeout "${LIMIT_MEM:-200}" bash mem-peaks.sh --daemon "${d#*=}" --pods "$N" --events "${EVENTS:-20000}" \
        >>"$OUTD/mem-peaks.txt" 2>&1
    echo "mem-peaks ${d%%=*} rc=$?" >>"$OUTD/mem-peaks.txt"
done
timeout "${LIMIT_MEM:-200}" bash store-size.sh --daemon $SL/slurmlinkd --pods "$N" >"$OUTD/mem-store.txt" 2>&1
echo "store-size rc=$?" >>"$OUTD/mem-store.txt"
grep -E 'peak RSS|sampled|gone|round [0-9]' "$OUTD/mem-round.txt"
tail -n 40 "$OUTD"/mem-peaks.txt "$OUTD"/mem-store.txt
