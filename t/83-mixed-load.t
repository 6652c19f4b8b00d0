#!/bin/bash
# covers: src/ctl/ src/api/ src/slurmif/acct.c
# 83-mixed-load.t — the article's heavy mixed load on `slurmlink up --nodes 2
# --gpus 1 --accounting` (2 nodes x 1 GPU): an HPC user's two MPI sbatch jobs
# on both nodes with a GPU each (examples/mpi/gpu-job.sh: 4 ranks, a checked
# stencil), the demo's two GPU "training" pods and one GPU "inference" pod
# (examples/gpu-load/) through kubectl, each doing checkable work, plus a
# CPU pod that exits 3. Five GPU jobs for two GPUs: Slurm queues the excess
# (a pending reason Resources while others run, on squeue and in a pod's
# PodScheduled condition).
# Then, from accounting and the jobs' own recorded GPU index per node
# (`slurmlink report`, jobs through libslurm's slurmdb, pods from the API):
# no (node, GPU) was held by two jobs at overlapping times; every job's exit
# code; and for every pod sacct agrees with it: JobName namespace/name, the
# pod uid in Comment, NodeList = spec.nodeName, ExitCode = the container's
# exitCode, gres/gpu=1 in AllocTRES of GPU pods. The report from accounting
# is the one from sacct's table and kubectl's pod list; the checker is shown
# to fail on this run's own data with one Start moved into another job's
# interval on the same GPU.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/61-security-lib.sh"

PROG=$ROOT/build/mpi-stencil
[ -x "$PROG" ] || { plan 1; bail "$PROG is missing (make builds it with mpicc)"; }
sec_users || { echo "1..1"; echo "not ok 1 - a Unix user for the test"; exit 1; }
plan 40
cluster_up --nodes 2 --gpus 1 --accounting --cpus 4 || bail "slurmlink up --nodes 2 --gpus 1 --accounting"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null 2>&1 || bail "busybox image"
ACCT=mix$$
T_START=$(date +%Y-%m-%dT%H:%M:%S)
sacctmgr -i add account "$ACCT" Cluster=slurmlink Description=test Organization=test >/dev/null
sacctmgr -i add user "$UA" Account="$ACCT" DefaultAccount="$ACCT" Cluster=slurmlink >/dev/null
is "$(sinfo -h -N -o '%N %G' | sort -u | tr '\n' ' ')" "node1 gpu:1 node2 gpu:1 " "two nodes with one GPU each"

W=$CL/mix-$UA
mkdir -p "$W" && cp "$PROG" "$ROOT/examples/mpi/gpu-job.sh" "$W/" && chown -R "$UA" "$W"
mpijob() {
  (cd "$W" && runuser -u "$UA" -- sbatch --parsable -J "$1" -N2 --ntasks-per-node=2 --gres=gpu:1 \
    -D "$W" -o "$W/$1.out" ./gpu-job.sh --cells 20000 --iters 500)
}
# the demo's GPU pods (examples/gpu-load/: each records its GPU, then works), and a CPU pod
gpu_pod() { kubectl apply -f "$ROOT/examples/gpu-load/$1.yaml" >/dev/null; }
cpu_pod() {
  kubectl apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1}
spec:
  restartPolicy: Never
  containers:
  - {name: main, image: busybox, resources: {limits: {cpu: 1, memory: 256Mi}}, command: ["sh", "-c", "$2"]}
YAML
}
running() { [ "$(squeue -h -j "$1" -o %T)" = RUNNING ]; }

M1=$(mpijob mpi-1)
like "$M1" '^[0-9]+$' "the HPC user's first MPI job (-N2, gres/gpu:1 per node) is submitted"
wait_for 60 running "$M1"
gpu_pod train-a
gpu_pod train-b
gpu_pod infer
M2=$(mpijob mpi-2)
like "$M2" '^[0-9]+$' "the second MPI job is submitted"
cpu_pod exit3 'echo cpu work; exit 3'

