#!/bin/bash
# covers: src/ctl/ src/shim/ src/api/ src/slurmif/
# slow
# Pod lifecycle on a real Slurm cluster through an unmodified kubectl:
# submit, status, logs, events, GPUs next to sbatch jobs, delete (graceful,
# pending, force), Slurm-side cancel and time limit, nodes.
source "$(dirname "$0")/lib.sh"
plan 60

cluster_up --gpus 2 --cpus 8 || bail "cluster up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
KC=(kubectl --cache-dir "$CL/kcache")
pod() { # name restartPolicy command [extra yaml lines for the container]
  cat <<YAML
apiVersion: v1
kind: Pod
metadata:
  name: $1
spec:
  restartPolicy: $2
  terminationGracePeriodSeconds: ${GRACE:-30}
  containers:
  - name: main
    image: busybox
    command: ["sh", "-c", $(printf '%s' "$3" | /usr/bin/python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))')]
    resources:
      requests: {cpu: 100m, memory: 64Mi}
${4:-}
YAML
}
phase() { kc get pod "$1" -o jsonpath='{.status.phase}' 2>/dev/null; }
wait_phase() { # pod phase seconds
  local end=$((SECONDS + $3))
  while [ $SECONDS -lt $end ]; do [ "$(phase "$1")" = "$2" ] && return 0; sleep 0.2; done
  return 1
}

# --- a time limit from Slurm (its end is checked last) ------------------------
# Slurm's limits are whole minutes: the pod is created now and its TIMEOUT,
# a minute on, is waited for at the end, the rest of the file running meanwhile
pod late Never 'sleep 600' '  activeDeadlineSeconds: 30' | sed 's/^  activeDeadlineSeconds: 30$//' > "$CL/late.yaml"
sed -i 's/^  restartPolicy: Never$/  restartPolicy: Never\n  activeDeadlineSeconds: 30/' "$CL/late.yaml"
kc apply -f "$CL/late.yaml" >/dev/null
late_limit() { [ "$(squeue -h -t all -n default/late -o %l)" = "1:00" ]; }
ok wait_for 15 late_limit "activeDeadlineSeconds 30 becomes a 1-minute Slurm time limit"

# --- a GPU pod becomes a Slurm job with its own GPU --------------------------
pod gpu1 Never 'echo "gpu=$CUDA_VISIBLE_DEVICES job=$SLURM_JOB_ID"; sleep 1' '    resources: {limits: {nvidia.com/gpu: 1}, requests: {cpu: 100m, memory: 64Mi}}' \
  | sed '/^    resources:$/,/^      requests: {cpu: 100m, memory: 64Mi}$/d' > "$CL/gpu1.yaml"
like "$(kc apply -f "$CL/gpu1.yaml" 2>&1)" "pod/gpu1 created" "kubectl apply creates the pod"
job=""
for _ in $(seq 1 50); do job=$(kc get pod gpu1 -o jsonpath='{.metadata.annotations.slurmlink\.io/job-id}'); [ -n "$job" ] && break; sleep 0.1; done
ok test -n "$job" "the pod got a Slurm job id ($job)"
q=$(squeue -h -t all -j "$job" -o '%j|%u|%k|%b')
# %b is gres:gpu:1 up to Slurm 24.x, gres/gpu:1 from 25.x (TRES names)
like "$q" "^default/gpu1\|nobody\|slurmlink:uid=$(kc get pod gpu1 -o jsonpath='{.metadata.uid}')\|gres[:/]gpu:1$" "squeue shows NAMESPACE/NAME, the job user, the pod uid and one GPU (gres:gpu:1 or gres/gpu:1)"
ok wait_phase gpu1 Succeeded 60 "the GPU pod succeeds"
like "$(kc logs gpu1)" "^gpu=[01] job=$job$" "kubectl logs shows the container's output with its own GPU"
like "$(kc get pod gpu1 -o jsonpath='{.spec.nodeName} {.status.hostIP} {.status.containerStatuses[0].state.terminated.reason} {.status.containerStatuses[0].state.terminated.exitCode}')" "^node1 127.0.0.1 Completed 0$" "nodeName, hostIP, terminated reason and exit code"
ev=$(kc get events --field-selector involvedObject.name=gpu1 -o jsonpath='{range .items[*]}{.reason} {end}')
for r in Scheduled Started Completed; do like "$ev" "$r" "event $r recorded"; done
like "$(kc get pods)" "gpu1 +0/1 +Completed +0" "kubectl get pods shows Completed"

