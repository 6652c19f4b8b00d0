#!/bin/bash
# covers: src/storage/ src/api/storage_kind.c src/ctl/storage.c src/api/quota.c src/translate/volumes.c src/cluster/up.c
# 94-storage.t — PersistentVolumeClaims on the cluster's shared folder, on a
# real two-node cluster (slurmlink up --nodes 2: its D/shared is the root
# of the default StorageClass "shared") with the real kubectl:
#   - kubectl get storageclass/pvc/pv with kube's columns; StorageClasses
#     are read-only;
#   - a claim binds at once to a new volume whose folder, beneath the class
#     root, belongs to the claim's Unix user (mode 0700);
#   - bad claims: 422 naming the field, nothing stored;
#   - a pod writes to its claim on one node, a pod on the other node reads it;
#   - a pod whose claim is missing waits (Pending, PodScheduled False with
#     the reason) and runs once the claim exists;
#   - ReadWriteOncePod: a second pod waits while the first runs;
#   - deleting a claim in use is deferred until no pod uses it, then the
#     volume's folder is removed (reclaim Delete);
#   - an admin's static volume of existing data binds by volumeName, is
#     not writable by the pod (the admin's files; charliecloud binds cannot be
#     read-only), and is Released (Retain, data kept) after its claim;
#   - an Indexed Job's pods write to a claim; a PyTorchJob's Master and Worker
#     share a ReadWriteOnce claim;
#   - a PyTorchJob writes a checkpoint to a claim on node1, is deleted, and a
#     second PyTorchJob on node2 resumes from it;
#   - a second class of the admin's (storage.classes on the daemon's command
#     line, beside the file `up` wrote): its maxClaimSize and access modes
#     are 422s naming the field; WaitForFirstConsumer binds when a pod names
#     the claim; maxNamespaceSize keeps a claim Pending; Retain keeps the
#     folder.
source "$(dirname "$0")/lib.sh"
plan 61

# the daemon reads storage.classes from its command line (it overrides the
# file `up` writes, checked below): the default class shared and another
T=$(tmpdir)
on_exit "rm -rf '$T'"
chmod 755 "$T"
mkdir -m 755 "$T/small" "$T/shared"
cat >"$T/classes.yaml" <<Y
classes:
- {name: shared, root: "$T/shared", default: true}
- name: small
  root: "$T/small"
  accessModes: [ReadWriteOnce]
  reclaimPolicy: Retain
  volumeBindingMode: WaitForFirstConsumer
  maxClaimSize: 100Mi
  maxNamespaceSize: 150Mi
Y
mkdir -m 755 "$T/bin"
SLURMLINKD=$(daemon_with "$T/bin" --storage-classes "$T/classes.yaml")
cluster_up --nodes 2 --gpus 0 --cpus 2 --daemon "$SLURMLINKD" || bail "cluster up --nodes 2"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null || bail "busybox import"
kc() { kubectl --cache-dir "$CL/kcache" "$@"; }
jp() { kc get "$1" -o jsonpath="$2" 2>&1; }
pvc() { # NAME MODES SIZE [extra spec lines]
  printf 'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: %s}\nspec:\n  accessModes: [%s]\n  resources: {requests: {storage: "%s"}}\n%s' "$1" "$2" "$3" "${4:-}"
}
# pod NAME CLAIM SCRIPT [NODE] [READONLY]
pod() {
  cat <<Y
apiVersion: v1
kind: Pod
metadata: {name: $1, annotations: {slurmlink.io/runtime: charliecloud}}
spec:
  restartPolicy: Never
  ${4:+nodeSelector: {kubernetes.io/hostname: $4\}}
  volumes: [{name: d, persistentVolumeClaim: {claimName: $2${5:+, readOnly: true}}}]
  containers:
  - name: c
    image: busybox
    command: [sh, -c, '$3']
    volumeMounts: [{name: d, mountPath: /data}]
    resources: {requests: {cpu: 100m, memory: 32Mi}}
Y
}
phase() { jp "pod/$1" '{.status.phase}'; }
is_phase() { [ "$(phase "$1")" = "$2" ]; }
gone() { ! kc get "$@" >/dev/null 2>&1; }