# --- the excess waits ------------------------------------------------------------------------------
queued() { squeue -h -o '%T %r' | grep -q '^PENDING Resources' && squeue -h -o %T | grep -q RUNNING; }
ok wait_for 60 queued "Slurm queues the excess: a job PENDING with reason Resources while another runs"
pod_waits() {
  local p
  for p in train-a train-b infer; do
    kubectl get pod "$p" -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].message}' 2>/dev/null |
      grep -q 'is pending: Resources' && return 0
  done
  return 1
}
ok wait_for 60 pod_waits "a GPU pod's PodScheduled condition says its Slurm job is pending: Resources"

# --- everything completes ----------------------------------------------------------------------------
ended() { case "$(sacct -n -X -P -j "$1" -o State 2>/dev/null | head -1)" in COMPLETED | FAILED | CANCELLED* | TIMEOUT | OUT_OF_MEMORY | NODE_FAIL) return 0 ;; esac; return 1; }
ok wait_for 300 ended "$M1" "MPI job 1 ends"
ok wait_for 300 ended "$M2" "MPI job 2 ends"
for p in train-a train-b infer; do
  ok wait_for 300 kubectl wait --for=jsonpath='{.status.phase}'=Succeeded "pod/$p" --timeout=5s "pod $p Succeeded"
done
ok wait_for 120 kubectl wait --for=jsonpath='{.status.phase}'=Failed pod/exit3 --timeout=5s "pod exit3 Failed"
for m in 1 2; do
  like "$(cat "$W/mpi-$m.out")" 'mpi-stencil: 4 ranks on 2 node\(s\) \[node1,node1,node2,node2\], 20000 cells, 500 sweeps: verified' \
    "MPI job $m: 4 ranks on both nodes agree with the serial answer"
done
expect_train() { # the same chain on this machine
  local h=seed-$1 i
  for ((i = 0; i < 300; i++)); do h=$(printf %s "$h" | sha256sum | cut -c1-64); done
  echo "train result=$h"
}
for x in a b; do
  is "$(kubectl logs "train-$x" | grep '^train result=')" "$(expect_train "$x")" "train-$x: its digest chain is the right one"
done
is "$(kubectl logs infer | grep '^infer result=')" "infer result=2666686666700000 verified" "infer: its sums are right"

# --- accounting: every job, exit codes, exclusivity ------------------------------------------------------
podjob() { kubectl get pod "$1" -o jsonpath='{.metadata.annotations.slurmlink\.io/job-id}'; }
JOBS="$M1,$M2"
for p in train-a train-b infer exit3; do JOBS+=",$(podjob "$p")"; done
F=JobID,JobName,User,Account,NodeList,AllocTRES,Submit,Start,End,ExitCode,State,Comment
all_recorded() { [ "$(sacct -n -X -P -j "$JOBS" -o End | grep -c '^20')" = 6 ]; }
ok wait_for 60 all_recorded "sacct has an End for all six jobs"
sacct -X -P -j "$JOBS" -o "$F" > "$CL/sacct.txt"
is "$(cut -d'|' -f10,11 "$CL/sacct.txt" | tail -n +2 | sort | tr '\n' ' ')" \
  "0:0|COMPLETED 0:0|COMPLETED 0:0|COMPLETED 0:0|COMPLETED 0:0|COMPLETED 3:0|FAILED " \
  "exit codes: the five GPU jobs 0, the CPU pod 3"
is "$(grep -c "^\($M1\|$M2\)|mpi-[12]|$UA|$ACCT|node\[1-2\]|[^|]*gres/gpu=2" "$CL/sacct.txt")" 2 \
  "sacct: both MPI jobs as the user, its account, on node[1-2] with gres/gpu=2"
