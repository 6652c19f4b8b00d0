#!/bin/bash
# covers: src/api/ src/kinds/job/controller.c
# 51-kubectl.t — an unmodified kubectl against slurmlinkd, through the
# commands of kubectl-wire.md: apply (created/unchanged/configured), create
# (AlreadyExists), get in every output form, get -w, wait, describe, logs,
# delete, api-resources. Run with the dispatcher's default (1.32) and with
# kubectl 1.30 and 1.33 pinned. No Slurm: status and logs are written the
# way the lifecycle controller and the shim write them.
source "$(dirname "$0")/50-api-lib.sh"
plan 113

api_up || bail "slurmlinkd up"
SDK=/usr/lib/google-cloud-sdk/bin

pod_yaml() { # name label [extra container yaml]
  cat <<EOF
apiVersion: v1
kind: Pod
metadata:
  name: $1
  labels: {app: $2}
spec:
  containers:
  - name: main
    image: busybox
    command: ["sh", "-c", "echo hi"]
EOF
}

run_suite() { # tag: suffix for object names
  local v=$1 out rc
  local p=p-$v ns=ns-$v
  out=$(k create namespace "$ns" 2>&1); rc=$?
  is "$rc: $out" "0: namespace/$ns created" "[$v] create namespace"
  export KN="--namespace=$ns"

  pod_yaml "$p" web >"$AD/$p.yaml"
  is "$(k $KN apply -f "$AD/$p.yaml" 2>&1)" "pod/$p created" "[$v] apply creates"
  is "$(k $KN apply -f "$AD/$p.yaml" 2>&1)" "pod/$p unchanged" "[$v] apply again: unchanged"
  sed -i 's/app: web/app: web2/' "$AD/$p.yaml"
  is "$(k $KN apply -f "$AD/$p.yaml" 2>&1)" "pod/$p configured" "[$v] apply after a label change: configured"
  is "$(k $KN get pod "$p" -o jsonpath='{.metadata.labels.app}')" "web2" "[$v] the label changed"
  out=$(k $KN create -f "$AD/$p.yaml" 2>&1); rc=$?
  is "$rc: $out" "1: Error from server (AlreadyExists): error when creating \"$AD/$p.yaml\": pods \"$p\" already exists" "[$v] create twice: AlreadyExists"
  sed 's/image: busybox/imagee: busybox/; s/name: '"$p"'$/name: bad-'"$v"'/' "$AD/$p.yaml" >"$AD/bad.yaml"
  out=$(k $KN apply -f "$AD/bad.yaml" 2>&1); rc=$?
  is "$rc: $out" "1: Error from server (BadRequest): error when creating \"$AD/bad.yaml\": Pod in version \"v1\" cannot be handled as a Pod: strict decoding error: unknown field \"spec.containers[0].imagee\"" \
    "[$v] unknown field refused at the default --validate=strict"

  # status as the lifecycle controller would set it
  set_status "$ns" "$p" '{"phase":"Running","podIP":"10.1.0.7","conditions":[{"type":"Ready","status":"True"}],"containerStatuses":[{"name":"main","ready":true,"restartCount":0,"image":"busybox","imageID":"","started":true,"state":{"running":{"startedAt":"'"$(now_rfc3339)"'"}}}]}'
  out=$(k $KN get pods)
  like "$out" $'^NAME +READY +STATUS +RESTARTS +AGE\n'"$p"' +1/1 +Running +0 +[0-9]+s$' "[$v] get pods"
  like "$(k $KN get po -o wide)" "^NAME +READY +STATUS +RESTARTS +AGE +IP +NODE +NOMINATED NODE +READINESS GATES"$'\n'"$p +1/1 +Running +0 +[0-9]+s +10\.1\.0\.7 +<none> +<none> +<none>$" "[$v] get -o wide (short name po)"
  like "$(k $KN get pod "$p" -o yaml)" $'(^|\n)kind: Pod\n' "[$v] get -o yaml"
  is "$(k $KN get pod "$p" -o json | jq -r '.kind + " " + .status.podIP')" "Pod 10.1.0.7" "[$v] get -o json"
  is "$(k $KN get pods -o jsonpath='{.items[*].metadata.name}')" "$p" "[$v] get -o jsonpath"
  like "$(k get pods -A)" "(^|"$'\n'")$ns +$p +1/1 +Running" "[$v] get -A shows the namespace column"
  like "$(k $KN get pods --show-labels)" "$p .* app=web2$" "[$v] get --show-labels"
  is "$(k $KN get pods -l app=web2 -o name)" "pod/$p" "[$v] get -l"
  is "$(k $KN get pods -l app=nothing 2>&1)" "No resources found in $ns namespace." "[$v] get -l with no match"
  is "$(k $KN get pods --field-selector status.phase=Running -o name)" "pod/$p" "[$v] get --field-selector"

  # get -w: the list, then one line per change
  timeout 120 "$KUBECTL" --cache-dir "$AD/cache-$(basename "$KUBECTL")" $KN get pods -w >"$AD/w.out" 2>&1 &
  local wp=$!
  # the watch is open once the list is printed; the change is one more line
  wlines() { [ "$(grep -c "^$p " "$AD/w.out")" -ge "$1" ]; }
  wait_for 60 wlines 1 || diag "[$v] get -w printed no list"
  k $KN label pod "$p" seen=yes >/dev/null
  wait_for 60 wlines 2 || diag "[$v] get -w printed no change"
  kill $wp; wait $wp
  like "$(cat "$AD/w.out")" "^NAME +READY +STATUS +RESTARTS +AGE"$'\n'"$p +1/1 +Running +0 +[0-9]+s"$'\n'"$p +1/1 +Running +0 +[0-9]+s" "[$v] get -w prints the change"

  # wait: condition and jsonpath, satisfied after the wait has started
  set_status "$ns" "$p" '{"conditions":[{"type":"Ready","status":"False"}]}'
  (sleep 1; set_status "$ns" "$p" '{"conditions":[{"type":"Ready","status":"True"}]}') &
  local sp1=$!
  out=$(k $KN wait --for=condition=Ready "pod/$p" --timeout=10s 2>&1); rc=$?
  is "$rc: $out" "0: pod/$p condition met" "[$v] wait --for=condition=Ready"
  # (a field other than the phase: a Succeeded pod cannot run again, and
  # the pod is followed as a running one below)
  (sleep 1; set_status "$ns" "$p" '{"podIP":"10.1.0.8"}') &
  local sp2=$!
  out=$(k $KN wait --for=jsonpath='{.status.podIP}'=10.1.0.8 "pod/$p" --timeout=10s 2>&1); rc=$?
  is "$rc: $out" "0: pod/$p condition met" "[$v] wait --for=jsonpath"
  wait $sp1 $sp2

  # describe lists the pod's events (found by involvedObject field selectors)
  local uid
  uid=$(k $KN get pod "$p" -o jsonpath='{.metadata.uid}')
  cat >"$AD/ev.yaml" <<EOF
apiVersion: v1
kind: Event
metadata: {name: $p.e1}
involvedObject: {kind: Pod, name: $p, namespace: $ns, uid: "$uid", apiVersion: v1}
reason: Started
message: Started container main
type: Normal
count: 2
firstTimestamp: "$(now_rfc3339)"
lastTimestamp: "$(now_rfc3339)"
source: {component: slurmlink-controller}
EOF
  k $KN create -f "$AD/ev.yaml" >/dev/null
  like "$(k $KN describe pod "$p")" $'Events:\n  Type +Reason +Age +From +Message\n  ---- +------ +---- +---- +-------\n  Normal +Started +[0-9]+s \\(x2 over [0-9]+s\\) +slurmlink-controller +Started container main' \
    "[$v] describe lists the events"
  like "$(k $KN get events)" $'^LAST SEEN +TYPE +REASON +OBJECT +MESSAGE\n[0-9]+s +Normal +Started +pod/'"$p"' +Started container main$' "[$v] get events"

  # logs from the shim's CRI files
  cri_log "$ns" "$p" main 0 "2020-01-01T12:00:00.100000000Z stdout F line one" \
    "2020-01-01T12:00:01.000000000Z stdout P part-" "2020-01-01T12:00:01.500000000Z stdout F two" \
    "2099-01-01T00:00:00.000000000Z stderr F future"
  is "$(k $KN logs "$p")" $'line one\npart-two\nfuture' "[$v] logs"
  is "$(k $KN logs "$p" --tail=1)" "future" "[$v] logs --tail"
  is "$(k $KN logs "$p" --timestamps | head -2)" $'2020-01-01T12:00:00.1Z line one\n2020-01-01T12:00:01Z part-two' "[$v] logs --timestamps"
  is "$(k $KN logs "$p" --since=1h)" "future" "[$v] logs --since"
  # -f: follows until the container has ended
  set_status "$ns" "$p" '{"phase":"Running","containerStatuses":[{"name":"main","ready":true,"restartCount":0,"image":"busybox","imageID":"","state":{"running":{"startedAt":"'"$(now_rfc3339)"'"}}}]}'
  k $KN logs -f "$p" >"$AD/f.out" 2>&1 &
  local lp=$!
  # following once the current lines are out; the new line, then the end
  fhas() { grep -q "^$1\$" "$AD/f.out"; }
  wait_for 60 fhas future || diag "[$v] logs -f printed nothing"
  cri_log "$ns" "$p" main 0 "2099-01-01T00:00:01.000000000Z stdout F appended"
  wait_for 60 fhas appended || diag "[$v] logs -f did not print the new line"
  set_status "$ns" "$p" '{"phase":"Succeeded","containerStatuses":[{"name":"main","ready":false,"restartCount":0,"image":"busybox","imageID":"","state":{"terminated":{"exitCode":0,"reason":"Completed"}}}]}'
  ok wait_for 60 proc_gone $lp "[$v] logs -f ends when the container ends"
  wait $lp
  is "$(tail -1 "$AD/f.out")" "appended" "[$v] logs -f streams new lines"
  like "$(k $KN get pod "$p")" "$p +0/1 +Completed +0 " "[$v] STATUS Completed"

  # delete: returns once the pod is gone
  pod_yaml "j-$v" job >"$AD/j.yaml"
  k $KN apply -f "$AD/j.yaml" >/dev/null
  k $KN annotate pod "j-$v" slurmlink.io/job-id=42 >/dev/null
  set_status "$ns" "j-$v" '{"phase":"Running"}'
  k $KN delete pod "j-$v" >"$AD/d.out" 2>&1 &
  local dp=$!
  terminating() { [[ "$(k $KN get pod "j-$v" 2>&1)" =~ Terminating ]]; }
  wait_for 60 terminating || diag "[$v] the pod did not become Terminating"
  like "$(k $KN get pod "j-$v")" "j-$v +0/1 +Terminating" "[$v] a pod with a Slurm job is Terminating while the job ends"
  ok kill -0 $dp "[$v] kubectl delete waits"
  curl -sf -X DELETE "$API/api/v1/namespaces/$ns/pods/j-$v?gracePeriodSeconds=0" >/dev/null # the controller, job gone
  wait $dp
  is "$?: $(cat "$AD/d.out")" "0: pod \"j-$v\" deleted" "[$v] delete returns after the pod is gone"
  out=$(k $KN delete pod "$p" 2>&1)
  is "$out" "pod \"$p\" deleted" "[$v] delete a finished pod"
  out=$(k $KN delete pod "$p" 2>&1); rc=$?
  is "$rc: $out" "1: Error from server (NotFound): pods \"$p\" not found" "[$v] delete a missing pod"
  out=$(k delete namespace "$ns" 2>&1); rc=$?
  is "$rc: $out" "0: namespace \"$ns\" deleted" "[$v] delete the namespace"
}

