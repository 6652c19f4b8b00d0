#!/bin/bash
# covers: src/ctl/ src/store/ src/slurmif/
# 56-recovery-pushes.t — the shim's events reach the pod in order, each
# once, when a push is missed. The test build's fault point shim-exited
# holds the API thread that got the shim's push of container a's exit (as a
# slurmlinkd too busy to answer within the shim's 1 s would): the shim counts
# that push as failed and goes on; container b's exit and pod-finished come
# next. (a exits after 2 s: by then the controller has read events.jsonl
# once, on the job's first poll as running, so only the gap brings it.)
#   - the pod ends Succeeded with both containers terminated Completed,
#     exit 0 (a's missed exit is read from events.jsonl first);
#   - the log says what was replayed;
#   - released, the late push is a duplicate and changes nothing;
#   - with slurmlinkd down for a whole run, the pod's outcome comes from
#     events.jsonl once it is back (exit code 3, reason Error).
# Needs the ASan build (make asan: -DSL_FAULT_INJECTION).
source "$(dirname "$0")/lib.sh"
plan 12

cluster_up --cpus 2 || bail "cluster up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
jp() { kc get "$1" -o jsonpath="$2" 2>&1; }
daemon_pid() { cat "$CL/run/slurmlinkd.pid"; }
dead() { ! kill -0 "$1" 2>/dev/null; }
log() { cat "$CL/log/slurmlinkd.log"; }
pod() { # name command
  kc apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1}
spec:
  restartPolicy: Never
  containers:
  - {name: main, image: busybox, command: [sh, -c, '$2']}
YAML
}
phase_is() { [ "$(jp "pod/$1" '{.status.phase}')" = "$2" ]; }
ended() { phase_is "$1" Succeeded || phase_is "$1" Failed; }
term() { jp "pod/$1" '{.status.phase}{range .status.containerStatuses[*]} {.name}={.state.terminated.reason}/{.state.terminated.exitCode}{end}'; }

# --- the exit's push held past the shim's 1 s: pod-finished arrives first ----
ok restart_with_fault "shim-exited:1:hold=$CL/release" \
  "slurmlinkd restarts with SLURMLINKD_FAULT=shim-exited:1:hold=…"
kc apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: held}
spec:
  restartPolicy: Never
  containers:
  - {name: a, image: busybox, command: [sh, -c, 'sleep 2; echo a']}
  - {name: b, image: busybox, command: [sh, -c, 'sleep 5; echo b']}
YAML
held() { log | grep -q "fault injection: shim-exited #1: held"; }
ok wait_for 60 held "the push of the container's exit is held"
ok wait_for 90 ended held "the pod ends while that push is held"
is "$(term held)" "Succeeded a=Completed/0 b=Completed/0" "Succeeded, both containers terminated Completed with exit code 0" ||
  diag "$(jp pod/held '{.status}'; echo; grep -E 'held' "$CL/log/slurmlinkd.log" | tail -20)"
like "$(log)" "pod default/held: shim event [0-9]+ of run [0-9]+ came after [0-9.]+: 1 missed replayed from events.jsonl" \
  "the log says the missed event was read from events.jsonl" ||
  diag "$(log | grep -E 'held|fault|shim'; cut -c1-160 "$CL"/pods/default/held-*/events.jsonl "$CL"/pods/default/held-*/job.out)"
rv=$(jp pod/held '{.metadata.resourceVersion}')
touch "$CL/release"
released() { log | grep -q "fault injection: shim-exited #1: released"; }
ok wait_for 30 released "the held push is released"
sleep 1 # its answer: the duplicate is dropped, or (the defect) applied late
is "$(jp pod/held '{.metadata.resourceVersion}') $(term held)" "$rv Succeeded a=Completed/0 b=Completed/0" \
  "the late push is a duplicate: the pod is not written again"
is "$(kc logs held -c a 2>&1) $(kc logs held -c b 2>&1)" "a b" "kubectl logs of both"

# --- slurmlinkd down for a whole run: the outcome from events.jsonl -----------
pod away 'sleep 3; echo away; exit 3'
running() { phase_is away Running; }
ok wait_for 90 running "pod away runs"
victim=$(daemon_pid)
kill -9 "$victim"
wait_for 30 dead "$victim"
gone() { ! squeue -h -t R,CG -n default/away | grep -q .; }
wait_for 60 gone # the run ends while no slurmlinkd takes its pushes
ok "$SLURMLINK" up --dir "$CL" "slurmlinkd starts again after the run ended"
ok wait_for 60 ended away "the pod ends"
is "$(term away)" "Failed main=Error/3" "Failed, its container terminated Error with exit code 3 (from events.jsonl)" ||
  diag "$(jp pod/away '{.status}'; echo; grep -E 'away' "$CL/log/slurmlinkd.log" | tail -20)"
