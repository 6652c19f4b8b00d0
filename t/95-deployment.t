#!/bin/bash
# covers: src/kinds/deployment/ src/kinds/replicaset/ src/api/scale.c
# 95-deployment.t — apps/v1 Deployments and ReplicaSets on a real cluster
# (slurmctld, slurmd, kubectl), each replica an ordinary pod and Slurm job:
#   - a Deployment of 2 busybox httpd replicas from a registry image: both
#     Running as 2 Slurm jobs, kubectl's columns, its ReplicaSet;
#   - kubectl scale to 3 (the scale subresource): a third Slurm job;
#   - scancel of one replica's job: the pod is replaced;
#   - kubectl set image: a rolling update during which a watch of the pods
#     never sees a moment without a Ready replica; rollout status, history,
#     undo, restart;
#   - describe, edit, rollout pause (no new ReplicaSet) and resume;
#   - slurmlinkd killed (SIGKILL) right after a scale to 4: 4 pods and 4
#     Slurm jobs after its restart, no more;
#   - bad input: 422s naming the field; kubectl create deployment
#     (protobuf) with kubectl 1.30 and 1.33;
#   - delete: background takes the ReplicaSets, pods and Slurm jobs;
#     --cascade=orphan keeps them, and the Deployment made again adopts them.
source "$(dirname "$0")/lib.sh"
plan 38

T=$(tmpdir)
on_exit "rm -rf '$T'"
start_registry "$T"
push_busybox "$T" team/web:v1
push_busybox "$T" team/web:v2
cluster_up --cpus 8 || bail "cluster up"
SDK=/usr/lib/google-cloud-sdk/bin

jp() { kc get "$1" -o jsonpath="$2" 2>&1; }
deploy() { # name replicas image
  cat <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: $1, annotations: {kubernetes.io/change-cause: "image $3"}}
spec:
  replicas: $2
  selector: {matchLabels: {app: $1}}
  template:
    metadata: {labels: {app: $1}, annotations: {slurmlink.io/runtime: charliecloud}}
    spec:
      terminationGracePeriodSeconds: 2
      containers:
      - name: httpd
        image: $3
        command: [/bin/busybox, httpd, -f, -p, "127.0.0.1:0"]
YAML
}
# running pods of app $1 that are Ready and not being deleted
ready_count() {
  kc get pods -l app="$1" -o jsonpath='{range .items[*]}{.metadata.deletionTimestamp}|{.status.phase}|{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' 2>/dev/null |
    grep -c '^|Running|True$'
}
npods() { kc get pods -l app="$1" -o name 2>/dev/null | grep -c .; }
# Slurm jobs running or pending of the cluster
njobs() { squeue -h -t PD,R,CG -o %i 2>/dev/null | grep -c .; }
settled() { # app replicas: that many pods, all ready, and as many Slurm jobs
  [ "$(npods "$1")" = "$2" ] && [ "$(ready_count "$1")" = "$2" ] && [ "$(njobs)" = "${3:-$2}" ]
}

deploy web 2 "$REG/team/web:v1" | kc apply -f - >/dev/null
ok wait_for 120 settled web 2 "a Deployment of 2: both pods Running and Ready, 2 Slurm jobs" ||
  diag "$(kc get deploy,rs,pods -o wide 2>&1; squeue 2>&1)"
like "$(kc get deploy web 2>&1)" $'^NAME +READY +UP-TO-DATE +AVAILABLE +AGE\nweb +2/2 +2 +2 +[0-9]+s$' \
  "kubectl get deployment: NAME READY UP-TO-DATE AVAILABLE AGE"
rs1=$(kc get rs -l app=web -o jsonpath='{.items[0].metadata.name}')
like "$(kc get rs "$rs1" 2>&1)" $'^NAME +DESIRED +CURRENT +READY +AGE\nweb-[a-z0-9]+ +2 +2 +2 +[0-9]+s$' \
  "its ReplicaSet web-<hash>: DESIRED CURRENT READY AGE"
jobids=$(kc get pods -l app=web -o jsonpath='{range .items[*]}{.metadata.annotations.slurmlink\.io/job-id}{"\n"}{end}' | sort -u | grep -c '^[0-9]')
is "$jobids" 2 "each replica its own Slurm job"
is "$(kc get pods -l app=web -o jsonpath='{range .items[*]}{.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}/{.metadata.ownerReferences[0].controller} {.metadata.labels.pod-template-hash}{"\n"}{end}' | sort -u)" \
  "ReplicaSet/$rs1/true ${rs1#web-}" "pods: controller ownerReference to the ReplicaSet, its pod-template-hash label"

is "$(kc scale deployment web --replicas=3 2>&1)" "deployment.apps/web scaled" "kubectl scale --replicas=3"
ok wait_for 90 settled web 3 "3 replicas Running, a third Slurm job" ||
  diag "$(kc get deploy,rs,pods -o wide 2>&1; squeue 2>&1)"
