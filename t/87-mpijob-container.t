#!/bin/bash
# covers: src/kinds/mpijob/pods.c src/ctl/gang.c src/shim/mpiserve.c src/mpirsh/ examples/kubeflow-images/pi.c
# 87-mpijob-container.t — MPIJobs as Kubeflow users write them, in
# containers: the Launcher's image has OpenMPI's mpirun but no Slurm, and
# its mpirun reaches the Workers through slurmlink's rsh agent
# (/etc/mpi/rsh, OMPI_MCA_plm_rsh_agent), which starts mpirun's daemons in
# the Workers' own containers through steps of the one Slurm job. A real
# two-node cluster, a real docker-registry, an image of this machine's
# OpenMPI and an MPI pi program (built with umoci, pushed with skopeo, run
# by charliecloud):
#   - mpi-operator's pi example in shape (Launcher `mpirun -n 2 pi`, two
#     Workers, slotsPerWorker 1): Succeeded; pi in the Launcher's log; each
#     rank in a Worker's container (its pod's environment), on different
#     nodes; sacct: ONE job of 2 nodes, the agent's steps on both nodes;
#   - Kubeflow's 4 Workers on 2 nodes: ONE job of 2 nodes, two Workers to
#     a node (worker i on node i mod 2), mpi-operator's /etc/mpi/hostfile
#     of the 4 Workers with their slots, 4 ranks, one in each Worker;
#   - a Launcher that reaches Worker 0, 0, 1, 1, 0, 1 in turn through the
#     agent: each command on its Worker's node (Slurm 25.11 starts a step of
#     `srun --relative=0` after the job's previous step, node2 after node1).
source "$(dirname "$0")/lib.sh"
plan 16

