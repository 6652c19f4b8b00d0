#!/bin/bash
# covers: src/api/ src/metrics/
# 77-kubectl-top.t — kubectl top node against slurmlinkd on a real Slurm
# cluster: metrics.k8s.io/v1beta1 NodeMetrics from Slurm's node data (CPU:
# slurmd's load average; memory: what Slurm allocated to jobs), for admins
# and tenants (the cluster's read rule). kubectl top pod is not served (no
# public libslurm API for a running job's usage): kubectl says so.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/61-security-lib.sh"

plan 9
sec_two_tenants --token || bail "two tenants: Unix users, slurmlink up, the image, kubeconfigs, namespaces"

N=$(ka get nodes -o jsonpath='{.items[0].metadata.name}')
alloc_mem() { scontrol show node "$N" | grep -o 'AllocMem=[0-9]*' | cut -d= -f2; }

out=$(ka top node 2>&1); rc=$?
like "$rc: $out" $'^0: NAME +CPU\\(cores\\) +CPU\\(?%\\)? +MEMORY\\(bytes\\) +MEMORY\\(?%\\)? *\n'"$N"' +[0-9]+m +[0-9]+% +[0-9]+Mi +[0-9]+% *$' "admin: kubectl top node"
like "$(kc alice top node "$N" 2>&1)" "^NAME .*"$'\n'"$N " "alice (the cluster's read rule): kubectl top node $N"

# memory is Slurm's allocation: a pod's job with 64Mi moves it
printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"pa"},"spec":{"restartPolicy":"Never","containers":[{"name":"main","image":"busybox","command":["sleep","600"],"resources":{"requests":{"cpu":"1","memory":"64Mi"}}}]}}' \
  | kc alice create -f - >/dev/null 2>&1
running() { [ "$(kc alice get pod pa -o jsonpath='{.status.phase}' 2>/dev/null)" = Running ]; }
ok wait_for 60 running "alice's pod runs (64Mi requested)"
m=$(ka get --raw "/apis/metrics.k8s.io/v1beta1/nodes/$N" 2>&1)
is "$(jq -r '.kind + " " + .metadata.name + " " + .usage.memory' <<<"$m")" "NodeMetrics $N $(alloc_mem)Mi" \
  "NodeMetrics: usage.memory is Slurm's AllocMem of the node"
like "$(jq -r .usage.cpu <<<"$m")" '^[0-9]+m$' "usage.cpu in millicores (slurmd's load average)"
is "$(jq -r .kind <<<"$(ka get --raw /apis/metrics.k8s.io/v1beta1/nodes)")" "NodeMetricsList" "the list"
like "$(ka get --raw /apis/metrics.k8s.io/v1beta1/nodes/nope 2>&1)" 'NotFound' "an unknown node: 404"
like "$(kc alice top pod 2>&1)" 'NotFound' "kubectl top pod: not served, kubectl says so (404)"
out=$(kc alice get --raw /apis/metrics.k8s.io/v1beta1/namespaces/team-a/pods 2>&1)
like "$out" 'NotFound' "PodMetrics: 404"
