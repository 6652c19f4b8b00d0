#!/bin/bash
# covers: src/kinds/kubeflow/controller.c src/kinds/pytorchjob/pods.c src/kinds/kubeflow/status.c src/ctl/gang.c src/api/
# 87-pytorchjob-api.t — kubeflow.org/v1 PyTorchJob served as the Kubeflow
# Training Operator v1.8 serves it, on a private slurmlinkd (no Slurm: the
# API alone), with the real kubectl and the Python client (CustomObjectsApi):
#   - discovery (api-resources), the CRD's OpenAPI schema (kubectl explain),
#     strict decoding (kubectl's --validate=strict), the schema's types;
#   - the operator's defaults: replicas 1, restartPolicy OnFailure, the
#     pytorchjob-port 23456 on the pytorch container, nprocPerNode auto,
#     runPolicy.cleanPodPolicy None (and the CRD's suspend false), replica
#     type names to camel case;
#   - the webhook's rules as 422s naming the field: DNS-1035 name, only
#     Master/Worker, a container named pytorch with an image, Master
#     replicas 1; the pod template through the pod module; elasticPolicy
#     (a range accepted; metrics, min > max, min 0, Worker replicas outside
#     the range, more than a gang's nodes refused);
#   - Table NAME STATE AGE, describe, the status subresource, watch, patch,
#     delete (Python client).
source "$(dirname "$0")/50-api-lib.sh"
plan 38

api_up || bail "slurmlinkd up"

# manifest NAME [sed expressions...]: the operator's simple example, edited
manifest() {
  local name=$1; shift
  local m
  m=$(cat <<YAML
apiVersion: "kubeflow.org/v1"
kind: PyTorchJob
metadata:
  name: $name
  namespace: default
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: OnFailure
      template:
        spec:
          containers:
            - name: pytorch
              image: busybox
              command: ["sh", "-c", "echo master"]
    Worker:
      replicas: 1
      restartPolicy: OnFailure
      template:
        spec:
          containers:
            - name: pytorch
              image: busybox
              command: ["sh", "-c", "echo worker"]
YAML
)
  local e
  for e in "$@"; do m=$(sed "$e" <<<"$m"); done
  printf '%s\n' "$m"
}
apply() { k apply -f - 2>&1; }
jp() { k get "$1" -o jsonpath="$2" 2>&1; }

# --- discovery, schema -----------------------------------------------------------------------
like "$(k api-resources --api-group=kubeflow.org 2>&1)" $'pytorchjobs +kubeflow.org/v1 +true +PyTorchJob' \
  "api-resources: pytorchjobs in kubeflow.org/v1, namespaced, kind PyTorchJob"
like "$(k explain pytorchjob.spec.runPolicy.cleanPodPolicy 2>&1)" "CleanPodPolicy defines the policy to kill pods after the job completes" \
  "kubectl explain: the CRD's own descriptions"
like "$(k explain pytorchjob.metadata 2>&1)" "ObjectMeta is metadata that all persisted resources must have" \
  "kubectl explain: metadata is ObjectMeta, as kube-apiserver publishes a CRD"

ROOT=$(cd "$(dirname "$0")/.." && pwd)
is "$("$ROOT/src/api/gen/crd-gen.py" | cmp - "$ROOT/src/api/crd_schemas.c" 2>&1 && echo same)" same \
  "the committed src/api/crd_schemas.c is what crd-gen.py makes of the pinned CRD"

# --- create with the operator's defaults ------------------------------------------------------
is "$(manifest simple | apply)" "pytorchjob.kubeflow.org/simple created" "kubectl apply creates a PyTorchJob"
is "$(jp pytorchjob/simple '{.spec.nprocPerNode} {.spec.runPolicy.cleanPodPolicy} {.spec.runPolicy.suspend}')" "auto None false" \
  "defaults: nprocPerNode auto, cleanPodPolicy None, suspend false"
is "$(jp pytorchjob/simple '{.spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].ports}')" \
  '[{"containerPort":23456,"name":"pytorchjob-port","protocol":"TCP"}]' "default port pytorchjob-port 23456 on the pytorch container"
is "$(manifest lower '/replicas: 1/d' '/restartPolicy: OnFailure/d' 's/    Master:/    master:/' 's/    Worker:/    WORKER:/' | apply)" \
  "pytorchjob.kubeflow.org/lower created" "replica types in any case are accepted"
is "$(jp pytorchjob/lower '{.spec.pytorchReplicaSpecs.Master.replicas} {.spec.pytorchReplicaSpecs.Master.restartPolicy} {.spec.pytorchReplicaSpecs.Worker.replicas}')" \
  "1 OnFailure 1" "... named Master and Worker, replicas 1 and restartPolicy OnFailure defaulted"
