#!/bin/bash
# covers: src/kinds/lws/ src/ctl/gang.c src/api/crd.c
# 89-lws.t — a leaderworkerset.x-k8s.io/v1 LeaderWorkerSet runs each group
# of `size` pods as ONE gang Slurm job, on a real two-node cluster with the
# real kubectl; the manifest is LWS's own docs/examples/sample/lws.yaml
# (t/89-lws/lws.yaml, v0.10.0), its image reference alone replaced by an
# image of a loopback docker-registry: busybox whose command
# (t/89-lws/serve.sh) serves HTTP (httpd on 8080 as nginx-unprivileged
# does, the next free port when pods share a node's network) after
# printing its LWS_* environment, and reaches its group by name.
#   - 3 groups x size 4: the pods' names, upstream's labels, annotations,
#     hostname/subdomain and environment; each group ONE Slurm job of both
#     nodes; a worker reaches its leader by LWS_LEADER_ADDRESS, the leader
#     each worker by its pod DNS name; Available, kubectl get's columns;
#   - a worker killed: its group's job cancelled, the group recreated as a
#     new Slurm job; the other groups untouched;
#   - kubectl scale lws 3 -> 2 (the scale subresource, its selector
#     status.hpaPodSelector) then a patch 2 -> 3: group 2's job cancelled,
#     then a new one; a scale past the LWS's limit is a 422;
#   - bad input: the webhook's and the schema's 422s naming the field;
#   - delete: every pod and Slurm job goes.
source "$(dirname "$0")/lib.sh"
plan 37

T=$(tmpdir)
on_exit "rm -rf '$T'"
start_registry "$T"
# (busybox is static: its name lookups load the C library's NSS modules,
# so the node's libc goes in with it, as getent's libraries)
push_busybox "$T" lws/server:v1 sh -c "for t in httpd env grep sort mkdir mktemp wget sleep timeout; do ln -s busybox bin/\$t; done;
  for f in \$(ldd /usr/bin/getent | grep -o '/[^ ]*'); do mkdir -p \".\$(dirname \$f)\" && cp -L \$f \".\$f\"; done;
  mkdir -p tmp && chmod 1777 tmp && cp '$ROOT/t/89-lws/serve.sh' bin/lws-serve && chmod 755 bin/lws-serve"
(umoci config --image "$T/oci:lws-server-v1" --config.entrypoint /bin/lws-serve &&
  skopeo copy --quiet --dest-tls-verify=false "oci:$T/oci:lws-server-v1" "docker://$REG/lws/server:v1") >"$T/cfg.log" 2>&1 ||
  bail "umoci config: $(cat "$T/cfg.log")"
cluster_up --nodes 2 --cpus 8 || bail "cluster up --nodes 2"
jp() { kc get "$1" -o jsonpath="$2" 2>&1; }
N=leaderworkerset-sample
sed "s|image: nginxinc/nginx-unprivileged:1.27|image: $REG/lws/server:v1|" "$(dirname "$0")/89-lws/lws.yaml" >"$T/lws.yaml"

# --- the example: 3 groups x size 4 ------------------------------------------------------------
is "$(kc apply -f "$T/lws.yaml" 2>&1)" "leaderworkerset.leaderworkerset.x-k8s.io/$N created" "kubectl apply -f LWS's sample"
pods() { kc get pods -l "leaderworkerset.sigs.k8s.io/name=$N" -o jsonpath='{range .items[*]}{.metadata.name} {end}' 2>&1; }
wait_for 30 eval '[ "$(pods | wc -w)" = 12 ]'
is "$(pods | tr ' ' '\n' | grep . | sort | tr '\n' ' ')" \
  "$N-0 $N-0-1 $N-0-2 $N-0-3 $N-1 $N-1-1 $N-1-2 $N-1-3 $N-2 $N-2-1 $N-2-2 $N-2-3 " "12 pods: leader <lws>-<g>, workers <lws>-<g>-<w>"
ok kc wait --for=condition=Available "lws/$N" --timeout=120s "kubectl wait --for=condition=Available" ||
  diag "$(kc get pods -o wide 2>&1; kc get events 2>&1 | tail -20)"
jobs_of() { squeue -h -o '%i %j %D %k' | awk -v n="default/$N" '$2 == n {print $1, $3, $4}'; }
jobs=$(jobs_of)
is "$(wc -l <<<"$jobs")|$(awk '{print $2}' <<<"$jobs" | sort -u)" "3|2" "squeue: ONE Slurm job per group, each of both nodes"
is "$(awk '{print $3}' <<<"$jobs" | sort -u)" "slurmlink:uid=$(jp "lws/$N" '{.metadata.uid}')" "... each carries the LWS's uid in its comment"
is "$(for n in $N-1 $N-1-1 $N-1-2 $N-1-3; do jp "pod/$n" '{.metadata.annotations.slurmlink\.io/job-id}{"\n"}'; done | sort -u | grep -c .)" 1 \
  "the four pods of group 1 are the one job"
