#!/bin/bash
# covers: src/kinds/kubeflow/controller.c src/kinds/pytorchjob/pods.c src/kinds/kubeflow/status.c src/ctl/gang.c src/api/ src/slurmif/acct.c
# 87-pytorchjob-nodes4.t — PyTorchJob gangs on a real four-node cluster
# (slurmlink up --nodes 4, one CPU per node, so a gang holds its nodes):
#   - Master + 3 Workers: a torch.distributed all-reduce over four nodes
#     (sum 10 in every replica's log), four distinct nodes, ONE Slurm job
#     with NNodes 4;
#   - a gang that cannot start while another holds every node: each of its
#     replica pods Pending with Slurm's reason, then it runs when the nodes
#     free;
#   - more replicas than the cluster has nodes, which do not fit two on a
#     node (one CPU each): Slurm refuses the job, and every replica pod says
#     so; the PyTorchJob Failed (t/87-pytorchjob-packed.t: when they fit,
#     several replicas share a node);
#   - slurmlinkd killed right after the gang's submission (fault point
#     after-gang-submit) and kill -9 while a gang runs: after the restart
#     the job is adopted, never submitted twice, and succeeds.
# Needs the ASan build (make asan: -DSL_FAULT_INJECTION).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/87-pytorchjob-lib.sh"
plan 17

ptj_need_torch
cluster_up --nodes 4 --cpus 1 --gpus 0 --accounting || bail "cluster up --nodes 4"
ptj_setup
daemon_pid() { cat "$CL/run/slurmlinkd.pid"; }
dead() { ! kill -0 "$1" 2>/dev/null; }
phases() { kc get pods -l "training.kubeflow.org/job-name=$1" -o jsonpath='{range .items[*]}{.status.phase} {end}'; }

# --- four replicas, four nodes, one job -----------------------------------------------------------
ptj_yaml four 3 OnFailure | kc apply -f - >/dev/null
ok kc wait --for=condition=Succeeded pytorchjob/four --timeout=150s "Master + 3 Workers: Succeeded"
sums=$(for p in four-master-0 four-worker-0 four-worker-1 four-worker-2; do kc logs "$p" | grep -o 'rank [0-9]/4 on node[0-9]: all_reduce 10'; done | wc -l)
is "$sums" 4 "every replica's log: rank r/4, all_reduce of rank+1 is 10"
is "$(ptj_nodes four | tr ' ' '\n' | grep . | sort -u | wc -l)" 4 "four distinct nodes ($(ptj_nodes four))"
wait_for 30 ptj_recorded four
is "$(ptj_sacct four | awk '{print NR, $2}' | tail -1)" "1 4" "sacct: ONE Slurm job, NNodes 4"

# --- a gang waits, all together, with Slurm's reason ------------------------------------------------
SLEEP=600 ptj_yaml hold 3 OnFailure | kc apply -f - >/dev/null
held() { [ "$(phases hold)" = "Running Running Running Running " ]; }
ok wait_for 120 held "a gang of four holds every node"
ptj_yaml waiter 1 OnFailure | kc apply -f - >/dev/null
wid() { ptj_sacct waiter | awk '{print $1}'; }
reason() { squeue -h -j "$(wid)" -o '%r' 2>/dev/null; }
pend_msgs() { kc get pods -l training.kubeflow.org/job-name=waiter -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="PodScheduled")].message}{"\n"}{end}'; }
both_pending() { [ -n "$(wid)" ] && [ "$(pend_msgs | grep -c "Slurm job $(wid) is pending: $(reason)")" = 2 ]; }
squeue_pending() { [ "$(squeue -h -t PD -o '%j' | grep -c '^default/waiter$')" = 1 ]; }
wait_for 60 squeue_pending
ok wait_for 60 both_pending "the waiting gang: both replica pods Pending with Slurm's reason ($(reason))"
is "$(phases waiter)" "Pending Pending " "... neither starts alone"
kc delete pytorchjob hold >/dev/null
ok kc wait --for=condition=Succeeded pytorchjob/waiter --timeout=150s "the nodes freed: the waiting gang runs and succeeds"

# --- more replicas than nodes -------------------------------------------------------------------------
ptj_yaml five 4 OnFailure | kc apply -f - >/dev/null
ok kc wait --for=condition=Failed pytorchjob/five --timeout=60s "five replicas on four one-CPU nodes: Failed"
msgs=$(kc get pods -l training.kubeflow.org/job-name=five -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="PodScheduled")].message}{"\n"}{end}')
is "$(grep -c "Slurm refused the gang's job: " <<<"$msgs")" 5 "every replica pod gives Slurm's reason ($(head -1 <<<"$msgs"))"

# --- slurmlinkd killed right after the submission --------------------------------------------------
ok restart_with_fault after-gang-submit:1 "slurmlinkd restarts with SLURMLINKD_FAULT=after-gang-submit:1"
armed=$(daemon_pid)
ptj_yaml crash 1 OnFailure | kc apply -f - >/dev/null
ok wait_for 60 dead "$armed" "slurmlinkd is killed at the fault point"
first=$(squeue -h -t all -o '%i %j' | awk '$2 == "default/crash" {print $1}')
ok "$SLURMLINK" up --dir "$CL" "slurmlinkd starts again"
ok kc wait --for=condition=Succeeded pytorchjob/crash --timeout=150s "the gang succeeds"
wait_for 30 ptj_recorded crash
is "$(ptj_sacct crash | awk '{print $1}' | tr '\n' ' ')|$(grep -c "adopted Slurm job $first" "$CL/log/slurmlinkd.log")" "$first |1" \
  "one Slurm job, the one submitted before the kill, adopted ($first)"

# --- kill -9 while a gang runs ---------------------------------------------------------------------------
SLEEP=15 ptj_yaml mid 3 OnFailure | kc apply -f - >/dev/null
wait_for 120 eval '[ "$(phases mid)" = "Running Running Running Running " ]'
victim=$(daemon_pid); kill -9 "$victim"; wait_for 30 dead "$victim"
"$SLURMLINK" up --dir "$CL" >/dev/null 2>&1
ok kc wait --for=condition=Succeeded pytorchjob/mid --timeout=150s "kill -9 mid-gang, restarted: the gang succeeds"
wait_for 30 ptj_recorded mid
is "$(ptj_sacct mid | wc -l)" 1 "... as ONE Slurm job, never submitted again"
