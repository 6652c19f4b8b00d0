#!/bin/bash
# covers: src/shim/ src/shimlib/
# slurmlink-shim run directly (no Slurm) on hand-made pod folders: CRI logs,
# exit codes, restart policies and back-off, init containers, SIGTERM and the
# grace period, pushes to a real HTTP receiver, an unreachable daemon,
# byte-exact arguments and environment, charliecloud containers.
source "$(dirname "$0")/lib.sh"
plan 109

SHIM=${SLURMLINK_SHIM:-$ROOT/build/slurmlink-shim}
[ -x "$ROOT/build-asan/slurmlink-shim" ] && [ -z "${SLURMLINK_SHIM:-}" ] && SHIM=$ROOT/build-asan/slurmlink-shim
PY=/usr/bin/python3
export USER=${USER:-$(id -un)}   # ch-run needs it; a Slurm job always has it
T=$(tmpdir)
on_exit "rm -rf '$T'"
diag "shim: $SHIM, work: $T"

now_ms() { echo $(( $(date +%s%N) / 1000000 )); }
# pod NAME JSON-FRAGMENT: a pod folder with a shim.json; prints the folder
pod() {
  local d=$T/$1
  mkdir -p "$d"
  printf '{"apiVersion":"slurmlink.io/v1","kind":"ShimSpec","pod":{"namespace":"default","name":"%s","uid":"uid-%s"},%s}\n' "$1" "$1" "$2" >"$d/shim.json"
  echo "$d"
}
# run_shim DIR: run to completion; sets RC and MS (elapsed)
run_shim() {
  local t0; t0=$(now_ms)
  timeout -s KILL 60 "$SHIM" --pod-dir "$1" >"$1/shim.out" 2>&1; RC=$?   # a hang fails, never blocks
  MS=$(( $(now_ms) - t0 ))
}
j() { jq -r "$1" "$2"; }               # j FILTER FILE
ev() { jq -c "select(.event==\"$1\")" "$2/events.jsonl"; }   # ev EVENT DIR
ts_re='^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{9}Z (stdout|stderr) [FP] '

# --- 1. one host container: logs, exit code, status, events -------------------
D=$(pod basic '"restartPolicy":"Never","containers":[{"name":"main","argv":["/bin/sh","-c","echo hi; echo err >&2; exit 3"]}]')
run_shim "$D"
is "$RC" 3 "exit code of the shim is the container's (3)"
log=$(cat "$D/logs/main/0.log" 2>/dev/null)
is "$(grep -c '' <<<"$log")" 2 "two log lines"
ok grep -qE "${ts_re}hi\$" <(grep ' stdout ' <<<"$log") "stdout line in CRI format: TIMESTAMP stdout F hi"
like "$(grep ' stdout ' <<<"$log")" "^[^ ]+ stdout F hi$" "stdout tagged F"
like "$(grep ' stderr ' <<<"$log")" "^[^ ]+ stderr F err$" "stderr kept apart and tagged stderr"
is "$(j '.containerStatuses[0].state.terminated.exitCode' "$D/status.json")" 3 "status.json: exitCode 3"
is "$(j '.containerStatuses[0].state.terminated.reason' "$D/status.json")" Error "status.json: reason Error"
like "$(j '.containerStatuses[0].state.terminated.finishedAt' "$D/status.json")" '^[0-9-]+T[0-9:]+\.[0-9]{6}Z$' "finishedAt is RFC 3339 with microseconds"
is "$(j '.phase' "$D/status.json")" Failed "status.json: phase Failed"
is "$(j '.exitCode' "$D/status.json")" 3 "status.json: pod exitCode 3"
is "$(cat "$D/shim.pid" 2>/dev/null)" "$(j '.shimPid' "$D/status.json")" "shim.pid matches status.json's shimPid"
is "$(jq -r .event "$D/events.jsonl" | tr '\n' ' ')" "pod-started started exited pod-finished " "events.jsonl: pod-started, started, exited, pod-finished"
is "$(ev exited "$D" | jq -r '"\(.container) \(.exitCode) \(.signal) \(.reason) \(.restartCount) \(.init)"')" "main 3 0 Error 0 false" "exited event carries container, exit code, signal, reason, restartCount, init"
is "$(ev pod-finished "$D" | jq -r '"\(.exitCode) \(.phase) \(.pod_uid)"')" "3 Failed uid-basic" "pod-finished event with the exit code"
is "$(jq -r .seq "$D/events.jsonl" | tr '\n' ' ')" "1 2 3 4 " "events numbered in order"

