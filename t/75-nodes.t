#!/bin/bash
# covers: src/ctl/nodes.c src/api/ src/slurmif/
# slow
# Several Slurm nodes on one machine (`slurmlink up --nodes N`): a 4-node and
# a 2-node cluster side by side, each node a slurmd in its own network, UTS
# and mount namespace. sinfo and kubectl get nodes, distinct GPU files, srun
# across nodes, name resolution, pods on chosen nodes and spread over all,
# drain → SchedulingDisabled, one node's death (only its pods NodeLost) and
# its return with `up`, and `down` leaving no namespace, link or process.
source "$(dirname "$0")/lib.sh"
plan 46

tag_of() { /usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["network"]["tag"])' "$1/cluster.json"; }
subnet_of() { /usr/bin/python3 -c 'import json,sys; s=json.load(open(sys.argv[1]))["network"]["subnet"]; print("198.%d.%d" % (18 + s // 256, s % 256))' "$1/cluster.json"; }
# what a folder's tag still owns on this machine: namespaces, links, processes
leftovers() { # dir tag
  { ip netns list | grep -o "^sl$2-node[0-9]*"; ip -o link | grep -o "sl$2[a-z0-9]*"; procs_of "$1"; } 2>/dev/null
}

# --- bad input -----------------------------------------------------------------
out=$("$SLURMLINK" up --dir /tmp/slt.never --nodes 0 2>&1); rc=$?
ok test "$rc" = 2 -a ! -e /tmp/slt.never "up --nodes 0 is refused (exit $rc) and makes nothing"
like "$out" "--nodes must be an integer in 1..64" "the refusal names --nodes and its range"

# --- two clusters side by side -----------------------------------------------------
cluster_up --nodes 2 --gpus 1 --cpus 2 || bail "up --nodes 2"
C2=$CL T2=$(tag_of "$CL") N2=$(subnet_of "$CL")
cluster_up --nodes 4 --gpus 2 --cpus 2 || bail "up --nodes 4"
C4=$CL T4=$(tag_of "$CL") N4=$(subnet_of "$CL")
"$SLURMLINK" image import busybox --busybox --store "$C4/images" >/dev/null
KC=(kubectl --cache-dir "$C4/kcache")
kc() { "${KC[@]}" "$@"; }
ok test "$T2" != "$T4" -a "$N2" != "$N4" "the two folders have their own names ($T2, $T4) and /24s ($N2, $N4)"
st=$("$SLURMLINK" status --dir "$C4")
is "$(grep -cE '^slurmd-node[1-4] +running' <<<"$st")" 4 "status lists slurmd-node1..4 running"
is "$(ip netns list | grep -c "^sl$T4-node")" 4 "four network namespaces, one per node"
like "$(certtool -i --infile "$C4/pki/server.crt" 2>&1)" "IPAddress: $N4\.1[^0-9]" \
  "slurmlinkd's certificate names the bridge address the shims report to"
like "$(cat "$KUBECONFIG")" "server: https://$N4\.1:" "the kubeconfig points at slurmlinkd on the bridge"

s4=$(sinfo -h -N -o '%N %T %G %o')
is "$(awk '{print $1, $2, $3}' <<<"$s4" | tr '\n' ' ')" "node1 idle gpu:2 node2 idle gpu:2 node3 idle gpu:2 node4 idle gpu:2 " \
  "sinfo shows node1..node4 idle with gpu:2 each"
addrs=$(awk '{print $4}' <<<"$s4")
is "$(sort -u <<<"$addrs" | grep -c "^$N4\.")" 4 "each node has its own address in the folder's $N4.0/24"
is "$(SLURM_CONF=$C2/etc/slurm.conf sinfo -h -N -o '%N %T %o' | awk '{print $1, $2}' | tr '\n' ' ')" "node1 idle node2 idle " \
  "the 2-node cluster's sinfo shows its own node1 and node2 idle"

# --- kubectl get nodes ---------------------------------------------------------------
wide=$(kc get nodes -o wide --no-headers)
is "$(awk '$2 == "Ready"' <<<"$wide" | wc -l)" 4 "kubectl get nodes shows four Ready nodes"
is "$(awk '{print $1, $6}' <<<"$wide" | tr '\n' ' ')" "$(paste -d' ' <(echo "$s4" | awk '{print $1}') <(echo "$addrs") | tr '\n' ' ')" \
  "INTERNAL-IP of each node is Slurm's NodeAddr"