# --- a failing container ---------------------------------------------------------
pod fail1 Never 'echo oops >&2; exit 3' | kc apply -f - >/dev/null
ok wait_phase fail1 Failed 60 "a container exiting 3 fails the pod"
is "$(kc get pod fail1 -o jsonpath='{.status.containerStatuses[0].state.terminated.exitCode} {.status.containerStatuses[0].state.terminated.reason}')" "3 Error" "exit code 3, reason Error"
like "$(kc get pods fail1)" "fail1 +0/1 +Error" "STATUS Error"
is "$(kc logs fail1)" "oops" "stderr is in the log"

# --- a job Slurm refuses: clear condition, event, no retry ---------------------------
pod badpart Never 'echo never' | sed 's/^metadata:$/metadata:\n  annotations: {slurmlink.io\/partition: nosuchpartition}/' | kc apply -f - >/dev/null
ok wait_phase badpart Failed 20 "a pod for a partition Slurm does not have fails"
like "$(kc get pod badpart -o jsonpath='{.status.reason}: {.status.message}')" "^SubmitFailed: Slurm refused the job: Invalid partition name specified" "reason SubmitFailed with Slurm's own words"
like "$(kc get events --field-selector involvedObject.name=badpart -o jsonpath='{.items[*].reason}')" "FailedCreate" "a FailedCreate event"
is "$(squeue -h -t all -n default/badpart -o %i | wc -l)" 0 "no job was created"

# --- restartPolicy OnFailure: restarts counted ----------------------------------
pod retry1 OnFailure 'if [ -e /tmp/ok-$HOSTNAME-x ]; then exit 0; fi; n=$(cat /proc/self/stat >/dev/null; date +%s); exit 1' | kc apply -f - >/dev/null
restarted() { [ "$(kc get pod retry1 -o jsonpath='{.status.containerStatuses[0].restartCount}')" -ge 1 ] 2>/dev/null; }
ok wait_for 40 restarted "OnFailure restarts a failing container (restartCount ≥ 1)"
like "$(kc get pod retry1 -o jsonpath='{.status.containerStatuses[0].lastState.terminated.exitCode}')" "^1$" "lastState keeps the failed run's exit code"
kc delete pod retry1 --grace-period=0 --force >/dev/null 2>&1

# --- GPUs shared with sbatch jobs under one allocator ----------------------------
hold=$(sbatch --parsable --gres=gpu:1 -o /dev/null --wrap 'sleep 60')
pod gpu2 Never 'sleep 30' | sed 's/      requests: {cpu: 100m, memory: 64Mi}/      requests: {cpu: 100m, memory: 64Mi}\n      limits: {nvidia.com\/gpu: 1}/' | kc apply -f - >/dev/null
pod gpu3 Never 'echo ran' | sed 's/      requests: {cpu: 100m, memory: 64Mi}/      requests: {cpu: 100m, memory: 64Mi}\n      limits: {nvidia.com\/gpu: 1}/' | kc apply -f - >/dev/null
ok wait_phase gpu2 Running 30 "a GPU pod runs next to an sbatch GPU job"
waiting() { kc get pod gpu3 -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].message}' | grep -q 'is pending: Resources'; }
# The reason is Slurm's: its job shows "Priority" until a scheduling pass
# (one an event such as a submission or a job start triggers, else the
# periodic backfill pass, bf_interval) tries it against the GPUs, and the
# controller copies it at its next job poll. A slow machine stretches that
# pass: the limit is a hang guard, not a speed check (benchmarks measure).
ok wait_for 120 waiting "the next GPU pod waits: PodScheduled message says 'pending: Resources'" \
  || diag "gpu3: $(kc get pod gpu3 -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].message}'); squeue: $(squeue -h -o '%i %T %r' | tr '\n' ' ')"
like "$(kc get pod gpu3 -o jsonpath='{.status.phase} {.status.conditions[?(@.type=="PodScheduled")].status}')" "^Pending False$" "it is Pending and not scheduled"
like "$(squeue -h -o '%i %T %r' | sort)" "$hold RUNNING" "the sbatch job keeps its GPU"

