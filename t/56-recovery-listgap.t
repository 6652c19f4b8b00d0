#!/bin/bash
# covers: src/ctl/ src/store/ src/slurmif/
# 56-recovery-listgap.t — a Job's pods force-deleted while the pod controller
# starts: between its list of the stored pods' keys and its read of each pod
# (the pods are gone when read, so the controller holds no record of them
# when the deletions' changes come). The deletions act from the deleted
# objects themselves, as they do when the controller knew the pods: index
# 1's array task, which waits for CPUs and has no job id of its own yet, is
# cancelled and never runs; index 0's running task (its job id on the pod,
# the Job's uid in its comment) is killed. Deterministically: the test
# build's fault point pods-listed holds the controller between the list and
# the reads.
# Needs the ASan build (make asan: -DSL_FAULT_INJECTION).
source "$(dirname "$0")/lib.sh"
plan 8

cluster_up --cpus 2 || bail "cluster up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
jp() { kc get "$1" -o jsonpath="$2" 2>&1; }
log() { cat "$CL/log/slurmlinkd.log"; }

# two indexes, each wanting both CPUs: index 0 runs, index 1's task waits
kc create -f - >/dev/null <<'YAML'
apiVersion: batch/v1
kind: Job
metadata: {name: hog}
spec:
  completions: 2
  parallelism: 2
  completionMode: Indexed
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: c, image: busybox, command: [sleep, "300"], resources: {requests: {cpu: 2}}}
YAML
uid=$(jp job/hog '{.metadata.uid}')
arr() { jp job/hog '{.metadata.annotations.slurmlink\.io/slurm-arrays}'; }
pod_at() { jp pods "{range .items[?(@.metadata.annotations.slurmlink\\.io/job-index==\"$1\")]}{.metadata.name}{end}"; }
waiting() { [ -n "$(pod_at 1)" ] && slurm_of "$uid" | grep -q "^$(arr)_1 PENDING$"; }
ok wait_for 60 waiting "Job hog: index 1 has a pod and its array task waits for CPUs" ||
  diag "$(kc get pods -o wide 2>&1; slurm_of "$uid")"
job0() { jp "pod/$(pod_at 0)" '{.metadata.annotations.slurmlink\.io/job-id}'; }
a=$(arr) p0=$(pod_at 0) p1=$(pod_at 1)
running0() { [ -n "$(job0)" ] && slurm_of "$uid" | grep -q "^${a}_0 RUNNING$"; }
ok wait_for 60 running0 "index 0's task runs, its job id on pod $p0" || diag "$(slurm_of "$uid")"

ok restart_with_fault "pods-listed:1:hold=$CL/go" \
  "slurmlinkd restarts with SLURMLINKD_FAULT=pods-listed:1:hold=…"
on_exit "touch '$CL/go'"
held() { log | grep -q "fault injection: pods-listed #1: held"; }
ok wait_for 60 held "the pod controller is held after listing the stored pods' keys"
kc delete pod "$p0" "$p1" --grace-period=0 --force >/dev/null 2>&1
gone() { ! kc get pod "$p0" >/dev/null 2>&1 && ! kc get pod "$p1" >/dev/null 2>&1; }
ok wait_for 30 gone "pods $p0 and $p1 force-deleted meanwhile: the API has removed them"
touch "$CL/go"
cancelled() { ! slurm_of "$uid" | grep -q "^${a}_1 \(PENDING\|RUNNING\|CONFIGURING\)$"; }
ok wait_for 60 cancelled "released: its waiting task ${a}_1 is cancelled" || diag "$(slurm_of "$uid")"
# a task cancelled while pending leaves no record of a run: nothing of it ran
ran=$(slurm_of "$uid" | awk -v t="${a}_1" '$1 == t && $2 != "CANCELLED"')
is "$ran" "" "task ${a}_1 never ran" || diag "$(slurm_of "$uid")"
killed() { ! slurm_of "$uid" | grep -q "^${a}_0 \(RUNNING\|CONFIGURING\)$"; }
ok wait_for 60 killed "its running task ${a}_0 is killed" || diag "$(slurm_of "$uid")"
kc delete job hog >/dev/null 2>&1