caps=$(kc get node node3 -o jsonpath='{.status.capacity.cpu} {.status.capacity.nvidia\.com/gpu} {.status.capacity.memory} {.status.allocatable.cpu} {.status.allocatable.nvidia\.com/gpu}')
mem=$(scontrol show node node3 | grep -o 'RealMemory=[0-9]*' | cut -d= -f2)
is "$caps" "2 2 ${mem}Mi 2 2" "node3's capacity and allocatable: Slurm's CPUs, GPUs and RealMemory"

# --- per-node GPU files and name resolution ------------------------------------------------
g1=$(grep '^NodeName=node1 ' "$C4/etc/gres.conf" | grep -o 'File=.*' | cut -d= -f2)
g2=$(grep '^NodeName=node2 ' "$C4/etc/gres.conf" | grep -o 'File=.*' | cut -d= -f2)
ok test -n "$g1" -a -n "$g2" -a "$g1" != "$g2" "gres.conf gives node1 and node2 their own device files ($g1, $g2)"
ok test -c "$C4/nodes/node2/dev/gpu0" -a -c "$C4/nodes/node2/dev/gpu1" -a ! "$C4/nodes/node1/dev/gpu0" -ef "$C4/nodes/node2/dev/gpu0" \
  "node2's gpu0 and gpu1 are character devices of its own"
j=$(sbatch --parsable -N2 -w node1,node2 -o "$C4/srun-%j.out" --wrap 'srun hostname; srun -N1 -w node2 getent hosts node1 node4')
job_done() { [ -z "$(squeue -h -j "$1" -o %i 2>/dev/null)" ]; }
ok wait_for 60 job_done "$j" "sbatch -N2 with srun inside finishes"
out=$(cat "$C4/srun-$j.out" 2>/dev/null)
is "$(grep -E '^node[0-9]+$' <<<"$out" | sort -u | wc -l)" 2 "srun hostname printed two different node names: $(grep -E '^node[0-9]+$' <<<"$out" | tr '\n' ' ')"
a1=$(sed -n 1p <<<"$addrs") a4=$(sed -n 4p <<<"$addrs")
like "$out" "$a1 +node1.*$a4 +node4" "on node2 the names node1 and node4 resolve to their addresses"
unlike "$(cat /etc/hosts)" "node1|$N4" "the machine's /etc/hosts is untouched"

# --- pods on chosen nodes, pods spread over all ---------------------------------------------------
pod() { # name command [node] [cpu]
  cat <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1}
spec:
  restartPolicy: Never
${3:+  nodeSelector: {kubernetes.io/hostname: $3\}}
  containers:
  - name: main
    image: busybox
    command: [sh, -c, '$2']
    resources: {requests: {cpu: "${4:-100m}", memory: 64Mi}}
YAML
}
for k in 1 2 3 4; do pod "on$k" 'echo host=$(hostname); sleep 1' "node$k" | kc apply -f - >/dev/null; done
phase() { kc get pod "$1" -o jsonpath='{.status.phase}' 2>/dev/null; }
all_phase() { local p; for p in "${@:2}"; do [ "$(phase "$p")" = "$1" ] || return 1; done; }
ok wait_for 90 all_phase Succeeded on1 on2 on3 on4 "four pods pinned with nodeSelector kubernetes.io/hostname succeed"
is "$(for k in 1 2 3 4; do kc get pod "on$k" -o jsonpath='{.spec.nodeName} '; done)" "node1 node2 node3 node4 " \
  "each pinned pod ran on its node (spec.nodeName)"
is "$(for k in 1 2 3 4; do kc get pod "on$k" -o jsonpath='{.status.hostIP} '; done)" "$(tr '\n' ' ' <<<"$addrs")" \
  "each pod's hostIP is its node's address"
like "$(kc logs on3)" "^host=node3" "kubectl logs shows the pod ran with node3's hostname"
for k in 1 2 3 4; do pod "wide$k" 'sleep 6' "" 2 | kc apply -f - >/dev/null; done
ok wait_for 120 all_phase Succeeded wide1 wide2 wide3 wide4 "four pods asking 2 CPUs each (a whole node) succeed"
is "$(for k in 1 2 3 4; do kc get pod "wide$k" -o jsonpath='{.spec.nodeName}{"\n"}'; done | sort -u | wc -l)" 4 \
  "Slurm spread them over the four nodes"

