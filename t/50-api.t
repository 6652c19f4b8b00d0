#!/bin/bash
# covers: src/api/ src/store/ src/kinds/job/controller.c
# 50-api.t — slurmlinkd's Kubernetes API over plain HTTP with curl: discovery,
# OpenAPI, CRUD, patches, optimistic concurrency, status subresource, Table,
# selectors and paging, graceful deletion, namespaces, restart persistence.
# No Slurm: pods stay Pending; status is set through /status as the
# lifecycle controller does.
source "$(dirname "$0")/50-api-lib.sh"
plan 108

api_up --bookmark-interval 1 --watch-log 50 || bail "slurmlinkd up"
NS=/api/v1/namespaces/default

# ---- version, health, discovery -------------------------------------------
req GET /version
is "$CODE $(jqr .minor)" "200 32" "/version answers minor 32 (kubectl dispatcher picks 1.32)"
like "$(jqr .gitVersion)" '^v1\.32\.0(\+[0-9A-Za-z.-]+)?$' "gitVersion is valid semver"
for h in healthz readyz livez; do req GET /$h; is "$CODE $BODY" "200 ok" "/$h"; done

req GET /api
is "$(jqr '.kind + " " + (.versions|join(","))')" "APIVersions v1" "/api legacy: APIVersions"
req GET /api -H 'Accept: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json'
like "$HDRS" $'\n''Content-Type: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList'$'\n' "/api aggregated: exact Content-Type"
is "$(jqr '.items[0].versions[0].resources[] | select(.resource=="pods") | [.scope, (.shortNames|join(",")), (.subresources|map(.subresource)|join(","))] | join(" ")')" \
  "Namespaced po log,eviction,status" "aggregated pods: scope, short name, log, eviction and status subresources"
req GET /apis -H 'Accept: application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json'
is "$(jqr '.kind + " " + ([.items[].metadata.name]|join(",")) + " " + ([.items[0].versions[0].resources[] | .resource + ":" + (.categories // [] | join(","))] | join(" "))')" \
  "APIGroupDiscoveryList batch,kubeflow.org,trainer.kubeflow.org,apps,discovery.k8s.io,jobset.x-k8s.io,leaderworkerset.x-k8s.io,storage.k8s.io,resource.k8s.io,authentication.k8s.io,authorization.k8s.io,metrics.k8s.io jobs:all cronjobs:all" "/apis aggregated: batch/v1 with jobs and cronjobs (category all), then the workload kinds' groups (kubeflow.org: PyTorchJob, MPIJob; trainer.kubeflow.org: TrainJob and its runtimes; apps: Deployment, ReplicaSet; discovery.k8s.io: EndpointSlice; jobset.x-k8s.io: JobSet; leaderworkerset.x-k8s.io: LeaderWorkerSet), storage.k8s.io (StorageClass), resource.k8s.io (DRA), then the review groups and node metrics"
req GET /apis
is "$(jqr .kind)" "APIGroupList" "/apis legacy"
req GET /api/v1
is "$(jqr '[.resources[].name] | join(" ")')" \
  "pods pods/log pods/eviction pods/status namespaces namespaces/status nodes nodes/status events configmaps secrets serviceaccounts resourcequotas resourcequotas/status persistentvolumeclaims persistentvolumeclaims/status persistentvolumes persistentvolumes/status services services/status endpoints" \
  "/api/v1 APIResourceList"
is "$(jqr '.resources[] | select(.name=="nodes") | .verbs | join(",")')" "get,list,patch,watch" "nodes: read, and patch (cordon)"

req GET /openapi/v3
url=$(jqr '.paths["api/v1"].serverRelativeURL')
like "$url" '^/openapi/v3/api/v1\?hash=[0-9A-F]+$' "OpenAPI v3 index lists api/v1"
req GET "$url"
is "$(jqr '.paths["/api/v1/namespaces/{namespace}/pods/{name}"].patch | [.["x-kubernetes-group-version-kind"].kind, (.parameters|map(.name)|index("fieldValidation") != null|tostring)] | join(" ")')" \
  "Pod true" "OpenAPI v3: Pod PATCH with GVK and fieldValidation"
