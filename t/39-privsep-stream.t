#!/bin/bash
# covers: src/api/ src/spdy/ src/shim/ src/kinds/job/controller.c
# 39-privsep-stream.t — a hostile tenant against the streams (exec,
# port-forward) and the workloads' identity, with two real Unix tenants on a
# real cluster; team-s is a namespace both alice and bob write:
#   1. one 64 MiB WebSocket message on an exec session: closed with 1009
#      (message too big), slurmlinkd's memory does not grow with it;
#   2. alice's exec (or port-forward) into bob's pod in the shared namespace:
#      403 (it would run as bob); bob's own exec works;
#   3. alice's patch or replace of bob's CronJob: 403 (its Jobs would run her
#      command as bob); bob's own patch works;
#   4. shim.pid in alice's pod folder rewritten to her process in another
#      network namespace (where she listens on the port bob's server has on
#      the node), outside her job or inside it, or to slurmlinkd:
#      port-forward refused, bob's bytes unread;
#   5. descriptors: the unit sets LimitNOFILE, slurmlinkd raises its soft
#      limit to the hard one; alice's flood of 16-port sessions hits her cap
#      (429 naming it) while bob still connects and gets a pod submitted.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/61-security-lib.sh"
plan 19

W=$(tmpdir)
on_exit "rm -rf '$W'"
chmod 755 "$W"
# slurmlinkd started with a soft descriptor limit of 300 under a hard one of 4096
# (an ASan build without its quarantine, which would keep freed memory resident)
printf '#!/bin/sh\nulimit -S -n 300\nulimit -H -n 4096\nexport ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0"\nexec "%s" "$@"\n' \
  "$SLURMLINKD" >"$W/slurmlinkd"
chmod 755 "$W/slurmlinkd"
ln -sf "$(dirname "$SLURMLINKD")/slurmlink-shim" "$W/slurmlink-shim"
sec_users || bail "Unix users"
sec_cluster --cert --gpus 0 --cpus 4 --daemon "$W/slurmlinkd" <<EOF || bail "slurmlink up"
adminGroups: [system:masters]
cluster:
  read: {groups: [system:authenticated]}
namespaces:
  team-a: {write: {users: [alice]}}
  team-b: {write: {users: [bob]}}
  team-s: {write: {users: [alice, bob]}}
users:
  admin: nobody
  alice: $UA
  bob: $UB
EOF
for n in team-a team-b team-s; do ka create namespace $n >/dev/null; done
DPID=$(cat "$CL/run/slurmlinkd.pid")
PORT=$(kubectl config view --raw --kubeconfig "$CL/alice.kc" -o jsonpath='{.clusters[0].cluster.server}')
PORT=${PORT##*:}
for u in alice bob; do
  kubectl config view --raw --kubeconfig "$CL/$u.kc" -o jsonpath='{.users[0].user.client-certificate-data}' | base64 -d >"$W/$u.crt"
  kubectl config view --raw --kubeconfig "$CL/$u.kc" -o jsonpath='{.users[0].user.client-key-data}' | base64 -d >"$W/$u.key"
done
kubectl config view --raw --kubeconfig "$CL/alice.kc" -o jsonpath='{.clusters[0].cluster.certificate-authority-data}' | base64 -d >"$W/ca.crt"
WS() { local m=$1 u=$2; shift 2; /usr/bin/python3 "$(dirname "$0")/39-privsep-stream.py" "$m" "$PORT" "$W/ca.crt" "$W/$u.crt" "$W/$u.key" "$@"; }
as_a() { runuser -u "$UA" -- "$@"; }
as_b() { runuser -u "$UB" -- "$@"; }
uid_of() { ka get pod "$1" -n "$2" -o jsonpath='{.metadata.uid}' 2>/dev/null; }
running() { [ "$(ka get pod "$1" -n "$2" -o jsonpath='{.status.phase}' 2>/dev/null)" = Running ]; }
has_job() { [ -n "$(ka get pod "$1" -n "$2" -o jsonpath='{.metadata.annotations.slurmlink\.io/job-id}' 2>/dev/null)" ]; }
hostpod() { # NAME SCRIPT
  jq -n --arg n "$1" --arg s "$2" '{apiVersion: "v1", kind: "Pod",
    metadata: {name: $n, annotations: {"slurmlink.io/runtime": "host"}},
    spec: {restartPolicy: "Never", containers: [{name: "main", image: "busybox", command: ["sh", "-c", $s],
      resources: {requests: {cpu: "100m", memory: "64Mi"}}}]}}'
}
rss_kb() { awk '/^VmRSS/ {print $2}' "/proc/$DPID/status"; }