# --- delete a pending pod: the queued job is cancelled --------------------------
j3=$(kc get pod gpu3 -o jsonpath='{.metadata.annotations.slurmlink\.io/job-id}')
ok timeout 30 "${KC[@]}" delete pod gpu3 "kubectl delete of a pending pod returns"
nok "${KC[@]}" get pod gpu3 "the pending pod is gone"
like "$(squeue -h -t all -j "$j3" -o %T 2>/dev/null)" "CANCELLED" "its queued job was cancelled"

# --- delete a running pod: SIGTERM, grace period, then gone ----------------------
# a grace period far longer than the test waits: only the container's own
# exit on SIGTERM can end the job in time
GRACE=600 pod term1 Never 'trap "echo got TERM; exit 0" TERM; echo started; while :; do sleep 0.2; done' | kc apply -f - >/dev/null
ok wait_phase term1 Running 30 "a long pod runs"
dir=$(ls -d "$CL"/pods/default/term1-*)
# the pod folder goes with the pod: follow its log to see what the container said
kc logs -f term1 >"$CL/term1.log" 2>&1 &
logs_pid=$!
wait_for 10 grep -q started "$CL/term1.log"
jt=$(kc get pod term1 -o jsonpath='{.metadata.annotations.slurmlink\.io/job-id}')
ok timeout 300 "${KC[@]}" delete pod term1 "kubectl delete of a running pod returns once it is gone"
# had deletion waited out the grace period, slurmlinkd would have cancelled
# the job (CANCELLED); the container's exit on SIGTERM ended it instead
wait_for 60 bash -c "! squeue -h -t all -j '$jt' -o %T 2>/dev/null | grep -qE 'RUNNING|COMPLETING'"
nok "${KC[@]}" get pod term1 "the pod is gone"
wait_for 30 bash -c "! kill -0 $logs_pid"
like "$(cat "$CL/term1.log")" "got TERM" "the container received SIGTERM (its log says so)"
# it ended by its own trap (exit 0): the job completed, nobody killed it
# after the 600 s grace period (that would be CANCELLED)
job_state() { squeue -h -t all -j "$1" -o %T 2>/dev/null; }
is "$(job_state "$jt")" "COMPLETED" "its Slurm job completed on its own: the trap ended it within the grace period"
ok wait_for 30 test ! -e "$dir" "... and its pod folder is removed with it"

# --- a container ignoring SIGTERM: killed once its grace period is over ------------
# the trap logs the SIGTERM and carries on; the shim kills the container
# when the 2 s are over. Times are the container's own (date +%s, seconds)
# and the test's (ms): lower bounds only, the end is waited for.
now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
GRACE=2 pod stub1 Never 'trap "echo TERM-at \$(date +%s)" TERM; echo started; while :; do echo "tick $(date +%s)"; sleep 0.2; done' | kc apply -f - >/dev/null
ok wait_phase stub1 Running 30 "a pod ignoring SIGTERM (grace period 2 s) runs"
js=$(kc get pod stub1 -o jsonpath='{.metadata.annotations.slurmlink\.io/job-id}')
kc logs -f stub1 >"$CL/stub1.log" 2>&1 &
logs_pid=$!
wait_for 10 grep -q started "$CL/stub1.log"
t0=$(now_ms)
ok timeout 120 "${KC[@]}" delete pod stub1 "kubectl delete of a pod ignoring SIGTERM returns once it is gone"
el=$(( $(now_ms) - t0 ))
nok "${KC[@]}" get pod stub1 "the pod is gone"
ok test "$el" -ge 2000 "not before its 2 s grace period (${el} ms)"
ended() { [[ "$(job_state "$js")" =~ ^(COMPLETED|FAILED|CANCELLED)$ ]]; }
ok wait_for 30 ended "its Slurm job $js ended ($(job_state "$js"))"
wait_for 30 bash -c "! kill -0 $logs_pid"
term_at=$(sed -n 's/^TERM-at //p' "$CL/stub1.log" | head -1)
last_tick=$(sed -n 's/^tick //p' "$CL/stub1.log" | tail -1)
ok test -n "$term_at" "the container got SIGTERM first (its trap logged it)"
ok test "${last_tick:-0}" -ge "$(( ${term_at:-0} + 1 ))" "and went on running after it (TERM at ${term_at:-?}, last tick ${last_tick:-?})"

