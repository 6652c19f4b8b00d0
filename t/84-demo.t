#!/bin/bash
# covers: scripts/demo.sh examples/ src/ctl/ src/slurmif/acct.c
# 84-demo.t — the README's first command without its package install and
# build: scripts/demo.sh in a folder of its own ($SLURMLINK_DIR) on `up
# --nodes 2 --gpus 1 --accounting`. It must exit 0 and leave the cluster
# running; its output shows the queued excess (a pod pending on Resources),
# the MPI job verified on both nodes, both training digests checked, one
# summary line per job (an sbatch job and three pods) and `slurmlink report`'s
# all-clear, computed from the recorded GPUs and accounting's times. A second run
# in the same folder works too (it replaces its pods). The jobs' user is the
# cluster's run_as: nobody, or _slurmlink-jobs from Slurm 25.11 with accounting.
source "$(dirname "$0")/lib.sh"
# the MPI job runs srun --mpi=pmix: a release of SchedMD's built without
# PMIx (make SLURM=PREFIX test) skips, naming it (docs/deploy.md says how a
# site adds the plugin); Debian's Slurm has it
why=$(slurm_mpi_missing pmix)
[ -n "$why" ] && [ -n "${SL_SLURM_PREFIX:-}" ] && skip_all "$why"
plan 12
[ -x "$ROOT/build/mpi-stencil" ] || bail "build/mpi-stencil is missing (make)"
D=$(tmpdir)
on_exit "'$SLURMLINK' down --dir '$D' >/dev/null 2>&1; rm -rf '$D'"
out=$(SLURMLINK_DIR=$D "$ROOT/scripts/demo.sh" 2>&1; echo "rc=$?")
diag "$(printf '%s\n' "$out" | tail -12)"
like "$out" 'rc=0$' "scripts/demo.sh exits 0"
like "$out" '(train-a|train-b|infer): PodScheduled False Unschedulable: Slurm job [0-9]+ is pending: (Resources|Priority)' \
  "queued pods wait (pending: Resources or Priority) while the MPI job holds both GPUs"
like "$out" 'mpi-stencil: [0-9]+ ranks on 2 node\(s\) \[node1,[a-z0-9,]*node2\], 20000 cells, 1500 sweeps: verified' \
  "the MPI job ran on both nodes and verified"
like "$out" 'both training digests match the chain computed here' "the training pods' work is checked"
like "$out" 'infer result=2666686666700000 verified' "the inference pod's work is checked"
like "$out" $'\n +[0-9]+  sbatch +'"$SL_ACCT_JOB_USER"$' +default +node\\[1-2\\] +node1:0,node2:0 ' "summary: the MPI job, both nodes' GPU"
for p in train-a train-b infer; do
  like "$out" $'\n +[0-9]+  default/'"$p"$' +'"$SL_ACCT_JOB_USER"$' +default +node[12] +node[12]:0 +[0-9]+s +[0-9]+s  0:0\n' "summary: pod $p"
done
like "$out" 'no GPU was held by two jobs at once: 5 holdings of 2 \(node, GPU\) pair\(s\) by 4 GPU job\(s\)' \
  "the computed all-clear line"
is "$(SLURM_CONF=$D/etc/slurm.conf sinfo -h -o '%D' 2>&1)" 2 "the cluster keeps running afterwards"
out2=$(SLURMLINK_DIR=$D "$ROOT/scripts/demo.sh" 2>&1; echo "rc=$?")
like "$out2" 'no GPU was held by two jobs at once: 5 holdings.*rc=0$' "a second run in the same folder" ||
  diag "the second run's last lines: $(printf '%s\n' "$out2" | tail -25)"
