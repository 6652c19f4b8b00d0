#!/bin/bash
# covers: src/kinds/kubeflow/controller.c src/kinds/pytorchjob/pods.c src/kinds/kubeflow/status.c src/ctl/gang.c src/api/ src/slurmif/acct.c
# 87-pytorchjob-elastic.t — an elastic PyTorchJob (elasticPolicy minReplicas
# 1, maxReplicas 3, Workers only) on a real three-node cluster (slurmlink
# up --nodes 3, one CPU per node, so a job holds its nodes) is ONE Slurm
# job with a node range, --nodes=1-3, and real torchrun (Debian's
# python3-torch: torch.distributed.run, c10d rendezvous, gloo):
#   - all three nodes free: Slurm allocates three (sacct NNodes 3), three
#     Worker pods on three distinct nodes (= the job's steps' nodes), every
#     one sees the same operator's variables (PET_NNODES=1:3, c10d,
#     PET_RDZV_ENDPOINT worker-0's node and the Worker's port,
#     PET_RDZV_CONF, PET_MAX_RESTARTS) and torchrun's world of 3;
#   - one node busy with an sbatch job: Slurm allocates two (NNodes 2),
#     only worker-0 and worker-1 are made, the rendezvous closes with two
#     nodes, replicaStatuses count two; no worker-2 ever exists;
#   - a Master and 1..2 Workers: --nodes=2-3, the Master on the first node,
#     PET_RDZV_ENDPOINT worker-0's node (the second) in all three pods.
# torchrun runs with --redirects 2 --tee 2: Debian's torch 1.13 on Python
# 3.11 parses its default "0" (Std.from_str) as None and fails in to_map.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/87-pytorchjob-lib.sh"
plan 19

ptj_need_torch torch.distributed.run
cluster_up --nodes 3 --cpus 1 --gpus 0 --accounting || bail "cluster up --nodes 3"
ptj_setup
cp "$(dirname "$0")/87-pytorchjob-elastic.py" "$PTJ/elastic.py" && chmod 644 "$PTJ/elastic.py"

elastic_yaml() {
  cat <<YAML
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: $1, namespace: default}
spec:
  nprocPerNode: "1"
  elasticPolicy:
    minReplicas: 1
    maxReplicas: 3
    maxRestarts: 2
    rdzvConf: [{key: last_call_timeout, value: "20"}]
  pytorchReplicaSpecs:
    Worker:
      replicas: 3
      restartPolicy: OnFailure
      template:
        metadata: {annotations: {slurmlink.io/runtime: host}}
        spec:
          containers:
            - name: pytorch
              image: busybox
              command: ["/usr/bin/python3", "-m", "torch.distributed.run", "--redirects", "2", "--tee", "2", "$PTJ/elastic.py"]
YAML
}
pods_of() { kc get pods -l "training.kubeflow.org/job-name=$1" -o jsonpath='{range .items[*]}{.metadata.name} {end}'; }
# every pod's "pet ..." line, and the all-reduce lines
pets() { for p in $(pods_of "$1"); do kc logs "$p" | grep '^pet '; done | sort -u; }
sums() { for p in $(pods_of "$1"); do kc logs "$p" | grep -o "rank [0-9]/$2 on node[0-9]: all_reduce $3"; done | sort -u | wc -l; }
steps_of() { sacct -n -P -j "$1" --format=JobID,NodeList | awk -F'|' '$1 ~ /\.[0-9]+$/ {print $2}' | sort | tr '\n' ' '; }

# --- all three nodes free: three nodes, three Workers --------------------------------------------
is "$(elastic_yaml el | kc apply -f - 2>&1)" "pytorchjob.kubeflow.org/el created" "kubectl apply an elastic PyTorchJob (1..3 Workers)"
ok kc wait --for=condition=Succeeded pytorchjob/el --timeout=150s "torchrun's c10d rendezvous over the allocated nodes: Succeeded"
wait_for 30 ptj_recorded el
is "$(ptj_sacct el | awk '{print NR, $2}' | tail -1)" "1 3" "sacct: ONE Slurm job, NNodes 3 (all three free)"
like "$(grep 'default/el:' "$CL/log/slurmlinkd.log")" "Slurm job [0-9]+, 1 to 3 nodes, one step per replica" "... submitted with the node range --nodes=1-3"
is "$(pods_of el)" "el-worker-0 el-worker-1 el-worker-2 " "a Worker pod for each allocated node"
nodes=$(ptj_nodes el)
is "$(tr ' ' '\n' <<<"$nodes" | grep . | sort -u | wc -l)" 3 "... on three distinct nodes ($nodes)"
is "$(steps_of "$(ptj_sacct el | awk '{print $1}')")" "$(tr ' ' '\n' <<<"$nodes" | grep . | sort | tr '\n' ' ')" "... the job's steps ran on the pods' nodes"
w0=$(jp pod/el-worker-0 '{.spec.nodeName}')
p=$(pets el)
is "$(wc -l <<<"$p")" 1 "every Worker sees the same PET_* variables"
is "$p" "pet PET_NNODES=1:3 PET_RDZV_BACKEND=c10d PET_RDZV_ENDPOINT=$w0:23456 PET_RDZV_CONF=last_call_timeout=20 PET_MAX_RESTARTS=2 PET_NPROC_PER_NODE=1 WORLD_SIZE=3" \
  "... the operator's: min:max, c10d, worker-0's node ($w0) and port, rdzvConf, maxRestarts (WORLD_SIZE: torchrun's)"
