#!/bin/bash
# covers: src/kinds/jobset/ src/api/admission.c src/ctl/gang.c
# 89-jobset-tenants.t — JobSets are authorized as any namespaced resource,
# their pods run as the creator and are admitted as pods are (one path:
# the registry's pod_templates and runs_as_creator), on a real two-node
# cluster with two tenants (Unix users, HTTPS, a certificate and a token):
#   - alice creates a JobSet in her namespace: its pods run as her Unix
#     user (their `id -u`), in one Slurm job owned by her uid;
#   - bob can neither create one in alice's namespace nor read hers
#     (kube-apiserver's 403 texts);
#   - a runAsUser other than alice's in a replicated Job's pod template is
#     refused at create (422 naming the field), nothing stored;
#   - a ResourceQuota of 2 pods: a JobSet of 3 pods is admitted whole or
#     not at all: no pod, no Slurm job, a FailedCreate event on it.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/61-security-lib.sh"
plan 9

sec_two_tenants --token -- --nodes 2 --gpus 0 --cpus 2 ||
  bail "two tenants: Unix users, slurmlink up (two nodes), the image, kubeconfigs, namespaces"
js() { # name namespace pods-per-job [pod spec line]
  cat <<YAML
apiVersion: jobset.x-k8s.io/v1alpha2
kind: JobSet
metadata: {name: $1, namespace: $2}
spec:
  replicatedJobs:
  - name: w
    template:
      spec:
        parallelism: $3
        completions: $3
        template:
          metadata: {annotations: {slurmlink.io/runtime: host}}
          spec:${4:+
            $4}
            containers:
            - {name: c, image: busybox, command: ["sh", "-c", "id -u"]}
YAML
}

is "$(js ida team-a 2 | kc alice apply -f - 2>&1)" "jobset.jobset.x-k8s.io/ida created" "alice creates a JobSet in team-a"
ok kc alice wait --for=condition=Completed jobset/ida -n team-a --timeout=120s "... and it completes"
is "$(kc alice logs ida-w-0-0 -n team-a) $(kc alice logs ida-w-0-1 -n team-a)" "$UIDA $UIDA" "both pods ran as alice's Unix user ($UA)"
is "$(squeue -h -t all -o '%j %U' | awk '$1 == "team-a/ida" {print $2}')" "$UIDA" "the one Slurm job is alice's"
is "$(js bobs team-a 1 | kc bob create -f - 2>&1)" \
  "Error from server (Forbidden): error when creating \"STDIN\": jobsets.jobset.x-k8s.io is forbidden: User \"bob\" cannot create resource \"jobsets\" in API group \"jobset.x-k8s.io\" in the namespace \"team-a\"" \
  "bob cannot create one in alice's namespace"
like "$(kc bob get jobset ida -n team-a 2>&1)" 'jobsets.jobset.x-k8s.io "ida" is forbidden: User "bob" cannot get resource "jobsets" in API group "jobset.x-k8s.io" in the namespace "team-a"' \
  "bob cannot read alice's"

# --- runAsUser in a replicated Job's pod template: refused at create, as for a pod ---------------
like "$(js root0 team-a 1 'securityContext: {runAsUser: 0}' | kc alice create -f - 2>&1)" \
  "spec.replicatedJobs\\[0\\].template.spec.template.spec.securityContext.runAsUser: Invalid value: 0: must be $UIDA" \
  "a JobSet whose pod template says runAsUser: 0 is refused at create (422 naming the field)"

# --- a quota: the gang admitted whole or not at all --------------------------------------------
ka create quota q -n team-a --hard=pods=2 >/dev/null
js three team-a 3 | kc alice apply -f - >/dev/null 2>&1
refused() { [[ "$(kc alice get events -n team-a --field-selector involvedObject.kind=JobSet,involvedObject.name=three -o jsonpath='{range .items[*]}{.reason} {end}' 2>&1)" == *FailedCreate* ]]; }
ok wait_for 60 refused "a JobSet of 3 pods beyond a quota of 2: a FailedCreate event on it"
is "$(kc alice get pods -n team-a -l jobset.sigs.k8s.io/jobset-name=three -o name 2>&1 | wc -l) $(squeue -h -t all -o '%j' | grep -c '^team-a/three$') $(ka get jobsets -n team-a -o name | grep -c root0)" \
  "0 0 0" "no pod of it (admitted whole or not at all), no Slurm job; the refused one not stored"
