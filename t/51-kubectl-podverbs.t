#!/bin/bash
# covers: src/kube/apply.c src/api/patch.c src/api/decode.c src/api/pod_kind.c src/api/eviction.c src/api/http/router.c
# 51-kubectl-podverbs.t — server-side apply between field managers, and warnings
# on updates, through an unmodified kubectl (1.32, 1.30, 1.33) against
# slurmlinkd (no Slurm). A manager that applies another value to a field
# another apply manager owns gets kube's 409 Conflict naming the manager
# and the field; the same value shares the field; --force-conflicts takes
# it. kubectl debug is refused naming why (no ephemeral containers).
# kubectl set image of a pod whose Slurm job exists is 422 (its
# containers were set up from the images it had). kubectl label/annotate/patch of a pod whose stored spec has a field
# slurmlinkd ignores (spec.nodeName) print no warning about it: an update
# warns only about what it brings.
source "$(dirname "$0")/50-api-lib.sh"
plan 49

api_up || bail "slurmlinkd up"
SDK=/usr/lib/google-cloud-sdk/bin

cm_yaml() { # name value
  printf 'apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: %s\ndata:\n  x: "%s"\n' "$1" "$2"
}
owners() { # configmap field: the managers owning data.<field>
  k get configmap "$1" -o json --show-managed-fields | jq -r --arg f "f:$2" \
    '[.metadata.managedFields[] | select(.fieldsV1["f:data"][$f] != null) | .manager] | sort | join(",")'
}

ssa_suite() { # tag
  local v=$1 out rc c=cm-$1
  cm_yaml "$c" 1 >"$AD/$c-1.yaml"; cm_yaml "$c" 2 >"$AD/$c-2.yaml"
  out=$(k apply --server-side --field-manager=alice -f "$AD/$c-1.yaml" 2>&1)
  is "$out" "configmap/$c serverside-applied" "[$v] alice applies x=1"
  out=$(k apply --server-side --field-manager=bob -f "$AD/$c-2.yaml" 2>&1); rc=$?
  ok test "$rc" -ne 0 "[$v] bob applying x=2: kubectl fails (rc $rc)"
  like "$out" "Apply failed with 1 conflict: conflict with \"alice\": \\.data\\.x" \
    "[$v] ... with kube's conflict naming alice and .data.x"
  like "$out" "force-conflicts" "[$v] ... and kubectl's advice about --force-conflicts"
  is "$(k get configmap "$c" -o jsonpath='{.data.x}')" 1 "[$v] x stays 1"
  out=$(k apply --server-side --field-manager=bob -f "$AD/$c-1.yaml" 2>&1)
  is "$out" "configmap/$c serverside-applied" "[$v] bob applying the same value: no conflict"
  is "$(owners "$c" x)" "alice,bob" "[$v] ... and both own data.x"
  out=$(k apply --server-side --field-manager=bob --force-conflicts -f "$AD/$c-2.yaml" 2>&1)
  is "$out" "configmap/$c serverside-applied" "[$v] bob with --force-conflicts"
  is "$(k get configmap "$c" -o jsonpath='{.data.x}')" 2 "[$v] x is 2"
  is "$(owners "$c" x)" "bob" "[$v] bob alone owns data.x"
}

for v in default 1.30 1.33; do
  if [ $v = default ]; then KUBECTL=kubectl; else KUBECTL=$SDK/kubectl.$v; fi
  ssa_suite "${v//./}"
done
KUBECTL=kubectl

# the 409 as a Status, over HTTP
jpost /api/v1/namespaces/default/configmaps '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"h"}}' >/dev/null
jpatch '/api/v1/namespaces/default/configmaps/h?fieldManager=alice' application/apply-patch+yaml \
  '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"h","labels":{"a":"1"}}}'
is "$CODE" 200 "alice applies a label"
jpatch '/api/v1/namespaces/default/configmaps/h?fieldManager=bob' application/apply-patch+yaml \
  '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"h","labels":{"a":"2"}}}'
