#!/bin/bash
# covers: src/daemon/ src/ctl/ src/api/ src/store/
# slow
# serial: the ThreadSanitizer daemon is several times slower than the plain one: not beside another heavy file
# slurmlinkd built with ThreadSanitizer (make tsan; this file builds nothing)
# through the lifecycle and recovery scenarios on the real cluster: pods
# created, run and finished while their shims push status into the API's
# threads and the controller thread polls Slurm; a failing pod, a restarting
# one, graceful deletes (a container that exits on SIGTERM, one that ignores
# it), a force delete; kill -9 and restart while pods run; a clean stop.
# Any report TSan writes fails the test: TSAN_OPTIONS log_path gives each
# process that reports a file $TS/tsan.PID, and halt_on_error=0 lets the run
# go on so that every report of the run is there.
SL_SANITIZER=tsan
source "$(dirname "$0")/lib.sh"
plan 28

[ -x "$SLURMLINKD" ] || bail "no TSan daemon at $SLURMLINKD (make tsan)"
TS=$(tmpdir)
on_exit "rm -rf '$TS'"
# The jobs' shim is the ASan (else plain) build, not the TSan one: a
# charliecloud container's private root needs unshare(CLONE_NEWUSER), which
# the kernel refuses (EINVAL) to a multi-threaded process, and TSan restarts
# its background thread in every forked child. `up` takes the shim from
# beside the daemon it is given.
SHIMB=$ROOT/build-asan; [ -x "$SHIMB/slurmlink-shim" ] || SHIMB=$ROOT/build
BIN=$(mktemp -d /tmp/sl-tsan-bin.XXXXXX) # the jobs' users must reach the shim
on_exit "rm -rf '$BIN'"
chmod 755 "$BIN"
ln -s "$SLURMLINKD" "$BIN/slurmlinkd"
ln -s "$SHIMB/slurmlink-shim" "$BIN/slurmlink-shim"
export SLURMLINKD=$BIN/slurmlinkd
export TSAN_OPTIONS="halt_on_error=0 exitcode=66 suppressions=$ROOT/t/tsan.supp log_path=$TS/tsan"
cluster_up --gpus 1 --cpus 8 || bail "cluster up with the TSan daemon"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
daemon_pid() { cat "$CL/run/slurmlinkd.pid"; }
restart_daemon() { # what `up` said goes to the TAP stream when it fails
  "$SLURMLINK" up --dir "$CL" >"$TS/up.log" 2>&1 && return 0
  diag "$(cat "$TS/up.log")"; return 1
}
is_tsan_daemon() { # the daemon maps libtsan and has our TSAN_OPTIONS
  local p; p=$(daemon_pid)
  grep -q libtsan "/proc/$p/maps" && tr '\0' '\n' <"/proc/$p/environ" | grep -qxF "TSAN_OPTIONS=$TSAN_OPTIONS"
}
pod() { # name restartPolicy grace shell-command
  printf -- '---\napiVersion: v1\nkind: Pod\nmetadata: {name: %s}\nspec:\n  restartPolicy: %s\n  terminationGracePeriodSeconds: %s\n  containers:\n  - name: main\n    image: busybox\n    command: ["sh", "-c", %s]\n    resources: {requests: {cpu: 100m, memory: 32Mi}}\n' \
    "$1" "$2" "$3" "$(printf '%s' "$4" | /usr/bin/python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))')"
}
phase() { kc get pod "$1" -o jsonpath='{.status.phase}' 2>/dev/null; }
phase_is() { [ "$(phase "$1")" = "$2" ]; }
count_phase() { kc get pods -o jsonpath='{range .items[*]}{.status.phase}{"\n"}{end}' | grep -c "^$1$"; }
gone() { ! kc get pod "$1" >/dev/null 2>&1; }
ok is_tsan_daemon "slurmlinkd is the ThreadSanitizer build, with the test's TSAN_OPTIONS"
# a watch open through the first part (the API's watch hub, on its own thread)
kc get pods -w >"$TS/watch.log" 2>&1 &
watch_pid=$!
on_exit "kill $watch_pid"

# --- many pods at once: pushes on API threads, polls on the controller's ------
for i in $(seq 1 12); do pod "many$i" Never 30 "echo out-$i; sleep 1"; done | kc apply -f - >/dev/null
all_ok() { [ "$(count_phase Succeeded)" -ge 12 ]; }
ok wait_for 240 all_ok "12 pods created at once all succeed"
is "$(kc logs many7)" "out-7" "a pod's log"
pod fail1 Never 30 'echo oops >&2; exit 3' | kc apply -f - >/dev/null
ok wait_for 120 phase_is fail1 Failed "a container exiting 3 fails its pod"
pod crash1 OnFailure 30 'echo crash; exit 1' | kc apply -f - >/dev/null
restarted() { [ "$(kc get pod crash1 -o jsonpath='{.status.containerStatuses[0].restartCount}')" -ge 2 ] 2>/dev/null; }
ok wait_for 180 restarted "a crashing container restarts (restartCount 2 or more)"
kc delete pods --all --wait=false >/dev/null 2>&1
none() { [ -z "$(kc get pods -o name 2>/dev/null)" ]; }
ok wait_for 180 none "deleting them all empties the namespace"

