#!/bin/bash
# covers: src/kinds/kubeflow/controller.c src/kinds/pytorchjob/pods.c src/kinds/kubeflow/status.c src/ctl/gang.c src/api/ src/slurmif/acct.c
# slow
# 87-pytorchjob.t — a kubeflow.org/v1 PyTorchJob is ONE gang-scheduled
# Slurm job, on a real two-node cluster (slurmlink up --nodes 2:
# slurmctld, two slurmd, slurmdbd) with the real kubectl and the Python
# client (CustomObjectsApi), training with Debian's python3-torch (gloo):
#   - Master + 1 Worker from a manifest in the operator's example style:
#     kubectl wait --for=condition=Succeeded; the all-reduce's value and a
#     falling DDP loss in each replica's own logs; the replicas on different
#     nodes (the pods' nodeName = the steps' nodes in sacct); sacct: ONE job,
#     NNodes 2; the operator's labels, owner reference and environment;
#     conditions and replicaStatuses as the operator writes them;
#   - a Worker failing once with OnFailure: the gang restarts (Restarting)
#     and succeeds, two Slurm jobs; failing always with backoffLimit 1:
#     Failed after two attempts; restartPolicy Never: Failed at once;
#   - deletion cancels the Slurm job and removes the replica pods;
#   - CustomObjectsApi: create, read the status.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/87-pytorchjob-lib.sh"
plan 35

ptj_need_torch
cluster_up --nodes 2 --cpus 2 --gpus 1 --accounting || bail "cluster up --nodes 2"
ptj_setup

# --- one gang: Master + 1 Worker --------------------------------------------------------------
is "$(ptj_yaml ddp 1 OnFailure | kc apply -f - 2>&1)" "pytorchjob.kubeflow.org/ddp created" "kubectl apply -f a PyTorchJob"
ok kc wait --for=condition=Succeeded pytorchjob/ddp --timeout=150s "kubectl wait --for=condition=Succeeded"
m=$(kc logs ddp-master-0 2>&1); w=$(kc logs ddp-worker-0 2>&1)
like "$m" "rank 0/2 on node[12]: all_reduce 3" "the Master's log: world 2, all_reduce of rank+1 is 3"
like "$w" "rank 1/2 on node[12]: all_reduce 3" "the Worker's own log: the same sum"
falls() { awk '/loss/ {split($0, a, "loss "); split(a[2], b, " -> "); exit !(b[2] < b[1] / 10)}' <<<"$1"; }
ok falls "$m" "the DDP loss falls more than tenfold on the Master ($(grep loss <<<"$m"))"
ok falls "$w" "... and on the Worker"
nodes=$(ptj_nodes ddp)
is "$(tr ' ' '\n' <<<"$nodes" | grep . | sort -u | wc -l)" 2 "the replicas ran on different nodes ($nodes)"
wait_for 30 eval '[ -n "$(ptj_sacct ddp)" ]' # slurmdbd has the record a moment after slurmctld
jobs=$(ptj_sacct ddp)
is "$(wc -l <<<"$jobs") $(awk '{print $2}' <<<"$jobs")" "1 2" "sacct: ONE Slurm job named default/ddp, NNodes 2"
id=$(awk '{print $1}' <<<"$jobs")
steps=$(sacct -n -P -j "$id" --format=JobID,NodeList | awk -F'|' '$1 ~ /\.[0-9]+$/ {print $2}' | sort | tr '\n' ' ')
is "$steps" "$(tr ' ' '\n' <<<"$nodes" | grep . | sort | tr '\n' ' ')" "its two steps ran on the pods' nodes"
like "$m" "env MASTER_ADDR=node1 MASTER_PORT=23456 WORLD_SIZE=2 RANK=0 PET_NODE_RANK=0 PET_NNODES=2 PET_NPROC_PER_NODE=auto PET_MASTER_ADDR=node1 PYTHONUNBUFFERED=1" \
  "the operator's environment, MASTER_ADDR the Master's node"
like "$w" "env MASTER_ADDR=node1 MASTER_PORT=23456 WORLD_SIZE=2 RANK=1 PET_NODE_RANK=1" "... the Worker's RANK 1"
is "$(jp pod/ddp-master-0 '{.metadata.labels.training\.kubeflow\.org/replica-type} {.metadata.labels.training\.kubeflow\.org/replica-index} {.metadata.labels.training\.kubeflow\.org/job-role} {.metadata.labels.training\.kubeflow\.org/job-name} {.metadata.labels.training\.kubeflow\.org/operator-name}')|$(jp pod/ddp-worker-0 '{.metadata.labels.training\.kubeflow\.org/replica-type} {.metadata.labels.training\.kubeflow\.org/job-role}')" \
  "master 0 master ddp pytorchjob-controller|worker " "the operator's labels (job-role only on the Master)"