# --- classes ---------------------------------------------------------------------------------
like "$(kc get storageclass 2>&1)" "shared \(default\) +slurmlink.io/shared-folder +Delete +Immediate +false +[0-9]+s"$'\n'"small +slurmlink.io/shared-folder +Retain +WaitForFirstConsumer +false" \
  "kubectl get storageclass: the default class and the admin's other one"
is "$(jp sc/shared '{.parameters.root}')" "$T/shared" "... its root, a folder every node sees"
like "$(cat "$CL/etc/storage-classes.yaml")" "- name: shared"$'\n'"  root: \"$CL/shared\""$'\n'"  default: true" \
  "up's own file names D/shared the default class (94-storage-tenants runs on it)"
like "$(printf 'apiVersion: storage.k8s.io/v1\nkind: StorageClass\nmetadata: {name: mine}\nprovisioner: x\n' | kc create -f - 2>&1)" \
  "MethodNotAllowed|does not allow this method" "StorageClasses are read-only (the admin's configuration)"

# --- a claim binds -----------------------------------------------------------------------------
is "$(pvc data ReadWriteMany 1Gi | kc apply -f - 2>&1)" "persistentvolumeclaim/data created" "kubectl apply a claim"
ok wait_for 20 eval '[ "$(jp pvc/data {.status.phase})" = Bound ]' "it binds at once (Immediate)"
vol=$(jp pvc/data '{.spec.volumeName}')
like "$(kc get pvc data 2>&1)" "data +Bound +$vol +1Gi +RWX +shared +<unset> +[0-9]+s" "kubectl get pvc: STATUS, VOLUME, CAPACITY, ACCESS MODES, STORAGECLASS"
like "$(kc get pv "$vol" 2>&1)" "$vol +1Gi +RWX +Delete +Bound +default/data +shared" "kubectl get pv: the volume, its claim, reclaim policy Delete"
is "$(stat -c '%U %a %F' "$T/shared/$vol" 2>&1)" "nobody 700 directory" "its folder beneath the class root: the claim's Unix user's (admin runs as nobody), mode 0700"
like "$(kc describe pvc data 2>&1)" "Finalizers: +\[kubernetes.io/pvc-protection\]" "kubectl describe pvc: the pvc-protection finalizer"
like "$(kc describe pvc data 2>&1)" "ProvisioningSucceeded +[0-9a-z]+ +slurmlink +Successfully provisioned volume $vol" "... and the event"

# --- bad claims --------------------------------------------------------------------------------
like "$(pvc bad1 "" 1Gi | kc create -f - 2>&1)" 'spec.accessModes: Required value: at least 1 access mode is required' "no access mode: 422 naming spec.accessModes"
like "$(pvc bad2 ReadWriteSometimes 1Gi | kc create -f - 2>&1)" 'spec.accessModes: Unsupported value: "ReadWriteSometimes"' "an unknown access mode: Unsupported value"
like "$(pvc bad3 ReadWriteMany 0 | kc create -f - 2>&1)" 'spec.resources.requests\[storage\]: Invalid value: "0": must be greater than zero' "a zero size: Invalid, naming spec.resources.requests[storage]"
like "$(printf 'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: bad4}\nspec: {accessModes: [ReadWriteMany]}\n' | kc create -f - 2>&1)" 'spec.resources\[storage\]: Required value' "no size: Required"
like "$(pvc Bad_5 ReadWriteMany 1Gi | kc create -f - 2>&1)" 'metadata.name: Invalid value: "Bad_5"' "a bad name: Invalid"
like "$(pvc bad6 ReadWriteMany 1Gi '  storageClassName: nosuch
' | kc create -f - 2>&1)" 'spec.storageClassName: Invalid value: "nosuch": no StorageClass nosuch' "an unknown class: Invalid, naming spec.storageClassName"
is "$(kc get pvc -o name 2>&1)" "persistentvolumeclaim/data" "no bad claim was stored"
like "$(kc patch pvc data -p '{"spec":{"accessModes":["ReadWriteOnce"]}}' 2>&1)" \
  'spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims' \
  "a claim's spec is immutable (422 naming spec)"

