#!/bin/bash
# bench/scale/arenas.sh MODE... — docs/benchmarks.md's run 6 on the bigger
# host, from the copy of .devscale/ that bench/scale/prepare.sh BASE made
# (as .devscale/bench/scale/arenas.sh; run.sh beside .devscale/):
#   mem   base, head (malloc arenas capped at 4) and head --malloc-arenas 2:
#         10,000 pods, three watchers, peak RSS of each daemon
#   tput  base, head and slurmrestd, 10,000 pods each, --settle 65
#   perf  one plain 10,000-pod round of head under `perf record -a`; needs
#         .devscale/perfpack.tgz: a folder perfpack/ with Debian's perf
#         binary (linux-perf) and the libraries it loads (lib/), packed by
#         hand, since such a host has no perf of its own
G=$(cd "$(dirname "$0")/../.." && pwd)
[ -e "$G/run.sh" ] || { echo "arenas.sh: run it from .devscale/bench/scale/ (bench/scale/prepare.sh BASE)" >&2; exit 2; }
OUTD=${OUT:-$G}
SL=/opt/slurmlink/build
mkdir -p "$G/w"
for a in 2; do
    printf '#!/bin/sh\nexec %s/slurmlinkd "$@" --malloc-arenas %s\n' $SL $a >"$G/w/h$a"
    chmod 755 "$G/w/h$a"
done
B=base=/opt/slurmlink/base/slurmlinkd H=head=$SL/slurmlinkd
for p in "$@"; do
    case $p in
    mem) TAG=mem ONLY=api PODS=10000 REPEAT=1 WATCHERS=2 LIMIT=${LIMIT:-400} \
        DAEMONS_SET=$B,$H,h2=$G/w/h2${EXTRA:-} bash "$G/run.sh" ;;
    tput) TAG=tput ONLY=api,slurmrestd PODS=10000 REPEAT=1 SETTLE=65 LIMIT=${LIMIT:-420} \
        DAEMONS_SET=$B,$H bash "$G/run.sh" ;;
    perf)
        [ -e "$G/perfpack.tgz" ] || { echo "arenas.sh perf: $G/perfpack.tgz is missing" >&2; exit 2; }
        mkdir -p /tmp/pp && tar xzf "$G/perfpack.tgz" -C /tmp/pp
        PERF="env LD_LIBRARY_PATH=/tmp/pp/perfpack/lib /tmp/pp/perfpack/perf"
        $PERF record -a -g -F 499 -o /tmp/pp/p.data -- sleep ${PERF_S:-60} >/tmp/pp/rec.out 2>&1 &
        pr=$!
        TAG=perf ONLY=api PODS=10000 REPEAT=1 LIMIT=${LIMIT:-150} DAEMONS_SET=$H bash "$G/run.sh"
        wait $pr
        tail -3 /tmp/pp/rec.out
        $PERF report -i /tmp/pp/p.data --no-children --sort comm,dso -g none -q 2>/dev/null | head -40 >"$OUTD/perf-comm.txt"
        for t in sl-submit sl-ctl MHD-connection; do
            $PERF report -i /tmp/pp/p.data --comm $t --no-children --sort dso,sym -g none -q 2>/dev/null | head -60 >"$OUTD/perf-$t.txt"
            $PERF report -i /tmp/pp/p.data --comm $t --no-children --sort sym -g caller,0.5,callee --percent-limit 3 -q 2>/dev/null | head -300 >"$OUTD/perf-$t-g.txt"
        done
        head -25 "$OUTD"/perf-comm.txt "$OUTD"/perf-sl-submit.txt ;;
    esac
done
