#!/bin/bash
# covers: src/kinds/kubeflow/controller.c src/kinds/pytorchjob/pods.c src/kinds/kubeflow/status.c src/ctl/gang.c src/api/ src/slurmif/acct.c
# slow
# 87-pytorchjob-nodefail.t — a node dies under a PyTorchJob's gang (three
# nodes: slurmlink up --nodes 3): the Worker's first attempt hangs on its
# node, whose slurmd is then killed (SIGKILL, as a crashed host):
#   - Slurm ends the gang's job (NODE_FAIL); the replica that ran on the
#     dead node is Failed with reason NodeLost, its message naming that node;
#     the Master, on a node that is fine, is not said to be NodeLost;
#   - restartPolicy OnFailure restarts the whole gang (condition Restarting,
#     the log's "the gang restarts"), which runs on the two nodes left and
#     Succeeds: two Slurm jobs, the first NODE_FAIL;
#   - `slurmlink up` on the folder brings the node back.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/87-pytorchjob-lib.sh"
plan 10

ptj_need_torch
cluster_up --nodes 3 --cpus 2 --accounting || bail "cluster up --nodes 3"
ptj_setup

FAIL_MODE=hang-once ptj_yaml lost 1 OnFailure | kc apply -f - >/dev/null
# its conditions, polled (Restarting is replaced once the new gang runs)
(while :; do ptj_conds lost; echo; sleep 0.1; done) >"$PTJ/watch" 2>&1 &
on_exit "kill $! 2>/dev/null"
hung() { [ -s "$PTJ/lost/hung" ]; }
ok wait_for 180 hung "the Worker's first attempt hangs on its node"
node=$(cat "$PTJ/lost/hung")
wpod=$(kc get pods -l training.kubeflow.org/job-name=lost,training.kubeflow.org/replica-type=worker -o name)
is "$(jp "$wpod" '{.spec.nodeName}')" "$node" "the Worker pod's nodeName is that node ($node)"
kill -KILL "$(cat "$CL/run/slurmd-$node.pid")"
# the first attempt's pods are replaced at once by the restarted gang's (the
# same names): what they said stays in their Warning Failed events
failed_msg() { kc get events --field-selector "involvedObject.name=$1,reason=Failed" -o jsonpath='{range .items[*]}{.message}{"\n"}{end}'; }
lost() { failed_msg lost-worker-0 | grep -q "Node $node which was running pod lost-worker-0 is unresponsive"; }
ok wait_for 180 lost "the Worker's pod on the dead node failed NodeLost: 'Node $node which was running pod lost-worker-0 is unresponsive'" ||
  diag "$(failed_msg lost-worker-0; squeue -t all; grep 'default/lost' "$CL/log/slurmlinkd.log" | tail)"
master_failed() { failed_msg lost-master-0 | grep -q .; }
wait_for 60 master_failed
unlike "$(failed_msg lost-master-0)" "unresponsive" "the Master, on a node that is fine, failed too, and not as NodeLost ($(failed_msg lost-master-0 | head -1))"
restarting() { grep -q "Restarting=True:PyTorchJobRestarting" "$PTJ/watch"; }
ok wait_for 120 restarting "the PyTorchJob was Restarting (OnFailure)" || diag "$(cat "$PTJ/watch")"
ok kc wait --for=condition=Succeeded pytorchjob/lost --timeout=240s "the gang runs again on the nodes left and Succeeds" ||
  diag "$(ptj_conds lost; squeue -t all; grep 'default/lost' "$CL/log/slurmlinkd.log" | tail)"
like "$(grep 'default/lost' "$CL/log/slurmlinkd.log")" "a replica failed, the gang restarts \(attempt 1\)" "the log: one restart of the whole gang"
unlike "$(ptj_nodes lost)" "$node" "the second attempt's replicas are not on the dead node"
# slurmdbd has the records, and the second job's end, a moment after slurmctld
two() { [ "$(ptj_sacct lost | awk '$3 != "RUNNING" && $3 != "PENDING"' | wc -l)" -ge 2 ]; }
wait_for 60 two
is "$(ptj_sacct lost | awk '{print $3}' | tr '\n' ' ')" "NODE_FAIL COMPLETED " "sacct: the first job NODE_FAIL, the second COMPLETED"
like "$("$SLURMLINK" up --dir "$CL" 2>&1)" "recovering: slurmd-$node will be started" "slurmlink up on the folder starts the dead node's slurmd again"