# --- across nodes ------------------------------------------------------------------------------
pod w1 data 'echo written-on-node1 >/data/f' node1 | kc apply -f - >/dev/null
ok wait_for 60 is_phase w1 Succeeded "a pod on node1 writes to the claim"
pod r2 data 'cat /data/f' node2 | kc apply -f - >/dev/null
ok wait_for 60 is_phase r2 Succeeded "a pod on node2 reads it"
is "$(kc logs r2 2>&1)|$(jp pod/w1 '{.spec.nodeName}') $(jp pod/r2 '{.spec.nodeName}')" "written-on-node1|node1 node2" "... the file node1's pod wrote"

# --- a pod waits for its claim ---------------------------------------------------------------
pod early later 'echo ran >/data/g' | kc apply -f - >/dev/null
ok wait_for 20 sched_says early 'persistentvolumeclaim "later" not found' "a pod whose claim does not exist: PodScheduled False with the reason"
is "$(phase early)" Pending "... it stays Pending (not Failed)"
pvc later ReadWriteOnce 10Mi | kc apply -f - >/dev/null
ok wait_for 60 is_phase early Succeeded "once the claim exists and binds, the pod runs"

# --- ReadWriteOncePod ------------------------------------------------------------------------------
pvc solo ReadWriteOncePod 10Mi | kc apply -f - >/dev/null
pod s1 solo 'sleep 600' | kc apply -f - >/dev/null
ok wait_for 60 is_phase s1 Running "a pod uses a ReadWriteOncePod claim"
pod s2 solo 'echo second >/data/s' | kc apply -f - >/dev/null
ok wait_for 20 sched_says s2 'persistentvolumeclaim "solo" is ReadWriteOncePod and in use by pod s1' "a second pod of the claim waits, with the reason"
is "$(phase s2)" Pending "... Pending"

# --- deleting a claim in use is deferred -------------------------------------------------------------
svol=$(jp pvc/solo '{.spec.volumeName}')
kc delete pvc solo --wait=false >/dev/null 2>&1
like "$(kc get pvc solo 2>&1)" "solo +Terminating" "a claim in use, deleted: Terminating, kept"
ok test -d "$T/shared/$svol" "... its folder stays while s1 runs"
kc delete pod s1 --wait=false >/dev/null 2>&1
ok wait_for 60 sched_says s2 'persistentvolumeclaim "solo" is being deleted' "once s1 ends, s2 still waits: its claim is being deleted"
kc delete pod s2 --wait=false >/dev/null 2>&1
ok wait_for 60 gone pvc solo "with no pod using it, the claim goes"
ok wait_for 30 eval "gone pv '$svol' && [ ! -e '$T/shared/$svol' ]" "... its volume and folder removed (reclaim Delete)"

# --- an admin's static volume ----------------------------------------------------------------------
mkdir "$T/shared/dataset" && echo "the data" >"$T/shared/dataset/README" && chmod -R a+rX "$T/shared/dataset"
static_pv() {
  printf 'apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: %s}\nspec:\n  capacity: {storage: 5Gi}\n  accessModes: [ReadOnlyMany, ReadWriteMany]\n  hostPath: {path: "%s"}\n' "$1" "$2"
}
like "$(static_pv outside /etc | kc create -f - 2>&1)" 'spec.hostPath.path: Invalid value: "/etc": must be a folder beneath the root of a StorageClass' \
  "a static volume outside every class root: 422 naming spec.hostPath.path"
is "$(static_pv dataset "$T/shared/dataset" | kc create -f - 2>&1)" "persistentvolume/dataset created" "an admin's static volume for existing data"
like "$(kc get pv dataset 2>&1)" "dataset +5Gi +ROX,RWX +Retain +Available" "... Available, reclaim policy Retain by default"
pvc ds ReadOnlyMany 1Gi '  storageClassName: ""
  volumeName: dataset
