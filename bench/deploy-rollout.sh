#!/bin/bash
# deploy-rollout.sh — a Deployment of 2 replicas (a long-running busybox
# container) against the same two long-running jobs started by sbatch, on
# one local cluster in one run (not a test; docs/benchmarks.md):
#   - sbatch: two `sbatch --wrap` jobs, from the first submission until both
#     run (each touches a file when it starts);
#   - create: `kubectl create -f` of the Deployment until 2 replicas are
#     available (each pod Ready: its container started);
#   - rollout: `kubectl rollout restart` until the new ReplicaSet's 2
#     replicas are available and the old ones are gone (rollout status).
# Each measured ROUNDS times (default 5), medians printed with the ratios
# to the sbatch baseline of the same run. Plain build; needs root.
#   bench/deploy-rollout.sh [ROUNDS]
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SL=$ROOT/build/slurmlink
R=${1:-5}
CL=$(mktemp -d /tmp/slb.deploy.XXXXXX)
trap '"$SL" down --dir "$CL" >/dev/null 2>&1; rm -rf "$CL"' EXIT
SLURMLINKD=$ROOT/build/slurmlinkd "$SL" up --dir "$CL" --cpus 8 >"$CL.up.log" 2>&1 ||
  { cat "$CL.up.log" >&2; rm -f "$CL.up.log"; exit 1; }
rm -f "$CL.up.log"
export SLURM_CONF=$CL/etc/slurm.conf KUBECONFIG=$CL/kubeconfig
"$SL" image import busybox --busybox --store "$CL/images" >/dev/null
kc() { kubectl --cache-dir "$CL/kcache" "$@"; }
ms() { echo $(($(date +%s%N) / 1000000)); }
median() { sort -n | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : int((v[NR / 2] + v[NR / 2 + 1]) / 2)}'; }
no_jobs() { [ -z "$(squeue -h -o %i)" ]; }
wait_until() { until "$@"; do sleep 0.05; done; }

mkdir -p "$CL/marks" && chmod 777 "$CL/marks"
kc get pods >/dev/null 2>&1 # kubectl's discovery cache warm
cat >"$CL/d.yaml" <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: bench}
spec:
  replicas: 2
  selector: {matchLabels: {app: bench}}
  template:
    metadata: {labels: {app: bench}}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - {name: c, image: busybox, command: [sleep, "100000"], resources: {requests: {cpu: 100m}}}
YAML
available() { [ "$(kc get deploy bench -o jsonpath='{.status.availableReplicas}')" = 2 ]; }
sb= cr= ro=
for i in $(seq 1 "$R"); do
  rm -f "$CL/marks"/*
  t0=$(ms)
  for j in 1 2; do sbatch -Q -o /dev/null --wrap "touch $CL/marks/\$SLURM_JOB_ID; exec sleep 100000" >/dev/null; done
  wait_until eval '[ "$(ls "$CL/marks" | wc -l)" -ge 2 ]'
  sb="$sb $(($(ms) - t0))"
  scancel -u "$(id -un)" 2>/dev/null || true
  wait_until no_jobs

  t0=$(ms)
  kc create -f "$CL/d.yaml" >/dev/null
  wait_until available
  cr="$cr $(($(ms) - t0))"
  t0=$(ms)
  kc rollout restart deployment/bench >/dev/null
  kc rollout status deployment/bench --timeout=300s >/dev/null
  wait_until eval '[ "$(kc get pods -l app=bench --no-headers 2>/dev/null | wc -l)" = 2 ]'
  ro="$ro $(($(ms) - t0))"
  kc delete deployment bench --wait=false >/dev/null
  wait_until eval '[ -z "$(kc get pods -l app=bench -o name 2>/dev/null)" ]'
  wait_until no_jobs
done
s=$(echo $sb | tr ' ' '\n' | median) c=$(echo $cr | tr ' ' '\n' | median) r=$(echo $ro | tr ' ' '\n' | median)
echo "sbatch, 2 jobs until both run (ms):$sb; median $s"
echo "Deployment create until 2 available (ms):$cr; median $c; ratio $(awk -v a="$c" -v b="$s" 'BEGIN {printf "%.2f", a / b}')"
echo "rollout restart until complete (ms):$ro; median $r; ratio $(awk -v a="$r" -v b="$s" 'BEGIN {printf "%.2f", a / b}')"
