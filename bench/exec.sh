#!/bin/bash
# bench-exec.sh — kubectl exec round-trip against a bare Slurm step, in the
# same run on the same cluster (docs/benchmarks-history.md, "kubectl exec"):
#   bench/exec.sh [N]     (N rounds of each, default 20)
# Needs KUBECONFIG and SLURM_CONF of a cluster from `slurmlink up` with the
# busybox image imported; `kubectl get pod` is kubectl's own share (start,
# kubeconfig, TLS, one GET). Creates the pod bench-exec in default, as the
# admin (Unix user nobody), and deletes it at the end. Prints the median
# and p90 of each in milliseconds, and their ratio.
set -euo pipefail
N=${1:-20}
kubectl apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: bench-exec}
spec:
  restartPolicy: Never
  containers:
  - {name: main, image: busybox, command: [sleep, "3600"], resources: {requests: {cpu: 100m, memory: 64Mi}}}
YAML
trap 'kubectl delete pod bench-exec --grace-period=0 --force >/dev/null 2>&1 || true' EXIT
kubectl wait --for=jsonpath='{.status.phase}'=Running pod/bench-exec --timeout=120s >/dev/null
job=$(kubectl get pod bench-exec -o jsonpath='{.metadata.annotations.slurmlink\.io/job-id}')
user=$(squeue -h -j "$job" -o %u)
ms() { local t0 t1; t0=$(date +%s%N); "$@" >/dev/null 2>&1; t1=$(date +%s%N); echo $(((t1 - t0) / 1000000)); }
stats() { sort -n | awk '{a[NR]=$1} END {printf "%d %d\n", a[int((NR+1)/2)], a[int(NR*0.9+0.5)]}'; }
kubectl exec bench-exec -- true # warm caches (kubectl's discovery, the image)
ke=() sr=() kg=()
for _ in $(seq "$N"); do # interleaved: both see the same load
  ke+=("$(ms kubectl exec bench-exec -- true)")
  sr+=("$(ms runuser -u "$user" -- srun --overlap --jobid="$job" --quiet true)")
  kg+=("$(ms kubectl get pod bench-exec)")
done
read -r kmed kp90 < <(printf '%s\n' "${ke[@]}" | stats)
read -r smed sp90 < <(printf '%s\n' "${sr[@]}" | stats)
read -r gmed gp90 < <(printf '%s\n' "${kg[@]}" | stats)
echo "kubectl exec POD -- true:            median $kmed ms, p90 $kp90 ms ($N runs)"
echo "srun --overlap --jobid J true:       median $smed ms, p90 $sp90 ms ($N runs)"
echo "kubectl get pod POD (kubectl alone): median $gmed ms, p90 $gp90 ms ($N runs)"
awk -v a="$kmed" -v b="$smed" 'BEGIN {printf "ratio (median): %.2f\n", a / b}'
