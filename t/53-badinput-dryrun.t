#!/bin/bash
# covers: src/api/ src/pod/ src/kube/
# 53-badinput-dryrun.t — a dryRun (or fieldValidation) value kube does not
# know is refused with kube-apiserver's 422 on the request's options (ValidateDryRun in
# k8s.io/apiserver: CreateOptions, UpdateOptions or PatchOptions), and
# nothing is written; the update paths once answered it as CreateOptions and
# went on as a dry run.
source "$(dirname "$0")/50-api-lib.sh"
plan 10

api_up || bail "slurmlinkd up"
P=/api/v1/namespaces/default/pods
CM=/api/v1/namespaces/default/configmaps
# opts_is CODE KIND DESC: a 422 on KIND.meta.k8s.io naming dryRun
opts_is() {
  like "$CODE|$(jqr .reason)|$(jqr .details.kind)|$(jqr .details.causes[0].field)|$(jqr .message)" \
    "^422\|Invalid\|$1\|dryRun\|$1\.meta\.k8s\.io \"\" is invalid: dryRun: Unsupported value: .*\"Bogus\".*: supported values: \"All\"\$" "$2"
}

jpost "$P?dryRun=Bogus" "$(pod_json d1)"
opts_is CreateOptions "create with dryRun=Bogus: 422 on CreateOptions"
req GET $P/d1
is "$CODE" 404 "... and no pod"

jpost $CM '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"d2"},"data":{"k":"v1"}}'
is "$CODE" 201 "a config map to update"
RV=$(jqr .metadata.resourceVersion)
jput "$CM/d2?dryRun=Bogus" "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"d2\",\"resourceVersion\":\"$RV\"},\"data\":{\"k\":\"v2\"}}"
opts_is UpdateOptions "update with dryRun=Bogus: 422 on UpdateOptions"
jpatch "$CM/d2?dryRun=Bogus" application/merge-patch+json '{"data":{"k":"v3"}}'
opts_is PatchOptions "patch with dryRun=Bogus: 422 on PatchOptions"
req GET $CM/d2
is "$(jqr .data.k)" v1 "... and the config map is unchanged"
is "$(jqr .metadata.resourceVersion)" "$RV" "... at the same resourceVersion"
jpatch "$CM/d2?dryRun=All" application/merge-patch+json '{"data":{"k":"v4"}}'
is "$CODE|$(jqr .data.k)" "200|v4" "patch with dryRun=All answers the new object"
req GET $CM/d2
is "$(jqr .data.k)" v1 "... and stores nothing"

# fieldValidation on a patch: the same 422, on PatchOptions
jpatch "$CM/d2?fieldValidation=Bogus" application/merge-patch+json '{"data":{"k":"v5"}}'
like "$CODE|$(jqr .details.kind)|$(jqr .message)" '^422\|PatchOptions\|PatchOptions\.meta\.k8s\.io "" is invalid: fieldValidation: Unsupported value: "Bogus": supported values: "Ignore", "Strict", "Warn"$' \
  "patch with fieldValidation=Bogus: 422 on PatchOptions"
