#!/bin/bash
# 86-jobs-policy.t — successPolicy (Kubernetes 1.32) of an Indexed Job on
# the real cluster: the first rule met sets SuccessCriteriaMet (reason
# SuccessPolicy, kube's message naming the rule), the other indexes' tasks
# are cancelled and their pods deleted, then Complete; no new pods.
source "$(dirname "$0")/lib.sh"
plan 8

cluster_up --cpus 4 || bail "cluster up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
kc() { kubectl --cache-dir "$CL/kcache" "$@"; }
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
ok test -n "$(jp job/leader '{.status.completionTime}')" "completionTime set"
no_tasks() { [ "$(slurm_active "$luid")" = 0 ]; }
ok wait_for 60 no_tasks "the other indexes' Slurm tasks are cancelled (running and pending)"
only_leader() { [ "$(kc get pods -l job-name=leader -o name | wc -l)" = 1 ]; }
ok wait_for 60 only_leader "their pods are deleted: the leader's pod alone is left"
is "$(kc logs job/leader 2>&1)" "leader done" "kubectl logs job/leader"
sleep 3 # no condition to wait on: that nothing new comes (a pass runs every second)
is "$(kc get pods -l job-name=leader -o name | wc -l)" 1 "no new pods for the cancelled indexes"
