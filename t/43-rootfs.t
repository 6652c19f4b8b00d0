#!/bin/bash
# covers: src/shim/rootfs.c src/image/rootfs.c src/image/
# 43-rootfs.t — a charliecloud container's root behaves like a Kubernetes
# container's: writable, private to each run (the shim's overlay over the
# stored image, src/shim/rootfs.c), read-only with readOnlyRootFilesystem,
# and mount points the image lacks are created; the stored image never
# changes, also with two pods of one image writing the same path at once.
source "$(dirname "$0")/lib.sh"
plan 22

cluster_up --gpus 0 --cpus 4 || bail "cluster up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
IMG=$CL/images/busybox+latest
jp() { kc get pod "$1" -o jsonpath="$2" 2>/dev/null; }
# the image folder: every path, its type, mode, owner, size, link target and content
tree_sum() { (cd "$1" && find . -printf '%p %y %m %U %G %s %l\n' | sort && find . -type f -print0 | sort -z | xargs -0 cat) | md5sum; }
before=$(tree_sum "$IMG")
# pod NAME SCRIPT [readOnly] [volumeMounts JSON] [volumes JSON]
pod() {
  local cmd
  cmd=$(printf '%s' "$2" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))')
  printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s"},"spec":{"restartPolicy":"Never","volumes":%s,"containers":[{"name":"main","image":"busybox","command":["sh","-c",%s],"securityContext":{"readOnlyRootFilesystem":%s},"volumeMounts":%s,"resources":{"requests":{"cpu":"100m","memory":"32Mi"}}}]}}' \
    "$1" "${5:-[]}" "$cmd" "${3:-false}" "${4:-[]}" | kc create -f - >/dev/null
}
done_() { local p; p=$(jp "$1" '{.status.phase}'); [ "$p" = Succeeded ] || [ "$p" = Failed ]; }
result() { wait_for 90 done_ "$1"; echo "$(jp "$1" '{.status.phase}') $(kc logs "$1" 2>&1 | tr '\n' ' ')"; }

# --- writable, private to the run --------------------------------------------
pod w1 'echo one >/written && cat /written && mkdir -p /usr/new && echo x >/usr/new/f && rm /bin/ls && test ! -e /bin/ls && echo removed'
is "$(result w1)" "Succeeded one removed " "the root is writable: a file in /, a folder in /usr, a file of the image removed"
pod w2 'test ! -e /written && test ! -e /usr/new && test -e /bin/ls && echo clean'
is "$(result w2)" "Succeeded clean " "a second pod of the image sees none of it"
is "$(tree_sum "$IMG")" "$before" "the stored image is unchanged"

# --- two pods of one image at once, writing the same path ---------------------
SYNC=$(mktemp -d /tmp/slt-sync.XXXXXX)
chmod 1777 "$SYNC"
on_exit "rm -rf '$SYNC'"
both='echo $ME >/same; touch '$SYNC'/$ME; while [ ! -e '$SYNC'/$PEER ]; do usleep 100000; done; cat /same'
pod_env() { # NAME PEER
  printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","annotations":{"slurmlink.io/tmp":"node"}},"spec":{"restartPolicy":"Never","containers":[{"name":"main","image":"busybox","command":["sh","-c",%s],"env":[{"name":"ME","value":"%s"},{"name":"PEER","value":"%s"}],"resources":{"requests":{"cpu":"100m","memory":"32Mi"}}}]}}' \
    "$1" "$(printf '%s' "$both" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))')" "$1" "$2" | kc create -f - >/dev/null
}
pod_env ca cb
pod_env cb ca
is "$(result ca)" "Succeeded ca " "two pods at once writing /same: the first reads its own"
is "$(result cb)" "Succeeded cb " "... and so does the second"
ok test -e "$SYNC/ca" -a -e "$SYNC/cb" "... and both ran at the same time (each waited for the other)"
is "$(tree_sum "$IMG")" "$before" "the stored image is still unchanged"

# --- restarts get a fresh root ------------------------------------------------
printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"rs","annotations":{"slurmlink.io/tmp":"node"}},"spec":{"restartPolicy":"OnFailure","containers":[{"name":"main","image":"busybox","command":["sh","-c","if [ -e /mark ]; then echo kept; exit 0; fi; touch /mark; if [ -e %s/rs ]; then echo fresh; exit 0; fi; touch %s/rs; exit 1"],"resources":{"requests":{"cpu":"100m","memory":"32Mi"}}}]}}' "$SYNC" "$SYNC" | kc create -f - >/dev/null
is "$(result rs)" "Succeeded fresh " "a restarted container starts from the image again"

