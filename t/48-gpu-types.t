#!/bin/bash
# covers: src/gpu/ src/translate/gres.c src/api/dra_kind.c src/ctl/claims.c src/ctl/gpustatus.c src/ctl/nodes.c src/shim/gpu.c src/report/ src/cluster/conf.c
# 48-gpu-types.t — typed GPUs, MIG profiles and shards on fake devices:
# `slurmlink up --nodes 3 --gpus 2 --gpu-types h100,a100,1g.10gb --shards 2`
# labels each Node with its nvidia.com/gpu.product; a pod selecting a product
# (nodeSelector or a required nodeAffinity) gets --gres=gpu:TYPE:N and runs
# only on that node; nvidia.com/mig-1g.10gb runs on the MIG node;
# two pods asking for nvidia.com/gpu.shared share one GPU at the same time
# while a plain sbatch job holds the node's other GPU; a DRA ResourceClaim
# for an A100 (CEL on productName) runs on node2 and its status names the
# device; and `slurmlink report`
# (accounting and the jobs' gpu-record lines) finds nothing held twice, and
# finds a GPU held whole while shared when one is planted.
source "$(dirname "$0")/lib.sh"
plan 45

cluster_up --nodes 3 --gpus 2 --cpus 4 --gpu-types h100,a100,1g.10gb --shards 2 --accounting || bail "up --gpu-types"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
kc() { kubectl --cache-dir "$CL/kcache" "$@"; }
jp() { kc get "$@" 2>/dev/null; }
SYNC=$(mktemp -d /tmp/slt-gpusync.XXXXXX)
chmod 1777 "$SYNC"
mkdir -m 1777 "$SYNC/b"
on_exit "rm -rf '$SYNC'"

# 1-4: the Nodes advertise their GPU type and counts
labelled() { [ -n "$(jp node node2 -o jsonpath='{.metadata.labels.nvidia\.com/gpu\.product}')" ]; }
wait_for 60 labelled
is "$(jp node node1 -o jsonpath='{.metadata.labels.nvidia\.com/gpu\.product}')" NVIDIA-H100-80GB-HBM3 \
  "node1's GPUs are H100s (GRES type h100 through the policy table)"
is "$(jp node node2 -o jsonpath='{.metadata.labels.nvidia\.com/gpu\.product}')" NVIDIA-A100-SXM4-80GB \
  "node2's are A100s"
is "$(jp node node2 -o jsonpath='{.status.capacity.nvidia\.com/gpu} {.metadata.labels.nvidia\.com/gpu\.count}')" \
  "2 2" "capacity and label nvidia.com/gpu.count: 2"
is "$(jp node node1 -o jsonpath='{.status.capacity.nvidia\.com/gpu\.shared}')" 4 \
  "capacity nvidia.com/gpu.shared: 2 shards on each of 2 GPUs"

# a pod of one busybox container: NAME, the spec's extra fields, the resource
pod() {
  printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","annotations":{"slurmlink.io/runtime":"charliecloud","slurmlink.io/tmp":"node"}},"spec":{"restartPolicy":"Never",%s"containers":[{"name":"main","image":"busybox","command":["sh","-c",%s],"resources":{"requests":{"cpu":"100m","memory":"32Mi"},"limits":{%s}}}]}}' \
    "$1" "$2" "$3" "$4"
}
done_() { local p; p=$(jp pod "$1" -o jsonpath='{.status.phase}'); [ "$p" = Succeeded ] || [ "$p" = Failed ]; }
show='d=$(ls /dev | grep nvidia | tr "\n" " "); echo "dev=${d}ino=$(stat -c %i /dev/$(ls /dev | grep nvidia | head -1))"'
q() { printf '%s' "$1" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))'; }

# 5-8: typed requests land only on a node of that type
pod ta '"nodeSelector":{"nvidia.com/gpu.product":"NVIDIA-A100-SXM4-80GB"},' "$(q "$show")" '"nvidia.com/gpu":1' | kc create -f - >/dev/null
pod th '"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"nvidia.com/gpu.product","operator":"In","values":["NVIDIA-H100-80GB-HBM3"]}]}]}}},' \
  "$(q "$show")" '"nvidia.com/gpu":2' | kc create -f - >/dev/null