req GET /openapi/v2 -H 'Accept: application/com.github.proto-openapi.spec.v2@v1.0+protobuf'
is "$CODE $(printf '%s' "$HDRS" | grep -i '^Content-Type:' | cut -d' ' -f2)" "200 application/com.github.proto-openapi.spec.v2.v1.0+protobuf" \
  "/openapi/v2: an empty protobuf document (kubectl validates v1 Lists against it)"

# ---- namespaces and service accounts ---------------------------------------
req GET /api/v1/namespaces
is "$(jqr '[.items[].metadata.name] | join(" ")')" "default kube-public kube-system" "initial namespaces"
req GET /api/v1/serviceaccounts
is "$(jqr '[.items[] | .metadata.namespace + "/" + .metadata.name] | join(" ")')" \
  "default/default kube-public/default kube-system/default" "a default service account in each namespace"
jpost /api/v1/namespaces '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"team-a"}}'
is "$CODE $(jqr '.status.phase + " " + .metadata.labels["kubernetes.io/metadata.name"]')" "201 Active team-a" "create namespace"
req GET /api/v1/namespaces/team-a/serviceaccounts/default
is "$CODE" "200" "new namespace gets its default service account"
jpost /api/v1/namespaces/nope/pods "$(pod_json p)"
status_is 404 NotFound 'namespaces "nope" not found' "create in a missing namespace: 404 namespaces \"nope\" not found"
jpost $NS/pods "$(pod_json sa1 ',"serviceAccountName":"robot"')"
status_is 403 Forbidden 'pods "sa1" is forbidden: error looking up service account default/robot: serviceaccount "robot" not found' \
  "a missing service account is refused like the ServiceAccount admission does"

# ---- create, get, defaults ------------------------------------------------
jpost $NS/pods "$(pod_json p1)"
is "$CODE" "201" "create pod"
is "$(jqr '[.status.phase, .status.qosClass, .spec.restartPolicy, (.spec.terminationGracePeriodSeconds|tostring), .spec.containers[0].imagePullPolicy, .spec.serviceAccountName] | join(" ")')" \
  "Pending BestEffort Always 30 Always default" "status reset to Pending, defaults filled"
like "$(jqr .metadata.uid)" '^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$' "uid is a v4 UUID"
RV1=$(jqr .metadata.resourceVersion)
jpost $NS/pods "$(pod_json p1)"
status_is 409 AlreadyExists 'pods "p1" already exists' "create twice: AlreadyExists"
jpost $NS/pods '{"apiVersion":"v1","kind":"Pod","metadata":{"generateName":"gen-"},"spec":{"containers":[{"name":"c","image":"x"}]}}'
like "$CODE $(jqr .metadata.name)" '^201 gen-[bcdfghjklmnpqrstvwxz2456789]{5}$' "generateName"
jpost "$NS/pods?dryRun=All" "$(pod_json dry)"
req GET $NS/pods/dry
is "$CODE" "404" "dryRun=All stores nothing"
req GET $NS/pods/p1
is "$CODE $(jqr .metadata.name)" "200 p1" "get"
req GET $NS/pods/zz
status_is 404 NotFound 'pods "zz" not found' "get missing: NotFound"
is "$(jqr '.details.name + " " + .details.kind')" "zz pods" "NotFound details"

# ---- update and optimistic concurrency ------------------------------------
req GET $NS/pods/p1
obj=$BODY
jput $NS/pods/p1 "$(printf '%s' "$obj" | jq -c '.metadata.labels.v="1"')"
is "$CODE $(jqr .metadata.labels.v)" "200 1" "PUT updates"
jput $NS/pods/p1 "$(printf '%s' "$obj" | jq -c '.metadata.labels.v="2"')"
status_is 409 Conflict 'Operation cannot be fulfilled on pods "p1": the object has been modified; please apply your changes to the latest version and try again' \
  "PUT with a stale resourceVersion: 409 Conflict"
