#!/bin/bash
# covers: src/kinds/job/controller.c src/ctl/jobtask.c src/kinds/job/jobpod.c src/kinds/job/jobindex.c src/api/ src/slurmif/acct.c
# 86-jobs-lazy.t — a Job's pods are created lazily, as kube's Job
# controller creates them: an Indexed Job of 6 completions, parallelism 2,
# whose tasks sleep; while it runs, never more than 2 unfinished Pod
# objects exist (the finished ones stay), and it is still ONE array in
# Slurm with the indexes 0-5, each once. A task Slurm starts while
# slurmlinkd is down (kill -9) waits for its pod; started again, slurmlinkd
# makes it, and the task runs it: every index once, one array.
source "$(dirname "$0")/lib.sh"
plan 10

cluster_up --cpus 4 --accounting || bail "cluster up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
jp() { kc get "$1" -o jsonpath="$2" 2>&1; }

kc apply -f - >/dev/null <<'YAML'
apiVersion: batch/v1
kind: Job
metadata: {name: lazy}
spec:
  completions: 6
  parallelism: 2
  completionMode: Indexed
  template:
    spec:
      restartPolicy: Never
      containers:
      - name: work
        image: busybox
        command: [sh, -c, 'echo "index=$JOB_COMPLETION_INDEX"; sleep 3']
YAML
samples=$(tmpdir)
on_exit rm -rf "$samples"
# one sample of the Job's pods (unfinished ones, all) per call; done when
# the Job is Complete
sample() {
  local phases
  phases=$(kc get pods -l job-name=lazy -o jsonpath='{range .items[*]}{.status.phase}{"\n"}{end}' 2>/dev/null) || return 1
  printf '%s\n' "$(printf '%s\n' "$phases" | grep -c -v -e '^Succeeded$' -e '^Failed$' -e '^$') $(printf '%s\n' "$phases" | grep -c -v '^$')" >>"$samples/s"
  [ "$(jp job/lazy '{.status.conditions[?(@.type=="Complete")].status}')" = True ]
}
ok wait_for 180 sample "the Job completes"
max_unfinished=$(sort -n "$samples/s" | tail -1 | cut -d' ' -f1)
first_total=$(head -1 "$samples/s" | cut -d' ' -f2)
diag "samples (unfinished total): $(tr '\n' ',' <"$samples/s")"
ok test "$(wc -l <"$samples/s")" -ge 3 "the pods were sampled while the Job ran ($(wc -l <"$samples/s") samples)"
ok test "$max_unfinished" -le 2 "never more than parallelism (2) unfinished pods (at most $max_unfinished)"
ok test "$first_total" -le 2 "at the start, no more than 2 pod objects (first sample: $first_total)"
is "$(jp job/lazy '{.status.succeeded} {.status.completedIndexes}')" "6 0-5" "succeeded 6, completedIndexes 0-5"
lazy_acct() { sacct -n -X -P --name=default/lazy --format=JobID,State; }
lazy_done() { [ "$(lazy_acct | grep -c '^[0-9]*_[0-9]*|COMPLETED$')" -eq 6 ]; }
wait_for 60 lazy_done || diag "sacct does not show six completed tasks after 60 s"
is "$(lazy_acct | cut -d'|' -f1 | sed 's/_.*//' | sort -u | wc -l) $(lazy_acct | cut -d'|' -f1 | sed 's/^[0-9]*_//' | sort -n | tr '\n' ' ')" \
  "1 0 1 2 3 4 5 " "sacct: ONE array, its tasks the indexes 0-5, each once"

# --- a task started while slurmlinkd is down waits for its pod ----------------------------------
daemon_pid() { cat "$CL/run/slurmlinkd.pid"; }
dead() { ! kill -0 "$1" 2>/dev/null; }
kc apply -f - >/dev/null <<'YAML'
apiVersion: batch/v1
kind: Job
metadata: {name: down}
spec:
  completions: 3
  parallelism: 1
  completionMode: Indexed
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: c, image: busybox, command: [sh, -c, 'echo "index=$JOB_COMPLETION_INDEX"; sleep 5']}
YAML
duid=$(jp job/down '{.metadata.uid}')
arr_of_down() { jp job/down '{.metadata.annotations.slurmlink\.io/slurm-arrays}'; }
first_runs() { [ -n "$(arr_of_down)" ] && [ "$(jp job/down '{.status.active}')" = 1 ]; }
wait_for 120 first_runs || diag "job/down: $(jp job/down '{.metadata.annotations} {.status}')"
arr=$(arr_of_down)
victim=$(daemon_pid)
kill -9 "$victim"
wait_for 30 dead "$victim"
task1_runs() { squeue -h -r -o '%i %T' | grep -qx "${arr}_1 RUNNING"; }
ok wait_for 90 task1_runs "slurmlinkd down: Slurm starts task ${arr}_1, which has no pod yet" ||
  diag "$(squeue -h -t all -r -o '%i %T %r' | grep "^${arr}_")"
ok "$SLURMLINK" up --dir "$CL" "slurmlinkd starts again"
ok kc wait --for=condition=complete job/down --timeout=180s "the Job completes"
down_logs() { for p in $(kc get pods -l job-name=down -o name); do kc logs "$p"; done | sort | tr '\n' ' '; }
down_acct() { sacct -n -X -P --format=JobID,Comment | awk -F'|' -v u="slurmlink:uid=$duid " 'index($2 " ", u) {print $1}'; }
down_in_acct() { [ "$(down_acct | wc -l)" -ge 3 ]; }
wait_for 60 down_in_acct || diag "sacct has $(down_acct | wc -l) records of job/down after 60 s"
is "$(jp job/down '{.status.succeeded} {.status.failed}')|$(down_logs)|$(down_acct | sed 's/_.*//' | sort -u | wc -l)" \
  "3 |index=0 index=1 index=2 |1" "each index ran once, in its own pod, all in the one array (task 1 was not submitted again)" ||
  diag "$(down_acct | tr '\n' ' '; grep -E 'default/down' "$CL/log/slurmlinkd.log" | tail -20)"
