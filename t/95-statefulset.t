#!/bin/bash
# covers: src/kinds/statefulset/
# 95-statefulset.t — an apps/v1 StatefulSet on a real two-node cluster with
# the real kubectl, each pod an ordinary pod and Slurm job (host runtime):
#   - OrderedReady: web-0, web-1, web-2 made in order, each once the one
#     before is Ready; hostname = the pod's name, subdomain = serviceName,
#     kube's labels; web-0.nginx resolves in web-2 (the headless Service's
#     names in the pods' hosts files) to web-0's address;
#   - a pod whose Slurm job is cancelled comes back under the same name;
#   - kubectl scale sts --replicas=2: the highest ordinal goes;
#   - RollingUpdate: a template change replaces web-1 then web-0 (highest
#     first), kubectl rollout status, the revisions in the status;
#   - Parallel + OnDelete: both pods at once; a template change replaces a
#     pod only when it is deleted;
#   - bad input: 422 naming the field (volumeClaimTemplates, a policy, a
#     forbidden update); delete: its pods and Slurm jobs go.
source "$(dirname "$0")/lib.sh"
plan 20

T=$(tmpdir)
on_exit "rm -rf '$T'"
cluster_up --nodes 2 --cpus 2 || bail "cluster up --nodes 2"

sts() { # name replicas policy strategy value-of-an-env
  cat <<YAML
apiVersion: v1
kind: Service
metadata: {name: nginx}
spec: {clusterIP: None, selector: {app: $1}}
---
apiVersion: apps/v1
kind: StatefulSet
metadata: {name: $1}
spec:
  serviceName: nginx
  replicas: $2
  podManagementPolicy: $3
  updateStrategy: {type: $4}
  selector: {matchLabels: {app: $1}}
  template:
    metadata: {labels: {app: $1}, annotations: {slurmlink.io/runtime: host}}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - name: c
        command: [sleep, "600"]
        env: [{name: V, value: "$5"}]
        resources: {requests: {cpu: 100m, memory: 32Mi}}
YAML
}
jp() { kc get "$1" -o jsonpath="$2" 2>/dev/null; }
running() { # the names of the Running, Ready, not deleted pods of app=$1
  kc get pods -l "app=$1" -o jsonpath='{range .items[*]}{.metadata.name}|{.metadata.deletionTimestamp}|{.status.phase}|{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' 2>/dev/null |
    grep '||Running|True$' | cut -d'|' -f1 | sort | tr '\n' ' '
}
pods_are() { [ "$(running "$1")" = "$2" ]; }
gone_job() { ! squeue -h -j "$1" -t PD,R,CG 2>/dev/null | grep -q .; }

# --- OrderedReady -------------------------------------------------------------------------------------
kc get pods -w --output-watch-events -o 'jsonpath={.type} {.object.metadata.name} {.object.metadata.uid}{"\n"}' >"$T/watch" 2>&1 &
w=$!
on_exit "kill $w 2>/dev/null"
is "$(sts web 3 OrderedReady RollingUpdate v1 | kc apply -f - 2>&1 | tail -1)" "statefulset.apps/web created" "kubectl apply a StatefulSet of 3"
ok wait_for 90 pods_are web "web-0 web-1 web-2 " "web-0, web-1, web-2 Running and Ready" || diag "$(kc get pods -o wide 2>&1)"
ready0=$(jp pod/web-0 '{.status.conditions[?(@.type=="Ready")].lastTransitionTime}')
ready1=$(jp pod/web-1 '{.status.conditions[?(@.type=="Ready")].lastTransitionTime}')
ok test "$(grep -o '^ADDED web-[0-9]' "$T/watch" | tr '\n' ' ')" = "ADDED web-0 ADDED web-1 ADDED web-2 " -a \
  ! "$(jp pod/web-1 '{.metadata.creationTimestamp}')" \< "$ready0" -a ! "$(jp pod/web-2 '{.metadata.creationTimestamp}')" \< "$ready1" \
  "OrderedReady: made in order, each once the one before was Ready" || diag "$(cat "$T/watch")"
like "$(kc get sts web 2>&1)" 'web +3/3 ' "kubectl get sts: READY 3/3"
rev=$(jp sts/web '{.status.updateRevision}')
is "$(jp pod/web-1 '{.spec.hostname} {.spec.subdomain} {.metadata.labels.statefulset\.kubernetes\.io/pod-name} {.metadata.labels.apps\.kubernetes\.io/pod-index} {.metadata.labels.controller-revision-hash} {.metadata.ownerReferences[0].kind}')" \
  "web-1 nginx web-1 1 $rev StatefulSet" "web-1: hostname, subdomain, kube's labels, the revision, owned by the StatefulSet"
ip0=$(jp pod/web-0 '{.status.podIP}')
named() { [ "$(kc exec web-2 -- getent hosts web-0.nginx 2>/dev/null | awk '{print $1}')" = "$ip0" ]; }
ok wait_for 30 named "in web-2, web-0.nginx resolves to web-0's address ($ip0)"

