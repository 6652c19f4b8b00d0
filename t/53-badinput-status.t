#!/bin/bash
# covers: src/api/ src/pod/ src/kube/
# 53-badinput-status.t — the whole Status (code, reason, message, details,
# metadata) of every refusal on the write paths: create, update (PUT),
# patch, delete, the body's decoding and a list's 410. Each answer is
# compared byte for byte (keys sorted) with what kube-apiserver sends, so
# that a change in how the error travels to the API edge (an sl_error_t
# whose kind, subject and causes the edge turns into the Status) cannot
# change what a client reads.
source "$(dirname "$0")/50-api-lib.sh"
plan 55

api_up --max-object-bytes 20000 --watch-log 5 || bail "slurmlinkd up"
N=st-$$
NS=/api/v1/namespaces/$N
P=$NS/pods
CM=$NS/configmaps
C='"spec":{"containers":[{"name":"c","image":"busybox"}]}'
pod() { printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s"%s},%s}' "$1" "${2:-}" "$C"; }
cm() { printf '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"%s"%s}%s}' "$1" "${2:-}" "${3:-}"; }
big=$(head -c 30000 /dev/zero | tr '\0' x)

# pinned "CODE JSON" DESC: the last answer is that code and that Status
# (both sides with keys sorted, compact); PIN_RECORD=1 also prints each
# answer on stderr, to write the expectation of a new case from the old code
pinned() {
  local want got
  want=$(printf '%s' "${1#* }" | jq -cS . 2>&1)
  got=$(printf '%s' "$BODY" | jq -cS . 2>&1)
  [ -n "${PIN_RECORD:-}" ] && echo "REC $CODE $got" >&2
  is "$CODE $got" "${1%% *} $want" "$2"
}

jpost /api/v1/namespaces "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"$N\"}}"
is "$CODE" 201 "namespace $N"

# --- create ---------------------------------------------------------------
jpost "$P?dryRun=Bad" "$(pod p1)"
pinned '422 {"apiVersion":"v1","code":422,"details":{"causes":[{"field":"dryRun","message":"Unsupported value: \"Bad\": supported values: \"All\"","reason":"FieldValueNotSupported"}],"group":"meta.k8s.io","kind":"CreateOptions"},"kind":"Status","message":"CreateOptions.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: \"Bad\": supported values: \"All\"","metadata":{},"reason":"Invalid","status":"Failure"}' \
  "create, dryRun=Bad: 422 on CreateOptions"
jpost "$P" "$(pod p1 ',"namespace":"other"')"
pinned '400 {"apiVersion":"v1","code":400,"kind":"Status","message":"the namespace of the provided object does not match the namespace sent on the request","metadata":{},"reason":"BadRequest","status":"Failure"}' \
  "create, namespace of the object not the URL's: 400"
jpost /api/v1/namespaces/nosuch-$N/pods "$(pod p1)"
pinned '404 {"apiVersion":"v1","code":404,"details":{"kind":"namespaces","name":"nosuch-'$N'"},"kind":"Status","message":"namespaces \"nosuch-'$N'\" not found","metadata":{},"reason":"NotFound","status":"Failure"}' \
  "create in a namespace that does not exist: 404 of the namespace"
jpost "$P" "$(pod p1 | jq -c '.spec.serviceAccountName="nosa"')"
pinned '403 {"apiVersion":"v1","code":403,"details":{"kind":"pods","name":"p1"},"kind":"Status","message":"pods \"p1\" is forbidden: error looking up service account '$N'/nosa: serviceaccount \"nosa\" not found","metadata":{},"reason":"Forbidden","status":"Failure"}' \
  "create, no such service account: 403"
jpost "$P" "$(pod P1)"
pinned '422 {"apiVersion":"v1","code":422,"details":{"causes":[{"field":"metadata.name","message":"Invalid value: \"P1\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '"'"'-'"'"' or '"'"'.'"'"', and must start and end with an alphanumeric character (e.g. '"'"'example.com'"'"', regex used for validation is '"'"'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'"'"')","reason":"FieldValueInvalid"}],"kind":"Pod","name":"P1"},"kind":"Status","message":"Pod \"P1\" is invalid: metadata.name: Invalid value: \"P1\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '"'"'-'"'"' or '"'"'.'"'"', and must start and end with an alphanumeric character (e.g. '"'"'example.com'"'"', regex used for validation is '"'"'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'"'"')","metadata":{},"reason":"Invalid","status":"Failure"}' \
  "create, a bad name: 422"
jpost "$CM" "$(cm big '' ",\"data\":{\"a\":\"$big\"}")"
like "$CODE $(printf '%s' "$BODY" | jq -cS .)" '^413 \{"apiVersion":"v1","code":413,"kind":"Status","message":"the object is too large to store: 30[0-9]{3} bytes, at most 20000","metadata":\{\},"reason":"RequestEntityTooLarge","status":"Failure"\}$' \
  "create, an object over --max-object-bytes: 413 with no prefix"