hostpod web 'sleep 3600' | kc alice create -n team-a -f - >/dev/null
hostpod bp 'sleep 3600' | kc bob create -n team-s -f - >/dev/null
wait_for 120 running web team-a && wait_for 120 running bp team-s || bail "the pods run"

# --- 1. the message bomb -------------------------------------------------------------------
EXEC=/api/v1/namespaces/team-a/pods/web/exec?command=sleep\&command=60\&stdin=true\&stdout=true\&container=main
before=$(rss_kb)
( while kill -0 "$DPID" 2>/dev/null; do rss_kb; sleep 0.1; done >"$W/rss" ) &
SAMPLER=$!
out=$(WS bomb alice "$EXEC" $((64 << 20)) 2>&1)
n=$(wc -l <"$W/rss")
sampled() { [ "$(wc -l <"$W/rss")" -ge $((n + 5)) ]; }
wait_for 10 sampled # five samples more, after the bomb
kill "$SAMPLER" 2>/dev/null
peak=$(sort -n "$W/rss" | tail -1)
is "$out" "close 1009" "a 64 MiB message on an exec session is refused: close 1009 (message too big)"
grown=$(((${peak:-0} - before) / 1024))
ok test "$grown" -lt 8 "... and slurmlinkd's RSS did not grow with it (+$grown MiB)"

# --- 2. exec into a co-writer's pod ----------------------------------------------------------
out=$(kc alice exec -n team-s bp -- id -u 2>&1)
like "$out" "Forbidden|forbidden" "alice's exec into bob's pod in the shared namespace is refused ($out)"
is "$(kc bob exec -n team-s bp -- id -u 2>&1)" "$UIDB" "bob's own exec runs as bob"
out=$(WS read alice "/api/v1/namespaces/team-s/pods/bp/portforward?ports=22" 2>&1)
like "$out" "^refused 403 .*runs as Unix user $UB" "... and her port-forward to it too ($out)"

# --- 3. a co-writer's CronJob -----------------------------------------------------------------
kc bob create -n team-s -f - >/dev/null <<'YAML'
apiVersion: batch/v1
kind: CronJob
metadata: {name: cj}
spec:
  schedule: "0 0 1 1 *"
  suspend: true
  jobTemplate:
    spec:
      template:
        spec:
          restartPolicy: Never
          containers: [{name: main, image: busybox, command: [echo, bob]}]
YAML
EVIL='{"spec":{"jobTemplate":{"spec":{"template":{"spec":{"containers":[{"name":"main","image":"busybox","command":["cat","/home/bob/.kube/config"]}]}}}}}}'
out=$(kc alice patch -n team-s cronjob cj --type merge -p "$EVIL" 2>&1)
like "$out" "Forbidden.*runs as" "alice's patch of bob's CronJob is refused, naming why ($out)"
out=$(kc alice get -n team-s cronjob cj -o json | jq '.spec.jobTemplate.spec.template.spec.containers[0].command = ["id"]' |
  kc alice replace -f - 2>&1)
like "$out" "Forbidden" "... and so is her replace of it ($out)"
is "$(ka get -n team-s cronjob cj -o jsonpath='{.spec.jobTemplate.spec.template.spec.containers[0].command}')" '["echo","bob"]' \
  "bob's CronJob still runs his command"
out=$(kc bob patch -n team-s cronjob cj --type merge -p '{"spec":{"schedule":"0 0 2 1 *"}}' 2>&1)
like "$out" "patched" "bob's own patch of his CronJob works"

# --- 4. shim.pid rewritten -------------------------------------------------------------------
PB=$(free_ports 1) || bail "free port"
as_b /usr/bin/python3 -c "
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('0.0.0.0', $PB)); s.listen(16)
while True:
    c, _ = s.accept(); c.sendall(b'BOB-SECRET\n'); c.close()" &
on_exit "kill $! 2>/dev/null"
LISTEN="import os, socket, time
s = socket.socket(); s.bind(('0.0.0.0', $PB)); s.listen(16)
print(os.getpid(), flush=True); time.sleep(600)"
# alice's own process in a network namespace of her own (unshare -rn), where port $PB is hers
as_a unshare -rn /usr/bin/python3 -c "$LISTEN" >"$W/netns.pid" 2>"$W/netns.err" &
on_exit "kill $! 2>/dev/null"
if ! wait_for 10 test -s "$W/netns.pid"; then # no user namespaces for users here: root makes the net one
  unshare -n runuser -u "$UA" -- /usr/bin/python3 -c "$LISTEN" >"$W/netns.pid" 2>>"$W/netns.err" &
  on_exit "kill $! 2>/dev/null"
  wait_for 10 test -s "$W/netns.pid" || diag "$(cat "$W/netns.err")"
