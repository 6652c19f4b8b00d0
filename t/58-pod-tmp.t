#!/bin/bash
# covers: src/shim/podtmp.c src/shim/pod.c src/runtime/backends.c src/translate/translate.c src/shim/join.c src/shim/exec.c
# 58-pod-tmp.t — each container run gets a private, empty /tmp on the node
# (src/shim/podtmp.h), for two real tenants (t/61-security-lib.sh):
#   - a charliecloud pod writes /tmp/x; a second pod on the same node sees
#     an empty /tmp, and so does the node's /tmp (no x there); the folder
#     behind it is alice's, 0700, with the container's folder 01777;
#   - a host-runtime pod keeps the node's /tmp (it runs in no container);
#     with slurmlink.io/tmp: private it gets its own, in a mount namespace
#     of its run; kubectl exec into it joins that namespace (it reads what
#     the command wrote in its /tmp, not the node's) and kubectl cp into
#     /tmp lands where the command sees it;
#   - a restarted container starts with an empty /tmp again;
#   - a volume mounted at /tmp is the container's /tmp; the annotation
#     slurmlink.io/tmp: node gives the node's /tmp; a bad value is a 422;
#   - a shim killed (SIGKILL) leaves its folder; the next pod of the user on
#     the node removes it;
#   - bob plants links named like the folders (to a folder of alice's and to
#     one of his own): alice's pods never write through them and her sweep
#     never follows them;
#   - when the pods have ended, the node's /tmp holds no folder of either.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/61-security-lib.sh"
plan 26

sec_two_tenants --token --default || bail "two tenants: Unix users, slurmlink up, the image, kubeconfigs, namespaces"
leftovers() { find /tmp -maxdepth 1 -type d -name 'slurmlink-tmp.*' -uid "$1" 2>/dev/null | sort; }
phase() { kc "$1" get pod "$2" -o jsonpath='{.status.phase}' 2>/dev/null; }
ended() { [[ "$(phase "$1" "$2")" =~ ^(Succeeded|Failed)$ ]]; }
running_as() { [ "$(phase "$1" "$2")" = Running ]; }
logs_have() { kc "$1" logs "$2" 2>/dev/null | grep -q "$3"; }
pod() { # USER NAME RUNTIME COMMAND [restartPolicy] [annotations-json-extra]
  local img='"image":"busybox",'
  [ "$3" = host ] && img=
  printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","annotations":{"slurmlink.io/runtime":"%s"%s}},"spec":{"restartPolicy":"%s","terminationGracePeriodSeconds":1,"containers":[{"name":"main",%s"command":["sh","-c",%s],"resources":{"requests":{"cpu":"100m","memory":"32Mi"}}}]}}' \
    "$2" "$3" "${6:-}" "${5:-Never}" "$img" "$(printf '%s' "$4" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))')" |
    kc "$1" create -f - 2>&1
}

# --- bob's links, planted before any pod of alice's ran ---------------------------------------
VICTIM=$(mktemp -d /tmp/slt-victim.XXXXXX) BOBS=$(mktemp -d /tmp/slt-bob.XXXXXX)
on_exit "rm -rf '$VICTIM' '$BOBS'"
echo keep >"$VICTIM/keep"
chown -R "$UA" "$VICTIM"
chown "$UB" "$BOBS" && chmod 777 "$BOBS"
for j in 0 1 2 3 4 5 6 7 8 9; do
  runuser -u "$UB" -- ln -s "$VICTIM" "/tmp/slurmlink-tmp.$j.alice$$"
  runuser -u "$UB" -- ln -s "$BOBS" "/tmp/slurmlink-tmp.$j.bob$$"
done
on_exit "rm -f /tmp/slurmlink-tmp.*.alice$$ /tmp/slurmlink-tmp.*.bob$$"

# --- one pod writes /tmp/x, a second one looks --------------------------------------------------
pod alice w1 charliecloud 'echo "start=[$(ls -A /tmp)] mode=$(stat -c %a /tmp)"; echo secret >/tmp/x; echo wrote; exec sleep 600' >/dev/null
ok wait_for 90 logs_have alice w1 wrote "a charliecloud pod writes /tmp/x"
like "$(kc alice logs w1 2>&1)" "start=\[\] mode=1777" "its /tmp was empty at start, mode 1777"
dir=$(find /tmp -maxdepth 3 -path '/tmp/slurmlink-tmp.*/main/x' -uid "$UIDA" 2>/dev/null | head -1)
dir=${dir%/main/x}
is "$(stat -c '%U %a' "$dir" 2>&1) $(stat -c %a "$dir/main" 2>&1)" "$UA 700 1777" \
  "behind it, a folder of alice's on the node's /tmp (0700), the container's 01777"
nok test -e /tmp/x "the node's /tmp has no x"
pod alice r1 charliecloud 'echo "tmp=[$(ls -A /tmp)] x=$(cat /tmp/x 2>&1)"' >/dev/null
ok wait_for 90 ended alice r1 "a second pod on the node ran"
like "$(kc alice logs r1 2>&1)" '^tmp=\[\] x=cat: can.t open ./tmp/x.: No such file' "it sees an empty /tmp, not the first pod's x"

