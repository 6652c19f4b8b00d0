#!/bin/bash
# covers: src/kinds/service/names.c src/kinds/service/endpoints.c src/shimlib/hosts.c src/translate/hosts.c
# 95-service-names.t — a Service's names resolve inside the pods of its
# namespace (SVC, SVC.NS, SVC.NS.svc, SVC.NS.svc.cluster.local) to the
# addresses of its ready endpoints, through the pod's hosts file, and
# follow the endpoints as they change; on a real two-node cluster, the
# servers busybox httpd on the host runtime:
#   - a client pod started before any Service: the names appear once the
#     Service has a ready endpoint; `curl http://web:PORT/` from the client
#     (kubectl exec) reaches the Deployment's replica; the four forms;
#   - a headless Service: its name gives its ready pods' addresses and a
#     pod whose hostname/subdomain name it (a StatefulSet's way) gets
#     HOST.SVC; the Endpoints carry that hostname, as kube's;
#   - kubectl scale to 2: both replicas' addresses; to 0: the name goes;
#   - a pod of another namespace does not see this namespace's bare names.
source "$(dirname "$0")/lib.sh"
plan 13

T=$(tmpdir)
on_exit "rm -rf '$T'"
chmod 755 "$T"
mkdir -p "$T/www" && echo "hello from web" >"$T/www/index.html" && chmod -R a+rX "$T"
cluster_up --nodes 2 --cpus 2 || bail "cluster up --nodes 2"
P=$(free_ports 1) || bail "free ports"

client() { # name namespace
  cat <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1, namespace: $2, annotations: {slurmlink.io/runtime: host}}
spec:
  terminationGracePeriodSeconds: 1
  hostname: $1
  containers:
  - name: c
    command: [sleep, "600"]
    resources: {requests: {cpu: 100m, memory: 32Mi}}
YAML
}
client cl default | kc apply -f - >/dev/null
ok kc wait --for=condition=Ready pod/cl --timeout=60s "a client pod runs (host runtime, its hosts file bound)"
look() { kc exec cl -- getent ahostsv4 "$1" 2>/dev/null | awk '{print $1}' | sort -u | tr '\n' ' '; }

kc apply -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}, annotations: {slurmlink.io/runtime: host, slurmlink.io/tmp: node}}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: server
        command: [busybox, httpd, -f, -p, "$P", -h, "$T/www"]
        ports: [{name: http, containerPort: $P}]
        readinessProbe: {tcpSocket: {port: http}, periodSeconds: 1}
        resources: {requests: {cpu: "1", memory: 32Mi}}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{name: http, port: $P, targetPort: http}]
YAML
ip_of() { kc get pods -l "$1" -o jsonpath='{range .items[?(@.status.podIP)]}{.status.podIP}{"\n"}{end}' 2>/dev/null | sort -u | tr '\n' ' '; }
ready_web() { [ -n "$(kc get endpoints web -o jsonpath='{.subsets[*].addresses[*].ip}' 2>/dev/null)" ]; }
ok wait_for 60 ready_web "the Deployment's replica is a ready endpoint of Service web"
want=$(ip_of app=web)
named() { [ "$(look "$1")" = "$2" ]; }
ok wait_for 20 named web "$want" "in the client, 'web' resolves to the ready endpoint's address ($want)" ||
  diag "$(kc exec cl -- cat /etc/hosts 2>&1 | tail -5)"
is "$(for n in web.default web.default.svc web.default.svc.cluster.local; do look $n; done)" "$want$want$want" \
  "... and web.default, web.default.svc, web.default.svc.cluster.local"
is "$(kc exec cl -- curl -sS "http://web:$P/index.html" 2>&1)" "hello from web" \
  "curl http://web:$P/ from the client reaches the Deployment's server"

# --- a headless Service and a pod with its hostname/subdomain ------------------------------------------
kc apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Service
metadata: {name: peers}
spec:
  clusterIP: None
  selector: {role: db}
---
apiVersion: v1
kind: Pod
metadata: {name: db-0, labels: {role: db}, annotations: {slurmlink.io/runtime: host}}
spec:
  terminationGracePeriodSeconds: 1
  hostname: db-0
  subdomain: peers
  containers:
  - name: c
    command: [sleep, "600"]
    resources: {requests: {cpu: 100m, memory: 32Mi}}
YAML
ok kc wait --for=condition=Ready pod/db-0 --timeout=60s "a pod db-0 with hostname db-0, subdomain peers"
dbip=$(ip_of role=db)
is "$(kc get endpoints peers -o jsonpath='{.subsets[0].addresses[0].hostname}' 2>&1)" db-0 \
  "the headless Service's Endpoints carry the pod's hostname, as kube's"
ok wait_for 20 named db-0.peers "$dbip" "in the client, db-0.peers resolves to db-0's address ($dbip)"
is "$(look peers.default.svc.cluster.local)$(look db-0.peers.default.svc.cluster.local)" "$dbip$dbip" \
  "... the headless Service's own name and db-0's full name too"

# --- the names follow the endpoints -------------------------------------------------------------------------
kc scale deployment web --replicas=2 >/dev/null
two() { [ "$(kc get endpoints web -o jsonpath='{.subsets[*].addresses[*].ip}' 2>/dev/null | wc -w)" = 2 ]; }
ok wait_for 90 two "kubectl scale deployment web --replicas=2: two ready endpoints" ||
  diag "$(kc get pods -o wide 2>&1)"
want2=$(ip_of app=web)
ok wait_for 20 named web "$want2" "... and 'web' resolves to both addresses ($want2)"
kc scale deployment web --replicas=0 >/dev/null
ok wait_for 60 named web "" "scaled to 0: 'web' no longer resolves in the client" ||
  diag "$(kc exec cl -- cat /etc/hosts 2>&1 | tail -5)"

# --- another namespace ------------------------------------------------------------------------------------------
kc create namespace other >/dev/null
client cl2 other | kc apply -f - >/dev/null
kc wait -n other --for=condition=Ready pod/cl2 --timeout=60s >/dev/null 2>&1
is "$(kc exec -n other cl2 -- getent hosts peers 2>/dev/null; echo "rc=$?")" "rc=2" \
  "a pod of namespace other does not resolve default's 'peers'"
done_testing