jput $NS/pods/p1 "$(printf '%s' "$obj" | jq -c '.metadata.name="other"')"
status_is 400 BadRequest 'the name of the object (other) does not match the name on the URL (p1)' "PUT with another name: 400"
req GET $NS/pods/p1
jput $NS/pods/p1 "$(printf '%s' "$BODY" | jq -c '.spec.containers[0].command=["sh"] | .status.phase="Running"')"
is "$CODE $(jqr .reason)" "422 Invalid" "pod spec change: 422 Invalid"
like "$(jqr .message)" '^Pod "p1" is invalid: spec: Forbidden: pod updates may not change fields other than' "immutability message"
req GET $NS/pods/p1
jput $NS/pods/p1 "$(printf '%s' "$BODY" | jq -c '.status.phase="Running" | .spec.containers[0].image="busybox:2"')"
is "$CODE $(jqr .status.phase) $(jqr .spec.containers[0].image)" "200 Pending busybox:2" "PUT on the pod keeps status, image may change"

# ---- status subresource ----------------------------------------------------
set_status default p1 '{"phase":"Running","podIP":"10.1.0.5","conditions":[{"type":"Ready","status":"True"}],"containerStatuses":[{"name":"main","ready":true,"restartCount":0,"image":"busybox","imageID":"","started":true,"state":{"running":{"startedAt":"'"$(now_rfc3339)"'"}}}]}'
req GET $NS/pods/p1/status
is "$(jqr .status.phase) $(jqr .status.podIP)" "Running 10.1.0.5" "merge patch on /status"
jpatch $NS/pods/p1/status application/merge-patch+json '{"metadata":{"labels":{"hack":"x"}},"spec":{"nodeName":"n9"},"status":{"phase":"Running"}}'
is "$CODE $(jqr '.metadata.labels.hack // "none"') $(jqr '.spec.nodeName // "none"')" "200 none none" "/status ignores metadata and spec"

# ---- patches ----------------------------------------------------------------
jpatch $NS/pods/p1 application/strategic-merge-patch+json '{"metadata":{"labels":{"tier":"gpu"}}}'
is "$CODE $(jqr .metadata.labels.tier) $(jqr .metadata.labels.app)" "200 gpu t" "strategic merge patch keeps other labels"
jpatch $NS/pods/p1 application/merge-patch+json '{"metadata":{"labels":{"tier":null}}}'
is "$CODE $(jqr '.metadata.labels.tier // "gone"')" "200 gone" "merge patch: null deletes"
jpatch $NS/pods/p1 application/json-patch+json '[{"op":"add","path":"/metadata/annotations","value":{"a":"1"}},{"op":"replace","path":"/metadata/labels/app","value":"u"}]'
is "$CODE $(jqr .metadata.annotations.a) $(jqr .metadata.labels.app)" "200 1 u" "JSON patch (RFC 6902)"
jpatch $NS/pods/p1 application/json-patch+json '[{"op":"remove","path":"/metadata/nothere"}]'
is "$CODE $(jqr .reason)" "422 Invalid" "JSON patch that does not apply: 422"
jpatch $NS/pods/p1 text/plain '{}'
is "$CODE $(jqr .reason)" "415 UnsupportedMediaType" "unknown patch type: 415"
jpatch "$NS/pods/p1" application/merge-patch+json '{"metadata":{"resourceVersion":"1","labels":{"x":"y"}}}'
is "$CODE $(jqr .reason)" "409 Conflict" "patch carrying a stale resourceVersion: 409"
jpatch $NS/pods/p1 application/strategic-merge-patch+json '{"metadata":{"resourceVersion":null,"uid":null,"labels":{"nulls":"ok"}},"status":null}'
is "$CODE $(jqr .metadata.labels.nulls) $(jqr '.metadata.uid|length') $(jqr .status.phase)" "200 ok 36 Running" \
  "a 3-way patch nulling server-owned fields (kubectl apply after edit) is no precondition"
