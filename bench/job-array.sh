#!/bin/bash
# job-array.sh — an Indexed Job of N completions (parallelism P, a no-op
# busybox container) against the same work as ONE `sbatch --array=0-(N-1)%P`
# of a no-op script, on one local cluster in one run (not a test): the
# submission's acknowledgement, the time until every task is done, the
# Slurm submissions (arrays in sacct's view of squeue), slurmlinkd's RSS
# before and after, the most unfinished pods seen at once (pods are made
# lazily: at most P) and the pods stored. Plain build; needs root.
#   bench/job-array.sh [N] [P]          default: 1000 completions, parallelism 50
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SL=$ROOT/build/slurmlink
N=${1:-1000}
P=${2:-50}
CL=$(mktemp -d /tmp/slb.array.XXXXXX)
trap '"$SL" down --dir "$CL" >/dev/null 2>&1; rm -rf "$CL"' EXIT
SLURMLINKD=$ROOT/build/slurmlinkd "$SL" up --dir "$CL" --cpus "$P" >"$CL.up.log" 2>&1 ||
  { cat "$CL.up.log" >&2; rm -f "$CL.up.log"; exit 1; }
rm -f "$CL.up.log"
export SLURM_CONF=$CL/etc/slurm.conf KUBECONFIG=$CL/kubeconfig
"$SL" image import busybox --busybox --store "$CL/images" >/dev/null
kc() { kubectl --cache-dir "$CL/kcache" "$@"; }
ms() { echo $(($(date +%s%N) / 1000000)); }
rss() { awk '/^VmRSS/ {print $2}' "/proc/$(cat "$CL/run/slurmlinkd.pid")/status"; }

# --- sbatch --array -----------------------------------------------------------------------------
mkdir -p "$CL/marks" && chmod 777 "$CL/marks"
t0=$(ms)
sbatch --parsable -Q -o /dev/null --array="0-$((N - 1))%$P" \
  --wrap "touch $CL/marks/\$SLURM_ARRAY_TASK_ID" >/dev/null
t1=$(ms)
until [ "$(find "$CL/marks" -type f | wc -l)" -ge "$N" ]; do sleep 0.2; done
t2=$(ms)
echo "sbatch --array=0-$((N - 1))%$P: ack $((t1 - t0)) ms, all $N tasks done $((t2 - t0)) ms, 1 submission"

# --- the Indexed Job ----------------------------------------------------------------------------
kc get pods >/dev/null 2>&1 # kubectl's discovery cache warm, as for sbatch's nothing
r0=$(rss)
cat >"$CL/job.yaml" <<YAML
apiVersion: batch/v1
kind: Job
metadata: {name: bench}
spec:
  completions: $N
  parallelism: $P
  completionMode: Indexed
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: c, image: busybox, command: ["true"], resources: {requests: {cpu: 100m}}}
YAML
t0=$(ms)
kc create -f "$CL/job.yaml" >/dev/null
t1=$(ms)
peak=0 upeak=0
until [ "$(kc get job bench -o jsonpath='{.status.succeeded}')" = "$N" ]; do
  r=$(rss)
  [ "$r" -gt "$peak" ] && peak=$r
  u=$(kc get pods -l job-name=bench --field-selector=status.phase!=Succeeded,status.phase!=Failed --no-headers 2>/dev/null | wc -l)
  [ "$u" -gt "$upeak" ] && upeak=$u
  sleep 0.5
done
t2=$(ms)
r1=$(rss)
pods=$(kc get pods -l job-name=bench --no-headers | wc -l)
arrays=$(kc get job bench -o jsonpath='{.metadata.annotations.slurmlink\.io/slurm-arrays}' | tr ',' '\n' | grep -c .)
echo "Job $N/$P: ack $((t1 - t0)) ms, all $N succeeded $((t2 - t0)) ms, $arrays submission(s), $pods pods stored, at most $upeak unfinished at once"
echo "slurmlinkd RSS: $r0 kB before, $peak kB peak while it ran, $r1 kB after"
