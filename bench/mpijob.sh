#!/bin/bash
# mpijob.sh — an MPIJob (Launcher + 2 Workers, mpirun -n 2) against the
# same mpi4py all-reduce submitted by `sbatch -N2` + `srun --mpi=pmix`, on
# one fresh two-node cluster, rounds interleaved (not a test). Each rank
# prints its wall-clock at start (before MPI_Init) and after the
# all-reduce. Per path and round, from the submission (kubectl apply
# starting; sbatch starting):
#   all started   the later rank's "clock start" (both ranks running)
#   done          the later rank's "clock end" (the all-reduce done on both)
# Needs root, OpenMPI and python3-mpi4py; prints median (min-max) in ms.
#   bench/mpijob.sh [ROUNDS]      default 5
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SL=$ROOT/build/slurmlink
ROUNDS=${1:-5}
D=$(mktemp -d /tmp/slb.mpi.XXXXXX)
W=$(mktemp -d /tmp/slb.mpiw.XXXXXX)
OUT=$W/results
trap '"$SL" down --dir "$D" >/dev/null 2>&1; rm -rf "$D" "$W"' EXIT
chmod 755 "$W"
cat >"$W/allreduce.py" <<'PY'
import time
print("clock start", time.time_ns(), flush=True)
from mpi4py import MPI
s = MPI.COMM_WORLD.allreduce(MPI.COMM_WORLD.Get_rank() + 1, op=MPI.SUM)
print("clock end", time.time_ns(), "sum", s, flush=True)
PY
chmod 644 "$W/allreduce.py"
"$SL" up --dir "$D" --nodes 2 --cpus 2 --gpus 0 >/dev/null
export KUBECONFIG=$D/kubeconfig SLURM_CONF=$D/etc/slurm.conf
kc() { kubectl --cache-dir "$W/kcache" "$@"; }
ms() { echo $(($(date +%s%N) / 1000000)); }
clocks() { # which (start|end) < logs: the later rank's, in ms
  awk -v w="$1" '$1 == "clock" && $2 == w {t = int($3 / 1000000); if (t > m) m = t} END {print m}'
}
manifest() {
  cat <<YAML
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata: {name: $1, namespace: default}
spec:
  mpiReplicaSpecs:
    Launcher:
      template:
        metadata: {annotations: {slurmlink.io/runtime: host}}
        spec:
          containers:
            - {name: l, image: busybox, command: ["mpirun", "--allow-run-as-root", "-n", "2", "/usr/bin/python3", "$W/allreduce.py"]}
    Worker:
      replicas: 2
      template:
        metadata: {annotations: {slurmlink.io/runtime: host}}
        spec:
          containers:
            - {name: w, image: busybox, command: ["sleep", "600"]}
YAML
}
run_mpijob() { # round
  local name=bench-$1 t0
  manifest "$name" >"$W/$name.yaml"
  t0=$(ms)
  kc apply -f "$W/$name.yaml" >/dev/null
  until [ "$(kc get mpijob "$name" -o jsonpath='{.status.conditions[-1:].type}')" = Succeeded ]; do sleep 0.1; done
  logs=$(kc logs "$name-launcher")
  echo "mpijob $1 $(($(clocks start <<<"$logs") - t0)) $(($(clocks end <<<"$logs") - t0))" >>"$OUT"
  kc delete mpijob "$name" >/dev/null
}
run_sbatch() { # round
  local t0 id
  t0=$(ms)
  id=$(sbatch --parsable -N2 --ntasks-per-node=1 --output="$W/sb-$1.out" \
    --wrap "srun --mpi=pmix /usr/bin/python3 $W/allreduce.py")
  while squeue -h -j "$id" -t PD,R,CG 2>/dev/null | grep -q .; do sleep 0.1; done
  echo "sbatch $1 $(($(clocks start <"$W/sb-$1.out") - t0)) $(($(clocks end <"$W/sb-$1.out") - t0))" >>"$OUT"
}
echo "$(nproc) cores, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg), $ROUNDS rounds (+1 warm-up)"
for ((r = 0; r <= ROUNDS; r++)); do
  run_mpijob "$r"
  run_sbatch "$r"
done
/usr/bin/python3 - "$OUT" <<'PY'
import collections, statistics, sys
rows = collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(sys.argv[1]):
    path, rnd, *vals = line.split()
    if rnd == "0":
        continue  # warm-up
    for name, v in zip(("all started", "done"), vals):
        rows[path][name].append(int(v))
for path in ("mpijob", "sbatch"):
    label = {"mpijob": "MPIJob (kubectl apply)", "sbatch": "sbatch -N2 + srun --mpi=pmix"}[path]
    cells = [f"{k} {statistics.median(v):.0f} ({min(v)}-{max(v)})" for k, v in rows[path].items()]
    print(f"{label:30s} " + "  ".join(cells) + " ms")
PY
