#!/bin/bash
# covers: src/shim/rootfs.c src/image/rootfs.c src/image/
# 45-shim-rootfs.t — slurmlink-shim alone (no cluster), as the user nobody,
# on shim.json files written here: what it says when a container cannot
# start, with and without a private root (src/shim/rootfs.c):
#   - a runtime's program missing from the job's PATH: StartError naming the
#     runtime, the program, the node and the PATH, and nothing exec'd;
#   - a private root whose program is missing: the exec error, not a step of
#     the private root (the child reported the last step it had done);
#   - a private root whose image folder is missing: the step and the reason;
#   - a private root that works: the container writes / and the image
#     folder is unchanged; the pod folder keeps only an empty rootfs/<name>.
source "$(dirname "$0")/lib.sh"
plan 9

SHIM=$ROOT/build/slurmlink-shim
[ -x "$ROOT/build-asan/slurmlink-shim" ] && SHIM=$ROOT/build-asan/slurmlink-shim
D=$(mktemp -d /tmp/slt-shimrf.XXXXXX)
on_exit "rm -rf '$D'"
chmod 755 "$D"
"$SLURMLINK" image import busybox --busybox --store "$D/images" >/dev/null
IMG=$D/images/busybox+latest
# run NAME CONTAINER-JSON: the shim on pod folder D/NAME as nobody
run() {
  mkdir -p "$D/$1"
  printf '{"pod":{"namespace":"t","name":"%s","uid":"u-%s"},"restartPolicy":"Never","containers":[%s]}' "$1" "$1" "$2" >"$D/$1/shim.json"
  chown -R nobody "$D/$1"
  su -s /bin/sh nobody -c "USER=nobody PATH=/usr/local/bin:/usr/bin:/bin '$SHIM' --pod-dir '$D/$1'" >"$D/$1.out" 2>&1
}
term() { jq -r '.containerStatuses[0].state.terminated | "\(.reason)|\(.message)"' "$D/$1/status.json" 2>&1; }

run rt '{"name":"main","argv":["apptainer","exec","/x.sif","true"],"runtime":"apptainer"}'
like "$(term rt)" "^StartError\|runtime apptainer: apptainer is not installed on node $(hostname) \(not found in PATH=/usr/local/bin:/usr/bin:/bin\)$" \
  "a runtime's program missing on the node: StartError naming runtime, program, node and PATH"
like "$(cat "$D/rt/logs/main/0.log")" 'stderr . runtime apptainer: apptainer is not installed' "... the same line in the container's log"
unlike "$(cat "$D/rt/logs/main/0.log")" 'No such file or directory' "... not an exec error"

run noprog '{"name":"main","argv":["/nonexistent/ch-run","--write","'"$IMG"'","--","true"],"rootfs":{"lower":"'"$IMG"'","argvIndex":2}}'
is "$(term noprog)" "StartError|exec /nonexistent/ch-run: No such file or directory" \
  "a private root whose program is missing: the exec error"

run nolower '{"name":"main","argv":["ch-run","--write","/nonexistent/img","--","true"],"runtime":"charliecloud","rootfs":{"lower":"/nonexistent/img","argvIndex":2}}'
is "$(term nolower)" "StartError|private root of /nonexistent/img: mirroring the image's folders into the writable layer: No such file or directory" \
  "a private root whose image is missing: the step and the reason"

tree_sum() { (cd "$1" && find . -printf '%p %y %m %U %G %s %l\n' | sort && find . -type f -print0 | sort -z | xargs -0 cat) | md5sum; }
before=$(tree_sum "$IMG")
run good '{"name":"main","argv":["ch-run","--write","'"$IMG"'","--","sh","-c","echo w >/w && cat /w && id -u"],"runtime":"charliecloud","rootfs":{"lower":"'"$IMG"'","argvIndex":2}}'
is "$(term good)" "Completed|null" "a private root that works: the container completes"
is "$(cut -d' ' -f4- "$D/good/logs/main/0.log" | tr '\n' ' ')" "w $(id -u nobody) " "... it wrote / as the job user"
is "$(tree_sum "$IMG")" "$before" "... and the image folder is unchanged"
is "$(find "$D/good/rootfs" | sort | tr '\n' ' ')" "$D/good/rootfs $D/good/rootfs/main " "... the pod folder keeps only an empty rootfs/main"
