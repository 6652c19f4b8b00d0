#!/bin/bash
# covers: src/ctl/ src/store/ src/slurmif/
# 56-recovery-started.t — a container's start that the controller's poll
# reads from events.jsonl before the shim's push of it is applied (a push
# slower than the poll, as under load) still gives the pod its Started
# Event, once. The test build's fault points hold the controller thread
# once its poll has found the job started (job-started), before it reads
# events.jsonl, and the API thread that got the shim's push of the start
# (shim-started); the controller, released first, reads the start from the
# file (the pod becomes Running only so); released next, the push is a
# duplicate.
# (Events of lines written before slurmlinkd started are not sent again: a
# restarted slurmlinkd reads every line, t/56-recovery-pushes.t.)
# Needs the ASan build (make asan: -DSL_FAULT_INJECTION).
source "$(dirname "$0")/lib.sh"
plan 7

cluster_up --cpus 2 || bail "cluster up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
jp() { kc get "$1" -o jsonpath="$2" 2>&1; }
log() { cat "$CL/log/slurmlinkd.log"; }
events() { kc get events --field-selector involvedObject.name=slow -o jsonpath='{range .items[*]}{.reason}={.count} {end}' 2>&1; }

ok restart_with_fault "job-started:1:hold=$CL/go,shim-started:1:hold=$CL/release" \
  "slurmlinkd restarts with SLURMLINKD_FAULT=job-started:1:hold=…,shim-started:1:hold=…"
on_exit "touch '$CL/go' '$CL/release'"
kc apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: slow}
spec:
  restartPolicy: Never
  containers:
  - {name: main, image: busybox, command: [sh, -c, 'sleep 8; echo done']}
YAML
held() { log | grep -q "fault injection: job-started #1: held" && log | grep -q "fault injection: shim-started #1: held"; }
ok wait_for 120 held "the poll is held at the started job, the push of the container's start too"
touch "$CL/go"
running() { [ "$(jp pod/slow '{.status.phase}')" = Running ]; }
ok wait_for 60 running "the pod runs: the poll read the start from events.jsonl"
has_started() { events | grep -q "Started=1"; }
ok wait_for 10 has_started "event Started, though its push has not been applied" || diag "$(events)"
touch "$CL/release"
released() { log | grep -q "fault injection: shim-started #1: released"; }
ok wait_for 30 released "the held push is released"
ended() { [ "$(jp pod/slow '{.status.phase}')" = Succeeded ]; }
ok wait_for 120 ended "the pod succeeds"
like "$(events)" "^Scheduled=1 Started=1 Completed=1 $" "Scheduled, Started and Completed once each"
