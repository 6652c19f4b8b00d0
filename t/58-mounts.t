#!/bin/bash
# covers: src/translate/volumes.c src/shim/
# 58-mounts.t — volume mounts that cannot work are refused when the pod is
# submitted (phase Failed, reason SubmitFailed, a message naming the field;
# no Slurm job), not found out inside a running job:
#   - a subPathExpr that expands to an absolute path or one with '..' (a way
#     out of the volume: kubelet refuses both, with these texts);
# A subPathExpr that stays inside its volume works, and so does a mountPath
# the image lacks (the shim makes the mount point in the run's private root).
source "$(dirname "$0")/lib.sh"

plan 12
cluster_up --gpus 0 --cpus 2 || { echo "not ok 1 - cluster up"; exit 1; }
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
# pod NAME MOUNTPATH SUBPATHEXPR VALUE: an emptyDir mounted with subPathExpr $(D), D=VALUE
pod() {
  printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s"},"spec":{"restartPolicy":"Never","volumes":[{"name":"v","emptyDir":{}}],"containers":[{"name":"main","image":"busybox","command":["sh","-c","echo hi >%s/f && ls %s"],"env":[{"name":"D","value":"%s"}],"volumeMounts":[{"name":"v","mountPath":"%s"%s}],"resources":{"requests":{"cpu":"100m","memory":"32Mi"}}}]}}' \
    "$1" "$2" "$2" "$4" "$2" "${3:+,\"subPathExpr\":\"$3\"}"
}
state() { kc get pod "$1" -o jsonpath='{.status.phase} {.status.reason}' 2>/dev/null; }
failed() { [ "$(state "$1")" = "Failed SubmitFailed" ]; }
job() { kc get pod "$1" -o jsonpath='{.metadata.annotations.slurmlink\.io/job-id}' 2>/dev/null; }
msg() { kc get pod "$1" -o jsonpath='{.status.message}' 2>/dev/null; }

pod up /home '$(D)' '../../../../../etc' | kc create -f - >/dev/null
ok wait_for 30 failed up "a subPathExpr expanding to ../../../../../etc: the pod fails at submission"
is "$(msg up)" "spec.containers[0].volumeMounts[0].subPathExpr: Invalid value: \"\$(D)\": unable to provision SubPath \`../../../../../etc\`: must not contain '..'" \
  "... with kubelet's reason, naming the field"
is "$(job up)" "" "... and no Slurm job"

pod abs /home 'x/$(D)' '/../../etc' | kc create -f - >/dev/null
pod abs2 /home '$(D)' '/etc' | kc create -f - >/dev/null
ok wait_for 30 failed abs2 "a subPathExpr expanding to /etc: the pod fails at submission"
is "$(msg abs2)" "spec.containers[0].volumeMounts[0].subPathExpr: Invalid value: \"\$(D)\": error SubPath \`/etc\` must not be an absolute path" \
  "... with kubelet's reason"
ok wait_for 30 failed abs "x/\$(D) with D=/../../etc: '..' inside the expansion is found too"

pod nomnt /no-such-dir '' '' | kc create -f - >/dev/null
is "$(squeue -h -t all -n default/up,default/abs,default/abs2 -o %i | wc -l)" 0 "Slurm never saw the refused pods"
done_nomnt() { [ "$(kc get pod nomnt -o jsonpath='{.status.phase}' 2>/dev/null)" = Succeeded ]; }
ok wait_for 60 done_nomnt "a mountPath the image lacks: the mount point is made in the container's own root (t/43-rootfs)"
like "$(kc logs nomnt 2>&1)" '^f$' "... and the volume is mounted there"
ok test ! -e "$CL/images/busybox+latest/no-such-dir" "... not in the stored image"

pod good /home 'sub-$(D)' 'a' | kc create -f - >/dev/null
done_good() { [ "$(kc get pod good -o jsonpath='{.status.phase}')" = Succeeded ]; }
ok wait_for 60 done_good "a subPathExpr inside its volume works"
like "$(kc logs good 2>&1)" '^f$' "... the container wrote into it"
