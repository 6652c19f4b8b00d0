#!/bin/bash
# covers: src/kinds/job/controller.c src/ctl/jobtask.c src/kinds/job/jobpod.c src/kinds/job/jobindex.c src/api/
# 86-jobs-orphan-restart.t — a Job deleted with --cascade=orphan leaves its
# pods running, their array tasks too (they still carry the Job's uid in
# their comment). slurmlinkd restarted afterwards cancels, at its first Job
# pass, the tasks of Jobs that are gone (a crash between a Job's deletion
# and its arrays' cancellation); an orphaned pod's task is not one of them:
# it runs on, its pod Running, until the pod itself is deleted. On the code
# before, the restart cancelled it (the pod went to Error).
source "$(dirname "$0")/lib.sh"
plan 8

cluster_up --cpus 2 || bail "cluster up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
jp() { kc get "$1" -o jsonpath="$2" 2>&1; }
daemon_pid() { cat "$CL/run/slurmlinkd.pid"; }
dead() { ! kill -0 "$1" 2>/dev/null; }
job() { sleep_job "$@"; } # name seconds: one pod of 1 CPU (lib.sh)
task_of() { slurm_of "$1" | awk '{print $1, $2}'; }

uid=$(job orph 300)
pod_of() { kc get pods -l job-name=orph -o name 2>/dev/null | head -1; }
running() { local p; p=$(pod_of); [ -n "$p" ] && [ "$(jp "$p" '{.status.phase}')" = Running ]; }
ok wait_for 90 running "Job orph's pod runs" || diag "$(kc get pods -o wide 2>&1)"
pod=$(pod_of)
task=$(task_of "$uid" | awk '$2 == "RUNNING" {print $1}')
kc delete job orph --cascade=orphan >/dev/null 2>&1
is "$(jp "$pod" '{.metadata.ownerReferences}|{.status.phase}')|$(task_of "$uid")" "|Running|$task RUNNING" \
  "deleted with --cascade=orphan: $pod runs on without its owner, its task $task too"

old=$(daemon_pid)
kill "$old"
wait_for 30 dead "$old"
ok "$SLURMLINK" up --dir "$CL" "slurmlinkd restarts"
# a Job after the restart that completes: the Job passes have run, the
# first of them looking for the arrays of Jobs that are gone
job later 1 >/dev/null
ok kc wait --for=condition=complete job/later --timeout=120s "a Job created after the restart completes"
is "$(task_of "$uid")|$(jp "$pod" '{.status.phase}')" "$task RUNNING|Running" \
  "the orphaned pod's task $task still runs, its pod Running" ||
  diag "$(grep -E 'gone|orph' "$CL/log/slurmlinkd.log" | tail -5)"
nok grep -q "array task of Job uid $uid, which is gone: cancelled" "$CL/log/slurmlinkd.log" \
  "the log does not say it was cancelled"

kc delete pod "${pod#pod/}" --wait=false >/dev/null 2>&1
ended() { ! slurm_of "$uid" | grep -qE 'PENDING|RUNNING|CONFIGURING'; }
ok wait_for 60 ended "the orphaned pod deleted: its task ends" || diag "$(slurm_of "$uid")"
gone() { ! kc get "$pod" >/dev/null 2>&1; }
ok wait_for 60 gone "and the pod goes"
