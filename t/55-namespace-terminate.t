#!/bin/bash
# covers: src/api/ src/ctl/
# Namespace termination as kube-apiserver and its namespace controller do
# it, on a real Slurm cluster: DELETE marks the namespace Terminating (with
# the "kubernetes" finalizer) and returns; its pods are deleted gracefully
# (their Slurm jobs are cancelled), its conditions say what is left, and it
# goes only once its content is gone. Meanwhile new content is 403, a
# re-create 409, a second DELETE 409; a watch sees MODIFIED then DELETED;
# PUT .../finalize; kubectl 1.30, 1.32 and 1.33 `delete ns` wait for the end.
source "$(dirname "$0")/lib.sh"
plan 32

cluster_up --cpus 4 || bail "cluster up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
SDK=/usr/lib/google-cloud-sdk/bin
KC=(kubectl --cache-dir "$CL/kcache")
URL=$(kc config view -o jsonpath='{.clusters[0].cluster.server}')
ADM=(--cacert "$CL/pki/ca.crt" --cert "$CL/pki/admin.crt" --key "$CL/pki/admin.key")
req() { # METHOD PATH [curl args] → $CODE $BODY
  local m=$1 p=$2; shift 2
  CODE=$(curl -s -X "$m" "${ADM[@]}" -o "$CL/body" -w '%{http_code}' "$@" "$URL$p")
  BODY=$(cat "$CL/body")
}
jqr() { printf '%s' "$BODY" | jq -r "$1"; }
pod() { # name: a pod whose container ignores SIGTERM (the job lasts its grace period)
  cat <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 3
  containers:
  - name: main
    image: busybox
    command: ["sh", "-c", "trap '' TERM; while :; do sleep 1; done"]
    resources: {requests: {cpu: 100m, memory: 64Mi}}
YAML
}
job_of() { kc -n "$1" get pod "$2" -o jsonpath='{.metadata.annotations.slurmlink\.io/job-id}' 2>/dev/null; }
running() { [ "$(kc -n "$1" get pod "$2" -o jsonpath='{.status.phase}' 2>/dev/null)" = Running ]; }
job_done() { # job id: no longer pending or running in Slurm
  local s
  s=$(squeue -h -t all -j "$1" -o %T 2>/dev/null)
  [ -z "$s" ] || [[ "$s" =~ ^(CANCELLED|COMPLETED|FAILED|TIMEOUT)$ ]]
}
gone() { [ "$(curl -s "${ADM[@]}" -o /dev/null -w '%{http_code}' "$URL/api/v1/namespaces/$1")" = 404 ]; }
cond() { # ns type → "status|reason|message"
  kc get ns "$1" -o json | jq -r --arg t "$2" '.status.conditions[]? | select(.type==$t) | [.status,.reason,.message] | join("|")'
}

# --- a namespace with two running pods and a configmap held by a finalizer ---
N=nst-$$
kc create namespace "$N" >/dev/null
for p in a b; do pod "$p" | kc -n "$N" apply -f - >/dev/null; done
kc -n "$N" create configmap held --from-literal=k=v >/dev/null
kc -n "$N" patch configmap held --type=merge -p '{"metadata":{"finalizers":["example.com/hold"]}}' >/dev/null
ok wait_for 60 running "$N" a "pod a runs"
ok wait_for 60 running "$N" b "pod b runs"
JA=$(job_of "$N" a) JB=$(job_of "$N" b)
like "$JA $JB" '^[0-9]+ [0-9]+$' "both pods have Slurm jobs ($JA $JB)"

rv=$(kc get ns "$N" -o jsonpath='{.metadata.resourceVersion}')
curl -sN "${ADM[@]}" "$URL/api/v1/namespaces?watch=1&fieldSelector=metadata.name%3D$N&resourceVersion=$rv" >"$CL/watch.out" &
WP=$!
curl -sN "${ADM[@]}" "$URL/api/v1/namespaces/$N/pods?watch=1" >"$CL/pwatch.out" &
PW=$!
on_exit "kill $WP $PW 2>/dev/null"

