#!/bin/bash
# covers: src/kinds/deployment/ src/kinds/replicaset/ src/api/scale.c src/api/admission.c
# 95-deployment-tenants.t — Deployments of real tenants (Unix users, HTTPS,
# a certificate and a token; docs/security.md): quota, policy and identity
# as for their own pods:
#   - alice's Deployment: its replicas run as her Unix user (their `id -u`),
#     each a Slurm job of her uid;
#   - a ResourceQuota of 2 pods in team-a and a Deployment of 3: 2 pods, the
#     third refused (ReplicaSet condition ReplicaFailure, FailedCreate),
#     made once the quota allows;
#   - bob can neither scale alice's Deployment (403 on deployments/scale)
#     nor read it; alice cannot write its status;
#   - a forged slurmlink.io/user in the template is not the pods' identity;
#   - in a namespace both write, bob can neither scale alice's Deployment
#     (its scale subresource) nor change its image: 403;
#   - a runAsUser other than alice's uid in the template: 422 naming the
#     field, nothing stored.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/61-security-lib.sh"
plan 13

sec_users || bail "Unix users for the test"
sec_cluster --token --gpus 0 --cpus 4 <<EOF || bail "slurmlink up, the tenants' kubeconfigs"
adminGroups: [system:masters]
cluster:
  read: {groups: [system:authenticated]}
namespaces:
  team-a: {write: {users: [alice]}}
  team-b: {write: {users: [bob]}}
  shared: {write: {users: [alice, bob]}}
users:
  admin: nobody
  alice: $UA
  bob: $UB
EOF
for ns in team-a team-b shared; do ka create namespace $ns >/dev/null; done
dep() { # name replicas [extra template annotation line]
  cat <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: $1, namespace: team-a}
spec:
  replicas: $2
  selector: {matchLabels: {app: $1}}
  template:
    metadata:
      labels: {app: $1}
      annotations: {slurmlink.io/runtime: host${3:+, $3}}
    spec:
      terminationGracePeriodSeconds: 1
      containers:
      - {name: c, image: busybox, command: [sh, -c, "id -u; exec sleep 100000"]}
YAML
}
ready_pods() { # app
  kc alice get pods -l app="$1" -o jsonpath='{range .items[*]}{.metadata.deletionTimestamp}|{.status.phase}{"\n"}{end}' 2>/dev/null | grep -c '^|Running$'
}

is "$(dep web 2 | kc alice apply -f - 2>&1)" "deployment.apps/web created" "alice creates a Deployment in team-a"
ok wait_for 90 eval '[ "$(ready_pods web)" = 2 ]' "its 2 replicas run" ||
  diag "$(ka get deploy,rs,pods -n team-a -o wide 2>&1; squeue 2>&1)"
logs=$(for p in $(kc alice get pods -l app=web -o name); do kc alice logs "$p"; done | sort -u | tr '\n' ' ')
is "$logs" "$UIDA " "each replica ran as alice's Unix user ($UA)"
is "$(squeue -h -o '%j %U' | awk '$1 ~ /^team-a\/web-/ {print $2}' | sort | uniq -c | awk '{print $1, $2}')" "2 $UIDA" \
  "2 Slurm jobs, both of alice's uid"

like "$(kc bob patch deployment web -n team-a --subresource=scale --type=merge -p '{"spec":{"replicas":5}}' 2>&1)" \
  'forbidden: User "bob" cannot (get|patch) resource "deployments/scale" in API group "apps" in the namespace "team-a"' \
  "bob cannot scale alice's Deployment"
like "$(kc bob get deployment web -n team-a 2>&1)" 'deployments.apps "web" is forbidden: User "bob" cannot get resource "deployments"' \
  "bob cannot read it"
like "$(kc alice patch deployment web --subresource=status --type=merge -p '{"status":{"replicas":9}}' 2>&1)" \
  'forbidden: User "alice" cannot patch resource "deployments/status"' "alice cannot write its status"

# quota: 3 wanted, 2 allowed
kc alice delete deployment web >/dev/null 2>&1
wait_for 60 eval '[ -z "$(kc alice get pods -o name 2>&1)" ]'
ka create quota pods2 -n team-a --hard=pods=2 >/dev/null
dep q 3 "slurmlink.io/user: bob" | kc alice apply -f - >/dev/null 2>&1
rs=$(wait_for 30 eval '[ -n "$(kc alice get rs -l app=q -o name)" ]' && kc alice get rs -l app=q -o jsonpath='{.items[0].metadata.name}')
ok wait_for 90 eval '[ "$(ready_pods q)" = 2 ] && [ "$(kc alice get rs "$rs" -o jsonpath="{.status.conditions[0].type}/{.status.conditions[0].reason}")" = ReplicaFailure/FailedCreate ]' \
  "quota of 2 pods: 2 run, the third refused (ReplicaSet ReplicaFailure/FailedCreate)" ||
  diag "$(ka get rs,pods -n team-a -o wide 2>&1; ka get rs -n team-a -o yaml 2>&1 | grep -A5 conditions)"
is "$(squeue -h -o '%j %U' | awk '$1 ~ /^team-a\/q-/ {print $2}' | sort -u)" "$UIDA" \
  "a forged slurmlink.io/user: bob in the template: the jobs are still alice's"
ka delete quota pods2 -n team-a >/dev/null
ok wait_for 90 eval '[ "$(ready_pods q)" = 3 ]' "the quota lifted: the third replica is made (back-off, no new write needed)"

RUN0='securityContext: {runAsUser: 0}'
out=$(dep root0 1 | sed "s/^    spec:\$/    spec:\n      $RUN0/" | kc alice create -f - 2>&1)
like "$out|$(kc alice get deploy root0 2>&1)" \
  "^The Deployment \"root0\" is invalid: .*spec.template.spec.securityContext.runAsUser: Invalid value: 0: must be $UIDA.*\\|.*not found" \
  "runAsUser: 0 in the template: 422 naming the field, nothing stored"

# a namespace both write: the Deployment runs as alice, only she changes it
dep sh 1 | sed 's/namespace: team-a/namespace: shared/' | kc alice apply -f - >/dev/null
like "$(kc bob -n shared patch deployment sh --subresource=scale --type=merge -p '{"spec":{"replicas":5}}' 2>&1)" \
  "deployments.apps \"sh\" is forbidden: Deployment \"sh\" of user \"alice\" runs as Unix user $UA" \
  "in a shared namespace bob cannot scale alice's Deployment (403 naming its Unix user)"
like "$(kc bob -n shared set image deployment/sh c=busybox:2 2>&1)" \
  "deployments.apps \"sh\" is forbidden: Deployment \"sh\" of user \"alice\" runs as Unix user $UA" \
  "... nor change its image"