# --- 2. several containers: the first failing one decides ---------------------
D=$(pod multi '"restartPolicy":"Never","containers":[
  {"name":"slow-fail","argv":["/bin/sh","-c","sleep 1; exit 4"]},
  {"name":"fast-fail","argv":["/bin/sh","-c","exit 5"]},
  {"name":"good","argv":["/bin/sh","-c","sleep 0.2"]}]')
run_shim "$D"
is "$RC" 5 "several containers: exit code of the first to fail (5, not 4)"
is "$(j '[.containerStatuses[].state.terminated.exitCode]|join(",")' "$D/status.json")" "4,5,0" "each container's exit code recorded"
s1=$(ev started "$D" | jq -r .startedAt | sort | head -1); s3=$(ev started "$D" | jq -r .startedAt | sort | tail -1)
ok $PY -c "import sys,datetime as d; f=lambda s: d.datetime.strptime(s,'%Y-%m-%dT%H:%M:%S.%fZ'); sys.exit((f('$s3')-f('$s1')).total_seconds() > 0.5)" "app containers start together"
D=$(pod allgood '"restartPolicy":"Never","containers":[{"name":"a","argv":["true"]},{"name":"b","argv":["/bin/sh","-c","exit 0"]}]')
run_shim "$D"
is "$RC" 0 "all containers succeed: exit 0"
is "$(j .phase "$D/status.json")" Succeeded "phase Succeeded"
is "$(j '[.containerStatuses[].state.terminated.reason]|join(",")' "$D/status.json")" "Completed,Completed" "reason Completed"

