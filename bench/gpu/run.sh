#!/bin/bash
# run.sh — on the GPU machine (as root, a fresh machine each time): install the
# bundle (make-bundle.sh: Debian 12's Slurm 22.05 + munge at Debian's own paths,
# charliecloud's ch-run, kubectl, slurmlink built from this checkout), start
# `slurmlink up --gpus 1`, make the PyTorch charliecloud image there
# (make-image.sh), check one GPU container pod, run two 1-GPU pods at once and a
# 1-GPU Job and a single-replica PyTorchJob (NCCL), then `slurmlink bench` with the container pod and the host pod
# (STEPS picks: check,diag,two,job,ptj,bench-ch,bench-host; diag times the imports
# on the node, in ch-run alone and in container pods; ORDER=ch,host the benches'
# order, RUNS_CH and RUNS_HOST their runs (default RUNS); run again on the still-warm
# machine, it skips what is done and waits for a bench left running). Stops waiting at LIMIT s
# (the machine's commands end at 600 s) with the bench left running for
# a second call; collect.sh puts everything into $OUT.
set -u
G=$(cd "$(dirname "$0")" && pwd)
W=/tmp/slwork D=${D:-/var/tmp/slc} B=/tmp/slwork/bundle SL=/opt/slurmlink/build
T0=$EPOCHREALTIME LIMIT=${LIMIT:-560} RUNS=${RUNS:-20} STEPS=${STEPS:-check,diag,two,job,ptj,bench-ch,bench-host}
el() { awk -v a="$T0" -v b="$EPOCHREALTIME" 'BEGIN{printf "%d", b-a}'; }
ts() { printf '\n=== [%s s] %s\n' "$(el)" "$*"; }
has() { case ",$STEPS," in *",$1,"*) return 0 ;; esac; return 1; }

ts "facts"
date -u; uname -r; head -1 /etc/os-release; nproc; nvidia-smi -L; nvidia-smi --query-gpu=driver_version --format=csv,noheader
ls -la /dev/nvidia* | cut -c1-120; df -h /tmp /var/tmp /usr /opt 2>&1 | sort -u
if [ -e $W/ready ]; then
  ts "resuming on the same machine (cluster $D up)"
else
mkdir -p $W $B && chmod 755 $W && tar xzf "$G/bundle.tgz" -C $B || exit 1
ts "install"
(cd $B/root && find . \( -type f -o -type l \)) | while read -r f; do
  dst=/${f#./}; [ -e "$dst" ] || [ -L "$dst" ] || { mkdir -p "$(dirname "$dst")"; cp -a "$B/root/$f" "$dst"; }; done
mkdir -p /usr/local/lib/slurmlink-debian
have=$(ldconfig -p | awk 'NR>1{print $1}' | sort -u)
for l in $B/libs/*; do grep -qxF "$(basename $l)" <<<"$have" || cp "$l" /usr/local/lib/slurmlink-debian/; done
echo /usr/local/lib/slurmlink-debian >/etc/ld.so.conf.d/zz-slurmlink-debian.conf; ldconfig
command -v curl >/dev/null || cp $B/extra/curl /usr/local/bin/curl
command -v kubectl >/dev/null || cp $B/extra/kubectl /usr/local/bin/kubectl
mkdir -p $SL && chmod 755 /opt/slurmlink $SL && cp $B/slurmlink/build/* $SL/ && chmod 755 $SL/*
cp "$G"/infer.py "$G"/import-probe.py "$G"/ptj-nccl.py "$G"/pod-*.yaml "$G"/ptj-nccl.yaml $W/ && chmod 644 $W/*
for f in $SL/* /usr/sbin/slurmctld /usr/sbin/slurmd /usr/bin/ch-run; do
  m=$(ldd "$f" 2>&1 | grep 'not found'); [ -n "$m" ] && echo "  $f: $m"; done
slurmd -V; ch-run --version 2>&1; kubectl version --client 2>&1 | head -1
cat /proc/sys/kernel/unprivileged_userns_clone 2>/dev/null; cat /proc/sys/user/max_user_namespaces

ts "slurmlink up --dir $D --gpus 1"
cd /tmp && timeout 200 $SL/slurmlink up --dir $D --gpus 1 >$W/up.out 2>&1; echo "up: $?"; tail -5 $W/up.out
export KUBECONFIG=$D/kubeconfig SLURM_CONF=$D/etc/slurm.conf PATH=$SL:$PATH
cat $D/etc/gres.conf; ls $D/etc/

ts "image: make-image.sh $D/images/torch+latest"
bash "$G/make-image.sh" $D/images/torch+latest 2>&1 | tail -3

touch $W/ready
fi
export KUBECONFIG=$D/kubeconfig SLURM_CONF=$D/etc/slurm.conf PATH=$SL:$PATH
kc() { kubectl "$@"; }
finished() { local p; p=$(kc get pod "$1" -o jsonpath='{.status.phase}' 2>/dev/null); [ "$p" = Succeeded ] || [ "$p" = Failed ]; }
wait_pod() { for i in $(seq 1 600); do finished "$1" && break; sleep 0.2; done; kc get pod "$1" -o wide 2>&1 | tail -1; kc logs "$1" 2>&1 | tail -3; }
CH_OK=1
if has check; then
  ts "check: one container GPU pod"
  sed 's/name: gpu-infer-ch/name: check-ch/' $W/pod-container.yaml | kc apply -f - >/dev/null
  wait_pod check-ch
  kc get pod check-ch -o jsonpath='{.status.phase}' | grep -q Succeeded || CH_OK=0
  [ $CH_OK = 1 ] || { kc get pod check-ch -o jsonpath='{.status.containerStatuses[0].state}'; echo; tail -20 $D/pods/default/check-ch-*/job.out; }