# --- the host runtime ---------------------------------------------------------------------------
HV=$(mktemp /tmp/slt-hostview.XXXXXX) && echo node-tmp >"$HV" && chmod 644 "$HV"
on_exit "rm -f '$HV'"
pod alice h0 host "cat $HV" >/dev/null
ok wait_for 90 ended alice h0 "a host-runtime pod without the annotation ran"
is "$(kc alice logs h0 2>&1)" node-tmp "... in the node's /tmp: it read the file the test left there"
pod alice h1 host 'echo "start=[$(ls -A /tmp)]"; echo h >/tmp/x; echo "after=[$(ls -A /tmp)]"' Never ',"slurmlink.io/tmp":"private"' >/dev/null
ok wait_for 90 ended alice h1 "a host-runtime pod with slurmlink.io/tmp: private ran"
is "$(kc alice logs h1 2>&1 | tr '\n' ' ')" "start=[] after=[x] " "it had an empty /tmp of its own, and wrote x there"
nok test -e /tmp/x "... not on the node's /tmp"
CPF=$(mktemp /tmp/slt-cp.XXXXXX) && echo cp-data >"$CPF" && chmod 644 "$CPF"
CPN=slt-copied.$$ # the name kubectl cp writes in the pod's /tmp (a stray one on the node is removed)
on_exit "rm -f '$CPF' '/tmp/$CPN'"
pod alice he host "echo inside >/tmp/mine; echo ready; for i in \$(seq 600); do [ -e /tmp/$CPN ] && break; sleep 0.1; done; echo \"copied=\$(cat /tmp/$CPN 2>&1)\"" Never ',"slurmlink.io/tmp":"private"' >/dev/null
ok wait_for 90 logs_have alice he ready "a host-runtime pod with a private /tmp wrote /tmp/mine and waits"
is "$(kc alice exec he -- cat /tmp/mine 2>&1)" inside "kubectl exec reads the file its command wrote in its private /tmp"
is "$(kc alice exec he -- sh -c "if [ -e $HV ]; then echo node; else echo private; fi" 2>&1)" private \
  "... and does not see the node's /tmp (the test's file there)"
kc alice cp "$CPF" "he:/tmp/$CPN" >/dev/null 2>&1
ok wait_for 60 logs_have alice he "copied=cp-data" "kubectl cp into /tmp lands in the private /tmp the pod's command sees"
nok test -e "/tmp/$CPN" "... not on the node's /tmp"

# --- a restart, a volume at /tmp, the node's /tmp by annotation --------------------------------
cat <<'YAML' | kc alice create -f - >/dev/null
apiVersion: v1
kind: Pod
metadata: {name: rs, annotations: {slurmlink.io/runtime: charliecloud}}
spec:
  restartPolicy: OnFailure
  volumes: [{name: v, emptyDir: {}}]
  containers:
  - name: main
    image: busybox
    command: [sh, -c, 'if [ -e /data/ran ]; then echo "second=[$(ls -A /tmp)]"; exit 0; fi; touch /data/ran /tmp/x; exit 1']
    volumeMounts: [{name: v, mountPath: /data}]
    resources: {requests: {cpu: 100m, memory: 32Mi}}
---
apiVersion: v1
kind: Pod
metadata: {name: vol, annotations: {slurmlink.io/runtime: charliecloud}}
spec:
  restartPolicy: Never
  volumes: [{name: v, emptyDir: {}}]
  containers:
  - name: main
    image: busybox
    command: [sh, -c, 'echo mine >/tmp/y; echo "vol=$(ls /tmp)"']
    volumeMounts: [{name: v, mountPath: /tmp}]
    resources: {requests: {cpu: 100m, memory: 32Mi}}
YAML
ok wait_for 90 ended alice rs "a container that fails once is restarted"
like "$(kc alice logs rs 2>&1)" '^second=\[\]$' "the restarted container starts with an empty /tmp again"
ok wait_for 90 ended alice vol "a pod with a volume at /tmp ran"
ok test -s "$(find "$CL/pods/team-a" -path '*vol-*/volumes/v/y' 2>/dev/null | head -1)" \
  "a volume mounted at /tmp is the container's /tmp (its file is in the volume)"
like "$(pod alice bad charliecloud true Never ',"slurmlink.io/tmp":"shared"')" \
  'metadata.annotations\[slurmlink.io/tmp\]: Unsupported value: "shared": supported values: "private", "node"' \
  "slurmlink.io/tmp: shared is refused naming the annotation"

# --- a shim killed: the next pod sweeps its folder ----------------------------------------------
w1dir=$(find "$CL/pods/team-a" -maxdepth 1 -name 'w1-*' | head -1)
kill -KILL "$(cat "$w1dir/shim.pid")"
ok wait_for 90 ended alice w1 "the pod whose shim was killed has ended"
is "$(stat -c %U "$dir" 2>&1)" "$UA" "... its folder is left behind"
pod alice n1 charliecloud 'echo "n1=[$(ls -A /tmp)]"' >/dev/null
wait_for 90 ended alice n1
nok test -e "$dir" "the next pod of alice's on the node removed it"

# --- bob's links --------------------------------------------------------------------------------
is "$(ls -A "$VICTIM" | tr '\n' ' ')$(ls -A "$BOBS" | wc -l)" "keep 0" \
  "bob's links were never followed: alice's folder keeps its file, bob's got nothing"
is "$(leftovers "$UIDA")$(leftovers "$UIDB")" "" "when the pods have ended, the node's /tmp holds no folder of theirs"
