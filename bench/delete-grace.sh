#!/bin/bash
# delete-grace.sh — how long kubectl delete takes for a pod whose container
# traps SIGTERM and keeps running (terminationGracePeriodSeconds: G), with
# --grace-period=N below G against the default (the pod's own G), in the
# same run on the same cluster (docs/lifecycle.md, "Delete"):
#   bench/delete-grace.sh [N] [G] [ROUNDS]     (defaults 2, 10, 3)
# Needs KUBECONFIG and SLURM_CONF of a cluster from `slurmlink up` with the
# busybox image imported. Creates pods bench-grace-* in default (as the
# admin) and deletes them. Prints each delete's duration in milliseconds,
# and the Slurm state the job ended in.
set -euo pipefail
N=${1:-2} G=${2:-10} R=${3:-3}
pod() {
  kubectl apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: $G
  containers:
  - name: main
    image: busybox
    command: [sh, -c, 'trap "echo TERM" TERM; while :; do sleep 0.2; done']
    resources: {requests: {cpu: 100m, memory: 64Mi}}
YAML
  kubectl wait --for=jsonpath='{.status.phase}'=Running "pod/$1" --timeout=120s >/dev/null
}
ms() { local t0 t1; t0=$(date +%s%N); "$@" >/dev/null 2>&1; t1=$(date +%s%N); echo $(((t1 - t0) / 1000000)); }
state() { # the job's end state, from accounting when there is one, else squeue
  local s
  s=$(sacct -n -X -P -j "$1" -o State 2>/dev/null | head -1) || true
  [ -n "$s" ] || s=$(squeue -h -t all -j "$1" -o %T 2>/dev/null) || true
  echo "${s:-?}"
}
for i in $(seq "$R"); do # interleaved: both see the same load
  for mode in short default; do
    p=bench-grace-$mode-$i
    pod "$p"
    job=$(kubectl get pod "$p" -o jsonpath='{.metadata.annotations.slurmlink\.io/job-id}')
    if [ $mode = short ]; then t=$(ms kubectl delete pod "$p" --grace-period="$N")
    else t=$(ms kubectl delete pod "$p"); fi
    sleep 1 # the job's end state settles in accounting
    printf '%-8s round %d: kubectl delete %s took %6d ms; job %s %s\n' "$mode" "$i" \
      "$([ $mode = short ] && echo "--grace-period=$N" || echo "(grace $G s)")" "$t" "$job" "$(state "$job")"
  done
done
