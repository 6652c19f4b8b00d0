#!/bin/bash
# covers: src/shimlib/hosts.c src/shim/names.c src/shim/exec.c src/translate/hosts.c src/pod/hosts.c src/ctl/gang.c src/shim/pod.c
# 57-pod-names.t — pods reach each other by their Kubernetes DNS names
# (spec.hostname + spec.subdomain: h.s, h.s.ns, h.s.ns.svc,
# h.s.ns.svc.cluster.local) through the pod's hosts file that
# slurmlink-shim writes on the node and binds at /etc/hosts; two nodes,
# each its own network namespace and address:
#   - a pod of the host runtime: its names and spec.hostAliases resolve
#     with getent, `hostname` is spec.hostname and `hostname -f` the fully
#     qualified name, as in a Kubernetes pod, in kubectl exec too; a
#     charliecloud pod without spec.hostname: its name with its subdomain,
#     in its run and in kubectl exec (which joins the run);
#   - bad hostAliases (an IP that is none, a hostname that is no DNS
#     subdomain) and a bad hostname: 422 naming each field, nothing made;
#   - a PyTorchJob (Master + Worker, one gang job on both nodes) whose
#     templates set hostname and subdomain, on the host runtime and on
#     charliecloud with a registry image: each replica's getent of the
#     other's name gives the other's node address, and the Worker reaches
#     a port the Master listens on (busybox nc) by the Master's name;
#   - a packed PyTorchJob (Master + 3 Workers on 2 nodes, subdomain only):
#     every replica's <pod>.<subdomain> gives the node it runs on (member
#     i on node i mod 2), in the first replica and in the last.
source "$(dirname "$0")/lib.sh"
plan 16

T=$(tmpdir)
on_exit "rm -rf '$T'"
chmod 755 "$T"
command -v busybox >/dev/null || bail "busybox is missing (scripts/deps.sh installs busybox-static)"
start_registry "$T"
# busybox (sh, nc) and the node's getent with the libraries it loads
push_busybox "$T" names/bb:v1 sh -c 'for f in /usr/bin/getent $(ldd /usr/bin/getent | grep -o "/[^ ]*"); do
  mkdir -p ".$(dirname "$f")" && cp -L "$f" ".$f"; done'
cluster_up --nodes 2 --cpus 2 || bail "cluster up --nodes 2"

hostip() { kc get pod "$1" -o jsonpath='{.status.hostIP}' 2>/dev/null; }
phase_done() { [[ "$(phase_of "$1")" =~ ^(Succeeded|Failed)$ ]]; }

# --- one pod of the host runtime, one of charliecloud -------------------------------------------
kc apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: solo, annotations: {slurmlink.io/runtime: host}}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 1
  hostname: h1
  subdomain: grp
  hostAliases:
  - {ip: 10.77.0.9, hostnames: [alias-one, alias-two.example]}
  containers:
  - name: c
    command: [/bin/sh, -c, 'for n in h1.grp h1.grp.default h1.grp.default.svc.cluster.local h1 alias-two.example;
      do echo "\$n=\$(getent hosts \$n | cut -d" " -f1)"; done; echo "hostname=\$(hostname) fqdn=\$(hostname -f)";
      exec sleep 600']
---
apiVersion: v1
kind: Pod
metadata: {name: ccsolo, annotations: {slurmlink.io/runtime: charliecloud}}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 1
  subdomain: grp2
  containers:
  - name: c
    image: $REG/names/bb:v1
    command: [sh, -c, 'echo "me=\$(/usr/bin/getent hosts ccsolo.grp2 | cut -d" " -f1)"; exec busybox sleep 600']
YAML
printed() { kc logs "$1" 2>/dev/null | grep -q "$2"; }
wait_for 90 printed solo fqdn=
ip=$(hostip solo)
log=$(kc logs solo 2>&1)
is "$(echo "$log" | grep -E '^h1' | tr '\n' ' ')" "h1.grp=$ip h1.grp.default=$ip h1.grp.default.svc.cluster.local=$ip h1=$ip " \
  "a host-runtime pod: h1.grp, .default, .default.svc.cluster.local and h1 give its node's address ($ip)" ||
  diag "$log"
like "$log" "alias-two.example=10.77.0.9" "spec.hostAliases resolve"
like "$log" "hostname=h1 fqdn=h1.grp.default.svc.cluster.local" "hostname is spec.hostname, hostname -f the pod's FQDN"
is "$(kc exec solo -- sh -c 'echo $(getent hosts alias-one | cut -d" " -f1) $(hostname)' 2>&1)" "10.77.0.9 h1" \
  "kubectl exec into it: the same hosts file and host name"
wait_for 90 printed ccsolo me=
is "$(kc logs ccsolo 2>&1)" "me=$(hostip ccsolo)" "charliecloud, no spec.hostname: the pod's name with its subdomain resolves to its node"
is "$(kc exec ccsolo -- /usr/bin/getent hosts ccsolo.grp2.default.svc 2>&1 | cut -d' ' -f1)" "$(hostip ccsolo)" \
  "kubectl exec into the charliecloud pod (joined): the same hosts file"
kc delete pod solo ccsolo --wait=false >/dev/null 2>&1

# --- bad input: 422 naming the field ------------------------------------------------------------
bad() { # name spec-lines
  kc create -f - 2>&1 <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1}
spec:
$2
  containers: [{name: c, image: busybox, command: [sh]}]
YAML
}
out=$(bad badip '  hostAliases: [{ip: 10.1.2, hostnames: [ok]}]')
like "$out" 'Pod "badip" is invalid: spec.hostAliases\[0\].ip: Invalid value: "10.1.2": must be a valid IP address' \
  "hostAliases ip that is no IP: 422 naming spec.hostAliases[0].ip"
