#!/bin/bash
# portforward.sh — the throughput of upgraded streams: port-forward (the
# Python client's portforward() through slurmlinkd, and `kubectl
# port-forward`: SPDY, tunnelled in WebSocket by kubectl 1.31+) and
# `kubectl exec -- cat` of the same file, against a direct TCP connection
# to the same server, in the same run (docs/benchmarks-history.md, "port-forward and exec"):
#   bench/portforward.sh [MiB] [rounds]      (default 64 MiB, 3 rounds)
# Needs KUBECONFIG and SLURM_CONF of a `slurmlink up` cluster with busybox
# imported; serves a file of MiB random bytes from busybox httpd in pod
# bench-pf (deleted at the end) and fetches it the three ways, alternating.
set -euo pipefail
MB=${1:-64} R=${2:-3}
W=$(mktemp -d /tmp/slpf.XXXXXX)
chmod 755 "$W"
head -c $((MB * 1048576)) /dev/urandom >"$W/blob"
chmod 644 "$W/blob"
PORT=$((30000 + $$ % 20000))
kubectl apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: bench-pf}
spec:
  containers:
  - {name: main, image: busybox, command: [busybox, httpd, -f, -p, "$PORT", -h, "$W"], resources: {requests: {cpu: 100m, memory: 64Mi}}}
YAML
trap 'kill $KPF 2>/dev/null; kubectl delete pod bench-pf --grace-period=0 --force >/dev/null 2>&1 || true; rm -rf "$W"' EXIT
kubectl wait --for=jsonpath='{.status.phase}'=Running pod/bench-pf --timeout=120s >/dev/null
ip=$(kubectl get pod bench-pf -o jsonpath='{.status.podIP}')
for _ in $(seq 100); do curl -s -o /dev/null "http://$ip:$PORT/blob" && break; sleep 0.1; done
LP=$((PORT + 1))
kubectl port-forward pod/bench-pf "$LP:$PORT" >"$W/kpf.log" 2>&1 &
KPF=$!
for _ in $(seq 100); do grep -q "Forwarding from 127" "$W/kpf.log" && break; sleep 0.1; done
for r in $(seq "$R"); do
  t0=$(date +%s%N)
  curl -s -o "$W/direct" "http://$ip:$PORT/blob"
  t1=$(date +%s%N)
  /usr/bin/python3 - "$PORT" "$W/pf" <<'PY'
import sys
from kubernetes import client, config
from kubernetes.stream import portforward
config.load_kube_config()
port = int(sys.argv[1])
pf = portforward(client.CoreV1Api().connect_get_namespaced_pod_portforward, 'bench-pf', 'default', ports=str(port))
s = pf.socket(port)
s.setblocking(True)
s.sendall(b'GET /blob HTTP/1.0\r\n\r\n')
with open(sys.argv[2], 'wb') as f:
    while True:
        d = s.recv(1 << 20)
        if not d:
            break
        f.write(d)
PY
  t2=$(date +%s%N)
  kubectl exec bench-pf -- cat "$W/blob" >"$W/exec"
  t3=$(date +%s%N)
  curl -s -o "$W/kpf" "http://127.0.0.1:$LP/blob"
  t4=$(date +%s%N)
  cmp -s "$W/kpf" "$W/blob" || { echo "round $r: kubectl port-forward bytes differ" >&2; exit 1; }
  cmp -s <(tail -c $((MB * 1048576)) "$W/pf") "$W/blob" || { echo "round $r: port-forward bytes differ" >&2; exit 1; }
  cmp -s "$W/exec" "$W/blob" || { echo "round $r: exec bytes differ" >&2; exit 1; }
  awk -v mb="$MB" -v a=$(((t1 - t0) / 1000000)) -v b=$(((t2 - t1) / 1000000)) -v c=$(((t3 - t2) / 1000000)) -v d=$(((t4 - t3) / 1000000)) -v r="$r" \
    'BEGIN {printf "round %d: direct TCP %.0f MiB/s (%d ms), port-forward (Python) %.1f MiB/s (%d ms), kubectl port-forward %.1f MiB/s (%d ms), exec cat %.1f MiB/s (%d ms)\n", r, mb * 1000 / a, a, mb * 1000 / b, b, mb * 1000 / d, d, mb * 1000 / c, c}'
done
