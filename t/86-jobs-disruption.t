#!/bin/bash
# covers: src/kinds/job/controller.c src/ctl/jobtask.c src/kinds/job/jobpod.c src/kinds/job/jobindex.c src/api/
# 86-jobs-disruption.t — a Job's pod whose array task an admin cancels
# (scancel) fails WITH the condition DisruptionTarget, whichever comes first:
# Slurm's CANCELLED seen by the controller's poll, or the shim's pod-finished
# push (its containers ended on Slurm's SIGTERM). The test build's fault
# point job-ended holds the controller thread once its poll has found the
# task ended, before it applies that (a poll later than the shim's pushes,
# as under load), so the push comes first:
#   - the pod is never Failed without DisruptionTarget (kube sets the
#     condition before the pod terminates): Failed, reason Cancelled,
#     DisruptionTarget True EvictionByEvictionAPI while the poll is held;
#   - released, the podFailurePolicy Ignore rule matches: the index is
#     retried, the failure not counted (failed 0 with backoffLimit 0).
# Needs the ASan build (make asan: -DSL_FAULT_INJECTION).
source "$(dirname "$0")/lib.sh"
plan 10

cluster_up --cpus 2 || bail "cluster up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
jp() { kc get "$1" -o jsonpath="$2" 2>&1; }
log() { cat "$CL/log/slurmlinkd.log"; }

ok restart_with_fault "job-ended:1:hold=$CL/release" \
  "slurmlinkd restarts with SLURMLINKD_FAULT=job-ended:1:hold=…"
on_exit "touch '$CL/release'"

kc apply -f - >/dev/null <<'YAML'
apiVersion: batch/v1
kind: Job
metadata: {name: evict}
spec:
  backoffLimit: 0
  podFailurePolicy:
    rules:
    - action: Ignore
      onPodConditions: [{type: DisruptionTarget}]
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: c, image: busybox, command: [sleep, "600"]}
YAML
first_pod() { kc get pods -l job-name=evict --sort-by=.metadata.creationTimestamp -o name | head -1; }
running() { p=$(first_pod); [ -n "$p" ] && [ "$(jp "$p" '{.status.phase}')" = Running ]; }
ok wait_for 180 running "the Job's pod runs"
p1=$(first_pod)
ok scancel "$(jp "$p1" '{.metadata.annotations.slurmlink\.io/array-task}')" \
  "an admin cancels its array task (scancel ARRAY_TASK)"
held() { log | grep -q "fault injection: job-ended #1: held"; }
ok wait_for 120 held "the controller's poll is held at the ended task"
failed_pod() { [ "$(jp "$p1" '{.status.phase}')" = Failed ]; }
ok wait_for 120 failed_pod "the pod fails from the shim's pod-finished push while the poll is held"
is "$(jp "$p1" '{.status.phase} {.status.reason} {.status.conditions[?(@.type=="DisruptionTarget")].status} {.status.conditions[?(@.type=="DisruptionTarget")].reason}')" \
  "Failed Cancelled True EvictionByEvictionAPI" \
  "Failed with Slurm's verdict: reason Cancelled, condition DisruptionTarget (EvictionByEvictionAPI)" ||
  diag "$(jp "$p1" '{.status}'; echo; log | grep -E 'evict|fault' | tail -20)"
like "$(jp "$p1" '{.status.conditions[?(@.type=="DisruptionTarget")].message}')" \
  "^Eviction API: evicting \(Slurm job [0-9]+ was cancelled outside slurmlink\)$" "kube's message, with the Slurm job"

touch "$CL/release"
released() { log | grep -q "fault injection: job-ended #1: released"; }
ok wait_for 30 released "the held poll is released"
two_pods() { [ "$(kc get pods -l job-name=evict -o name | wc -l)" = 2 ]; }
ok wait_for 120 two_pods "the Ignore rule matched: the index is retried as a new pod" ||
  diag "$(kc get pods -l job-name=evict -o wide; jp job/evict '{.status}')"
is "$(jp job/evict '{.status.failed}|{.status.conditions[*].type}')" "|" \
  "not counted: failed 0 despite backoffLimit 0, the Job not failed"
kc delete job evict --wait=false >/dev/null
