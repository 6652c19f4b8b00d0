#!/bin/bash
# 56-recovery-reopen.t — a finished pod's phase never goes back. The test
# build's fault point job-running holds the controller thread once it has
# read the pod's job as RUNNING (a poll read a moment before the job ends,
# as under load); meanwhile the shim finishes and its push makes the pod
# Succeeded. Released, the controller applies its stale RUNNING view: that
# must not reopen the pod (Succeeded → Pending → Running → Succeeded was
# seen in a 10,000-pod soak). A watch records every phase the pod had.
# Needs the ASan build (make asan: -DSL_FAULT_INJECTION).
source "$(dirname "$0")/lib.sh"
plan 6

cluster_up --cpus 2 || bail "cluster up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
kc() { kubectl --cache-dir "$CL/kcache" "$@"; }
jp() { kc get "$1" -o jsonpath="$2" 2>&1; }
log() { cat "$CL/log/slurmlinkd.log"; }
daemon_pid() { cat "$CL/run/slurmlinkd.pid"; }
dead() { ! kill -0 "$1" 2>/dev/null; }

old=$(daemon_pid)
kill -9 "$old"
wait_for 30 dead "$old"
ok env SLURMLINKD_FAULT="job-running:1:hold=$CL/go" "$SLURMLINK" up --dir "$CL" \
  "slurmlinkd restarts with SLURMLINKD_FAULT=job-running:1:hold=…"
on_exit "touch '$CL/go'"
kc get pods -w -o jsonpath='{.metadata.name} {.status.phase}{"\n"}' >"$CL/phases" 2>&1 &
on_exit "kill $! 2>/dev/null"
kc apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: quick}
spec:
  restartPolicy: Never
  containers:
  - {name: main, image: busybox, command: [sh, -c, 'sleep 2; echo done']}
YAML
held() { log | grep -q "fault injection: job-running #1: held"; }
ok wait_for 90 held "the controller is held with the job read as RUNNING"
succeeded() { [ "$(jp pod/quick '{.status.phase}')" = Succeeded ]; }
ok wait_for 90 succeeded "the shim's push makes the pod Succeeded meanwhile"
rv=$(jp pod/quick '{.metadata.resourceVersion}')
touch "$CL/go"
released() { log | grep -q "fault injection: job-running #1: released"; }
ok wait_for 30 released "the controller is released"
over() { ! squeue -h -n default/quick | grep -q .; }
wait_for 60 over # the job ends; every view after the stale one says so
sleep 2          # the controller's next passes
is "$(grep '^quick ' "$CL/phases" | awk '{print $2}' | uniq | tr '\n' ' ')" "Pending Running Succeeded " \
  "the pod's phases as a watch saw them: Pending, Running, Succeeded, never back" || diag "$(cat "$CL/phases")"
is "$(jp pod/quick '{.status.phase}')" "Succeeded" "it is Succeeded"
