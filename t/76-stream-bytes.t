#!/bin/bash
# covers: src/api/ src/spdy/ src/shim/attach.c src/shim/exec.c src/shim/tty.c
# 76-stream-bytes.t — 16 MiB through the upgraded streams (HTTPS) arrive
# intact: `kubectl exec -- cat` of a file, the same bytes through exec's
# stdin and back, and through the Python client's portforward() from busybox
# httpd in the pod. No timing bound (bench/portforward.sh measures the speed).
source "$(dirname "$0")/lib.sh"
plan 6

cluster_up --gpus 0 --cpus 4 || bail "cluster up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null || bail "busybox image"
W=$(tmpdir)
on_exit "rm -rf '$W'"
chmod 755 "$W"
head -c $((16 * 1048576)) /dev/urandom >"$W/blob"
chmod 644 "$W/blob"
PORT=$(free_ports 1) || bail "free ports"
kc apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: bytes, annotations: {slurmlink.io/tmp: node}}
spec:
  containers:
  - {name: main, image: busybox, command: [busybox, httpd, -f, -p, "$PORT", -h, "$W"], resources: {requests: {cpu: 100m, memory: 64Mi}}}
YAML
running() { [ "$(kc get pod bytes -o jsonpath='{.status.phase}')" = Running ]; }
listening() { ss -Hltn "sport = :$PORT" | grep -q LISTEN; }
ok wait_for 90 running "the pod runs"
ok wait_for 30 listening "its HTTP server listens"

kc exec bytes -- cat "$W/blob" >"$W/exec.out" 2>"$W/exec.err"
ok cmp "$W/exec.out" "$W/blob" "kubectl exec -- cat: 16 MiB of stdout, byte for byte"
kc exec -i bytes -- cat <"$W/blob" >"$W/stdin.out" 2>"$W/stdin.err"
ok cmp "$W/stdin.out" "$W/blob" "kubectl exec -i -- cat: 16 MiB through stdin and back"
kc exec bytes -- sh -c "cat '$W/blob' >&2" >/dev/null 2>"$W/stderr.out"
ok cmp "$W/stderr.out" "$W/blob" "... and 16 MiB of stderr"

/usr/bin/python3 - "$PORT" "$W/pf.out" <<'PY' 2>"$W/pf.err"
import sys
from kubernetes import client, config
from kubernetes.stream import portforward
config.load_kube_config()
port = int(sys.argv[1])
pf = portforward(client.CoreV1Api().connect_get_namespaced_pod_portforward, 'bytes', 'default',
                 ports=str(port))
s = pf.socket(port)
s.setblocking(True)
s.sendall(b'GET /blob HTTP/1.0\r\n\r\n')
data = b''
while True:
    d = s.recv(1 << 20)
    if not d:
        break
    data += d
open(sys.argv[2], 'wb').write(data.split(b'\r\n\r\n', 1)[1])
PY
ok cmp "$W/pf.out" "$W/blob" "port-forward (the Python client): 16 MiB from the pod's HTTP server, byte for byte"
for f in exec stdin pf; do [ -s "$W/$f.err" ] && diag "$f: $(head -c 600 "$W/$f.err")"; done
true