wait_for 120 done_ ta
wait_for 120 done_ th
is "$(jp pod ta -o jsonpath='{.status.phase} {.spec.nodeName}')" "Succeeded node2" \
  "the A100 pod (nodeSelector) ran on node2, the A100 node, not the first free node1"
is "$(jp pod th -o jsonpath='{.status.phase} {.spec.nodeName}')" "Succeeded node1" \
  "the H100 pod (required nodeAffinity, 2 GPUs) ran on node1"
like "$(grep -h 'gres' "$CL"/pods/default/ta-*/job.sh 2>&1)" '^#SBATCH --gres=gpu:a100:1$' \
  "its job asked Slurm for gpu:a100:1"
is "$(jp node node3 -o jsonpath='{.status.capacity.nvidia\.com/mig-1g\.10gb}/{.status.capacity.nvidia\.com/gpu}/{.metadata.labels.nvidia\.com/gpu\.product}')" \
  "2//" "node3's MIG devices are capacity nvidia.com/mig-1g.10gb, not whole GPUs"
pod tm '' "$(q "$show")" '"nvidia.com/mig-1g.10gb":1' | kc create -f - >/dev/null
wait_for 120 done_ tm
is "$(jp pod tm -o jsonpath='{.status.phase} {.spec.nodeName}')" "Succeeded node3" \
  "a pod asking for nvidia.com/mig-1g.10gb ran on node3"
like "$(grep -h 'gres' "$CL"/pods/default/tm-*/job.sh 2>&1)" '^#SBATCH --gres=gpu:1g.10gb:1$' \
  "its job asked Slurm for gpu:1g.10gb:1"
out=$(pod bad '"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"nvidia.com/gpu.product","operator":"In","values":["a","b"]}]}]}}},' \
  '"true"' '"nvidia.com/gpu":1' | kc create -f - 2>&1)
like "$out" 'is invalid: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms: Invalid value: "nvidia.com/gpu.product": only one nodeSelectorTerm with operator In and one value' \
  "two products in one term: 422 naming the field"

# 9-16: an sbatch job holds one GPU of node1; two shard pods share the other
W=$(mktemp -d /tmp/slt-gpuw.XXXXXX)
chmod 755 "$W"
on_exit "rm -rf '$W'"
sb=$(cd "$W" && runuser -u "$SL_JOB_USER" -- sbatch --parsable -w node1 --gres=gpu:1 -o /dev/null \
  --wrap "echo \$SLURM_JOB_GPUS >$SYNC/sbatch.gpu; echo gpu-record job=\$SLURM_JOB_ID node=\$SLURMD_NODENAME gpu=\$CUDA_VISIBLE_DEVICES >$SYNC/sbatch.rec; while [ ! -e $SYNC/done ]; do sleep 0.2; done" 2>&1)
on_exit "scancel $sb 2>/dev/null"
wait_for 60 test -s "$SYNC/sbatch.gpu"
sgpu=$(cat "$SYNC/sbatch.gpu" 2>/dev/null)
like "$sgpu" '^[01]$' "the sbatch job (user $SL_JOB_USER, --gres=gpu:1) holds GPU $sgpu of node1"
bar='echo "gpu-record job=$SLURM_JOB_ID node=$SLURMD_NODENAME gpu=$CUDA_VISIBLE_DEVICES shards=1"; touch '$SYNC'/b/$(cat /proc/sys/kernel/random/uuid); n=0; while [ $(ls '$SYNC'/b | wc -l) -lt 2 ] && [ $n -lt 600 ]; do usleep 100000; n=$((n+1)); done; echo "together=$(ls '$SYNC'/b | wc -l)"; sleep 2'
# each holds its shard 2 s past the meeting: accounting keeps whole seconds
for p in sa sb; do
  pod "$p" '"nodeSelector":{"kubernetes.io/hostname":"node1"},' "$(q "$show; $bar")" '"nvidia.com/gpu.shared":1' | kc create -f - >/dev/null
done
wait_for 120 done_ sa
wait_for 120 done_ sb
la=$(kc logs sa 2>&1) lb=$(kc logs sb 2>&1)
is "$(jp pod sa -o jsonpath='{.status.phase} {.spec.nodeName}') $(jp pod sb -o jsonpath='{.status.phase} {.spec.nodeName}')" \
  "Succeeded node1 Succeeded node1" "both shard pods ran on node1"
like "$(grep -h 'gres' "$CL"/pods/default/sa-*/job.sh 2>&1)" '^#SBATCH --gres=shard:1$' \
  "a shard pod's job asked for shard:1"
