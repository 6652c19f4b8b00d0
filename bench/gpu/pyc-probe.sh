#!/bin/bash
# pyc-probe.sh — on the GPU machine after run.sh (cluster up): who wrote the
# bytecode now under /opt/torch's torch package, then compile the image's own
# Python packages (as `pip install` does when it builds an image) and time the
# imports in three container pods again (bench/gpu/import-probe.py).
set -u
W=/tmp/slwork D=${D:-/var/tmp/slc}
export KUBECONFIG=$D/kubeconfig SLURM_CONF=$D/etc/slurm.conf PATH=/opt/slurmlink/build:$PATH
T=$(/opt/torch/.venv/bin/python3 -c 'import torch,os;print(os.path.dirname(torch.__file__))' 2>/dev/null)
echo "torch at $T"; ls -la --time-style=full-iso "$T/__pycache__" 2>&1 | head -3
I=$D/images/torch+latest
t0=$EPOCHREALTIME
$I/usr/bin/python3 --version >/dev/null 2>&1
/opt/torch/.venv/bin/python3 -m compileall -q -j 16 -d "$T" "$I$T" >/dev/null 2>&1
TV=$(dirname "$T")/torchvision
/opt/torch/.venv/bin/python3 -m compileall -q -j 16 -d "$TV" "$I$TV" >/dev/null 2>&1
echo "compileall in the image: $(awk -v a=$t0 -v b=$EPOCHREALTIME 'BEGIN{printf "%.1f", b-a}') s; pyc now $(find "$I$T" -name '*.pyc' | wc -l)"
for i in 1 2 3; do
  python3 - "$W/pod-container.yaml" probe-pyc-$i <<'PY' >$W/probe.yaml
import sys, yaml
p = yaml.safe_load(open(sys.argv[1])); c = p["spec"]["containers"][0]
p["metadata"]["name"] = sys.argv[2]
c["command"] = ["/opt/torch/.venv/bin/python3", "/tmp/slwork/import-probe.py"]
c["env"] = [{"name": "PROBE_WHERE", "value": "pod-rw-image-compiled"}]
print(yaml.safe_dump(p))
PY
  kubectl apply -f $W/probe.yaml >/dev/null
  for j in $(seq 1 300); do p=$(kubectl get pod probe-pyc-$i -o jsonpath='{.status.phase}'); case $p in Succeeded|Failed) break ;; esac; sleep 0.2; done
  kubectl logs probe-pyc-$i 2>&1 | tail -1
done
