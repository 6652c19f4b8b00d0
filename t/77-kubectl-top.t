#!/bin/bash
# covers: src/api/ src/metrics/ src/shimlib/usage.c src/shim/status.c
# 77-kubectl-top.t — kubectl top node and top pod against slurmlinkd on a
# real Slurm cluster: metrics.k8s.io/v1beta1 NodeMetrics from Slurm's node
# data (CPU: slurmd's load average; memory: what Slurm allocated to jobs),
# for admins and tenants (the cluster's read rule); PodMetrics from the
# usage the pods' shims push (CPU time and resident memory of each
# container's processes), through kubectl 1.30, 1.32 and 1.33: a pod
# burning CPU shows CPU and memory, --containers its container, -A the
# admin's view; a tenant cannot read another tenant's pod metrics; a pod
# that is not running has none (404 with kube's text).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/61-security-lib.sh"

plan 27
KBIN=/usr/lib/google-cloud-sdk/bin
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
# --- kubectl top pod -----------------------------------------------------------------
# burn: a busy loop holding ~20 MB in a shell variable; done1 ends at once
kc alice create -f - >/dev/null 2>&1 <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: burn, labels: {app: burn}}
spec:
  restartPolicy: Never
  containers:
  - name: main
    image: busybox
    command: ["sh", "-c", "x=$(head -c 20000000 /dev/zero | tr '\\0' a); while :; do :; done"]
    resources: {requests: {cpu: "1", memory: 256Mi}}
YAML
printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"done1"},"spec":{"restartPolicy":"Never","containers":[{"name":"main","image":"busybox","command":["true"]}]}}' \
  | kc alice create -f - >/dev/null 2>&1
PM=/apis/metrics.k8s.io/v1beta1/namespaces/team-a/pods
has_metrics() { kc alice get --raw "$PM/burn" >/dev/null 2>&1; }
ok wait_for 60 has_metrics "the running pod burn gets PodMetrics (two usage samples of its shim)"
m=$(kc alice get --raw "$PM/burn" 2>&1)
is "$(jq -r '[.kind, .apiVersion, .metadata.name, .metadata.namespace, .metadata.labels.app, (.containers | map(.name) | join(","))] | join(" ")' <<<"$m")" \
  "PodMetrics metrics.k8s.io/v1beta1 burn team-a burn main" "PodMetrics: kind, name, namespace, the pod's labels, its container"
cpu_n=$(jq -r '.containers[0].usage.cpu' <<<"$m" | sed -n 's/^\([0-9]*\)n$/\1/p')
mem_ki=$(jq -r '.containers[0].usage.memory' <<<"$m" | sed -n 's/^\([0-9]*\)Ki$/\1/p')
diag "burn: usage $(jq -c '.containers[0].usage' <<<"$m"), window $(jq -r .window <<<"$m")"
ok test "${cpu_n:-0}" -gt 0 "usage.cpu in nanocores, the busy loop's, above 0: ${cpu_n:-none}n"
ok test "${mem_ki:-0}" -gt 10240 "usage.memory in Ki, over 10 MiB (the shell holds 20 MB): ${mem_ki:-none}Ki"
like "$(jq -r '.timestamp + " " + .window' <<<"$m")" '^[0-9-]+T[0-9:]+Z [0-9]+(\.[0-9]+)?s$' "timestamp and window (a Go duration)"
for v in 1.30 1.32 1.33; do
  k="$KBIN/kubectl.$v --kubeconfig $CL/alice.kc --cache-dir $CL/cache-$v"
  out=$($k top pod burn 2>&1)
  like "$out" $'^NAME +CPU\\(cores\\) +MEMORY\\(bytes\\) *\nburn +[1-9][0-9]*m +[1-9][0-9]*Mi *$' "kubectl $v top pod burn: CPU and memory above 0"
  out=$($k top pod --containers 2>&1)
  like "$out" $'^POD +NAME +CPU\\(cores\\) +MEMORY\\(bytes\\) *\n(.*\n)*burn +main +[1-9][0-9]*m +[1-9][0-9]*Mi *' "kubectl $v top pod --containers: the container of burn"
done
out=$(kc alice top pod -l app=burn 2>&1)
like "$out" $'\nburn ' "top pod -l app=burn: burn"
unlike "$out" $'\npa ' "... and not pa (labelSelector)"
like "$(ka top pod -A 2>&1)" $'\nteam-a +burn +[1-9][0-9]*m' "admin: top pod -A names the namespace"
# --- another tenant, a finished pod --------------------------------------------------------
out=$(kc bob top pod burn -n team-a 2>&1)
like "$out" 'Forbidden.*cannot get resource "pods" in API group "metrics.k8s.io" in the namespace "team-a"' "bob: top pod burn -n team-a is forbidden (403)"
like "$(kc bob get --raw "$PM" 2>&1)" 'Forbidden' "bob: alice's namespace's PodMetricsList is forbidden"
like "$(kc bob top pod -A 2>&1)" 'Forbidden' "bob: top pod -A (every namespace) is forbidden"
done1_over() { [ "$(kc alice get pod done1 -o jsonpath='{.status.phase}' 2>/dev/null)" = Succeeded ]; }
ok wait_for 60 done1_over "done1 succeeded"
like "$(kc alice get --raw "$PM/done1" 2>&1)" 'podmetrics.metrics.k8s.io "done1" not found' "a finished pod: 404 with kube's text"
unlike "$(kc alice get --raw "$PM" 2>&1)" '"done1"' "... and absent from the list"