jpost "$CM" "$(cm c1)"
is "$CODE" 201 "configmap c1"
jpost "$CM" "$(cm c1)"
pinned '409 {"apiVersion":"v1","code":409,"details":{"kind":"configmaps","name":"c1"},"kind":"Status","message":"configmaps \"c1\" already exists","metadata":{},"reason":"AlreadyExists","status":"Failure"}' \
  "create of an existing name: 409 AlreadyExists"
jpost "$CM" "$(cm fin ',"finalizers":["example.com/keep"]')"
req DELETE "$CM/fin"
is "$CODE $(jqr '.metadata.deletionTimestamp != null')" "200 true" "a configmap with a finalizer: being deleted"
jpost "$CM" "$(cm fin)"
pinned '409 {"apiVersion":"v1","code":409,"details":{"kind":"configmaps","name":"fin"},"kind":"Status","message":"object is being deleted: configmaps \"fin\" already exists","metadata":{},"reason":"AlreadyExists","status":"Failure"}' \
  "create of a name being deleted: 409 that says so"
jpost "$NS/resourcequotas" '{"apiVersion":"v1","kind":"ResourceQuota","metadata":{"name":"q"},"spec":{"hard":{"pods":"0"}}}'
is "$CODE" 201 "a quota of 0 pods"
jpost "$P" "$(pod p2)"
pinned '403 {"apiVersion":"v1","code":403,"details":{"kind":"pods","name":"p2"},"kind":"Status","message":"pods \"p2\" is forbidden: exceeded quota: q, requested: pods=1, used: pods=0, limited: pods=0","metadata":{},"reason":"Forbidden","status":"Failure"}' \
  "create over a quota: 403"
req DELETE "$NS/resourcequotas/q"
is "$CODE" 200 "the quota goes"

# --- update (PUT) -----------------------------------------------------------
req GET "$CM/c1"
C1=$BODY
RV=$(jqr .metadata.resourceVersion) U1=$(jqr .metadata.uid)
jput "$CM/c1" "$(cm c2)"
pinned '400 {"apiVersion":"v1","code":400,"kind":"Status","message":"the name of the object (c2) does not match the name on the URL (c1)","metadata":{},"reason":"BadRequest","status":"Failure"}' \
  "PUT, another name: 400"
jput "$CM/c1" "$(cm c1 ',"namespace":"other"')"
pinned '400 {"apiVersion":"v1","code":400,"kind":"Status","message":"the namespace of the provided object does not match the namespace sent on the request","metadata":{},"reason":"BadRequest","status":"Failure"}' \
  "PUT, another namespace: 400"
jput "$CM/c1" "$(cm c1 ',"resourceVersion":"abc"')"
pinned '409 {"apiVersion":"v1","code":409,"details":{"kind":"configmaps","name":"c1"},"kind":"Status","message":"Operation cannot be fulfilled on configmaps \"c1\": the object has been modified; please apply your changes to the latest version and try again","metadata":{},"reason":"Conflict","status":"Failure"}' \
  "PUT, a resourceVersion that does not parse: 409"
jput "$CM/nosuch" "$(cm nosuch)"
pinned '404 {"apiVersion":"v1","code":404,"details":{"kind":"configmaps","name":"nosuch"},"kind":"Status","message":"configmaps \"nosuch\" not found","metadata":{},"reason":"NotFound","status":"Failure"}' \
  "PUT of nothing: 404"
jput "$CM/c1" "$(printf '%s' "$C1" | jq -c '.metadata.uid="x"')"
pinned '422 {"apiVersion":"v1","code":422,"details":{"causes":[{"field":"metadata.uid","message":"Invalid value: \"x\": field is immutable","reason":"FieldValueInvalid"}],"kind":"ConfigMap","name":"c1"},"kind":"Status","message":"ConfigMap \"c1\" is invalid: metadata.uid: Invalid value: \"x\": field is immutable","metadata":{},"reason":"Invalid","status":"Failure"}' \
  "PUT, a new uid: 422"
