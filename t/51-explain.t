#!/bin/bash
# covers: src/api/
# slow
# 51-explain.t — the OpenAPI v3 documents carry Kubernetes' schemas: kubectl
# explain (1.30, 1.32, 1.33) prints upstream's descriptions for every served
# kind; client-side apply, edit, patch and server-side apply still merge
# lists by key (kubectl computes those patches from its built-in types); the
# documents' hash, ETag and caching headers; every $ref resolves; the
# committed src/api/openapi_schemas.c is what `make openapi` generates.
source "$(dirname "$0")/50-api-lib.sh"
plan 75

api_up -v || bail "slurmlinkd up" # -v: the request log shows what kubectl fetched
SDK=/usr/lib/google-cloud-sdk/bin
ROOT=$(cd "$(dirname "$0")/.." && pwd)

# flat TEXT: kubectl's wrapped output as one line (runs of blanks are one)
flat() { printf '%s' "$1" | tr -s ' \t\n' '   '; }
# contains TEXT PART DESC: flat TEXT has flat PART in it
contains() {
  local t p
  t=$(flat "$1"); p=$(flat "$2")
  if [[ "$t" == *"$p"* ]]; then ok true "$3"; else ok false "$3"; diag "text: [${t:0:600}]"; diag "lacks: [$p]"; fi
}
# patch_body: the JSON of the strategic-merge PATCH in kubectl -v=8 output
# (1.30 logs `Request Body: JSON`, 1.32+ `"Request Body" body="quoted"`)
patch_body() {
  $PY -c '
import json, sys
for line in sys.stdin:
    if "setElementOrder" not in line:
        continue
    if "Request Body: " in line:
        print(line.split("Request Body: ", 1)[1].strip())
    elif "body=" in line:
        print(json.loads(line.split("body=", 1)[1].strip()))
    break'
}

req GET /openapi/v3
url=$(jqr '.paths["api/v1"].serverRelativeURL')
hash=${url#*hash=}
req GET "$url"
DOC=$BODY
is "$hash" "$(sha512sum "$AD/body" | cut -d' ' -f1 | tr a-f A-F)" "the index names api/v1 by the SHA-512 of its document"
diag "api/v1 document: $(wc -c <"$AD/body") bytes, $(gzip -c "$AD/body" | wc -c) gzipped, $(jq '.components.schemas | length' "$AD/body") schemas"
is "$CODE|$(grep -i '^Cache-Control:' <<<"$HDRS")|$(grep -i '^ETag:' <<<"$HDRS")" \
  "200|Cache-Control: public, immutable|ETag: \"$hash\"" "with its hash the document may be cached for good"
req GET /openapi/v3/api/v1
is "$CODE|$(grep -i '^Cache-Control:' <<<"$HDRS")" "200|Cache-Control: no-cache, private" "without a hash it may not"
req GET "/openapi/v3/api/v1?hash=0123"
is "$CODE|$(grep -i '^Location:' <<<"$HDRS")" "301|Location: $url" "a stale hash is sent to the current URL"
req GET "$url" -H "If-None-Match: \"$hash\""
is "$CODE|${#BODY}" "304|0" "If-None-Match with the ETag: 304"
is "$(printf '%s' "$DOC" | jq -r '[.. | objects | ."$ref"? // empty | ltrimstr("#/components/schemas/")] | unique | .[]' |
  while read -r n; do printf '%s' "$DOC" | jq -e --arg n "$n" '.components.schemas[$n]' >/dev/null || echo "$n"; done)" \
  "" "every \$ref of the document resolves"
req GET /api/v1
kinds=$(jqr '[.resources[] | select(.name | contains("/") | not) | .kind] | sort | join(" ")')
is "$(printf '%s' "$DOC" | jq -r --arg k "$kinds" '($k | split(" ")) as $ks | [.components.schemas[] |
  ."x-kubernetes-group-version-kind"[]? | select(.group == "" and .version == "v1" and (.kind | IN($ks[]))) | .kind] |
  unique | join(" ")')" "$kinds" "every served kind has its schema ($kinds)"

printf 'apiVersion: v1\nkind: ConfigMap\nmetadata: {name: once}\ndata: {a: b}\n' >"$AD/once.yaml"

