#!/bin/bash
# covers: src/ctl/ src/store/ src/slurmif/
# 56-recovery-latemark.t — the write of a pod's job id that comes after the
# job has already run (a submission worker held after slurmctld accepted the
# job, as a loaded machine can hold it) moves the pod nowhere backwards: the
# shim's pushes and the poll have said more by then, and the late record
# adds the job id only. No watcher sees PodScheduled go from True back to
# False, nor the phase leave Running or Succeeded for an earlier one, and
# the pod ends Succeeded with its job. Deterministically: the test build's
# fault point after-submit holds the worker between the submission and the
# write while the job runs and ends.
# Needs the ASan build (make asan: -DSL_FAULT_INJECTION).
source "$(dirname "$0")/lib.sh"
plan 8

cluster_up --cpus 2 || bail "cluster up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
jp() { kc get pod late -o jsonpath="$1" 2>&1; }
log() { cat "$CL/log/slurmlinkd.log"; }

ok restart_with_fault "after-submit:1:hold=$CL/go" \
  "slurmlinkd restarts with SLURMLINKD_FAULT=after-submit:1:hold=…"
on_exit "touch '$CL/go'"
kc apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: late}
spec:
  restartPolicy: Never
  containers:
  - {name: main, image: busybox, command: [sh, -c, 'echo ran; sleep 1']}
YAML
# each stored change: phase, PodScheduled's status, the job id
kc get pods --field-selector metadata.name=late -w -o jsonpath='p={.status.phase} sched={.status.conditions[?(@.type=="PodScheduled")].status} job={.metadata.annotations.slurmlink\.io/job-id}{"\n"}' \
  >"$CL/watch" 2>&1 &
on_exit "kill $! 2>/dev/null"
held() { log | grep -q "fault injection: after-submit #1: held"; }
ok wait_for 60 held "the worker is held after slurmctld accepted the job"
job=$(squeue -h -t all -o '%i %k' | awk '$2 ~ /^slurmlink:uid=/ {print $1}' | head -1)
ended() { [ "$(squeue -h -t all -j "$job" -o %T 2>/dev/null)" = COMPLETED ]; }
ok wait_for 60 ended "its job $job runs and completes while the job id is not yet written"
exited() { [ -n "$(jp '{.status.containerStatuses[0].state.terminated.exitCode}')" ]; }
ok wait_for 30 exited "the shim's push of the container's exit is applied meanwhile"
touch "$CL/go"
done_() { [ "$(jp '{.status.phase} {.metadata.annotations.slurmlink\.io/job-id}')" = "Succeeded $job" ]; }
ok wait_for 60 done_ "released: the pod ends Succeeded with job $job" || diag "$(jp '{.status}')"
after_job_polls 2 # the passes in which the late write would still change something
is "$(jp '{.status.containerStatuses[0].state.terminated.exitCode}')" 0 "its container's exit code stays 0"
kill %1 2>/dev/null
# the phases in order, each change once: none goes back to an earlier one
rank() { case $1 in p=Pending) echo 0 ;; p=Running) echo 1 ;; p=Succeeded | p=Failed) echo 2 ;; *) echo -1 ;; esac; }
back=""
prev=-1
sched=False
while read -r phase s j; do
  r=$(rank "$phase")
  [ "$r" -lt "$prev" ] && back+="$phase after rank $prev; "
  [ "$r" -gt "$prev" ] && prev=$r
  [ "$sched" = sched=True ] && [ "$s" = sched=False ] && back+="PodScheduled True then False; "
  [ -n "$s" ] && sched=$s
done <"$CL/watch"
is "$back" "" "no watched change moved the pod backwards" || diag "$(cat "$CL/watch")"
is "$(tail -1 "$CL/watch")" "p=Succeeded sched=True job=$job" \
  "the last change is Succeeded, scheduled, with job $job" || diag "$(cat "$CL/watch")"