jpatch "$NS/pods/ssa1?fieldManager=test" application/apply-patch+yaml "$(pod_json ssa1)"
is "$CODE $(jqr .metadata.name)" "201 ssa1" "server-side apply creates: 201"
jpatch "$NS/pods/ssa1?fieldManager=test" application/apply-patch+yaml "$(pod_json ssa1 | jq -c '.metadata.labels.more="yes"')"
is "$CODE $(jqr .metadata.labels.more)" "200 yes" "server-side apply updates: 200"
jpatch "$NS/pods/ssa1" application/apply-patch+yaml "$(pod_json ssa1)"
is "$CODE $(jqr .reason)" "422 Invalid" "apply without fieldManager: 422"
jpatch "$NS/pods/p1?fieldValidation=Strict" application/strategic-merge-patch+json '{"spec":{"containers":[{"name":"main","imagee":"x"}]}}'
status_is 400 BadRequest 'strict decoding error: unknown field "spec.containers[0].imagee"' "strict patch: unknown field refused"

# ---- Warn / Ignore field validation -----------------------------------------
jpost "$NS/pods?fieldValidation=Warn" '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"w1"},"spec":{"hostNetwork":true,"containers":[{"name":"c","image":"x","imagee":"y"}]}}'
is "$CODE" "201" "fieldValidation=Warn accepts unknown fields"
like "$HDRS" $'\n''Warning: 299 - "unknown field \\"spec.containers\[0\].imagee\\""' "unknown field as a Warning header"
like "$HDRS" $'\n''Warning: 299 - "spec.hostNetwork is ignored' "ignored field as a Warning header"
jpost "$NS/pods" '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"w2"},"spec":{"containers":[{"name":"c","image":"x","imagee":"y"}]}}'
is "$CODE" "201" "no fieldValidation: Warn is the default (as kube-apiserver)"
jpost "$NS/pods?fieldValidation=Bogus" "$(pod_json w3)"
is "$CODE $(jqr .reason)" "422 Invalid" "unknown fieldValidation value: 422"

# ---- list: selectors, paging, Table ----------------------------------------
for i in 1 2 3; do jpost $NS/configmaps "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"cm$i\",\"labels\":{\"n\":\"$i\"}},\"data\":{\"k\":\"v\"}}"; done
req GET "$NS/configmaps?labelSelector=n+in+(1,3)"
is "$(jqr '[.items[].metadata.name]|join(" ")')" "cm1 cm3" "labelSelector in"
req GET "$NS/configmaps?labelSelector=n!=1,n"
is "$(jqr '[.items[].metadata.name]|join(" ")')" "cm2 cm3" "labelSelector != and exists"
req GET "$NS/configmaps?labelSelector=n+in+("
is "$CODE $(jqr .reason)" "400 BadRequest" "bad label selector: 400"
req GET "$NS/pods?fieldSelector=status.phase%3DRunning"
is "$(jqr '[.items[].metadata.name]|join(" ")')" "p1" "fieldSelector status.phase"
req GET "$NS/pods?fieldSelector=metadata.name%3Dp1"
is "$(jqr '.kind + " " + ([.items[].metadata.name]|join(" ")) + " " + (.metadata.resourceVersion|test("^[0-9]+$")|tostring)')" "PodList p1 true" "fieldSelector metadata.name"
req GET "$NS/pods?fieldSelector=foo%3Dbar"
status_is 400 BadRequest 'field label not supported: foo' "unsupported field label: 400"
req GET "$NS/configmaps?limit=2"
is "$(jqr '([.items[].metadata.name]|join(" ")) + " " + (.metadata.remainingItemCount|tostring)')" "cm1 cm2 1" "limit: first page"
req GET "$NS/configmaps?limit=2&continue=$(jqr .metadata.continue)"
is "$(jqr '([.items[].metadata.name]|join(" ")) + " " + (.metadata.continue // "end")')" "cm3 end" "continue: last page"
req GET /api/v1/pods -H 'Accept: application/json;as=Table;v=v1;g=meta.k8s.io,application/json'
is "$(jqr '[.columnDefinitions[] | .name + ":" + (.priority|tostring)] | join(",")')" \
  "Name:0,Ready:0,Status:0,Restarts:0,Age:0,IP:1,Node:1,Nominated Node:1,Readiness Gates:1" "pod Table columns"
