#!/bin/bash
# covers: src/kinds/trainjob/ src/api/admission.c src/ctl/admit.c
# 89-trainjob-tenants.t — TrainJobs are authorized as any namespaced
# resource and their node pods run as the creator, admitted as pods are
# (docs/security.md), on a real two-node cluster with two tenants (Unix
# users, HTTPS, tokens):
#   - alice's TrainJob in her namespace: both node pods run as her Unix
#     user, in one Slurm job of her uid;
#   - bob can neither create one in alice's namespace nor read hers; alice
#     cannot create a ClusterTrainingRuntime (cluster-scoped: admins');
#   - runAsUser 0 in a TrainJob's runtimePatches or a TrainingRuntime's
#     template: refused at create (422 naming the field), nothing stored;
#   - a ResourceQuota of one pod: bob's 2-node TrainJob is refused whole
#     (event FailedCreate, no pod made).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/61-security-lib.sh"
plan 10

sec_two_tenants --token -- --nodes 2 --gpus 0 --cpus 2 ||
  bail "two tenants: Unix users, slurmlink up (two nodes), the image, kubeconfigs, namespaces"
tj() { # name namespace [pod spec line of the patch]
  cat <<YAML
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainJob
metadata: {name: $1, namespace: $2}
spec:
  runtimeRef: {name: torch-distributed}
  trainer: {numNodes: 2, command: [sh, -c, "id -u"]}
  runtimePatches:
    - manager: slurmlink.io/test
      trainingRuntimeSpec:
        template:
          spec:
            replicatedJobs:
              - name: node
                template:
                  spec:
                    template:
                      metadata: {annotations: {slurmlink.io/runtime: host}}
                      spec: {${3:-}}
YAML
}

is "$(tj ida team-a | kc alice apply -f - 2>&1)" "trainjob.trainer.kubeflow.org/ida created" "alice creates a TrainJob in team-a"
ok kc alice wait -n team-a --for=condition=Complete trainjob/ida --timeout=120s "... and it completes"
is "$(kc alice logs -n team-a ida-node-0-0) $(kc alice logs -n team-a ida-node-0-1)" "$UIDA $UIDA" "both node pods ran as alice's Unix user ($UA)"
is "$(squeue -h -t all -o '%j %U' | awk '$1 == "team-a/ida" {print $2}')" "$UIDA" "the one Slurm job is alice's"
is "$(tj bobs team-a | kc bob create -f - 2>&1)" \
  "Error from server (Forbidden): error when creating \"STDIN\": trainjobs.trainer.kubeflow.org is forbidden: User \"bob\" cannot create resource \"trainjobs\" in API group \"trainer.kubeflow.org\" in the namespace \"team-a\"" \
  "bob cannot create one in alice's namespace"
like "$(kc bob get trainjob ida -n team-a 2>&1)" 'trainjobs.trainer.kubeflow.org "ida" is forbidden: User "bob" cannot get resource "trainjobs" in API group "trainer.kubeflow.org" in the namespace "team-a"' \
  "bob cannot read alice's"
like "$(printf 'apiVersion: trainer.kubeflow.org/v1alpha1\nkind: ClusterTrainingRuntime\nmetadata: {name: mine}\nspec: {mlPolicy: {torch: {}}}\n' | kc alice create -f - 2>&1)" \
  'clustertrainingruntimes.trainer.kubeflow.org is forbidden: User "alice" cannot create resource "clustertrainingruntimes" in API group "trainer.kubeflow.org" at the cluster scope' \
  "alice cannot create a ClusterTrainingRuntime (cluster-scoped: an admin's)"
like "$(tj root0 team-a 'securityContext: {runAsUser: 0}' | kc alice create -f - 2>&1)" \
  "spec.runtimePatches\\[0\\].*securityContext.runAsUser: Invalid value: 0: must be $UIDA" \
  "runAsUser 0 in a TrainJob's runtimePatches: refused at create, naming the field"
rt=$(cat <<YAML | kc alice create -f - 2>&1
apiVersion: trainer.kubeflow.org/v1alpha1
kind: TrainingRuntime
metadata: {name: rootrt, namespace: team-a}
spec:
  mlPolicy: {numNodes: 1, torch: {}}
  template:
    spec:
      replicatedJobs:
        - name: node
          template:
            spec:
              template:
                metadata: {annotations: {slurmlink.io/runtime: host}}
                spec:
                  securityContext: {runAsUser: 0}
                  containers: [{name: node, image: busybox}]
YAML
)
like "$rt" "spec.template.spec.replicatedJobs\\[0\\].*securityContext.runAsUser: Invalid value: 0: must be $UIDA" \
  "... in a TrainingRuntime's template: the same ($(ka get trainjobs,trainingruntimes -n team-a -o name 2>&1 | grep -c root) stored)"

# --- quota: the gang's pods admitted whole or not at all -------------------------------------------
ka create quota onepod -n team-b --hard=pods=1 >/dev/null
tj two team-b | kc bob apply -f - >/dev/null
ev() { ka get events -n team-b --field-selector involvedObject.name=two -o jsonpath='{range .items[*]}{.reason}: {.message}{"\n"}{end}' 2>/dev/null; }
wait_for 30 eval 'ev | grep -q FailedCreate'
like "$(ev)|$(ka get pods -n team-b -o name 2>&1)" "FailedCreate: Error creating: .*exceeded quota: onepod, requested: pods=2, used: pods=0, limited: pods=1\\|$" \
  "a quota of one pod: the 2-node TrainJob's pods refused together (FailedCreate), none made"