# --- graceful deletes: a container that exits on SIGTERM, one that ignores it ---
pod term1 Never 20 'trap "echo got TERM; exit 0" TERM; echo started; while :; do sleep 0.2; done' | kc apply -f - >/dev/null
pod stub1 Never 2 'trap "" TERM; echo started; while :; do sleep 1; done' | kc apply -f - >/dev/null
ok wait_for 120 phase_is term1 Running "a pod handling SIGTERM runs"
ok wait_for 120 phase_is stub1 Running "a pod ignoring SIGTERM runs"
kc logs -f term1 >"$TS/term1.log" 2>&1 &
wait_for 30 grep -q started "$TS/term1.log"
ok timeout 120 kubectl --cache-dir "$CL/kcache" delete pod term1 "kubectl delete of the SIGTERM-handling pod returns"
ok gone term1 "it is gone"
wait_for 30 grep -q "got TERM" "$TS/term1.log"
like "$(cat "$TS/term1.log")" "got TERM" "its container ran its SIGTERM trap"
ok timeout 120 kubectl --cache-dir "$CL/kcache" delete pod stub1 "kubectl delete of the pod ignoring SIGTERM returns (killed after its grace period)"
ok gone stub1 "it is gone"
pod force1 Never 30 'trap "" TERM; while :; do sleep 1; done' | kc apply -f - >/dev/null
ok wait_for 120 phase_is force1 Running "another pod ignoring SIGTERM runs"
ok timeout 60 kubectl --cache-dir "$CL/kcache" delete pod force1 --grace-period=0 --force "force delete returns"
ok wait_for 60 gone force1 "it is gone"

# --- a namespace with a quota, deleted with its pod (the API's janitor) ---------
kc create namespace tsq >/dev/null
kc -n tsq create quota q --hard=pods=2 >/dev/null
pod nsp1 Never 30 'sleep 600' | kc -n tsq apply -f - >/dev/null
nsp_runs() { [ "$(kc -n tsq get pod nsp1 -o jsonpath='{.status.phase}')" = Running ]; }
ok wait_for 120 nsp_runs "a pod runs in a namespace with a quota"
quota_used() { [ "$(kc -n tsq get quota q -o jsonpath='{.status.used.pods}')" = 1 ]; }
ok wait_for 60 quota_used "the quota counts it"
ok timeout 240 kubectl --cache-dir "$CL/kcache" delete namespace tsq "deleting the namespace, its running pod with it, completes"
like "$(cat "$TS/watch.log")" "many12" "the open watch saw the pods come and go"

# --- recovery: kill -9 while pods run, restart, the pods converge ---------------
for i in $(seq 1 8); do pod "rec$i" Never 30 "sleep 4; echo rec-$i"; done | kc apply -f - >/dev/null
some_run() { [ "$(count_phase Running)" -ge 1 ]; }
ok wait_for 180 some_run "pods run before the kill"
pid=$(daemon_pid)
port=$(jq -r .api_port "$CL/cluster.json")
kill -9 "$pid"
# `up` starts it on its old port, which must be free first: the killed
# daemon's sockets (but TIME-WAIT, which a listener may share) must be gone
port_free() { [ -z "$(ss -Htan state all "sport = :$port" | grep -v TIME-WAIT)" ]; }
wait_for 60 proc_gone "$pid"
wait_for 60 port_free
restart_daemon || diag "sockets on port $port: $(ss -tanp state all "sport = :$port")"
ok kc get pods "slurmlinkd (TSan) restarts after kill -9 and answers"
ok is_tsan_daemon "the restarted daemon is the TSan build, with the test's TSAN_OPTIONS"
rec_done() { [ "$(count_phase Succeeded)" = 8 ]; }
ok wait_for 300 rec_done "all 8 pods succeed across the restart"
is "$(kc logs rec8)" "rec-8" "the log of a pod that ran across the restart"

# --- a Job: the Job controller's pass, its array's pushes on the API threads ---
kc apply -f - >/dev/null <<'YAML'
apiVersion: batch/v1
kind: Job
metadata: {name: tj}
spec:
  completions: 4
  parallelism: 2
  completionMode: Indexed
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: c, image: busybox, command: [sh, -c, 'echo "i=$JOB_COMPLETION_INDEX"']}
YAML
ok kc wait --for=condition=complete job/tj --timeout=300s "a Job of 4 indexes (one array) completes under the TSan daemon"

# --- a clean stop: TSan's reports of threads ending, the store closing ---------
pid=$(daemon_pid)
kill -TERM "$pid"
ok wait_for 120 proc_gone "$pid" "slurmlinkd (TSan) exits after SIGTERM"
reports=$(ls "$TS"/tsan.* 2>/dev/null)
is "$reports" "" "ThreadSanitizer wrote no report"
for f in $reports; do diag "$(grep -v '^ *$' "$f" | head -60)"; done
done_testing
