#!/bin/bash
# covers: src/api/ src/store/
# 50-api-paging.t — consistent pagination as kube-apiserver serves it: the
# later pages of a list are served as of the first page's revision, so
# objects created, deleted or changed between pages on either side of the
# cut neither show up nor go missing nor repeat; a token older than the
# change log is 410 Expired with kube's body and a token for the rest;
# resourceVersion / resourceVersionMatch (Exact, NotOlderThan) and their
# 400 / 410 / 422 / 504 answers. kubectl and client-go page with limit=500,
# so this is what a large `kubectl get` sees.
source "$(dirname "$0")/50-api-lib.sh"
plan 30

api_up || bail "slurmlinkd up"
N=pg-$$
jpost /api/v1/namespaces '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"'"$N"'"}}'
B=/api/v1/namespaces/$N/configmaps
mkcm() { jpost "$B" '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"'"$1"'"},"data":{"v":"'"${2:-old}"'"}}'; }
for i in 00 01 02 03 04 05 06 07 08 09; do mkcm "cm$i"; done
names() { jqr '[.items[].metadata.name] | join(" ")'; }

req GET "$B?limit=4"
is "$(names) | $(jqr .metadata.remainingItemCount)" "cm00 cm01 cm02 cm03 | 6" "page 1: four objects, six remaining"
R1=$(jqr .metadata.resourceVersion) C1=$(jqr .metadata.continue)
p1=$(jqr '[.items[] | .metadata.name + "@" + .metadata.resourceVersion] | join(" ")')
req GET "$B?resourceVersion=$R1&resourceVersionMatch=Exact"
want=$(jqr '[.items[] | .metadata.name + "@" + .metadata.resourceVersion] | join(" ")')

# changes on both sides of the cut (after cm03)
req DELETE "$B/cm01"                    # seen on page 1, deleted
mkcm cm005                              # new, before the cut
req DELETE "$B/cm05"                    # not yet seen, deleted
mkcm cm045                              # new, after the cut
req GET "$B/cm06"
jput "$B/cm06" "$(printf '%s' "$BODY" | jq -c '.data.v = "new"')"  # not yet seen, changed
req DELETE "$B/cm08"; mkcm cm08 again   # not yet seen, deleted and re-created
is "$CODE" 201 "the changes are made"

req GET "$B?limit=4&continue=$C1"
is "$CODE $(names) | $(jqr .metadata.remainingItemCount)" "200 cm04 cm05 cm06 cm07 | 2" \
  "page 2: as of page 1's revision (cm05 deleted since is there, cm045 created since is not)"
is "$(jqr .metadata.resourceVersion)" "$R1" "page 2 says the revision it is served as of"
is "$(jqr '.items[] | select(.metadata.name=="cm06") | .data.v')" "old" "cm06 as it was at that revision"
p2=$(jqr '[.items[] | .metadata.name + "@" + .metadata.resourceVersion] | join(" ")')
C2=$(jqr .metadata.continue)
req GET "$B?limit=4&continue=$C2"
is "$(names) | $(jqr '.metadata.continue // "end"')" "cm08 cm09 | end" "page 3: the rest, no continue"
is "$(jqr '.items[0].data.v')" "old" "cm08 as it was, not its re-created self"
p3=$(jqr '[.items[] | .metadata.name + "@" + .metadata.resourceVersion] | join(" ")')
is "$p1 $p2 $p3" "$want" "the pages together: exactly the objects of page 1's revision, each once, at their versions then"

req GET "$B"
is "$(names)" "cm00 cm005 cm02 cm03 cm04 cm045 cm06 cm07 cm08 cm09" "a new list sees the changes"
R2=$(jqr .metadata.resourceVersion)
req GET "$B?resourceVersion=$R1&resourceVersionMatch=Exact"
is "$CODE $(jqr .metadata.resourceVersion) $(names)" "200 $R1 cm00 cm01 cm02 cm03 cm04 cm05 cm06 cm07 cm08 cm09" "resourceVersionMatch=Exact lists as of that revision"
req GET "$B?resourceVersion=$R1&limit=3"
is "$CODE $(jqr .metadata.resourceVersion) $(names)" "200 $R1 cm00 cm01 cm02" "a bare resourceVersion with limit is Exact (kube's rule)"
req GET "$B?resourceVersion=$R1&resourceVersionMatch=NotOlderThan"
is "$CODE $(jqr .metadata.resourceVersion) $(names)" "200 $R2 cm00 cm005 cm02 cm03 cm04 cm045 cm06 cm07 cm08 cm09" "NotOlderThan: the current state"
req GET "$B?resourceVersion=$R1"
is "$CODE $(jqr .metadata.resourceVersion)" "200 $R2" "a bare resourceVersion without limit is NotOlderThan"
req GET "$B?resourceVersion=0&limit=2"
is "$CODE $(names)" "200 cm00 cm005" "resourceVersion=0: any (the current state)"

