#!/bin/bash
# covers: src/kinds/trainjob/ctl.c src/ctl/gang.c src/ctl/follow.c
# 89-trainjob-restart.t — restart safety of a TrainJob's gang, on a real
# two-node cluster: slurmlinkd killed (kill -9) while the gang runs, then
# started again: the same node pods (their uids), the TrainJob Complete,
# and ONE Slurm job in accounting (the running one followed, never
# submitted again: gang.h's adoption by the TrainJob's uid and attempt).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/87-pytorchjob-lib.sh"
plan 4

cluster_up --nodes 2 --cpus 2 --accounting || bail "cluster up --nodes 2"
daemon_pid() { cat "$CL/run/slurmlinkd.pid"; }
dead() { ! kill -0 "$1" 2>/dev/null; }
uids() { kc get pods -l jobset.sigs.k8s.io/jobset-name=mid -o jsonpath='{range .items[*]}{.metadata.uid} {end}'; }
phases() { kc get pods -l jobset.sigs.k8s.io/jobset-name=mid -o jsonpath='{range .items[*]}{.status.phase} {end}'; }
kc apply -f - >/dev/null <<YAML
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: mid}
spec:
  runtimeRef: {name: torch-distributed}
  trainer: {numNodes: 2, command: [sleep, "15"]}
  runtimePatches:
    - manager: slurmlink.io/test
      trainingRuntimeSpec:
        template:
          spec:
            replicatedJobs:
              - name: node
                template:
                  spec:
                    template:
                      metadata: {annotations: {slurmlink.io/runtime: host}}
YAML
ok wait_for 90 eval '[ "$(phases)" = "Running Running " ]' "the gang of 2 node pods runs"
before=$(uids)
victim=$(daemon_pid); kill -9 "$victim"; wait_for 30 dead "$victim"
"$SLURMLINK" up --dir "$CL" >/dev/null 2>&1
ok kc wait --for=condition=Complete trainjob/mid --timeout=120s "kill -9 mid-gang, restarted: the TrainJob completes"
is "$(uids)" "$before" "... with the same node pods"
wait_for 30 ptj_recorded mid
is "$(ptj_sacct mid | awk '{print $2, $3}')" "2 COMPLETED" "... as ONE Slurm job of 2 nodes, never submitted again"