is "$(jqr '.rows[] | select(.cells[0]=="p1") | .cells[1:4] + [.cells[5]] | join(" ")')" "1/1 Running 0 10.1.0.5" "pod Table row"
is "$(jqr '.rows[0].object.kind + " " + .rows[0].object.metadata.namespace')" "PartialObjectMetadata default" "rows carry PartialObjectMetadata"
req GET "$NS/pods/p1?includeObject=Object" -H 'Accept: application/json;as=Table;v=v1;g=meta.k8s.io'
is "$(jqr '.kind + " " + .rows[0].object.kind')" "Table Pod" "single object Table with includeObject=Object"

# ---- watch -----------------------------------------------------------------
req GET "$NS/configmaps"
CMRV=$(jqr .metadata.resourceVersion)
curl -s -N "$API$NS/configmaps?watch=true&resourceVersion=$CMRV&labelSelector=n%3D1&timeoutSeconds=3" >"$AD/w1" &
W1=$!
curl -s -N "$API$NS/configmaps?watch=true&timeoutSeconds=2&allowWatchBookmarks=true" >"$AD/w2" &
W2=$!
# w1 starts from a resourceVersion (it replays what came after, whenever it
# connects); w2 is open once its ADDED events for the current objects came
w2_open() { [ "$(grep -c '"type":"ADDED"' "$AD/w2")" -ge 3 ]; }
wait_for 60 w2_open || diag "the second watch did not open"
jpatch $NS/configmaps/cm1 application/merge-patch+json '{"data":{"k":"v2"}}'
jpatch $NS/configmaps/cm2 application/merge-patch+json '{"data":{"k":"v2"}}'
jpatch $NS/configmaps/cm1 application/merge-patch+json '{"metadata":{"labels":{"n":"9"}}}'
wait $W1 $W2
is "$(grep -v '^$' "$AD/w1" | jq -r '.type + ":" + .object.metadata.name' | tr '\n' ' ')" "MODIFIED:cm1 DELETED:cm1 " \
  "watch from a resourceVersion with a label selector: leaving the selection is DELETED"
is "$(grep -v '^$' "$AD/w2" | jq -r 'select(.type=="ADDED") | .object.metadata.name' | tr '\n' ' ')" "cm1 cm2 cm3 " \
  "watch without resourceVersion starts with ADDED for every object"
like "$(grep -c BOOKMARK "$AD/w2")" '^[1-9]' "allowWatchBookmarks sends BOOKMARK events"
req GET "$NS/configmaps?watch=1&resourceVersion=$CMRV&timeoutSeconds=1" -H 'Accept: application/json;as=Table;v=v1;g=meta.k8s.io,application/json'
is "$(printf '%s' "$BODY" | grep -v '^$' | jq -r '.object.kind + ":" + (.object.columnDefinitions|length|tostring) + ":" + .object.rows[0].cells[0]' | tr '\n' ' ')" \
  "Table:3:cm1 Table:0:cm2 Table:0:cm1 " "Table watch: one-row Tables, columns in the first event only"
req GET "$NS/configmaps?watch=1&sendInitialEvents=true&allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=1"
is "$(printf '%s' "$BODY" | grep -v '^$' | jq -r '.type + (if .type=="BOOKMARK" then ":" + .object.metadata.annotations["k8s.io/initial-events-end"] else "" end)' | head -4 | tr '\n' ' ')" \
  "ADDED ADDED ADDED BOOKMARK:true " "sendInitialEvents: the current objects, then a BOOKMARK marking their end"
for i in $(seq 1 150); do jpatch $NS/configmaps/cm3 application/merge-patch+json "{\"data\":{\"i\":\"$i\"}}"; done
req GET "$NS/configmaps?watch=1&resourceVersion=$CMRV&timeoutSeconds=1"
is "$(printf '%s' "$BODY" | grep -v '^$' | jq -r '.type + " " + (.object.code|tostring) + " " + .object.reason')" "ERROR 410 Expired" \
  "watch from a revision older than the change log: ERROR 410 Expired"
