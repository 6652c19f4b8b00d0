#!/bin/bash
# covers: src/ctl/ src/store/ src/slurmif/
# Adoption, deterministically: the test build's fault point after-submit
# kills slurmlinkd (SIGKILL) right after slurmctld accepted a pod's job and
# before its id is stored. Started again, slurmlinkd must adopt that job
# (found by its comment slurmlink:uid=<pod uid>), never submit a second.
# Needs the ASan build (make asan: -DSL_FAULT_INJECTION).
source "$(dirname "$0")/lib.sh"
plan 10

cluster_up --gpus 1 --cpus 2 || { echo "not ok 1 - cluster up"; exit 1; }
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
daemon_pid() { cat "$CL/run/slurmlinkd.pid"; }
alive() { kill -0 "$1" 2>/dev/null; }
dead() { ! alive "$1"; }
jobs_of() { squeue -h -t all -o '%i %k' | awk -v c="slurmlink:uid=$1" '$2 == c {print $1}'; }

# the daemon again, with the fault armed: its first submission is its last
ok restart_with_fault after-submit:1 "slurmlinkd restarts with SLURMLINKD_FAULT=after-submit:1"
armed=$(daemon_pid)
uid=$(kc apply -o jsonpath='{.metadata.uid}' -f - <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: once}
spec:
  restartPolicy: Never
  containers:
  - name: main
    image: busybox
    command: ["sh", "-c", "echo ran; exit 0"]
    resources: {requests: {cpu: 100m, memory: 32Mi}}
YAML
)
ok wait_for 60 dead "$armed" "slurmlinkd is killed at the fault point"
like "$(cat "$CL/log/slurmlinkd.log")" "fault injection: after-submit" "its log names the fault point"
diag "pod uid $uid"
is "$(jobs_of "$uid" | wc -l)" 1 "slurmctld has the pod's job, submitted just before the kill"
first=$(jobs_of "$uid")

ok "$SLURMLINK" up --dir "$CL" "slurmlinkd starts again (no fault)"
done_() { [ "$(kc get pod once -o jsonpath='{.status.phase}')" = Succeeded ]; }
ok wait_for 120 done_ "the pod runs to Succeeded"
is "$(kc get pod once -o jsonpath='{.metadata.uid}')" "$uid" "the pod is the one created before the kill"
is "$(jobs_of "$uid" | wc -l)" 1 "exactly one Slurm job carries the pod's uid"
is "$(kc get pod once -o jsonpath='{.metadata.annotations.slurmlink\.io/job-id}')" "$first" "the pod records the job submitted before the kill (adopted)"
like "$(cat "$CL/log/slurmlinkd.log")" "adopted Slurm job $first found by its uid" "the log says it was adopted"