# --- drain → SchedulingDisabled, resume → Ready ------------------------------------------------------
scontrol update nodename=node2 state=drain reason=maintenance
nstatus() { kc get node "$1" --no-headers | awk '{print $2}'; }
is_status() { [ "$(nstatus "$1")" = "$2" ]; }
ok wait_for 30 is_status node2 Ready,SchedulingDisabled "a drained node shows Ready,SchedulingDisabled"
is "$(kc get node node2 -o jsonpath='{.spec.unschedulable}')" "true" "its spec.unschedulable is true"
scontrol update nodename=node2 state=resume
ok wait_for 30 is_status node2 Ready "resumed, it is Ready again"

# --- one node dies: only its pods are lost; up brings it back ----------------------------------------
pod lost3 'sleep 600' node3 | kc apply -f - >/dev/null
pod keep4 'sleep 600' node4 | kc apply -f - >/dev/null
ok wait_for 60 all_phase Running lost3 keep4 "a pod runs on node3 and one on node4"
d3=$(cat "$C4/run/slurmd-node3.pid")
kill -KILL "$d3"
ok wait_for 90 is_status node3 NotReady "node3's slurmd killed: node3 becomes NotReady"
ok wait_for 60 all_phase Failed lost3 "its pod fails"
is "$(kc get pod lost3 -o jsonpath='{.status.reason}')" "NodeLost" "with reason NodeLost"
is "$(phase keep4)" "Running" "node4's pod is untouched"
is "$(kc get nodes --no-headers | awk '$1 != "node3" {print $2}' | tr '\n' ' ')" "Ready Ready Ready " "the other nodes stay Ready"
out=$("$SLURMLINK" up --dir "$C4" 2>&1)
like "$out" "recovering: slurmd-node3 will be started" "up on the folder starts only node3's slurmd"
ok wait_for 60 is_status node3 Ready "node3 is Ready again"
pod back3 'echo back on $(hostname)' node3 | kc apply -f - >/dev/null
ok wait_for 60 all_phase Succeeded back3 "a new pod on node3 succeeds"
like "$(kc logs back3)" "back on node3" "and its logs come back"
is "$(phase keep4)" "Running" "node4's pod still runs"

# --- down leaves nothing behind ----------------------------------------------------------------
kc delete pod keep4 --wait=false >/dev/null 2>&1
"$SLURMLINK" down --dir "$C4" >/dev/null 2>&1
"$SLURMLINK" down --dir "$C2" >/dev/null 2>&1
is "$(leftovers "$C4" "$T4")" "" "down: no namespace, link or process of the 4-node folder is left"
is "$(leftovers "$C2" "$T2")" "" "down: nor of the 2-node folder"
unlike "$(ip -o addr)" "$N4\.|$N2\." "no address of either /24 is left"

# --- two folders after the same /24 at the same moment ---------------------------------
# two paths whose hash starts the search at the same /24: both `up`s pick it,
# and the one that finds the other's bridge there moves on
B=$(tmpdir)
chmod 711 "$B" # munged wants its socket's folders searchable by all (jobs reach it)
read -r P1 P2 < <(/usr/bin/python3 - "$B" <<'PY'
import sys
def fnv(s):
    h = 2166136261
    for b in s.encode():
        h = ((h ^ b) * 16777619) & 0xffffffff
    return h >> 24
seen = {}
for i in range(5000):
    p = "%s/f%d" % (sys.argv[1], i)
    if fnv(p) in seen:
        print(seen[fnv(p)], p)
        break
    seen[fnv(p)] = p
PY
)
on_exit "'$SLURMLINK' down --dir '$P1'; '$SLURMLINK' down --dir '$P2'; rm -rf '$B'"
"$SLURMLINK" up --dir "$P1" --nodes 2 --gpus 0 --cpus 1 >"$B/up1.log" 2>&1 & u1=$!
"$SLURMLINK" up --dir "$P2" --nodes 2 --gpus 0 --cpus 1 >"$B/up2.log" 2>&1 & u2=$!
wait $u1; r1=$?; wait $u2; r2=$?
is "$r1 $r2" "0 0" "two ups started at once on folders after the same /24 both succeed"
[ "$r1 $r2" = "0 0" ] || diag "$(cat "$B"/up*.log)"
ok test "$(subnet_of "$P1")" != "$(subnet_of "$P2")" "they end on different /24s ($(subnet_of "$P1"), $(subnet_of "$P2"))"
two_idle() { [ "$(SLURM_CONF=$1/etc/slurm.conf sinfo -h -N -t idle -o %N | wc -l)" = 2 ]; }
ok two_idle "$P1" "the first folder's two nodes are idle"
ok two_idle "$P2" "the second folder's two nodes are idle"