fi
if has diag && [ $CH_OK = 1 ]; then
  ts "diag: import times, the node's Python, ch-run on the stored image, container pods (3 each)"
  PY=/opt/torch/.venv/bin/python3 NB="setpriv --reuid=nobody --regid=nogroup --clear-groups"
  find /opt/torch -name '*.pyc' | wc -l | sed 's/^/pyc files under \/opt\/torch: /'
  for i in 1 2 3; do PROBE_WHERE=node $NB $PY $W/import-probe.py 2>&1 | tail -1; done
  for i in 1 2 3; do $NB env USER=nobody PROBE_WHERE=ch-run-ro ch-run $D/images/torch+latest -- $PY $W/import-probe.py 2>&1 | tail -1; done
  probe_pod() { # NAME WHERE [readOnlyRootFilesystem] [PYTHONDONTWRITEBYTECODE]
    python3 - "$W/pod-container.yaml" "$1" "$2" "${3:-}" "${4:-}" >$W/probe.yaml <<'PY'
import sys, yaml
p = yaml.safe_load(open(sys.argv[1])); c = p["spec"]["containers"][0]
p["metadata"]["name"] = sys.argv[2]
c["command"] = ["/opt/torch/.venv/bin/python3", "/tmp/slwork/import-probe.py"]
c["env"] = [{"name": "PROBE_WHERE", "value": sys.argv[3]}]
if sys.argv[4]: c["securityContext"] = {"readOnlyRootFilesystem": True}
if sys.argv[5]: c["env"].append({"name": "PYTHONDONTWRITEBYTECODE", "value": "1"})
print(yaml.safe_dump(p))
PY
    kc apply -f $W/probe.yaml >/dev/null; wait_pod "$1" >/dev/null; kc logs "$1" 2>&1 | tail -1; }
  for i in 1 2 3; do probe_pod probe-rw-$i pod-rw; done
  for i in 1 2 3; do probe_pod probe-ro-$i pod-readonly-root 1; done
  for i in 1 2 3; do probe_pod probe-nb-$i pod-no-bytecode "" 1; done
  PYTHONPROFILEIMPORTTIME=1 $NB $PY -c 'import torch, torchvision' 2>&1 | sed -n 's/^import time: *//p' | sort -n -r | head -6 | sed 's/^/node importtime self|cumul|module: /'