command -v mpicc >/dev/null || bail "OpenMPI's mpicc is missing (scripts/deps.sh installs libopenmpi-dev)"
T=$(tmpdir)
on_exit "rm -rf '$T'"
mpicc -O2 -o "$T/pi" "$ROOT/examples/kubeflow-images/pi.c" || bail "mpicc examples/kubeflow-images/pi.c"
# the image: busybox's sh, OpenMPI (mpirun, orted, its plugins and help
# files) with every library they load, and /home/mpiuser/pi
mpi=/usr/lib/x86_64-linux-gnu
files=$( (ldd /usr/bin/orterun /usr/bin/orted "$T/pi" $mpi/openmpi/lib/openmpi3/*.so $mpi/pmix2/lib/pmix/*.so 2>/dev/null |
  awk '$2 == "=>" && $3 ~ /^\// {print $3} $1 ~ /^\// {print $1}'; echo /usr/bin/mpirun /usr/bin/orterun /usr/bin/orted \
  $mpi/openmpi $mpi/pmix2 /usr/share/openmpi /usr/share/pmix /etc/openmpi) | sort -u | sed 's|^/||')
mkimage() {
  tar -C / -chf - $files 2>/dev/null | tar -xf - && mkdir -p -m 1777 tmp && mkdir -p home/mpiuser proc dev sys &&
    ln -s busybox bin/sleep && ln -s busybox bin/cat &&
    cp "$T/pi" home/mpiuser/pi
}
start_registry "$T"
push_busybox "$T" team/mpi-pi:v1 mkimage
cluster_up --nodes 2 --cpus 2 --gpus 0 --accounting || bail "cluster up --nodes 2"
jp() { kc get "$1" -o jsonpath="$2" 2>&1; }
sacct_of() { sacct -n -X -P --format=JobID,JobName,NNodes,State | awk -F'|' -v n="default/$1" '$2 == n {print $1, $3, $4}'; }
ended() { [[ "$(jp mpijob/$1 '{range .status.conditions[*]}{.type}={.status} {end}')" =~ (Succeeded|Failed)=True ]]; }

# mpijob NAME WORKERS NP [LAUNCHER PREFIX]: mpi-operator's pi example
# (examples/v2beta1/pi/pi.yaml) with this registry's image, the Workers
# running sleep (no sshd: slurmlink reaches them through Slurm) and their
# pod name in POD_NAME
mpijob() {
  cat <<YAML
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata:
  name: $1
spec:
  slotsPerWorker: 1
  runPolicy:
    cleanPodPolicy: Running
  sshAuthMountPath: /home/mpiuser/.ssh
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        metadata: {annotations: {slurmlink.io/runtime: charliecloud}}
        spec:
          containers:
          - image: $REG/team/mpi-pi:v1
            name: mpi-launcher
            command: [sh, -c, '${4:-}exec mpirun -n $3 /home/mpiuser/pi']
            resources:
              limits:
                cpu: 1
                memory: 256Mi
    Worker:
      replicas: $2
      template:
        metadata: {annotations: {slurmlink.io/runtime: charliecloud}}
        spec:
          containers:
          - image: $REG/team/mpi-pi:v1
            name: mpi-worker
            command: [sleep, "3600"]
            env:
            - name: POD_NAME
              valueFrom: {fieldRef: {fieldPath: metadata.name}}
            resources:
              limits:
                cpu: 1
                memory: 256Mi
YAML
}

# --- mpi-operator's pi: a Launcher and 2 Workers in containers ------------------------------------
mpijob pi 2 2 | kc apply -f - >/dev/null
ok wait_for 240 ended pi "the pi MPIJob ends" || diag "$(kc get pods -o wide 2>&1)"
is "$(jp mpijob/pi '{.status.conditions[?(@.type=="Succeeded")].status}')" True \
  "it succeeded" || diag "$(kc logs pi-launcher 2>&1 | tail -20)"
log=$(kc logs pi-launcher 2>&1)
like "$log" $'Workers: 2\n' "the Launcher's mpirun ran 2 ranks" || diag "$log"
like "$log" 'pi is approximately 3\.1[34]' "... and printed pi"
unlike "$log" 'srun|ssh' "no srun or ssh missing in the Launcher's container"
ranks=$(grep -o 'Rank [0-9] on host [^ ]* in pod [^ ]* ([a-z]*)' <<<"$log" | sort)
is "$(sed 's/ on host [^ ]*//' <<<"$ranks" | tr '\n' ' ')" \
  "Rank 0 in pod pi-worker-0 (worker) Rank 1 in pod pi-worker-1 (worker) " \
  "each rank ran in a Worker's container (its pod's environment), rank i in Worker i"
is "$(awk '{print $5}' <<<"$ranks" | sort -u | wc -l)" 2 "... on two different nodes ($(awk '{print $5}' <<<"$ranks" | tr '\n' ' '))"
wait_for 60 eval '[ "$(sacct_of pi | awk "{print \$3}")" = COMPLETED ]'
jobs=$(sacct_of pi)
is "$(wc -l <<<"$jobs") $(awk '{print $2, $3}' <<<"$jobs")" "1 2 COMPLETED" "sacct: ONE Slurm job named default/pi, NNodes 2, COMPLETED"
id=$(awk '{print $1}' <<<"$jobs")
steps=$(sacct -n -P -j "$id" --format=JobID,JobName,NodeList | awk -F'|' '$1 ~ /\.[0-9]+$/ && $2 == "slurmlink-shim" {print $3}' | sort | tr '\n' ' ')
is "$steps" "node1 node2 " "sacct: mpirun's daemons started by the agent as steps of that job, one on each Worker's node"

# --- 4 Workers on 2 nodes: packed, two to a node ---------------------------------------------
mpijob four 4 4 'cat /etc/mpi/hostfile; ' | kc apply -f - >/dev/null
ok wait_for 240 ended four "4 Workers on 2 nodes: the MPIJob ends" || diag "$(kc get pods -o wide 2>&1)"
is "$(jp mpijob/four '{.status.conditions[?(@.type=="Succeeded")].status}')" True \
  "it succeeded (no 'Node count specification invalid')" || diag "$(kc logs four-launcher 2>&1 | tail -20)"
log=$(kc logs four-launcher 2>&1)
is "$(grep 'slots=' <<<"$log" | tr '\n' ' ')" \
  "four-worker-0.four-worker.default.svc slots=1 four-worker-1.four-worker.default.svc slots=1 four-worker-2.four-worker.default.svc slots=1 four-worker-3.four-worker.default.svc slots=1 " \
  "/etc/mpi/hostfile: mpi-operator's, a line per Worker with slotsPerWorker slots"
ranks=$(grep -o 'Rank [0-9] on host [^ ]* in pod [^ ]*' <<<"$log" | sort)
is "$(awk '{print $2 "@" $8}' <<<"$ranks" | tr '\n' ' ')" "0@four-worker-0 1@four-worker-1 2@four-worker-2 3@four-worker-3 " \
  "4 ranks, each in its Worker's container" || diag "$log"
is "$(kc get pods -l training.kubeflow.org/job-role=worker,training.kubeflow.org/job-name=four -o jsonpath='{range .items[*]}{.metadata.name}@{.spec.nodeName} {end}')" \
  "four-worker-0@node1 four-worker-1@node2 four-worker-2@node1 four-worker-3@node2 " "Worker i on node i mod 2"
wait_for 60 eval '[ "$(sacct_of four | awk "{print \$3}")" = COMPLETED ]'
is "$(sacct_of four | awk '{print $2, $3}')" "2 COMPLETED" "sacct: ONE Slurm job of 2 nodes for the 4 Workers"

# --- the agent's steps, one after another: each on its Worker's node ----------------------------
mpijob hops 2 2 'for w in 0 0 1 1 0 1; do /etc/mpi/rsh hops-worker-$w.hops-worker.default.svc cat /proc/sys/kernel/hostname || exit 1; done; ' |
  kc apply -f - >/dev/null
wait_for 240 ended hops || diag "$(kc get pods -o wide 2>&1)"
got=$(kc logs hops-launcher 2>&1 | grep -x 'node[0-9]*' | tr '\n' ' ')
is "$got" "node1 node1 node2 node2 node1 node2 " \
  "Workers 0, 0, 1, 1, 0, 1 in turn through the agent: each command on its Worker's node (Worker i on node i+1)" ||
  diag "$(kc logs hops-launcher 2>&1 | tail -20)"
