#!/bin/bash
# covers: src/api/ src/store/ src/daemon/
# alone: valgrind is slow and timing-sensitive on a loaded machine
# 50-api-valgrind-lists.t — slurmlinkd (the plain build) under valgrind
# through namespace termination (the namespace controller, conditions,
# finalizers, /finalize, 403/409) and consistent paging (a continuation as of
# the first page's revision, Exact, 410, 422, 504). It must end with no
# memory errors and no leaks.
source "$(dirname "$0")/50-api-lib.sh"

command -v valgrind >/dev/null || skip_all "valgrind missing"
plan 12
VGLOG=$(mktemp /tmp/slt.vg.XXXXXX)
on_exit "rm -f '$VGLOG'"
SLURMLINKD=$ROOT/build/slurmlinkd
API_WRAP="valgrind --leak-check=full --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect --error-exitcode=9 --log-file=$VGLOG"
API_START_TRIES=300

api_up --watch-log 5 || bail "slurmlinkd under valgrind"
N=/api/v1/namespaces/vn
jpost /api/v1/namespaces '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"vn"}}'
jpost $N/configmaps '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"h","finalizers":["x.io/y"]}}'
jpost $N/pods "$(pod_json p1)"
for i in 1 2 3 4; do jpost $N/secrets '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s'$i'"},"stringData":{"k":"v"}}'; done
req GET "$N/secrets?limit=2"
C=$(jqr .metadata.continue) R=$(jqr .metadata.resourceVersion)
req DELETE $N/secrets/s3
req GET "$N/secrets?limit=2&continue=$C"
is "$CODE $(jqr '[.items[].metadata.name] | join(" ")')" "200 s3 s4" "a continuation as of the first page"
req GET "$N/secrets?resourceVersion=$R&resourceVersionMatch=Exact"
is "$CODE $(jqr '.items | length')" "200 4" "Exact"
req GET "$N/secrets?resourceVersionMatch=Exact"
is "$CODE" 422 "422"
req GET "$N/secrets?resourceVersion=$((R + 100))&resourceVersionMatch=NotOlderThan"
is "$CODE" 504 "504"
for i in $(seq 1 70); do jpatch $N/secrets/s4 application/merge-patch+json '{"metadata":{"labels":{"n":"'$i'"}}}'; done
req GET "$N/secrets?limit=2&continue=$C"
is "$CODE $(jqr .reason)" "410 Expired" "410 once the log is past it"

req DELETE $N
is "$CODE $(jqr .status.phase)" "200 Terminating" "DELETE: Terminating"
req DELETE $N
is "$CODE" 409 "a second DELETE"
jpost $N/configmaps '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"n"}}'
is "$CODE" 403 "new content refused"
fin() { curl -s "$API$N" | jq -r '.status.conditions[]? | select(.type=="NamespaceFinalizersRemaining") | .status' | grep -q True; }
ok wait_for 60 fin "the conditions name the finalizer"
jpatch $N/configmaps/h application/merge-patch+json '{"metadata":{"finalizers":null}}'
gone() { [ "$(curl -s -o /dev/null -w '%{http_code}' "$API$N")" = 404 ]; }
ok wait_for 60 gone "then the namespace goes"
api_stop
is "$?" 0 "slurmlinkd exits 0 under valgrind (no errors, no leaks)"
is "$(grep -c 'ERROR SUMMARY: 0 errors' "$VGLOG")" 1 "valgrind: 0 errors"
