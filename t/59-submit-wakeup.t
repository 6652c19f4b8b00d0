#!/bin/bash
# covers: src/ctl/submit.c src/ctl/subpool.c src/ctl/
# 59-submit-wakeup.t — a submission that finishes while the pod controller
# is busy still wakes it: the controller records the pod's job id at once,
# not at its next Slurm job poll. The submission workers (and image pulls)
# wake the controller when they hand a result back; a wake that came after
# the controller had collected the finished submissions but before it began
# to wait was lost, and the job id waited for the wait's end, which is the
# next job poll (up to 5 s after a slow poll). Deterministically: the job
# poll is set to its longest, 60 s, and the test build's fault point
# submission-handed holds the controller right after it hands the pod to a
# worker, until that worker has submitted the job and handed it back. The
# partition is down, so the job waits and no push of its shim wakes the
# controller either.
# Needs the ASan build (make asan: -DSL_FAULT_INJECTION).
source "$(dirname "$0")/lib.sh"
plan 5

TS=$(tmpdir)
on_exit "rm -rf '$TS'"
cluster_up --no-slurmlinkd --cpus 2 || bail "up --no-slurmlinkd"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
part=$(sinfo -h -o %R | head -1)
scontrol update PartitionName="$part" State=DOWN
LOG=$TS/daemon.log
SLURMLINKD_FAULT="submission-handed:1:hold=$TS/go" SLURMLINK_DIR=$CL \
  "$SLURMLINKD" --config "$CL/etc/slurmlinkd.conf" --poll-ms 60000 --verbose >"$LOG" 2>&1 &
pid=$!
on_exit "touch '$TS/go'; kill $pid 2>/dev/null"
ok wait_for 120 kc get --raw /healthz "slurmlinkd answers (a job poll every 60 s)" ||
  diag "$(tail -5 "$LOG")"
up=$(date +%s)

kc run p --image busybox --image-pull-policy Never --restart Never -- sleep 300 >/dev/null
held() { grep -q "fault injection: submission-handed #1: held" "$LOG"; }
ok wait_for 60 held "the controller is held after handing pod p to a worker" ||
  diag "$(tail -5 "$LOG")"
submitted() { grep -q "pod default/p: Slurm job [0-9]" "$LOG"; }
ok wait_for 60 submitted "meanwhile the worker submits p's job" || diag "$(tail -5 "$LOG")"
sleep 1 # the worker hands the submission back just after it logs it
# the controller's Slurm job polls so far (each one a load_jobs RPC)
polls() { kc get --raw /metrics | awk -F'} ' '/^slurmlink_slurm_rpc_duration_seconds_count\{rpc="load_jobs"\}/ {print $2}'; }
p0=$(polls)
touch "$TS/go"
jobid() { [ -n "$(kc get pod p -o jsonpath='{.metadata.annotations.slurmlink\.io/job-id}')" ]; }
ok wait_for 90 jobid "released: p's job id is on the pod" || diag "$(tail -5 "$LOG")"
# a lost wake shows as the wait for the next job poll, 60 s after the start:
# the id came with a poll then. How long it took is bench/submit-wakeup.sh's.
is "$(polls)" "${p0:-no load_jobs count in /metrics}" "without waiting for the next job poll: no load_jobs between the release and the id ($p0)" ||
  diag "released $(($(date +%s) - up)) s after slurmlinkd answered; its next job poll is 60 s after that"
