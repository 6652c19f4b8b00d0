#!/bin/bash
# covers: src/api/ src/cluster/trust.c
# 50-api-clientnode.t — focused tests for what @kubernetes/client-node
# revealed (t/52-client-node.t runs the client itself):
#  - it parses metadata.creationTimestamp into a Date and sends it back with
#    milliseconds ("...T12:00:00.000Z"): a read-modify-replace must work, as
#    kube-apiserver ignores creationTimestamp on update (BeforeUpdate keeps
#    the stored one) instead of answering 422 "field is immutable";
#  - Secret.stringData is write-only in kube: merged into data (base64) on
#    write, overwriting, and never stored or output.
source "$(dirname "$0")/50-api-lib.sh"
plan 9

api_up || bail "slurmlinkd up"
B=/api/v1/namespaces/default
jpost "$B/configmaps" '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c1"},"data":{"a":"1"}}'
ts=$(jqr .metadata.creationTimestamp)
ms=${ts%Z}.000Z
jput "$B/configmaps/c1" "$(printf '%s' "$BODY" | jq -c --arg t "$ms" '.metadata.creationTimestamp = $t | .data.a = "2"')"
is "$CODE $(jqr '.data.a + " " + .metadata.creationTimestamp')" "200 2 $ts" "PUT with creationTimestamp in milliseconds: 200, the stored timestamp kept"
jput "$B/configmaps/c1" "$(printf '%s' "$BODY" | jq -c '.metadata.creationTimestamp = "2001-01-01T00:00:00Z" | .data.a = "3"')"
is "$CODE $(jqr '.data.a + " " + .metadata.creationTimestamp')" "200 3 $ts" "PUT with another creationTimestamp: ignored, as kube-apiserver does"
jput "$B/configmaps/c1" "$(printf '%s' "$BODY" | jq -c '.metadata.uid = "00000000-0000-4000-8000-000000000000"')"
is "$CODE $(jqr .reason)" "422 Invalid" "a changed uid is still 422"
jpost "$B/pods" "$(pod_json p1)"
jput "$B/pods/p1" "$(printf '%s' "$BODY" | jq -c --arg t "$(printf '%s' "$BODY" | jq -r .metadata.creationTimestamp | sed 's/Z$/.000Z/')" '.metadata.creationTimestamp = $t | .metadata.labels.x = "y"')"
is "$CODE $(jqr .metadata.labels.x)" "200 y" "a pod's read-modify-replace with a millisecond creationTimestamp"

jpost "$B/secrets" '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s1"},"data":{"a":"eA==","b":"eQ=="},"stringData":{"b":"over","c":"new"}}'
is "$CODE $(jqr '[(.data | tojson), (.stringData | tostring)] | join(" ")')" '201 {"a":"eA==","b":"b3Zlcg==","c":"bmV3"} null' \
  "create: stringData merged into data (base64, overwriting), not returned"
req GET "$B/secrets/s1"
is "$(jqr '[(.data | tojson), (.stringData | tostring)] | join(" ")')" '{"a":"eA==","b":"b3Zlcg==","c":"bmV3"} null' "nor stored"
jpatch "$B/secrets/s1" application/merge-patch+json '{"stringData":{"a":"patched"}}'
is "$CODE $(jqr '.data.a + " " + (.stringData | tostring)')" "200 cGF0Y2hlZA== null" "a patch with stringData: merged the same way"
jput "$B/secrets/s1" '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s1"},"stringData":{"only":"this"}}'
is "$CODE $(jqr '.data | tojson')" '200 {"only":"dGhpcw=="}' "a PUT with stringData only: data is what it says"
jpost "$B/secrets" '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s2"},"stringData":{"bad key":"v"}}'
is "$CODE $(jqr .message)" "422 Secret \"s2\" is invalid: data[bad key]: Invalid value: \"bad key\": a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')" \
  "stringData keys are validated as data keys"
