#!/bin/bash
# covers: src/kinds/deployment/ src/kinds/replicaset/ src/kinds/service/ src/api/svcproxy.c src/shim/probe.c
# 95-serving.t — an HTTP server served the way Kubernetes users serve a
# model, end to end on a real four-node Slurm cluster: a Deployment of 2
# replicas with a readiness probe (each replica an ordinary pod and Slurm
# job, one per node), `kubectl expose deployment`, the Service reached
# through the API's service proxy and through `kubectl port-forward svc/`,
# `kubectl scale` to 3 (a third Slurm job), a replica's job cancelled with
# scancel (replaced, the Service keeps answering), then a rolling update to
# a new image during which every request through the proxy is answered and
# the Endpoints never lose their last ready address.
source "$(dirname "$0")/lib.sh"
plan 16

T=$(tmpdir)
on_exit "rm -rf '$T'"
chmod 755 "$T"
for v in v1 v2; do mkdir -p "$T/$v" && echo "model $v" >"$T/$v/index.html"; done
chmod -R a+rX "$T"
start_registry "$T"
push_busybox "$T" team/web:v1
push_busybox "$T" team/web:v2
cluster_up --nodes 4 --cpus 1 || bail "cluster up"
B=$(free_ports 2) || bail "free ports"
P=$B L=$((B + 1))

deploy() { # version: the image's tag and the folder the replicas serve
  cat <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: ${2:-2}
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}, annotations: {slurmlink.io/runtime: host, slurmlink.io/tmp: node}}
    spec:
      terminationGracePeriodSeconds: 2
      containers:
      - name: server
        image: $REG/team/web:$1
        command: [busybox, httpd, -f, -p, "$P", -h, "$T/$1"]
        ports: [{name: http, containerPort: $P}]
        readinessProbe:
          httpGet: {path: /index.html, port: http}
          periodSeconds: 1
        resources: {requests: {cpu: "1", memory: 64Mi}}
YAML
}
ready_pods() { # Running, Ready, not being deleted
  kc get pods -l app=web -o jsonpath='{range .items[*]}{.metadata.deletionTimestamp}|{.status.phase}|{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' 2>/dev/null |
    grep -c '^|Running|True$'
}
njobs() { squeue -h -t PD,R -o %i 2>/dev/null | grep -c .; }
ready_eps() { kc get endpoints web -o jsonpath='{range .subsets[*].addresses[*]}{.ip}{"\n"}{end}' 2>/dev/null | grep -c .; }
settled() { [ "$(ready_pods)" = "$1" ] && [ "$(njobs)" = "$1" ] && [ "$(ready_eps)" = "$1" ]; }
proxy() { kc get --raw "/api/v1/namespaces/default/services/web:80/proxy/index.html" 2>&1; }

deploy v1 | kc apply -f - >/dev/null
ok wait_for 120 bash -c "$(declare -f kc ready_pods njobs); CL='$CL'; [ \"\$(ready_pods)\" = 2 ] && [ \"\$(njobs)\" = 2 ]" \
  "a Deployment of 2 with a readiness probe: both replicas Ready, 2 Slurm jobs" ||
  diag "$(kc get deploy,rs,pods -o wide 2>&1; squeue 2>&1)"
is "$(kc get pods -l app=web -o jsonpath='{range .items[*]}{.spec.nodeName}{"\n"}{end}' | sort -u | grep -c .)" 2 \
  "the two replicas run on two nodes (one CPU each)"
like "$(kc expose deployment web --port 80 --target-port http 2>&1)" '^service/web exposed$' \
  "kubectl expose deployment web --port 80 --target-port http"
is "$(kc get svc web -o jsonpath='{.spec.selector.app} {.spec.ports[0].port} {.spec.ports[0].targetPort}')" "web 80 http" \
  "the Service selects the Deployment's pods, port 80 to the named container port"
ok wait_for 30 settled 2 "its Endpoints list the 2 ready replicas"
is "$(proxy)" "model v1" "the service proxy (.../services/web:80/proxy/index.html) reaches a ready replica"

kc port-forward svc/web "$L:80" >"$T/pf.log" 2>&1 &
pf=$!
on_exit "kill $pf 2>/dev/null"
wait_for 20 curl -fsS -o /dev/null "http://127.0.0.1:$L/index.html"
is "$(curl -fsS "http://127.0.0.1:$L/index.html" 2>&1)" "model v1" "kubectl port-forward svc/web: the replica answers"
kill "$pf" 2>/dev/null

is "$(kc scale deployment web --replicas=3 2>&1)" "deployment.apps/web scaled" "kubectl scale deployment web --replicas=3"
ok wait_for 90 settled 3 "3 replicas Ready, a third Slurm job, 3 ready endpoints" ||
  diag "$(kc get pods -o wide 2>&1; squeue 2>&1; kc get endpoints web -o yaml 2>&1)"

victim=$(kc get pods -l app=web -o jsonpath='{.items[0].metadata.name}')
vjob=$(kc get pod "$victim" -o jsonpath='{.metadata.annotations.slurmlink\.io/job-id}')
scancel "$vjob"
replaced() { ! kc get pods -l app=web -o name | grep -qx "pod/$victim" && settled 3; }
ok wait_for 90 replaced "scancel of replica $victim's job $vjob: the pod is replaced, 3 ready again" ||
  diag "$(kc get pods -o wide 2>&1; squeue 2>&1)"
is "$(proxy)" "model v1" "the Service answers after the replacement"

# the rolling update: a watcher asks the proxy and counts ready endpoints
# the whole time (a 4th node takes the surge replica)
(
  while [ ! -e "$T/stop" ]; do
    echo "$(proxy | head -1) | $(ready_eps)"
    sleep 0.3
  done
) >"$T/watch.log" 2>&1 &
watcher=$!
on_exit "touch '$T/stop'; kill $watcher 2>/dev/null"
deploy v2 3 | kc apply -f - >/dev/null
ok timeout 180 kubectl --cache-dir "$CL/kcache" rollout status deployment/web --timeout=170s \
  "kubectl rollout status: the new image rolled out"
ok wait_for 60 bash -c "$(declare -f kc proxy); CL='$CL'; [ \"\$(proxy)\" = 'model v2' ]" \
  "the service proxy now reaches the new replicas"
# the watcher goes on until it has seen the new model itself, so that its
# requests span the switch (a fast rollout gives it only a few)
watcher_v2() { grep -q '^model v2' "$T/watch.log"; }
wait_for 30 watcher_v2
touch "$T/stop"
wait "$watcher" 2>/dev/null
answered=$(grep -c '^model v[12] | [1-9]' "$T/watch.log")
total=$(grep -c . "$T/watch.log")
ok test "$(head -c 8 "$T/watch.log")" = "model v1" -a "$answered" = "$total" \
  "from the old model's answers to the new one's, every request through the proxy was answered by a ready replica ($answered of $total)" ||
  diag "$(head -1 "$T/watch.log"; grep -v '^model v[12] | [1-9]' "$T/watch.log" | head -5)"
ok grep -q '^model v2' "$T/watch.log" "the watcher saw the new replicas take over"
# the old replicas are deleted when the rollout is complete, and listed
# until their jobs end (Terminating): wait for them to go
images() { kc get pods -l app=web -o jsonpath='{range .items[*]}{.spec.containers[0].image}{"\n"}{end}' | sort -u; }
only_v2() { [ "$(images)" = "$REG/team/web:v2" ]; }
ok wait_for 60 only_v2 "every replica runs the new image (the old ones gone)" || diag "$(images)"
done_testing
