#!/bin/bash
# covers: src/kinds/mpijob/pods.c src/ctl/gang.c src/api/ src/slurmif/acct.c
# 87-mpijob.t — a kubeflow.org/v2beta1 MPIJob (mpi-operator's API) is ONE
# Slurm job on a real two-node cluster (slurmlink up --nodes 2: slurmctld,
# two slurmd, slurmdbd), applied with the real kubectl:
#   - served: api-resources lists mpijobs in kubeflow.org/v2beta1, strict
#     decoding, mpi-operator's defaults, the Table (NAME AGE);
#   - a Launcher whose mpirun runs 2 ranks of an mpi4py all-reduce over 2
#     Workers: the value checked in the Launcher's log, the ranks on
#     different nodes, reached through Slurm (the hostfile of the job's
#     nodes, OpenMPI's Slurm launcher), not ssh; sacct: ONE job, NNodes 2,
#     the Launcher in its batch step and a step per Worker; mpi-operator's
#     pod names, labels, conditions and reasons, replicaStatuses;
#   - mpi-operator's validation as 422s naming the field: no Launcher, 2
#     Launchers, a bad slotsPerWorker (negative, 0, a string);
#   - a Launcher failing once (OnFailure): the gang restarts and succeeds,
#     two Slurm jobs;
#   - deletion cancels the Slurm job and removes the pods.
source "$(dirname "$0")/lib.sh"
plan 28

/usr/bin/python3 -c 'import mpi4py' 2>/dev/null || bail "python3-mpi4py is missing (scripts/deps.sh installs it)"
command -v mpirun >/dev/null || bail "OpenMPI's mpirun is missing (scripts/deps.sh installs openmpi-bin)"
cluster_up --nodes 2 --cpus 2 --gpus 0 --accounting || bail "cluster up --nodes 2"
jp() { kc get "$1" -o jsonpath="$2" 2>&1; }
D=$(tmpdir)
on_exit "rm -rf '$D'"
chmod 755 "$D"
cat >"$D/allreduce.py" <<'PY'
import socket
from mpi4py import MPI
c = MPI.COMM_WORLD
r = c.Get_rank()
s = c.allreduce(r + 1, op=MPI.SUM)
print(f"rank {r}/{c.Get_size()} on {socket.gethostname()}: allreduce {s}", flush=True)
PY
chmod 644 "$D/allreduce.py"

# mpijob NAME [sed expressions...]: mpi-operator's pi example in shape
# (PRE: shell lines the Launcher runs first)
mpijob() {
  local name=$1; shift
  local m
  m=$(cat <<YAML
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata:
  name: $name
  namespace: default
spec:
  slotsPerWorker: 1
  runPolicy:
    cleanPodPolicy: Running
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        metadata:
          annotations: {slurmlink.io/runtime: host, slurmlink.io/tmp: node}
        spec:
          containers:
            - name: mpi-launcher
              image: mpioperator/mpi-pi
              command: ["sh", "-c", "${PRE:-}cat \"\$OMPI_MCA_orte_default_hostfile\"; exec mpirun --allow-run-as-root -n 2 /usr/bin/python3 $D/allreduce.py"]
    Worker:
      replicas: 2
      template:
        metadata:
          annotations: {slurmlink.io/runtime: host, slurmlink.io/tmp: node}
        spec:
          containers:
            - name: mpi-worker
              image: mpioperator/mpi-pi
              command: ["sleep", "3600"]
YAML
)
  local e
  for e in "$@"; do m=$(sed "$e" <<<"$m"); done
  printf '%s\n' "$m"
}
sacct_of() { sacct -n -X -P --format=JobID,JobName,NNodes,State | awk -F'|' -v n="default/$1" '$2 == n {print $1, $3, $4}'; }

# --- served ----------------------------------------------------------------------------------
like "$(kc api-resources --api-group=kubeflow.org 2>&1)" "mpijobs +kubeflow.org/v2beta1 +true +MPIJob" \
  "kubectl api-resources: mpijobs in kubeflow.org/v2beta1, namespaced"
like "$(mpijob typo 's/slotsPerWorker:/slotsPerWorkr:/' | kc apply --validate=strict -f - 2>&1)" 'unknown field "spec.slotsPerWorkr"' \
  "strict decoding names an unknown field"