is "$(manifest port 's/command: \["sh", "-c", "echo worker"\]/ports: [{name: pytorchjob-port, containerPort: 29500}]/' | apply)" \
  "pytorchjob.kubeflow.org/port created" "a pytorchjob-port of its own"
is "$(jp pytorchjob/port '{.spec.pytorchReplicaSpecs.Worker.template.spec.containers[0].ports[*].containerPort}')" "29500" \
  "... is kept, no second one added"
like "$(k get pytorchjobs 2>&1)" $'^NAME +STATE +AGE\nlower +[0-9]+s\nport +[0-9]+s\nsimple +[0-9]+s' "kubectl get pytorchjobs: NAME STATE AGE"
like "$(k describe pytorchjob simple 2>&1)" $'Name: +simple\n.*Kind: +PyTorchJob.*Pytorch Replica Specs:' "kubectl describe pytorchjob"

# --- strict decoding, the schema's types ------------------------------------------------------
like "$(manifest bad1 's/replicas: 1/replicaz: 1/' | apply)" \
  'PyTorchJob in version "v1" cannot be handled as a PyTorchJob: strict decoding error: unknown field "spec.pytorchReplicaSpecs.Master.replicaz", unknown field "spec.pytorchReplicaSpecs.Worker.replicaz"' \
  "an unknown field: kubectl --validate=strict's 400"
like "$(manifest bad2 's/replicas: 1/replicas: "x"/' | apply)" \
  'spec.pytorchReplicaSpecs.Master.replicas: Invalid value: "string": spec.pytorchReplicaSpecs.Master.replicas in body must be of type integer: "string"' \
  "a wrong type: the CRD schema's 422"

# --- the webhook's rules ----------------------------------------------------------------------
like "$(manifest 1abc | apply)" \
  "metadata.name: Invalid value: \"1abc\": should match: a DNS-1035 label must consist of lower case alphanumeric characters or '-', start with an alphabetic character" \
  "a name that is not a DNS-1035 label"
like "$(manifest two '0,/replicas: 1/s//replicas: 2/' | apply)" 'spec.pytorchReplicaSpecs\[Master\].replicas: Forbidden: must be 1' \
  "Master replicas must be 1"
like "$(manifest chief 's/    Worker:/    Chief:/' | apply)" \
  'spec.pytorchReplicaSpecs\[Chief\]: Unsupported value: "Chief": supported values: "Master", "Worker"' "only Master and Worker"
like "$(manifest torch 's/- name: pytorch/- name: torch/' | apply)" \
  'spec.pytorchReplicaSpecs\[Master\].template.spec.containers: Required value: must have at least one container with name pytorch' \
  "a container named pytorch in each replica type"
like "$(manifest noimg 's/image: busybox/image: ""/' | apply)" \
  'spec.pytorchReplicaSpecs\[Worker\].template.spec.containers\[0\].image: Required value: must be required' "every container has an image"
like "$(printf 'apiVersion: kubeflow.org/v1\nkind: PyTorchJob\nmetadata: {name: empty}\nspec: {}\n' | apply)" \
  'The PyTorchJob "empty" is invalid: spec.pytorchReplicaSpecs: Required value$' "pytorchReplicaSpecs is required (the CRD schema's rule, before the webhook's)"
like "$(manifest badctr 's/command: \["sh", "-c", "echo worker"\]/command: [x]\n            - {name: Bad_C, image: busybox}/' | apply)" \
  'spec.pytorchReplicaSpecs\[Worker\].template.spec.containers\[1\].name: Invalid value: "Bad_C"' \
  "each replica's pod template is validated as the pod it becomes"
# elasticPolicy: a range of Worker replicas is one Slurm job with a node range (docs/jobs.md)
EP='s/^spec:/spec:\n  elasticPolicy: {minReplicas: 1, maxReplicas: 3, maxRestarts: 2}/'
is "$(manifest elastic "$EP" | apply)" "pytorchjob.kubeflow.org/elastic created" "an elastic range minReplicas 1, maxReplicas 3 is accepted"
is "$(jp pytorchjob/elastic '{.spec.elasticPolicy.minReplicas}:{.spec.elasticPolicy.maxReplicas} {.spec.elasticPolicy.maxRestarts}')" "1:3 2" \
  "... stored as given"
like "$(manifest emetrics 's/^spec:/spec:\n  elasticPolicy: {minReplicas: 1, maxReplicas: 3, metrics: [{type: Resource, resource: {name: cpu, target: {type: Utilization, averageUtilization: 80}}}]}/' | apply)" \
  'spec.elasticPolicy.metrics: Forbidden: not supported with a range: Slurm sizes a job once, when it starts it' \
  "metrics (the operator's HPA) with a range are refused: no autoscaler resizes a running Slurm job"
like "$(manifest eminmax 's/^spec:/spec:\n  elasticPolicy: {minReplicas: 3, maxReplicas: 2}/' | apply)" \
  'spec.elasticPolicy.minReplicas: Invalid value: 3: must be less than or equal to maxReplicas \(2\)' "minReplicas above maxReplicas is refused"