jput "$CM/c1?dryRun=Bad" "$C1"
pinned '422 {"apiVersion":"v1","code":422,"details":{"causes":[{"field":"dryRun","message":"Unsupported value: \"Bad\": supported values: \"All\"","reason":"FieldValueNotSupported"}],"group":"meta.k8s.io","kind":"UpdateOptions"},"kind":"Status","message":"UpdateOptions.meta.k8s.io \"\" is invalid: dryRun: Unsupported value: \"Bad\": supported values: \"All\"","metadata":{},"reason":"Invalid","status":"Failure"}' \
  "PUT, dryRun=Bad: 422 on UpdateOptions"
jput "$CM/c1" "$(printf '%s' "$C1" | jq -c --arg b "$big" '.data={"a":$b}')"
like "$CODE $(printf '%s' "$BODY" | jq -cS .)" '^413 \{"apiVersion":"v1","code":413,"kind":"Status","message":"the object is too large to store: 30[0-9]{3} bytes, at most 20000","metadata":\{\},"reason":"RequestEntityTooLarge","status":"Failure"\}$' \
  "PUT, too large: 413"
jpatch "$CM/c1" application/merge-patch+json '{"data":{"v":"1"}}'
jput "$CM/c1" "$C1"
pinned '409 {"apiVersion":"v1","code":409,"details":{"kind":"configmaps","name":"c1"},"kind":"Status","message":"Operation cannot be fulfilled on configmaps \"c1\": the object has been modified; please apply your changes to the latest version and try again","metadata":{},"reason":"Conflict","status":"Failure"}' \
  "PUT of an old resourceVersion ($RV): 409"
jpost "$P" "$(pod p3)"
is "$CODE" 201 "pod p3"
req GET "$P/p3"
jput "$P/p3/status" "$(printf '%s' "$BODY" | jq -c '.status.phase="Bogus"')"
pinned '422 {"apiVersion":"v1","code":422,"details":{"causes":[{"field":"status.phase","message":"Unsupported value: \"Bogus\": supported values: \"Pending\", \"Running\", \"Succeeded\", \"Failed\", \"Unknown\"","reason":"FieldValueNotSupported"}],"kind":"Pod","name":"p3"},"kind":"Status","message":"Pod \"p3\" is invalid: status.phase: Unsupported value: \"Bogus\": supported values: \"Pending\", \"Running\", \"Succeeded\", \"Failed\", \"Unknown\"","metadata":{},"reason":"Invalid","status":"Failure"}' "PUT of a pod's status, a bad phase: 422"

# --- patch ------------------------------------------------------------------
jpatch "$CM/c1" text/plain '{}'
pinned '415 {"apiVersion":"v1","code":415,"kind":"Status","message":"the body of the request was in an unknown format - accepted media types include: application/json-patch+json, application/merge-patch+json, application/strategic-merge-patch+json, application/apply-patch+yaml","metadata":{},"reason":"UnsupportedMediaType","status":"Failure"}' "PATCH, an unknown patch type: 415"
jpatch "$CM/c1?fieldValidation=Bad" application/merge-patch+json '{}'
pinned '422 {"apiVersion":"v1","code":422,"details":{"causes":[{"field":"fieldValidation","message":"Unsupported value: \"Bad\": supported values: \"Ignore\", \"Strict\", \"Warn\"","reason":"FieldValueNotSupported"}],"group":"meta.k8s.io","kind":"PatchOptions"},"kind":"Status","message":"PatchOptions.meta.k8s.io \"\" is invalid: fieldValidation: Unsupported value: \"Bad\": supported values: \"Ignore\", \"Strict\", \"Warn\"","metadata":{},"reason":"Invalid","status":"Failure"}' "PATCH, fieldValidation=Bad: 422 on PatchOptions"
jpatch "$CM/c1" application/apply-patch+yaml "$(cm c1)"
pinned '422 {"apiVersion":"v1","code":422,"details":{"causes":[{"field":"fieldManager","message":"Required value: is required for apply patch","reason":"FieldValueRequired"}],"group":"meta.k8s.io","kind":"PatchOptions"},"kind":"Status","message":"PatchOptions.meta.k8s.io \"\" is invalid: fieldManager: Required value: is required for apply patch","metadata":{},"reason":"Invalid","status":"Failure"}' "apply without fieldManager: 422"
jpatch "$CM/c1" application/merge-patch+json '{"data":'
pinned '400 {"apiVersion":"v1","code":400,"kind":"Status","message":"unexpected end of JSON input","metadata":{},"reason":"BadRequest","status":"Failure"}' "PATCH, a body that does not parse: 400"
jpatch "$CM/c1" application/merge-patch+json '[1]'
pinned '400 {"apiVersion":"v1","code":400,"kind":"Status","message":"json: cannot unmarshal array into Go value of type map[string]interface {}","metadata":{},"reason":"BadRequest","status":"Failure"}' "PATCH, a merge patch that is a list: 400"
jpatch "$CM/nosuch" application/merge-patch+json '{}'
pinned '404 {"apiVersion":"v1","code":404,"details":{"kind":"configmaps","name":"nosuch"},"kind":"Status","message":"configmaps \"nosuch\" not found","metadata":{},"reason":"NotFound","status":"Failure"}' "PATCH of nothing: 404"
jpatch "$CM/c1" application/merge-patch+json "{\"data\":{\"a\":\"$big\"}}"
like "$CODE $(printf '%s' "$BODY" | jq -cS .)" '^413 \{"apiVersion":"v1","code":413,"kind":"Status","message":"the object is too large to store: 30[0-9]{3} bytes, at most 20000","metadata":\{\},"reason":"RequestEntityTooLarge","status":"Failure"\}$' \
  "PATCH, too large: 413"