# --- validation: 422 naming the field --------------------------------------------------------------
out=$(mpijob nolauncher '/    Launcher:/,/    Worker:/{/    Worker:/!d}' | kc apply -f - 2>&1)
like "$out" 'The MPIJob "nolauncher" is invalid: spec.mpiReplicaSpecs\[Launcher\]: Required value: must have Launcher replica spec' \
  "no Launcher: 422 naming spec.mpiReplicaSpecs[Launcher]"
out=$(mpijob twolaunchers '0,/replicas: 1/s//replicas: 2/' | kc apply -f - 2>&1)
like "$out" 'spec.mpiReplicaSpecs\[Launcher\].replicas: Invalid value: 2: must be 1' "2 Launchers: 422 naming its replicas"
like "$(mpijob neg 's/slotsPerWorker: 1/slotsPerWorker: -1/' | kc apply -f - 2>&1)" \
  'spec.slotsPerWorker: Invalid value: -1: must be greater than or equal to 0' "slotsPerWorker -1: mpi-operator's 422"
like "$(mpijob zero 's/slotsPerWorker: 1/slotsPerWorker: 0/' | kc apply -f - 2>&1)" \
  'spec.slotsPerWorker: Invalid value: 0: must be greater than or equal to 1' "slotsPerWorker 0: 422 (a node's tasks)"
like "$(mpijob str 's/slotsPerWorker: 1/slotsPerWorker: "two"/' | kc apply -f - 2>&1)" \
  'spec.slotsPerWorker: Invalid value: "string": spec.slotsPerWorker in body must be of type integer: "string"' \
  "slotsPerWorker a string: the schema's type error"
is "$(kc get mpijobs -o name 2>&1)" "" "... and none of them was created"

# --- an mpi4py all-reduce over 2 Workers ------------------------------------------------------
is "$(mpijob pi | kc apply -f - 2>&1)" "mpijob.kubeflow.org/pi created" "kubectl apply -f an MPIJob"
is "$(jp mpijob/pi '{.spec.mpiImplementation} {.spec.launcherCreationPolicy} {.spec.mpiReplicaSpecs.Launcher.restartPolicy} {.spec.mpiReplicaSpecs.Worker.restartPolicy} {.spec.runPolicy.suspend}')" \
  "OpenMPI AtStartup OnFailure Never false" "mpi-operator's defaults"
ok kc wait --for=condition=Succeeded mpijob/pi --timeout=180s "kubectl wait --for=condition=Succeeded"
log=$(kc logs pi-launcher 2>&1)
like "$log" "rank 0/2 on node[12]: allreduce 3" "the Launcher's log: rank 0 of 2, the all-reduce of rank+1 is 3"
like "$log" "rank 1/2 on node[12]: allreduce 3" "... rank 1 the same sum"
is "$(grep -o 'on node[0-9]*' <<<"$log" | sort -u | wc -l)" 2 \
  "the two ranks ran on different nodes ($(grep -o 'rank .* on node[0-9]*' <<<"$log" | tr '\n' ' '))"
like "$log" $'node1 slots=1\nnode2 slots=1' "the hostfile mpi-operator writes: the job's nodes, slotsPerWorker slots each"
# slurmdbd has the record a moment after slurmctld, the job ends once the Workers' steps have
wait_for 60 eval '[ "$(sacct_of pi | awk "{print \$3}")" = COMPLETED ]'
jobs=$(sacct_of pi)
is "$(wc -l <<<"$jobs") $(awk '{print $2, $3}' <<<"$jobs")" "1 2 COMPLETED" "sacct: ONE Slurm job named default/pi, NNodes 2, COMPLETED"
id=$(awk '{print $1}' <<<"$jobs")
steps=$(sacct -n -P -j "$id" --format=JobID,JobName,NodeList | awk -F'|' '$1 ~ /\.([0-9]+|batch)$/ {sub(/^[0-9]+\.[0-9]+$/, "step", $1); sub(/^[0-9]+\./, "", $1); print $1 ":" $2 "@" $3}' | sort | tr '\n' ' ')
is "$steps" "batch:batch@node1 step:bash@node1 step:bash@node2 step:orted@node2 " \
  "sacct: the Launcher in the batch step on node1, a step per Worker, and mpirun's daemon started by srun on node2 (no ssh)"