like "$la" 'together=2' "the first shard pod saw the second running at the same time: $la"
like "$lb" 'together=2' "... and the second the first: $lb"
other=$((1 - ${sgpu:-0}))
want=$(stat -c %i "$CL/nodes/node1/dev/gpu$other" 2>&1)
like "$la" "(^|"$'\n'")dev=nvidia$other ino=$want"$'\n' "the first sees one GPU, node1's gpu$other, the one the sbatch job does not hold"
like "$lb" "(^|"$'\n'")dev=nvidia$other ino=$want"$'\n' "... and so does the second: the same GPU, shared"
is "$(jp pod sa -o jsonpath='{.metadata.annotations.slurmlink\.io/gpus}')" \
  "{\"indexes\":[$other],\"node\":\"node1\",\"shards\":1,\"uuids\":[null]}" \
  "the pod's slurmlink.io/gpus: what Slurm bound (index, node, shards; no UUID on a fake GPU)"
is "$(jp pod sa -o jsonpath='{.status.containerStatuses[0].allocatedResourcesStatus}')" \
  "[{\"name\":\"nvidia.com/gpu.shared\",\"resources\":[{\"health\":\"Healthy\",\"resourceID\":\"node1/gpu$other\"}]}]" \
  "its container's allocatedResourcesStatus names the device"
like "$(kc get events --field-selector involvedObject.name=sa -o jsonpath='{range .items[*]}{.reason}: {.message}{"\n"}{end}' 2>&1)" \
  "GPUsBound: Slurm bound GPU $other on node1, 1 shard\\(s\\) to the pod" "an Event GPUsBound says which GPU"
is "$(jp pod th -o jsonpath='{.metadata.annotations.slurmlink\.io/gpus}')" \
  '{"indexes":[0,1],"node":"node1","uuids":[null,null]}' "the 2-GPU pod's annotation names both of node1's GPUs"
touch "$SYNC/done"
gone() { [ -z "$(squeue -h -j "$sb" -o %T 2>/dev/null)" ]; }
ok wait_for 60 gone "the sbatch job ends once the shard pods are done"

# 20-22: slurmlink report from accounting: the shard pods shared a GPU, nothing
# was held twice; a planted record of the sbatch job on their GPU is found
jobid() { jp pod "$1" -o jsonpath='{.metadata.annotations.slurmlink\.io/job-id}'; }
JOBS="$sb,$(jobid sa),$(jobid sb)"
# slurmdbd may hear of a short job's end before its start (JobName
# "allocation" until then): wait for both
ended() { [ "$(sacct -n -X -P -j "$JOBS" -o JobName,End | grep -c '^\(wrap\|default/s[ab]\)|20')" = 3 ]; }
wait_for 60 ended
printf '%s\n%s\n' "$la" "$lb" | cat - "$SYNC/sbatch.rec" >"$W/rec" 2>/dev/null
out=$("$SLURMLINK" report --jobs "$JOBS" --records "$W/rec" 2>&1; echo "rc=$?")
like "$out" "no GPU was held by two jobs at once: 3 holdings of 2 \\(node, GPU\\) pair\\(s\\) by 3 GPU job\\(s\\)" \
  "report: the sbatch job and the two shard pods, nothing held twice"
like "$out" $'shards: 1 time\\(s\\) two jobs held shards of one GPU at once.*\nrc=0$' "... the two shard pods shared one GPU"
cat "$SYNC/sbatch.rec" >"$W/rec-sbatch" 2>/dev/null
out=$("$SLURMLINK" report --jobs "$JOBS" --records "$W/rec-sbatch" 2>&1; echo "rc=$?")
like "$out" "default/sa +$SL_JOB_USER +default +node1 +node1:$other/shard:1 .*shards: 1 time\\(s\\).*rc=0$" \
  "report without the pods' own records: their slurmlink.io/gpus annotations say which GPU"
echo "gpu-record job=$sb node=node1 gpu=$other" >>"$W/rec"
out=$("$SLURMLINK" report --jobs "$JOBS" --records "$W/rec" 2>&1; echo "rc=$?")
like "$out" "OVERLAP: node1 GPU $other held by job [0-9]+ .* \\(whole by one, shards by the other\\).*rc=1$" \
  "a planted whole-GPU record of the sbatch job on the shared GPU is an overlap"

