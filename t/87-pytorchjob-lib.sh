# 87-pytorchjob-lib.sh — what the PyTorchJob cluster tests share: the
# training script in a folder the jobs' user can read, and a PyTorchJob
# manifest in the Training Operator's example style.
#   ptj_need_torch [MODULE]        bail unless Debian's torch has gloo (and MODULE imports)
#   ptj_setup                      → $PTJ (the folder), kc, jp
#   ptj_recorded NAME [N]          sacct holds N (default 1) jobs of PyTorchJob NAME
#   ptj_yaml NAME WORKERS POLICY   (env: FAIL_MODE, BACKOFF, SLEEP: a sleep instead of training,
#                                   RP, RP2: more runPolicy lines, "ttlSecondsAfterFinished: 0")
ptj_need_torch() {
  /usr/bin/python3 -c "import ${1:+$1, }torch.distributed as d; assert d.is_gloo_available()" 2>/dev/null ||
    bail "python3-torch with gloo is missing (scripts/deps.sh installs python3-torch)"
}
ptj_setup() {
  PTJ=$(tmpdir)
  on_exit "rm -rf '$PTJ'"
  chmod 1777 "$PTJ"
  cp "$(dirname "${BASH_SOURCE[0]}")/87-pytorchjob-train.py" "$PTJ/train.py"
  chmod 644 "$PTJ/train.py"
}
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
# slurmdbd has a job's record a moment after slurmctld
ptj_recorded() { [ "$(ptj_sacct "$1" | wc -l)" -ge "${2:-1}" ]; }
ptj_nodes() { kc get pods -l "training.kubeflow.org/job-name=$1" -o jsonpath='{range .items[*]}{.spec.nodeName} {end}'; }
ptj_conds() { jp "pytorchjob/$1" '{range .status.conditions[*]}{.type}={.status}:{.reason} {end}'; }
