#!/bin/bash
# covers: src/translate/ src/shim/join.c src/shim/
# 81-mpi-nodes.t — t/81-mpi.t on `slurmlink up --nodes 2`: sbatch -N2
# --ntasks-per-node=2 --wrap 'srun --mpi=pmix mpi-stencil' runs 4 ranks on
# two nodes (each a slurmd in its own network namespace) that exchange halos
# over the nodes' network and combine their residual with MPI_Allreduce; the
# ranks name two distinct nodes; a corrupted rank still fails the job.
MPI_NODES=2 exec bash "$(dirname "$0")/81-mpi.t"
