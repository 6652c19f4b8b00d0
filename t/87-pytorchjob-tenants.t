#!/bin/bash
# covers: src/kinds/kubeflow/controller.c src/kinds/pytorchjob/pods.c src/kinds/kubeflow/status.c src/ctl/gang.c src/api/
# 87-pytorchjob-tenants.t — PyTorchJobs are authorized as any namespaced
# resource and their replicas run as the creator (docs/security.md), on a
# real two-node cluster with two tenants (Unix users, HTTPS, a certificate
# and a token):
#   - alice creates a PyTorchJob in her namespace: both replica pods run as
#     her Unix user (their `id -u`), in one Slurm job owned by her uid;
#   - bob can neither create one in alice's namespace nor read hers
#     (kube-apiserver's 403 texts); alice cannot write its status;
#   - the server-owned bookkeeping annotations cannot be forged on a pod;
#   - a runAsUser other than the creator's uid in a PyTorchJob's, an
#     MPIJob's or a Job's pod template is refused at create (422 naming the
#     field, as for a pod), nothing stored.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/61-security-lib.sh"
plan 12

sec_two_tenants --token -- --nodes 2 --gpus 0 --cpus 2 ||
  bail "two tenants: Unix users, slurmlink up (two nodes), the image, kubeconfigs, namespaces"
ptj() { # name namespace
  cat <<YAML
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: $1, namespace: $2}
spec:
  pytorchReplicaSpecs:
$(for t in Master Worker; do cat <<R
    $t:
      replicas: 1
      template:
        metadata: {annotations: {slurmlink.io/runtime: host}}
        spec:
          containers:
            - {name: pytorch, image: busybox, command: ["sh", "-c", "id -u"]}
R
done)
YAML
}

is "$(ptj ida team-a | kc alice apply -f - 2>&1)" "pytorchjob.kubeflow.org/ida created" "alice creates a PyTorchJob in team-a"
ok kc alice wait --for=condition=Succeeded pytorchjob/ida --timeout=120s "... and it succeeds"
is "$(kc alice logs ida-master-0) $(kc alice logs ida-worker-0)" "$UIDA $UIDA" "both replicas ran as alice's Unix user ($UA)"
is "$(squeue -h -t all -o '%j %U' | awk '$1 == "team-a/ida" {print $2}')" "$UIDA" "the one Slurm job is alice's"
is "$(ptj bobs team-a | kc bob create -f - 2>&1)" \
  "Error from server (Forbidden): error when creating \"STDIN\": pytorchjobs.kubeflow.org is forbidden: User \"bob\" cannot create resource \"pytorchjobs\" in API group \"kubeflow.org\" in the namespace \"team-a\"" \
  "bob cannot create one in alice's namespace"
like "$(kc bob get pytorchjob ida -n team-a 2>&1)" 'pytorchjobs.kubeflow.org "ida" is forbidden: User "bob" cannot get resource "pytorchjobs" in API group "kubeflow.org" in the namespace "team-a"' \
  "bob cannot read alice's"
like "$(kc alice patch pytorchjob ida --subresource=status --type=merge -p '{"status":{"conditions":[]}}' 2>&1)" \
  'forbidden: User "alice" cannot patch resource "pytorchjobs/status"' "alice cannot write its status (what slurmlinkd saw)"
kc alice run forged --image=busybox --restart=Never --annotations=slurmlink.io/job-uid=$(ka get pytorchjob ida -n team-a -o jsonpath='{.metadata.uid}') -- true >/dev/null 2>&1
is "$(kc alice get pod forged -o jsonpath='{.metadata.annotations.slurmlink\.io/job-uid}' 2>&1)" "" \
  "a pod cannot claim a PyTorchJob's uid: the server-owned annotation is dropped at create"

# --- runAsUser in a workload's pod template: refused at create, as for a pod --------------------
RUN0='securityContext: {runAsUser: 0}'
created=$(ptj root0 team-a | sed "s/^        spec:\$/        spec:\n          $RUN0/" | kc alice create -f - 2>&1)
like "$created" \
  "^The PyTorchJob \"root0\" is invalid: .*spec.pytorchReplicaSpecs\\[Master\\].template.spec.securityContext.runAsUser: Invalid value: 0: must be $UIDA, the uid of Unix user \"$UA\", which the jobs of user \"alice\" run as" \
  "a PyTorchJob whose template says runAsUser: 0 is refused at create (422 naming the field)"
mpi=$(cat <<YAML | kc alice create -f - 2>&1
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata: {name: mroot, namespace: team-a}
spec:
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        spec:
          containers: [{name: l, image: busybox, command: [mpirun, hostname]}]
    Worker:
      replicas: 1
      template:
        metadata: {annotations: {slurmlink.io/runtime: host}}
        spec:
          containers: [{name: w, image: busybox, securityContext: {runAsUser: $UIDB}}]
YAML
)
like "$mpi" "spec.mpiReplicaSpecs\\[Worker\\].template.spec.containers\\[0\\].securityContext.runAsUser: Invalid value: $UIDB: must be $UIDA" \
  "an MPIJob's Worker container naming another uid: refused at create"
job=$(kc alice create job jroot -n team-a --image=busybox --dry-run=client -o json -- true |
  jq '.spec.template.spec.securityContext = {runAsUser: 0} | .spec.template.metadata.annotations = {"slurmlink.io/runtime": "host"}' | kc alice create -f - 2>&1)
like "$job" "spec.template.spec.securityContext.runAsUser: Invalid value: 0: must be $UIDA" "a Job's template the same"
is "$(ka get pytorchjobs,mpijobs,jobs -n team-a -o name 2>&1 | grep -c 'root')" 0 "none of them was stored"
