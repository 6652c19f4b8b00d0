#!/bin/bash
# demo.sh — the README's first command runs this after building: the
# article's shape, a private real cluster of two nodes with one GPU each
# (munge, slurmctld, a slurmd per node in its own network namespace, MariaDB
# + slurmdbd, slurmlinkd), then a mixed load in one Slurm queue:
#   - an HPC user's MPI job through sbatch across both nodes, a GPU on each
#     (examples/mpi/gpu-job.sh: srun --mpi=pmix mpi-stencil, which checks
#     its own answer);
#   - two GPU "training" pods and one GPU "inference" pod through kubectl
#     (examples/gpu-load/), each doing checkable work (a SHA-256 chain, sums
#     of squares);
# more GPU work than GPUs, so Slurm queues the excess until a GPU frees.
# It ends with a summary from Slurm accounting and the API (`slurmlink
# report`): each job, where it came from, user, account, node, GPU, queue
# wait, run time, exit code, and a line computed from the recorded GPU
# indices and accounting's times that no GPU was held by two jobs at once
# (else it exits non-zero).
# The cluster is left running; `build/slurmlink down --dir DIR` stops it.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${SLURMLINK_DIR:-/var/lib/slurmlink-cluster}
SL=build/slurmlink

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }
run() { printf '$ %s\n' "$*"; "$@"; }

step "slurmlink up --dir $DIR --nodes 2 --gpus 1 --accounting"
"$SL" up --dir "$DIR" --nodes 2 --gpus 1 --accounting
export SLURM_CONF=$DIR/etc/slurm.conf KUBECONFIG=$DIR/kubeconfig
"$SL" status --dir "$DIR"
"$SL" image list --store "$DIR/images" 2>/dev/null | grep -q '^busybox' ||
  "$SL" image import busybox --busybox --store "$DIR/images"
run sinfo -N -o "%N %T %c %G"
kubectl delete pod train-a train-b infer --ignore-not-found --wait=true >/dev/null

step "an HPC user's MPI job through sbatch: both nodes, a GPU on each"
# as the user the cluster's pods run as (its slurmlinkd's slurm.run_as,
# registered in accounting by up): nobody, or from Slurm 25.11, whose
# slurmctld refuses nobody's jobs, _slurmlink-jobs. OpenMPI refuses root.
JU=$(sed -n 's/^  run_as: *"\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$DIR/etc/slurmlinkd.conf")
JU=${JU:-nobody}
MPI=$DIR/mpi-demo
mkdir -p "$MPI" && cp build/mpi-stencil examples/mpi/gpu-job.sh "$MPI/" && chown -R "$JU" "$MPI"
per=$(sinfo -h -N -o %c | sort -n | head -1)
[ "$per" -gt 2 ] && per=2
mjob=$(cd "$MPI" && runuser -u "$JU" -- sbatch --parsable -J mpi-demo -N2 --ntasks-per-node="$per" \
       --gres=gpu:1 -o "$MPI/out-%j.txt" ./gpu-job.sh --cells 20000 --iters 1500)
echo "Submitted batch job $mjob (sbatch -N2 --ntasks-per-node=$per --gres=gpu:1 gpu-job.sh: srun --mpi=pmix ./mpi-stencil)"

step "an AI team's GPU pods through kubectl: two training, one inference"
# examples/gpu-load/: busybox pods with one GPU each that record which one, then work
for p in train-a train-b infer; do run kubectl apply -f "examples/gpu-load/$p.yaml"; done

step "more GPU work than GPUs: Slurm queues the excess"
scheduled() { # the pods' PodScheduled conditions, one line each
  local p
  for p in train-a train-b infer; do
    printf '%s: PodScheduled %s\n' "$p" \
      "$(kubectl get pod "$p" -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].status} {.status.conditions[?(@.type=="PodScheduled")].reason}: {.status.conditions[?(@.type=="PodScheduled")].message}')"
  done
}
# until Slurm has a job pending on Resources and slurmlinkd shows a pod pending
for _ in $(seq 1 100); do
  # (captured, not piped to grep -q: with pipefail an early exit of grep fails the pipe)
  [[ "$(squeue -h -o '%T %r')" == *"PENDING Resources"* && "$(scheduled)" == *"is pending: "* ]] && break
  sleep 0.2
done
run squeue -o "%.6i %.16j %.8u %.9T %.12r %.14b %N"
scheduled

step "waiting: each job runs when a GPU frees"
for p in train-a train-b infer; do
  run kubectl wait --for=jsonpath='{.status.phase}'=Succeeded "pod/$p" --timeout=300s
done
for _ in $(seq 1 600); do
  [ -z "$(squeue -h -j "$mjob" -o %i 2>/dev/null)" ] && break
  sleep 0.5
done
run kubectl get pods -o wide
for p in train-a train-b infer; do run kubectl logs "$p"; done
cat "$MPI/out-$mjob.txt"
expect() { # the training chain, computed here
  local h=seed-$1 i
  for ((i = 0; i < 300; i++)); do h=$(printf %s "$h" | sha256sum | cut -c1-64); done
  echo "train result=$h"
}
for x in a b; do
  [ "$(kubectl logs "train-$x" | grep '^train result=')" = "$(expect "$x")" ] ||
    { echo "train-$x: wrong digest" >&2; exit 1; }
done
echo "both training digests match the chain computed here"
grep -q 'verified$' "$MPI/out-$mjob.txt" || { echo "the MPI job did not verify" >&2; exit 1; }

step "one accounting: sacct lists every job of both paths"
jobs=$mjob
for p in train-a train-b infer; do
  jobs+=,$(kubectl get pod "$p" -o jsonpath='{.metadata.annotations.slurmlink\.io/job-id}')
done
# slurmdbd records each end a moment after slurmctld; on a loaded machine
# that moment can be long, and the report checks every job ended
for _ in $(seq 1 240); do
  [ "$(sacct -n -X -P -j "$jobs" -o End | grep -c '^20')" = 4 ] && break
  sleep 0.5
done
run sacct -X -j "$jobs" -o JobID,JobName%16,User,Account,NodeList,State,ExitCode,Elapsed,AllocTRES%45,Comment%50
{ for p in train-a train-b infer; do kubectl logs "$p"; done; cat "$MPI/out-$mjob.txt"; } > "$DIR/demo-records.txt"

step "summary (slurmlink report: accounting + the pods + each job's recorded GPU)"
run "$SL" report --jobs "$jobs" --records "$DIR/demo-records.txt"

step "done"
echo "the cluster keeps running; to use it:"
echo "  export SLURM_CONF=$SLURM_CONF KUBECONFIG=$KUBECONFIG"
echo "to stop it:  $SL down --dir $DIR"