# --- 3. init containers ------------------------------------------------------
O=$T/order; : >"$O"
D=$(pod init '"restartPolicy":"Never",
  "initContainers":[{"name":"one","argv":["/bin/sh","-c","sleep 0.2; echo one >>'"$O"'"]},
                    {"name":"two","argv":["/bin/sh","-c","echo two >>'"$O"'"]}],
  "containers":[{"name":"app","argv":["/bin/sh","-c","echo app >>'"$O"'"]}]')
run_shim "$D"
is "$RC" 0 "pod with init containers succeeds"
is "$(tr '\n' ' ' <"$O")" "one two app " "init containers run in order, then the app"
is "$(jq -r 'select(.container) | "\(.event):\(.container)"' "$D/events.jsonl" | tr '\n' ' ')" "started:one exited:one started:two exited:two started:app exited:app " "each init container ends before the next starts"
is "$(j '[.initContainerStatuses[].state.terminated.reason]|join(",")' "$D/status.json")" "Completed,Completed" "init container statuses kept"

: >"$O"
D=$(pod initfail '"restartPolicy":"Never",
  "initContainers":[{"name":"one","argv":["/bin/sh","-c","echo one >>'"$O"'"]},
                    {"name":"two","argv":["/bin/sh","-c","echo broken >&2; exit 7"]},
                    {"name":"three","argv":["/bin/sh","-c","echo three >>'"$O"'"]}],
  "containers":[{"name":"app","argv":["/bin/sh","-c","echo app >>'"$O"'"]}]')
run_shim "$D"
is "$RC" 7 "failing init container with Never: the pod fails with its code"
is "$(tr '\n' ' ' <"$O")" "one " "later init containers and the app never start"
ok test ! -e "$D/logs/app" "no log for the app container"
is "$(j '.containerStatuses[0].state.waiting.reason' "$D/status.json")" PodInitializing "app container stays waiting (PodInitializing)"
is "$(j '.initContainerStatuses[1].state.terminated.exitCode' "$D/status.json")" 7 "the failed init container's status"
like "$(cat "$D/logs/two/0.log")" "stderr F broken" "failed init container's log"

# --- 4. restart policies and back-off ------------------------------------------
export SLURMLINK_SHIM_BACKOFF_MS=200
C=$T/count; rm -f "$C"
D=$(pod onfail '"restartPolicy":"OnFailure","containers":[{"name":"main","argv":["/bin/sh","-c","n=$(cat '"$C"' 2>/dev/null || echo 0); n=$((n+1)); echo $n >'"$C"'; echo run $n; [ $n -ge 3 ]"]}]')
run_shim "$D"
is "$RC" 0 "OnFailure: fails twice, then succeeds: exit 0"
is "$(j '.containerStatuses[0].restartCount' "$D/status.json")" 2 "restartCount 2"
is "$(cat "$D"/logs/main/{0,1,2}.log 2>/dev/null | sed 's/^[^ ]* //' | tr '\n' '|')" "stdout F run 1|stdout F run 2|stdout F run 3|" "one log file per run: 0.log 1.log 2.log"
is "$(j '.containerStatuses[0].lastState.terminated.exitCode' "$D/status.json")" 1 "lastState holds the previous run (exit 1)"
is "$(ev exited "$D" | jq -r '.restartInMs // "none"' | tr '\n' ' ')" "200 400 none " "back-off doubles: 200 ms, 400 ms (SLURMLINK_SHIM_BACKOFF_MS=200)"
gap_ok=$(jq -rs '[.[]|select(.event=="exited" or .event=="started")|.time] | .[1:] | join(" ")' "$D/events.jsonl" | $PY -c '
import sys, datetime as d
t=[d.datetime.strptime(s,"%Y-%m-%dT%H:%M:%S.%fZ") for s in sys.stdin.read().split()]
# exited0 started1 exited1 started2 exited2: gaps exited->started
g=[(t[i+1]-t[i]).total_seconds() for i in (0,2)]
print("yes" if g[0]>=0.19 and g[1]>=0.39 and g[1]<2 else "no %s" % g)')
is "$gap_ok" yes "restarts wait for the back-off delay"

rm -f "$C"
D=$(pod initretry '"restartPolicy":"OnFailure","initContainers":[{"name":"flaky","argv":["/bin/sh","-c","n=$(cat '"$C"' 2>/dev/null || echo 0); n=$((n+1)); echo $n >'"$C"'; [ $n -ge 2 ]"]}],"containers":[{"name":"app","argv":["true"]}]')
run_shim "$D"
is "$RC" 0 "init container retried under OnFailure, then the app runs"
is "$(j '.initContainerStatuses[0].restartCount' "$D/status.json")" 1 "init container restartCount 1"

# (the TERM trap keeps the outcome fixed should TERM land during a 1 ms run)
D=$(pod always '"restartPolicy":"Always","terminationGracePeriodSeconds":2,"containers":[{"name":"main","argv":["/bin/sh","-c","trap \"exit 0\" TERM; echo tick"]}]')
"$SHIM" --pod-dir "$D" >"$D/shim.out" 2>&1 & spid=$!
restarted() { [ "$(jq -r '.containerStatuses[0].restartCount' "$D/status.json" 2>/dev/null)" -ge 2 ]; }
ok wait_for 10 restarted "Always: a container that exits 0 is restarted"
kill -TERM $spid; wait $spid; rc=$?
is "$rc" 0 "Always pod stopped by SIGTERM while in back-off: exit 0 (its runs succeeded)"
is "$(ev terminating "$D" | wc -l)" 1 "terminating event"
unset SLURMLINK_SHIM_BACKOFF_MS

# --- 5. SIGTERM and the grace period -------------------------------------------
start_bg() { "$SHIM" --pod-dir "$1" >"$1/shim.out" 2>&1 & SPID=$!; }
running() { jq -e '[.containerStatuses[].state.running]|all' "$1/status.json" >/dev/null 2>&1; }
D=$(pod trap '"restartPolicy":"Never","terminationGracePeriodSeconds":10,"containers":[{"name":"main","argv":["/bin/sh","-c","trap \"sleep 1; echo bye; exit 42\" TERM; echo up; while :; do sleep 0.1; done"]}]')
start_bg "$D"
ok wait_for 60 running "$D" "container running"
cpid=$(j '.containerStatuses[0].pid' "$D/status.json")
ok kill -0 "$cpid" "status.json has the running container's pid ($cpid)"
t0=$(now_ms); kill -TERM $SPID; wait $SPID; rc=$?; el=$(( $(now_ms) - t0 ))
is "$rc" 42 "container that handles TERM and exits 42 after 1 s: shim exits 42"
ok test $el -ge 900 "it was given its time, not killed early (${el} ms)"
like "$(cat "$D/logs/main/0.log")" "stdout F bye" "the container's last words are logged"
is "$(ev exited "$D" | jq -r '"\(.exitCode) \(.signal) \(.reason)"')" "42 0 Error" "exit recorded as exited 42"
is "$(j .terminating "$D/status.json")" true "status.json says terminating"

D=$(pod stubborn '"restartPolicy":"Always","terminationGracePeriodSeconds":1,"containers":[{"name":"main","argv":["/bin/sh","-c","trap \"\" TERM; while :; do sleep 0.1; done"]},{"name":"polite","argv":["sleep","600"]}]')
start_bg "$D"
ok wait_for 60 running "$D" "two containers running"
t0=$(now_ms); kill -TERM $SPID; wait $SPID; rc=$?; el=$(( $(now_ms) - t0 ))
ok test $el -ge 950 "container ignoring TERM is killed after the 1 s grace, not before (${el} ms)"
is "$(j '[.containerStatuses[].state.terminated|"\(.exitCode)/\(.signal)/\(.reason)"]|join(" ")' "$D/status.json")" "137/9/Error 143/15/Error" "SIGKILLed (137/9) and TERMed (143/15) recorded"
is "$rc" 143 "shim exit code: the first to fail (the polite one, 143)"
is "$(j '.containerStatuses[0].restartCount' "$D/status.json")" 0 "no restart once terminating, even with Always"

# a 10 min back-off: waiting for it would outlast the 120 s wait below
D=$(pod backoffterm '"restartPolicy":"OnFailure","containers":[{"name":"main","argv":["/bin/sh","-c","exit 9"]}]')
SLURMLINK_SHIM_BACKOFF_MS=600000 start_bg "$D"
inbackoff() { [ "$(jq -r '.containerStatuses[0].state.waiting.reason' "$D/status.json" 2>/dev/null)" = CrashLoopBackOff ]; }
ok wait_for 60 inbackoff "failed container waits in CrashLoopBackOff"
kill -TERM $SPID
ok wait_for 120 proc_gone $SPID "SIGTERM during back-off: the shim ends without waiting for the back-off"
wait $SPID; rc=$?
is "$rc" 9 "with the last exit code"

D=$(pod orphan '"restartPolicy":"Never","containers":[{"name":"main","argv":["/bin/sh","-c","sleep 987 & echo started"]}]')
run_shim "$D"
is "$RC" 0 "a background child left by the container does not hold the pod (not killed by run_shim's 60 s limit)"
ok test -z "$(pgrep -f '^sleep 987$')" "and it is stopped with the container"

# --- 5b. sidecars (restartable init containers, listed with the apps) --------------
D=$(pod sidecar '"restartPolicy":"Never","terminationGracePeriodSeconds":5,"containers":[
  {"name":"main","argv":["/bin/sh","-c","sleep 0.6; exit 3"]},
  {"name":"log","sidecar":true,"argv":["/bin/sh","-c","trap \"echo stopping; exit 0\" TERM; echo side; while :; do sleep 0.1; done"]},
  {"name":"crashy","sidecar":true,"argv":["/bin/sh","-c","exit 1"]}]')
SLURMLINK_SHIM_BACKOFF_MS=100 run_shim "$D"
is "$RC" 3 "sidecars do not count for the pod's result (main's 3)"
is "$(ev exited "$D" | jq -r 'select(.container!="crashy") | .container' | tr '\n' ' ')" "main log " "sidecars are stopped once the app containers finished (main exits first, then the sidecar)"
is "$(j '.containerStatuses[1].state.terminated.exitCode' "$D/status.json")" 0 "the sidecar got SIGTERM and exited 0"
like "$(cat "$D/logs/log/0.log")" "stdout F stopping" "its TERM handler ran"
ok test "$(j '.containerStatuses[2].restartCount' "$D/status.json")" -ge 1 "a failing sidecar restarts even with restartPolicy Never"
is "$(j '[.containerStatuses[]|(.sidecar // false|tostring)]|join(",")' "$D/status.json")" "false,true,true" "status.json marks sidecars"
is "$(ev exited "$D" | jq -r 'select(.container=="log") | .sidecar')" true "events mark sidecars"
D=$(pod sidecar2 '"restartPolicy":"Never","terminationGracePeriodSeconds":1,"containers":[
  {"name":"main","argv":["sleep","0.5"]},
  {"name":"stubborn","sidecar":true,"argv":["/bin/sh","-c","trap \"\" TERM; while :; do sleep 0.1; done"]}]')
run_shim "$D"
is "$RC" 0 "a sidecar killed after its grace period does not fail the pod"
is "$(j '.containerStatuses[1].state.terminated|"\(.exitCode) \(.signal)"' "$D/status.json")" "137 9" "the stubborn sidecar was SIGKILLed"
ok test $MS -ge 950 "after the 1 s grace period (${MS} ms)"

# --- 5c. envRuntime and cleanup ----------------------------------------------------
mkdir -p "$T/shm/slurmlink-uid-c/vol"; echo data >"$T/shm/slurmlink-uid-c/vol/f"
D=$(pod rtenv '"restartPolicy":"Never","cleanup":["'"$T"'/shm/slurmlink-uid-c"],"containers":[{"name":"main","argv":["/bin/sh","-c","printf \"%s|%s|%s\" \"$NODE\" \"$IP\" \"$IPS\"; cat '"$T"'/shm/slurmlink-uid-c/vol/f >&2"],"envRuntime":{"NODE":"spec.nodeName","IP":"status.hostIP","IPS":"status.podIPs"}}]')
SLURMD_NODENAME=node42 run_shim "$D"
is "$RC" 0 "pod with envRuntime and cleanup"
like "$(sed -n 's/^[^ ]* stdout P //p' "$D/logs/main/0.log")" '^node42\|[0-9a-f.:]+\|[0-9a-f.:,]+$' "envRuntime: node name and addresses filled in on the node"
like "$(cat "$D/logs/main/0.log")" "stderr F data" "the cleanup folder was there while the pod ran"
ok test ! -e "$T/shm/slurmlink-uid-c" "cleanup folder removed when the pod finished"
D=$(pod badclean '"restartPolicy":"Never","cleanup":["'"$T"'"],"containers":[{"name":"main","argv":["true"]}]')
run_shim "$D"
is "$RC" 125 "a cleanup entry not named slurmlink-* is refused"
ok test -d "$T" "and nothing was removed"

# --- 6. output edge cases --------------------------------------------------------
D=$(pod bulk '"restartPolicy":"Never","containers":[{"name":"main","argv":["/bin/sh","-c","seq 1 100000; head -c 40000 /dev/zero | tr \"\\\\0\" x; printf tail; printf \"\\\\377\\\\000\\\\001\\\\n\" >&2"]}]')
run_shim "$D"
is "$RC" 0 "bulk output pod"
res=$($PY - "$D/logs/main/0.log" <<'PY'
import sys, re
recs = open(sys.argv[1], 'rb').read().split(b'\n')[:-1]
out = [r for r in recs if r.split(b' ')[1] == b'stdout']
err = [r for r in recs if r.split(b' ')[1] == b'stderr']
full = [r for r in out if r.split(b' ')[2] == b'F']
ok_full = [r.split(b' ', 3)[3] for r in full] == [str(i).encode() for i in range(1, 100001)]
parts = [r for r in out if r.split(b' ')[2] == b'P']
sizes = [len(r.split(b' ', 3)[3]) for r in parts]
joined = b''.join(r.split(b' ', 3)[3] for r in parts)
print(ok_full, sizes == [16384, 16384, 7236], joined == b'x' * 40000 + b'tail',
      [r.split(b' ', 3)[3] for r in err] == [b'\xff\x00\x01'])
PY
)
is "$res" "True True True True" "100000 lines intact; 40004 bytes without newline as P pieces 16384/16384/7236; binary stderr bytes unchanged"

# --- 7. start errors and bad specs ------------------------------------------------
D=$(pod noexec '"restartPolicy":"Never","containers":[{"name":"main","argv":["/nonexistent/prog","x"]}]')
run_shim "$D"
is "$RC" 128 "a program that cannot be executed: exit 128"
is "$(j '.containerStatuses[0].state.terminated.reason' "$D/status.json")" StartError "reason StartError"
like "$(j '.containerStatuses[0].state.terminated.message' "$D/status.json")" "/nonexistent/prog: No such file or directory" "message says why"

D=$(pod badspec '"restartPolicy":"Never","containers":[{"name":"main","argv":["x",1]}]')
run_shim "$D"
is "$RC" 125 "invalid shim.json: exit 125"
is "$(j '.phase + " " + .reason' "$D/status.json")" "Failed ShimError" "status.json tells the daemon"
like "$(j .message "$D/status.json")" 'containers\[0\]\.argv\[1\]: must be a string' "the error names the field"
"$SHIM" >/dev/null 2>&1; is "$?" 2 "no --pod-dir: usage error 2"
ok "$SHIM" --version "--version"

# --- 8. pushes to a real HTTP receiver ---------------------------------------------
cat >"$T/recv.py" <<'PY'
import http.server, json, sys, threading
log = open(sys.argv[1], 'a')
class H(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    def do_POST(self):
        body = self.rfile.read(int(self.headers.get('Content-Length', 0)))
        log.write(json.dumps({'path': self.path, 'auth': self.headers.get('Authorization'),
                              'ctype': self.headers.get('Content-Type'),
                              'body': body.decode()}) + '\n'); log.flush()
        self.send_response(200); self.send_header('Content-Length', '0'); self.end_headers()
    def log_message(self, *a): pass
s = http.server.ThreadingHTTPServer(('127.0.0.1', 0), H)
open(sys.argv[2], 'w').write(str(s.server_address[1]))
s.serve_forever()
PY
$PY "$T/recv.py" "$T/recv.log" "$T/recv.port" & rpid=$!
on_exit "kill $rpid"
ok wait_for 60 test -s "$T/recv.port" "HTTP receiver listening"
port=$(cat "$T/recv.port")
D=$(pod push '"restartPolicy":"Never","report":{"url":"http://127.0.0.1:'"$port"'/internal/v1/shim/events","token":"tok-123"},"initContainers":[{"name":"init","argv":["true"]}],"containers":[{"name":"main","argv":["/bin/sh","-c","exit 2"]}]')
run_shim "$D"
is "$RC" 2 "pod with pushes runs normally"
is "$(jq -r .body "$T/recv.log" | jq -c . )" "$(jq -c . "$D/events.jsonl")" "every event received, in order, identical to events.jsonl"
is "$(jq -r .auth "$T/recv.log" | sort -u)" "Bearer tok-123" "Authorization: Bearer token on every push"
is "$(jq -r .path "$T/recv.log" | sort -u)" "/internal/v1/shim/events" "POSTed to report.url's path"
is "$(jq -r .ctype "$T/recv.log" | sort -u)" "application/json" "Content-Type application/json"
like "$(jq -r .body "$T/recv.log" | tail -1)" '"event":"pod-finished".*"exitCode":2' "last push is pod-finished with the exit code"

D=$(pod fds '"restartPolicy":"Never","report":{"url":"http://127.0.0.1:'"$port"'/x","token":"t"},"containers":[{"name":"main","argv":["/bin/sh","-c","sleep 0.3; ls /proc/self/fd"]},{"name":"other","argv":["sleep","1"]}]')
"$SHIM" --pod-dir "$D" >"$D/shim.out" 2>&1 7</dev/null; rc=$?
is "$(sed 's/^[^ ]* stdout F //' "$D/logs/main/0.log" | sort -n | tr '\n' ' ')" "0 1 2 3 " "a container gets stdin/stdout/stderr only: no socket, other pipe or inherited fd (3 is ls's own)"

# unreachable: refused, and a server that accepts but never answers
freeport=$($PY -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
D=$(pod refused '"restartPolicy":"Never","report":{"url":"http://127.0.0.1:'"$freeport"'/x","token":"t"},"containers":[{"name":"main","argv":["/bin/sh","-c","echo ok"]}]')
run_shim "$D"
is "$RC" 0 "daemon down (connection refused): the pod still succeeds"
is "$(jq -r .event "$D/events.jsonl" | tr '\n' ' ')" "pod-started started exited pod-finished " "events.jsonl complete for the daemon to read later"
# the silent server never answers; it notes (UTC, as the shim's events) when
# the shim gives up a push and closes its connection
cat >"$T/silent.py" <<'PY'
import datetime, socket, sys, threading
s = socket.socket(); s.bind(('127.0.0.1', 0)); s.listen(128)
open(sys.argv[1], 'w').write(str(s.getsockname()[1]))
def conn(c):
    while c.recv(65536):
        pass
    with open(sys.argv[2], 'a') as f:
        f.write(datetime.datetime.utcnow().strftime('%Y-%m-%dT%H:%M:%S.%fZ') + '\n')
while True:
    c, _ = s.accept()
    threading.Thread(target=conn, args=(c,), daemon=True).start()
PY
$PY "$T/silent.py" "$T/silent.port" "$T/silent.closed" & sipid=$!
on_exit "kill $sipid"
ok wait_for 60 test -s "$T/silent.port" "silent server listening"
D=$(pod silent '"restartPolicy":"Never","report":{"url":"http://127.0.0.1:'"$(cat "$T/silent.port")"'/x"},"initContainers":[{"name":"i1","argv":["true"]},{"name":"i2","argv":["true"]}],"containers":[{"name":"main","argv":["/bin/sh","-c","sleep 0.5"]}]')
run_shim "$D"
is "$RC" 0 "daemon that never answers: the pod succeeds"
st=$(ev started "$D" | jq -r .startedAt | tail -1); closed=$(head -1 "$T/silent.closed" 2>/dev/null)
diag "main started $st, first push given up $closed"
ok $PY -c "import sys,datetime as d; f=lambda s: d.datetime.strptime(s[:26].rstrip('Z'),'%Y-%m-%dT%H:%M:%S.%f'); sys.exit(not f('$st') < f('$closed'))" "containers start without waiting for hanging pushes (main started before the first push was given up)"
like "$(cat "$D/shim.out")" "push to http://127.0.0.1:[0-9]+/x failed" "the failure is logged once in the job output"

# --- 9. byte-exact arguments and environment (host and charliecloud) -------------
$SLURMLINK image import busybox --busybox --store "$T/store" >/dev/null 2>&1
ok test -x "$T/store/busybox+latest/bin/busybox" "busybox image imported for the charliecloud cases"
cat >"$T/mkspec.py" <<'PY'
import base64, json, sys
mode, out, store = sys.argv[1], sys.argv[2], sys.argv[3]
vals = ["it's", 'say "hi"', "$(id)", "`id`", "a; touch %s/pwned" % out, "two\nlines",
        "$(touch %s/pwned2)" % out, "`touch %s/pwned3`" % out, "back\\slash *", "", b"\xff\xfe bytes \x80"]
def enc(v):
    return {"base64": base64.b64encode(v).decode()} if isinstance(v, bytes) else v
script = 'i=0; for a in "$@"; do i=$((i+1)); printf %s "$a" >"$OUT/arg$i"; done; ' \
         'printf %s "$V1" >"$OUT/env1"; printf %s "$V2" >"$OUT/env2"; printf %s "$V3" >"$OUT/env3"'
argv = ["/bin/sh", "-c", script, "sh"] + [enc(v) for v in vals]
if mode == "ch":
    argv = ["ch-run", store + "/busybox+latest", "--"] + argv
env = {"OUT": out, "V1": "$(id); `id`; 'q' \"dq\"", "V2": "multi\nline\n", "V3": enc(b"\x80\xff")}
json.dump({"apiVersion": "slurmlink.io/v1", "kind": "ShimSpec",
           "pod": {"namespace": "default", "name": "bytes", "uid": "u"}, "restartPolicy": "Never",
           "containers": [{"name": "main", "argv": argv, "env": env}]}, open(out + "/shim.json", "w"))
PY
cat >"$T/check.py" <<'PY'
import sys, os
out = sys.argv[1]
vals = [b"it's", b'say "hi"', b"$(id)", b"`id`", b"a; touch %s/pwned" % out.encode(), b"two\nlines",
        b"$(touch %s/pwned2)" % out.encode(), b"`touch %s/pwned3`" % out.encode(), b"back\\slash *", b"", b"\xff\xfe bytes \x80"]
bad = []
for i, v in enumerate(vals, 1):
    try:
        got = open("%s/arg%d" % (out, i), "rb").read()
    except OSError:
        got = None
    if got != v: bad.append("arg%d=%r" % (i, got))
for n, v in (("env1", b"$(id); `id`; 'q' \"dq\""), ("env2", b"multi\nline\n"), ("env3", b"\x80\xff")):
    got = open("%s/%s" % (out, n), "rb").read() if os.path.exists("%s/%s" % (out, n)) else None
    if got != v: bad.append("%s=%r" % (n, got))
for p in ("pwned", "pwned2", "pwned3"):
    if os.path.exists("%s/%s" % (out, p)): bad.append(p + " exists")
print(" ".join(bad) or "exact")
PY
for mode in host ch; do
  D=$T/bytes-$mode; mkdir -p "$D"
  $PY "$T/mkspec.py" $mode "$D" "$T/store"
  run_shim "$D"
  is "$RC" 0 "$mode: container with hostile arguments runs"
  is "$($PY "$T/check.py" "$D")" exact "$mode: every argument and env value arrives byte for byte; nothing is executed"
done

# --- 10. charliecloud container -----------------------------------------------------
D=$(pod ch '"restartPolicy":"Never","containers":[{"name":"main","runtime":"charliecloud","argv":["ch-run","'"$T/store/busybox+latest"'","--","echo","hi"]},{"name":"os","argv":["ch-run","'"$T/store/busybox+latest"'","--","/bin/sh","-c","cat /proc/self/status | grep -c ^Pid; exit 6"]}]')
run_shim "$D"
is "$RC" 6 "charliecloud containers: exit code passes through ch-run"
like "$(cat "$D/logs/main/0.log")" "${ts_re}hi" "ch-run busybox echo hi logged in CRI format"
is "$(sed 's/^[^ ]* //' "$D/logs/os/0.log")" "stdout F 1" "second charliecloud container's output"

# --- 11. OOMKilled wiring (counters faked through the test-only root) --------------
R=$T/oomroot; mkdir -p "$R/proc/self"; echo "1:cpu:/" >"$R/proc/self/cgroup"; echo "oom_kill 1" >"$R/proc/vmstat"
D=$(pod oom '"restartPolicy":"Never","containers":[{"name":"main","argv":["/bin/sh","-c","echo oom_kill 2 >'"$R"'/proc/vmstat; kill -KILL $$"]},{"name":"plain","argv":["/bin/sh","-c","kill -KILL $$"]}]')
SLURMLINK_SHIM_OOM_ROOT=$R run_shim "$D"
is "$(j '.containerStatuses[0].state.terminated|"\(.exitCode) \(.reason)"' "$D/status.json")" "137 OOMKilled" "SIGKILL with an OOM kill counted meanwhile: OOMKilled"
D=$(pod nooom '"restartPolicy":"Never","containers":[{"name":"plain","argv":["/bin/sh","-c","kill -KILL $$"]}]')
SLURMLINK_SHIM_OOM_ROOT=$R run_shim "$D"
is "$(j '.containerStatuses[0].state.terminated|"\(.exitCode) \(.reason)"' "$D/status.json")" "137 Error" "SIGKILL without an OOM kill: Error"

done_testing
