#!/bin/bash
# demo.sh — the README's first command runs this after building:
# a private real cluster (munge, slurmctld, slurmd with 2 GPUs as GRES,
# MariaDB + slurmdbd, slurmlinkd), then a GPU pod through kubectl next to an
# HPC user's sbatch GPU job, in one queue, under one GPU allocator, in one sacct;
# then an MPI job (build/mpi-stencil) through srun --mpi=pmix.
# The cluster is left running; `build/slurmlink down --dir DIR` stops it.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${SLURMLINK_DIR:-/var/tmp/slurmlink}
SL=build/slurmlink

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }

step "slurmlink up --dir $DIR --gpus 2 --accounting"
"$SL" up --dir "$DIR" --gpus 2 --accounting
export SLURM_CONF=$DIR/etc/slurm.conf KUBECONFIG=$DIR/kubeconfig
"$SL" status --dir "$DIR"
"$SL" image list --store "$DIR/images" 2>/dev/null | grep -q '^busybox' ||
  "$SL" image import busybox --busybox --store "$DIR/images"

step "an HPC user's GPU job through sbatch"
job=$(sbatch --parsable --gres=gpu:1 -J hpc-gpu -o "$DIR/demo-%j.out" \
      --wrap 'echo "sbatch job $SLURM_JOB_ID on $(hostname) with GPU $CUDA_VISIBLE_DEVICES"; sleep 5')
echo "Submitted batch job $job"

step "an AI user's GPU pod through kubectl"
kubectl delete pod demo-gpu --ignore-not-found --wait=true >/dev/null
cat > "$DIR/demo-pod.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata:
  name: demo-gpu
spec:
  restartPolicy: Never
  containers:
  - name: main
    image: busybox
    command: ["sh", "-c", "echo pod on $(hostname) with GPU $CUDA_VISIBLE_DEVICES; sleep 3; echo done"]
    resources:
      limits: {nvidia.com/gpu: 1}
      requests: {cpu: 500m, memory: 128Mi}
YAML
run kubectl apply -f "$DIR/demo-pod.yaml"
for _ in $(seq 1 50); do
  [ "$(kubectl get pod demo-gpu -o jsonpath='{.status.phase}')" = Running ] && break
  sleep 0.2
done
run kubectl get pods -o wide
step "one queue: squeue shows both"
run squeue -o "%.6i %.16j %.8u %.9T %.12b %N"

step "waiting for the pod through a watch"
run kubectl wait --for=jsonpath='{.status.phase}'=Succeeded pod/demo-gpu --timeout=120s
run kubectl logs demo-gpu
run kubectl get pod demo-gpu
run kubectl get events --field-selector involvedObject.name=demo-gpu
for _ in $(seq 1 60); do
  [ -z "$(squeue -h -j "$job" -o %i 2>/dev/null)" ] && break
  sleep 0.5
done
cat "$DIR/demo-$job.out"

step "one accounting: sacct lists both with their GPU"
podjob=$(kubectl get pod demo-gpu -o jsonpath='{.metadata.annotations.slurmlink\.io/job-id}')
for _ in $(seq 1 20); do
  [ "$(sacct -n -X -j "$job,$podjob" -o State | grep -c COMPLETED)" = 2 ] && break
  sleep 0.5
done
run sacct -X -j "$job,$podjob" -o JobID,JobName%16,User,Account,State,ExitCode,Elapsed,AllocTRES%45
run kubectl get nodes

step "an MPI job: srun --mpi=pmix runs the stencil, which checks its own answer"
# as user nobody (registered in accounting by up): OpenMPI refuses root
MPI=$DIR/mpi-demo
mkdir -p "$MPI" && cp build/mpi-stencil "$MPI/" && chown -R nobody "$MPI"
ranks=$(sinfo -h -N -o %c | head -1)
[ "$ranks" -gt 4 ] && ranks=4
mjob=$(cd "$MPI" && runuser -u nobody -- sbatch --parsable -J mpi-demo -N1 -n "$ranks" -o "$MPI/out-%j.txt" \
       --wrap "srun --mpi=pmix ./mpi-stencil --expect-ranks $ranks")
echo "Submitted batch job $mjob (sbatch -N1 -n $ranks --wrap 'srun --mpi=pmix ./mpi-stencil')"
for _ in $(seq 1 240); do
  [ -z "$(squeue -h -j "$mjob" -o %i 2>/dev/null)" ] && break
  sleep 0.5
done
cat "$MPI/out-$mjob.txt"
for _ in $(seq 1 20); do
  [ "$(sacct -n -j "$mjob" -o State | grep -c COMPLETED)" = 3 ] && break
  sleep 0.5
done
run sacct -j "$mjob" -o JobID,JobName%12,User,NTasks,State,ExitCode

step "done"
echo "the cluster keeps running; to use it:"
echo "  export SLURM_CONF=$SLURM_CONF KUBECONFIG=$KUBECONFIG"
echo "to stop it:  $SL down --dir $DIR"