is "$(jp pod/ddp-worker-0 '{.metadata.ownerReferences[0].kind} {.metadata.ownerReferences[0].name} {.metadata.ownerReferences[0].controller}') $(jp pytorchjob/ddp '{.metadata.uid}' | grep -c "$(jp pod/ddp-worker-0 '{.metadata.ownerReferences[0].uid}')")" \
  "PyTorchJob ddp true 1" "each replica pod is owned by the PyTorchJob (controller=true)"
is "$(ptj_conds ddp)" "Created=True:PyTorchJobCreated Running=False:PyTorchJobRunning Succeeded=True:PyTorchJobSucceeded " \
  "conditions as the operator's: Created, Running (False once finished), Succeeded"
is "$(jp pytorchjob/ddp '{.status.replicaStatuses.Master.succeeded} {.status.replicaStatuses.Worker.succeeded} {.status.replicaStatuses.Worker.selector}')" \
  "1 1 training.kubeflow.org/job-name=ddp,training.kubeflow.org/operator-name=pytorchjob-controller,training.kubeflow.org/replica-type=worker" "replicaStatuses"
like "$(kc get pytorchjobs ddp 2>&1)" $'ddp +Succeeded +[0-9]+' "kubectl get pytorchjobs: STATE Succeeded"

two() { [ "$(ptj_sacct "$1" | wc -l)" -ge 2 ]; }
one() { [ "$(ptj_sacct "$1" | wc -l)" -ge 1 ]; } # slurmdbd has the records a moment after slurmctld

# --- failure and restart policy ----------------------------------------------------------------
FAIL_MODE=once ptj_yaml flaky 1 OnFailure | kc apply -f - >/dev/null
ok kc wait --for=condition=Succeeded pytorchjob/flaky --timeout=150s "a Worker failing once with OnFailure: the gang restarts and succeeds"
like "$(ptj_conds flaky)" "Created=True:PyTorchJobCreated .*Succeeded=True:PyTorchJobSucceeded" "... Succeeded in the end"
like "$(grep 'default/flaky' "$CL/log/slurmlinkd.log")" "a replica failed, the gang restarts \(attempt 1\)" "... after one restart of the whole gang"
wait_for 30 two flaky
is "$(ptj_sacct flaky | wc -l)" 2 "... two Slurm jobs: the failed attempt and the good one"
FAIL_MODE=always BACKOFF=1 ptj_yaml doomed 1 OnFailure | kc apply -f - >/dev/null
ok kc wait --for=condition=Failed pytorchjob/doomed --timeout=150s "a Worker failing always, backoffLimit 1: Failed"
wait_for 30 two doomed # slurmdbd has the records a moment after slurmctld
is "$(jp pytorchjob/doomed '{.status.conditions[?(@.type=="Failed")].message}')|$(ptj_sacct doomed | wc -l)" \
  "Job doomed has failed because it has reached the specified backoff limit|2" "... the operator's message, after exactly two attempts"
FAIL_MODE=always ptj_yaml never 1 Never | kc apply -f - >/dev/null
ok kc wait --for=condition=Failed pytorchjob/never --timeout=150s "restartPolicy Never: Failed at once"
is "$(jp pytorchjob/never '{.status.conditions[?(@.type=="Failed")].message}')" "PyTorchJob never is failed because 1 Worker replica(s) failed." \
  "... with the operator's message"

# --- deletion: the Slurm job cancelled, the replica pods removed -----------------------------------
SLEEP=600 ptj_yaml sleepy 1 OnFailure | kc apply -f - >/dev/null
running() { [ "$(kc get pods -l training.kubeflow.org/job-name=sleepy -o jsonpath='{.items[*].status.phase}')" = "Running Running" ]; }
wait_for 120 running
sid=$(squeue -h -o '%i %j' | awk '$2 == "default/sleepy" {print $1}')
kc delete pytorchjob sleepy >/dev/null 2>&1
over() { ! squeue -h -j "$sid" -t PD,R,CG 2>/dev/null | grep -q . && [ -z "$(kc get pods -l training.kubeflow.org/job-name=sleepy -o name 2>/dev/null)" ]; }
ok wait_for 60 over "kubectl delete pytorchjob: Slurm job $sid cancelled and both replica pods gone"

# --- run policy: activeDeadlineSeconds, ttlSecondsAfterFinished, cleanPodPolicy, suspend ------------
SLEEP=600 RP="activeDeadlineSeconds: 6" ptj_yaml late 1 OnFailure | kc apply -f - >/dev/null
ok kc wait --for=condition=Failed pytorchjob/late --timeout=90s "activeDeadlineSeconds 6: Failed"
wait_for 30 one late
lid=$(ptj_sacct late | awk '{print $1}')
ended() { ! squeue -h -j "$lid" -t PD,R,CG 2>/dev/null | grep -q .; }
is "$(jp pytorchjob/late '{.status.conditions[?(@.type=="Failed")].message}')|$(wait_for 30 ended && echo ended)" \
  "Job late has failed because it was active longer than specified deadline|ended" "... the operator's message, its Slurm job ended"
