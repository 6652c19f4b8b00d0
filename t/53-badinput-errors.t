#!/bin/bash
# covers: src/api/ src/pod/ src/kube/
# 53-badinput-errors.t — the Status built at the API edge from an error
# (src/kube/status.c, sl_kube_status_error): each kind of error gets
# kube-apiserver's code, reason, message and details, whichever module
# found it (pod validation, a kind's validator, JSON patch, decode checks,
# label selectors).
source "$(dirname "$0")/50-api-lib.sh"
plan 12

api_up || bail "slurmlinkd up"
P=/api/v1/namespaces/default/pods
C='"spec":{"containers":[{"name":"c","image":"busybox"}]}'

# pod validation: field errors; details.name is omitempty in kube's StatusDetails
jpost $P "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"labels\":{\"a\":\"b\"}},$C}"
status_is 422 Invalid 'Pod "" is invalid: metadata.name: Required value: name or generateName is required' "no name: 422"
is "$(jqr '.details | [has("name"), .kind, (.causes | length), .causes[0].reason, .causes[0].field, .causes[0].message] | map(tostring) | join("|")')" \
  "false|Pod|1|FieldValueRequired|metadata.name|Required value: name or generateName is required" \
  "no name: details without a name, one cause"

# a kind's validator (ResourceQuota): the Status is built in objects.c
jpost /api/v1/namespaces/default/resourcequotas '{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"q1"},"spec":{"hard":{"pods":"-1"},"scopes":["BestEffort"]}}'
status_is 422 Invalid 'ResourceQuota "q1" is invalid: [spec.hard[pods]: Invalid value: "-1": must be greater than or equal to 0, spec.scopes: Forbidden: not supported: quotas apply to every pod of the namespace]' \
  "quota validation: 422 with both field errors"
is "$(jqr '[.details.name, .details.kind, (.details.causes | map(.reason + ":" + .field) | join(","))] | join("|")')" \
  "q1|ResourceQuota|FieldValueInvalid:spec.hard[pods],FieldValueForbidden:spec.scopes" \
  "quota validation: details.causes in order"

jpost $P "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"e1\"},$C}"
is "$CODE" 201 "a pod to patch"
# JSON patch: Invalid without field errors, BadRequest, and the kind Forbidden update
jpatch $P/e1 application/json-patch+json '[{"op":"remove","path":"/metadata/nothere"}]'
status_is 422 Invalid 'remove operation does not apply: doc is missing path: "/metadata/nothere"' "JSON patch that does not apply"
is "$(jqr '.details // "none"')" "none" "... a 422 with no details"
jpatch $P/e1 application/json-patch+json '{"op":"add"}'
status_is 400 BadRequest 'json: cannot unmarshal object into Go value of type jsonpatch.Patch' "JSON patch that is not a list"
jpatch $P/e1 application/json-patch+json '[{"op":"replace","path":"/metadata/uid","value":"x"}]'
status_is 422 Invalid 'Pod "e1" is invalid: metadata.uid: Invalid value: "x": field is immutable' "uid is immutable"

# a decode check: 400 with the kind's prefix
jpost /api/v1/namespaces/default/resourcequotas '{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"q2"},"spec":{"hard":{"pods":"x"}}}'
like "$CODE|$(jqr .reason)|$(jqr .message)" '^400\|BadRequest\|ResourceQuota in version "v1" cannot be handled as a ResourceQuota: quantities must match the regular expression' \
  "a malformed quantity: 400 from the decode check"

# a label selector's requirement errors: field errors in one aggregate
# (the values are a sorted set, as kube's: "-y" sorts before "x")
req GET "$P?labelSelector=a%20in%20(x,-y)"
status_is 400 BadRequest 'unable to parse requirement: values[0][a]: Invalid value: "-y": a valid label must be an empty string or consist of alphanumeric characters, '\''-'\'', '\''_'\'' or '\''.'\'', and must start and end with an alphanumeric character (e.g. '\''MyValue'\'',  or '\''my_value'\'',  or '\''12345'\'', regex used for validation is '\''(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?'\'')' \
  "bad label value in a selector"
# two errors make a message of 1000 bytes: it comes back whole (it was cut
# at 511 bytes, the size of an error's text then)
req GET "$P?labelSelector=a%20in%20(-x,-y)"
like "$(jqr .message)" '^unable to parse requirement: \[values\[0\]\[a\]: Invalid value: "-x": a valid label must .*, values\[1\]\[a\]: Invalid value: "-y": a valid label must .*\]$' \
  "two bad values: two errors in [...]"
