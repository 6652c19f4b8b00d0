#!/bin/bash
# covers: src/translate/ src/shim/join.c src/shim/ src/slurmif/acct.c
# 81-mpi.t — OpenMPI through Slurm's PMIx plugin on the local cluster, as an
# HPC user runs it: a non-root user's `sbatch --wrap 'srun --mpi=pmix
# mpi-stencil'` (the demo's MPI program, examples/mpi) runs 4 ranks that
# exchange halos and combine their residual with MPI_Allreduce; the program
# checks the parallel answer against the serial one. Then:
#   - the job's output says 4 ranks verified; sacct shows the job, its batch
#     step and its srun step COMPLETED, the step with 4 tasks, as the user;
#   - a run where one rank corrupts its data (--corrupt) exits non-zero and
#     sacct shows it FAILED, so a wrong answer cannot pass.
# MPI_NODES=2 runs the same on two nodes (-N2 --ntasks-per-node=2) of
# `slurmlink up --nodes 2` (t/81-mpi-nodes.t): the ranks name their nodes,
# two distinct ones, and talk over the nodes' namespace network (docs/cluster.md).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/61-security-lib.sh"

MPI_NODES=${MPI_NODES:-1}
RANKS=4
PROG=$ROOT/build/mpi-stencil
[ -x "$PROG" ] || { plan 1; bail "$PROG is missing (make builds it with mpicc; scripts/deps.sh installs OpenMPI)"; }
# Debian's Slurm has mpi/pmix (a missing one there fails); a release of
# SchedMD's built without PMIx (make SLURM=PREFIX test) skips, naming it
why=$(slurm_mpi_missing pmix)
if [ -n "$why" ]; then
  [ -n "${SL_SLURM_PREFIX:-}" ] && skip_all "$why"
  plan 1; bail "$why"
fi
sec_users || { echo "1..1"; echo "not ok 1 - a Unix user for the test"; exit 1; }
plan 12
UP=(--accounting --gpus 0 --cpus 4)
[ "$MPI_NODES" -gt 1 ] && UP+=(--nodes "$MPI_NODES")
cluster_up "${UP[@]}" || bail "slurmlink up ${UP[*]}"
ACCT=mpi$$
sacctmgr -i add account "$ACCT" Cluster=slurmlink Description=test Organization=test >/dev/null
sacctmgr -i add user "$UA" Account="$ACCT" DefaultAccount="$ACCT" Cluster=slurmlink >/dev/null
is "$(sinfo -h -o '%D %T' | awk '{n+=$1} END {print n}')" "$MPI_NODES" "the cluster has $MPI_NODES node(s)"
like "$(scontrol show config | grep '^PMIxCliTmpDirBase')" "^PMIxCliTmpDirBase += $CL/pmix\$" \
  "Slurm's PMIx plugin keeps its client folders in the cluster folder (etc/mpi.conf)"

# the user's own folder in the cluster folder, as a home or project folder would be
W=$CL/mpi-$UA
mkdir -p "$W" && cp "$PROG" "$W/" && chown -R "$UA" "$W"
as_user() { (cd "$W" && runuser -u "$UA" -- "$@"); }
# mpirun JOBNAME [ARGS...]: the job id of the user's MPI batch job
mpijob() {
  local name=$1; shift
  as_user sbatch --parsable -J "$name" -N "$MPI_NODES" --ntasks-per-node=$((RANKS / MPI_NODES)) \
    -D "$W" -o "$W/$name.out" --wrap "srun --mpi=pmix ./mpi-stencil --expect-ranks $RANKS --expect-nodes $MPI_NODES $*"
}
state() { sacct -n -X -P -j "$1" -o State 2>/dev/null | head -1; }
ended() { case "$(state "$1")" in COMPLETED|FAILED|CANCELLED*|TIMEOUT|OUT_OF_MEMORY|NODE_FAIL) return 0 ;; esac; return 1; }
steps() { sacct -n -P -j "$1" -o JobID,State,ExitCode 2>/dev/null | sed "s/^$1/J/" | tr '\n' ' '; }

# --- a correct run --------------------------------------------------------------------------------
J=$(mpijob stencil)
like "$J" '^[0-9]+$' "the user submits sbatch -N$MPI_NODES --ntasks-per-node=$((RANKS / MPI_NODES)) --wrap 'srun --mpi=pmix mpi-stencil'"
ok wait_for 180 ended "$J" "the MPI job ends"
NAMES=node1,node1,node1,node1
[ "$MPI_NODES" -gt 1 ] && NAMES=node1,node1,node2,node2
is "$(cat "$W/stencil.out" 2>&1)" "mpi-stencil: $RANKS ranks on $MPI_NODES node(s) [$NAMES], 4096 cells, 500 sweeps: verified" \
  "$RANKS ranks on $MPI_NODES node(s) exchanged halos and agree with the serial answer (MPI_Allreduce)"
done_steps() { [ "$(steps "$J")" = "J|COMPLETED|0:0 J.batch|COMPLETED|0:0 J.0|COMPLETED|0:0 " ]; }
wait_for 30 done_steps
is "$(steps "$J")" "J|COMPLETED|0:0 J.batch|COMPLETED|0:0 J.0|COMPLETED|0:0 " \
  "sacct: the job, its batch step and its srun step COMPLETED"
is "$(sacct -n -P -j "$J.0" -o NTasks,NNodes 2>/dev/null)" "$RANKS|$MPI_NODES" "sacct: the srun step had $RANKS tasks on $MPI_NODES node(s)"
is "$(sacct -n -X -P -j "$J" -o User,Account 2>/dev/null)" "$UA|$ACCT" "... run as the user, charged to its account"
if [ "$MPI_NODES" -gt 1 ]; then
  is "$(ls "$CL/pmix" "$CL"/nodes/node*/pmix 2>&1 | grep -v -e '^/' -e '^$')" "" \
    "the step's PMIx folders (each node's own D/nodes/nodeK/pmix behind D/pmix) are gone after it"
else
  is "$(ls "$CL/pmix" 2>&1)" "" "the step's PMIx folder (in the cluster folder, mpi.conf) is gone after it"
fi

# --- a wrong answer must fail -----------------------------------------------------------------------
J2=$(mpijob corrupt --corrupt 1)
ok wait_for 180 ended "$J2" "the MPI job whose rank 1 corrupts a cell ends"
like "$(cat "$W/corrupt.out" 2>&1)" "mpi-stencil: $RANKS ranks on $MPI_NODES node\\(s\\) \\[$NAMES\\], 4096 cells, 500 sweeps: MISMATCH" \
  "the program finds the mismatch"
failed_steps() { [[ "$(steps "$J2")" =~ ^J\|FAILED\|[1-9].*\ J\.0\|FAILED\|[1-9] ]]; }
wait_for 30 failed_steps
like "$(steps "$J2")" '^J\|FAILED\|[1-9][0-9]*:0 .*J\.0\|FAILED\|[1-9][0-9]*:0 ' \
  "sacct: that job and its srun step FAILED with a non-zero exit code"