jpatch "$CM/c1?fieldValidation=Strict" application/merge-patch+json '{"nosuch":1}'
pinned '400 {"apiVersion":"v1","code":400,"kind":"Status","message":"strict decoding error: unknown field \"nosuch\"","metadata":{},"reason":"BadRequest","status":"Failure"}' "PATCH, strict, an unknown field: 400 without the kind's prefix"
jpatch "$CM/c1" application/merge-patch+json '{"metadata":{"resourceVersion":"'"$RV"'"}}'
pinned '409 {"apiVersion":"v1","code":409,"details":{"kind":"configmaps","name":"c1"},"kind":"Status","message":"Operation cannot be fulfilled on configmaps \"c1\": the object has been modified; please apply your changes to the latest version and try again","metadata":{},"reason":"Conflict","status":"Failure"}' "PATCH with an old resourceVersion: 409"
jpatch "/api/v1/namespaces/nosuch-$N/configmaps/a?fieldManager=m" application/apply-patch+yaml "$(cm a)"
pinned '404 {"apiVersion":"v1","code":404,"details":{"kind":"namespaces","name":"nosuch-'"$N"'"},"kind":"Status","message":"namespaces \"nosuch-'"$N"'\" not found","metadata":{},"reason":"NotFound","status":"Failure"}' "apply that creates, in no namespace: 404 of the namespace"
jpatch "$CM/A1?fieldManager=m" application/apply-patch+yaml "$(cm A1)"
pinned '422 {"apiVersion":"v1","code":422,"details":{"causes":[{"field":"metadata.name","message":"Invalid value: \"A1\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '"'"'-'"'"' or '"'"'.'"'"', and must start and end with an alphanumeric character (e.g. '"'"'example.com'"'"', regex used for validation is '"'"'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'"'"')","reason":"FieldValueInvalid"}],"kind":"ConfigMap","name":"A1"},"kind":"Status","message":"ConfigMap \"A1\" is invalid: metadata.name: Invalid value: \"A1\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '"'"'-'"'"' or '"'"'.'"'"', and must start and end with an alphanumeric character (e.g. '"'"'example.com'"'"', regex used for validation is '"'"'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'"'"')","metadata":{},"reason":"Invalid","status":"Failure"}' "apply that creates, a bad name: 422"