like "$(printf '%s' "$BODY" | grep -v '^$' | jq -r .object.message)" "^too old resource version: $CMRV \\([0-9]+\\)$" "Expired message"
t0=$(date +%s%N)
curl -s -m 120 -o "$AD/wt" "$API$NS/pods?watch=1&resourceVersion=0&timeoutSeconds=1&fieldSelector=metadata.name%3Dp1"
crc=$?
t1=$(( ($(date +%s%N) - t0) / 1000000 ))
is "$(grep -v '^$' "$AD/wt" | jq -r '.type + ":" + .object.metadata.name' | tr '\n' ' ')" "ADDED:p1 " "watch with a metadata.name field selector (kubectl wait)"
is "$crc" 0 "timeoutSeconds ends the watch: the server closes it (not curl's own 120 s limit)"
ok test "$t1" -ge 900 "... after the 1 s asked for (${t1} ms)"

# ---- logs --------------------------------------------------------------------
jpost $NS/pods "$(pod_json logp | jq -c '.metadata.labels={}')"
req GET $NS/pods/logp/log
is "$CODE $BODY" "200 " "logs of a pod not yet placed: empty"
set_status default logp '{"phase":"Running","containerStatuses":[{"name":"main","ready":true,"restartCount":1,"image":"b","imageID":"","state":{"running":{}}}]}'
jpatch $NS/pods/logp application/merge-patch+json '{"spec":{"nodeName":"n1"}}' >/dev/null
cri_log default logp main 0 "2020-01-01T00:00:00Z stdout F first run"
cri_log default logp main 1 "2020-01-01T00:00:10.5Z stdout F second run" "2020-01-01T00:00:11Z stderr F more"
req GET $NS/pods/logp/log
is "$BODY" $'second run\nmore' "logs: the newest restart's file"
req GET "$NS/pods/logp/log?previous=true"
is "$BODY" "first run" "logs previous=true: the restart before"
req GET "$NS/pods/logp/log?limitBytes=8"
is "$BODY" "second r" "logs limitBytes"
req GET "$NS/pods/logp/log?sinceTime=2020-01-01T00:00:11Z"
is "$BODY" "more" "logs sinceTime"
req GET "$NS/pods/logp/log?tailLines=0"
is "$CODE:$BODY" "200:" "logs tailLines=0"
req GET "$NS/pods/logp/log?timestamps=true&tailLines=1"
is "$BODY" "2020-01-01T00:00:11Z more" "logs timestamps (RFC 3339 as Go prints it)"
is "$(printf '%s' "$HDRS" | grep -i '^Content-Type:')" "Content-Type: text/plain" "logs are text/plain"
curl -s -N "$API$NS/pods/logp/log?follow=true" >"$AD/lf" &
lfp=$!
# the follow is open once it has sent the current file
lf_open() { [ "$(cat "$AD/lf")" = $'second run\nmore' ]; }
wait_for 60 lf_open || diag "logs follow did not send the current file"
cri_log default logp main 2 "2020-01-01T00:01:00Z stdout F third run"
ok wait_for 60 proc_gone $lfp "logs follow ends when a newer restart's file appears"
wait $lfp
is "$(cat "$AD/lf")" $'second run\nmore' "... having sent the followed file only"

