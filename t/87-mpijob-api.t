#!/bin/bash
# covers: src/kinds/mpijob/pods.c src/ctl/gang.c src/api/
# 87-mpijob-api.t — kubeflow.org/v2beta1 MPIJob served as mpi-operator
# defines it, on a private slurmlinkd (no Slurm: the API alone), with the
# real kubectl and the Python client (CustomObjectsApi):
#   - the CRD's OpenAPI schema (kubectl explain), strict decoding's 400;
#   - mpi-operator's defaults (SetDefaults_MPIJob and the CRD's);
#   - its validation (ValidateMPIJob) as 422s naming the field: the last
#     worker's DNS-1035 name, restartPolicy, mpiImplementation, a Worker's
#     replicas; slurmlink's refusals with the reason: another replica type,
#     runLauncherAsWorker, a change of the replica specs;
#   - a Warning for Workers running sshd (no ssh Secret here: they wait
#     for the Launcher instead);
#   - Table NAME AGE, describe, the status subresource, watch, patch, delete.
source "$(dirname "$0")/50-api-lib.sh"
plan 21

api_up || bail "slurmlinkd up"

# manifest NAME [sed expressions...]: mpi-operator's pi example, edited
manifest() {
  local name=$1; shift
  local m
  m=$(cat <<YAML
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata:
  name: $name
  namespace: default
spec:
  mpiReplicaSpecs:
    Launcher:
      template:
        spec:
          containers:
            - name: mpi-launcher
              image: mpioperator/mpi-pi
              command: ["mpirun", "-n", "2", "/home/mpiuser/pi"]
    Worker:
      replicas: 2
      template:
        spec:
          containers:
            - name: mpi-worker
              image: mpioperator/mpi-pi
              command: ["sleep", "infinity"]
YAML
)
  local e
  for e in "$@"; do m=$(sed "$e" <<<"$m"); done
  printf '%s\n' "$m"
}
apply() { k apply -f - 2>&1; }
jp() { k get "$1" -o jsonpath="$2" 2>&1; }

# --- schema, defaults ---------------------------------------------------------------------------
like "$(k explain mpijob.spec.slotsPerWorker 2>&1)" "Specifies the number of slots per worker used in hostfile" \
  "kubectl explain: the CRD's own descriptions"
is "$(manifest pi | apply)" "mpijob.kubeflow.org/pi created" "kubectl apply creates an MPIJob"
like "$(manifest sshd 's|command: \["sleep", "infinity"\]|command: ["/usr/sbin/sshd", "-De"]|' | k apply --dry-run=server -f - 2>&1)" \
  'Warning: spec.mpiReplicaSpecs\[Worker\].template.spec.containers\[0\].command: sshd is not run: slurmlink starts the Launcher.s MPI daemons in the Workers through Slurm .*, so this Worker waits for the Launcher instead and stays up until it ends' \
  "Workers running sshd (mpi-operator's examples): a Warning at create says what slurmlink does instead"
is "$(jp mpijob/pi '{.spec.slotsPerWorker} {.spec.mpiImplementation} {.spec.launcherCreationPolicy} {.spec.sshAuthMountPath} {.spec.runLauncherAsWorker} {.spec.runPolicy.cleanPodPolicy} {.spec.runPolicy.suspend}')" \
  "1 OpenMPI AtStartup /root/.ssh false None false" "spec defaults: slotsPerWorker 1, OpenMPI, AtStartup, /root/.ssh, cleanPodPolicy None"
is "$(jp mpijob/pi '{.spec.mpiReplicaSpecs.Launcher.replicas} {.spec.mpiReplicaSpecs.Launcher.restartPolicy} {.spec.mpiReplicaSpecs.Worker.restartPolicy}')" \
  "1 OnFailure Never" "replica defaults: the Launcher 1 OnFailure, the Workers Never"
like "$(k get mpijobs 2>&1)" $'^NAME +AGE\npi +[0-9]+s' "kubectl get mpijobs: NAME AGE"
like "$(k describe mpijob pi 2>&1)" $'Name: +pi\n.*Kind: +MPIJob.*Mpi Replica Specs:' "kubectl describe mpijob"

# --- strict decoding, validation ------------------------------------------------------------------
like "$(manifest bad1 's/replicas: 2/replicaz: 2/' | apply)" \
  'MPIJob in version "v2beta1" cannot be handled as a MPIJob: strict decoding error: unknown field "spec.mpiReplicaSpecs.Worker.replicaz"' \
  "an unknown field: kubectl --validate=strict's 400"
