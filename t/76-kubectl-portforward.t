#!/bin/bash
# covers: src/api/ src/spdy/ src/shim/ src/kinds/job/controller.c
# 76-kubectl-portforward.t — `kubectl port-forward pod/P LOCAL:REMOTE` on a
# real Slurm cluster (HTTPS, tenants as real Unix users), with kubectl 1.30
# (SPDY/3.1 upgrade) and 1.32, 1.33 (SPDY/3.1 tunnelled in WebSocket): 1 MiB
# from busybox httpd in the pod byte for byte, a second port, four
# connections at once, a Job's pod (port-forward job/NAME); refusals: a reader of the namespace (403), another
# tenant's port on the same node (the error stream's message, no bytes).
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/61-security-lib.sh"
plan 18

sec_two_tenants --cert --bob-reads-a || bail "two tenants: Unix users, slurmlink up, the image, kubeconfigs, namespaces"
KBIN=/usr/lib/google-cloud-sdk/bin
W=$(tmpdir)
on_exit "rm -rf '$W'"
chmod 755 "$W"
head -c 1048576 /dev/urandom >"$W/blob"
chmod 644 "$W/blob"
B=$(free_ports 8) || bail "free ports"
P1=$B P2=$((B + 1)) P4=$((B + 2)) L1=$((B + 3)) L2=$((B + 4)) L3=$((B + 5)) P5=$((B + 6)) L4=$((B + 7))
pod() { # name command
  cat <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1, annotations: {slurmlink.io/tmp: node}}
spec:
  containers:
  - name: main
    image: busybox
    command: [sh, -c, '$2']
    resources: {requests: {cpu: 100m, memory: 64Mi}}
YAML
}
pod web "busybox httpd -p $P1 -h $W; busybox httpd -f -p $P2 -h $W" | kc alice apply -f - >/dev/null
pod bobweb "busybox httpd -f -p $P4 -h $W" | kc bob apply -f - >/dev/null
running() { [ "$(kc "$1" get pod "$2" -o jsonpath='{.status.phase}')" = Running ]; }
listening() { ss -Hltn "sport = :$1" | grep -q LISTEN; }
ok wait_for 90 running alice web "alice's web pod runs"
ok wait_for 90 running bob bobweb "bob's web pod runs"
ok wait_for 30 sh -c "ss -Hltn 'sport = :$P2' | grep -q LISTEN && ss -Hltn 'sport = :$P4' | grep -q LISTEN" "their servers listen"

# forward V USER NAMESPACE [TYPE/NAME] PORTS...: kubectl port-forward (of
# pod/web unless given) in the background
# until it says it forwards; its pid in FPID, its output in $CL/pf.log
forward() {
  local v=$1 u=$2 ns=$3 what=pod/web; shift 3
  [[ $1 == */* ]] && { what=$1; shift; }
  : >"$CL/pf.log"
  "$KBIN/kubectl.$v" --kubeconfig "$CL/$u.kc" --cache-dir "$CL/cache-$u-$v" -n "$ns" \
    port-forward "$what" "$@" >"$CL/pf.log" 2>&1 &
  FPID=$!
  on_exit "kill $FPID 2>/dev/null"
  wait_for 30 grep -q "Forwarding from 127.0.0.1" "$CL/pf.log"
}
fetch() { curl -s --max-time 60 -o "$2" "http://127.0.0.1:$1/blob"; }
for v in 1.30 1.32 1.33; do
  forward "$v" alice team-a "$L1:$P1" "$L2:$P2" || diag "kubectl $v: $(cat "$CL/pf.log")"
  fetch "$L1" "$CL/one"
  ok cmp -s "$CL/one" "$W/blob" "kubectl $v port-forward: 1 MiB from the pod's server, byte for byte"
  for j in 1 2 3 4; do fetch "$L2" "$CL/many.$j" & done
  wait $(jobs -p | grep -vx "$FPID")
  ok sh -c "for j in 1 2 3 4; do cmp -s '$CL/many.'\$j '$W/blob' || exit 1; done" \
    "kubectl $v: four connections at once to a second port, each byte for byte"
  kill "$FPID" 2>/dev/null
  wait "$FPID" 2>/dev/null
  [ "$v" = 1.30 ] && how="SPDY$" || how="SPDY in WebSocket"
  like "$(grep "port-forward: user alice, pod team-a/web" "$CL/log/slurmlinkd.log" | tail -1)" "$how" \
    "kubectl $v speaks $how (the log's line)"
done

out=$(timeout 30 "$KBIN/kubectl.1.32" --kubeconfig "$CL/bob.kc" --cache-dir "$CL/cache-bob" -n team-a port-forward pod/web "$L3:$P1" 2>&1); rc=$?
ok test "$rc" != 0 -a "$rc" != 124 "bob (a reader of team-a) cannot port-forward to alice's pod: kubectl fails at once (exit $rc)"
like "$out" 'cannot create resource \\?"pods/portforward\\?" in API group \\?"\\?" in the namespace \\?"team-a\\?"' "... with kube's 403 text"

forward 1.33 alice team-a "$L3:$P4" || diag "kubectl 1.33: $(cat "$CL/pf.log")"
fetch "$L3" "$CL/other"
ok test ! -s "$CL/other" "alice cannot reach bob's port on the same node through her own pod: no bytes"
wait_for 10 grep -q "another user's" "$CL/pf.log"
like "$(cat "$CL/pf.log")" "port $P4 on the node of pod team-a/web is another user's: only the pod's own user's ports are forwarded" "... kubectl prints the error stream's reason"
kill "$FPID" 2>/dev/null || true

# a Job's pod: kubectl finds it through the Job's selector
kc alice apply -f - >/dev/null <<YAML
apiVersion: batch/v1
kind: Job
metadata: {name: webjob}
spec:
  template:
    metadata: {annotations: {slurmlink.io/tmp: node}}
    spec:
      restartPolicy: Never
      containers:
      - {name: main, image: busybox, command: [busybox, httpd, -f, -p, "$P5", -h, "$W"], resources: {requests: {cpu: 100m, memory: 64Mi}}}
YAML
ok wait_for 90 listening "$P5" "the Job's pod serves"
forward 1.33 alice team-a job/webjob "$L4:$P5" || diag "kubectl 1.33: $(cat "$CL/pf.log")"
fetch "$L4" "$CL/job"
ok cmp -s "$CL/job" "$W/blob" "kubectl port-forward job/webjob: 1 MiB from its pod, byte for byte"
kill "$FPID" 2>/dev/null || true
