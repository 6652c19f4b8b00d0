#!/bin/bash
# covers: src/kinds/job/controller.c src/ctl/jobtask.c src/kinds/job/jobpod.c src/kinds/job/jobindex.c src/api/ src/slurmif/acct.c
# 86-jobs-delete-window.t — a Job's pod deleted after its Slurm array task
# has started but before slurmlinkd has recorded that task's job id (the
# job poll or the shim's push of the container's start brings it) is a
# running pod: it stays Terminating, its task's job becomes the pod's (as
# the poll would make it), and it goes only once Slurm says the task is
# over. So `kubectl delete job --cascade=foreground` returns with no task
# of the Job left in squeue. The window is held open: the job poll runs
# every 45 s (--poll-ms 45000; the first poll comes at start-up, each case
# runs between two polls) and the test build's fault point holds the
# shim's push of the container's start (shim-started, once per case). On
# the code before, the pod went at once, its task cancelled while still
# running. A second case: `kubectl delete pod` of such a pod (no node yet)
# removes it at once, as kube-apiserver removes an unbound pod, and its
# task is cancelled.
# Needs the ASan build (make asan: -DSL_FAULT_INJECTION).
source "$(dirname "$0")/lib.sh"
plan 13

W=$(tmpdir)
on_exit "rm -rf '$W'"
hold=$W/release
on_exit "touch '$hold' '$hold.2'"
SLURMLINKD_FAULT="shim-started:1:hold=$hold,shim-started:2:hold=$hold.2" \
  cluster_up --cpus 2 --accounting --daemon "$(daemon_with "$W" --poll-ms 45000)" || bail "cluster up"
t0=$(date +%s)
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
jp() { kc get "$1" -o jsonpath="$2" 2>&1; }
# "deleting" while the object is there and carries a deletionTimestamp
deleting() { local t; t=$(kc get "$1" -o jsonpath='{.metadata.deletionTimestamp}' 2>/dev/null) || { echo gone; return; }
  [ -n "$t" ] && echo deleting || echo live; }
log() { cat "$CL/log/slurmlinkd.log"; }
active_of() { slurm_of "$1" | awk '$2 ~ /PENDING|RUNNING|CONFIGURING|COMPLETING|SUSPENDED/' | wc -l; }

task_active() { squeue -h -r -o '%i %T' | awk -v t="$1" '$1 == t && $2 ~ /PENDING|RUNNING|CONFIGURING|COMPLETING|SUSPENDED/' | grep -q .; }
killing() { kc get events --field-selector "involvedObject.name=${1#pod/},reason=Killing" \
  -o jsonpath='{.items[*].message}' 2>&1; }

# start_case NAME N: a Job NAME (one pod, sleep 300, grace period 5 s)
# whose task runs and whose container's start (the Nth) is held; sets
# juid, pod and tid (the task's Slurm id, ARRAY_TASK)
start_case() {
  kc apply -f - >/dev/null <<YAML
apiVersion: batch/v1
kind: Job
metadata: {name: $1}
spec:
  backoffLimit: 0
  template:
    spec:
      restartPolicy: Never
      terminationGracePeriodSeconds: 5
      containers:
      - {name: main, image: busybox, command: [sleep, "300"]}
YAML
  juid=$(jp "job/$1" '{.metadata.uid}')
  running() { slurm_of "$juid" | grep -q RUNNING; }
  ok wait_for 60 running "$1: the Job's array task runs in Slurm"
  nth=$2
  held() { grep -q "fault injection: shim-started #$nth: held" "$CL/log/slurmlinkd.log"; }
  ok wait_for 30 held "$1: the shim's push of the container's start is held"
  pod=$(kc get pods -l "job-name=$1" -o name)
  tid=$(slurm_of "$juid" | awk '$2 == "RUNNING" {print $1}')
  is "$(jp "$pod" '{.metadata.annotations.slurmlink\.io/job-id}')" "" \
    "$1: slurmlinkd has not recorded the task's job id (last poll at start-up, $(( $(date +%s) - t0 )) s ago)"
}

# --- kubectl delete job --cascade=foreground -------------------------------------------------
start_case win 1
kc delete job win --cascade=foreground --wait=false >/dev/null 2>&1
pod_deleting() { [ "$(deleting "$pod")" = deleting ]; }
wait_for 60 pod_deleting
is "$(deleting "$pod")" "deleting" "win: after the deletion the pod is Terminating" ||
  diag "$(log | grep -E 'win|cancel' | tail -5)"
like "$(jp "$pod" '{.metadata.annotations.slurmlink\.io/job-id}')" "^${tid%_*}$" \
  "win: its task's job is the pod's now (ARRAY_TASK $tid: the first task's job id is the array's)"
is "$(deleting job/win)" "deleting" "win: the Job waits for its pod (foreground)"
touch "$hold"
ok kc wait --for=delete job/win --timeout=120s "win: the Job goes once its pod has"
is "$(active_of "$juid")" "0" "win: no task of the Job is left in squeue when the Job is gone ($tid)"

# --- kubectl delete pod ---------------------------------------------------------------------------
# The pod has no node yet (the poll has not read its task, its start's push
# is held): the API removes it at once, as kube-apiserver removes a pod not
# bound to a node, and the controller cancels the task it does not know runs.
t0=$(date +%s) # the poll that ended the case above
start_case one 2
kc delete "$pod" --wait=false >/dev/null 2>&1
is "$(deleting "$pod")" "gone" "one: kubectl delete pod of a pod with no node: gone at once"
ok wait_for 30 eval '! task_active "$tid"' "one: its task ($tid) is cancelled"
touch "$hold.2"
kc delete job one --wait=false >/dev/null 2>&1