for v in default 1.30 1.33; do
  if [ $v = default ]; then KUBECTL=kubectl; else KUBECTL=$SDK/kubectl.$v; fi
  run_suite "${v//./}"
done

KUBECTL=kubectl
like "$(k api-resources)" $'NAME +SHORTNAMES +APIVERSION +NAMESPACED +KIND\nconfigmaps +cm +v1 +true +ConfigMap\nendpoints +ep +v1 +true +Endpoints\nevents +ev +v1 +true +Event\nnamespaces +ns +v1 +false +Namespace\nnodes +no +v1 +false +Node\npersistentvolumeclaims +pvc +v1 +true +PersistentVolumeClaim\npersistentvolumes +pv +v1 +false +PersistentVolume\npods +po +v1 +true +Pod\nresourcequotas +quota +v1 +true +ResourceQuota\nsecrets +v1 +true +Secret\nserviceaccounts +sa +v1 +true +ServiceAccount\nservices +svc +v1 +true +Service\ndeployments +deploy +apps/v1 +true +Deployment\nreplicasets +rs +apps/v1 +true +ReplicaSet\nstatefulsets +sts +apps/v1 +true +StatefulSet\nselfsubjectreviews +authentication.k8s.io/v1 +false +SelfSubjectReview\nselfsubjectaccessreviews +authorization.k8s.io/v1 +false +SelfSubjectAccessReview\nselfsubjectrulesreviews +authorization.k8s.io/v1 +false +SelfSubjectRulesReview\nsubjectaccessreviews +authorization.k8s.io/v1 +false +SubjectAccessReview\ncronjobs +cj +batch/v1 +true +CronJob\njobs +batch/v1 +true +Job' \
  "api-resources"