# upstream's descriptions of the kinds (k8s.io/api core/v1 types.go), their start
declare -A FIRST=(
  [ConfigMap]="ConfigMap holds configuration data for pods to consume."
  [Event]="Event is a report of an event somewhere in the cluster. Events have a limited retention time"
  [Namespace]="Namespace provides a scope for Names. Use of multiple namespaces is optional."
  [Node]="Node is a worker node in Kubernetes. Each node will have a unique identifier in the cache (i.e. in etcd)."
  [Pod]="Pod is a collection of containers that can run on a host. This resource is created by clients and scheduled onto hosts."
  [ResourceQuota]="ResourceQuota sets aggregate quota restrictions enforced per namespace"
  [Secret]="Secret holds secret data of a certain type. The total bytes of the values in the Data field must be less than MaxSecretSize bytes."
  [ServiceAccount]="ServiceAccount binds together: * a name, understood by users, and perhaps by peripheral systems, for an identity * a principal that can be authenticated and authorized * a set of secrets"
)

pod() { # name image-of-b BAR
  cat <<EOF
apiVersion: v1
kind: Pod
metadata: {name: $1}
spec:
  containers:
  - name: a
    image: busybox:1
  - name: b
    image: $2
    env:
    - {name: FOO, value: "1"}
    - {name: BAR, value: "$3"}
EOF
}
images() { k $KN get pod "$1" -o json | jq -c '[.spec.containers[] | {name, image, env: [.env[]?.name]}]'; }

run_suite() {
  local v=$1 out rc
  local ns=ex-${v//./}
  k create namespace "$ns" >/dev/null
  local KN=--namespace=$ns

  out=$(k explain pod.spec.containers.resources 2>&1)
  contains "$out" "KIND: Pod VERSION: v1 FIELD: resources <ResourceRequirements>" "[$v] explain pod.spec.containers.resources names the type"
  # upstream's texts (k8s.io/api core/v1 types.go, ResourceRequirements)
  contains "$out" "ResourceRequirements describes the compute resource requirements. FIELDS: claims <[]ResourceClaim>
    Claims lists the names of resources, defined in spec.resourceClaims, that are used by this container." \
    "[$v] ... and prints upstream's description of the type"
  contains "$out" "limits <map[string]Quantity> Limits describes the maximum amount of compute resources allowed. More info:
    https://kubernetes.io/docs/concepts/configuration/manage-resources-containers/ requests <map[string]Quantity>
    Requests describes the minimum amount of compute resources required. If Requests is omitted for a container, it
    defaults to Limits if that is explicitly specified" "[$v] ... and of its fields"
  out=$(k explain pods --recursive 2>&1); rc=$?
  like "$rc|$out" $'^0\\|.*\n  spec\t<PodSpec>\n.*\n    containers\t<\\[\\]Container> -required-\n.*\n      resources\t<ResourceRequirements>\n        claims\t<\\[\\]ResourceClaim>\n          name\t<string> -required-\n' \
    "[$v] explain pods --recursive"
  local kind
  for kind in ConfigMap Event Namespace Node Pod ResourceQuota Secret ServiceAccount; do
    out=$(k explain "${kind,,}s" 2>&1)
    contains "$out" "KIND: $kind VERSION: v1 DESCRIPTION: ${FIRST[$kind]}" "[$v] explain ${kind,,}s: ${FIRST[$kind]}"
  done

  # client-side apply: a strategic-merge patch by container name
  pod sm busybox:1 2 >"$AD/sm.yaml"
  k $KN apply -f "$AD/sm.yaml" >/dev/null
  pod sm busybox:2 2 >"$AD/sm2.yaml"
  out=$(k $KN apply -f "$AD/sm2.yaml" -v=8 2>&1)
  is "$(patch_body <<<"$out" | jq -c 'del(.metadata)')" \
    '{"spec":{"$setElementOrder/containers":[{"name":"a"},{"name":"b"}],"containers":[{"image":"busybox:2","name":"b"}]}}' \
    "[$v] apply sends a strategic-merge patch keyed by container name"
  like "$out" $'(^|\n)pod/sm configured(\n|$)' "[$v] apply: configured"
  is "$(images sm)" '[{"name":"a","image":"busybox:1","env":[]},{"name":"b","image":"busybox:2","env":["FOO","BAR"]}]' \
    "[$v] apply changed only container b's image"
  pod sm busybox:2 3 >"$AD/sm3.yaml"
  out=$(k $KN apply -f "$AD/sm3.yaml" -v=8 2>&1)
  is "$(patch_body <<<"$out" | jq -c '.spec.containers')" \
    '[{"$setElementOrder/env":[{"name":"FOO"},{"name":"BAR"}],"env":[{"name":"BAR","value":"3"}],"name":"b"}]' \
    "[$v] ... and env by name (the server refuses the change: env is immutable in a pod)"
  out=$(KUBE_EDITOR="sed -i s/busybox:2/busybox:4/" k $KN edit pod sm 2>&1)
  is "$out|$(images sm)" 'pod/sm edited|[{"name":"a","image":"busybox:1","env":[]},{"name":"b","image":"busybox:4","env":["FOO","BAR"]}]' \
    "[$v] kubectl edit"
  out=$(k $KN patch pod sm -p '{"spec":{"containers":[{"name":"a","image":"busybox:5"}]}}' 2>&1)
  is "$out|$(images sm)" 'pod/sm patched|[{"name":"a","image":"busybox:5","env":[]},{"name":"b","image":"busybox:4","env":["FOO","BAR"]}]' \
    "[$v] kubectl patch (strategic): container a alone"
  pod ss busybox:1 2 >"$AD/ss.yaml"
  k $KN apply --server-side -f "$AD/ss.yaml" >/dev/null
  pod ss busybox:6 2 >"$AD/ss.yaml"
  out=$(k $KN apply --server-side -f "$AD/ss.yaml" 2>&1)
  is "$out|$(images ss)" 'pod/ss serverside-applied|[{"name":"a","image":"busybox:1","env":[]},{"name":"b","image":"busybox:6","env":["FOO","BAR"]}]' \
    "[$v] apply --server-side"

  sed '0,/image: busybox:1/s//imagee: busybox:1/; s/name: sm}/name: bad}/' "$AD/sm.yaml" >"$AD/bad.yaml"
  local val
  for val in strict true; do
    out=$(k $KN create --validate=$val -f "$AD/bad.yaml" 2>&1)
    is "$out" "Error from server (BadRequest): error when creating \"$AD/bad.yaml\": Pod in version \"v1\" cannot be handled as a Pod: strict decoding error: unknown field \"spec.containers[0].imagee\"" \
      "[$v] create --validate=$val: the unknown field refused"
  done
  cat >"$AD/list.json" <<'EOF'
{"apiVersion":"v1","kind":"List","items":[
 {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"l1"},"data":{"a":"b"}},
 {"apiVersion":"v1","kind":"Secret","metadata":{"name":"l2"},"stringData":{"a":"b"}}]}
EOF
  is "$(k $KN apply -f "$AD/list.json" 2>&1)" $'configmap/l1 created\nsecret/l2 created' "[$v] apply a v1 List"
  k delete namespace "$ns" >/dev/null
}