fi
if has two && [ $CH_OK = 1 ]; then
  ts "two 1-GPU pods at once on the one GPU"
  for n in two-a two-b; do sed "s/name: gpu-infer-ch/name: $n/; s/value: \"16\"/value: \"150\"/" $W/pod-container.yaml | kc apply -f - >/dev/null; done
  for i in $(seq 1 100); do s=$(squeue -h -o '%T' | sort | tr '\n' ' '); [ "$s" = "PENDING RUNNING " ] && break; sleep 0.1; done
  squeue -o '%.8i %.20j %.9T %.12r %b'
  kc get pod two-a two-b -o custom-columns=NAME:.metadata.name,PHASE:.status.phase,SCHED:.status.conditions[0].reason,MSG:.status.conditions[0].message
  wait_pod two-a; wait_pod two-b
  kc get events --field-selector involvedObject.name=two-b 2>&1 | tail -5
fi
if has job && [ $CH_OK = 1 ]; then
  ts "a 1-GPU batch/v1 Job"
  python3 - $W/pod-container.yaml >$W/job.yaml <<'PY'
import sys, yaml
p = yaml.safe_load(open(sys.argv[1]))
p["spec"]["restartPolicy"] = "Never"
print(yaml.safe_dump({"apiVersion": "batch/v1", "kind": "Job", "metadata": {"name": "gpu-job"},
  "spec": {"backoffLimit": 0, "template": {"metadata": {"annotations": p["metadata"]["annotations"]}, "spec": p["spec"]}}}))
PY
  kc apply -f $W/job.yaml
  for i in $(seq 1 300); do c=$(kc get job gpu-job -o jsonpath='{.status.succeeded}{.status.failed}' 2>/dev/null); [ -n "$c" ] && break; sleep 0.2; done
  kc get job gpu-job -o wide 2>&1; kc logs job/gpu-job 2>&1 | tail -2
fi
if has ptj; then
  ts "a single-replica PyTorchJob (NCCL) on the GPU"
  kc apply -f $W/ptj-nccl.yaml
  for i in $(seq 1 600); do s=$(kc get pytorchjob gpu-ptj -o jsonpath='{.status.conditions[-1:].type}' 2>/dev/null)
    case $s in Succeeded|Failed) break ;; esac; sleep 0.2; done
  kc get pytorchjob gpu-ptj 2>&1; kc get pods -l training.kubeflow.org/job-name=gpu-ptj -o wide 2>&1
  kc logs gpu-ptj-master-0 2>&1 | tail -12
  sacct -X -n -o JobID,JobName%20,NNodes,AllocTRES%40,State,Elapsed 2>&1 | grep gpu-ptj
fi
bench() { # NAME POD RUNS
  ts "bench $1: $3 runs per path"
  setsid $SL/slurmlink bench --dir $D --workload $W/$2 --runs $3 --warmup 1 --keep-pods --out $W/bench-$1 </dev/null >$W/bench-$1.stdout 2>$W/bench-$1.stderr &
  echo $! >$W/bench-$1.pid
}
waitb() { # NAME: until it ends or LIMIT
  local p; p=$(cat $W/bench-$1.pid 2>/dev/null) || return 0
  while kill -0 $p 2>/dev/null && [ "$(el)" -lt "$LIMIT" ]; do sleep 1; done
  if kill -0 $p 2>/dev/null; then echo "bench $1 still running at $(el) s"; tail -c 300 $W/bench-$1.stderr; echo; return 1; fi
  echo "bench $1 done"; cat $W/bench-$1.stdout | head -12; return 0
}
# The benches run one after another (one GPU), in ORDER; RUNS_CH / RUNS_HOST default to RUNS.
for b in $(echo "${ORDER:-ch,host}" | tr , ' '); do
  has bench-$b || continue
  [ $b = ch ] && [ $CH_OK != 1 ] && continue
  if [ ! -e $W/bench-$b.pid ]; then
    if [ $b = ch ]; then bench ch pod-container.yaml "${RUNS_CH:-$RUNS}"; else bench host pod-host.yaml "${RUNS_HOST:-$RUNS}"; fi
  fi
  waitb $b || break
done
ts "collect"
bash "$G/collect.sh"
ts "done"