status_is 409 Conflict 'Apply failed with 1 conflict: conflict with "alice": .metadata.labels.a' \
  "bob: 409 Conflict Status"
is "$(jqr '.details.causes[0] | [.reason, .message, .field] | join("|")')" \
  'FieldManagerConflict|conflict with "alice"|.metadata.labels.a' "... its cause names the manager and the field"

# warnings on update
jpost /api/v1/namespaces/default/pods "$(pod_json w '' | jq -c '.spec.nodeName = "node1"')" >/dev/null
is "$CODE" 201 "a pod with spec.nodeName"
like "$HDRS" 'Warning: 299 - "spec.nodeName is ignored' "... its create warns that spec.nodeName is ignored"
for verb in "label pod w x=1" "annotate pod w y=1" "patch pod w --type=merge -p {\"metadata\":{\"labels\":{\"z\":\"1\"}}}"; do
  # shellcheck disable=SC2086 # the verb's words
  out=$(k $verb 2>&1 >/dev/null); rc=$?
  is "$rc|$out" "0|" "kubectl ${verb%% *}: no warning about the stored spec.nodeName"
done
out=$(k get pod w -o json | jq '.metadata.labels.q = "1"' | k replace -f - 2>&1 >/dev/null)
is "$out" "" "kubectl replace: no warning either"
out=$(k patch pod w --type=merge -p '{"spec":{"activeDeadlineSeconds":30,"hostNetwork":true}}' 2>&1 >/dev/null)
like "$out" "spec.hostNetwork is ignored" "an update that brings an ignored field still warns about it"
unlike "$out" "nodeName" "... and only about that field"

# kubectl set image: kube restarts the container with the new image; here a
# pod whose Slurm job exists keeps its images (422 naming the field)
out=$(k set image pod/w main=busybox:2 2>&1); rc=$?
like "$rc|$out" '^1\|error: failed to patch image update to pod template: Pod "w" is invalid: spec.containers\[0\].image: Forbidden: the image cannot change once the pod.s Slurm job exists' \
  "set image of a bound pod: 422 naming spec.containers[0].image"
is "$(k get pod w -o jsonpath='{.spec.containers[0].image}')" busybox "... and the stored image is unchanged"
jpost /api/v1/namespaces/default/pods "$(pod_json r)" >/dev/null
set_status default r '{"phase":"Running"}'
out=$(k set image pod/r main=busybox:2 2>&1); rc=$?
like "$rc|$out" '^1\|.*spec.containers\[0\].image: Forbidden' "set image of a Running pod: 422"
jpost /api/v1/namespaces/default/pods "$(pod_json n)" >/dev/null
is "$(k set image pod/n main=busybox:2 2>&1)" "pod/n image updated" "set image of a pod with no job yet: updated"

# kubectl debug: ephemeral containers are refused naming why
out=$(k debug n -it --image=busybox --profile=general 2>&1 </dev/null); rc=$?
like "$rc|$out" '^1\|.*Pod "n" is invalid: spec.ephemeralContainers: Forbidden: ephemeral containers are not run' \
  "kubectl debug POD: 422 naming spec.ephemeralContainers and why"
is "$(k get pod n -o jsonpath='{.spec.ephemeralContainers}')" "" "... and nothing is stored"
jpatch /api/v1/namespaces/default/pods/n/ephemeralcontainers application/strategic-merge-patch+json '{"spec":{"ephemeralContainers":[{"name":"d","image":"busybox"}]}}'
is "$CODE $(jqr .reason) $(jqr '.details.causes[0].field')" "422 Invalid spec.ephemeralContainers" "PATCH of pods/ephemeralcontainers: 422"
req GET /api/v1/namespaces/default/pods/n/ephemeralcontainers
is "$CODE $(jqr .metadata.name)" "200 n" "GET of pods/ephemeralcontainers: the pod, as kube answers"
done_testing