is "$(k get nodes 2>&1)" "No resources found" "get nodes (none yet without the node controller)"
like "$(k get namespaces)" $'^NAME +STATUS +AGE\ndefault +Active +[0-9]+s\nkube-public +Active' "get namespaces"
is "$(k apply --server-side -f "$AD/j.yaml" 2>&1)" "pod/j-133 serverside-applied" "apply --server-side"
cat >"$AD/list.json" <<'EOF'
{"apiVersion":"v1","kind":"List","items":[
 {"apiVersion":"v1","kind":"Pod","metadata":{"name":"l1"},"spec":{"containers":[{"name":"c","image":"busybox"}]}},
 {"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"l2"},"data":{"a":"b"}}]}
EOF
is "$(k apply -f "$AD/list.json" 2>&1)" $'pod/l1 created\nconfigmap/l2 created' "apply a v1 List manifest"
is "$(k apply -f "$AD/list.json" 2>&1)" $'pod/l1 unchanged\nconfigmap/l2 unchanged' "apply the List again: unchanged"
sed -i 's/"image":"busybox"/"imagee":"busybox"/; s/"l1"/"l3"/' "$AD/list.json"
like "$(k apply -f "$AD/list.json" 2>&1)" 'Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "spec.containers\[0\].imagee"' "List items are validated strictly"
is "$(k version -o json | jq -r .serverVersion.minor)" "32" "kubectl version sees the server"
done_testing
