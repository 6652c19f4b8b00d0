#!/bin/bash
# covers: src/kinds/lws/ src/api/admission.c src/ctl/gang.c
# 89-lws-tenants.t — LeaderWorkerSets are authorized, admitted and run as
# any tenant's workload (docs/security.md), on a real two-node cluster with
# two tenants (Unix users):
#   - alice's LWS: every pod runs as her Unix user, each group's ONE Slurm
#     job is hers;
#   - bob can neither create one in alice's namespace nor read hers;
#   - runAsUser 0 in a template: 422 naming the template's field, nothing
#     stored;
#   - a quota of 1 pod and a group of 2: the group is refused whole
#     (FailedCreate on the LWS), no pod, no Slurm job.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/61-security-lib.sh"
plan 8

sec_two_tenants --token -- --nodes 2 --gpus 0 --cpus 2 ||
  bail "two tenants: Unix users, slurmlink up (two nodes), the image, kubeconfigs, namespaces"
lws() { # name namespace [pod spec line]
  cat <<YAML
apiVersion: leaderworkerset.x-k8s.io/v1
kind: LeaderWorkerSet
metadata: {name: $1, namespace: $2}
spec:
  leaderWorkerTemplate:
    size: 2
    workerTemplate:
      metadata: {annotations: {slurmlink.io/runtime: host}}
      spec:
        ${3:-}
        containers:
        - {name: s, image: busybox, command: [sh, -c, 'id -u; exec sleep 600']}
YAML
}

is "$(lws ida team-a | kc alice apply -f - 2>&1)" "leaderworkerset.leaderworkerset.x-k8s.io/ida created" "alice creates an LWS in team-a"
ok kc alice wait --for=condition=Available lws/ida -n team-a --timeout=90s "... Available"
is "$(kc alice logs ida-0 -n team-a) $(kc alice logs ida-0-1 -n team-a)" "$UIDA $UIDA" "both pods run as alice's Unix user ($UA)"
is "$(squeue -h -t all -o '%j %U' | awk '$1 == "team-a/ida" {print $2}')" "$UIDA" "the group's one Slurm job is alice's"
like "$(lws bobs team-a | kc bob create -f - 2>&1)" \
  'leaderworkersets.leaderworkerset.x-k8s.io is forbidden: User "bob" cannot create resource "leaderworkersets" in API group "leaderworkerset.x-k8s.io" in the namespace "team-a"' \
  "bob cannot create one in alice's namespace"
like "$(kc bob get lws ida -n team-a 2>&1)" 'leaderworkersets.leaderworkerset.x-k8s.io "ida" is forbidden: User "bob" cannot get resource "leaderworkersets"' \
  "bob cannot read alice's"
like "$(lws root0 team-a 'securityContext: {runAsUser: 0}' | kc alice create -f - 2>&1)" \
  "spec.leaderWorkerTemplate.workerTemplate.spec.securityContext.runAsUser: Invalid value: 0: must be $UIDA" \
  "runAsUser 0 in the template: refused at create, the field named"

# --- a quota the group does not fit ---------------------------------------------------------------
ka create quota one --hard=pods=1 -n team-b >/dev/null
lws big team-b | kc bob apply -f - >/dev/null
reasons() { kc bob get events -n team-b --field-selector involvedObject.name=big -o jsonpath='{.items[*].reason}' 2>&1; }
refused() { grep -q FailedCreate <<<"$(reasons)"; }
wait_for 30 refused
is "$(reasons | grep -o FailedCreate | head -1)|$(kc bob get pods -n team-b -o name | wc -l)|$(squeue -h -o %j | grep -c '^team-b/big$')|$(ka get lws -n team-a -o name | grep -c root0)" \
  "FailedCreate|0|0|0" "a quota of 1 pod, a group of 2: refused whole (FailedCreate), no pod, no Slurm job; root0 not stored"