SLEEP=1 RP="ttlSecondsAfterFinished: 0" ptj_yaml brief 1 OnFailure | kc apply -f - >/dev/null
gone() { ! kc get pytorchjob brief >/dev/null 2>&1 && [ -z "$(kc get pods -l training.kubeflow.org/job-name=brief -o name)" ]; }
ok wait_for 90 gone "ttlSecondsAfterFinished 0: the finished PyTorchJob is deleted, its pods with it"
SLEEP=1 RP="cleanPodPolicy: All" ptj_yaml clean 1 OnFailure | kc apply -f - >/dev/null
kc wait --for=condition=Succeeded pytorchjob/clean --timeout=90s >/dev/null
nopods() { [ -z "$(kc get pods -l training.kubeflow.org/job-name=clean -o name)" ]; }
ok wait_for 30 nopods "cleanPodPolicy All: the replica pods are deleted once it finished"
SLEEP=1 RP="suspend: true" ptj_yaml paused 1 OnFailure | kc apply -f - >/dev/null
susp() { [ "$(jp pytorchjob/paused '{.status.conditions[?(@.type=="Suspended")].status}')" = True ]; }
wait_for 30 susp
is "$(ptj_conds paused)|$(kc get pods -l training.kubeflow.org/job-name=paused -o name | wc -l)|$(squeue -h -o %j | grep -c '^default/paused$')" \
  "Created=True:PyTorchJobCreated Suspended=True:PyTorchJobSuspended |0|0" "suspend: true: Suspended, no pod, no Slurm job"
kc patch pytorchjob paused --type=merge -p '{"spec":{"runPolicy":{"suspend":false}}}' >/dev/null
ok kc wait --for=condition=Succeeded pytorchjob/paused --timeout=90s "resumed: the gang runs and succeeds"
like "$(ptj_conds paused)" "Suspended=False:PyTorchJobResumed" "... Suspended False, reason PyTorchJobResumed"

# --- GPU limits: GRES per node ------------------------------------------------------------------
gpu_yaml() {
  cat <<YAML
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: gpus, namespace: default}
spec:
  pytorchReplicaSpecs:
$(for t in Master Worker; do cat <<R
    $t:
      replicas: 1
      template:
        metadata: {annotations: {slurmlink.io/runtime: host}}
        spec:
          containers:
            - name: pytorch
              image: busybox
              command: ["sh", "-c", "echo gpus=\$CUDA_VISIBLE_DEVICES"]
              resources: {limits: {nvidia.com/gpu: 1}}
R
done)
YAML
}
gpu_yaml | kc apply -f - >/dev/null
kc wait --for=condition=Succeeded pytorchjob/gpus --timeout=90s >/dev/null
is "$(kc logs gpus-master-0) $(kc logs gpus-worker-0)" "gpus=0 gpus=0" "nvidia.com/gpu: 1 per replica: each replica's step sees its node's GPU"
wait_for 30 one gpus
gid=$(ptj_sacct gpus | awk '{print $1}')
like "$(sacct -n -X -P -j "$gid" --format=AllocTRES)" "gres/gpu=2" "... one job of two nodes with a GPU each (--gres=gpu:1 is per node): AllocTRES gres/gpu=2"

# --- the Python client -------------------------------------------------------------------------
ptj_yaml pyclient 1 OnFailure >"$PTJ/pyclient.yaml"
out=$(/usr/bin/python3 - "$KUBECONFIG" "$PTJ/pyclient.yaml" 2>&1 <<'PY'
import sys, time, yaml
from kubernetes import client, config
config.load_kube_config(sys.argv[1])
co = client.CustomObjectsApi()
body = yaml.safe_load(open(sys.argv[2]))
co.create_namespaced_custom_object("kubeflow.org", "v1", "default", "pytorchjobs", body)
for _ in range(150):
    st = co.get_namespaced_custom_object_status("kubeflow.org", "v1", "default", "pytorchjobs", "pyclient").get("status", {})
    types = [c["type"] for c in st.get("conditions", []) if c["status"] == "True"]
    if "Succeeded" in types or "Failed" in types:
        break
    time.sleep(1)
print("conditions", " ".join(types), "startTime" in st, "completionTime" in st)
PY
)
is "$out" "conditions Created Succeeded True True" "CustomObjectsApi: create, then the status: Succeeded with startTime and completionTime"