# DRA, resource.k8s.io/v1: a claim for one A100, a CEL expression outside the subset
claim() { # NAME CEL
  printf '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaim","metadata":{"name":"%s"},"spec":{"devices":{"requests":[{"name":"gpu","exactly":{"deviceClassName":"gpu.nvidia.com","selectors":[{"cel":{"expression":%s}}]}}]}}}' "$1" "$(q "$2")"
}
is "$(jp deviceclass -o jsonpath='{.items[*].metadata.name}')" gpu.nvidia.com "the DeviceClass gpu.nvidia.com is installed"
like "$(kc explain resourceclaim.spec.devices.requests.exactly 2>&1)" 'KIND: +ResourceClaim.*deviceClassName' \
  "kubectl explain knows ResourceClaim (its OpenAPI schema is served)"
claim a100 'device.attributes["gpu.nvidia.com"].productName == "NVIDIA A100-SXM4-80GB"' | kc create -f - >/dev/null
out=$(claim bad 'device.attributes["gpu.nvidia.com"].memory > 10' | kc create -f - 2>&1)
like "$out" 'ResourceClaim "bad" is invalid: spec.devices.requests\[0\].exactly.selectors\[0\].cel.expression: Invalid value: .*slurmlink reads only device.driver' \
  "a CEL expression outside the subset: 422 naming the field"
printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"dra","annotations":{"slurmlink.io/runtime":"charliecloud","slurmlink.io/tmp":"node"}},"spec":{"restartPolicy":"Never","resourceClaims":[{"name":"gpu","resourceClaimName":"a100"}],"containers":[{"name":"main","image":"busybox","command":["sh","-c",%s],"resources":{"claims":[{"name":"gpu"}],"requests":{"cpu":"100m","memory":"32Mi"}}}]}}' \
  "$(q "$show; while [ ! -e $SYNC/dra-done ]; do usleep 100000; done")" | kc create -f - >/dev/null
running() { [ "$(jp pod dra -o jsonpath='{.status.phase}')" = Running ] && [ -n "$(kc logs dra 2>/dev/null)" ]; }
wait_for 120 running
is "$(jp pod dra -o jsonpath='{.status.phase} {.spec.nodeName}')" "Running node2" "the claim's pod runs on node2, the A100 node"
like "$(grep -h 'gres' "$CL"/pods/default/dra-*/job.sh 2>&1)" '^#SBATCH --gres=gpu:a100:1$' "its job asked for gpu:a100:1"
dgpu=$(jp pod dra -o jsonpath='{.metadata.annotations.slurmlink\.io/gpus}' | python3 -c 'import json,sys; print(json.load(sys.stdin)["indexes"][0])' 2>&1)
like "$(kc logs dra 2>&1)" "^dev=nvidia$dgpu ino=$(stat -c %i "$CL/nodes/node2/dev/gpu$dgpu" 2>&1)\$" "its container sees node2's gpu$dgpu only"
allocated() { [ -n "$(jp resourceclaim a100 -o jsonpath='{.status.allocation.devices.results[0].device}')" ]; }
wait_for 30 allocated
is "$(jp resourceclaim a100 -o jsonpath='{.status.allocation.devices.results[0].request} {.status.allocation.devices.results[0].driver} {.status.allocation.devices.results[0].pool} {.status.allocation.devices.results[0].device} {.status.reservedFor[0].name}')" \
  "gpu gpu.nvidia.com node2 gpu$dgpu dra" "the claim's status names the device Slurm bound (pool node2, gpu$dgpu) and the pod"
like "$(kc get resourceclaims 2>&1)" $'NAME +STATE +AGE\na100 +allocated,reserved +' "kubectl get resourceclaims: allocated,reserved"
touch "$SYNC/dra-done"
wait_for 60 done_ dra
released() { [ -z "$(jp resourceclaim a100 -o jsonpath='{.status}')" ]; }
ok wait_for 30 released "once the pod has finished, the claim is released (no status: pending again)"
out=$(printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"drb"},"spec":{"resourceClaims":[{"name":"gpu","resourceClaimName":"a","resourceClaimTemplateName":"b"}],"containers":[{"name":"main","image":"busybox"}]}}' | kc create -f - 2>&1)
like "$out" 'spec.resourceClaims\[0\]: Invalid value: "": must specify one of: `resourceClaimName`, `resourceClaimTemplateName`' \
  "a pod's claim entry naming both a claim and a template: 422 naming the field"