' | kc apply -f - >/dev/null
ok wait_for 20 eval '[ "$(jp pvc/ds {.status.phase})" = Bound ]' "a claim naming it binds to it"
pod rd ds 'cat /data/README; touch /data/x && echo WROTE || echo read-only' | kc apply -f - >/dev/null
ok wait_for 60 is_phase rd Succeeded "a pod mounts it"
like "$(kc logs rd 2>&1)" $'the data\n.*read-only' "... reads the data and cannot write it (the admin's files)"
kc delete pod rd >/dev/null 2>&1; kc delete pvc ds >/dev/null 2>&1
ok wait_for 30 eval '[ "$(jp pv/dataset {.status.phase})" = Released ]' "its claim deleted: the volume is Released (Retain)"
ok test -f "$T/shared/dataset/README" "... and the data kept"
mkdir -m 755 "$T/shared/reserved"
printf 'apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: reserved}\nspec:\n  capacity: {storage: 1Gi}\n  accessModes: [ReadWriteMany]\n  claimRef: {namespace: default, name: mine}\n  hostPath: {path: "%s"}\n' "$T/shared/reserved" | kc create -f - >/dev/null
pvc mine ReadWriteMany 1Gi '  storageClassName: ""
' | kc apply -f - >/dev/null
ok wait_for 20 eval '[ "$(jp pvc/mine {.status.phase}) $(jp pvc/mine {.spec.volumeName})" = "Bound reserved" ]' \
  "a volume whose claimRef reserves it binds the claim of that name"
like "$(kc describe pv reserved 2>&1)" "Claim: +default/mine"$'\n'".*Source:"$'\n'" +Type: +HostPath" "kubectl describe pv: its claim and source"

# --- the checkpoint of a PyTorchJob, resumed on the other node ---------------------------------------
ptj() { # NAME NODE SCRIPT
  cat <<Y
apiVersion: kubeflow.org/v1
kind: PyTorchJob
metadata: {name: $1}
spec:
  pytorchReplicaSpecs:
    Master:
      replicas: 1
      restartPolicy: Never
      template:
        metadata: {annotations: {slurmlink.io/runtime: charliecloud}}
        spec:
          nodeSelector: {kubernetes.io/hostname: $2}
          volumes: [{name: ckpt, persistentVolumeClaim: {claimName: ckpt}}]
          containers:
          - name: pytorch
            image: busybox
            command: [sh, -c, '$3']
            volumeMounts: [{name: ckpt, mountPath: /ckpt}]
            resources: {requests: {cpu: 100m, memory: 32Mi}}
Y
}
pvc ckpt ReadWriteMany 1Gi | kc apply -f - >/dev/null
train='step=0; [ -f /ckpt/step ] && step=$(cat /ckpt/step) && echo resumed from step $step; i=0; while [ $i -lt 5 ]; do step=$((step+1)); i=$((i+1)); done; echo $step >/ckpt/step.tmp && mv /ckpt/step.tmp /ckpt/step; echo checkpoint step $step'
ptj t1 node1 "$train" | kc apply -f - >/dev/null
ok kc wait --for=condition=Succeeded pytorchjob/t1 --timeout=90s "a PyTorchJob on node1 trains and writes its checkpoint to the claim"
n1=$(jp pod/t1-master-0 '{.spec.nodeName}')
like "$(kc logs t1-master-0 2>&1)" "checkpoint step 5" "... step 5"
kc delete pytorchjob t1 >/dev/null 2>&1
ok wait_for 30 gone pod t1-master-0 "the PyTorchJob is deleted"
ptj t2 node2 "$train" | kc apply -f - >/dev/null
ok kc wait --for=condition=Succeeded pytorchjob/t2 --timeout=90s "a second PyTorchJob on node2"
is "$(kc logs t2-master-0 2>&1 | tr '\n' '|')|$n1 $(jp pod/t2-master-0 '{.spec.nodeName}')" \
  "resumed from step 5|checkpoint step 10||node1 node2" "... resumes from the first one's checkpoint on the other node"

# a Job's pods (one Slurm job array) mount claims as every pod does
cat <<Y | kc apply -f - >/dev/null
apiVersion: batch/v1
kind: Job
metadata: {name: jobw}
spec:
  completions: 2
  completionMode: Indexed
  template:
    metadata: {annotations: {slurmlink.io/runtime: charliecloud}}
    spec:
      restartPolicy: Never
      volumes: [{name: d, persistentVolumeClaim: {claimName: data}}]
      containers:
      - name: c
        image: busybox
        command: [sh, -c, 'echo index \$JOB_COMPLETION_INDEX >/data/job-\$JOB_COMPLETION_INDEX']
        volumeMounts: [{name: d, mountPath: /data}]
        resources: {requests: {cpu: 100m, memory: 32Mi}}
