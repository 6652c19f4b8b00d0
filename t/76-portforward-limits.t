#!/bin/bash
# covers: src/api/ src/spdy/ src/shim/
# 76-portforward-limits.t — a port-forward session has the exec session's
# limits (exec.idle_timeout, exec.max_duration; the kubelet's
# streaming-connection-idle-timeout covers both too), given to slurmlinkd on
# its command line through a wrapper named by `up --daemon`:
#   - kubectl port-forward (SPDY/3.1, kubectl 1.30; tunnelled in WebSocket,
#     1.33) with no byte either way for 3 s: slurmlinkd ends the session,
#     kubectl says it lost the connection and exits; the log says why;
#   - one kept busy (a request a second) lives past the idle limit and ends
#     at max_duration (8 s);
#   - the Python client's portforward() (WebSocket): an idle one is closed.
source "$(dirname "$0")/lib.sh"
plan 9

W=$(tmpdir)
on_exit "rm -rf '$W'"
cluster_up --gpus 0 --cpus 2 --daemon "$(daemon_with "$W" --exec-idle-timeout 3 --exec-max-duration 8)" || bail "cluster up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
KBIN=/usr/lib/google-cloud-sdk/bin
B=$(free_ports 4) || bail "free ports"
P=$B L1=$((B + 1)) L2=$((B + 2)) L3=$((B + 3))
echo hello >"$W/hi"
chmod 644 "$W/hi"
kubectl --cache-dir "$CL/kcache" apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: web, annotations: {slurmlink.io/tmp: node}}
spec:
  containers:
  - {name: main, image: busybox, command: [busybox, httpd, -f, -p, "$P", -h, "$W"]}
YAML
running() { [ "$(kubectl --cache-dir "$CL/kcache" get pod web -o jsonpath='{.status.phase}')" = Running ]; }
ok wait_for 90 running "the pod runs"
wait_for 30 sh -c "ss -Hltn 'sport = :$P' | grep -q LISTEN"

forward() { # version local-port log
  "$KBIN/kubectl.$1" --cache-dir "$CL/kc-$1" port-forward pod/web "$2:$P" >"$3" 2>&1 &
  FPID=$!
  on_exit "kill $FPID 2>/dev/null"
  wait_for 30 grep -q "Forwarding from 127.0.0.1" "$3"
}
get() { curl -s --max-time 20 "http://127.0.0.1:$1/hi"; }
log() { cat "$CL/log/slurmlinkd.log"; }

for v in 1.30 1.33; do
  L=$L1; [ $v = 1.33 ] && L=$L2
  forward $v $L "$W/idle-$v.log"
  get $L >/dev/null # one request, then silence
  ok wait_for 60 proc_gone "$FPID" "kubectl $v port-forward: a session without a byte for 3 s ends, kubectl exits" ||
    diag "$(cat "$W/idle-$v.log")"
done
like "$(log)" "port-forward ended: idle for too long \(exec.idle_timeout\)" "the log says why the session ended"

forward 1.33 $L3 "$W/busy.log"
t0=$(date +%s)
busy() { while kill -0 "$FPID" 2>/dev/null; do get $L3 >>"$W/busy.out"; sleep 1; done; }
busy &
ok wait_for 60 proc_gone "$FPID" "a busy session ends too (exec.max_duration 8 s)"
t1=$(date +%s)
ok test $((t1 - t0)) -ge 6 "... after it outlived the 3 s idle limit ($((t1 - t0)) s)" ||
  diag "$(cat "$W/busy.log"; kubectl --cache-dir "$CL/kcache" get pod web -o wide; ss -Hltnp "sport = :$P")"
ok test "$(grep -c hello "$W/busy.out")" -ge 4 "its requests were answered meanwhile ($(grep -c hello "$W/busy.out"))"
like "$(log)" "port-forward ended: it reached its time limit \(exec.max_duration\)" "the log says so"

py=$(timeout 120 /usr/bin/python3 - "$CL/kubeconfig" "$P" <<'PY' 2>&1
import sys, time
from kubernetes import client, config
from kubernetes.stream import portforward
config.load_kube_config(config_file=sys.argv[1])
port = int(sys.argv[2])
pf = portforward(client.CoreV1Api().connect_get_namespaced_pod_portforward, 'web', 'default',
                 ports=str(port))
s = pf.socket(port)
s.setblocking(True)
s.sendall(b'GET /hi HTTP/1.0\r\n\r\n')
data = b''
while b'hello' not in data:
    chunk = s.recv(4096)
    if not chunk:
        break
    data += chunk
print('answered' if b'hello' in data else 'unanswered')
t = time.time()
while pf.connected and time.time() - t < 60:
    time.sleep(0.2)
print('closed' if not pf.connected else 'still open')
PY
)
is "$(printf '%s\n' "$py" | tail -2 | tr '\n' ' ')" "answered closed " "the Python client's idle portforward() is closed" || diag "$py"
