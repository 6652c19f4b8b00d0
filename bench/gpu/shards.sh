#!/bin/bash
# shards.sh — on the GPU machine (as root, a fresh machine): install the bundle
# (make-bundle.sh) as run.sh does, start `slurmlink up --gpus 1 --shards 2` on
# the real GPU, then two host-runtime pods that each ask for one
# nvidia.com/gpu.shared: they wait for each other (both run at once on the one
# GPU), then each lists the GPU (nvidia-smi -L) and multiplies on it with
# PyTorch. Everything it prints goes to stdout; the GPU's settings (MIG mode
# included) are only read, never changed.
set -u
G=$(cd "$(dirname "$0")" && pwd)
W=/tmp/slwork D=/var/tmp/slsh B=/tmp/slwork/bundle SL=/opt/slurmlink/build
ts() { printf '\n=== [%s] %s\n' "$(date -u +%T)" "$*"; }
ts facts
nvidia-smi -L; nvidia-smi --query-gpu=name,mig.mode.current,driver_version --format=csv
mkdir -p $W $B && chmod 755 $W && tar xzf "$G/bundle.tgz" -C $B || exit 1
ts install
(cd $B/root && find . \( -type f -o -type l \)) | while read -r f; do
  dst=/${f#./}; [ -e "$dst" ] || [ -L "$dst" ] || { mkdir -p "$(dirname "$dst")"; cp -a "$B/root/$f" "$dst"; }; done
mkdir -p /usr/local/lib/slurmlink-debian
have=$(ldconfig -p | awk 'NR>1{print $1}' | sort -u)
for l in $B/libs/*; do grep -qxF "$(basename $l)" <<<"$have" || cp "$l" /usr/local/lib/slurmlink-debian/; done
echo /usr/local/lib/slurmlink-debian >/etc/ld.so.conf.d/zz-slurmlink-debian.conf; ldconfig
command -v kubectl >/dev/null || cp $B/extra/kubectl /usr/local/bin/kubectl
mkdir -p $SL && chmod 755 /opt/slurmlink $SL && cp $B/slurmlink/build/* $SL/ && chmod 755 $SL/*
ts "slurmlink up --dir $D --gpus 1 --shards 2"
cd /tmp && timeout 200 $SL/slurmlink up --dir $D --gpus 1 --shards 2 >$W/up.out 2>&1; echo "up: $?"; tail -4 $W/up.out
export KUBECONFIG=$D/kubeconfig SLURM_CONF=$D/etc/slurm.conf PATH=$SL:$PATH
cat $D/etc/gres.conf; sinfo -N -o '%N %G %T'
kubectl get node node1 -o jsonpath='{.status.capacity}{"\n"}'
S=/tmp/slsync; rm -rf $S; mkdir -m 1777 $S
for p in share-a share-b; do
  cat <<YAML | kubectl apply -f -
apiVersion: v1
kind: Pod
metadata: {name: $p, annotations: {slurmlink.io/runtime: host}}
spec:
  restartPolicy: Never
  containers:
  - name: c
    command: ["sh", "-c"]
    args:
    - |
      echo "pod=$p CUDA_VISIBLE_DEVICES=\$CUDA_VISIBLE_DEVICES SLURM_JOB_GPUS=\$SLURM_JOB_GPUS job=\$SLURM_JOB_ID"
      touch $S/$p; n=0; while [ \$(ls $S | wc -l) -lt 2 ] && [ \$n -lt 900 ]; do sleep 0.1; n=\$((n+1)); done
      echo "met=\$(ls $S | wc -l) at \$(date -u +%T.%N)"
      nvidia-smi -L
      /opt/torch/.venv/bin/python3 -c 'import torch; x = torch.ones(2048, 2048, device="cuda"); print("torch", torch.cuda.get_device_name(0), "devices", torch.cuda.device_count(), "sum", float((x @ x).sum()))'
      echo "done at \$(date -u +%T.%N)"
    resources:
      requests: {cpu: "1", memory: 2Gi}
      limits: {nvidia.com/gpu.shared: 1}
YAML
done
both() { [ "$(squeue -h -t R -o %i | wc -l)" = 2 ]; }
for i in $(seq 1 300); do both && break; sleep 0.2; done
ts "both running at once"; squeue -o '%.6i %.16j %.8T %.16b %N'
for j in $(squeue -h -o %i); do scontrol show job -d $j | grep -E 'JobId|GRES=' | tr -s ' '; done
fin() { local p; p=$(kubectl get pod "$1" -o jsonpath='{.status.phase}'); [ "$p" = Succeeded ] || [ "$p" = Failed ]; }
for i in $(seq 1 600); do fin share-a && fin share-b && break; sleep 0.2; done
ts "pods"; kubectl get pods -o wide
for p in share-a share-b; do echo "--- $p"; kubectl logs $p; done
nvidia-smi --query-gpu=name,mig.mode.current --format=csv