Y
ok kc wait --for=condition=Complete job/jobw --timeout=90s "an Indexed Job whose pods mount a claim completes"
is "$(cat "$T/shared/$vol/job-0" "$T/shared/$vol/job-1" 2>&1 | tr '\n' ' ')" "index 0 index 1 " "... each index wrote its file to the claim"

# a gang's replicas share a ReadWriteOnce claim (one workload at a time)
pvc rwo ReadWriteOnce 10Mi | kc apply -f - >/dev/null
# (the Master waits for the Worker's file: the gang ends the Worker's step
# once the Master exits, as Kubeflow's cleanPodPolicy Running does)
ptj g node1 'echo rank $RANK >/ckpt/rank-$RANK; until [ -e /ckpt/rank-1 ]; do sleep 0.2; done' | sed -e 's/claimName: ckpt/claimName: rwo/' \
  -e 's/^    Master:/    Worker:\n      replicas: 1\n      restartPolicy: Never\n      template:\n        metadata: {annotations: {slurmlink.io\/runtime: charliecloud}}\n        spec:\n          volumes: [{name: ckpt, persistentVolumeClaim: {claimName: rwo}}]\n          containers:\n          - name: pytorch\n            image: busybox\n            command: [sh, -c, "echo rank $RANK >\/ckpt\/rank-$RANK"]\n            volumeMounts: [{name: ckpt, mountPath: \/ckpt}]\n            resources: {requests: {cpu: 100m, memory: 32Mi}}\n    Master:/' \
  -e '/nodeSelector/d' | kc apply -f - >/dev/null
ok kc wait --for=condition=Succeeded pytorchjob/g --timeout=90s "a PyTorchJob's Master and Worker share a ReadWriteOnce claim"
rv=$(jp pvc/rwo '{.spec.volumeName}')
is "$(cat "$T/shared/$rv/rank-0" "$T/shared/$rv/rank-1" 2>&1 | tr '\n' ' ')" "rank 0 rank 1 " "... both wrote to it"

# --- the admin's second class ---------------------------------------------------------------------
sm() { pvc "$1" "$2" "$3" '  storageClassName: small
'; }
like "$(sm huge ReadWriteOnce 1Gi | kc create -f - 2>&1)" 'spec.resources.requests\[storage\]: Forbidden: must be at most 104857600 bytes, the largest claim StorageClass small allows' \
  "a claim over the class's maxClaimSize: 422 naming spec.resources.requests[storage]"
like "$(sm many ReadWriteMany 10Mi | kc create -f - 2>&1)" 'spec.accessModes\[0\]: Invalid value: "ReadWriteMany": StorageClass small does not offer this access mode' \
  "an access mode the class does not offer: 422 naming it"
sm w1 ReadWriteOnce 100Mi | kc apply -f - >/dev/null
ok wait_for 20 event_says w1 WaitForFirstConsumer "WaitForFirstConsumer: the claim waits for a pod (event)"
is "$(jp pvc/w1 '{.status.phase}')" Pending "... Pending, no volume yet"
pod u1 w1 'echo first >/data/f' | kc apply -f - >/dev/null
ok wait_for 60 is_phase u1 Succeeded "a pod names it: it binds and the pod runs" ||
  diag "$(kc describe pod u1 2>&1 | tail -15; kc get pvc w1 2>&1)"
wvol=$(jp pvc/w1 '{.spec.volumeName}')
sm w2 ReadWriteOnce 100Mi | kc apply -f - >/dev/null
pod u2 w2 'true' | kc apply -f - >/dev/null
ok wait_for 30 event_says w2 'would exceed 157286400 bytes' "a claim that would take the namespace over the class's maxNamespaceSize: ProvisioningFailed"
is "$(jp pvc/w2 '{.status.phase}')|$(phase u2)" "Pending|Pending" "... it and its pod stay Pending"
kc delete pod u2 --wait=false >/dev/null 2>&1; kc delete pod u1 >/dev/null 2>&1; kc delete pvc w1 >/dev/null 2>&1
ok wait_for 30 eval '[ "$(jp "pv/$wvol" {.status.phase})" = Released ]' "Retain: the claim deleted, its volume is Released"
is "$(cat "$T/small/$wvol/f" 2>&1)" first "... and its folder kept, with the data"
