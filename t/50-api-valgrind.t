#!/bin/bash
# covers: src/api/ src/store/ src/daemon/
# alone: valgrind is slow and timing-sensitive on a loaded machine
# 50-api-valgrind.t — slurmlinkd (the plain build) under valgrind through a
# short scripted session: discovery, create, apply, get as Table, watch
# (also filtered, from a resourceVersion), logs, patches, bad input,
# deletes, shutdown with open streams. It must end with no memory errors and
# no leaks.
source "$(dirname "$0")/50-api-lib.sh"

command -v valgrind >/dev/null || skip_all "valgrind missing"
plan 9
VGLOG=$(mktemp /tmp/slt.vg.XXXXXX)
on_exit "rm -f '$VGLOG'"
SLURMLINKD=$ROOT/build/slurmlinkd
API_WRAP="valgrind --leak-check=full --show-leak-kinds=definite,indirect --errors-for-leak-kinds=definite,indirect --error-exitcode=9 --log-file=$VGLOG"
API_START_TRIES=300

api_up || bail "slurmlinkd under valgrind"
P=/api/v1/namespaces/default/pods

k apply -f - >/dev/null 2>&1 <<EOF
apiVersion: v1
kind: Pod
metadata: {name: v1, labels: {app: vg}}
spec:
  containers:
  - {name: main, image: busybox}
EOF
like "$(k get pods 2>&1)" 'v1 +0/1 +Pending' "kubectl apply and get (Table) under valgrind"
k create namespace vgns >/dev/null 2>&1
k create configmap c1 --from-literal=a=b >/dev/null 2>&1
req GET "$P"
RV0=$(jqr .metadata.resourceVersion)
jpatch $P/v1 application/strategic-merge-patch+json '{"metadata":{"labels":{"x":"y"}}}'
jpatch "$P/v1?fieldManager=t" application/apply-patch+yaml '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"v1","labels":{"z":"1"}}}'
jpatch $P/v1 application/json-patch+json '[{"op":"add","path":"/metadata/annotations","value":{"a":"b"}}]'
set_status default v1 '{"phase":"Running","containerStatuses":[{"name":"main","ready":true,"restartCount":0,"image":"b","imageID":"","state":{"running":{}}}]}'
cri_log default v1 main 0 "2020-01-01T00:00:00Z stdout F hello" "2020-01-01T00:00:01Z stdout P a" "2020-01-01T00:00:02Z stdout F b"
jpatch $P/v1 application/merge-patch+json '{"metadata":{"labels":{"x":null}}}'
# a filtered watch from before the changes: typed from the objects before them
req GET "$P?watch=1&resourceVersion=$RV0&labelSelector=x%3Dy&timeoutSeconds=1"
like "$(printf '%s' "$BODY" | jq -r '.type + ":" + (.object.metadata.labels.x // "")' | tr '\n' ' ')" '^ADDED:y (MODIFIED:y )*DELETED:y $' \
  "filtered watch from a resourceVersion under valgrind"
req GET "$P/v1/log?timestamps=true&tailLines=2"
is "$BODY" $'2020-01-01T00:00:01Z ab' "logs under valgrind"
curl -s -N "$API$P?watch=1&timeoutSeconds=2&allowWatchBookmarks=true" >"$AD/w" &
wp=$!
curl -s -N "$API$P/v1/log?follow=true" >"$AD/f" &
# both open: the watch's ADDED and the log's lines so far came
wait_for 60 grep -q ADDED "$AD/w"
wait_for 60 test -s "$AD/f"
jpost $P '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"Bad_Name"},"spec":{"containers":[{"name":"c","image":"x"}]}}'
jpost $P '{"broken'
jpost $P '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"u"},"spec":{"containers":[{"name":"c","image":"x","resources":{"limits":{"cpu":"1x"}}}]}}'
req GET "$P?labelSelector=a+in+("
req GET /api -H 'Accept: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList'
req GET /openapi/v3/api/v1
wait $wp
like "$(cat "$AD/w")" '"type":"ADDED"' "watch under valgrind"
k delete configmap c1 >/dev/null 2>&1
k delete namespace vgns >/dev/null 2>&1
req DELETE "$P/v1?gracePeriodSeconds=0"
is "$CODE" "200" "delete under valgrind"
# one stream still open (logs -f) while the daemon stops
api_stop
rc=$?
is "$rc" "0" "valgrind exit status 0 (9 would mean errors or leaks)"
summ=$(grep -a 'ERROR SUMMARY:' "$VGLOG")
like "$summ" 'ERROR SUMMARY: 0 errors' "valgrind finished its report"
unlike "$summ" 'ERROR SUMMARY: [1-9]' "valgrind: ERROR SUMMARY: 0 errors for every process"
unlike "$(cat "$VGLOG")" 'definitely lost: [1-9]|indirectly lost: [1-9]' "valgrind: nothing lost"
if [ "$rc" != 0 ]; then sed 's/^/#   /' "$VGLOG" | head -80; fi
done_testing
