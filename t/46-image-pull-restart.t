#!/bin/bash
# covers: src/image/ src/ctl/pull.c src/ctl/pullpool.c
# slurmlinkd killed (SIGKILL) in the middle of a pull: the test build's
# fault point pull-fetched holds the pull after skopeo fetched and umoci
# unpacked the layers of a big image, before the digest folder is put in
# place; a second pod of the image waits for that pull (single-flight).
# Then kill -9, start again: both pods are pulled once more, by one pull,
# and run; no half image was ever used and no work folder is left.
# Needs the ASan build (make asan: -DSL_FAULT_INJECTION).
source "$(dirname "$0")/lib.sh"
plan 15

case "$SLURMLINKD" in *build-asan/*) ;; *) bail "needs the ASan build's fault points (make asan)" ;; esac
T=$(tmpdir)
on_exit "rm -rf '$T'"
start_registry "$T" "log: {level: info, accesslog: {disabled: false}}"

# a big image: busybox, then two layers of 40 MB of random data each
cd "$T" || bail "cd"
umoci init --layout oci >/dev/null && umoci new --image oci:big && umoci unpack --rootless --image oci:big b >/dev/null
mkdir -p b/rootfs/bin && cp /bin/busybox b/rootfs/bin/ && ln -s busybox b/rootfs/bin/sh && ln -s busybox b/rootfs/bin/cat
umoci repack --image oci:big b && rm -rf b
for i in 1 2; do
  umoci unpack --rootless --image oci:big b >/dev/null && head -c 40000000 /dev/urandom >"b/rootfs/noise$i" &&
    umoci repack --image oci:big b && rm -rf b
done
echo ran >msg && umoci unpack --rootless --image oci:big b >/dev/null && cp msg b/rootfs/msg && umoci repack --image oci:big b && rm -rf b
skopeo copy --quiet --dest-tls-verify=false oci:oci:big "docker://$REG/team/big:v1" || bail "push"
cd - >/dev/null || bail "cd"

cluster_up || bail "cluster up"
S=$CL/images
daemon_pid() { cat "$CL/run/slurmlinkd.pid"; }
dead() { ! kill -0 "$1" 2>/dev/null; }
ok restart_with_fault pull-fetched:1:hold="$T/release" \
  "slurmlinkd restarts with SLURMLINKD_FAULT=pull-fetched:1:hold=FILE"
armed=$(daemon_pid)
pod() {
  kc apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1, annotations: {slurmlink.io/runtime: charliecloud}}
spec:
  restartPolicy: Never
  containers:
  - name: main
    image: $REG/team/big:v1
    command: ["cat", "/msg"]
    resources: {requests: {cpu: 100m, memory: 64Mi}}
YAML
}
pod p1
held() { grep -q "fault injection: pull-fetched #1: held until" "$CL/log/slurmlinkd.log"; }
ok wait_for 120 held "the pull is held after its layers were fetched and unpacked"
pod p2
work=$(ls -d "$S"/.pull-* 2>/dev/null | head -1)
ok test -n "$work" -a -n "$(find "$work" -name noise2 2>/dev/null)" "its work folder holds the unpacked tree: ${work##*/}"
hex=${work#"$S"/.pull-}; hex=${hex%-*}
ok test ! -e "$S/sha256/$hex" "the digest folder is not in place"
# the second pod's pull waits for the first (the digest's lock): no second fetch
pulling() { [ "$(kc get events --field-selector involvedObject.name=p2,reason=Pulling -o name | wc -l)" -ge 1 ]; }
wait_for 30 pulling
mark=$(wc -l <"$T/reg.log")
kill -9 "$armed"
ok wait_for 30 dead "$armed" "kill -9 of slurmlinkd mid-pull"
ok test ! -e "$S/sha256/$hex" "no digest folder after the kill: nothing half-pulled can be used"
ok "$SLURMLINK" up --dir "$CL" "slurmlinkd starts again (no fault)"
phase() { kc get pod "$1" -o jsonpath='{.status.phase}' 2>/dev/null; }
is_phase() { [ "$(phase "$1")" = "$2" ]; }
ok wait_for 180 is_phase p1 Succeeded "the first pod is pulled once more and runs"
ok wait_for 60 is_phase p2 Succeeded "the second pod too"
is "$(kc logs p1 2>&1) $(kc logs p2 2>&1)" "ran ran" "both ran the complete image"
is "$(tail -n +"$((mark + 1))" "$T/reg.log" | grep -o 'GET /v2/team/big/blobs/sha256:[0-9a-f]*' | sort | uniq -d | wc -l)" 0 \
  "after the restart no blob was fetched twice: one pull served both pods"
ok test "$(tail -n +"$((mark + 1))" "$T/reg.log" | grep -c 'GET /v2/team/big/blobs/sha256:')" -gt 0 \
  "the layers were fetched again after the restart (the killed pull's tree was not used)"
ok test -f "$S/sha256/$hex/image.json" "the digest is in the store, complete"
is "$(ls -A "$S" | grep -c '^\.pull-')" 0 "no .pull-* work folder is left"
incomplete=0
for d in "$S"/sha256/*; do [ -f "$d/image.json" ] || incomplete=$((incomplete + 1)); done
is "$incomplete" 0 "every digest folder of the store is complete"