is "$(kc get --raw /apis/apps/v1/namespaces/default/deployments/web/scale | jq -c '[.kind, .apiVersion, .spec.replicas, .status.selector]')" \
  '["Scale","autoscaling/v1",3,"app=web"]' "GET .../deployments/web/scale: an autoscaling/v1 Scale"

victim=$(kc get pods -l app=web -o jsonpath='{.items[0].metadata.name}')
vjob=$(jp "pod/$victim" '{.metadata.annotations.slurmlink\.io/job-id}')
scancel "$vjob"
gone_or_failed() { p=$(phase_of "$victim"); [ -z "$p" ] || [ "$p" = Failed ]; }
ok wait_for 90 eval 'gone_or_failed && settled web 3' "scancel of one replica's job: the pod is replaced, 3 Ready again" ||
  diag "$(kc get pods -o wide 2>&1; squeue 2>&1)"

# the rolling update, watched: the pods' Ready, event by event
kc get pods -l app=web -w -o jsonpath='{.metadata.name}|{.metadata.deletionTimestamp}|{.status.conditions[?(@.type=="Ready")].status}{"\n"}' >"$T/watch" 2>&1 &
WPID=$!
on_exit "kill $WPID 2>/dev/null"
wait_for 30 eval '[ "$(wc -l <"$T/watch")" -ge 3 ]'
is "$(kc set image deployment/web httpd="$REG/team/web:v2" 2>&1)" "deployment.apps/web image updated" "kubectl set image"
ok kc rollout status deployment/web --timeout=120s "kubectl rollout status: the rollout completes"
ok wait_for 60 eval 'settled web 3 && [ -z "$(kc get pods -l app=web -o jsonpath="{.items[*].spec.containers[0].image}" | tr " " "\n" | grep -v web:v2)" ]' \
  "3 replicas of the new image, 3 Slurm jobs (the old ones ended)"
kill $WPID 2>/dev/null
# Ready and not being deleted, counted after each event once the first 3 were seen
min=$(awk -F'|' '{ if ($2 == "" && $3 == "True") r[$1] = 1; else delete r[$1]; n = 0; for (k in r) n++; if (n >= 3) on = 1; if (on && (m == "" || n < m)) m = n } END { print m }' "$T/watch")
ok [ "${min:-0}" -ge 3 ] "over the rollout never fewer Ready replicas than replicas - maxUnavailable (3), so never none (fewest: ${min:-none})" ||
  diag "$(cat "$T/watch")"
like "$(kc rollout history deployment/web 2>&1)" $'REVISION +CHANGE-CAUSE\n1 +image [^\n]*web:v1\n2 +' \
  "kubectl rollout history: revisions 1 and 2"
is "$(kc rollout undo deployment/web 2>&1)" "deployment.apps/web rolled back" "kubectl rollout undo"
ok wait_for 120 eval 'kc rollout status deployment/web --timeout=5s >/dev/null 2>&1 && [ "$(jp deploy/web "{.spec.template.spec.containers[0].image}")" = "$REG/team/web:v1" ] && [ "$(jp deploy/web "{.metadata.annotations.deployment\.kubernetes\.io/revision}")" = 3 ]' \
  "undo: the v1 template back as revision 3, rolled out"
is "$(kc rollout restart deployment/web 2>&1)" "deployment.apps/web restarted" "kubectl rollout restart"
ok wait_for 120 eval 'kc rollout status deployment/web --timeout=5s >/dev/null 2>&1 && [ "$(jp deploy/web "{.metadata.annotations.deployment\.kubernetes\.io/revision}")" = 4 ] && settled web 3' \
  "restart: a new ReplicaSet (revision 4), its 3 pods Ready, 3 Slurm jobs"
like "$(jp deploy/web '{range .status.conditions[*]}{.type}={.status}/{.reason} {end}')" \
  'Available=True/MinimumReplicasAvailable Progressing=True/NewReplicaSetAvailable' "conditions with kube's reasons"

# describe, edit, pause and resume
like "$(kc describe deployment web 2>&1)" "StrategyType: +RollingUpdate.*NewReplicaSet: +web-[a-z0-9]+ \\(3/3 replicas created\\)" \
  "kubectl describe deployment: strategy, the new ReplicaSet" || diag "$(kc describe deployment web 2>&1)"
is "$(EDITOR="sed -i s/revisionHistoryLimit:\ 10/revisionHistoryLimit:\ 5/" kc edit deployment web 2>&1) $(jp deploy/web '{.spec.revisionHistoryLimit}')" \
  "deployment.apps/web edited 5" "kubectl edit (the editor sets revisionHistoryLimit)"
is "$(kc rollout pause deployment/web 2>&1)" "deployment.apps/web paused" "kubectl rollout pause"
nrs=$(kc get rs -l app=web -o name | wc -l)
kc set image deployment/web httpd="$REG/team/web:v2" >/dev/null
after_job_polls 2 >/dev/null
is "$(kc get rs -l app=web -o name | wc -l) $(jp deploy/web '{.status.conditions[?(@.type=="Progressing")].reason}')" \
  "$nrs DeploymentPaused" "paused: the new template makes no ReplicaSet, Progressing DeploymentPaused"