is "$(kc get pods -l training.kubeflow.org/job-role=worker -o jsonpath='{range .items[*]}{.metadata.name}={.status.phase}/{.status.containerStatuses[0].state.terminated.exitCode} {end}')" \
  "pi-worker-0=Failed/143 pi-worker-1=Failed/143 " "the Workers' steps ended with the Launcher (SIGTERM: exit 143); they do not decide the MPIJob's end"
is "$(jp pod/pi-launcher '{.metadata.labels.training\.kubeflow\.org/job-role} {.metadata.labels.training\.kubeflow\.org/replica-type} {.metadata.labels.training\.kubeflow\.org/job-name} {.metadata.labels.training\.kubeflow\.org/operator-name}')|$(jp pod/pi-worker-1 '{.metadata.labels.training\.kubeflow\.org/job-role} {.metadata.labels.training\.kubeflow\.org/replica-type} {.metadata.labels.training\.kubeflow\.org/replica-index} {.metadata.ownerReferences[0].kind}')" \
  "launcher launcher pi mpi-operator|worker worker 1 MPIJob" "mpi-operator's pods: pi-launcher, pi-worker-N, their labels, owned by the MPIJob"
is "$(jp mpijob/pi '{range .status.conditions[*]}{.type}={.status}:{.reason} {end}')" \
  "Created=True:MPIJobCreated Running=False:MPIJobRunning Succeeded=True:MPIJobSucceeded " \
  "conditions as mpi-operator's: Created, Running (False once finished), Succeeded"
is "$(jp mpijob/pi '{.status.conditions[?(@.type=="Succeeded")].message}|{.status.replicaStatuses.Launcher.succeeded}')" \
  "MPIJob default/pi successfully completed.|1" "... its message; replicaStatuses.Launcher"
like "$(kc get mpijobs 2>&1)" $'^NAME +AGE\npi +[0-9]+[sm]' "kubectl get mpijobs: NAME AGE, as a CRD without printer columns"

# --- a Launcher failing once, restartPolicy OnFailure (its default): the gang restarts -----------
mkdir -p "$D/flaky" && chmod 1777 "$D/flaky"
PRE="[ -e $D/flaky/failed ] || { touch $D/flaky/failed; exit 3; }; " mpijob flaky | kc apply -f - >/dev/null
ok kc wait --for=condition=Succeeded mpijob/flaky --timeout=240s "a Launcher failing once: the MPIJob succeeds in the end"
like "$(grep 'default/flaky' "$CL/log/slurmlinkd.log")" "MPIJob default/flaky: a replica failed, the gang restarts \(attempt 1\)" \
  "... after one restart of the whole gang"
# the restart cancels the failed attempt's job if it has not ended yet; the good one ends by itself
two() { [[ "$(sacct_of flaky | awk '{print $2, $3}' | tr '\n' ' ')" =~ ^2\ (FAILED|CANCELLED)\ 2\ COMPLETED\ $ ]]; }
ok wait_for 60 two "... two Slurm jobs of 2 nodes: the failed attempt, the good one COMPLETED"
like "$(kc logs flaky-launcher 2>&1)" "rank 1/2 on node[12]: allreduce 3" "... whose all-reduce is right"

# --- deletion cancels the Slurm job ----------------------------------------------------------------
mpijob sleepy 's|exec mpirun.*allreduce.py|exec sleep 600|' | kc apply -f - >/dev/null
running() { [ "$(kc get pods -l training.kubeflow.org/job-name=sleepy -o jsonpath='{.items[*].status.phase}')" = "Running Running Running" ]; }
ok wait_for 180 running "a sleeping MPIJob's Launcher and two Workers run"
sid=$(squeue -h -o '%i %j' | awk '$2 == "default/sleepy" {print $1}')
kc delete mpijob sleepy >/dev/null 2>&1
over() { ! squeue -h -j "$sid" -t PD,R,CG 2>/dev/null | grep -q . && [ -z "$(kc get pods -l training.kubeflow.org/job-name=sleepy -o name 2>/dev/null)" ]; }
ok wait_for 120 over "kubectl delete mpijob: Slurm job $sid cancelled and its pods gone"
