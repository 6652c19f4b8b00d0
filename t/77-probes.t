#!/bin/bash
# covers: src/shim/probe.c src/shim/exec.c src/shimlib/probespec.c src/pod/probe.c src/translate/probes.c src/ctl/podstatus.c
# 77-probes.t — readiness, liveness and startup probes run by slurmlink-shim
# on a real Slurm cluster (host runtime, servers started on a file's
# appearance, so nothing waits on time): httpGet on a named port and
# tcpSocket readiness, HTTPS without verification (Ready False with the kubelet's Unhealthy Event, then
# True), an exec readiness probe that follows a file (Ready and
# ContainersReady both ways), a failing liveness probe (Unhealthy, Killing,
# the container restarted; with restartPolicy Never the pod fails), a
# startup probe that holds the liveness and readiness probes back, and bad
# probe specs refused with 422 naming the field, nothing created; an exec
# probe in a charliecloud container runs inside it (joined, as kubectl exec).
source "$(dirname "$0")/lib.sh"
plan 33

cluster_up --gpus 0 --cpus 8 || bail "cluster up"
W=$(mktemp -d /tmp/slt-probes.XXXXXX)
on_exit "rm -rf '$W'"
chmod 1777 "$W"
mkdir -p "$W/www" && echo hello >"$W/www/index.html" && chmod -R a+rX "$W/www"
P1=$(free_ports 3) && P2=$((P1 + 1)) && P3=$((P1 + 2)) || bail "free ports"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$W/key.pem" -out "$W/cert.pem" -days 1 -subj /CN=probe 2>/dev/null &&
  chmod a+r "$W/key.pem" "$W/cert.pem" || bail "a self-signed certificate"

pod() { # name restartPolicy command container-yaml-lines
  cat <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1, annotations: {slurmlink.io/runtime: host, slurmlink.io/tmp: node}}
spec:
  restartPolicy: $2
  terminationGracePeriodSeconds: 2
  containers:
  - name: main
    command: [sh, -c, '$3']
    resources: {requests: {cpu: 100m, memory: 64Mi}}
$4
YAML
}
cond() { kc get pod "$1" -o jsonpath="{.status.conditions[?(@.type==\"$2\")].status}" 2>/dev/null; }
ready_is() { [ "$(cond "$1" Ready)" = "$2" ] && [ "$(cond "$1" ContainersReady)" = "$2" ]; }
cstat() { kc get pod "$1" -o jsonpath="{.status.containerStatuses[0].$2}" 2>/dev/null; }
events() { kc get events --field-selector involvedObject.name="$1" -o jsonpath='{range .items[*]}{.reason}: {.message}{"\n"}{end}' 2>/dev/null; }
has_event() { events "$1" | grep -qF -- "$2"; }
until_file() { echo "while [ ! -e $W/$1 ]; do sleep 0.2; done; $2"; }