# --- a replaced pod keeps its name ---------------------------------------------------------------------
uid1=$(jp pod/web-1 '{.metadata.uid}')
job1=$(jp pod/web-1 '{.metadata.annotations.slurmlink\.io/job-id}')
scancel "$job1"
back() { [ "$(jp pod/web-1 '{.metadata.uid}')" != "$uid1" ] && pods_are web "web-0 web-1 web-2 "; }
ok wait_for 90 back "scancel of web-1's job $job1: web-1 is made again under its name" || diag "$(kc get pods 2>&1)"

# --- scale --------------------------------------------------------------------------------------------
is "$(kc scale sts web --replicas=2 2>&1)" "statefulset.apps/web scaled" "kubectl scale sts web --replicas=2"
job2=$(jp pod/web-2 '{.metadata.annotations.slurmlink\.io/job-id}')
two() { pods_are web "web-0 web-1 " && ! kc get pod web-2 >/dev/null 2>&1 && gone_job "$job2"; }
ok wait_for 60 two "... web-2 and its Slurm job go, web-0 and web-1 stay"

# --- RollingUpdate ---------------------------------------------------------------------------------------
 kill $w 2>/dev/null
kc get pods -w --watch-only --output-watch-events -o 'jsonpath={.type} {.object.metadata.name} {.object.metadata.uid}{"\n"}' >"$T/watch2" 2>&1 &
w=$!
on_exit "kill $w 2>/dev/null"
sts web 2 OrderedReady RollingUpdate v2 | kc apply -f - >/dev/null
ok timeout 150 kubectl --cache-dir "$CL/kcache" rollout status sts/web --timeout=140s "kubectl rollout status sts/web: rolled out" ||
  diag "$(kc get pods -o wide 2>&1; kc describe pod web-1 2>&1 | tail -15; squeue 2>&1; kc get events 2>&1 | tail -15)"
is "$(grep -o '^ADDED web-[0-9]' "$T/watch2" | tr '\n' ' ')" "ADDED web-1 ADDED web-0 " "RollingUpdate: web-1 replaced first, then web-0"
new=$(jp sts/web '{.status.updateRevision}')
is "$(jp sts/web '{.status.currentRevision} {.status.updatedReplicas} {.status.readyReplicas}') $(jp pod/web-0 '{.spec.containers[0].env[0].value}')" \
  "$new 2 2 v2" "the status: currentRevision is the new one ($new), 2 updated, 2 ready; the pods run the new template"
kill $w 2>/dev/null

# --- Parallel, OnDelete ------------------------------------------------------------------------------
sts par 2 Parallel OnDelete v1 | sed '1,5d' | kc apply -f - >/dev/null
ok wait_for 60 pods_are par "par-0 par-1 " "Parallel: par-0 and par-1 Running"
prev=$(jp pod/par-0 '{.metadata.labels.controller-revision-hash}')
sts par 2 Parallel OnDelete v2 | sed '1,5d' | kc apply -f - >/dev/null
kc delete pod par-1 --wait=false >/dev/null
renewed() { [ "$(jp pod/par-1 '{.spec.containers[0].env[0].value}')" = v2 ] && pods_are par "par-0 par-1 "; }
ok wait_for 60 renewed "OnDelete: par-1, deleted, comes back with the new template" ||
  diag "$(kc get pods -o wide 2>&1; kc describe pod par-1 2>&1 | tail -15; squeue 2>&1)"
is "$(jp pod/par-0 '{.metadata.labels.controller-revision-hash} {.spec.containers[0].env[0].value}')" "$prev v1" \
  "... par-0, not deleted, keeps the old one"

# --- bad input --------------------------------------------------------------------------------------
bad() { sts bad 1 OrderedReady RollingUpdate v1 | sed '1,5d' | sed "$1" | kc apply -f - 2>&1; }
like "$(bad 's|^  serviceName: nginx|  serviceName: nginx\n  volumeClaimTemplates: [{metadata: {name: data}, spec: {accessModes: [ReadWriteOnce], resources: {requests: {storage: 1Gi}}}}]|')" \
  'The StatefulSet "bad" is invalid: spec.volumeClaimTemplates: Forbidden: not served' "volumeClaimTemplates: 422 naming the field"
like "$(bad 's|podManagementPolicy: OrderedReady|podManagementPolicy: Sometimes|')" \
  'spec.podManagementPolicy: Unsupported value: "Sometimes": supported values: "OrderedReady", "Parallel"' "an unknown podManagementPolicy: 422"
like "$(kc patch sts web --type=merge -p '{"spec":{"serviceName":"other"}}' 2>&1)" \
  "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden" \
  "changing serviceName: kube's 422"
is "$(kc get sts bad -o name 2>&1)" 'Error from server (NotFound): statefulsets.apps "bad" not found' "... nothing half-created"

# --- delete -------------------------------------------------------------------------------------------
ids=$(kc get pods -l app=web -o jsonpath='{range .items[*]}{.metadata.annotations.slurmlink\.io/job-id} {end}')
kc delete sts web >/dev/null 2>&1
over() { [ -z "$(kc get pods -l app=web -o name 2>/dev/null)" ] && for j in $ids; do gone_job "$j" || return 1; done; }
ok wait_for 60 over "kubectl delete sts web: its pods and Slurm jobs ($ids) go"
done_testing
