#!/bin/bash
# demo.sh — the README's first command runs this after building:
# a private real cluster (munge, slurmctld, slurmd with 2 GPUs as GRES,
# MariaDB + slurmdbd, slurmlinkd), then work through it, shown in squeue/sacct.
# The cluster is left running; `build/slurmlink down --dir DIR` stops it.
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${SLURMLINK_DIR:-/var/tmp/slurmlink}
SL=build/slurmlink

step() { printf '\n\033[1m== %s\033[0m\n' "$*"; }

step "slurmlink up --dir $DIR --gpus 2 --accounting"
"$SL" up --dir "$DIR" --gpus 2 --accounting
export SLURM_CONF=$DIR/etc/slurm.conf KUBECONFIG=$DIR/kubeconfig
"$SL" status --dir "$DIR"

step "an HPC user's GPU job through sbatch"
job=$(sbatch --parsable --gres=gpu:1 -J hpc-gpu -o "$DIR/demo-%j.out" \
      --wrap 'echo "hello from $(hostname), job $SLURM_JOB_ID, GPU $CUDA_VISIBLE_DEVICES"; sleep 3')
echo "submitted batch job $job"
sleep 1
squeue -o "%.8i %.12j %.9T %.10r %.12b %N"

step "waiting for it to finish"
for _ in $(seq 1 60); do
  [ -z "$(squeue -h -j "$job" -o %i 2>/dev/null)" ] && break
  sleep 0.5
done
cat "$DIR/demo-$job.out"
for _ in $(seq 1 20); do
  sacct -n -X -j "$job" -o State | grep -q COMPLETED && break
  sleep 0.5
done
sacct -X -j "$job" -o JobID,JobName,Account,State,ExitCode,Elapsed,AllocTRES%45

step "done"
echo "the cluster keeps running; to use it:"
echo "  export SLURM_CONF=$SLURM_CONF KUBECONFIG=$KUBECONFIG"
echo "to stop it:  $SL down --dir $DIR"
