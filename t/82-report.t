#!/bin/bash
# covers: src/report/ src/cmd/report.c src/slurmif/acct.c
# 82-report.t — `slurmlink report`, the demo's summary and GPU
# exclusivity check, on fixed inputs (its --sacct table instead of
# accounting, records, a --pods file): a clean load passes
# and prints one line per job; each way a load can be wrong fails with its
# own message: two jobs on one (node, GPU) at overlapping times, a job that
# recorded fewer GPUs than AllocTRES says, a GPU on a node not its own, a GPU
# job not ended, a pod whose node or exit code disagrees with sacct.
# Back-to-back jobs on one GPU (End == next Start) do not overlap.
source "$(dirname "$0")/lib.sh"
plan 20
T=$(tmpdir)
on_exit rm -rf "$T"
H='JobID|JobName|User|Account|NodeList|AllocTRES|Submit|Start|End|ExitCode|State|Comment'
# an MPI job on both nodes' GPU, then two pods, one after the other on node1
cat > "$T/sacct" <<EOF2
$H
10|mpi|alice|hpc|node[1-2]|billing=4,cpu=4,gres/gpu=2,mem=2G,node=2|2026-12-01T10:00:00|2026-12-01T10:00:01|2026-12-01T10:00:20|0:0|COMPLETED|
11|ml/train-a|nobody|default|node1|billing=1,cpu=1,gres/gpu=1,mem=1G,node=1|2026-12-01T10:00:02|2026-12-01T10:00:20|2026-12-01T10:00:30|0:0|COMPLETED|slurmlink:uid=u-a
12|ml/infer|nobody|default|node1|billing=1,cpu=1,gres/gpu=1,mem=1G,node=1|2026-12-01T10:00:03|2026-12-01T10:00:30|2026-12-01T10:00:35|3:0|FAILED|slurmlink:uid=u-b
13|cpu-only|alice|hpc|node2|billing=1,cpu=1,mem=1G,node=1|2026-12-01T10:00:03|2026-12-01T10:00:04|2026-12-01T10:00:05|0:0|COMPLETED|
EOF2
cat > "$T/rec" <<'EOF2'
some output
gpu-record job=10 node=node1 gpu=0
gpu-record job=10 node=node2 gpu=0
2026-12-01T10:00:21Z stdout F gpu-record job=11 node=node1 gpu=0
gpu-record job=12 node=node1 gpu=0
EOF2
pod() { # uid ns name node exit
  printf '{"metadata":{"uid":"%s","namespace":"%s","name":"%s"},"spec":{"nodeName":"%s"},"status":{"containerStatuses":[{"state":{"terminated":{"exitCode":%s}}}]}}' "$@"
}
echo "{\"items\":[$(pod u-a ml train-a node1 0),$(pod u-b ml infer node1 3)]}" > "$T/pods"
run() { "$SLURMLINK" report "$@" 2>&1; echo "rc=$?"; }

out=$(run --sacct "$T/sacct" --records "$T/rec" --pods "$T/pods")
like "$out" 'no GPU was held by two jobs at once: 4 holdings of 2 \(node, GPU\) pair\(s\) by 3 GPU job\(s\).*rc=0$' \
  "a clean load passes (back-to-back on node1 GPU 0 is no overlap)"
like "$out" $'\n +10  sbatch +alice +hpc +node\\[1-2\\] +node1:0,node2:0 +1s +19s  0:0\n' "the MPI job: origin sbatch, both nodes' GPU, wait and run time"
like "$out" $'\n +11  ml/train-a +nobody +default +node1 +node1:0 +18s +10s  0:0\n' "a pod: origin namespace/name from its uid in the comment"
like "$out" $'\n +12  ml/infer .* 3:0\n' "the pod that exited 3"
like "$out" $'\n +13  sbatch .* - +1s +1s  0:0\n' "a job without GPUs is listed with none"

# overlap: the inference pod starts while train-a still runs on node1 GPU 0
sed 's/^12|\(.*\)|2026-12-01T10:00:30|2026-12-01T10:00:35|/12|\1|2026-12-01T10:00:25|2026-12-01T10:00:35|/' "$T/sacct" > "$T/sacct-ov"
out=$(run --sacct "$T/sacct-ov" --records "$T/rec" --pods "$T/pods")
like "$out" 'OVERLAP: node1 GPU 0 held by job 11 \(2026-12-01T10:00:20..2026-12-01T10:00:30\) and job 12 \(2026-12-01T10:00:25' "an overlap is found"
like "$out" 'FAILED: 1 problem\(s\) above.rc=1$' "... and fails"
unlike "$out" 'no GPU was held' "... without the all-clear line"