is "$(squeue -h -o '%j %l' | awk -v n="default/$N" '$1 == n {print $2}' | sort -u)" UNLIMITED "no time limit of its own: a server runs until stopped"
like "$(kc explain lws.spec.leaderWorkerTemplate.size 2>&1)" "FIELD: size <integer>" "kubectl explain from the pinned CRD"
like "$(kc get lws "$N" 2>&1)" "NAME +READY +DESIRED +UP-TO-DATE +AGE"$'\n'"$N +3 +3 +3 +[0-9]+s" "kubectl get lws: the CRD's columns"
is "$(jp "pod/$N-1-2" '{.metadata.labels.leaderworkerset\.sigs\.k8s\.io/name} {.metadata.labels.leaderworkerset\.sigs\.k8s\.io/group-index} {.metadata.labels.leaderworkerset\.sigs\.k8s\.io/worker-index} {.metadata.annotations.leaderworkerset\.sigs\.k8s\.io/size} {.metadata.annotations.leaderworkerset\.sigs\.k8s\.io/leader-name} {.spec.hostname} {.spec.subdomain} {.metadata.ownerReferences[0].kind} {.metadata.ownerReferences[0].controller}')" \
  "$N 1 2 4 $N-1 $N-1-2 $N LeaderWorkerSet true" "upstream's labels, annotations, hostname/subdomain, controller ownerReference"
key=$(printf %s "default/$N-1" | sha1sum | cut -c1-40)
is "$(jp "pod/$N-1" '{.metadata.labels.leaderworkerset\.sigs\.k8s\.io/group-key}') $(jp "pod/$N-1-3" '{.metadata.labels.leaderworkerset\.sigs\.k8s\.io/group-key}')" "$key $key" "group-key: the SHA-1 of <ns>/<leader>, on every pod of the group"
is "$(kc logs "$N-1-2" 2>&1 | head -4 | tr '\n' ' ')" \
  "LWS_GROUP_SIZE=4 LWS_LEADER_ADDRESS=$N-1.$N.default LWS_NAME=$N LWS_WORKER_INDEX=2 " "a worker's LWS_* environment"
like "$(kc logs "$N-2" 2>&1)" "LWS_WORKER_INDEX=0" "... the leader's LWS_WORKER_INDEX 0"
reached() { [ "$(kc logs "$1" 2>&1 | grep -c '^reached ')" = "$2" ]; }
ok wait_for 60 reached "$N-1-3" 1 "worker 3 of group 1 reaches its leader by LWS_LEADER_ADDRESS: $(kc logs "$N-1-3" 2>&1 | grep reach)" ||
  diag "$(kc logs "$N-1-3" 2>&1 | grep -v bind; find "$CL" -name hosts -path "*$N-1-3*" -exec cat {} \; 2>&1; kc get pods -o wide 2>&1)"
ok wait_for 60 reached "$N-1" 3 "the leader of group 1 reaches its 3 workers by <leader>-<w>.<subdomain>.<ns>" ||
  diag "$(kc logs "$N-1" 2>&1)"
is "$(kc logs "$N-1" 2>&1 | grep '^reached' | tr '\n' ' ')" \
  "reached $N-1-1.$N.default reached $N-1-2.$N.default reached $N-1-3.$N.default " "... each by name"
is "$(jp "lws/$N" '{.status.replicas} {.status.readyReplicas} {.status.updatedReplicas} {.status.hpaPodSelector} {.status.conditions[?(@.type=="Available")].reason}')" \
  "3 3 3 leaderworkerset.sigs.k8s.io/name=$N,leaderworkerset.sigs.k8s.io/worker-index=0 AllGroupsReady" "status: replicas, readyReplicas, updatedReplicas, hpaPodSelector, Available"

# --- a worker killed: its group is recreated, a new Slurm job -------------------------------------
job_of() { jp "pod/$1" '{.metadata.annotations.slurmlink\.io/job-id}'; }
old1=$(job_of "$N-1") old0=$(job_of "$N-0") uid1=$(jp "pod/$N-1" '{.metadata.uid}')
# the worker's processes: those whose environment is worker 2 of group 1's
victims=$(grep -l -a -z -x "LWS_LEADER_ADDRESS=$N-1.$N.default" /proc/[0-9]*/environ 2>/dev/null |
  xargs -r grep -l -a -z -x "LWS_WORKER_INDEX=2" 2>/dev/null | cut -d/ -f3 | tr '\n' ' ')
