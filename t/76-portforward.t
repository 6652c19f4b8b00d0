#!/bin/bash
# covers: src/api/ src/spdy/ src/shim/
# 76-portforward.t — port-forward to a pod's port on a real Slurm cluster
# (HTTPS, tenants as real Unix users), through the Python client's
# portforward() (WebSocket v4.channel.k8s.io): HTTP from busybox httpd in the
# container, two ports at once, a closed port's error; refusals: another
# tenant's pod (403), and another tenant's port on the same node, reached
# through one's own pod (403); kubectl port-forward (SPDY/3.1) to a closed
# port: the error stream's text (the rest of kubectl's: 76-kubectl-portforward).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/61-security-lib.sh"
plan 12

sec_two_tenants --cert || bail "two tenants: Unix users, slurmlink up, the image, kubeconfigs, namespaces"
B=$(free_ports 3) || bail "free ports"
P1=$B P2=$((B + 1)) P3=$((B + 2))
pod() { # name command
  cat <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1}
spec:
  containers:
  - name: main
    image: busybox
    command: [sh, -c, '$2']
    resources: {requests: {cpu: 100m, memory: 64Mi}}
YAML
}
pod web "busybox httpd -p $P1 -h /etc; busybox httpd -f -p $P2 -h /etc" | kc alice apply -f - >/dev/null
pod idle 'sleep 600' | kc bob apply -f - >/dev/null
running() { [ "$(kc "$1" get pod "$2" -o jsonpath='{.status.phase}')" = Running ]; }
listening() { ss -Hltn "sport = :$P2" | grep -q LISTEN; }
ok wait_for 60 running alice web "alice's web pod runs"
ok wait_for 60 running bob idle "bob's pod runs"
ok wait_for 30 listening "its two servers listen"

py=$(/usr/bin/python3 - "$CL/alice.kc" "$P1" "$P2" "$P3" <<'PY' 2>&1
import sys
from kubernetes import client, config
from kubernetes.stream import portforward
config.load_kube_config(config_file=sys.argv[1])
ports = [int(p) for p in sys.argv[2:5]]
pf = portforward(client.CoreV1Api().connect_get_namespaced_pod_portforward, 'web', 'team-a',
                 ports=','.join(map(str, ports)))
for p in ports[:2]:  # both requests first: the session ends once every connection has
    pf.socket(p).setblocking(True)
    pf.socket(p).sendall(b'GET /group HTTP/1.0\r\n\r\n')
for p in ports[:2]:
    s = pf.socket(p)
    data = b''
    while True:
        d = s.recv(4096)
        if not d:
            break
        data += d
    print(p, data.split(b'\r\n')[0].decode(), b'root:x:0:' in data)
    s.close()
print("closed", pf.error(ports[2]))
PY
)
like "$py" "$P1 HTTP/1.1 200 OK True" "the Python client's portforward(): HTTP from the container's server"
like "$py" "$P2 HTTP/1.1 200 OK True" "... on a second port of the same session"
like "$py" "closed an error occurred forwarding $P3 -> $P3: dial tcp [0-9.]+:$P3: Connection refused" "a port no one listens on: the error channel says so"

# curl with a tenant's certificate and the WebSocket handshake (the Python
# client hides a refusal's body)
kcv() { kubectl config view --raw --kubeconfig "$CL/$1.kc" -o jsonpath="{$2}"; }
ws() { # user namespace pod port
  local u=$1
  kcv "$u" '.users[0].user.client-certificate-data' | base64 -d >"$CL/$u.crt"
  kcv "$u" '.users[0].user.client-key-data' | base64 -d >"$CL/$u.key"
  kcv "$u" '.clusters[0].cluster.certificate-authority-data' | base64 -d >"$CL/$u.ca"
  curl -s --cacert "$CL/$u.ca" --cert "$CL/$u.crt" --key "$CL/$u.key" -H 'Connection: Upgrade' \
    -H 'Upgrade: websocket' -H 'Sec-WebSocket-Version: 13' -H 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==' \
    -H 'Sec-WebSocket-Protocol: v4.channel.k8s.io' -w ' %{http_code}' \
    "$(kcv "$u" '.clusters[0].cluster.server')/api/v1/namespaces/$2/pods/$3/portforward?ports=$4"
}
like "$(ws bob team-a web "$P1")" 'cannot create resource \\"pods/portforward\\" in API group \\"\\" in the namespace \\"team-a\\".* 403$' "bob cannot port-forward to alice's pod (403)"
like "$(ws bob team-b idle "$P1")" "port $P1 on the node of pod idle is another user's: only the pod's own user's ports are forwarded.* 403$" "nor reach alice's port on the same node through his own pod (403)"
like "$(ws alice team-a web 0)" "invalid port in ports.* 400$" "a bad port: 400"

# kubectl's SPDY/3.1 (served: t/76-kubectl-portforward.t) to a port no one
# listens on (kubectl's own port is another: this host is the node)
kubectl --kubeconfig "$CL/alice.kc" --cache-dir "$CL/cache-alice" port-forward pod/web "$((P3 + 100)):$P3" >"$CL/pf.log" 2>&1 &
fpid=$!
on_exit "kill $fpid 2>/dev/null"
ok wait_for 30 grep -q "Forwarding from 127.0.0.1" "$CL/pf.log" "kubectl port-forward (SPDY/3.1) to a port no one listens on starts"
curl -s --max-time 20 "http://127.0.0.1:$((P3 + 100))/" >/dev/null
wait_for 10 grep -q "error forwarding port" "$CL/pf.log"
like "$(cat "$CL/pf.log")" "an error occurred forwarding $((P3 + 100)) -> $P3: error forwarding port $P3 to pod team-a/web, uid [-0-9a-f]+: dial tcp [0-9.]+:$P3: connect: Connection refused" "... a connection's error stream says why (the kubelet's words)"
kill "$fpid" 2>/dev/null || true
like "$(cat "$CL/log/slurmlinkd.log")" "port-forward: user alice, pod team-a/web, 3 port\(s\) from $P1" "each port-forward is logged"
