#!/bin/bash
# covers: src/ctl/carry.c src/kinds/kubeflow/controller.c src/ctl/gang.c src/shim/pod.c src/shimlib/spec.c src/translate/translate.c src/api/logs.c
# 87-pytorchjob-restarts.t — a restarted PyTorchJob's replicas show their
# restarts as Kubeflow's training-operator does (containers restarted in
# place): each attempt's Master pod, the same name as the failed one it
# replaces, goes on counting (RESTARTS), shows the failed run as lastState
# and `kubectl logs --previous` prints the failed attempt's output.
#   - backoffLimit 2, the Master exits 1 printing "attempt-K": once Failed,
#     `kubectl get pods` shows RESTARTS 2, restartCount 2 and lastState
#     terminated exit code 1; `kubectl logs --previous` prints attempt-1,
#     `kubectl logs` attempt-2;
#   - the failed attempt's log replaced, by the job's user, with a link to
#     a file only root reads (a CRI log line): slurmlinkd does not copy it
#     over (the next attempt's `logs --previous` never shows it).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/87-pytorchjob-lib.sh"
plan 8

cluster_up --cpus 2 --accounting || bail "cluster up"
secret=$(tmpdir)
echo "2026-01-01T00:00:00.000000000Z stdout F SECRET-$$" >"$secret/s" && chmod 700 "$secret" && chmod 600 "$secret/s"
cat <<YAML | kc apply -f - >/dev/null
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: again}
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
            env:
            - name: K
              valueFrom: {fieldRef: {fieldPath: "metadata.annotations['slurmlink.io/gang-attempt']"}}
            command: [sh, -c, 'echo "attempt-\$K"; exit 1']
YAML
restarting() { ptj_conds again | grep -q 'Restarting=True'; }
ok wait_for 90 restarting "the failing PyTorchJob restarts"
# attempt 0's log, replaced by the job's user with a link to root's file
uid0=$(jp pod/again-master-0 '{.metadata.uid}')
log0="$CL/pods/default/again-master-0-$uid0/logs/pytorch/0.log"
ok runuser -u "$SL_JOB_USER" -- sh -c "[ -f '$log0' ] && rm -f '$log0' && ln -s '$secret/s' '$log0'" \
  "during the back-off the job's user replaces the failed run's log with a link to root's file (a CRI log line)"
attempt1() { [ "$(jp pod/again-master-0 '{.metadata.annotations.slurmlink\.io/gang-attempt}:{.status.phase}')" = "1:Failed" ]; }
wait_for 60 attempt1 || diag "attempt 1: $(jp pod/again-master-0 '{.metadata.annotations} {.status.phase}')"
prev1=$(kc logs --previous again-master-0 2>&1)
unlike "$prev1" "SECRET-$$" "a log replaced by a link is not carried over: logs --previous never shows root's file" || diag "$prev1"
failed() { ptj_conds again | grep -q 'Failed=True'; }
ok wait_for 150 failed "Failed once backoffLimit is exceeded"
is "$(jp pod/again-master-0 '{.metadata.annotations.slurmlink\.io/gang-attempt} {.status.containerStatuses[0].restartCount} {.status.containerStatuses[0].lastState.terminated.exitCode}')" \
  "2 2 1" "the last attempt's Master: restartCount 2, lastState terminated with exit code 1"
row=$(kc get pods again-master-0 --no-headers 2>&1)
is "$(awk '{print $4}' <<<"$row")" "2" "kubectl get pods: RESTARTS 2" || diag "$row"
is "$(kc logs --previous again-master-0 2>&1)" "attempt-1" "kubectl logs --previous: the failed attempt before"
is "$(kc logs again-master-0 2>&1)" "attempt-2" "kubectl logs: the last attempt"