# the overlap seen only through the records: the MPI job says node1 GPU 0, train-a runs during it
sed 's/^11|\(.*\)|2026-12-01T10:00:20|2026-12-01T10:00:30|/11|\1|2026-12-01T10:00:10|2026-12-01T10:00:30|/' "$T/sacct" > "$T/sacct-ov2"
like "$(run --sacct "$T/sacct-ov2" --records "$T/rec" --pods "$T/pods")" 'OVERLAP: node1 GPU 0 held by job 10 .* and job 11 .*rc=1$' \
  "a pod that starts before the MPI job on its GPU ends is an overlap"
# two different GPUs of one node at once are no overlap
sed 's/job=11 node=node1 gpu=0/job=11 node=node1 gpu=1/' "$T/rec" > "$T/rec-g1"
like "$(run --sacct "$T/sacct-ov2" --records "$T/rec-g1" --pods "$T/pods")" 'no GPU was held.*rc=0$' \
  "two GPUs of one node held at once by two jobs is no overlap"

grep -v 'job=10 node=node2' "$T/rec" > "$T/rec-short"
like "$(run --sacct "$T/sacct" --records "$T/rec-short" --pods "$T/pods")" 'job 10: AllocTRES gres/gpu=2 but it recorded 1 GPU\(s\).*rc=1$' \
  "a job that recorded fewer GPUs than it was given fails"
sed 's/job=12 node=node1/job=12 node=node2/' "$T/rec" > "$T/rec-node"
like "$(run --sacct "$T/sacct" --records "$T/rec-node" --pods "$T/pods")" 'job 12: recorded a GPU on node2, not one of its nodes node1.*rc=1$' \
  "a GPU recorded on a node not the job's fails"
sed 's/|2026-12-01T10:00:35|3:0|FAILED|/|Unknown|0:0|RUNNING|/' "$T/sacct" > "$T/sacct-run"
like "$(run --sacct "$T/sacct-run" --records "$T/rec" --pods "$T/pods")" 'job 12: holds GPUs but has not ended.*rc=1$' \
  "a GPU job that has not ended fails"

echo "{\"items\":[$(pod u-a ml train-a node2 0),$(pod u-b ml infer node1 0)]}" > "$T/pods-bad"
out=$(run --sacct "$T/sacct" --records "$T/rec" --pods "$T/pods-bad")
like "$out" 'job 11: sacct NodeList node1, pod ml/train-a spec.nodeName node2' "a pod on another node than sacct's fails"
like "$out" 'job 12: sacct ExitCode 3:0, pod ml/infer exitCode 0.*rc=1$' "a pod with another exit code than sacct's fails"

like "$(run --sacct /dev/null --records "$T/rec")" 'slurmlink report: /dev/null: empty.rc=2$' "unreadable input: exit 2 with the reason"

# -o json: the same verdict for machines
out=$(run --sacct "$T/sacct" --records "$T/rec" --pods "$T/pods" -o json)
like "$out" '"ok": true,.*"holdings": 4,.*"gpu_pairs": 2,.*"gpu_jobs": 3.*rc=0$' "-o json: ok, with the counts"
like "$(run --sacct "$T/sacct-ov" --records "$T/rec" --pods "$T/pods" -o json)" '"problems": \[[^]]*"OVERLAP: node1 GPU 0 held by job 11 .*"ok": false.*rc=1$' \
  "-o json: the overlap among the problems, not ok, exit 1"
# unreadable input and usage: exit 2 with the reason
like "$(run --dir "$T/none" --records "$T/rec")" 'slurmlink report: slurm.conf [^ ]*/none/etc/slurm.conf: No such file or directory.rc=2$' \
  "no slurm.conf to reach accounting: exit 2 naming the file"
like "$(run --sacct "$T/sacct" --records "$T/rec" --kubeconfig "$T/none.kubeconfig")" "slurmlink report: .*none.kubeconfig.*rc=2\$" \
  "an unreadable kubeconfig: exit 2 naming it"