# --- the pods, all at once --------------------------------------------------------
out=$(pod web Always "$(until_file web "exec busybox httpd -f -p $P1 -h $W/www")" "    ports: [{name: http, containerPort: $P1}]
    readinessProbe: {httpGet: {path: /index.html, port: http}, periodSeconds: 1}" | kc apply -f - 2>&1)
unlike "$out" "ignored" "a pod with a readinessProbe: no 'is ignored' warning"
pod tcp Always "$(until_file tcp "exec busybox httpd -f -p $P2 -h $W/www")" "    readinessProbe: {tcpSocket: {port: $P2}, periodSeconds: 1}" | kc apply -f - >/dev/null
pod tls Always "exec openssl s_server -quiet -www -accept $P3 -cert $W/cert.pem -key $W/key.pem" "    readinessProbe: {httpGet: {scheme: HTTPS, port: $P3, httpHeaders: [{name: X-Probe, value: 'yes'}]}, periodSeconds: 1}" | kc apply -f - >/dev/null
pod toggle Always "sleep 600" "    readinessProbe: {exec: {command: [test, -e, $W/ready]}, periodSeconds: 1, failureThreshold: 1}" | kc apply -f - >/dev/null
pod live Always "sleep 600" "    livenessProbe: {exec: {command: [sh, -c, 'echo not alive; exit 1']}, periodSeconds: 1, failureThreshold: 2}" | kc apply -f - >/dev/null
pod never Never "sleep 600" "    livenessProbe: {exec: {command: [sleep, '30']}, timeoutSeconds: 1, periodSeconds: 1, failureThreshold: 1, terminationGracePeriodSeconds: 1}" | kc apply -f - >/dev/null
pod slow Always "sleep 600" "    startupProbe: {exec: {command: [test, -e, $W/started]}, periodSeconds: 1, failureThreshold: 600}
    livenessProbe: {exec: {command: [test, -e, $W/started]}, periodSeconds: 1, failureThreshold: 1}
    readinessProbe: {exec: {command: ['true']}, periodSeconds: 1}" | kc apply -f - >/dev/null
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null || bail "the busybox image"
cat <<YAML | kc apply -f - >/dev/null
apiVersion: v1
kind: Pod
metadata: {name: cc}
spec:
  terminationGracePeriodSeconds: 2
  containers:
  - name: main
    image: busybox
    command: [sh, -c, 'touch /tmp/ready; exec sleep 600']
    resources: {requests: {cpu: 100m, memory: 64Mi}}
    readinessProbe: {exec: {command: [sh, -c, 'test -e /tmp/ready && ! test -e /etc/debian_version']}, periodSeconds: 1}
YAML
for p in web tcp tls toggle live slow; do wait_for 90 running "$p" || diag "$p: $(kc get pod "$p" -o jsonpath='{.status}' 2>&1)"; done

# --- httpGet on a named port, tcpSocket ------------------------------------------------
ok wait_for 30 has_event web "Readiness probe failed: Get \"http://" "httpGet readiness on a server not yet listening: Unhealthy 'Readiness probe failed: Get \"http://...'"
is "$(cond web Ready)/$(cond web ContainersReady)/$(cstat web ready)" "False/False/false" "... the pod is Running but not Ready (Ready, ContainersReady False, containerStatuses ready false)"
touch "$W/web"
ok wait_for 30 ready_is web True "the server listens: Ready and ContainersReady True"
is "$(cstat web ready)" true "... containerStatuses[0].ready true"
ok wait_for 30 has_event tcp "Readiness probe failed: dial tcp " "tcpSocket readiness before the listener: Unhealthy 'dial tcp ...'"
like "$(events tcp)" "connect: connection refused" "... the kubelet's text for a refused connection"
is "$(cond tcp Ready)" False "... not Ready"
touch "$W/tcp"
ok wait_for 30 ready_is tcp True "tcpSocket: the port accepts, Ready True"

ok wait_for 30 ready_is tls True "httpGet with scheme HTTPS and httpHeaders on a self-signed certificate: Ready True (no verification, as the kubelet)"

# --- exec readiness follows a file -----------------------------------------------------
ok wait_for 30 has_event toggle "Readiness probe failed" "exec readiness failing: Unhealthy Event"
is "$(cond toggle Ready)" False "... not Ready"
is "$(kc get pod toggle -o jsonpath='{.status.conditions[?(@.type=="Ready")].message}')" "containers with unready status: [main]" "... the kubelet's message on the Ready condition"
touch "$W/ready"
ok wait_for 30 ready_is toggle True "the file appears: Ready True"
rm -f "$W/ready"
ok wait_for 30 ready_is toggle False "the file goes: Ready and ContainersReady False again"
is "$(phase_of toggle)/$(cstat toggle restartCount)" "Running/0" "... a failed readiness probe neither stops nor restarts the container"

# --- liveness -----------------------------------------------------------------------------
ok wait_for 30 has_event live "Liveness probe failed: not alive" "failing liveness probe: Unhealthy 'Liveness probe failed: not alive'"
ok wait_for 30 has_event live "Killing: Container main failed liveness probe, will be restarted" "... Killing 'Container main failed liveness probe, will be restarted'"
restarted() { [ "$(cstat live restartCount)" -ge 1 ] 2>/dev/null; }
ok wait_for 60 restarted "... the container is restarted (restartCount >= 1)"
is "$(cstat live lastState.terminated.exitCode)" 143 "... its last run ended by SIGTERM (exit code 143)"
failed() { [ "$(phase_of never)" = Failed ]; }
ok wait_for 60 failed "restartPolicy Never: a failed liveness probe fails the pod"
is "$(events never | grep '^Unhealthy')" 'Unhealthy: Liveness probe failed: command "sleep 30" timed out' "... an exec probe past its timeoutSeconds: the kubelet's text"
is "$(events never | grep '^Killing')" "Killing: Container main failed liveness probe" "... Killing without ', will be restarted'"

# --- a startup probe holds the others back ---------------------------------------------
three() { [ "$(kc get events --field-selector involvedObject.name=slow,reason=Unhealthy -o jsonpath='{.items[0].count}' 2>/dev/null)" -ge 3 ] 2>/dev/null; }
ok wait_for 30 three "startup probe failing (3 runs)"
is "$(cstat slow started)/$(cstat slow ready)/$(cstat slow restartCount)/$(events slow | grep -c 'Liveness\|Readiness')" "false/false/0/0" \
  "... meanwhile started and ready false, no liveness or readiness run (a liveness probe that fails until then did not restart it)"
touch "$W/started"
ok wait_for 30 ready_is slow True "startup succeeds: the readiness probe runs, Ready True"

# --- exec in a charliecloud container ----------------------------------------------------
ok wait_for 60 ready_is cc True "charliecloud: the exec readiness probe runs inside the running container (its /tmp, the image's files, not the node's)"

# --- bad probe specs -------------------------------------------------------------------------
bad() { # container-yaml-lines : the 422's text
  pod bad Always "sleep 1" "$1" | kc create -f - 2>&1
}
out=$(bad "    readinessProbe: {exec: {command: ['true']}, tcpSocket: {port: 80}}
    livenessProbe: {httpGet: {port: 70000}, successThreshold: 2}
    startupProbe: {periodSeconds: -1}")
like "$out" 'spec.containers\[0\].readinessProbe.tcpSocket: Forbidden: may not specify more than 1 handler type' "two handlers: 422 naming the second"
like "$out" 'spec.containers\[0\].livenessProbe.httpGet.port: Invalid value: 70000: must be between 1 and 65535, inclusive' "a port out of range"
like "$out" 'spec.containers\[0\].livenessProbe.successThreshold: Invalid value: 2: must be 1' "liveness successThreshold must be 1"
like "$out" 'spec.containers\[0\].startupProbe: Required value: must specify a handler type.*spec.containers\[0\].startupProbe.periodSeconds: Invalid value: -1: must be greater than or equal to 0' "no handler; a negative period"
out=$(bad "    readinessProbe: {grpc: {port: 9000}}")
like "$out" 'Pod "bad" is invalid: spec.containers\[0\].readinessProbe.grpc: Forbidden: grpc probes are not supported' "grpc: refused at create, naming the field"
nok kc get pod bad "... and no pod was created"
