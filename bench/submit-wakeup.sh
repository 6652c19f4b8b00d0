#!/bin/bash
# submit-wakeup.sh — how long after the controller is released its pod's job
# id is recorded, in the scenario of t/59-submit-wakeup.t (not a test: that
# file checks that no job poll came between, this one measures the time).
# The controller is held by the fault point submission-handed right after
# it hands the pod to a worker; the worker submits the job (the partition is
# down: the job pends, no shim push wakes anyone) and hands it back; the
# release is timed to the job id on the pod. With the wake kept this is well
# under a second; a lost wake shows as the next job poll (--poll-ms, 60 s).
# Needs root and the ASan build (make asan: -DSL_FAULT_INJECTION).
#   bench/submit-wakeup.sh [ROUNDS]     default 3; prints each round and the median in ms
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SL=$ROOT/build/slurmlink
D=$ROOT/build-asan/slurmlinkd
[ -x "$D" ] || { echo "submit-wakeup: $D is missing (make asan)" >&2; exit 2; }
ROUNDS=${1:-3}
CL=$(mktemp -d /tmp/slb.wake.XXXXXX)
pid=
trap '[ -z "$pid" ] || kill "$pid" 2>/dev/null; "$SL" down --dir "$CL" >/dev/null 2>&1; rm -rf "$CL"' EXIT
"$SL" up --dir "$CL" --no-slurmlinkd --cpus 2 >"$CL.up.log" 2>&1 || { cat "$CL.up.log" >&2; rm -f "$CL.up.log"; exit 1; }
rm -f "$CL.up.log"
export SLURM_CONF=$CL/etc/slurm.conf KUBECONFIG=$CL/kubeconfig
"$SL" image import busybox --busybox --store "$CL/images" >/dev/null
scontrol update PartitionName="$(sinfo -h -o %R | head -1)" State=DOWN
kc() { kubectl --cache-dir "$CL/kcache" "$@"; }
until_ok() { # SECONDS CMD...: poll CMD every 10 ms
  local end=$(($(date +%s) + $1))
  shift
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$end" ] || return 1
    sleep 0.01
  done
}
ms=()
for r in $(seq 1 "$ROUNDS"); do
  rm -f "$CL/go"
  SLURMLINKD_FAULT="submission-handed:1:hold=$CL/go" SLURMLINK_DIR=$CL \
    "$D" --config "$CL/etc/slurmlinkd.conf" --poll-ms 60000 --verbose >"$CL/daemon.log" 2>&1 &
  pid=$!
  until_ok 120 kc get --raw /healthz || { echo "slurmlinkd did not answer" >&2; exit 1; }
  kc run "p$r" --image busybox --image-pull-policy Never --restart Never -- sleep 300 >/dev/null
  until_ok 60 grep -q "fault injection: submission-handed #1: held" "$CL/daemon.log"
  until_ok 60 grep -q "pod default/p$r: Slurm job [0-9]" "$CL/daemon.log"
  sleep 1 # (the worker hands the submission back just after it logs it; not a measurement)
  t0=$(date +%s%N)
  touch "$CL/go"
  until_ok 90 sh -c "[ -n \"\$(kubectl --cache-dir '$CL/kcache' get pod p$r -o jsonpath='{.metadata.annotations.slurmlink\.io/job-id}')\" ]"
  t1=$(date +%s%N)
  ms+=($(((t1 - t0) / 1000000)))
  echo "round $r: job id $((${ms[-1]})) ms after the release"
  kill "$pid"; wait "$pid" 2>/dev/null || true
  pid=
  kc delete pod "p$r" --wait=false >/dev/null 2>&1 || true
  scancel -u "$(id -un nobody)" 2>/dev/null || true
done
printf '%s\n' "${ms[@]}" | sort -n | awk '{a[NR] = $1} END {printf "median %d ms, min %d, max %d (%d rounds; a lost wake: ~60000)\n", a[int((NR + 1) / 2)], a[1], a[NR], NR}'