for p in train-a train-b infer exit3; do kubectl logs "$p"; done > "$CL/records.txt"
cat "$W"/mpi-[12].out >> "$CL/records.txt"
kubectl get pods -A -o json > "$CL/pods.json"
out=$("$SLURMLINK" report --jobs "$JOBS" --records "$CL/records.txt" 2>&1; echo "rc=$?")
diag "$out"
like "$out" 'no GPU was held by two jobs at once: 7 holdings of 2 \(node, GPU\) pair\(s\) by 5 GPU job\(s\).*rc=0$' \
  "slurmlink report: no (node, GPU) held by two jobs at once; pods agree with accounting"
is "$("$SLURMLINK" report --sacct "$CL/sacct.txt" --records "$CL/records.txt" --pods "$CL/pods.json" 2>&1; echo "rc=$?")" "$out" \
  "the report from slurmdbd and the API is the one from sacct's table and kubectl's pods"
N=$'\n'
like "$("$SLURMLINK" report --account "$ACCT" --since "$T_START" --records "$CL/records.txt" 2>&1; echo "rc=$?")" \
  "^ *JOBID [^$N]*$N +$M1  sbatch +$UA +$ACCT +node\\[1-2\\] +node1:0,node2:0 [^$N]*$N +$M2  sbatch [^$N]*${N}no GPU was held by two jobs at once: 4 holdings of 2 \\(node, GPU\\) pair\\(s\\) by 2 GPU job\\(s\\).*rc=0\$" \
  "slurmlink report --account --since: this account's jobs of this run only, the two MPI jobs"
waited=$(/usr/bin/python3 - "$CL/sacct.txt" <<'PY'
import sys, datetime
rows = [l.split("|") for l in open(sys.argv[1]).read().split("\n")[1:] if l]
f = datetime.datetime.fromisoformat
print(sum(1 for r in rows if "gres/gpu" in r[5] and (f(r[7]) - f(r[6])).total_seconds() >= 1))
PY
)
like "$waited" '^[1-9]' "sacct: GPU jobs waited in the queue (Start after Submit): $waited"

# the checker can fail: this run's data with the first pod's Start moved to MPI job 1's Start
J1=$(podjob train-a)
S1=$(awk -F'|' -v j="$M1" '$1 == j {print $8}' "$CL/sacct.txt")
awk -F'|' -v OFS='|' -v j="$J1" -v s="$S1" '$1 == j {$8 = s} 1' "$CL/sacct.txt" > "$CL/sacct-ov.txt"
like "$("$SLURMLINK" report --sacct "$CL/sacct-ov.txt" --records "$CL/records.txt" --pods "$CL/pods.json" 2>&1; echo "rc=$?")" \
  "OVERLAP: node[12] GPU 0 held by job ($M1 .* and job $J1|$J1 .* and job $M1) .*rc=1\$" \
  "slurmlink report finds an injected overlap in the same data (a pod's Start inside MPI job 1)"

# --- sacct and each pod agree --------------------------------------------------------------------------
for p in train-a train-b infer exit3; do
  j=$(podjob "$p")
  row=$(awk -F'|' -v j="$j" '$1 == j' "$CL/sacct.txt")
  IFS='|' read -r _ name _ _ nodes tres _ _ _ code _ comment <<<"$row"
  uid=$(kubectl get pod "$p" -o jsonpath='{.metadata.uid}')
  node=$(kubectl get pod "$p" -o jsonpath='{.spec.nodeName}')
  ec=$(kubectl get pod "$p" -o jsonpath='{.status.containerStatuses[0].state.terminated.exitCode}')
  is "$name|$comment" "default/$p|slurmlink:uid=$uid" "$p: sacct JobName is namespace/name, Comment carries the pod uid"
  is "$nodes" "$node" "$p: sacct NodeList ($nodes) is the pod's spec.nodeName"
  is "$code" "$ec:0" "$p: sacct ExitCode ($code) is the container's exitCode"
  if [ "$p" = exit3 ]; then
    unlike "$tres" 'gres/gpu' "$p: no gres/gpu in AllocTRES of the CPU pod"
  else
    like "$tres" '(^|,)gres/gpu=1(,|$)' "$p: AllocTRES has gres/gpu=1"
  fi
done