# --- mount points the image lacks ---------------------------------------------
kc create configmap cfg --from-literal=key=value --from-literal=app.conf=conf-text >/dev/null
VOLS='[{"name":"cfg","configMap":{"name":"cfg"}},{"name":"scratch","emptyDir":{}}]'
MNTS='[{"name":"cfg","mountPath":"/etc/cfg"},{"name":"scratch","mountPath":"/data/new/deep"},{"name":"cfg","mountPath":"/etc/app.conf","subPath":"app.conf"}]'
pod m1 'cat /etc/cfg/key; echo; echo hi >/data/new/deep/f && cat /data/new/deep/f; cat /etc/app.conf; echo' false "$MNTS" "$VOLS"
is "$(result m1)" "Succeeded value hi conf-text " "a configMap at /etc/cfg, an emptyDir at /data/new/deep, a subPath file at /etc/app.conf"
is "$(tree_sum "$IMG")" "$before" "... made in the run's root, not in the stored image"
ok test ! -e "$IMG/etc/cfg" -a ! -e "$IMG/data" "... which has no /etc/cfg and no /data"

# --- readOnlyRootFilesystem ---------------------------------------------------
pod ro '(echo x >/x && echo wrote) 2>&1; cat /etc/cfg/key; echo; echo ok >/data/new/deep/g && cat /data/new/deep/g' true "$MNTS" "$VOLS"
out=$(result ro)
like "$out" '^Succeeded ' "readOnlyRootFilesystem: true: the pod runs"
like "$out" 'Read-only file system' "... a write to / fails with EROFS"
unlike "$out" 'wrote' "... and nothing is written"
like "$out" 'value ok $' "... its volumes are mounted at paths the image lacks, and writable"

# --- mountPaths as Kubernetes accepts them: a trailing '/', '//' and '.' ------------
pod np 'echo n >/data/x/y/f && cat /data/x/y/f && ls /etc/cfg' false '[{"name":"scratch","mountPath":"/data//x/./y/"},{"name":"cfg","mountPath":"/etc/cfg/"}]' "$VOLS"
is "$(result np)" "Succeeded n app.conf key " "mountPaths /data//x/./y/ and /etc/cfg/ are made and mounted"

# --- a mount point the image makes a symbolic link: a clear StartError ---------
pod sl 'echo ran' false '[{"name":"scratch","mountPath":"/linuxrc/x"}]' '[{"name":"scratch","emptyDir":{}}]'
wait_for 90 done_ sl
is "$(jp sl '{.status.phase} {.status.containerStatuses[0].state.terminated.reason}')" "Failed StartError" \
  "a mountPath through a symbolic link of the image (/linuxrc/x): the container does not start"
is "$(jp sl '{.status.containerStatuses[0].state.terminated.message}')" \
  "private root: mount point /linuxrc/x: a component is a symbolic link or a file in the image" \
  "... and the message names the mount point and why"

# --- nothing is left on the node ----------------------------------------------
is "$(grep -c "$CL/.*/rootfs/" /proc/self/mountinfo)" 0 "no overlay or tmpfs is visible outside the runs"
is "$(procs_of "$CL" | xargs -r ps -o args= -p | grep -c '[c]h-run')" 0 "no container process of this cluster is left"
is "$(tree_sum "$IMG")" "$before" "at the end the stored image is what was imported"

# --- the shim spec says it -----------------------------------------------------
SPEC=$(ls "$CL"/state/pods/*/shim.json 2>/dev/null | head -1)
[ -n "$SPEC" ] || SPEC=$(find "$CL" -name shim.json 2>/dev/null | head -1)
is "$(python3 -c 'import json,sys; c=json.load(open(sys.argv[1]))["containers"][0]; print(c["rootfs"]["lower"], c["argv"][c["rootfs"]["argvIndex"]])' "$SPEC" 2>&1)" "$IMG $IMG" \
  "shim.json: rootfs.lower is the stored image and argv[argvIndex] names it"