# --- decoding the body ------------------------------------------------------
req POST "$CM" -H 'Content-Type: text/plain' --data-binary '{}'
pinned '415 {"apiVersion":"v1","code":415,"kind":"Status","message":"the body of the request was in an unknown format - accepted media types include: application/json, application/yaml","metadata":{},"reason":"UnsupportedMediaType","status":"Failure"}' "POST, an unknown content type: 415"
jpost "$CM?fieldValidation=Bad" "$(cm d1)"
pinned '422 {"apiVersion":"v1","code":422,"details":{"causes":[{"field":"fieldValidation","message":"Unsupported value: \"Bad\": supported values: \"Ignore\", \"Strict\", \"Warn\"","reason":"FieldValueNotSupported"}],"group":"meta.k8s.io","kind":"CreateOptions"},"kind":"Status","message":"CreateOptions.meta.k8s.io \"\" is invalid: fieldValidation: Unsupported value: \"Bad\": supported values: \"Ignore\", \"Strict\", \"Warn\"","metadata":{},"reason":"Invalid","status":"Failure"}' "POST, fieldValidation=Bad: 422 on CreateOptions"
jpost "$CM" '{"a":'
pinned '400 {"apiVersion":"v1","code":400,"kind":"Status","message":"the object provided is unrecognized (must be of type ConfigMap): couldn'"'"'t get version/kind; json parse error: unexpected end of JSON input ({\"a\":)","metadata":{},"reason":"BadRequest","status":"Failure"}' "POST, a body that does not parse: 400"
jpost "$CM" '[1]'
pinned '400 {"apiVersion":"v1","code":400,"kind":"Status","message":"the object provided is unrecognized (must be of type ConfigMap): couldn'"'"'t get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string \"json:\\\"apiVersion,omitempty\\\"\"; Kind string \"json:\\\"kind,omitempty\\\"\" } ([1])","metadata":{},"reason":"BadRequest","status":"Failure"}' "POST, a list: 400"
jpost "$CM" '{"apiVersion":"v1","kind":1}'
pinned '400 {"apiVersion":"v1","code":400,"kind":"Status","message":"the object provided is unrecognized (must be of type ConfigMap): couldn'"'"'t get version/kind; json parse error: json: cannot unmarshal number into Go struct field .kind of type string ({\"apiVersion\":\"v1\",\"kind\":1})","metadata":{},"reason":"BadRequest","status":"Failure"}' "POST, a kind that is no string: 400"
jpost "$CM" '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"d1"}}'
pinned '400 {"apiVersion":"v1","code":400,"kind":"Status","message":"Secret in version \"v1\" cannot be handled as a ConfigMap: converting (v1.Secret) to (core.ConfigMap): unknown conversion","metadata":{},"reason":"BadRequest","status":"Failure"}' "POST, another registered kind: 400"
jpost "$CM" '{"apiVersion":"v9","kind":"Thing","metadata":{"name":"d1"}}'
pinned '400 {"apiVersion":"v1","code":400,"kind":"Status","message":"Thing in version \"v9\" cannot be handled as a ConfigMap: no kind \"Thing\" is registered for version \"v9\" in scheme \"pkg/api/legacyscheme/scheme.go:30\"","metadata":{},"reason":"BadRequest","status":"Failure"}' "POST, a kind nobody registered: 400"
jpost "$CM?fieldValidation=Strict" '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"d1"},"nosuch":1}'
pinned '400 {"apiVersion":"v1","code":400,"kind":"Status","message":"ConfigMap in version \"v1\" cannot be handled as a ConfigMap: strict decoding error: unknown field \"nosuch\"","metadata":{},"reason":"BadRequest","status":"Failure"}' "POST, strict, an unknown field: 400"
req POST "$CM" -H 'Content-Type: application/vnd.kubernetes.protobuf' --data-binary 'k8s'
pinned '400 {"apiVersion":"v1","code":400,"kind":"Status","message":"provided data does not appear to be a protobuf message, expected prefix [107 56 115 0]","metadata":{},"reason":"BadRequest","status":"Failure"}' "POST, protobuf that does not decode: 400"

# --- delete -----------------------------------------------------------------
req DELETE "$CM/c1" -H 'Content-Type: application/json' --data-binary '{"preconditions":{"uid":"x"}}'
pinned '409 {"apiVersion":"v1","code":409,"details":{"kind":"configmaps","name":"c1"},"kind":"Status","message":"Operation cannot be fulfilled on configmaps \"c1\": Precondition failed: UID in precondition: x, UID in object meta: '"$U1"'","metadata":{},"reason":"Conflict","status":"Failure"}' "DELETE, a uid precondition that fails: 409"
req GET "$CM/c1"
RV2=$(jqr .metadata.resourceVersion)
req DELETE "$CM/c1" -H 'Content-Type: application/json' --data-binary '{"preconditions":{"resourceVersion":"1"}}'
pinned '409 {"apiVersion":"v1","code":409,"details":{"kind":"configmaps","name":"c1"},"kind":"Status","message":"Operation cannot be fulfilled on configmaps \"c1\": Precondition failed: ResourceVersion in precondition: 1, ResourceVersion in object meta: '"$RV2"'","metadata":{},"reason":"Conflict","status":"Failure"}' "DELETE, a resourceVersion precondition that fails: 409"
req DELETE /api/v1/namespaces/kube-public
pinned '403 {"apiVersion":"v1","code":403,"details":{"kind":"namespaces","name":"kube-public"},"kind":"Status","message":"namespaces \"kube-public\" is forbidden: this namespace may not be deleted","metadata":{},"reason":"Forbidden","status":"Failure"}' "DELETE of kube-public: 403"
req DELETE "$CM/nosuch"
pinned '404 {"apiVersion":"v1","code":404,"details":{"kind":"configmaps","name":"nosuch"},"kind":"Status","message":"configmaps \"nosuch\" not found","metadata":{},"reason":"NotFound","status":"Failure"}' "DELETE of nothing: 404"

