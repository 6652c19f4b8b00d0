#!/bin/bash
# covers: src/kinds/trainjob/controller.c src/ctl/gang.c src/ctl/follow.c
# 89-trainjob-lifecycle.t — a TrainJob's gang through its life, on a real
# two-node cluster:
#   - slurmlinkd killed (kill -9) while the gang runs, then started again:
#     the same node pods (their uids), the TrainJob Complete, and ONE Slurm
#     job in accounting (the running one followed, never submitted again:
#     gang.h's adoption by the TrainJob's uid and attempt);
#   - a node failing: Failed (JobSet's FailedJobs), jobsStatus failed;
#   - suspend and resume (Suspended True, then False: Resumed); delete:
#     the pods and the Slurm job go.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/87-pytorchjob-lib.sh"
plan 12

cluster_up --nodes 2 --cpus 2 --accounting || bail "cluster up --nodes 2"
daemon_pid() { cat "$CL/run/slurmlinkd.pid"; }
dead() { ! kill -0 "$1" 2>/dev/null; }
tj_conds() { jp "trainjob/$1" '{range .status.conditions[*]}{.type}={.status}:{.reason} {end}'; }
tj_pods() { kc get pods -l "jobset.sigs.k8s.io/jobset-name=$1" -o jsonpath='{range .items[*]}{.metadata.name} {end}'; }
patch='
  runtimePatches:
    - manager: slurmlink.io/test
      trainingRuntimeSpec:
        template:
          spec:
            replicatedJobs:
              - name: node
                template:
                  spec:
                    template:
                      metadata:
                        annotations: {slurmlink.io/runtime: host}'
uids() { kc get pods -l jobset.sigs.k8s.io/jobset-name=mid -o jsonpath='{range .items[*]}{.metadata.uid} {end}'; }
phases() { kc get pods -l jobset.sigs.k8s.io/jobset-name=mid -o jsonpath='{range .items[*]}{.status.phase} {end}'; }
kc apply -f - >/dev/null <<YAML
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: mid}
spec:
  runtimeRef: {name: torch-distributed}
  trainer: {numNodes: 2, command: [sleep, "15"]}
  runtimePatches:
    - manager: slurmlink.io/test
      trainingRuntimeSpec:
        template:
          spec:
            replicatedJobs:
              - name: node
                template:
                  spec:
                    template:
                      metadata: {annotations: {slurmlink.io/runtime: host}}
YAML
ok wait_for 90 eval '[ "$(phases)" = "Running Running " ]' "the gang of 2 node pods runs"
before=$(uids)
victim=$(daemon_pid); kill -9 "$victim"; wait_for 30 dead "$victim"
"$SLURMLINK" up --dir "$CL" >/dev/null 2>&1
ok kc wait --for=condition=Complete trainjob/mid --timeout=120s "kill -9 mid-gang, restarted: the TrainJob completes"
is "$(uids)" "$before" "... with the same node pods"
wait_for 30 ptj_recorded mid
is "$(ptj_sacct mid | awk '{print $2, $3}')" "2 COMPLETED" "... as ONE Slurm job of 2 nodes, never submitted again"

# --- a node that fails: Failed, the gang's job ended ---------------------------------------------------
kc apply -f - >/dev/null <<YAML
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: doomed}
spec:
  runtimeRef: {name: torch-distributed}
  trainer: {numNodes: 2, command: [sh, -c, 'exit \$((PET_NODE_RANK + 2))']}
$patch
YAML
ok kc wait --for=condition=Failed trainjob/doomed --timeout=90s "nodes exiting 2 and 3: Failed"
is "$(tj_conds doomed)|$(jp trainjob/doomed '{.status.jobsStatus[0].failed}')" "Failed=True:FailedJobs |1" \
  "... JobSet's reason FailedJobs, jobsStatus failed 1"

# --- suspend, resume, delete --------------------------------------------------------------------
kc apply -f - >/dev/null <<YAML
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: sleepy}
spec:
  runtimeRef: {name: torch-distributed}
  suspend: true
  trainer: {numNodes: 2, command: [sleep, "600"]}
$patch
YAML
suspended() { [ "$(tj_conds sleepy)" = "Suspended=True:Suspended " ]; }
ok wait_for 30 suspended "suspend: true: Suspended=True, reason Suspended"
is "$(tj_pods sleepy)|$(jp trainjob/sleepy '{.status.jobsStatus[0].suspended}')" "|1" "... no pods; jobsStatus suspended 1"
kc patch trainjob sleepy --type=merge -p '{"spec":{"suspend":false}}' >/dev/null
both() { [ "$(kc get pods -l jobset.sigs.k8s.io/jobset-name=sleepy -o jsonpath='{.items[*].status.phase}')" = "Running Running" ]; }
ok wait_for 60 both "resumed: both nodes' pods run"
is "$(tj_conds sleepy)" "Suspended=False:Resumed " "... Suspended=False, reason Resumed"
uid=$(jp trainjob/sleepy '{.metadata.uid}')
is "$(slurm_of "$uid" | awk '{print $2}')" "RUNNING" "ONE Slurm job runs the gang"
kc delete trainjob sleepy >/dev/null 2>&1
gone() { [ -z "$(tj_pods sleepy)" ] && [ -z "$(slurm_of "$uid" | grep -v -e CANCELLED -e COMPLETED)" ]; }
ok wait_for 60 gone "kubectl delete trainjob: its pods and its Slurm job go"
