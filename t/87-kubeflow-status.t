#!/bin/bash
# covers: src/kinds/kubeflow/controller.c src/kinds/kubeflow/status.c src/api/ src/image/
# 87-kubeflow-status.t — what `kubectl get pods` says of a pod before it
# runs, as kube says it: a pod whose job Slurm holds pending is STATUS
# Pending (its containers wait, reason Pending, message Slurm's reason),
# not ContainerCreating (which kube shows only once the pod has a node);
# a pod Slurm refused at submission is STATUS SubmitFailed; a PyTorchJob's
# replica pods the same way.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/87-pytorchjob-lib.sh"
plan 8
cluster_up --nodes 2 --cpus 2 || bail "cluster up --nodes 2"
ptj_setup
HOG=$(sbatch --parsable -N2 --exclusive -J hog -o /dev/null --wrap 'sleep 300')
running() { [ "$(squeue -h -j "$HOG" -o %T)" = RUNNING ]; }
ok wait_for 60 running "an sbatch job holds both nodes"
pod() { # name [annotations]
  cat <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1, annotations: {slurmlink.io/runtime: host${2:+, $2}}}
spec:
  restartPolicy: Never
  containers:
  - {name: main, image: busybox, command: [sh, -c, 'echo ran'], resources: {requests: {cpu: "1"}}}
YAML
}
col() { kc get pod "$1" --no-headers 2>&1 | awk '{print $3}'; }
pod waiter | kc apply -f - >/dev/null
slurm_pending() { [ "$(squeue -h -n default/waiter -o '%T')" = PENDING ] && [ "$(col waiter)" != "" ]; }
wait_for 60 slurm_pending
after_job_polls 2 # a poll or two
is "$(col waiter)" Pending "a pod pending in Slurm: kubectl get pods STATUS Pending"
like "$(kc get pod waiter -o jsonpath='{.status.containerStatuses[0].state.waiting.reason}: {.status.containerStatuses[0].state.waiting.message}')" \
  "^Pending: Slurm job [0-9]+ is pending: " "... its container waits, reason Pending, with Slurm's reason"
pod badpart 'slurmlink.io/partition: nosuchpartition' | kc apply -f - >/dev/null
failed() { [ "$(kc get pod badpart -o jsonpath='{.status.phase}')" = Failed ]; }
wait_for 30 failed
is "$(col badpart)" SubmitFailed "a pod Slurm refused: STATUS SubmitFailed"
cat <<YAML | kc apply -f - >/dev/null
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: ptjbad}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: Never
      template:
        metadata: {annotations: {slurmlink.io/runtime: host, slurmlink.io/partition: nosuchpartition}}
        spec:
          containers: [{name: pytorch, image: busybox, command: [sh, -c, 'echo ran']}]
YAML
refused() { [ "$(kc get pod ptjbad-master-0 -o jsonpath='{.status.phase}' 2>/dev/null)" = Failed ]; }
wait_for 30 refused
is "$(col ptjbad-master-0)" SubmitFailed "a PyTorchJob's replica pod whose gang Slurm refused: STATUS SubmitFailed" ||
  diag "$(kc get pod ptjbad-master-0 -o jsonpath='{.status}' 2>&1)"
# a PyTorchJob pending in Slurm: its replica pods the same
SLEEP=1 ptj_yaml ptjwait 1 Never | kc apply -f - >/dev/null
gang_pending() { [ "$(squeue -h -n default/ptjwait -o '%T')" = PENDING ]; }
ok wait_for 60 gang_pending "a PyTorchJob's gang job pending in Slurm"
after_job_polls 2
is "$(col ptjwait-master-0) $(col ptjwait-worker-0)" "Pending Pending" "... its replica pods: STATUS Pending"
scancel "$HOG"
ran() { [ "$(kc get pod waiter -o jsonpath='{.status.phase}')" = Succeeded ]; }
ok wait_for 60 ran "once Slurm runs it, the waiting pod runs and succeeds"