# a pod whose claim does not exist yet waits for it, then runs
printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"drl","annotations":{"slurmlink.io/runtime":"charliecloud"}},"spec":{"restartPolicy":"Never","resourceClaims":[{"name":"gpu","resourceClaimName":"late"}],"containers":[{"name":"main","image":"busybox","command":["true"],"resources":{"claims":[{"name":"gpu"}],"requests":{"cpu":"100m","memory":"32Mi"}}}]}}' | kc create -f - >/dev/null
waits() { kc get events --field-selector involvedObject.name=drl -o jsonpath='{.items[*].message}' 2>/dev/null | grep -q 'resourceclaim default/late not found'; }
ok wait_for 30 waits "a pod whose claim is missing waits, saying so in an Event"
is "$(jp pod drl -o jsonpath='{.status.phase}')" Pending "... Pending"
claim late 'device.driver == "gpu.nvidia.com"' | kc create -f - >/dev/null
wait_for 120 done_ drl
is "$(jp pod drl -o jsonpath='{.status.phase}')" Succeeded "once the claim exists, it runs"
printf '{"apiVersion":"resource.k8s.io/v1","kind":"ResourceClaimTemplate","metadata":{"name":"any"},"spec":{"spec":{"devices":{"requests":[{"name":"g","exactly":{"deviceClassName":"gpu.nvidia.com"}}]}}}}' | kc create -f - >/dev/null
printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"drt","annotations":{"slurmlink.io/runtime":"charliecloud"}},"spec":{"restartPolicy":"Never","resourceClaims":[{"name":"gpu","resourceClaimTemplateName":"any"}],"containers":[{"name":"main","image":"busybox","command":["true"],"resources":{"claims":[{"name":"gpu"}],"requests":{"cpu":"100m","memory":"32Mi"}}}]}}' | kc create -f - >/dev/null
wait_for 120 done_ drt
is "$(jp pod drt -o jsonpath='{.status.phase}') $(jp resourceclaim drt-gpu -o jsonpath='{.metadata.ownerReferences[0].name}') $(grep -h 'gres' "$CL"/pods/default/drt-*/job.sh 2>&1)" \
  "Succeeded drt #SBATCH --gres=gpu:1" "a template's claim drt-gpu is made for the pod, owned by it; its job asks for gpu:1"
kc delete pod drt --wait=false >/dev/null 2>&1
claim_gone() { ! jp resourceclaim drt-gpu -o name | grep -q .; }
ok wait_for 30 claim_gone "deleting the pod deletes the claim made for it"

# 23-25: ResourceQuota counts shards and MIG devices as the extended resources
# they are (requests.nvidia.com/gpu.shared, requests.nvidia.com/mig-1g.10gb);
# in namespace default, whose pods have a Slurm account (a pod that Slurm
# refuses fails and no longer counts)
kc create quota gq --hard=requests.nvidia.com/gpu.shared=1,requests.nvidia.com/mig-1g.10gb=1 >/dev/null
pod q1 '' '"sleep 600"' '"nvidia.com/gpu.shared":1' | kc create -f - >/dev/null
out=$(pod q2 '' '"sleep 600"' '"nvidia.com/gpu.shared":1' | kc create -f - 2>&1)
like "$out" 'is forbidden: exceeded quota: gq, requested: requests.nvidia.com/gpu.shared=1, used: requests.nvidia.com/gpu.shared=1, limited: requests.nvidia.com/gpu.shared=1' \
  "a second shard pod over requests.nvidia.com/gpu.shared=1 is refused"
pod q3 '' '"sleep 600"' '"nvidia.com/mig-1g.10gb":1' | kc create -f - >/dev/null
out=$(pod q4 '' '"sleep 600"' '"nvidia.com/mig-1g.10gb":1' | kc create -f - 2>&1)
like "$out" 'exceeded quota: gq, requested: requests.nvidia.com/mig-1g.10gb=1' \
  "a second MIG pod over requests.nvidia.com/mig-1g.10gb=1 is refused"
is "$(jp quota gq -o jsonpath='{.status.used.requests\.nvidia\.com/gpu\.shared} {.status.used.requests\.nvidia\.com/mig-1g\.10gb}')" "1 1" \
  "the quota's status.used counts one shard and one MIG device"
