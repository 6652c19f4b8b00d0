#!/bin/bash
# covers: src/kinds/job/controller.c src/ctl/jobtask.c src/kinds/job/jobpod.c src/kinds/job/jobindex.c src/api/
# 86-jobs-policy.t — successPolicy (Kubernetes 1.32) of an Indexed Job on
# the real cluster: the first rule met sets SuccessCriteriaMet (reason
# SuccessPolicy, kube's message naming the rule), the other indexes' tasks
# are cancelled and their pods deleted, then Complete; no new pods.
# podFailurePolicy onPodConditions: an array task cancelled outside
# slurmlink (an admin's scancel) fails its pod with the condition
# DisruptionTarget (reason EvictionByEvictionAPI), which an Ignore rule
# does not count (the index retried) and a FailJob rule fails the Job on.
source "$(dirname "$0")/lib.sh"
plan 17

cluster_up --cpus 4 || bail "cluster up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
jp() { kc get "$1" -o jsonpath="$2" 2>&1; }
cond_types() { jp "job/$1" '{range .status.conditions[*]}{.type}={.reason}={.message} {end}'; }
slurm_active() { squeue -h -r -o '%k' | grep -c "slurmlink:uid=$1"; }

# index 0 succeeds at once, the others would run 10 minutes; rule 0 needs
# indexes 3-4, rule 1 one succeeded index: rule 1 is met
kc apply -f - >/dev/null <<'YAML'
apiVersion: batch/v1
kind: Job
metadata: {name: leader}
spec:
  completions: 5
  parallelism: 3
  completionMode: Indexed
  successPolicy:
    rules:
    - succeededIndexes: "3-4"
    - succeededCount: 1
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: c, image: busybox, command: [sh, -c, 'if [ "$JOB_COMPLETION_INDEX" = 0 ]; then echo leader done; else sleep 600; fi']}
YAML
luid=$(jp job/leader '{.metadata.uid}')
ok kc wait --for=condition=complete job/leader --timeout=180s "successPolicy met: the Job completes without its other indexes"
is "$(cond_types leader)" "SuccessCriteriaMet=SuccessPolicy=Matched rules at index 1 Complete=SuccessPolicy=Matched rules at index 1 " \
  "SuccessCriteriaMet then Complete, reason SuccessPolicy, the rule's index in kube's message"
is "$(jp job/leader '{.status.succeeded} {.status.completedIndexes} {.status.active}')" "1 0 " "one index succeeded, none active"
[ "$(jp job/leader '{.status.succeeded}')" = 1 ] ||
  diag "$(kc get pods -l job-name=leader -o jsonpath='{range .items[*]}{.metadata.name} {.status.phase} {.metadata.deletionTimestamp} {.status.reason}{"\n"}{end}'; jp job/leader '{.status}')"
ok test -n "$(jp job/leader '{.status.completionTime}')" "completionTime set"
no_tasks() { [ "$(slurm_active "$luid")" = 0 ]; }
ok wait_for 60 no_tasks "the other indexes' Slurm tasks are cancelled (running and pending)"
# indexes 3 and 4 were pending when the rule was met: their pods' deletion
# cancels their tasks before they start (not once slots free up)
late() { squeue -h -t all -r -o '%i|%T|%N|%k' | grep "slurmlink:uid=$luid" | awk -F'|' '$1 ~ /_(3|4)$/ {print $1, $2, ($3 == "" ? "never-started" : "ran-on-" $3)}'; }
# (a pending task cancelled leaves no record of its own; one that ran keeps
# its record, with its node, in slurmctld for MinJobAge)
is "$(late | grep -c ran-on)" 0 "the pending indexes' tasks are cancelled before they start" || diag "$(late)"
only_leader() { [ "$(kc get pods -l job-name=leader -o name | wc -l)" = 1 ]; }
ok wait_for 60 only_leader "their pods are deleted: the leader's pod alone is left"
is "$(kc logs job/leader 2>&1)" "leader done" "kubectl logs job/leader"
ok after_job_passes 3 "the Job controller's next passes end (that nothing new comes)"
is "$(kc get pods -l job-name=leader -o name | wc -l)" 1 "no new pods for the cancelled indexes"

# --- onPodConditions DisruptionTarget ---------------------------------------------------------
pfp_job() { # name action
  cat <<YAML
apiVersion: batch/v1
kind: Job
metadata: {name: $1}
spec:
  backoffLimit: 0
  podFailurePolicy:
    rules:
    - action: $2
      onPodConditions: [{type: DisruptionTarget}]
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: c, image: busybox, command: [sleep, "600"]}
YAML
}
first_pod() { kc get pods -l job-name="$1" --sort-by=.metadata.creationTimestamp -o name | head -1; }
running() { p=$(first_pod "$1"); [ -n "$p" ] && [ "$(jp "$p" '{.status.phase}')" = Running ]; }
cancel_task() { scancel "$(jp "$(first_pod "$1")" '{.metadata.annotations.slurmlink\.io/array-task}')"; }
pfp_job evict Ignore | kc apply -f - >/dev/null
ok wait_for 120 running evict "Ignore rule: the pod runs"
p1=$(first_pod evict)
ok cancel_task evict "an admin cancels its array task (scancel ARRAY_TASK)"
failed_pod() { [ "$(jp "$p1" '{.status.phase}')" = Failed ]; }
wait_for 60 failed_pod
is "$(jp "$p1" '{.status.phase} {.status.conditions[?(@.type=="DisruptionTarget")].status} {.status.conditions[?(@.type=="DisruptionTarget")].reason}')" \
  "Failed True EvictionByEvictionAPI" "the pod fails with condition DisruptionTarget (EvictionByEvictionAPI)"
two_pods() { [ "$(kc get pods -l job-name=evict -o name | wc -l)" = 2 ]; }
ok wait_for 60 two_pods "the index is retried as a new pod (after the back-off)"
is "$(jp job/evict '{.status.failed}|{.status.conditions[*].type}')" "|" "not counted: failed 0 despite backoffLimit 0, the Job not failed"
kc delete job evict >/dev/null

pfp_job evict2 FailJob | kc apply -f - >/dev/null
wait_for 120 running evict2
p2=$(first_pod evict2)
cancel_task evict2
ok kc wait --for=condition=failed job/evict2 --timeout=120s "FailJob rule: the Job fails"
is "$(jp job/evict2 '{.status.conditions[?(@.type=="Failed")].reason}|{.status.conditions[?(@.type=="Failed")].message}')" \
  "PodFailurePolicy|Pod default/${p2#pod/} has condition DisruptionTarget matching FailJob rule at index 0" "reason PodFailurePolicy, kube's message"