req DELETE "/api/v1/namespaces/$N"
is "$CODE $(jqr '[.kind, .status.phase, (.metadata.deletionTimestamp != null | tostring), (.spec.finalizers | join(","))] | join(" ")')" \
  "200 Namespace Terminating true kubernetes" "DELETE answers the namespace: Terminating, deletionTimestamp, spec.finalizers [kubernetes]"
req GET "/api/v1/namespaces/$N"
is "$CODE $(jqr .status.phase)" "200 Terminating" "the namespace stays while its content is being removed"

req POST "/api/v1/namespaces/$N/configmaps" -H 'Content-Type: application/json' --data-binary '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"new"}}'
is "$CODE $(jqr '[.reason, .message] | join("|")')" \
  "403 Forbidden|configmaps \"new\" is forbidden: unable to create new content in namespace $N because it is being terminated" \
  "creating content in a Terminating namespace: 403 with kube's text"
is "$(jqr '.details.causes[0] | [.reason, .field, .message] | join("|")')" \
  "NamespaceTerminating|metadata.namespace|namespace $N is being terminated" "the Status names the cause and the field"
out=$(pod c | kc -n "$N" apply -f - 2>&1)
like "$out" "pods \"c\" is forbidden: unable to create new content in namespace $N because it is being terminated" "kubectl apply of a pod there is refused"
req POST /api/v1/namespaces -H 'Content-Type: application/json' --data-binary '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"'"$N"'"}}'
is "$CODE $(jqr '[.reason, .message] | join("|")')" "409 AlreadyExists|object is being deleted: namespaces \"$N\" already exists" \
  "re-creating it meanwhile: 409 AlreadyExists (object is being deleted)"
req DELETE "/api/v1/namespaces/$N"
is "$CODE $(jqr '[.reason, .message] | join("|")')" \
  "409 Conflict|Operation cannot be fulfilled on namespaces \"$N\": The system is ensuring all content is removed from this namespace.  Upon completion, this namespace will automatically be purged by the system." \
  "a second DELETE: 409 Conflict with kube's text"

ok wait_for 60 job_done "$JA" "pod a's Slurm job is ended"
ok wait_for 60 job_done "$JB" "pod b's Slurm job is ended"
podsgone() { [ "$(kc -n "$N" get pods -o name 2>/dev/null | wc -l)" = 0 ]; }
ok wait_for 60 podsgone "the pods are removed once their jobs have ended"
adel() { jq -r 'select(.object.metadata.name=="a") | .type' "$CL/pwatch.out" | grep -q DELETED; }
wait_for 10 adel
is "$(jq -r 'select(.object.metadata.name=="a") | .type + " " + (.object.metadata.deletionGracePeriodSeconds|tostring)' "$CL/pwatch.out" | tail -1)" \
  "DELETED 3" "pod a went by graceful deletion (its grace period, 3 s)"
fin() { [ "$(cond "$N" NamespaceFinalizersRemaining)" = "True|SomeFinalizersRemain|Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances" ]; }
ok wait_for 30 fin "NamespaceFinalizersRemaining names the finalizer holding content"
is "$(cond "$N" NamespaceContentRemaining)" "True|SomeResourcesRemain|Some resources are remaining: configmaps. has 1 resource instances" \
  "NamespaceContentRemaining counts what is left"
is "$(cond "$N" NamespaceDeletionContentFailure)" "False|ContentDeleted|All content successfully deleted, may be waiting on finalization" \
  "NamespaceDeletionContentFailure is False"