out=$(bad badname '  hostAliases: [{ip: 10.1.2.3, hostnames: [ok, Not_A_Name]}]')
like "$out" 'spec.hostAliases\[0\].hostnames\[1\]: Invalid value: "Not_A_Name": a lowercase RFC 1123 subdomain' \
  "a hostAliases hostname that is no DNS subdomain: 422 naming spec.hostAliases[0].hostnames[1]"
out=$(bad badhost '  hostname: a.b')
like "$out" 'spec.hostname: Invalid value: "a.b": must not contain dots' "a hostname that is no DNS label: 422"
out=$(bad badsub '  subdomain: Sub_X')
like "$out" 'spec.subdomain: Invalid value: "Sub_X": a lowercase RFC 1123 label' "a subdomain that is no DNS label: 422"
is "$(kc get pods -o name 2>&1 | grep -c -E 'bad(ip|name|host|sub)')" 0 "none of them was made"

# --- a gang: PyTorchJob Master + Worker on two nodes --------------------------------------------
# The Worker's message is in a file before it connects. The Master's nc has
# no input, so it half-closes the connection at once; an nc reading a pipe
# that echo has not written yet takes that FIN as the end and sends nothing
# (and exits 0), which the Master prints as an empty message.
PORT=$(free_ports 1)
ptj() { # name runtime-annotation image getent-binary
  cat <<YAML
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: $1}
spec:
  runPolicy: {backoffLimit: 0}
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: Never
      template:
        metadata: {annotations: {$2}}
        spec:
          hostname: boss
          subdomain: $1
          containers:
          - name: pytorch
            image: $3
            command: [sh, -c, 'echo "peer=\$($4 hosts w0.$1 | cut -d" " -f1)";
              echo "got=\$(busybox nc -l -p $PORT)"']
    Worker:
      replicas: 1
      restartPolicy: Never
      template:
        metadata: {annotations: {$2}}
        spec:
          hostname: w0
          subdomain: $1
          containers:
          - name: pytorch
            image: $3
            command: [sh, -c, 'echo "peer=\$($4 hosts boss.$1.default | cut -d" " -f1)";
              m=/tmp/hello.\$\$; echo hello-from-w0 >\$m; i=0;
              until busybox nc boss.$1 $PORT <\$m 2>/dev/null; do
              i=\$((i + 1)); [ \$i -lt 60 ] || exit 1; sleep 1; done; rm -f \$m; echo sent']
YAML
}
gang_checks() { # name what
  local m w ended
  ended() { [[ "$(kc get pytorchjob "$1" -o jsonpath='{range .status.conditions[*]}{.type}={.status} {end}' 2>&1)" =~ (Succeeded|Failed)=True ]]; }
  wait_for 180 ended "$1"
  m=$(kc logs "$1-master-0" 2>&1) w=$(kc logs "$1-worker-0" 2>&1)
  local mip wip
  mip=$(hostip "$1-master-0") wip=$(hostip "$1-worker-0")
  is "$m / $w" "peer=$wip
got=hello-from-w0 / peer=$mip
sent" "$2: each replica resolves the other's name to the other's node ($mip, $wip); the Worker reached the Master's port by name" ||
    diag "$(kc get pods -o wide 2>&1)"
  ok test -n "$mip" -a "$mip" != "$wip" "$2: the replicas ran on two nodes"
}
ptj hn 'slurmlink.io/runtime: host' busybox getent | kc apply -f - >/dev/null
gang_checks hn "host runtime"
ptj cc 'slurmlink.io/runtime: charliecloud' "$REG/names/bb:v1" /usr/bin/getent | kc apply -f - >/dev/null
gang_checks cc "charliecloud, registry image"

# --- a packed gang: 4 replicas on 2 nodes, no spec.hostname (the pod's name is) -----------------
kc apply -f - >/dev/null <<'YAML'
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: pk}
spec:
  runPolicy: {backoffLimit: 0}
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: Never
      template:
        metadata: {annotations: {slurmlink.io/runtime: host}}
        spec:
          subdomain: pk
          containers:
          - name: pytorch
            image: busybox
            command: [sh, -c, 'for p in pk-master-0 pk-worker-0 pk-worker-1 pk-worker-2; do
              getent hosts $p.pk | cut -d" " -f1; done | tr "\n" " "']
    Worker:
      replicas: 3
      restartPolicy: Never
      template:
        metadata: {annotations: {slurmlink.io/runtime: host}}
        spec:
          subdomain: pk
          containers:
          - name: pytorch
            image: busybox
            command: [sh, -c, 'for p in pk-master-0 pk-worker-0 pk-worker-1 pk-worker-2; do
              getent hosts $p.pk | cut -d" " -f1; done | tr "\n" " "']
YAML
pk_ended() { [[ "$(kc get pytorchjob pk -o jsonpath='{range .status.conditions[*]}{.type}={.status} {end}' 2>&1)" =~ (Succeeded|Failed)=True ]]; }
wait_for 180 pk_ended
want=$(for p in pk-master-0 pk-worker-0 pk-worker-1 pk-worker-2; do printf '%s ' "$(hostip $p)"; done)
got=$(for p in pk-master-0 pk-worker-2; do printf '%s/' "$(kc logs $p 2>&1)"; done)
is "$got" "$want/$want/" "4 replicas on 2 nodes (member i on node i mod 2): in the first and the last, each <pod>.<subdomain> gives its pod's node ($want)" ||
  diag "$(kc get pods -o wide 2>&1)"
