#!/bin/bash
# covers: src/kinds/trainjob/ src/ctl/gang.c src/ctl/gangowner.c src/api/crd.c src/daemon/main.c
# slow
# 89-trainjob.t — a Kubeflow Trainer v2 TrainJob (trainer.kubeflow.org/v1alpha1)
# is ONE gang-scheduled Slurm job, on a real two-node cluster with the real
# kubectl, training with Debian's python3-torch (gloo):
#   - the default ClusterTrainingRuntime torch-distributed is installed;
#   - Kubeflow's example 01-multi-node.yaml (3 nodes on the default
#     runtime), unchanged but for the pod annotation slurmlink.io/runtime:
#     host added through runtimePatches (the runtime's image is PyPI's torch;
#     the host runtime runs Debian's): Complete, WORLD_SIZE 3 in the pods'
#     logs, ONE Slurm job of the cluster's 2 nodes; JobSet's pod names,
#     labels, hostname and subdomain; conditions, jobsStatus, the Table;
#   - a gloo all_reduce across both nodes through torchrun and the PET_* env;
#   - bad input: 422s naming the field; a runtime that does not exist: an event.
# (t/89-trainjob-lifecycle.t: failure, suspend, resume, delete, kill -9.)
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/87-pytorchjob-lib.sh"
plan 22

ptj_need_torch
cluster_up --nodes 2 --cpus 2 --accounting || bail "cluster up --nodes 2"
ptj_setup
tj_conds() { jp "trainjob/$1" '{range .status.conditions[*]}{.type}={.status}:{.reason} {end}'; }
tj_nodes() { kc get pods -l "jobset.sigs.k8s.io/jobset-name=$1" -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' | sort -u | grep -c .; }
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

# --- the default runtime, the example ---------------------------------------------------------
is "$(kc get clustertrainingruntimes -o name 2>&1)" "clustertrainingruntime.trainer.kubeflow.org/torch-distributed" \
  "Kubeflow Trainer's default ClusterTrainingRuntime is installed"
like "$(kc explain trainjob.spec.trainer 2>&1)" "numNodes.*<integer>" "kubectl explain trainjob.spec.trainer (the CRD's schema)"
# Debian 12's torchrun (PyTorch 1.13) spells --no-python --no_python, and on
# Python 3.11 it parses its default --redirects/--tee "0" as None (fails in
# to_map): PET_REDIRECTS and PET_TEE 2 through trainer.env
debian='s/--no-python/--no_python/; s/^    numNodes: 3$/&\n    env: [{name: PET_REDIRECTS, value: "2"}, {name: PET_TEE, value: "2"}]/'
is "$( { sed "$debian" "$(dirname "$0")/89-trainjob-multi-node.yaml"; echo "$patch"; } | kc apply -f - 2>&1)" \
  "trainjob.trainer.kubeflow.org/multi-node-example created" "kubectl apply -f Kubeflow's 01-multi-node.yaml"
ok kc wait --for=condition=Complete trainjob/multi-node-example --timeout=150s "kubectl wait --for=condition=Complete" ||
  diag "$(kc get pods -o wide 2>&1; kc describe trainjob multi-node-example 2>&1 | tail -20)"
like "$(kc logs multi-node-example-node-0-0 2>&1)" "WORLD_SIZE: 3.*RANK: 0" "node 0's log: torchrun's world of 3, rank 0"
like "$(kc logs multi-node-example-node-0-2 2>&1)" "WORLD_SIZE: 3.*RANK: 2" "node 2's log: rank 2"
is "$(tj_pods multi-node-example)" "multi-node-example-node-0-0 multi-node-example-node-0-1 multi-node-example-node-0-2 " \
  "3 pods named as JobSet names them, selected by JobSet's label"
wait_for 30 ptj_recorded multi-node-example
is "$(ptj_sacct multi-node-example | awk '{print NR, $2}')" "1 2" "sacct: ONE Slurm job of the cluster's 2 nodes"
is "$(jp pod/multi-node-example-node-0-1 '{.spec.hostname}.{.spec.subdomain} {.metadata.annotations.batch\.kubernetes\.io/job-completion-index} {.metadata.labels.jobset\.sigs\.k8s\.io/replicatedjob-name} {.metadata.labels.trainer\.kubeflow\.org/trainjob-ancestor-step} {.metadata.ownerReferences[0].kind}')" \
  "multi-node-example-node-0-1.multi-node-example 1 node trainer TrainJob" "hostname, subdomain, completion index, labels, ownerReference"
is "$(tj_conds multi-node-example)" "Complete=True:AllJobsCompleted " "conditions: Complete (JobSet's reason)"
is "$(jp trainjob/multi-node-example '{.status.jobsStatus[0].name} {.status.jobsStatus[0].succeeded} {.status.jobsStatus[0].active}')" \
  "node 1 0" "jobsStatus: the replicated job node succeeded"
like "$(kc describe trainjob multi-node-example 2>&1)" "Normal +SuccessfulCreatePod .*Created pod: multi-node-example-node-0-2.*Normal +Completed .*jobset completed successfully" \
  "kubectl describe: the TrainJob's events"
like "$(kc get trainjobs 2>&1)" $'NAME +STATE +AGE\nmulti-node-example +Complete +[0-9]+s' "kubectl get trainjobs: NAME STATE AGE (the CRD's printer columns)"

# --- a gloo all_reduce across the two nodes ------------------------------------------------------------
kc apply -f - >/dev/null <<YAML
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: ddp}
spec:
  runtimeRef: {name: torch-distributed}
  trainer:
    numNodes: 2
    command: [torchrun, --no_python, /usr/bin/python3, $PTJ/train.py]
    env: [{name: STEPS, value: "10"}, {name: PET_REDIRECTS, value: "2"}, {name: PET_TEE, value: "2"}]