like "$(manifest x23456789012345678901234567890123456789012345678901234567 | apply)" \
  'metadata.name: Invalid value: "x23456789012345678901234567890123456789012345678901234567": will not able to create pod and service with invalid DNS label "x23456789012345678901234567890123456789012345678901234567-worker-1": must be no more than 63 characters' \
  "the last worker's pod name must be a DNS-1035 label (mpi-operator's text)"
like "$(manifest rp 's/      replicas: 2/      replicas: 2\n      restartPolicy: Always/' | apply)" \
  'spec.mpiReplicaSpecs\[Worker\].restartPolicy: Unsupported value: "Always": supported values: "Never", "OnFailure"' \
  "restartPolicy: only Never and OnFailure"
like "$(manifest impl 's/^spec:/spec:\n  mpiImplementation: LAM/' | apply)" \
  'spec.mpiImplementation: Unsupported value: "LAM": supported values: "Intel", "MPICH", "OpenMPI"' "mpiImplementation: OpenMPI, Intel, MPICH"
like "$(manifest w0 's/replicas: 2/replicas: 0/' | apply)" \
  'spec.mpiReplicaSpecs\[Worker\].replicas: Invalid value: 0: must be greater than or equal to 1' "a Worker spec with 0 replicas"
like "$(manifest ps 's/    Worker:/    PS:/' | apply)" \
  'spec.mpiReplicaSpecs\[PS\]: Unsupported value: "PS": supported values: "Launcher", "Worker"' "only Launcher and Worker"
like "$(manifest law 's/^spec:/spec:\n  runLauncherAsWorker: true/' | apply)" \
  'spec.runLauncherAsWorker: Forbidden: not supported: slurmlink runs the Launcher in the Slurm job' "runLauncherAsWorker refused with the reason"
like "$(manifest badctr 's/command: \["sleep", "infinity"\]/command: [x]\n            - {name: Bad_C, image: busybox}/' | apply)" \
  'spec.mpiReplicaSpecs\[Worker\].template.spec.containers\[1\].name: Invalid value: "Bad_C"' \
  "each replica's pod template is validated as the pod it becomes"
is "$(k get mpijobs -o name 2>&1)" "mpijob.kubeflow.org/pi" "nothing of the refused ones was stored"
like "$(manifest pi 's/replicas: 2/replicas: 3/' | apply)" \
  'spec.mpiReplicaSpecs: Forbidden: the replica specs and slotsPerWorker of an MPIJob are fixed' "the replica specs cannot change on update"

# --- status subresource, watch, patch, the Python client ---------------------------------------
manifest other | apply >/dev/null
out=$($PY - "$KUBECONFIG" 2>&1 <<'PY'
import sys, threading
from kubernetes import client, config, watch
config.load_kube_config(sys.argv[1])
co = client.CustomObjectsApi()
G, V, P = "kubeflow.org", "v2beta1", "mpijobs"
rv = co.list_namespaced_custom_object(G, V, "default", P)["metadata"]["resourceVersion"]
seen = []
def watcher():
    for ev in watch.Watch().stream(co.list_namespaced_custom_object, G, V, "default", P,
                                   resource_version=rv, timeout_seconds=20):
        seen.append((ev["type"], ev["object"]["metadata"]["name"]))
        if ev["type"] == "DELETED":
            return
t = threading.Thread(target=watcher); t.start()
st = {"status": {"conditions": [{"type": "Created", "status": "True", "reason": "MPIJobCreated",
      "message": "MPIJob default/pi is created."}]}}
co.patch_namespaced_custom_object_status(G, V, "default", P, "pi", st)
print("status", co.get_namespaced_custom_object_status(G, V, "default", P, "pi")["status"]["conditions"][0]["reason"])
o = co.patch_namespaced_custom_object(G, V, "default", P, "pi", {"metadata": {"labels": {"a": "b"}}, "status": {}})
print("kept", o["status"]["conditions"][0]["type"], o["metadata"]["labels"]["a"])
co.delete_namespaced_custom_object(G, V, "default", P, "other")
t.join()
print("watch", " ".join("%s:%s" % s for s in seen))
PY
)
like "$out" "status MPIJobCreated" "CustomObjectsApi: the status subresource is written"
like "$out" "kept Created b" "a patch of the main resource keeps the status"
like "$out" "watch MODIFIED:pi MODIFIED:pi DELETED:other" "a watch sees the status write, the patch and the deletion"
is "$(k delete mpijob pi 2>&1)" 'mpijob.kubeflow.org "pi" deleted' "kubectl delete mpijob"