fi
wait_for 10 sh -c "ss -Hltn 'sport = :$PB' | grep -q LISTEN"
DIR=$CL/pods/team-a/web-$(uid_of web team-a)
SHIM=$(cat "$DIR/shim.pid")
as_a sh -c "echo $(cat "$W/netns.pid") >'$DIR/shim.pid'"
out=$(WS read alice "/api/v1/namespaces/team-a/pods/web/portforward?ports=$PB" 2>&1)
like "$out" "^refused 403 " "shim.pid naming alice's process in another network namespace: port-forward refused ($out)"
# the same from inside her job: an exec (a step of the pod's job) in a network namespace of her own
kc alice exec -n team-a web -- unshare -rn /usr/bin/python3 -c "$LISTEN" >"$W/netns2.pid" 2>"$W/netns2.err" &
on_exit "kill $! 2>/dev/null"
wait_for 30 test -s "$W/netns2.pid" || diag "$(cat "$W/netns2.err")"
as_a sh -c "echo $(cat "$W/netns2.pid") >'$DIR/shim.pid'"
out=$(WS read alice "/api/v1/namespaces/team-a/pods/web/portforward?ports=$PB" 2>&1)
like "$out" "^refused 403 " "... and naming her process inside the pod's job, in a network namespace of hers: refused ($out)"
as_a sh -c "echo $DPID >'$DIR/shim.pid'"
out=$(WS read alice "/api/v1/namespaces/team-a/pods/web/portforward?ports=$PB" 2>&1)
like "$out" "^refused 403 " "... and naming slurmlinkd: refused ($out)"
as_a sh -c "echo $SHIM >'$DIR/shim.pid'"

# --- 5. descriptors --------------------------------------------------------------------------
like "$(cat "$(dirname "$0")/../dist/slurmlinkd.service")" "LimitNOFILE=[0-9]+" "the unit raises the descriptor limit"
like "$(grep 'Max open files' "/proc/$DPID/limits")" "Max open files +4096 +4096 " \
  "slurmlinkd raised its soft limit to the hard one"
like "$(cat "$CL/log/slurmlinkd.log")" "descriptors: at most 4096 open \(RLIMIT_NOFILE, was 300\)" "... and logged it"
PA=$(free_ports 1) || bail "free port"
as_a /usr/bin/python3 -c "
import socket, time
s = socket.socket(); s.bind(('0.0.0.0', $PA)); s.listen(4096); time.sleep(600)" & # never accepts
on_exit "kill $! 2>/dev/null"
wait_for 10 sh -c "ss -Hltn 'sport = :$PA' | grep -q LISTEN"
PF="/api/v1/namespaces/team-a/pods/web/portforward?ports=$(printf "$PA,%.0s" $(seq 15))$PA"
mkfifo "$W/hold"
WS flood alice "$PF" 24 <"$W/hold" >"$W/flood" 2>&1 &
FLOOD=$!
exec 7>"$W/hold"
wait_for 120 test -s "$W/flood"
like "$(cat "$W/flood")" "^opened [1-8] refused 1[6-9] codes( 429)+$" "alice's 24 sessions of 16 ports: her cap stops them (429)"
out=$(curl -s --cacert "$W/ca.crt" --cert "$W/alice.crt" --key "$W/alice.key" -H "Connection: Upgrade" \
  -H "Upgrade: websocket" -H "Sec-WebSocket-Version: 13" -H "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==" \
  -H "Sec-WebSocket-Protocol: v4.channel.k8s.io" "https://127.0.0.1:$PORT$PF" 2>&1)
like "$out" "max_streams_per_user" "the refusal names the limit ($out)"
hostpod bob2 'sleep 5' | kc bob create --request-timeout=60s -n team-b -f - >"$W/bob2" 2>&1
ok wait_for 60 has_job bob2 team-b "meanwhile bob connects and his new pod is submitted ($(cat "$W/bob2"))"
exec 7>&-
wait "$FLOOD"
unlike "$(cat "$CL/log/slurmlinkd.log")" "ERROR: AddressSanitizer|runtime error" "no sanitizer report in slurmlinkd's log"
