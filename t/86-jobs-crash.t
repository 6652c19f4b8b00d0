#!/bin/bash
# covers: src/kinds/job/controller.c src/ctl/jobtask.c src/kinds/job/jobpod.c src/kinds/job/jobindex.c src/api/ src/slurmif/acct.c
# slow
# 86-jobs-crash.t — a Job's array survives slurmlinkd's death:
#   - the test build's fault point after-array-submit kills slurmlinkd
#     right after slurmctld accepted the array and before it is recorded;
#     started again, slurmlinkd adopts that array (found by the Job's uid
#     and submission number in its comment), never submits a second;
#   - kill -9 in the middle of a 200-task array (parallelism 4): after the
#     restart every index runs exactly once, the counts are right, the Job
#     is one array in sacct.
# Needs the ASan build (make asan: -DSL_FAULT_INJECTION).
source "$(dirname "$0")/lib.sh"
plan 14

cluster_up --cpus 4 --accounting || bail "cluster up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
jp() { kc get "$1" -o jsonpath="$2" 2>&1; }
daemon_pid() { cat "$CL/run/slurmlinkd.pid"; }
dead() { ! kill -0 "$1" 2>/dev/null; }
# the distinct Slurm arrays whose comment carries the Job's uid
arrays_of() { sacct -n -X -P --format=JobID,Comment | awk -F'|' -v u="slurmlink:uid=$1 " 'index($2 " ", u) {sub(/_.*/, "", $1); print $1}' | sort -u; }
indexed() { # name completions parallelism seconds
  kc apply -o jsonpath='{.metadata.uid}' -f - <<YAML
apiVersion: batch/v1
kind: Job
metadata: {name: $1}
spec:
  completions: $2
  parallelism: $3
  completionMode: Indexed
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: c, image: busybox, command: [sh, -c, 'echo "index=\$JOB_COMPLETION_INDEX"; sleep $4']}
YAML
}
logs_of() { for p in $(kc get pods -l job-name="$1" -o name); do kc logs "$p"; done | sort | uniq -c | awk '{print $1}' | sort -u | tr '\n' ' '; }

# --- killed between the array's submission and its record ------------------------------------------
ok restart_with_fault after-array-submit:1 "slurmlinkd restarts with SLURMLINKD_FAULT=after-array-submit:1"
armed=$(daemon_pid)
uid=$(indexed once 5 5 1)
ok wait_for 60 dead "$armed" "slurmlinkd is killed at the fault point"
like "$(cat "$CL/log/slurmlinkd.log")" "fault injection: after-array-submit" "its log names the fault point"
first=$(squeue -h -t all -o '%F %k' | awk -v u="slurmlink:uid=$uid " 'index($0 " ", u) {print $1}' | sort -u)
is "$(printf '%s\n' "$first" | grep -c .)" 1 "slurmctld has the Job's array, submitted just before the kill"
ok "$SLURMLINK" up --dir "$CL" "slurmlinkd starts again (no fault)"
ok kc wait --for=condition=complete job/once --timeout=180s "the Job completes"
is "$(jp job/once '{.status.succeeded} {.status.failed} {.status.completedIndexes}')|$(kc get pods -l job-name=once -o name | wc -l)" "5  0-4|5" "5 succeeded, none failed, 5 pods" ||
  diag "$(kc get pods -l job-name=once -o jsonpath='{range .items[*]}{.metadata.name} {.status.phase} {.status.reason} {.status.message} {.metadata.annotations}{"\n"}{end}'; grep -E 'once' "$CL/log/slurmlinkd.log" | tail -30)"
in_acct() { [ "$(sacct -n -X -P --format=Comment | grep -c "slurmlink:uid=$1 ")" -ge "$2" ]; }
wait_for 30 in_acct "$uid" 5 # slurmctld hands records to slurmdbd a moment later
is "$(arrays_of "$uid" | tr '\n' ' ')" "$first " "exactly one array carries the Job's uid: the one submitted before the kill (adopted)"
like "$(cat "$CL/log/slurmlinkd.log")" "adopted Slurm array $first" "the log says it was adopted"

# --- kill -9 in the middle of a 200-task array ------------------------------------------------------------
uid=$(indexed mid 200 4 0)
some() { [ "$(jp job/mid '{.status.succeeded}')" -ge 8 ] 2>/dev/null; }
ok wait_for 180 some "8 of 200 tasks done"
diag "killed with $(jp job/mid '{.status.succeeded}') succeeded"
victim=$(daemon_pid)
kill -9 "$victim"
wait_for 30 dead "$victim"
ok "$SLURMLINK" up --dir "$CL" "slurmlinkd restarts after kill -9"
ok kc wait --for=condition=complete job/mid --timeout=600s "the Job completes after the restart"
is "$(jp job/mid '{.status.succeeded} {.status.failed} {.status.completedIndexes}')|$(kc get pods -l job-name=mid -o name | wc -l)|$(logs_of mid)" \
  "200  0-199|200|1 " "200 succeeded, none failed, 200 pods, each index ran exactly once"
wait_for 30 in_acct "$uid" 200
is "$(arrays_of "$uid" | wc -l)" 1 "sacct: the Job is one array, never submitted twice"
