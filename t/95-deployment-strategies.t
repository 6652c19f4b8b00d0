#!/bin/bash
# covers: src/kinds/deployment/ src/kinds/replicaset/
# 95-deployment-strategies.t — what t/95-deployment.t leaves out, on a
# real cluster (slurmctld, slurmd, kubectl):
#   - Recreate: a watch of the pods never sees one of the old template and
#     one of the new at once;
#   - a template whose image cannot be pulled: Progressing False with
#     ProgressDeadlineExceeded once progressDeadlineSeconds pass without
#     progress, and `kubectl rollout status` fails with kube's words; the
#     old replica stays Ready (maxUnavailable 0);
#   - a ReplicaSet of its own: created from a file, scaled down (the
#     surplus pod deleted), its pods deleted with it in the foreground
#     (the ReplicaSet stays until they are gone).
source "$(dirname "$0")/lib.sh"
plan 9

cluster_up --cpus 8 || bail "cluster up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null || bail "busybox image"
jp() { kc get "$1" -o jsonpath="$2" 2>&1; }
dep() { # name strategy-lines image [deadline]
  cat <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: $1}
spec:
  replicas: 2
  progressDeadlineSeconds: ${4:-600}
  selector: {matchLabels: {app: $1}}
  strategy: $2
  template:
    metadata: {labels: {app: $1}}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - {name: c, image: $3, command: [sleep, "100000"]}
YAML
}
ready() { # app: Running, Ready and not being deleted
  kc get pods -l app="$1" -o jsonpath='{range .items[*]}{.metadata.deletionTimestamp}|{.status.phase}|{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' 2>/dev/null |
    grep -c '^|Running|True$'
}

dep rc '{type: Recreate}' busybox | kc apply -f - >/dev/null
ok wait_for 90 eval '[ "$(ready rc)" = 2 ]' "a Recreate Deployment: 2 replicas Ready"
kc get pods -l app=rc -w -o jsonpath='{.metadata.name}|{.metadata.labels.pod-template-hash}|{.status.phase}{"\n"}' >"$CL/watch" 2>&1 &
WPID=$!
on_exit "kill $WPID 2>/dev/null"
wait_for 30 eval '[ "$(wc -l <"$CL/watch")" -ge 2 ]'
kc set env deployment/rc V=2 >/dev/null
ok kc rollout status deployment/rc --timeout=120s "set env: the Recreate rollout completes"
kill $WPID 2>/dev/null
# the hashes running at once, after each event
both=$(awk -F'|' '{ if ($3 == "Running") r[$1] = $2; else delete r[$1]; delete h; n = 0; for (k in r) if (!(r[k] in h)) { h[r[k]] = 1; n++ } if (n > m) m = n } END { print m + 0 }' "$CL/watch")
is "$both" 1 "never a pod of the old template and one of the new running at once" || diag "$(cat "$CL/watch")"

dep dl '{type: RollingUpdate, rollingUpdate: {maxSurge: 1, maxUnavailable: 0}}' busybox 3 | kc apply -f - >/dev/null
wait_for 90 eval '[ "$(ready dl)" = 2 ]'
kc set image deployment/dl c=127.0.0.1:1/missing:v1 >/dev/null
ok wait_for 60 eval '[ "$(jp deploy/dl "{.status.conditions[?(@.type==\"Progressing\")].reason}")" = ProgressDeadlineExceeded ]' \
  "an image that cannot be pulled: Progressing ProgressDeadlineExceeded after progressDeadlineSeconds"
like "$(kc rollout status deployment/dl --timeout=10s 2>&1)" 'error: deployment "dl" exceeded its progress deadline' \
  "kubectl rollout status fails with kube's words"
is "$(ready dl)" 2 "the old replicas stay Ready (maxUnavailable 0)"

cat <<YAML | kc apply -f - >/dev/null
apiVersion: apps/v1
kind: ReplicaSet
metadata: {name: solo}
spec:
  replicas: 3
  selector: {matchLabels: {app: solo}}
  template:
    metadata: {labels: {app: solo}}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - {name: c, image: busybox, command: [sleep, "100000"]}
YAML
ok wait_for 90 eval '[ "$(ready solo)" = 3 ]' "a ReplicaSet of its own: 3 pods Ready"
kc scale rs solo --replicas=1 >/dev/null
ok wait_for 60 eval '[ "$(kc get pods -l app=solo -o name | wc -l)" = 1 ] && [ "$(jp rs/solo "{.status.replicas}/{.status.readyReplicas}")" = 1/1 ]' \
  "kubectl scale rs to 1: the surplus pods deleted, status 1/1"
kc delete rs solo --cascade=foreground --wait=false >/dev/null
seen=$(jp rs/solo '{.metadata.finalizers}')
ok wait_for 60 eval '! kc get rs solo >/dev/null 2>&1 && [ -z "$(kc get pods -l app=solo -o name)" ]' \
  "--cascade=foreground: the ReplicaSet (finalizer ${seen:-none seen}) goes after its pod"