kc rollout resume deployment/web >/dev/null
ok wait_for 120 eval 'kc rollout status deployment/web --timeout=5s >/dev/null 2>&1 && [ "$(jp deploy/web "{.metadata.annotations.deployment\.kubernetes\.io/revision}")" = 5 ] && settled web 3' \
  "resumed: the rollout to revision 5 completes"

# slurmlinkd killed right after a scale: no pod or job beyond the replicas
kc scale deployment web --replicas=4 >/dev/null
ok restart_with_fault "" "slurmlinkd killed (SIGKILL) and started again"
ok wait_for 120 settled web 4 "after the restart: 4 pods, 4 Slurm jobs" ||
  diag "$(kc get pods -o wide 2>&1; squeue 2>&1)"
after_job_polls 3 >/dev/null
is "$(npods web) $(njobs)" "4 4" "and no more a few polls later"

# bad input
bad() { deploy bad 1 "$REG/team/web:v1" | sed "$1" | kc apply -f - 2>&1; }
like "$(bad 's/matchLabels: {app: bad}/matchLabels: {app: other}/')" \
  'The Deployment "bad" is invalid: spec.template.metadata.labels: Invalid value: .*`selector` does not match template `labels`' \
  "422: the selector must match the template's labels"
like "$(bad 's/replicas: 1/replicas: -1/')" 'spec.replicas: Invalid value: -1: must be greater than or equal to 0' \
  "422: negative replicas"
like "$(bad 's/^spec:/spec:\n  strategy: {rollingUpdate: {maxSurge: 0, maxUnavailable: 0}}/')" \
  'spec.strategy.rollingUpdate.maxUnavailable: Invalid value: 0: may not be 0 when `maxSurge` is 0' \
  "422: maxSurge and maxUnavailable both 0"
like "$(kc patch deployment web --type=merge -p '{"spec":{"selector":{"matchLabels":{"app":"web","x":"y"}},"template":{"metadata":{"labels":{"app":"web","x":"y"}}}}}' 2>&1)" \
  'spec.selector: Invalid value: .*field is immutable' "422: the selector is immutable"
like "$(kc patch deployment web --subresource=scale --type=merge -p '{"spec":{"replicas":-1}}' 2>&1)" \
  'The Scale "web" is invalid: spec.replicas: Invalid value: -1: must be greater than or equal to 0' \
  "422 from the scale subresource for -1"
is "$(kc get deploy -o name 2>&1 | tr '\n' ' ')" "deployment.apps/web " "nothing half-created by the refusals"

# kubectl create deployment (protobuf) with two other kubectl versions
for v in 1.30 1.33; do
  n=c${v//./}
  out=$("$SDK/kubectl.$v" --cache-dir "$CL/kcache" create deployment "$n" --image="$REG/team/web:v1" --replicas=1 -- /bin/busybox httpd -f -p 127.0.0.1:0 2>&1)
  is "$out" "deployment.apps/$n created" "kubectl $v create deployment"
done

# delete: background takes the ReplicaSets, pods and jobs; orphan keeps them
kc delete deployment c130 --cascade=orphan >/dev/null 2>&1
kc delete deployment c133 >/dev/null 2>&1
kc delete deployment web >/dev/null 2>&1
ok wait_for 90 eval '[ -z "$(kc get rs,pods -l app=web -o name 2>&1)" ] && [ -z "$(kc get rs,pods -l app=c133 -o name 2>&1)" ] && [ "$(njobs)" = 1 ]' \
  "delete: its ReplicaSets, pods and Slurm jobs go with it" ||
  diag "$(kc get deploy,rs,pods 2>&1; squeue 2>&1)"
is "$(kc get rs -l app=c130 -o jsonpath='{.items[0].spec.replicas} {.items[0].metadata.ownerReferences}' 2>&1)" "1 " \
  "--cascade=orphan: its ReplicaSet stays, without the ownerReference"
pod=$(kc get pods -l app=c130 -o jsonpath='{.items[0].metadata.name}')
kc create deployment c130 --image="$REG/team/web:v1" --replicas=1 -- /bin/busybox httpd -f -p 127.0.0.1:0 >/dev/null 2>&1
ok wait_for 60 eval '[ "$(kc get rs -l app=c130 -o jsonpath="{range .items[*]}{.metadata.ownerReferences[0].name}/{.spec.replicas} {end}")" = "c130/1 " ] && [ "$(kc get deploy c130 -o jsonpath={.status.availableReplicas})" = 1 ] && [ "$(kc get pods -l app=c130 -o jsonpath={.items[*].metadata.name})" = "$pod" ]' \
  "the same Deployment created again adopts the orphaned ReplicaSet and its running pod" ||
  diag "$(kc get deploy,rs,pods -o wide 2>&1)"
