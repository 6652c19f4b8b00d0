#!/bin/bash
# covers: src/kinds/jobset/ src/ctl/gang.c src/ctl/follow.c
# 89-jobset-crash.t — a JobSet's gang is never submitted twice, on a real
# two-node cluster:
#   - slurmlinkd killed right after the gang's submission, before it
#     recorded the job (fault point after-gang-submit): after the restart
#     the job is adopted (its comment carries the JobSet's uid and attempt),
#     not submitted again, and the set completes;
#   - kill -9 while the gang runs: after the restart the running job is
#     followed, the set completes, still ONE Slurm job.
# Needs the ASan build (make asan: -DSL_FAULT_INJECTION).
source "$(dirname "$0")/lib.sh"
plan 7

cluster_up --nodes 2 --cpus 2 || bail "cluster up --nodes 2"
daemon_pid() { cat "$CL/run/slurmlinkd.pid"; }
dead() { ! kill -0 "$1" 2>/dev/null; }
jp() { kc get "$1" -o jsonpath="$2" 2>&1; }
jobs_of() { squeue -h -t all -o '%i|%k' | awk -F'|' -v u="slurmlink:uid=$1" 'index($2, u) {print $1}'; }
js() { # name seconds
  cat <<YAML
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: $1}
spec:
  replicatedJobs:
  - name: w
    template:
      spec:
        parallelism: 2
        completions: 2
        template:
          metadata: {annotations: {slurmlink.io/runtime: host}}
          spec:
            containers: [{name: c, image: busybox, command: [sleep, "$2"]}]
YAML
}

# --- killed right after the submission ------------------------------------------------------------
ok restart_with_fault after-gang-submit:1 "slurmlinkd restarts with SLURMLINKD_FAULT=after-gang-submit:1"
armed=$(daemon_pid)
c_uid=$(js crash 2 | kc create -f - -o jsonpath='{.metadata.uid}' 2>&1) # (the daemon dies soon after)
ok wait_for 60 dead "$armed" "slurmlinkd is killed at the fault point"
first=$(jobs_of "$c_uid")
[ -n "$first" ] || diag "no Slurm job carries uid $c_uid: $(squeue -h -t all -o '%i|%k')"
ok "$SLURMLINK" up --dir "$CL" "slurmlinkd starts again"
ok kc wait --for=condition=Completed jobset/crash --timeout=90s "the set completes"
is "$(jobs_of "$c_uid" | tr '\n' ' ')|$(grep -c "adopted Slurm job $first\b" "$CL/log/slurmlinkd.log")" "${first:-none} |1" \
  "ONE Slurm job, the one submitted before the kill, adopted ($first)"

# --- kill -9 while the gang runs ----------------------------------------------------------------------
m_uid=$(js mid 12 | kc create -f - -o jsonpath='{.metadata.uid}' 2>&1)
both() { [ "$(jp pod/mid-w-0-0 '{.status.phase}') $(jp pod/mid-w-0-1 '{.status.phase}')" = "Running Running" ]; }
wait_for 60 both || diag "mid: $(kc get pods 2>&1)"
victim=$(daemon_pid); kill -9 "$victim"; wait_for 30 dead "$victim"
"$SLURMLINK" up --dir "$CL" >/dev/null 2>&1
ok kc wait --for=condition=Completed jobset/mid --timeout=90s "kill -9 mid-gang, restarted: the set completes"
is "$(jobs_of "$m_uid" | wc -l)" 1 "... as ONE Slurm job, never submitted again"