$patch
YAML
ok kc wait --for=condition=Complete trainjob/ddp --timeout=150s "a 2-node TrainJob training with torchrun: Complete"
m=$(kc logs ddp-node-0-0 2>&1); w=$(kc logs ddp-node-0-1 2>&1)
like "$m" "rank 0/2 on ddp-node-0-0: all_reduce 3" "node 0 (its hostname the pod's): world 2, the all_reduce of rank+1 is 3"
like "$w" "rank 1/2 on ddp-node-0-1: all_reduce 3" "node 1: the same sum"
like "$w" "PET_NODE_RANK=1 PET_NNODES=2 PET_NPROC_PER_NODE=1 PET_MASTER_ADDR=ddp-node-0-0.ddp " "the torch plugin's environment (PET_NPROC_PER_NODE auto: 1 CPU; the master by its DNS name)"
is "$(tj_nodes ddp)" "2" "the two trainer nodes ran on different Slurm nodes"

# --- bad input: 422 naming the field -------------------------------------------------------------
bad() { kc apply -f - 2>&1 <<YAML
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: bad}
spec:
  runtimeRef: {name: torch-distributed}
  trainer: {$1}
YAML
}
like "$(bad 'env: [{name: PET_NNODES, value: "9"}]')" 'spec.trainer.env: Invalid value: .*must not have reserved envs, invalid envs configured: \[PET_NNODES\]' \
  "a reserved torchrun variable in trainer.env: 422 naming spec.trainer.env"
like "$(bad 'numNodes: 0')" 'spec.trainer.numNodes: Invalid value: 0: must be greater than or equal to 1' "numNodes 0: 422 naming the field"
like "$(bad 'numNodez: 2')" 'unknown field "spec.trainer.numNodez"' "an unknown field: refused by strict decoding"
kc apply -f - >/dev/null <<YAML
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: lost}
spec:
  runtimeRef: {name: nope}
YAML
ev() { kc get events --field-selector involvedObject.name=lost -o jsonpath='{range .items[*]}{.reason}: {.message}{"\n"}{end}' 2>/dev/null; }
wait_for 30 eval '[ -n "$(ev)" ]'
is "$(ev)" 'TrainJobResourcesCreationFailed: clustertrainingruntimes.trainer.kubeflow.org "nope" not found' \
  "a runtime that does not exist: an event saying so, no pods ($(tj_pods lost))"
