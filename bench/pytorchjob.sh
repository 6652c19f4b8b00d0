#!/bin/bash
# pytorchjob.sh — a PyTorchJob (Master + 1 Worker) against the same
# training submitted by `sbatch -N2` + `srun`, on one fresh two-node
# cluster, rounds interleaved (not a test). The training is
# t/87-pytorchjob-train.py (torch.distributed, gloo: an all-reduce and 30
# DDP steps), which prints its wall-clock start and end on every rank.
# Per path and round, from the submission (kubectl apply starting; sbatch
# starting):
#   all started   the later rank's "clock start" (both replicas running the training)
#   Running seen  (PyTorchJob) kubectl get pods shows both pods Running (polled every 100 ms)
#   done          the later rank's "clock end"
# Needs root and python3-torch; prints median (min-max) in milliseconds.
#   bench/pytorchjob.sh [ROUNDS]      default 5
set -eu
ROOT=$(cd "$(dirname "$0")/.." && pwd)
SL=$ROOT/build/slurmlink
ROUNDS=${1:-5}
D=$(mktemp -d /tmp/slb.ptj.XXXXXX)
W=$(mktemp -d /tmp/slb.ptjw.XXXXXX)
OUT=$W/results
trap '"$SL" down --dir "$D" >/dev/null 2>&1; rm -rf "$D" "$W"' EXIT
chmod 755 "$W"
cp "$ROOT/t/87-pytorchjob-train.py" "$W/train.py"
chmod 644 "$W/train.py"
"$SL" up --dir "$D" --nodes 2 --cpus 2 --gpus 0 >/dev/null
export KUBECONFIG=$D/kubeconfig SLURM_CONF=$D/etc/slurm.conf
kc() { kubectl --cache-dir "$W/kcache" "$@"; }
ms() { echo $(($(date +%s%N) / 1000000)); }
clocks() { # which (start|end) < logs: the later rank's, in ms
  awk -v w="$1" '$1 == "clock" && $2 == w {t = int($3 / 1000000); if (t > m) m = t} END {print m}'
}
manifest() {
  sed -n '/^apiVersion/,$p' <<YAML
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: $1, namespace: default}
spec:
  pytorchReplicaSpecs:
$(for t in Master Worker; do cat <<R
    $t:
      replicas: 1
      restartPolicy: OnFailure
      template:
        metadata: {annotations: {slurmlink.io/runtime: host}}
        spec:
          containers:
            - {name: pytorch, image: busybox, command: ["/usr/bin/python3", "$W/train.py"]}
R
done)
YAML
}
run_ptj() { # round
  local name=bench-$1 t0 seen=
  manifest "$name" >"$W/$name.yaml"
  t0=$(ms)
  kc apply -f "$W/$name.yaml" >/dev/null
  while :; do
    ph=$(kc get pods -l "training.kubeflow.org/job-name=$name" -o jsonpath='{.items[*].status.phase}' 2>/dev/null)
    [ -z "$seen" ] && case "$ph" in "Running Running" | *Succeeded*) seen=$(ms) ;; esac
    [ "$(kc get pytorchjob "$name" -o jsonpath='{.status.conditions[-1:].type}')" = Succeeded ] && break
    sleep 0.1
  done
  logs=$(kc logs "$name-master-0"; kc logs "$name-worker-0")
  echo "ptj $1 $(($(clocks start <<<"$logs") - t0)) $((seen - t0)) $(($(clocks end <<<"$logs") - t0))" >>"$OUT"
  kc delete pytorchjob "$name" >/dev/null
}
run_sbatch() { # round
  local t0 id
  cat >"$W/sb.sh" <<SB
#!/bin/bash
export MASTER_ADDR=\$(hostname) MASTER_PORT=23456 WORLD_SIZE=2 PYTHONUNBUFFERED=1
srun bash -c 'RANK=\$SLURM_PROCID exec /usr/bin/python3 $W/train.py'
SB
  t0=$(ms)
  id=$(sbatch --parsable -N2 --ntasks-per-node=1 --output="$W/sb-$1.out" "$W/sb.sh")
  while squeue -h -j "$id" -t PD,R,CG 2>/dev/null | grep -q .; do sleep 0.1; done
  echo "sbatch $1 $(($(clocks start <"$W/sb-$1.out") - t0)) - $(($(clocks end <"$W/sb-$1.out") - t0))" >>"$OUT"
}
echo "$(nproc) cores, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg), $ROUNDS rounds (+1 warm-up)"
for ((r = 0; r <= ROUNDS; r++)); do
  run_ptj "$r"
  run_sbatch "$r"
done
/usr/bin/python3 - "$OUT" <<'PY'
import collections, statistics, sys
rows = collections.defaultdict(lambda: collections.defaultdict(list))
for line in open(sys.argv[1]):
    path, rnd, *vals = line.split()
    if rnd == "0":
        continue  # warm-up
    for name, v in zip(("all started", "Running seen", "done"), vals):
        if v != "-":
            rows[path][name].append(int(v))
for path in ("ptj", "sbatch"):
    label = {"ptj": "PyTorchJob (kubectl apply)", "sbatch": "sbatch -N2 + srun"}[path]
    cells = [f"{k} {statistics.median(v):.0f} ({min(v)}-{max(v)})" for k, v in rows[path].items()]
    print(f"{label:28s} " + "  ".join(cells) + " ms")
PY