is "$(k get configmaps -n "$N" --chunk-size=3 -o name | tr '\n' ' ')" \
  "configmap/cm00 configmap/cm005 configmap/cm02 configmap/cm03 configmap/cm04 configmap/cm045 configmap/cm06 configmap/cm07 configmap/cm08 configmap/cm09 " \
  "kubectl get --chunk-size=3 walks the pages (Tables with continue)"

# --- the answers kube-apiserver gives to bad combinations ---
req GET "$B?resourceVersionMatch=Exact"
status_is 422 Invalid 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden unless resourceVersion is provided' "resourceVersionMatch without resourceVersion: 422"
is "$(jqr '.details.causes[0] | .reason + " " + .field')" "FieldValueForbidden resourceVersionMatch" "the cause names the field"
req GET "$B?resourceVersion=$R1&resourceVersionMatch=Newest"
status_is 422 Invalid 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Unsupported value: "Newest": supported values: "Exact", "NotOlderThan", ""' "an unknown resourceVersionMatch: 422"
req GET "$B?resourceVersion=0&resourceVersionMatch=Exact"
status_is 422 Invalid 'ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch "exact" is forbidden for resourceVersion "0"' "Exact with resourceVersion 0: 422"
req GET "$B?limit=4&continue=$C1&resourceVersion=$R1&resourceVersionMatch=Exact"
like "$CODE $(jqr .message)" '^422 .*resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided' "resourceVersionMatch with continue: 422"
req GET "$B?limit=4&continue=$C1&resourceVersion=$R1"
status_is 400 BadRequest "specifying resource version is not allowed when using continue" "resourceVersion with continue: 400"
req GET "$B?limit=4&continue=bm9wZQ"
status_is 400 BadRequest "continue key is not valid: incorrect encoded start resourceVersion (version meta.k8s.io/v1)" "a forged continue token: 400"
far=$((R2 + 1000))
req GET "$B?resourceVersion=$far&resourceVersionMatch=NotOlderThan"
status_is 504 Timeout "Timeout: Too large resource version: $far, current: $R2" "a resourceVersion from the future: 504 after waiting for it"
is "$(jqr '[.details.retryAfterSeconds, .details.causes[0].reason] | map(tostring) | join(" ")')" "1 ResourceVersionTooLarge" "with retryAfterSeconds and kube's cause"
req GET "$B?resourceVersion=$far&resourceVersionMatch=Exact&limit=2"
is "$CODE" 504 "Exact from the future: 504 too"

# --- a token older than the change log: 410 Expired with a token for the rest ---
api_stop
AD2=$(tmpdir)
on_exit "rm -rf '$AD2'"
api_start "$AD2" --watch-log 5 || bail "slurmlinkd with a short change log"
jpost /api/v1/namespaces '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"'"$N"'"}}'
for i in 00 01 02 03 04 05; do mkcm "cm$i"; done
mkcm zz
for i in $(seq 1 80); do jpatch "$B/zz" application/merge-patch+json '{"data":{"v":"'"$i"'"}}'; done
req GET "$B?limit=2"
C=$(jqr .metadata.continue)
# cm03 was written long before the log's start; changed between the pages
jpatch "$B/cm03" application/merge-patch+json '{"data":{"v":"changed"}}'
req GET "$B?limit=2&continue=$C"
is "$CODE $(names) $(jqr '.items[1].data.v')" "200 cm02 cm03 old" \
  "an object last written before the change log's start, changed between pages: its version then (the log holds every change since page 1)"
for i in $(seq 1 70); do jpatch "$B/cm04" application/merge-patch+json '{"data":{"v":"'"$i"'"}}'; done
req GET "$B?limit=2&continue=$C"
status_is 410 Expired "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list." \
  "a page older than the change log: 410 Expired with kube's text"
IC=$(jqr '.metadata.continue // ""')
is "$(jqr .kind) $([ -n "$IC" ] && echo token)" "Status token" "the 410 Status carries a continue token for the rest"
req GET "$B?limit=2&continue=$IC"
is "$CODE $(names) $(jqr '.items[1].data.v')" "200 cm02 cm03 changed" "that token continues after the same key, as of now (an inconsistent list)"
req GET "$B?resourceVersion=2&resourceVersionMatch=Exact"
status_is 410 Expired "The resourceVersion for the provided list is too old." "Exact older than the change log: 410 Expired"