# --- a shim that does not answer SIGTERM: the job is cancelled after grace + 3 s ----
# the shim of the job is stopped (SIGSTOP, as a hung one would be): only the
# controller's SIGKILL through Slurm, grace period plus 3 s after the
# SIGTERM, can end the job
GRACE=2 pod hung1 Never 'trap "" TERM; echo started; while :; do sleep 1; done' | kc apply -f - >/dev/null
ok wait_phase hung1 Running 30 "another pod ignoring SIGTERM runs"
jh=$(kc get pod hung1 -o jsonpath='{.metadata.annotations.slurmlink\.io/job-id}')
shims_of() { # the job's slurmlink-shim processes
  local p
  for p in $(pgrep -f slurmlink-shim); do
    tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | grep -qx "SLURM_JOB_ID=$1" && echo "$p"
  done
}
hung=$(shims_of "$jh")
ok test -n "$hung" "the job's shim runs (pids: $(echo $hung))"
kill -STOP $hung
t0=$(now_ms)
ok timeout 120 "${KC[@]}" delete pod hung1 "kubectl delete returns once the controller has cancelled the job"
el=$(( $(now_ms) - t0 ))
nok "${KC[@]}" get pod hung1 "the pod is gone"
ok test "$el" -ge 5000 "not before the grace period plus 3 s (${el} ms)"
cancelled() { [ "$(job_state "$jh")" = CANCELLED ]; }
ok wait_for 60 cancelled "its Slurm job was cancelled (COMPLETING, then CANCELLED)"
gone_procs() { for p in $hung; do [ -e "/proc/$p" ] && return 1; done; return 0; }
ok wait_for 30 gone_procs "the stopped shim is gone with its job"

# --- force delete kills at once ------------------------------------------------------
pod force1 Never 'trap "" TERM; while :; do sleep 1; done' | kc apply -f - >/dev/null
ok wait_phase force1 Running 30 "a pod ignoring SIGTERM runs"
jf=$(kc get pod force1 -o jsonpath='{.metadata.annotations.slurmlink\.io/job-id}')
ok timeout 15 "${KC[@]}" delete pod force1 --grace-period=0 --force "force delete returns at once"
gone_from_queue() { ! squeue -h -j "$jf" -t R,PD,CG -o %i 2>/dev/null | grep -q .; }
ok wait_for 15 gone_from_queue "its job is killed"

# --- Slurm-side cancel (an admin's scancel) shows in the pod ----------------------------
pod victim Never 'sleep 300' | kc apply -f - >/dev/null
ok wait_phase victim Running 30 "a pod runs"
scancel "$(kc get pod victim -o jsonpath='{.metadata.annotations.slurmlink\.io/job-id}')"
ok wait_phase victim Failed 20 "scancel fails the pod"
reason_is() { [ "$(kc get pod "$1" -o jsonpath='{.status.reason}')" = "$2" ]; }
ok wait_for 5 reason_is victim Cancelled "with reason Cancelled (from Slurm's CANCELLED)"

# --- a time limit from Slurm: activeDeadlineSeconds → --time → TIMEOUT ------------
# (the pod was created first thing: its minute ran while the rest did)
ok wait_phase late Failed 150 "the time limit fails the pod"
ok wait_for 5 reason_is late DeadlineExceeded "with reason DeadlineExceeded (from Slurm's TIMEOUT)"

# --- nodes from Slurm -----------------------------------------------------------------
like "$(kc get nodes)" "node1 +Ready" "kubectl get nodes shows node1 Ready"
like "$(kc get node node1 -o jsonpath='{.status.capacity.nvidia\.com/gpu} {.status.capacity.cpu}')" "^2 8$" "capacity: 2 GPUs, 8 CPUs from Slurm"
scontrol update nodename=node1 state=drain reason=maintenance
drained() { kc get nodes | grep -q 'SchedulingDisabled'; }
ok wait_for 10 drained "a drained Slurm node shows SchedulingDisabled"
like "$(kc get node node1 -o jsonpath='{.status.conditions[0].message}')" "maintenance" "the drain reason is in the condition message"
scontrol update nodename=node1 state=resume
kc delete pod gpu2 --grace-period=0 --force >/dev/null 2>&1
scancel "$hold"
done_testing