# kubectl caches the document by its hash: three commands, one fetch
KUBECTL=$SDK/kubectl.1.32
k() { "$KUBECTL" --cache-dir "$AD/cache-once" "$@"; }
n0=$(grep -c 'GET /openapi/v3/api/v1 ' "$AD/daemon.log")
for i in 1 2 3; do k get configmaps >/dev/null 2>&1; k apply -f "$AD/once.yaml" >/dev/null 2>&1; done
is "$(( $(grep -c 'GET /openapi/v3/api/v1 ' "$AD/daemon.log") - n0 ))" 1 "kubectl fetched the api/v1 document once for three applies"
k() { "$KUBECTL" --cache-dir "$AD/cache-$(basename "$KUBECTL")" "$@"; }

for v in 1.30 1.32 1.33; do
  KUBECTL=$SDK/kubectl.$v
  run_suite "$v"
done

NPMC=${SLURMLINK_NPM_CACHE:-${HOME:-/root}/.cache/slurmlink/npm}
why=
[ -s "$NPMC/kubernetes-models-5.1.0.tgz" ] && [ -s "$NPMC/kubernetes-models-apimachinery-3.0.2.tgz" ] ||
  why=$(npm_unreachable)
if [ -n "$why" ]; then
  skip "make openapi-check: $why (the pinned tarballs are not cached in $NPMC)"
elif command -v node >/dev/null; then
  out=$(make -s -C "$ROOT" openapi-check 2>&1); rc=$?
  is "$rc|$out" "0|" "src/api/openapi_schemas.c is what make openapi generates"
else
  skip "make openapi-check needs npm and node"
fi
done_testing
