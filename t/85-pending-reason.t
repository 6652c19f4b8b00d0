#!/bin/bash
# covers: src/ctl/podstatus.c src/slurmif/ src/ctl/
# 85-pending-reason.t — a waiting pod's PodScheduled message follows its
# Slurm job's pending reason. slurmctld first holds a new job with reason
# None and gives it Resources (or Priority) in a later scheduling pass
# without changing the job list's update time, so slurmlinkd's incremental
# job load answers "no change"; the pod must still say `Slurm job N is
# pending: Resources`, not keep `None`, while an sbatch job holds the GPUs of both nodes.
source "$(dirname "$0")/lib.sh"
plan 5
cluster_up --nodes 2 --gpus 1 || bail "slurmlink up --nodes 2 --gpus 1"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null 2>&1 || bail "busybox image"
HOG=$(sbatch --parsable -N2 --gres=gpu:1 -J hog -o /dev/null --wrap 'sleep 300')
running() { [ "$(squeue -h -j "$HOG" -o %T)" = RUNNING ]; }
ok wait_for 60 running "an sbatch job holds the GPUs of both nodes"
cat > "$CL/wait.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: waiter}
spec:
  restartPolicy: Never
  containers:
  - name: main
    image: busybox
    command: ["sh", "-c", "echo ran on gpu $CUDA_VISIBLE_DEVICES"]
    resources: {limits: {nvidia.com/gpu: 1}}
YAML
kubectl apply -f "$CL/wait.yaml" >/dev/null
job() { kubectl get pod waiter -o jsonpath='{.metadata.annotations.slurmlink\.io/job-id}'; }
slurm_resources() { [ -n "$(job)" ] && [ "$(squeue -h -j "$(job)" -o '%T %r')" = "PENDING Resources" ]; }
ok wait_for 60 slurm_resources "Slurm holds the pod's job with reason Resources"
msg() { kubectl get pod waiter -o jsonpath='{.status.conditions[?(@.type=="PodScheduled")].message}'; }
pod_resources() { [ "$(msg)" = "Slurm job $(job) is pending: Resources" ]; }
wait_for 30 pod_resources
is "$(msg)" "Slurm job $(job) is pending: Resources" "the pod's PodScheduled message gives Slurm's reason"
scancel "$HOG"
ok wait_for 120 kubectl wait --for=jsonpath='{.status.phase}'=Succeeded pod/waiter --timeout=5s "the pod runs once the GPU is free"
is "$(kubectl logs waiter)" "ran on gpu 0" "... on the GPU"