# ---- delete ----------------------------------------------------------------
req DELETE $NS/configmaps/cm2
is "$CODE $(jqr '.kind + " " + .status + " " + .details.name + " " + .details.kind')" "200 Status Success cm2 configmaps" "delete a configmap: Success Status"
req DELETE $NS/pods/w1
is "$CODE $(jqr .metadata.name)" "200 w1" "delete a pod that never got a job: gone at once"
req GET $NS/pods/w1
is "$CODE" "404" "... and really gone"
jpost $NS/pods "$(pod_json j1 | jq -c '.metadata.annotations={"slurmlink.io/job-id":"77"}')"
set_status default j1 '{"phase":"Running"}'
req DELETE $NS/pods/j1 -H 'Content-Type: application/json' --data-binary '{"propagationPolicy":"Background"}'
is "$CODE $(jqr '.metadata.deletionGracePeriodSeconds|tostring')" "200 30" "delete a pod with a Slurm job: graceful (deletionGracePeriodSeconds 30)"
req GET $NS/pods/j1 -H 'Accept: application/json;as=Table;v=v1;g=meta.k8s.io'
is "$CODE $(jqr '.rows[0].cells[2]')" "200 Terminating" "it stays, shown as Terminating"
req DELETE "$NS/pods/j1?gracePeriodSeconds=0"
req GET $NS/pods/j1
is "$CODE" "404" "gracePeriodSeconds=0 removes it"
req DELETE $NS/pods/j1
status_is 404 NotFound 'pods "j1" not found' "delete missing: 404"
jpost $NS/pods "$(pod_json d1)"
uid=$(jqr .metadata.uid)
req DELETE $NS/pods/d1 -H 'Content-Type: application/json' --data-binary '{"preconditions":{"uid":"x"}}'
status_is 409 Conflict "Operation cannot be fulfilled on pods \"d1\": Precondition failed: UID in precondition: x, UID in object meta: $uid" "delete precondition on uid"
req DELETE "$NS/pods?labelSelector=app%3Dt"
req GET "$NS/pods?labelSelector=app%3Dt"
is "$(jqr '.items|length')" "0" "deletecollection with a label selector"
req DELETE /api/v1/namespaces/default
status_is 403 Forbidden 'namespaces "default" is forbidden: this namespace may not be deleted' "default namespace cannot be deleted"
jpost /api/v1/namespaces/team-a/configmaps '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"x"}}'
req DELETE /api/v1/namespaces/team-a
ok wait_for 60 bash -c "[ \"\$(curl -s -o /dev/null -w '%{http_code}' $API/api/v1/namespaces/team-a)\" = 404 ]" "deleting a namespace empties and removes it"
req GET /api/v1/namespaces/team-a/configmaps
is "$(jqr '.items|length')" "0" "its contents are gone"

# ---- errors for unknown paths and methods ------------------------------------
req GET /api/v1/widgets
status_is 404 NotFound 'the server could not find the requested resource' "unknown resource: 404 Status"
req GET /internal/v1/secrets
is "$CODE" "404" "nothing else under /internal"
req POST /internal/v1/shim/events -H 'Content-Type: application/json' --data-binary '{}'
is "$CODE" "503" "shim events without a receiver: 503"
req POST /api/v1/nodes -H 'Content-Type: application/json' --data-binary '{"apiVersion":"v1","kind":"Node","metadata":{"name":"n"}}'
status_is 405 MethodNotAllowed 'the server does not allow this method on the requested resource' "nodes are read-only: 405"
req DELETE /version
is "$CODE $(jqr .reason)" "405 MethodNotAllowed" "wrong method on /version: 405"

# ---- restart keeps objects and revisions -----------------------------------
req GET $NS/pods/p1
before=$(jqr '.metadata.uid + " " + .metadata.resourceVersion')
api_stop
is "$?" "0" "SIGTERM: clean exit"
api_start "$AD" --bookmark-interval 1 --watch-log 50
req GET $NS/pods/p1
is "$(jqr '.metadata.uid + " " + .metadata.resourceVersion')" "$before" "after a restart the pod keeps uid and resourceVersion"

# a watch open at shutdown must not hold the daemon
curl -s -N "$API$NS/pods?watch=1" >"$AD/wopen" &
wo=$!
wopen() { grep -q '"type":"ADDED"' "$AD/wopen"; }
wait_for 60 wopen || diag "the watch did not open"
dpid=$API_PID
kill -TERM "$dpid"
ok wait_for 120 proc_gone "$dpid" "SIGTERM with an open watch: the daemon exits (the watch does not hold it)"
api_stop
ok wait_for 60 proc_gone "$wo" "and the watch's connection is closed"
ok bash -c "! grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' '$AD/daemon.log'" "no sanitizer reports in the daemon log"
done_testing
