#!/bin/bash
# 56-recovery-reopen-push.t — a finished pod's phase never goes back, when
# the stale view is a push's. A container's "started" push that comes
# before the controller's poll saw the job run reads the job on the API
# thread (so the pod says where it runs: Scheduled before Started). Under
# load that read can be answered late: the test build's fault point
# started-view holds that thread once it has read the job as RUNNING; the
# shim does not wait for the answer, so its later pushes (the container's
# exit, pod-finished) replay the start from events.jsonl and make the pod
# Succeeded meanwhile. Released, the push applies its RUNNING view: that
# must not reopen the pod (a 1,000-pod soak saw 23 pods go Succeeded →
# Running → Succeeded this way). A watch records every phase the pod had.
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
ok env SLURMLINKD_FAULT="started-view:1:hold=$CL/go" "$SLURMLINK" up --dir "$CL" \
  "slurmlinkd restarts with SLURMLINKD_FAULT=started-view:1:hold=…"
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
held() { log | grep -q "fault injection: started-view #1: held"; }
ok wait_for 90 held "the started push is held with the job read as RUNNING"
succeeded() { [ "$(jp pod/quick '{.status.phase}')" = Succeeded ]; }
ok wait_for 90 succeeded "the shim's later pushes make the pod Succeeded meanwhile"
touch "$CL/go"
released() { log | grep -q "fault injection: started-view #1: released"; }
ok wait_for 30 released "the push is released"
over() { ! squeue -h -n default/quick | grep -q .; }
wait_for 60 over # the job ends; every view after the stale one says so
sleep 2          # the controller's next passes
is "$(grep '^quick ' "$CL/phases" | awk '{print $2}' | uniq | tr '\n' ' ')" "Pending Running Succeeded " \
  "the pod's phases as a watch saw them: Pending, Running, Succeeded, never back" || diag "$(cat "$CL/phases")"
is "$(jp pod/quick '{.status.phase}')" "Succeeded" "it is Succeeded"
