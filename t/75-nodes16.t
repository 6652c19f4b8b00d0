#!/bin/bash
# covers: src/ctl/nodes.c src/api/ src/slurmif/
# Sixteen Slurm nodes on one machine: `slurmlink up --nodes 16`, a pod on
# the last node, a killed run recovered (stale namespaces and links too),
# and `down` leaving no namespace, link, mount or process behind.
source "$(dirname "$0")/lib.sh"
plan 20

cluster_up --nodes 16 --gpus 1 --cpus 1 || bail "up --nodes 16"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
T=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["network"]["tag"])' "$CL/cluster.json")
ok test -n "$T" "cluster.json records the folder's network (tag $T)"
nns() { ip netns list | grep -c "^sl$T-node"; }
is "$(nns)" 16 "sixteen network namespaces"
idle16() { [ "$(sinfo -h -N -t idle -o %N | grep -c '^node')" = 16 ]; }
ok idle16 "sinfo shows sixteen idle nodes"
is "$(kc get nodes --no-headers | awk '$2 == "Ready"' | wc -l)" 16 "kubectl get nodes shows sixteen Ready nodes"
is "$(sinfo -h -N -o '%o' | sort -u | wc -l)" 16 "each node has its own address"

cat >"$CL/last.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata: {name: last}
spec:
  restartPolicy: Never
  nodeSelector: {kubernetes.io/hostname: node16}
  containers:
  - name: main
    image: busybox
    command: [sh, -c, 'echo "on $(hostname) gpu=$CUDA_VISIBLE_DEVICES"']
    resources: {limits: {nvidia.com/gpu: 1}}
YAML
kc apply -f "$CL/last.yaml" >/dev/null
phase_is() { [ "$(kc get pod "$1" -o jsonpath='{.status.phase}')" = "$2" ]; }
ok wait_for 180 phase_is last Succeeded "a GPU pod pinned to node16 succeeds"
is "$(kc get pod last -o jsonpath='{.spec.nodeName} {.status.hostIP}')" "node16 $(sinfo -h -N -n node16 -o %o)" \
  "it ran on node16, at node16's address"
like "$(kc logs last)" "^on node16 gpu=0" "kubectl logs shows node16's hostname and its GPU"

# --- a killed run: every process gone, namespaces and links left -----------------------
for p in $(procs_of "$CL"); do kill -KILL "$p" 2>/dev/null; done
none_left() { [ -z "$(procs_of "$CL")" ]; }
ok wait_for 30 none_left "every process of the folder killed"
ip netns add "sl$T-node17"; ip link add "sl${T}h17" type bridge
ok test "$(nns)" = 17 -a -e "/sys/class/net/sl${T}h17" "the killed run left its namespaces and links (and a stale pair beyond the recorded count)"
out=$("$SLURMLINK" up --dir "$CL" 2>&1); rc=$?
is "$rc" 0 "up on the killed folder recovers it"
like "$out" "left by an earlier run \(0 of 19 daemons alive\)" "it says the folder was left by a killed run"
is "$(nns)" 16 "sixteen namespaces again; the stale extra one is gone"
ok test ! -e "/sys/class/net/sl${T}h17" "the stale link is gone"
ok wait_for 60 idle16 "all sixteen nodes idle again"
sed 's/name: last/name: again/; s/node16/node15/; /nvidia/d' "$CL/last.yaml" | kc apply -f - >/dev/null
# its end, then its phase: a failure says how it ended and what Slurm and
# slurmlinkd saw (a bare timeout said nothing); the wait is generous, as the
# whole suite's load on sixteen slurmds and a restarted slurmctld can take long
ended() { phase_is again Succeeded || phase_is again Failed; }
wait_for 180 ended
ok phase_is again Succeeded "after recovery a pod pinned to node15 succeeds" ||
  diag "$(kc get pod again -o jsonpath='{.status}' 2>&1; echo; kc get events --field-selector involvedObject.name=again 2>&1
    squeue -a -t all -o '%i %j %T %r %N' 2>&1; sinfo -N -h -o '%N %T' 2>&1 | sort -V | tr '\n' ' '; echo
    tail -n 20 "$CL/log/slurmlinkd.log"; grep -E 'JobId|node15' "$CL/log/slurmctld.log" | tail -n 20)"

# --- down: nothing left -------------------------------------------------------------
"$SLURMLINK" down --dir "$CL" >/dev/null 2>&1
is "$(ip netns list | grep "^sl$T" | tr '\n' ' ')" "" "down: no namespace of the folder is left"
is "$(ip -o link | grep -o "sl$T[a-z0-9]*" | tr '\n' ' ')" "" "down: no link of the folder is left"
is "$(procs_of "$CL" | tr '\n' ' ')" "" "down: no process of the folder is left"
is "$(grep -E "$CL|netns/sl$T" /proc/mounts | tr '\n' ' ')" "" "down: no mount of the folder is left"
