#!/bin/bash
# covers: src/api/ src/spdy/ src/shim/attach.c src/shim/exec.c src/shim/tty.c
# 76-exec-nodes.t — kubectl exec on two Slurm nodes (`slurmlink up --nodes 2`,
# each node in its own network and UTS namespace): the command runs on the
# node of its pod, inside that pod's job, whichever node that is; a
# port-forward reaches a server in a pod on node2 at that node's address.
source "$(dirname "$0")/lib.sh"
plan 8

cluster_up --nodes 2 --gpus 0 --cpus 2 || bail "up --nodes 2"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
pod() { # name node
  cat <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1}
spec:
  restartPolicy: Never
  nodeSelector: {kubernetes.io/hostname: $2}
  containers:
  - name: main
    image: busybox
    command: [sh, -c, 'sleep 600']
    resources: {requests: {cpu: 100m, memory: 64Mi}}
YAML
}
pod on1 node1 | kc apply -f - >/dev/null
pod on2 node2 | kc apply -f - >/dev/null
ok wait_for 90 running on1 "a pod runs on node1"
ok wait_for 90 running on2 "a pod runs on node2"
is "$(kc exec on2 -- hostname)" node2 "exec into the pod on node2 runs on node2"
is "$(kc exec on1 -- hostname)" node1 "exec into the pod on node1 runs on node1"
job=$(kc get pod on2 -o jsonpath='{.metadata.annotations.slurmlink\.io/job-id}')
is "$(kc exec on2 -- sh -c 'echo $SLURM_JOB_ID')" "$job" "... inside that pod's Slurm job ($job)"
is "$(echo from-stdin | kc exec -i on2 -- cat)" from-stdin "stdin reaches the command on node2"

PORT=$(free_ports 1) || bail "free ports"
kc apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: web2}
spec:
  nodeSelector: {kubernetes.io/hostname: node2}
  containers:
  - {name: main, image: busybox, command: [busybox, httpd, -f, -p, "$PORT", -h, /etc], resources: {requests: {cpu: 100m, memory: 64Mi}}}
YAML
ok wait_for 90 running web2 "a web server pod runs on node2 ($(kc get pod web2 -o jsonpath='{.status.podIP}'))"
py=$(/usr/bin/python3 - "$PORT" <<'PY' 2>&1
import sys, time
from kubernetes import client, config
from kubernetes.stream import portforward
config.load_kube_config()
port = int(sys.argv[1])
for attempt in range(50):  # until httpd listens
    pf = portforward(client.CoreV1Api().connect_get_namespaced_pod_portforward, 'web2', 'default', ports=str(port))
    s = pf.socket(port)
    s.setblocking(True)
    s.sendall(b'GET /group HTTP/1.0\r\n\r\n')
    data = b''
    while True:
        d = s.recv(4096)
        if not d:
            break
        data += d
    if data:
        break
    time.sleep(0.2)
print(data.split(b'\r\n')[0].decode())
PY
)
is "$py" "HTTP/1.1 200 OK" "port-forward reaches the server on node2 (the Python client)"
