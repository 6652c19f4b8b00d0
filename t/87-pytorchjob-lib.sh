# 87-pytorchjob-lib.sh — what the PyTorchJob cluster tests share: the
# training script in a folder the jobs' user can read, and a PyTorchJob
# manifest in the Training Operator's example style.
#   ptj_setup                      → $PTJ (the folder), kc, jp
#   ptj_yaml NAME WORKERS POLICY   (env: FAIL_MODE, BACKOFF, SLEEP: a sleep instead of training,
#                                   RP, RP2: more runPolicy lines, "ttlSecondsAfterFinished: 0")
ptj_setup() {
  PTJ=$(tmpdir)
  on_exit "rm -rf '$PTJ'"
  chmod 1777 "$PTJ"
  cp "$(dirname "${BASH_SOURCE[0]}")/87-pytorchjob-train.py" "$PTJ/train.py"
  chmod 644 "$PTJ/train.py"
}
kc() { kubectl --cache-dir "$CL/kcache" "$@"; }
jp() { kc get "$1" -o jsonpath="$2" 2>&1; }
ptj_yaml() {
  local name=$1 workers=$2 policy=$3 cmd
  if [ -n "${SLEEP:-}" ]; then cmd="[\"sleep\", \"$SLEEP\"]"; else cmd="[\"/usr/bin/python3\", \"$PTJ/train.py\"]"; fi
  mkdir -p "$PTJ/$name" && chmod 1777 "$PTJ/$name"
  cat <<YAML
apiVersion: "kubeflow.org/v1"
kind: PyTorchJob
metadata:
  name: $name
  namespace: default
spec:
  runPolicy:
    backoffLimit: ${BACKOFF:-3}${RP:+
    $RP}${RP2:+
    $RP2}
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: $policy
      template:
        metadata:
          annotations: {slurmlink.io/runtime: host}
        spec:
          containers:
            - name: pytorch
              image: busybox
              command: $cmd
    Worker:
      replicas: $workers
      restartPolicy: $policy
      template:
        metadata:
          annotations: {slurmlink.io/runtime: host}
        spec:
          containers:
            - name: pytorch
              image: busybox
              command: $cmd
              env:
                - {name: FAIL_MODE, value: "${FAIL_MODE:-}"}
                - {name: FAIL_DIR, value: "$PTJ/$name"}
YAML
}
# the Slurm jobs (sacct, allocations only) named namespace/NAME: "JOBID NNODES STATE" lines
ptj_sacct() { sacct -n -X -P --format=JobID,JobName,NNodes,State | awk -F'|' -v n="default/$1" '$2 == n {print $1, $3, $4}'; }
ptj_nodes() { kc get pods -l "training.kubeflow.org/job-name=$1" -o jsonpath='{range .items[*]}{.spec.nodeName} {end}'; }
ptj_conds() { jp "pytorchjob/$1" '{range .status.conditions[*]}{.type}={.status}:{.reason} {end}'; }
