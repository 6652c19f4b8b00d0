#!/bin/bash
# covers: src/kinds/kubeflow/controller.c src/kinds/pytorchjob/pods.c src/kinds/kubeflow/status.c src/ctl/gang.c src/api/ src/slurmif/acct.c
# 87-pytorchjob-backoff.t — a PyTorchJob that always crashes, as Kubeflow's
# training-operator runs it: runPolicy.backoffLimit restarts and no more,
# each after a back-off (10 s, doubling), the failed attempt's pods kept
# (Failed, their logs readable) until the next attempt replaces them, and
# the operator's events on the PyTorchJob.
#   - backoffLimit 2, restartPolicy OnFailure: exactly 3 Slurm jobs, the
#     second submitted >= 10 s after the first ended, the third >= 20 s
#     after the second; Failed with the operator's message;
#   - while Restarting: the failed Master pod is there, Failed, not being
#     deleted, and `kubectl logs` reads it;
#   - events SuccessfulCreatePod, PyTorchJobRestarting (Warning),
#     PyTorchJobFailed on the PyTorchJob.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/87-pytorchjob-lib.sh"
plan 8

cluster_up --cpus 2 --accounting || bail "cluster up"
cat <<YAML | kc apply -f - >/dev/null
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: crash}
spec:
  runPolicy: {backoffLimit: 2}
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: OnFailure
      template:
        metadata: {annotations: {slurmlink.io/runtime: host}}
        spec:
          containers:
          - name: pytorch
            image: busybox
            command: [sh, -c, 'echo "crashing rank=\$RANK"; exit 3']
YAML
restarting() { ptj_conds crash | grep -q 'Restarting=True'; }
ok wait_for 90 restarting "the crashing PyTorchJob restarts"
# the next attempt's pods are made once the back-off has passed: until then the failed one is there
st=$(jp pod/crash-master-0 '{.metadata.annotations.slurmlink\.io/gang-attempt} {.status.phase} del={.metadata.deletionTimestamp}')
is "$st" "0 Failed del=" "while it backs off, the failed attempt's pod is kept: Failed, not deleted"
is "$(kc logs crash-master-0 2>&1)" "crashing rank=0" "... and kubectl logs reads it"
failed() { ptj_conds crash | grep -q 'Failed=True'; }
ok wait_for 150 failed "Failed once backoffLimit is exceeded"
wait_for 30 ptj_recorded crash 3
jobs=$(sacct -n -X -P --format=JobID,JobName,Submit,End | awk -F'|' '$2 == "default/crash" {print $3, $4}')
is "$(wc -l <<<"$jobs")|$(jp pytorchjob/crash '{.status.conditions[?(@.type=="Failed")].message}')" \
  "3|Job crash has failed because it has reached the specified backoff limit" "backoffLimit 2: three Slurm jobs in all, the operator's message"
gaps=$(while read -r sub end; do echo "$(date -d "$sub" +%s) $(date -d "$end" +%s)"; done <<<"$jobs" |
  awk 'NR > 1 {printf "%s ", ($1 - prev >= 20 * (2 ^ (NR - 3)) - 1) ? "ok" : "short:" ($1 - prev)} {prev = $2}')
is "$gaps" "ok ok " "each restart waited its back-off: >= 10 s, then >= 20 s" || diag "$jobs"
evs=$(kc get events --field-selector involvedObject.kind=PyTorchJob,involvedObject.name=crash -o jsonpath='{range .items[*]}{.type}:{.reason} {end}' 2>&1)
like "$evs" "Normal:SuccessfulCreatePod" "event SuccessfulCreatePod on the PyTorchJob" || diag "$evs"
like "$evs" "Warning:PyTorchJobRestarting.*Normal:PyTorchJobFailed|Normal:PyTorchJobFailed.*Warning:PyTorchJobRestarting" \
  "events PyTorchJobRestarting (Warning) and PyTorchJobFailed"