# --- a namespace being terminated ------------------------------------------
N2=$N-t
jpost /api/v1/namespaces "{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"$N2\"}}"
jpost "/api/v1/namespaces/$N2/configmaps" "$(cm keep ',"finalizers":["example.com/keep"]')"
req DELETE "/api/v1/namespaces/$N2"
is "$CODE $(jqr .status.phase)" "200 Terminating" "namespace $N2 (content with a finalizer): Terminating"
req DELETE "/api/v1/namespaces/$N2"
pinned '409 {"apiVersion":"v1","code":409,"details":{"kind":"namespaces","name":"'"$N"'-t"},"kind":"Status","message":"Operation cannot be fulfilled on namespaces \"'"$N"'-t\": The system is ensuring all content is removed from this namespace.  Upon completion, this namespace will automatically be purged by the system.","metadata":{},"reason":"Conflict","status":"Failure"}' "DELETE of it again: 409"
jpost "/api/v1/namespaces/$N2/configmaps" "$(cm new)"
pinned '403 {"apiVersion":"v1","code":403,"details":{"causes":[{"field":"metadata.namespace","message":"namespace '"$N"'-t is being terminated","reason":"NamespaceTerminating"}],"kind":"configmaps","name":"new"},"kind":"Status","message":"configmaps \"new\" is forbidden: unable to create new content in namespace '"$N"'-t because it is being terminated","metadata":{},"reason":"Forbidden","status":"Failure"}' "create there: 403 with the NamespaceTerminating cause"
jpost "/api/v1/namespaces/$N2/configmaps" '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"generateName":"g-"}}'
pinned '403 {"apiVersion":"v1","code":403,"details":{"causes":[{"field":"metadata.namespace","message":"namespace '"$N"'-t is being terminated","reason":"NamespaceTerminating"}],"kind":"configmaps"},"kind":"Status","message":"configmaps is forbidden: unable to create new content in namespace '"$N"'-t because it is being terminated","metadata":{},"reason":"Forbidden","status":"Failure"}' "create there with generateName: the 403 names no object"

# --- a list of a resourceVersion from the future: 504 after waiting for it ---
req GET "$CM?resourceVersion=99999999"
pinned '504 {"apiVersion":"v1","code":504,"details":{"causes":[{"message":"Too large resource version","reason":"ResourceVersionTooLarge"}],"retryAfterSeconds":1},"kind":"Status","message":"Timeout: Too large resource version: 99999999, current: '"$(curl -s "$API$CM" | jq -r .metadata.resourceVersion)"'","metadata":{},"reason":"Timeout","status":"Failure"}' \
  "a list from the future: 504 with a retry and kube's cause"

# --- a list's continue token older than the change log: 410 -------------------
mk() { jpost "$CM" "$(cm "$1")"; }
for i in l0 l1 l2 l3; do mk $i; done
req GET "$CM?limit=2"
T=$(jqr .metadata.continue)
for i in $(seq 1 70); do jpatch "$CM/l3" application/merge-patch+json '{"data":{"v":"'"$i"'"}}'; done
req GET "$CM?limit=2&continue=$T"
IC=$(jqr '.metadata.continue // ""')
BODY=$(printf '%s' "$BODY" | jq -c '.metadata.continue |= (if . then "TOKEN" else . end)')
pinned '410 {"apiVersion":"v1","code":410,"kind":"Status","message":"The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list.","metadata":{"continue":"TOKEN"},"reason":"Expired","status":"Failure"}' "a continue token past the change log: 410 with a token for the rest"
req GET "$CM?limit=2&continue=$IC"
is "$CODE $(jqr '[.items[].metadata.name] | join(" ")')" "200 l0 l1" "that token continues the list"
