#!/bin/sh
# gpu-job.sh — the demo's MPI batch job across nodes with a GPU on each:
#   sbatch -N2 --ntasks-per-node=2 --gres=gpu:1 gpu-job.sh [mpi-stencil options]
# One step records, from each node, the GPU Slurm bound the job there
# (a `gpu-record` line for `slurmlink report`); the next runs the stencil
# on every task of the job, which checks its own answer.
srun -n "$SLURM_NNODES" --ntasks-per-node=1 sh -c 'echo "gpu-record job=$SLURM_JOB_ID node=$SLURMD_NODENAME gpu=$CUDA_VISIBLE_DEVICES"' || exit 1
exec srun --mpi=pmix ./mpi-stencil --expect-ranks "$SLURM_NTASKS" --expect-nodes "$SLURM_NNODES" "$@"
