#!/bin/bash
# covers: src/ctl/submit.c src/ctl/subpool.c src/metrics/
# Submissions queued behind the workers hold no parsed pod: past two per
# worker, a queued submission keeps only the pod's name and uid, and its
# worker reads the pod again from the store (slurmlink_pod_submission_rereads_total),
# so a burst the workers fall behind costs memory by the workers, not by
# the burst. One worker (slurm.submit_workers: 1) is held after its first
# submission (the test build's fault point after-submit with hold=): p0
# runs, p1 waits parsed, p2..p10 wait light; p5 is deleted (forced) while
# it waits. Released: every other pod is submitted once, p5 never, and
# exactly 8 pods were read again. The partition is down: the jobs queue,
# none runs (only submission matters here).
# Needs the ASan build (make asan: -DSL_FAULT_INJECTION).
source "$(dirname "$0")/lib.sh"
plan 9

W=$(daemon_with "$(tmpdir)" --submit-workers 1)
cluster_up --cpus 4 --daemon "$W" || bail "cluster up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
alive() { [ "$(kc get --raw /healthz 2>/dev/null)" = ok ]; }
part=$(sinfo -h -o %R | head -1)
scontrol update PartitionName="$part" State=DOWN
GO=$CL/release-worker
old=$(cat "$CL/run/slurmlinkd.pid")
kill -9 "$old"
wait_for 30 _t_unsignalable "$old"
ok env SLURMLINKD_FAULT="after-submit:1:hold=$GO" "$SLURMLINK" up --dir "$CL" --daemon "$W" \
  "slurmlinkd restarts with one submission worker, held after its first submission"
wait_for 30 alive
ok grep -q '^.*1 submission workers' "$CL/log/slurmlinkd.log" "its log names one submission worker"
pods() {
  for i in "$@"; do
    printf -- '---\napiVersion: v1\nkind: Pod\nmetadata: {name: p%s}\nspec:\n  restartPolicy: Never\n  containers:\n  - {name: main, image: busybox, command: ["true"], resources: {requests: {cpu: 100m, memory: 32Mi}}}\n' "$i"
  done | kc create -f - >/dev/null
}
pods 0
ok wait_for 60 grep -q 'fault injection: after-submit #1: held' "$CL/log/slurmlinkd.log" \
  "the one worker holds after p0's submission"
pods 1 2 3 4 5 6 7 8 9 10
handed() { [ "$(kc get --raw /metrics | sed -n 's/^slurmlink_submit_queue_length \([0-9]*\).*/\1/p')" = 10 ]; }
wait_for 30 handed # the controller has seen the ten (p0's job id is not yet recorded either)
ok kc delete pod p5 --force --grace-period=0 --wait=false "p5 is deleted while it waits"
ok wait_for 30 sh -c "! kubectl --cache-dir '$CL/kcache' get pod p5 >/dev/null 2>&1" "p5 is gone from the API"
touch "$GO"
with_job() { [ "$(kc get pods -o jsonpath='{range .items[*]}{.metadata.annotations.slurmlink\.io/job-id}{"\n"}{end}' | grep -c .)" = 10 ]; }
ok wait_for 120 with_job "released: the ten pods left record a Slurm job" ||
  diag "$(kc get pods -o wide; tail -20 "$CL/log/slurmlinkd.log")"
kc get pods -o jsonpath='{range .items[*]}{.metadata.uid} {.metadata.annotations.slurmlink\.io/job-id}{"\n"}{end}' |
  sort >"$CL/recorded"
squeue -h -t all -o '%k %i' | sed -n 's/^slurmlink:uid=//p' | sort >"$CL/slurm"
is "$(wc -l <"$CL/slurm")|$(awk '{print $1}' "$CL/slurm" | uniq -d | wc -l)" "10|0" \
  "slurmctld has ten jobs of pods, none for p5, no uid twice"
is "$(diff "$CL/recorded" "$CL/slurm" && echo same)" same "each pod records the one job that carries its uid"
rereads=$(kc get --raw /metrics | sed -n 's/^slurmlink_pod_submission_rereads_total \([0-9]*\).*/\1/p')
is "$rereads" 8 "eight queued submissions were read again by their worker (p2..p10 less p5)"
scontrol update PartitionName="$part" State=UP