is "$(kc get ns "$N" -o jsonpath='{.status.phase} {.spec.finalizers[*]}')" "Terminating kubernetes" "still Terminating, the kubernetes finalizer kept"
kc -n "$N" patch configmap held --type=merge -p '{"metadata":{"finalizers":null}}' >/dev/null
ok wait_for 30 gone "$N" "once the finalizer is removed the namespace goes"
ok wait_for 10 grep -q DELETED "$CL/watch.out" "the watch saw it go"
is "$(jq -r .type "$CL/watch.out" | uniq | tr '\n' ' ')" "MODIFIED DELETED " "the watch sees MODIFIED, then DELETED"
kill $WP $PW 2>/dev/null

# --- an empty namespace: Terminating first, then gone ---------------------------
E=nse-$$
kc create namespace "$E" >/dev/null
rv=$(kc get ns "$E" -o jsonpath='{.metadata.resourceVersion}')
curl -sN "${ADM[@]}" "$URL/api/v1/namespaces?watch=1&fieldSelector=metadata.name%3D$E&resourceVersion=$rv" >"$CL/ewatch.out" &
WE=$!
on_exit "kill $WE 2>/dev/null"
req DELETE "/api/v1/namespaces/$E"
is "$CODE $(jqr .status.phase)" "200 Terminating" "DELETE of an empty namespace answers it Terminating"
ok wait_for 30 gone "$E" "an empty namespace is removed by the controller"
wait_for 10 grep -q DELETED "$CL/ewatch.out"
kill $WE 2>/dev/null
is "$(jq -r 'select(.type=="DELETED") | .object | [(.spec.finalizers | length | tostring), (.status.conditions[]? | select(.type=="NamespaceContentRemaining") | .reason)] | join(" ")' "$CL/ewatch.out")" \
  "0 ContentRemoved" "it went only after the controller found it empty and dropped the kubernetes finalizer"
is "$(kc create namespace "$E" 2>&1)" "namespace/$E created" "the name is free again afterwards"

# --- spec.finalizers of someone else: kept until PUT .../finalize removes it ---
F=nsf-$$
kc create namespace "$F" >/dev/null
req PUT "/api/v1/namespaces/$F/finalize" -H 'Content-Type: application/json' \
  --data-binary '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"'"$F"'"},"spec":{"finalizers":["kubernetes","example.com/ours"]}}'
is "$CODE $(jqr '.spec.finalizers | join(",")')" "200 kubernetes,example.com/ours" "PUT /finalize sets spec.finalizers"
kc delete ns "$F" --wait=false >/dev/null
ours() { [ "$(kc get ns "$F" -o jsonpath='{.spec.finalizers[*]}' 2>/dev/null)" = example.com/ours ]; }
ok wait_for 30 ours "the controller removes only its own finalizer"
req PUT "/api/v1/namespaces/$F/finalize" -H 'Content-Type: application/json' \
  --data-binary '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"'"$F"'"},"spec":{"finalizers":[]}}'
is "$CODE" 200 "PUT /finalize with no finalizers"
ok wait_for 30 gone "$F" "then the namespace goes"

# --- kubectl delete ns waits for the content and the namespace ------------------
for v in 1.30 1.32 1.33; do
  K=$SDK/kubectl.$v
  n=nsk-${v//./}-$$
  "$K" --cache-dir "$CL/kc-$v" create namespace "$n" >/dev/null
  pod w | "$K" --cache-dir "$CL/kc-$v" -n "$n" apply -f - >/dev/null
  wait_for 60 running "$n" w || diag "[$v] pod w did not run"
  j=$(job_of "$n" w)
  out=$("$K" --cache-dir "$CL/kc-$v" delete namespace "$n" 2>&1); rc=$?
  # right after it returns: gone, its pod's job ended (it waited for both)
  is "$rc: $out $(curl -s "${ADM[@]}" -o /dev/null -w '%{http_code}' "$URL/api/v1/namespaces/$n") $(job_done "$j" && echo ended)" \
    "0: namespace \"$n\" deleted 404 ended" "[$v] kubectl delete ns returns once the namespace and its job are gone"
done