is "$(sums el 3 6)" 3 "every Worker's log: rank r/3, all_reduce of rank+1 is 6"
# the count is written with the pods' phases, which may come after the condition
succeeded_is() { [ "$(jp "pytorchjob/$1" '{.status.replicaStatuses.Worker.succeeded}')" = "$2" ]; }
wait_for 30 succeeded_is el 3
is "$(jp pytorchjob/el '{.status.replicaStatuses.Worker.succeeded}') $(jp pytorchjob/el '{.status.conditions[?(@.type=="Succeeded")].message}')" \
  "3 PyTorchJob default/el successfully completed." "replicaStatuses: 3 Workers succeeded; the operator's message"

# --- one node busy: Slurm allocates two, two Workers run --------------------------------------------
bid=$(sbatch --parsable -N1 -o /dev/null --wrap 'sleep 300' 2>&1)
on_exit "scancel '$bid' 2>/dev/null"
busy() { [ "$(squeue -h -j "$bid" -o %T 2>/dev/null)" = RUNNING ]; }
wait_for 60 busy
elastic_yaml el2 | kc apply -f - >/dev/null
ok kc wait --for=condition=Succeeded pytorchjob/el2 --timeout=150s "one node busy (sbatch job $bid): the elastic job runs and succeeds"
wait_for 30 ptj_recorded el2
is "$(ptj_sacct el2 | awk '{print NR, $2}' | tail -1)" "1 2" "sacct: ONE Slurm job, NNodes 2 (fewer than max, at least min)"
wait_for 30 succeeded_is el2 2
is "$(pods_of el2)|$(jp pytorchjob/el2 '{.status.replicaStatuses.Worker.succeeded}')" "el2-worker-0 el2-worker-1 |2" \
  "only the two allocated nodes' Workers were made (no worker-2); replicaStatuses count 2"
is "$(sums el2 2 3)" 2 "torchrun's world is the two nodes: rank r/2, all_reduce 3"
is "$(grep -c 'pod default/el2-worker-2\|el2-worker-2' "$CL/log/slurmlinkd.log")" 0 "... and slurmlinkd never made a worker-2"

# --- a Master in the range: --nodes=2-3, the rendezvous on worker-0's node ---------------------------
scancel "$bid"
free() { [ -z "$(squeue -h -j "$bid" -t PD,R,CG 2>/dev/null)" ]; }
wait_for 60 free
ecmd='["sh", "-c", "echo ep=$PET_RDZV_ENDPOINT nn=$PET_NNODES ws=${WORLD_SIZE:-none} rank=$RANK"]'
kc apply -f - >/dev/null <<YAML
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: em, namespace: default}
spec:
  elasticPolicy: {minReplicas: 1, maxReplicas: 2}
  pytorchReplicaSpecs:
$(for t in Master Worker; do cat <<R
    $t:
      replicas: $([ $t = Master ] && echo 1 || echo 2)
      template:
        metadata: {annotations: {slurmlink.io/runtime: host}}
        spec:
          containers: [{name: pytorch, image: busybox, command: $ecmd}]
R
done)
YAML
ok kc wait --for=condition=Succeeded pytorchjob/em --timeout=90s "a Master and 1..2 Workers on three free nodes: Succeeded"
wait_for 30 ptj_recorded em
is "$(ptj_sacct em | awk '{print NR, $2}' | tail -1)|$(pods_of em)" "1 3|em-master-0 em-worker-0 em-worker-1 " \
  "ONE job of three nodes (the Master's counted in --nodes=2-3), a pod for each"
w0=$(jp pod/em-worker-0 '{.spec.nodeName}')
is "$(for p in $(pods_of em); do kc logs "$p"; done | tr '\n' ' ')" \
  "ep=$w0:23456 nn=1:2 ws=none rank=0 ep=$w0:23456 nn=1:2 ws=none rank=1 ep=$w0:23456 nn=1:2 ws=none rank=2 " \
  "every replica: PET_RDZV_ENDPOINT worker-0's node ($w0), PET_NNODES the Workers' 1:2, no WORLD_SIZE"
