#!/bin/bash
# sched-tick.sh — submit → first line of a batch script, with the
# SchedulerParameters `slurmlink up` writes and with Slurm's defaults (not a
# test). One local cluster (`slurmlink up`, plain build); blocks of ROUNDS
# jobs alternate between the two settings (scontrol reconfigure between), so
# drift in the machine's load hits both alike. Each job is submitted at a
# random point of the wall-clock second. Prints the median and range per
# setting in ms. Needs root.
#   bench/sched-tick.sh [ROUNDS] [BLOCKS]       default: 10 rounds, 2 blocks
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SL=$ROOT/build/slurmlink
ROUNDS=${1:-10}
BLOCKS=${2:-2}
CL=$(mktemp -d /tmp/slb.tick.XXXXXX)
trap '"$SL" down --dir "$CL" >/dev/null 2>&1; rm -rf "$CL"' EXIT
"$SL" up --dir "$CL" >"$CL.up.log" 2>&1 || { cat "$CL.up.log" >&2; rm -f "$CL.up.log"; exit 1; }
rm -f "$CL.up.log"
export SLURM_CONF=$CL/etc/slurm.conf
OURS=$(grep '^SchedulerParameters=' "$SLURM_CONF")
setting() { # ours | defaults
  if [ "$1" = ours ]; then
    sed -i "s/^#*SchedulerParameters=.*/$OURS/" "$SLURM_CONF"
  else
    sed -i 's/^SchedulerParameters=/#SchedulerParameters=/' "$SLURM_CONF"
  fi
  scontrol reconfigure
  sleep 2 # (slurmctld re-reads its configuration; not a measurement)
}
one() { # → ms from sbatch to the script's first line
  local f=$CL/mark.$RANDOM$RANDOM t0 t1
  sleep "0.$(printf '%03d' $((RANDOM % 1000)))"
  t0=$(date +%s%N)
  sbatch -Q -o /dev/null --wrap "date +%s%N > $f.tmp; mv $f.tmp $f" >/dev/null
  while [ ! -s "$f" ]; do sleep 0.01; done
  t1=$(cat "$f")
  echo $(((t1 - t0) / 1000000))
}
declare -A ms
for b in $(seq 1 "$BLOCKS"); do
  for s in ours defaults; do
    setting $s
    for _ in $(seq 1 "$ROUNDS"); do ms[$s]+="$(one) "; done
  done
done
for s in ours defaults; do
  read -r -a v <<<"${ms[$s]}"
  sorted=$(printf '%s\n' "${v[@]}" | sort -n)
  n=${#v[@]}
  echo "$s ($([ $s = ours ] && echo "$OURS" || echo "Slurm's defaults")): median $(echo "$sorted" | sed -n "$(((n + 1) / 2))p") ms, range $(echo "$sorted" | head -1)-$(echo "$sorted" | tail -1) ms over $n jobs"
done
