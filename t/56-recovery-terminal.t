#!/bin/bash
# covers: src/ctl/ src/store/ src/slurmif/
# A finished pod never goes back. Slurm may run a finished job again: a
# requeue of a completed batch job (scontrol requeue, which Slurm allows),
# or slurmctld restarted without the completion in its saved state. The
# pod stays Succeeded, its requeued job is cancelled (its comment names the
# pod) with a Warning Event, and no writer of pods/status can move a
# terminal pod to another phase (422 naming status.phase).
source "$(dirname "$0")/lib.sh"
plan 23

cluster_up --cpus 4 || bail "cluster up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
field() { kc get pod "$1" -o jsonpath="$2" 2>/dev/null; }
jstate() { scontrol show job "$1" 2>/dev/null | grep -o 'JobState=[A-Z_]*' | cut -d= -f2; }
is_state() { [ "$(jstate "$1")" = "$2" ]; }
phase_is() { [ "$(field "$1" '{.status.phase}')" = "$2" ]; }
has_event() { kc get events --field-selector "involvedObject.name=$1,reason=$2" -o name 2>/dev/null | grep -q .; }
alive() { [ "$(kc get --raw /healthz 2>/dev/null)" = ok ]; }
dead() { ! kill -0 "$1" 2>/dev/null; }
pod() { # name restartPolicy
  kc apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1}
spec:
  restartPolicy: $2
  containers:
  - name: main
    image: busybox
    command: ["sh", "-c", "echo ran; exit 0"]
    resources: {requests: {cpu: 100m, memory: 32Mi}}
YAML
}
watch_phases() { # pod: every phase the pod shows from now on, one a line, in $CL/phases.POD
  kc get pods --field-selector "metadata.name=$1" -w -o jsonpath='{.status.phase}{"\n"}' >"$CL/phases.$1" 2>/dev/null &
  WATCHES="$WATCHES $!"
  on_exit "kill $!"
  wait_for 20 test -s "$CL/phases.$1"
}
# check LABEL POD JOB: what the requeue of POD's completed JOB left
check() {
  ok wait_for 60 has_event "$2" JobRequeued "$1: a Warning Event JobRequeued is recorded for the pod"
  ok wait_for 60 is_state "$3" CANCELLED "$1: the requeued job is cancelled (it must not run the pod again unseen)"
  like "$(scontrol show job "$3" | grep -o 'Restarts=[0-9]*')" "^Restarts=[1-9]" "$1: Slurm did requeue it"
  like "$(kc get events --field-selector "involvedObject.name=$2,reason=JobRequeued" -o jsonpath='{.items[0].type} {.items[0].message}')" \
    "^Warning Slurm requeued job $3 of the finished pod \(Succeeded\); cancelled it: a finished pod does not run again$" \
    "$1: the Event says what happened"
  is "$(field "$2" '{.status.phase}/{.status.containerStatuses[0].state.terminated.exitCode}')" "Succeeded/0" \
    "$1: the pod is Succeeded with its container's exit code 0"
  is "$(kc logs "$2" 2>/dev/null | grep -c '^ran$')" 1 "$1: the container did not run a second time"
}

# --- requeued while slurmlinkd follows it ---------------------------------------
WATCHES=""
pod done1 OnFailure
ok wait_for 90 phase_is done1 Succeeded "the pod runs and succeeds"
J1=$(field done1 '{.metadata.annotations.slurmlink\.io/job-id}')
ok wait_for 30 is_state "$J1" COMPLETED "its Slurm job $J1 is COMPLETED"
watch_phases done1
ok scontrol requeue "$J1" "Slurm requeues the completed job $J1"
check "requeued while followed" done1 "$J1"

# --- requeued while slurmlinkd is away (it knows nothing of the shim's report) ---
pod done2 OnFailure
ok wait_for 90 phase_is done2 Succeeded "a second pod succeeds"
J2=$(field done2 '{.metadata.annotations.slurmlink\.io/job-id}')
ok wait_for 30 is_state "$J2" COMPLETED "its Slurm job $J2 is COMPLETED"
d=$(cat "$CL/run/slurmlinkd.pid")
kill -9 "$d"
wait_for 30 dead "$d"
ok scontrol requeuehold "$J2" "while slurmlinkd is away, Slurm requeues job $J2 (held: it must not run before slurmlinkd is back)"
diag "$(scontrol show job "$J2" | grep -o 'JobState=[A-Z]* Reason=[A-Za-z]*')"
ok "$SLURMLINK" up --dir "$CL" "slurmlinkd starts again"
wait_for 30 alive
watch_phases done2
check "requeued while away" done2 "$J2"

# a later pod that runs to its end: the controller has polled the cancelled
# jobs since (a poll a quarter second); only then are the phases read
pod later Never
ok wait_for 90 phase_is later Succeeded "a later pod runs to its end meanwhile"
kill $WATCHES 2>/dev/null
is "$(sort -u "$CL/phases.done1" | tr '\n' ' ')/$(sort -u "$CL/phases.done2" | tr '\n' ' ')" "Succeeded /Succeeded " \
  "both pods showed no phase but Succeeded throughout"

# no writer moves a terminal pod to another phase (admin, pods/status)
W="The Pod \"done1\" is invalid: status.phase: Forbidden: a pod in a terminal phase (Succeeded) may not change phase"
is "$(kc patch pod done1 --subresource=status --type merge -p '{"status":{"phase":"Pending"}}' 2>&1 | grep -v '^Warning: ')" \
  "$W" "pods/status: Succeeded to Pending is refused (422)"
is "$(kc patch pod done1 --subresource=status --type merge -p '{"status":{"phase":"Failed"}}' 2>&1 | grep -v '^Warning: ')" \
  "$W" "pods/status: Succeeded to Failed is refused (422)"
