#!/bin/bash
# covers: src/api/ src/spdy/ src/shim/attach.c src/shim/exec.c src/shim/tty.c
# 76-exec-rootfs.t — kubectl exec joins the running charliecloud container
# (its user and mount namespaces, its private root): it sees what the main
# process wrote and the mount points the shim made for volumes, its writes
# are seen by the container, a readOnlyRootFilesystem stays read-only, two
# pods of one image stay apart, and the stored image never changes. Pods
# run as a real non-root Unix user (a tenant).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/61-security-lib.sh"
plan 17

sec_users || bail "Unix users for the test"
sec_cluster --cert --gpus 0 --cpus 6 <<EOF || bail "slurmlink up, the image and the tenants' kubeconfigs"
adminGroups: [system:masters]
namespaces:
  team-a: {write: {users: [alice]}}
users:
  admin: nobody
  alice: $UA
  bob: $UB
EOF
ka create namespace team-a >/dev/null
IMG=$CL/images/busybox+latest
# the image folder: every path, its type, mode, owner, size, link target and content
tree_sum() { (cd "$1" && find . -printf '%p %y %m %U %G %s %l\n' | sort && find . -type f -print0 | sort -z | xargs -0 cat) | md5sum; }
before=$(tree_sum "$IMG")
json() { printf '%s' "$1" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))'; }
# pod NAME SCRIPT [readOnly] [volumeMounts JSON] [volumes JSON] [extra containers JSON] (Kubernetes turns $$ into $ in commands)
pod() {
  printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s"},"spec":{"restartPolicy":"Never","volumes":%s,"containers":[{"name":"main","image":"busybox","command":["sh","-c",%s],"securityContext":{"readOnlyRootFilesystem":%s},"volumeMounts":%s,"resources":{"requests":{"cpu":"100m","memory":"32Mi"}}}%s]}}' \
    "$1" "${5:-[]}" "$(json "$2")" "${3:-false}" "${4:-[]}" "${6:-}" | kc alice create -f - >/dev/null
}
running() { [ "$(kc alice get pod "$1" -o jsonpath='{.status.phase}')" = Running ]; }
logs_have() { kc alice logs "$1" -c main 2>/dev/null | grep -q "$2"; }

# --- the container's own root: what main wrote, what an exec writes ------------------------
pod a 'echo $$$$ >/from-main; while [ ! -e /from-exec ]; do usleep 100000; done; echo "main saw $(cat /from-exec)"; sleep 600'
pod b 'echo b >/from-b; sleep 600'
wait_for 60 running a && wait_for 60 running b
wait_for 30 sh -c "kubectl --kubeconfig $CL/alice.kc --cache-dir $CL/cache-alice exec b -- test -e /from-b" 2>/dev/null
mainpid=$(kc alice exec a -- cat /from-main 2>&1)
like "$mainpid" '^[0-9]+$' "kubectl exec sees the file the container's main process wrote (/from-main)"
is "$(kc alice exec a -- readlink /proc/self/ns/mnt 2>&1)" "$(readlink "/proc/$mainpid/ns/mnt" 2>&1)" \
  "... because it runs in the container's mount namespace (the main process's)"
is "$(kc alice exec a -- id -u 2>&1)" "$UIDA" "... as the pod's user, not root"
kc alice exec a -- sh -c 'echo x >/from-exec'
is "$?" 0 "an exec writes /from-exec into the container's root"
is "$(kc alice exec a -- cat /from-exec 2>&1)" x "... a second exec sees it"
ok wait_for 30 logs_have a "main saw x" "... and so does the container's main process"
is "$(kc alice exec b -- sh -c 'test ! -e /from-main && test ! -e /from-exec && cat /from-b' 2>&1)" b \
  "an exec in pod b (same image) sees b's files and none of a's"
is "$(kc alice exec a -- sh -c 'test ! -e /from-b && echo clean' 2>&1)" clean "... nor does an exec in a see b's"
is "$(tree_sum "$IMG")" "$before" "the stored image is unchanged after the execs' writes"

# --- a pid that is no longer the recorded run is never joined -------------------------------
rec=$(ls "$CL/pods/team-a/"a-*/rootfs/main.pid 2>/dev/null | head -1)
saved=$(cat "$rec" 2>/dev/null)
read -r rpid rstart <<<"$saved"
is "$rpid" "$mainpid" "the shim records the container's pid (rootfs/main.pid) with its start time"
printf '%s %s\n' "$rpid" "$((rstart + 1))" >"$rec"
out=$(kc alice exec a -- true 2>&1)
like "$out" 'container not found \("main"\)' "a recorded start time that is not the process's: the pid is not joined (the kubelet's text)"
printf '%s\n' "$saved" >"$rec"

# --- volumes at paths the image lacks, a read-only root ------------------------------------
kc alice create configmap cfg --from-literal=KEY=the-value >/dev/null
VOLS='[{"name":"cfg","configMap":{"name":"cfg"}},{"name":"scratch","emptyDir":{}}]'
MNTS='[{"name":"cfg","mountPath":"/etc/cfg"},{"name":"scratch","mountPath":"/scratch"}]'
pod cm 'sleep 600' false "$MNTS" "$VOLS"
pod ro 'sleep 600' true "$MNTS" "$VOLS"
wait_for 60 running cm && wait_for 60 running ro
is "$(kc alice exec cm -- cat /etc/cfg/KEY 2>&1)" the-value "a ConfigMap at /etc/cfg (not in the image): exec reads its key"
out=$(kc alice exec ro -- sh -c 'echo x >/x' 2>&1)
like "$out" "Read-only file system" "readOnlyRootFilesystem: an exec's write to / fails (EROFS)"
printf 'copied in\n' >"$CL/cpfile"
kc alice cp "$CL/cpfile" ro:/scratch/cpfile >/dev/null 2>&1
is "$(kc alice exec ro -- cat /scratch/cpfile 2>&1)" "copied in" "kubectl cp into the read-only pod's emptyDir works"

# --- a finished container of a running pod --------------------------------------------------
pod two 'sleep 600' false '[]' '[]' ',{"name":"quick","image":"busybox","command":["true"],"resources":{"requests":{"cpu":"100m","memory":"32Mi"}}}'
wait_for 60 running two
wait_for 60 sh -c "[ \"\$(kubectl --kubeconfig $CL/alice.kc --cache-dir $CL/cache-alice get pod two -o jsonpath='{.status.containerStatuses[?(@.name==\"quick\")].state.terminated.reason}')\" = Completed ]"
out=$(kc alice exec two -c quick -- true 2>&1)
like "$out" 'container not found \("quick"\)' "exec into a finished container of a running pod: the kubelet's text, no new container started"
ok test -e "$(ls -d "$CL/pods/team-a/"two-* | head -1)/rootfs/main.pid" -a ! -e "$(ls -d "$CL/pods/team-a/"two-* | head -1)/rootfs/quick.pid" \
  "the running container's record is there, the finished one's is gone"

is "$(tree_sum "$IMG")" "$before" "at the end the stored image is what was imported"
