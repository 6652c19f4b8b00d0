#!/bin/bash
# covers: src/kinds/kubeflow/controller.c src/kinds/pytorchjob/pods.c src/kinds/kubeflow/status.c src/ctl/gang.c src/api/ src/slurmif/acct.c
# 87-pytorchjob-packed.t — a PyTorchJob with more replicas than the cluster
# has nodes (Kubeflow's sendrecv example: 4 replicas; here 2 nodes) runs
# as ONE Slurm job of as many nodes as there are, several replicas per node
# (as `srun -n 4 -N 2` places tasks): Master + 3 Workers train together
# (world size 4, the all-reduce of rank+1 is 10), each pod on its node.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/87-pytorchjob-lib.sh"
plan 6

ptj_need_torch
cluster_up --nodes 2 --cpus 2 --accounting || bail "cluster up --nodes 2"
ptj_setup
ptj_yaml four 3 OnFailure | kc apply -f - >/dev/null
ended() { ptj_conds four | grep -qE '(Succeeded|Failed)=True'; }
wait_for 240 ended
like "$(ptj_conds four)" "Succeeded=True" "4 replicas on 2 nodes: the PyTorchJob succeeds" ||
  diag "$(kc get pods -l training.kubeflow.org/job-name=four -o jsonpath='{range .items[*]}{.metadata.name} {.status.phase} {.status.message}{"\n"}{end}' 2>&1)"
like "$(kc logs four-master-0 2>&1)" "rank 0/4 on node[12]: all_reduce 10" "the Master: world 4, all_reduce of rank+1 is 10"
like "$(kc logs four-worker-2 2>&1)" "rank 3/4 on node[12]: all_reduce 10" "the last Worker: rank 3 of the same world"
wait_for 30 ptj_recorded four
is "$(ptj_sacct four | awk '{print $2}' | tr '\n' ' ')" "2 " "ONE Slurm job of the 2 nodes"
is "$(ptj_nodes four | tr ' ' '\n' | grep . | sort | uniq -c | awk '{print $1}' | tr '\n' ' ')" "2 2 " \
  "two replicas on each node, each pod naming its node ($(ptj_nodes four))"
# where each replica ran (its own log names the host) is the node its pod names
where() {
  local p n log out=""
  for p in four-master-0 four-worker-0 four-worker-1 four-worker-2; do
    n=$(kc get pod "$p" -o jsonpath='{.spec.nodeName}')
    log=$(kc logs "$p" 2>&1)
    grep -q "on $n: all_reduce" <<<"$log" || out+="$p(pod: $n, log: $(grep -o 'on node[0-9]*' <<<"$log" | head -1)) "
  done
  echo "${out:-all}"
}
is "$(where)" all "each replica ran on the node its pod names" ||
  diag "$(sacct -n -P --format=JobID,JobName,NodeList -j "$(ptj_sacct four | awk '{print $1}')" 2>&1)"