ok [ -n "$victims" ] "worker 2 of group 1 has processes ($victims)"
kill -9 $victims 2>/dev/null
gone_job() { ! squeue -h -j "$1" -t PD,R,CG 2>/dev/null | grep -q .; }
ok wait_for 60 gone_job "$old1" "its group's Slurm job $old1 is cancelled"
renewed() { local j; j=$(job_of "$N-1-2"); [ -n "$j" ] && [ "$j" != "$old1" ] && [ "$(phase_of "$N-1-2")" = Running ] &&
  [ "$(jp "pod/$N-1" '{.metadata.uid}')" != "$uid1" ]; }
ok wait_for 90 renewed "the group is recreated: new pods, a new Slurm job $(job_of "$N-1-2")" ||
  diag "$(kc get pods 2>&1; squeue 2>&1)"
is "$(job_of "$N-0")" "$old0" "... group 0's job untouched"
like "$(kc get events --field-selector "involvedObject.name=$N" -o jsonpath='{range .items[*]}{.reason} {end}' 2>&1)" \
  "RecreateGroupOnPodRestart" "an event on the LWS says why"
ok kc wait --for=condition=Available "lws/$N" --timeout=90s "... and it is Available again"

# --- scale: a removed group's job cancelled, an added one a new job --------------------------------
old2=$(job_of "$N-2")
sc=$(kc get --raw "/apis/leaderworkerset.x-k8s.io/v1/namespaces/default/leaderworkersets/$N/scale" 2>&1)
like "$sc" '"kind":"Scale".*"spec":\{"replicas":3\},"status":\{"replicas":3,"selector":"leaderworkerset.sigs.k8s.io/name='"$N"',leaderworkerset.sigs.k8s.io/worker-index=0"\}' \
  "the scale subresource: replicas, and status.hpaPodSelector as the selector" || diag "$sc"
is "$(kc scale lws "$N" --replicas=2 2>&1)" "leaderworkerset.leaderworkerset.x-k8s.io/$N scaled" "kubectl scale lws --replicas=2"
two() { [ "$(pods | wc -w)" = 8 ] && gone_job "$old2"; }
ok wait_for 60 two "replicas 3 -> 2: group 2's pods deleted, its Slurm job $old2 cancelled"
like "$(kc get lws "$N" 2>&1)" "$N +2 +2 +2 " "... READY 2 DESIRED 2"
like "$(kc scale lws "$N" --replicas=20000 2>&1)" 'spec.replicas: Invalid value: 20000' "kubectl scale past the LWS's limit: 422 naming spec.replicas"
is "$(jp "lws/$N" '{.spec.replicas}')" 2 "... and spec.replicas is unchanged"
kc patch lws "$N" --type=merge -p '{"spec":{"replicas":3}}' >/dev/null
ok kc wait --for=condition=Available "lws/$N" --timeout=90s "replicas 2 -> 3: Available again"
is "$(jobs_of | wc -l)" 3 "... three groups, three Slurm jobs"

# --- bad input ---------------------------------------------------------------------------------------
bad() { sed "s|^  replicas: 3|  replicas: 3\n$1|" "$T/lws.yaml" | sed "s/name: $N/name: bad/" | kc apply -f - 2>&1; }
out=$(sed -e 's/size: 4/size: 0/' -e "s/name: $N/name: bad/" "$T/lws.yaml" | kc apply -f - 2>&1)
like "$out" 'The LeaderWorkerSet "bad" is invalid: spec.leaderWorkerTemplate.size: Invalid value: 0: size must be equal or greater than 1' "size 0: 422 naming the field"
like "$(bad '  startupPolicy: Later')" 'spec.startupPolicy: Unsupported value: "Later": supported values: "LeaderCreated", "LeaderReady"' "an unknown startupPolicy: 422"
like "$(bad '  rolloutStrategy: {rollingUpdateConfiguration: {maxUnavailable: 0, maxSurge: 0}}')" \
  'spec.rolloutStrategy.rollingUpdateConfiguration.maxUnavailable: Invalid value: "0": must not be 0 when `maxSurge` is 0' "maxUnavailable and maxSurge 0: the webhook's 422"
like "$(bad '  replicaz: 1')" 'unknown field "spec.replicaz"' "an unknown field: strict decoding"
is "$(kc get lws bad -o name 2>&1)" 'Error from server (NotFound): leaderworkersets.leaderworkerset.x-k8s.io "bad" not found' "... nothing half-created"

# --- delete: every pod and Slurm job goes --------------------------------------------------------------
ids=$(jobs_of | awk '{print $1}' | tr '\n' ' ')
kc delete lws "$N" >/dev/null 2>&1
over() { [ -z "$(pods)" ] && for j in $ids; do gone_job "$j" || return 1; done; }
ok wait_for 60 over "kubectl delete lws: its 12 pods and Slurm jobs ($ids) are gone"