like "$(manifest ezero 's/^spec:/spec:\n  elasticPolicy: {minReplicas: 0, maxReplicas: 2}/' | apply)" \
  'spec.elasticPolicy.minReplicas: Invalid value: 0: must be at least 1' "minReplicas 0 is refused (worker-0 is the rendezvous)"
like "$(manifest eout 's/^spec:/spec:\n  elasticPolicy: {minReplicas: 2, maxReplicas: 3}/' | apply)" \
  'spec.pytorchReplicaSpecs\[Worker\].replicas: Invalid value: 1: must be within elasticPolicy.minReplicas..maxReplicas \(2..3\)' \
  "Worker replicas outside the range are refused"
like "$(manifest efixed 's/^spec:/spec:\n  elasticPolicy: {minReplicas: 2, maxReplicas: 2}/' | apply)" \
  'spec.pytorchReplicaSpecs\[Worker\].replicas: Invalid value: 1: must be within elasticPolicy.minReplicas..maxReplicas \(2..2\)' \
  "a fixed size other than the Worker replicas is refused as before"
like "$(manifest ebig 's/^spec:/spec:\n  elasticPolicy: {minReplicas: 1, maxReplicas: 300}/' | apply)" \
  'spec.elasticPolicy.maxReplicas: Invalid value: 300: must be at most 255' "a range beyond a gang's 256 nodes is refused"
like "$(manifest unlike 's/command: \["sh", "-c", "echo worker"\]/resources: {limits: {cpu: "2"}}/' | apply)" \
  'spec.pytorchReplicaSpecs\[Worker\].template.spec: Forbidden: must request the resources and nodeSelector of spec.pytorchReplicaSpecs\[Master\].template.spec' \
  "replica types requesting different resources are refused (one job of alike nodes)"
is "$(k get pytorchjobs -o name 2>&1 | sort | tr '\n' ' ')" \
  "pytorchjob.kubeflow.org/elastic pytorchjob.kubeflow.org/lower pytorchjob.kubeflow.org/port pytorchjob.kubeflow.org/simple " "nothing of the refused ones was stored"
like "$(manifest simple 's/echo worker/echo changed/' | apply)" \
  'spec.pytorchReplicaSpecs: Forbidden: the replica specs of a PyTorchJob are fixed' "the replica specs cannot change on update"

# --- status subresource, watch, patch, the Python client ---------------------------------------
out=$($PY - "$KUBECONFIG" 2>&1 <<'PY'
import sys, threading
from kubernetes import client, config, watch
config.load_kube_config(sys.argv[1])
co = client.CustomObjectsApi()
G, V, P = "kubeflow.org", "v1", "pytorchjobs"
body = co.get_namespaced_custom_object(G, V, "default", P, "simple")
rv = co.list_namespaced_custom_object(G, V, "default", P)["metadata"]["resourceVersion"]
seen = []
def watcher():
    for ev in watch.Watch().stream(co.list_namespaced_custom_object, G, V, "default", P,
                                   resource_version=rv, timeout_seconds=20):
        o = ev["object"]
        seen.append((ev["type"], o["metadata"]["name"]))
        if ev["type"] == "DELETED":
            return
t = threading.Thread(target=watcher); t.start()
st = {"status": {"conditions": [{"type": "Created", "status": "True", "reason": "PyTorchJobCreated",
      "message": "PyTorchJob default/simple is created."}]}}
co.patch_namespaced_custom_object_status(G, V, "default", P, "simple", st)
print("status", co.get_namespaced_custom_object_status(G, V, "default", P, "simple")["status"]["conditions"][0]["reason"])
# a write of the main resource keeps the status
o = co.patch_namespaced_custom_object(G, V, "default", P, "simple", {"metadata": {"labels": {"a": "b"}}, "status": {}})
print("kept", o["status"]["conditions"][0]["type"], o["metadata"]["labels"]["a"])
co.delete_namespaced_custom_object(G, V, "default", P, "lower")
t.join()
print("watch", " ".join("%s:%s" % s for s in seen))
PY
)
like "$out" "status PyTorchJobCreated" "CustomObjectsApi: the status subresource is written"
like "$out" "kept Created b" "a patch of the main resource keeps the status"
like "$out" "watch MODIFIED:simple MODIFIED:simple DELETED:lower" "a watch sees the status write, the patch and the deletion"
like "$(k get pytorchjob simple 2>&1)" $'simple +Created +[0-9]+s' "STATE is the last condition's type"
is "$(k delete pytorchjob simple port 2>&1 | tr '\n' ' ')" \
  'pytorchjob.kubeflow.org "simple" deleted pytorchjob.kubeflow.org "port" deleted ' "kubectl delete pytorchjob"
