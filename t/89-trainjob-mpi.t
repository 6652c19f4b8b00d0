#!/bin/bash
# covers: src/kinds/trainjob/ src/ctl/gang.c
# 89-trainjob-mpi.t — a TrainJob on an MPI runtime (mlPolicy.mpi, OpenMPI,
# in the shape of Kubeflow's deepspeed-distributed: a "node" replicated job
# and a "launcher" one, the trainer, runLauncherAsNode) is ONE Slurm job on
# a real two-node cluster: the launcher's mpirun runs 2 ranks of an mpi4py
# all-reduce over both nodes, reached through Slurm (the hostfile of the
# job's nodes, OpenMPI's Slurm launcher), not ssh; the launcher's end
# decides: Complete; sacct: ONE job, NNodes 2; the pods' names.
source "$(dirname "$0")/lib.sh"
plan 6

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
kc apply -f - >/dev/null <<YAML
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata: {name: mpi-host}
spec:
  mlPolicy:
    numNodes: 1
    mpi: {numProcPerNode: 1, mpiImplementation: OpenMPI, runLauncherAsNode: true}
  template:
    spec:
      successPolicy: {operator: All, targetReplicatedJobs: [launcher]}
      replicatedJobs:
        - name: node
          template:
            spec:
              template:
                metadata: {annotations: {slurmlink.io/runtime: host, slurmlink.io/tmp: node}}
                spec:
                  containers: [{name: node, image: busybox, command: [sleep, "3600"]}]
        - name: launcher
          dependsOn: [{name: node, status: Ready}]
          template:
            metadata:
              labels: {trainer.kubeflow.org/trainjob-ancestor-step: trainer}
            spec:
              template:
                metadata: {annotations: {slurmlink.io/runtime: host, slurmlink.io/tmp: node}}
                spec:
                  containers: [{name: node, image: busybox}]
YAML
is "$(kc apply -f - 2>&1 <<YAML
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: mpi}
spec:
  runtimeRef: {name: mpi-host, kind: TrainingRuntime}
  trainer:
    numNodes: 2
    command: [sh, -c, 'cat "\$OMPI_MCA_orte_default_hostfile"; exec mpirun -n 2 /usr/bin/python3 $D/allreduce.py']
YAML
)" "trainjob.trainer.kubeflow.org/mpi created" "a TrainJob on an MPI TrainingRuntime"
ok kc wait --for=condition=Complete trainjob/mpi --timeout=120s "the launcher's mpirun ends: Complete" ||
  diag "$(kc get pods -o wide 2>&1; kc logs mpi-launcher-0-0 2>&1 | tail -20)"
l=$(kc logs mpi-launcher-0-0 2>&1)
is "$(grep -oE 'rank [01]/2 on [^:]+: allreduce 3' <<<"$l" | cut -d' ' -f2 | sort | tr '\n' ' ')" "0/2 1/2 " \
  "the launcher's log: ranks 0 and 1 of 2, the all-reduce of rank+1 is 3"
is "$(grep -oE 'rank [01]/2 on [^:]+' <<<"$l" | awk '{print $4}' | sort -u | wc -l)" 2 "... on two different hosts"
is "$(grep -c 'slots=1' <<<"$l")" 2 "... through the hostfile of the job's 2 nodes"
wait_for 30 eval '[ -n "$(sacct -n -X -P --format=JobName,NNodes | grep "^default/mpi|")" ]'
is "$(sacct -n -X -P --format=JobName,NNodes,State | grep '^default/mpi|')|$(kc get pods -l jobset.sigs.k8s.io/jobset-name=mpi -o jsonpath='{range .items[*]}{.metadata.name} {end}')" \
  "default/mpi|2|COMPLETED|mpi-launcher-0-0 mpi-node-0-0 " "ONE Slurm job of 2 nodes; the launcher's pod and the node pod"
