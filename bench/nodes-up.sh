#!/bin/bash
# nodes-up.sh — how long `slurmlink up` and `down` take with N nodes (not a
# test). Rounds interleave the node counts, so drift in the machine's load
# hits each alike; each round and count uses a fresh folder: a first `up`
# (CA, certificates, munge key, namespaces made), `down`, a second `up` on the
# same folder, `down`. Needs root; prints one line per count: median (min-max)
# in milliseconds over the rounds.
#   bench/nodes-up.sh [ROUNDS] [COUNTS...]     default: 5 rounds, 1 2 4 16
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SL=$ROOT/build/slurmlink
ROUNDS=${1:-5}
shift || true
COUNTS=("${@:-1 2 4 16}")
read -r -a COUNTS <<<"${COUNTS[*]}"
OUT=$(mktemp /tmp/slb.nodes.XXXXXX)
trap 'rm -f "$OUT"' EXIT
ms() { echo $(($(date +%s%N) / 1000000)); }
timed() { # label N cmd...
  local t0 t1
  t0=$(ms)
  "${@:3}" >/dev/null 2>&1 || { echo "failed: ${*:3}" >&2; exit 1; }
  t1=$(ms)
  echo "$1 $2 $((t1 - t0))" >>"$OUT"
}
echo "$(nproc) cores, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg), $ROUNDS rounds"
for ((r = 1; r <= ROUNDS; r++)); do
  for n in "${COUNTS[@]}"; do
    D=$(mktemp -d /tmp/slb.XXXXXX)
    opt=(--dir "$D" --gpus 1 --cpus 1)
    [ "$n" -gt 1 ] && opt+=(--nodes "$n")
    timed up1 "$n" "$SL" up "${opt[@]}"
    timed down "$n" "$SL" down --dir "$D"
    timed up2 "$n" "$SL" up --dir "$D"
    "$SL" down --dir "$D" >/dev/null 2>&1
    rm -rf "$D"
  done
done
/usr/bin/python3 - "$OUT" <<'PY'
import collections, statistics, sys
d = collections.defaultdict(list)
for line in open(sys.argv[1]):
    k, n, v = line.split()
    d[(k, int(n))].append(int(v))
print("%-6s %-22s %-22s %-22s" % ("nodes", "first up ms", "up again ms", "down ms"))
for n in sorted({n for _, n in d}):
    cell = lambda k: "%d (%d-%d)" % (statistics.median(d[(k, n)]), min(d[(k, n)]), max(d[(k, n)]))
    print("%-6d %-22s %-22s %-22s" % (n, cell("up1"), cell("up2"), cell("down")))
PY
