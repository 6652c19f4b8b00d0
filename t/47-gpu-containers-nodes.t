#!/bin/bash
# covers: src/shim/gpu.c src/translate/
# 47-gpu-containers-nodes.t — on `slurmlink up --nodes 2 --gpus 1` each node's
# GPU is its own fake device file (D/nodes/nodeK/dev/gpu0), and a charliecloud
# GPU container gets the file of the node it runs on: slurmlink-gpu.json's
# "{node}" template (src/shim/gpu.c) resolved with the job's SLURMD_NODENAME.
source "$(dirname "$0")/lib.sh"
plan 6

cluster_up --nodes 2 --gpus 1 --cpus 2 || bail "up --nodes 2"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
jp() { kc get pod "$1" -o jsonpath="$2" 2>/dev/null; }
is "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["devices"])' "$CL/etc/slurmlink-gpu.json" 2>&1)" \
  "$CL/nodes/{node}/dev/gpu%d" "the device template names each node's own folder"

SYNC=$(mktemp -d /tmp/slt-gnsync.XXXXXX)
chmod 1777 "$SYNC"
on_exit "rm -rf '$SYNC'"
# two 1-GPU pods that wait for each other: one on each node
script='echo "dev=$(ls /dev | grep nvidia | tr "\n" " ")ino=$(stat -c %i /dev/nvidia0)"; touch '$SYNC'/$(cat /proc/sys/kernel/random/uuid); n=0; while [ $(ls '$SYNC' | wc -l) -lt 2 ] && [ $n -lt 600 ]; do usleep 100000; n=$((n+1)); done'
cmd=$(printf '%s' "$script" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))')
for p in ga gb; do
  printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","annotations":{"slurmlink.io/runtime":"charliecloud","slurmlink.io/tmp":"node"}},"spec":{"restartPolicy":"Never","containers":[{"name":"main","image":"busybox","command":["sh","-c",%s],"resources":{"requests":{"cpu":"100m","memory":"32Mi"},"limits":{"nvidia.com/gpu":1}}}]}}' \
    "$p" "$cmd" | kc create -f - >/dev/null
done
done_() { local p; p=$(jp "$1" '{.status.phase}'); [ "$p" = Succeeded ] || [ "$p" = Failed ]; }
wait_for 180 done_ ga
wait_for 180 done_ gb
na=$(jp ga '{.spec.nodeName}') nb=$(jp gb '{.spec.nodeName}')
la=$(kc logs ga 2>&1) lb=$(kc logs gb 2>&1)
ok test -n "$na" -a -n "$nb" -a "$na" != "$nb" "the two pods ran on different nodes ($na, $nb)"
like "$la" '^dev=nvidia0 ino=[0-9]+$' "the first sees its node's one GPU at /dev/nvidia0: $la"
like "$lb" '^dev=nvidia0 ino=[0-9]+$' "... and so does the second: $lb"
is "${la#*ino=}" "$(stat -c %i "$CL/nodes/$na/dev/gpu0" 2>&1)" "the first's /dev/nvidia0 is $na's own device file"
is "${lb#*ino=}" "$(stat -c %i "$CL/nodes/$nb/dev/gpu0" 2>&1)" "... and the second's is $nb's"
