#!/bin/bash
# covers: src/api/ src/ctl/ src/image/ src/shim/ src/podfs/
# slow
# 69-attack-repeat.t — the attack list repeated by a second, fresh tenant,
# with the variations the other t/6x files do not cover. On a real Slurm
# cluster with two real non-root tenants:
#   - the shim's push is the tenant's own (its token is in her pod folder):
#     a "pod-finished" she pushes for a pod whose Slurm job is still pending
#     is refused, so her quota still counts it; one pushed while the job
#     runs ends the job, so a pod shown finished holds no Slurm job;
#   - her pushes cannot store what the pod's readers cannot decode (a
#     startedAt that is no time broke the admin's Python client for all
#     namespaces), nor a negative restartCount;
#   - a pod deleted with a long grace period still counts in the quota
#     while its job runs (bob, pods=1);
#   - the cluster folder's logs (slurmlinkd's: every tenant's namespaces,
#     pods and refusals; slurmctld's: every job) are not readable by tenants.
# Then a third tenant, carol (t/69-attack-lib.sh), repeats the hostile-tenant
# list of docs/security.md ("Privilege separation") with variations of the
# t/39-privsep-*.t attacks: set-id and capabilities in a second layer, nested
# and hard-linked; an older store's open lock folder; a bomb of many small
# files; another tenant's private digest in an index named by digest; the
# store's refs/ and private/; slurmd's port as a registry; a Job on a
# registry that never answers; up on folders she has a hand in (group,
# grandparent, link); doctor with a link for the probe's answer; a message
# bomb on attach; shim.pid naming a thread in a netns of hers; attach
# into and a patch of a co-writer's workloads; a flood of exec sessions;
# an MPIJob under a pods
# quota; a forged comment by a co-writer; an older cluster's open pods
# root and .job-tasks (closed at a restart). Each point names the
# defence it checks.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/61-security-lib.sh"
source "$(dirname "$0")/69-attack-lib.sh"
for t in skopeo umoci docker-registry htpasswd gcc setcap getcap flock ch-run; do
  command -v $t >/dev/null || skip_all "$t is missing (scripts/deps.sh)"
done

plan 48
T=$(tmpdir)
on_exit "rm -rf '$T'"
chmod 755 "$T"
mkdir -p "$T/bin"
LIMIT=$((32 << 20))
P=$(free_ports 5) || bail "free ports"
REG=127.0.0.1:$P PRIV=127.0.0.1:$((P + 1)) HANG=127.0.0.1:$((P + 2)) CLOSED=127.0.0.1:$((P + 3)) EVIL=127.0.0.1:$((P + 4))
# slurmlinkd with small bounds for carol's part (the first tenants' points use
# none of them); SL_T69_DAEMON_ARGS replaces them (empty: a slurmlinkd without them)
SLURMLINKD=$(daemon_with "$T/bin" ${SL_T69_DAEMON_ARGS---image-max-size "$LIMIT" --image-max-pulls 4 \
  --image-max-pulls-per-namespace 2 --exec-max-streams-per-user 3})
export SLURMLINKD
att_three_tenants --cpus 8 || bail "three tenants: Unix users, slurmlink up, the image, kubeconfigs, namespaces"

# pod NAME [ANNOTATIONS-JSON]: a manifest on stdout
pod() {
  printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","annotations":%s},"spec":{"restartPolicy":"Never","containers":[{"name":"main","image":"busybox","command":["sleep","300"],"resources":{"requests":{"cpu":"100m","memory":"32Mi"}}}]}}' "$1" "${2:-{\}}"
}
phase() { kc alice get pod "$1" -o jsonpath='{.status.phase}' 2>/dev/null; }
job_of() { kc alice get pod "$1" -o jsonpath='{.metadata.annotations.slurmlink\.io/job-id}' 2>/dev/null; }
job_state() { squeue -h -j "$1" -o %T 2>/dev/null; }
job_gone() { [ -z "$(job_state "$1")" ]; }
# push NAME EVENT-JSON-TAIL: alice sends her pod's shim an event, as the shim
# would, with the token from her own pod folder; prints the HTTP code
push() {
  local uid
  uid=$(kc alice get pod "$1" -o jsonpath='{.metadata.uid}') || return 1
  su -s /bin/sh "$UA" -c '
    d=$1; tok=$(jq -r .report.token "$d/shim.json"); url=$(jq -r .report.url "$d/shim.json")
    curl -s -o /dev/null -w "%{http_code}" --cacert "$2" -H "Authorization: Bearer $tok" \
      -d "{\"pod_uid\":\"$3\",$4}" "$url"' \
    sh "$CL/pods/team-a/$1-$uid" "$CL/pki/ca.crt" "$uid" "$2"
}

# --- the shim's "pod-finished", pushed by the tenant herself -------------------------------
ka create quota q --hard=pods=1 -n team-a >/dev/null
pod f1 | kc alice create -f - >/dev/null
wait_for 60 eval '[ "$(phase f1)" = Running ]'
J1=$(job_of f1)
like "$J1" '^[0-9]+$' "alice's pod f1 runs as Slurm job $J1"
is "$(push f1 '"event":"pod-finished","exitCode":0')" 204 "her push of pod-finished for a running pod is taken"
wait_for 30 eval '[ "$(phase f1)" = Succeeded ]'
ok wait_for 60 job_gone "$J1" "the Slurm job of the pod shown finished is ended (squeue: [$(job_state "$J1")])"

# a pending job (it may begin in an hour): its pod cannot have finished, so
# the push is refused and the quota still counts the pod
pod f2 '{"slurm-job.vk.io/flags":"--begin=now+3600"}' | kc alice create -f - >/dev/null
wait_for 30 eval '[ -n "$(job_of f2)" ]'
J2=$(job_of f2)
is "$(job_state "$J2")" PENDING "f2's job $J2 is pending (--begin=now+3600)"
is "$(push f2 '"event":"pod-finished","exitCode":0')" 400 "her pod-finished for a pod whose job is pending is refused (400)"
is "$(phase f2)" Pending "f2 stays Pending"
like "$(pod f3 | kc alice create -f - 2>&1)" 'exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1' \
  "the quota still counts f2: f3 is refused"
is "$(squeue -h -u "$UA" | wc -l)" 1 "alice holds one Slurm job under pods=1"
scontrol update JobId="$J2" StartTime=now >/dev/null 2>&1
wait_for 60 eval '[ "$(phase f2)" = Running ]'
is "$(push f2 '"event":"started","container":"main","restartCount":0')" 204 \
  "her other pushes for a running pod are still taken"

# --- what her pushes put into the status ------------------------------------------------
is "$(push f2 '"event":"started","container":"main","restartCount":-5')" 400 "a negative restartCount is refused (400)"
is "$(kc alice get pod f2 -o jsonpath='{.status.containerStatuses[0].restartCount}')" 0 "f2's restartCount stays 0"
is "$(push f2 '"event":"exited","container":"main","exitCode":1,"reason":""')" 400 "an empty reason is refused (400)"
is "$(push f2 '"event":"started","container":"main","restartCount":0,"time":"not-a-time"')" 400 \
  "a push whose time is not RFC 3339 is refused (400)"
like "$(kc alice get pod f2 -o jsonpath='{.status.containerStatuses[0].state.running.startedAt}')" \
  '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z$' "f2's startedAt stays an RFC 3339 time"
like "$(/usr/bin/python3 -c '
import sys
from kubernetes import client, config
config.load_kube_config(sys.argv[1])
print("listed", len(client.CoreV1Api().list_pod_for_all_namespaces().items))' "$KUBECONFIG" 2>&1 | tail -n 1)" \
  '^listed [0-9]+$' "the admin's Python client lists the pods of all namespaces"

# --- a long grace period on delete --------------------------------------------------------
ka create quota q --hard=pods=1 -n team-b >/dev/null
printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"g1"},"spec":{"restartPolicy":"Never","containers":[{"name":"main","image":"busybox","command":["sh","-c","trap \\"\\" TERM; while :; do sleep 1; done"],"resources":{"requests":{"cpu":"100m","memory":"32Mi"}}}]}}' |
  kc bob create -f - >/dev/null
bphase() { kc bob get pod "$1" -o jsonpath='{.status.phase}' 2>/dev/null; }
wait_for 60 eval '[ "$(bphase g1)" = Running ]'
kc bob delete pod g1 --grace-period=3600 --wait=false >/dev/null 2>&1
like "$(printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"g2"},"spec":{"restartPolicy":"Never","containers":[{"name":"main","image":"busybox","command":["sleep","300"],"resources":{"requests":{"cpu":"100m","memory":"32Mi"}}}]}}' | kc bob create -f - 2>&1)" \
  'exceeded quota: q, requested: pods=1, used: pods=1, limited: pods=1' \
  "bob's pod deleted with --grace-period=3600 still counts: g2 is refused"
is "$(squeue -h -u "$UB" | wc -l)" 1 "bob holds one Slurm job under pods=1"

# --- the cluster folder's logs ------------------------------------------------------------
readable() { su -s /bin/sh "$UB" -c 'cat "$1" >/dev/null 2>&1 && echo readable || echo refused' sh "$1"; }
is "$(readable "$CL/log/slurmlinkd.log")" refused "bob cannot read slurmlinkd's log (every tenant's pods and refusals)"
is "$(readable "$CL/log/slurmctld.log")" refused "bob cannot read slurmctld's log (every job, despite PrivateData=jobs)"
is "$(stat -c %a "$CL/log")" 700 "D/log is 0700"

# === a third tenant, carol, repeats the hostile-tenant list with variations ===============
# Each point names the defence it checks; with that defence undone it fails.
as_c() { (cd /tmp && runuser -u "$UC" -- "$@"); }
cpod() { # NAME IMAGE RUNTIME [COMMAND-JSON] [STDIN]: a pod manifest
  jq -n --arg n "$1" --arg i "$2" --arg r "$3" --argjson c "${4:-null}" --argjson s "${5:-false}" \
    '{apiVersion: "v1", kind: "Pod", metadata: {name: $n, annotations: {"slurmlink.io/runtime": $r}},
      spec: {restartPolicy: "Never", containers: [{name: "main", image: $i, stdin: $s,
        resources: {requests: {cpu: "100m", memory: "32Mi"}}} + (if $c then {command: $c} else {} end)]}}'
}
cphase() { ka -n "$1" get pod "$2" -o jsonpath='{.status.phase}' 2>/dev/null; }
is_cphase() { [ "$(cphase "$1" "$2")" = "$3" ]; }
cwr() { ka -n "$1" get pod "$2" -o jsonpath='{.status.containerStatuses[0].state.waiting.reason}' 2>/dev/null; }
pull_failed() { case $(cwr "$1" "$2") in ErrImagePull | ImagePullBackOff) return 0 ;; esac; return 1; }
msgs() { ka -n "$1" get events --field-selector involvedObject.name="$2" -o jsonpath='{range .items[*]}{.reason}: {.message}{"\n"}{end}' 2>&1; }
S=$CL/images

# --- her registry and images, bob's private registry ---------------------------------------
registry() { # NAME ADDR [auth yaml]
  printf 'version: 0.1\nstorage: {filesystem: {rootdirectory: %s/%s-data}}\nhttp: {addr: "%s"}\n%s\nlog: {level: error}\n' \
    "$T" "$1" "$2" "${3:-}" >"$T/$1.yml"
  docker-registry serve "$T/$1.yml" >"$T/$1.log" 2>&1 &
  on_exit "kill $!"
  wait_for 20 curl -s -o /dev/null "http://$2/v2/" || bail "docker-registry $1 did not start"
}
htpasswd -Bbn bob 'b0b pw' >"$T/htpasswd"
registry reg "$REG"
registry priv "$PRIV" "auth: {htpasswd: {realm: test, path: $T/htpasswd}}"
/usr/bin/python3 -c 'import socket,sys,time
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(4096); time.sleep(100000)' "$((P + 2))" &
on_exit "kill $!"
(
  cd "$T" || exit 1
  cat >ids.c <<'C'
#include <stdio.h>
#include <unistd.h>
int main(void)
{
    int g = setgid(0), u = setuid(0);
    printf("uid=%d euid=%d gid=%d egid=%d%s\n", (int)getuid(), (int)geteuid(), (int)getgid(),
           (int)getegid(), g == 0 && u == 0 ? " (became root)" : "");
    return 0;
}
C
  gcc -O -o ids ids.c || exit 1
  base() { # IMAGE: a first layer of busybox
    umoci new --image "oci:$1" && umoci unpack --rootless --image "oci:$1" b >/dev/null &&
      mkdir -p b/rootfs/bin && cp /bin/busybox b/rootfs/bin/ && ln -s busybox b/rootfs/bin/sh &&
      umoci repack --image "oci:$1" b && rm -rf b
  }
  umoci init --layout oci || exit 1
  # nest: a SECOND layer with a setgid-root program three folders deep, a
  # setuid-root one under two names (a hard link) and a file capability
  base nest && umoci unpack --rootless --image oci:nest b >/dev/null || exit 1
  mkdir -p b/rootfs/opt/a/b/c
  install -m 2755 ids b/rootfs/opt/a/b/c/sgid && install -m 4755 ids b/rootfs/opt/a/b/c/suid &&
    ln b/rootfs/opt/a/b/c/suid b/rootfs/opt/a/link && install -m 755 ids b/rootfs/opt/a/b/c/capf &&
    setcap cap_setuid,cap_setgid+ep b/rootfs/opt/a/b/c/capf || exit 1
  umoci repack --image oci:nest b && rm -rf b
  umoci config --image oci:nest --config.cmd /bin/sh --config.cmd -c --config.cmd 'echo ran'
  # many: 2600 files of 16 KiB (41 MiB), each far below the limit
  base many && umoci unpack --rootless --image oci:many b >/dev/null || exit 1
  mkdir b/rootfs/many && head -c $((2600 * 16384)) /dev/zero | split -b 16384 -a 4 - b/rootfs/many/f
  umoci repack --image oci:many b && rm -rf b
  umoci config --image oci:many --config.cmd /bin/sh --config.cmd -c --config.cmd 'echo ran'
  # bob's private image
  base priv && umoci unpack --rootless --image oci:priv b >/dev/null && echo bobs-secret >b/rootfs/secret.txt &&
    umoci repack --image oci:priv b && rm -rf b
  umoci config --image oci:priv --config.cmd /bin/sh --config.cmd -c --config.cmd 'read x </secret.txt; echo "got $x"'
) >"$T/build.log" 2>&1 || { diag "$(tail -5 "$T/build.log")"; bail "build carol's and bob's images"; }
skopeo copy --quiet --dest-tls-verify=false "oci:$T/oci:nest" "docker://$REG/carol/nest:v1" &&
  skopeo copy --quiet --dest-tls-verify=false "oci:$T/oci:many" "docker://$REG/carol/many:v1" &&
  skopeo copy --quiet --dest-tls-verify=false --dest-creds 'bob:b0b pw' "oci:$T/oci:priv" "docker://$PRIV/priv/app:v1" ||
  bail "push the images"
layers=$(for f in "$T"/oci/blobs/sha256/*; do tar -tvzf "$f" 2>/dev/null; done)
like "$(grep -c -E '^-rwxr-sr-x .*opt/a/b/c/sgid$|^-rwsr-xr-x .*opt/a/b/c/suid$|^h.*opt/a/link link to' <<<"$layers")" '^3$' \
  "carol's second layer holds a setgid program three folders deep and a setuid one with a hard link"
D=$(skopeo inspect --tls-verify=false --creds 'bob:b0b pw' "docker://$PRIV/priv/app:v1" | jq -r .Digest)

# the pods whose pulls take a while, all at once; the pull pool: 4 at once, 2 a namespace
cpod c1 "$REG/carol/nest:v1" charliecloud | kc carol create -f - >/dev/null
ka delete quota q -n team-b >/dev/null # bob's pods=1 of above
kc bob -n team-b create secret docker-registry regcred --docker-server="$PRIV" --docker-username=bob --docker-password='b0b pw' >/dev/null
cpod b1 "$PRIV/priv/app:v1" charliecloud | jq '.spec.imagePullSecrets = [{name: "regcred"}]' | kc bob create -n team-b -f - >/dev/null
SLURMD=127.0.0.1:$(sed -n 's/^SlurmdPort=\([0-9]*\).*/\1/p' "$CL/etc/slurm.conf")
cpod e1 "$CLOSED/x/app:v1" charliecloud | kc carol create -n team-s -f - >/dev/null
cpod e2 "$SLURMD/x/app:v1" charliecloud | kc carol create -n team-s -f - >/dev/null
cpod web busybox host '["sleep","3600"]' | kc carol create -f - >/dev/null
cpod att busybox host '["sh","-c","cat >/dev/null; sleep 3600"]' true | kc carol create -f - >/dev/null
cpod bp busybox host '["sleep","3600"]' | kc bob create -n team-s -f - >/dev/null

# --- 1. set-id, capabilities: in a second layer, nested, hard-linked (the trees sanitized) ---
wait_for 120 is_cphase team-c c1 Succeeded || diag "c1: $(cphase team-c c1) $(msgs team-c c1)"
R=$(find "$S" -path '*/rootfs/opt/a/b/c' -type d 2>/dev/null | head -1)
R=${R%/opt/a/b/c}
ok test -n "$R" -a -e "$R/opt/a/link" "carol's pod ran her image; its tree is in the store (${R#"$CL"/})"
is "$(find "$S" -perm /6000 ! -type l 2>&1)" "" "no setuid or setgid entry in the store (second layer, nested, hard link)"
is "$(as_c "$R/opt/a/b/c/sgid" 2>&1)" "uid=$UIDC euid=$UIDC gid=$GIDC egid=$GIDC" \
  "carol running the nested setgid-root program stays herself"
is "$(as_c "$R/opt/a/link" 2>&1)|$(getcap -r "$S" 2>&1)" "uid=$UIDC euid=$UIDC gid=$GIDC egid=$GIDC|" \
  "so does the hard link of the setuid-root one, and no file capability is left"

# --- 11. the lock folder of an older store (0755, locks 0644): closed at the next use -------
chmod 755 "$S/.locks" && chmod 644 "$S/.locks/"*.lock
cpod c2 "$REG/carol/nest:v1" charliecloud | kc carol create -f - >/dev/null
wait_for 90 is_cphase team-c c2 Succeeded || diag "c2: $(cphase team-c c2) $(msgs team-c c2)"
is "$(stat -c %a "$S/.locks") $(stat -c %a "$S/.locks/"*.lock | sort -u | tr '\n' ' ')" "700 600 " \
  "carol's next pod of the image closed the lock folder (0700) and its locks (0600) again"
as_c flock -n "$S/.locks" true 2>/dev/null
ok test $? -ne 0 "carol cannot open (nor flock) the lock folder itself"

# --- 12. a bomb of many small files (the unpack bounded by images.max_image_size) -----------
cpod z1 "$REG/carol/many:v1" charliecloud | kc carol create -f - >/dev/null
wait_for 120 pull_failed team-c z1
like "$(msgs team-c z1)" "Failed to pull image \"$REG/carol/many:v1\": .*$LIMIT bytes" \
  "2600 files of 16 KiB (none near the limit): the pull fails naming the limit"
is "$(find "$S" -path '*/many/f*' 2>/dev/null | head -1)$(ls -A "$S" | grep '^\.pull')" "" \
  "none of its files is in the store, no partial tree is left"
kc carol delete pod z1 --wait=false >/dev/null 2>&1

# --- 3. bob's private image through an index of hers named BY DIGEST (private store parts) ----
# her registry answers any manifest of evil/app with an OCI index of one
# entry, bob's manifest digest; she names that index by its own digest
wait_for 120 is_cphase team-b b1 Succeeded || diag "b1: $(cphase team-b b1) $(msgs team-b b1)"
SIZE=$(skopeo inspect --raw --tls-verify=false --creds 'bob:b0b pw' "docker://$PRIV/priv/app:v1" | wc -c)
jq -cjn --arg d "$D" --argjson n "$SIZE" '{schemaVersion: 2, mediaType: "application/vnd.oci.image.index.v1+json",
  manifests: [{mediaType: "application/vnd.oci.image.manifest.v1+json", digest: $d, size: $n,
    platform: {architecture: "amd64", os: "linux"}}]}' >"$T/index.json"
IDX=sha256:$(sha256sum <"$T/index.json" | cut -d' ' -f1)
/usr/bin/python3 - "$((P + 4))" "$T/index.json" >/dev/null 2>&1 <<'PY' &
import http.server, sys
idx = open(sys.argv[2], "rb").read()
class H(http.server.BaseHTTPRequestHandler):
    def answer(self, body):
        if self.path == "/v2/":
            code, ctype, b = 200, "application/json", b"{}"
        elif self.path.startswith("/v2/evil/app/manifests/"):
            code, ctype, b = 200, "application/vnd.oci.image.index.v1+json", idx
        else:
            code, ctype, b = 404, "application/json", b'{"errors":[{"code":"BLOB_UNKNOWN","message":"unknown"}]}'
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(b)))
        self.end_headers()
        if body:
            self.wfile.write(b)
    def do_GET(self): self.answer(True)
    def do_HEAD(self): self.answer(False)
    def log_message(self, *a): pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
on_exit "kill $!"
wait_for 10 curl -s -o /dev/null "http://$EVIL/v2/" || bail "carol's registry did not start"
cpod d1 "$EVIL/evil/app@$IDX" charliecloud | kc carol create -f - >/dev/null
wait_for 90 pull_failed team-c d1
like "$(cwr team-c d1)|$(msgs team-c d1 | grep -c 'already present')|$(kc carol logs d1 2>&1 | grep -c bobs-secret)|$(cphase team-c d1)|b1 $(cphase team-b b1)" \
  '^(ErrImagePull|ImagePullBackOff)\|0\|0\|Pending\|b1 Succeeded$' \
  "bob's digest (his pod ran it) in an index of hers named by digest: carol's pull is refused, nothing ran"

# --- 13. the store's tag records and private parts --------------------------------------------
ok test -d "$S/refs" -a -d "$S/private" "the store has refs/ (every tenant's tags) and private/ (bob's part)"
is "$(as_c ls "$S/refs" 2>&1 | sed 's/.*: //'; as_c ls "$S/private" 2>&1 | sed 's/.*: //')" \
  $'Permission denied\nPermission denied' "carol can list neither"

# --- 14. a reference to slurmd's port reads as a closed port ---------------------------------
failed_of() { msgs team-s "$1" | grep -m1 '^Failed: Failed to pull' | sed -E 's/127\.0\.0\.1:[0-9]+/HOST/g'; }
both_failed() { [ -n "$(failed_of e1)" ] && [ -n "$(failed_of e2)" ]; }
wait_for 90 both_failed
E1=$(failed_of e1)
is "$(failed_of e2)" "${E1:-no Failed event for the closed port}" "slurmd's port ($SLURMD) reads as a closed one ($E1)"

# --- 10. a Job (not pods) naming a registry that never answers, then deleted ------------------
kc carol create -f - >/dev/null <<YAML
apiVersion: batch/v1
kind: Job
metadata: {name: hj}
spec:
  completions: 6
  parallelism: 6
  template:
    metadata: {annotations: {slurmlink.io/runtime: charliecloud}}
    spec:
      restartPolicy: Never
      containers: [{name: main, image: "$HANG/hang/app:v1", resources: {requests: {cpu: 100m, memory: 32Mi}}}]
YAML
skopeos() { pgrep -c -f "docker://$HANG/" || true; }
some_skopeo() { [ "$(skopeos)" -gt 0 ]; }
no_skopeo() { [ "$(skopeos)" = 0 ]; }
wait_for 30 some_skopeo
pool_full() { [ "$(skopeos)" -ge 2 ]; }
wait_for 30 pool_full # the pulls' pool has started all it may (2), and no more
n=$(skopeos)
ok test "$n" -ge 1 -a "$n" -le 2 "her Job of 6 pods naming a registry that never answers: $n skopeo processes (2 a namespace)"
kc carol delete job hj --wait=false >/dev/null 2>&1
t0=$(date +%s)
wait_for 10 no_skopeo
is "$(skopeos)" 0 "within 10 s of the Job's deletion no skopeo is left ($(($(date +%s) - t0)) s)"

# --- 2. `slurmlink up` on folders carol has a hand in (up's trust checks) ---------------------
snap() { find "$1" -printf '%p %u %m %y\n' 2>/dev/null | sort; }
refused() { # DIR WHAT_REGEX DESC
  local before out rc
  before=$(snap "$1")
  out=$("$SLURMLINK" up --dir "$1" 2>&1); rc=$?
  on_exit "'$SLURMLINK' down --dir '$1' >/dev/null 2>&1"
  like "$rc: $out|$(procs_of "$1" | wc -l)|$([ "$(snap "$1")" = "$before" ] && echo same)" \
    "^1: slurmlink up: $2[^|]*\|0\|same\$" "$3: refused, nothing started or written"
}
U=$T/up1 # root's folder, state/ root's but group-writable, carol's group
mkdir -m 711 "$U" && mkdir -m 775 "$U/state" && chgrp "$GIDC" "$U/state" && chmod 775 "$U/state"
refused "$U" "refusing $U/state: owned by uid 0 \\(root\\) with mode 0775" "root's folder, state/ writable by carol's group"
G=$T/gp # a grandparent carol owns (the parent root's)
mkdir -m 755 "$G" && chown "$UC" "$G" && mkdir -m 755 "$G/sub"
refused "$G/sub/c" "refusing $G: owned by uid $UIDC \\($UC\\)" "a grandparent carol owns"
U=$T/up3 # root's folder, pods a link (root's) to carol's folder
mkdir -m 711 "$U" && mkdir -m 755 "$T/cpods" && chown "$UC" "$T/cpods" && ln -s "$T/cpods" "$U/pods"
refused "$U" "refusing $U/pods: " "pods/ a link to carol's folder"

# --- 15. doctor with a symbolic link (not a FIFO) planted for the probe's answer --------------
mkdir -m 755 "$T/c" && chown "$UC" "$T/c"
cat >"$T/plant.sh" <<'EOF'
trap 'kill $(jobs -p) 2>/dev/null; exit 0' TERM
H=$1; mkfifo "$H/fifo"
end=$((SECONDS + 150))
while [ $SECONDS -lt $end ]; do
  for d in $(ps -eo args= | grep -o '/[^ ]*/\.slurmlink-doctor-[0-9a-f]*' | sort -u); do
    f=$d/node1
    [ -d "$d" ] || continue
    if [ ! -e "$f" ] && [ ! -L "$f" ]; then
      ln -s "$H/fifo" "$f" 2>/dev/null && { cat "$H/fifo" >/dev/null & echo "planted $f"; }
    elif [ -f "$f" ] && [ ! -L "$f" ] && [ -s "$f" ]; then
      rm -f "$f" && ln -s "$H/fifo" "$f" && echo "planted $f"
    fi
  done
  sleep 0.01
done
EOF
as_c bash "$T/plant.sh" "$T/c" >"$T/plant.log" 2>&1 &
planter=$!
# the planter runs under runuser: its own bash is what the signal must reach
on_exit "pkill -f 'bash $T/plant.sh'; kill $planter"
t0=$SECONDS
out=$(timeout 90 "$SLURMLINK" doctor --config "$CL/etc/slurmlinkd.conf" --probe-user "$UC" --timeout 30 2>&1); rc=$?
took=$((SECONDS - t0))
pkill -f "bash $T/plant.sh"
kill "$planter" 2>/dev/null
grep -q planted "$T/plant.log" || diag "the planter: $(cat "$T/plant.log")"
like "$rc $([ "$took" -lt 60 ] && echo bounded): $(grep -E '^FAIL +pods-shared ' <<<"$out")" "^1 bounded: .*node1: .*a symbolic link" \
  "doctor with carol's link (to her FIFO) as node1's answer: no hang, the link named (rc $rc in ${took}s)" || diag "$out"

# --- the streams: carol's certificate for a raw WebSocket client -------------------------------
PORT=$(kubectl config view --raw --kubeconfig "$CL/carol.kc" -o jsonpath='{.clusters[0].cluster.server}')
PORT=${PORT##*:}
kubectl config view --raw --kubeconfig "$CL/carol.kc" -o jsonpath='{.users[0].user.client-certificate-data}' | base64 -d >"$T/carol.crt"
kubectl config view --raw --kubeconfig "$CL/carol.kc" -o jsonpath='{.users[0].user.client-key-data}' | base64 -d >"$T/carol.key"
kubectl config view --raw --kubeconfig "$CL/carol.kc" -o jsonpath='{.clusters[0].cluster.certificate-authority-data}' | base64 -d >"$T/ca.crt"
WS() { local m=$1; shift; /usr/bin/python3 "$(dirname "$0")/39-privsep-stream.py" "$m" "$PORT" "$T/ca.crt" "$T/carol.crt" "$T/carol.key" "$@"; }
wait_for 120 is_cphase team-c web Running && wait_for 60 is_cphase team-c att Running &&
  wait_for 60 is_cphase team-s bp Running || diag "web $(cphase team-c web) att $(cphase team-c att) bp $(cphase team-s bp)"

# 5. a message bomb on attach, not exec (exec.max_message_bytes holds for every stream)
is "$(WS bomb "/api/v1/namespaces/team-c/pods/att/attach?stdin=true&stdout=true&container=main" $((16 << 20)) 2>&1)" \
  "close 1009" "a 16 MiB message on an attach session: close 1009 (message too big)"

# 9. shim.pid naming a THREAD (not a process) of hers in a network namespace of its own,
# where she listens on the port bob listens on at the node (shim.pid checked: under the job)
PB=$(free_ports 1) || bail "free port"
runuser -u "$UB" -- /usr/bin/python3 -c "
import socket
s = socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(('0.0.0.0', $PB)); s.listen(16)
while True:
    c, _ = s.accept(); c.sendall(b'BOB-SECRET\n'); c.close()" &
on_exit "kill $! 2>/dev/null"
unshare -n runuser -u "$UC" -- /usr/bin/python3 -c "
import socket, threading, time
s = socket.socket(); s.bind(('0.0.0.0', $PB)); s.listen(16)
t = threading.Thread(target=lambda: (print(threading.get_native_id(), flush=True), time.sleep(600)), daemon=True)
t.start(); time.sleep(600)" >"$T/tid" 2>"$T/tid.err" &
on_exit "kill $! 2>/dev/null"
wait_for 10 test -s "$T/tid" || diag "$(cat "$T/tid.err")"
wait_for 10 sh -c "ss -Hltn 'sport = :$PB' | grep -q LISTEN"
DIR=$CL/pods/team-c/web-$(ka -n team-c get pod web -o jsonpath='{.metadata.uid}')
SHIM=$(cat "$DIR/shim.pid")
as_c sh -c "echo $(cat "$T/tid") >'$DIR/shim.pid'"
out=$(WS read "/api/v1/namespaces/team-c/pods/web/portforward?ports=$PB" 2>&1)
like "$out" "^refused 403 " "shim.pid naming a thread of hers in a netns of her own: port-forward refused, bob's bytes unread ($out)"
as_c sh -c "echo $SHIM >'$DIR/shim.pid'"

# 8. attach (not exec) into a co-writer's pod; an update of a co-writer's Job (not CronJob)
out=$(timeout 30 kubectl --kubeconfig "$CL/carol.kc" --cache-dir "$CL/cache-carol" attach -n team-s bp -c main </dev/null 2>&1)
like "$out" "Forbidden|forbidden" "carol's attach to bob's pod in the namespace they share is refused ($out)"
kc bob create -n team-s -f - >/dev/null <<'YAML'
apiVersion: batch/v1
kind: Job
metadata: {name: bj}
spec:
  suspend: true
  template:
    metadata: {annotations: {slurmlink.io/runtime: host}}
    spec:
      restartPolicy: Never
      containers: [{name: main, image: busybox, command: [echo, bob]}]
YAML
out=$(kc carol patch -n team-s job bj --type merge \
  -p '{"spec":{"template":{"spec":{"containers":[{"name":"main","image":"busybox","command":["id"]}]}}}}' 2>&1)
like "$out" "Forbidden.*runs as" "carol's patch of bob's suspended Job is refused, naming why ($out)"
like "$(kc bob patch -n team-s job bj --type merge -p '{"spec":{"parallelism":2}}' 2>&1)" "patched" \
  "bob's own patch of his Job works"

# 6. many exec sessions (not port-forward), exec.max_streams_per_user 3
sleep 1
out=$(WS flood "/api/v1/namespaces/team-c/pods/web/exec?command=sleep&command=60&stdin=true&stdout=true&container=main" 6 </dev/null 2>&1)
is "$out" "opened 3 refused 3 codes 429 429 429" "carol's 6 exec sessions: 3 open, her cap refuses the rest (429)"

# --- 4. an MPIJob (a gang of 3 pods) under pods=2 (controller pods go through admission) ---
ka create quota qq --hard=pods=2 -n team-q >/dev/null
kc carol create -n team-q -f - >/dev/null <<'YAML'
apiVersion: kubeflow.org/v2beta1
kind: MPIJob
metadata: {name: mj}
spec:
  slotsPerWorker: 1
  mpiReplicaSpecs:
    Launcher:
      replicas: 1
      template:
        metadata: {annotations: {slurmlink.io/runtime: host}}
        spec:
          containers: [{name: l, image: busybox, command: [sleep, "60"]}]
    Worker:
      replicas: 2
      template:
        metadata: {annotations: {slurmlink.io/runtime: host}}
        spec:
          containers: [{name: w, image: busybox, command: [sleep, "60"]}]
YAML
mj_refused() { ka get events -n team-q --field-selector reason=FailedCreate,involvedObject.name=mj -o name 2>/dev/null | grep -q .; }
wait_for 60 mj_refused
like "$(ka get events -n team-q --field-selector involvedObject.name=mj -o jsonpath='{.items[*].message}' 2>&1)|$(kc carol get pods -n team-q -o name | wc -l)|$(squeue -h -t all -n team-q/mj -o %i | wc -l)" \
  'exceeded quota: qq, .*limited: pods=2\|0\|0$' "carol's MPIJob of 3 pods under pods=2: refused whole (FailedCreate), no pod, no Slurm job"

# --- 7. a forged comment on the job of a co-writer's pod (adoption by the Unix user) ---------
cpod wp "$CLOSED/x/app:v1" charliecloud | kc bob create -n team-s -f - >/dev/null
puid=$(ka get pod wp -n team-s -o jsonpath='{.metadata.uid}')
forged=$(as_c sbatch --parsable --hold -o /dev/null --comment="slurmlink:uid=$puid" --wrap 'sleep 300')
on_exit "scancel '$forged'"
left_alone() { grep -q "Slurm job $forged carries its uid but runs as uid $UIDC, not its user's: left alone" "$CL/log/slurmlinkd.log"; }
wait_for 30 left_alone
like "$(left_alone && echo left alone)|$(ka get pod wp -n team-s -o jsonpath='{.metadata.annotations.slurmlink\.io/job-id}' 2>&1)" \
  '^left alone\|$' "carol's held job ($forged) with the uid of bob's pod in the namespace they share: left alone, not the pod's job"
scancel "$forged" 2>/dev/null

# --- 13. an older cluster's pods root and Jobs' task index (0755): closed at the restart -------
kc bob patch -n team-s job bj --type merge -p '{"spec":{"suspend":false}}' >/dev/null
kc bob wait -n team-s --for=condition=complete job/bj --timeout=90s >/dev/null 2>&1
chmod 755 "$CL/pods" "$CL/pods/.job-tasks"
old=$(cat "$CL/run/slurmlinkd.pid")
kill "$old"
wait_for 30 proc_gone "$old"
"$SLURMLINK" up --dir "$CL" >/dev/null 2>&1
wait_for 60 ka get ns team-c
is "$(as_c ls "$CL/pods/.job-tasks" 2>&1 | sed 's/.*: //'; as_c ls "$CL/pods" 2>&1 | sed 's/.*: //')" \
  $'Permission denied\nPermission denied' "after a restart carol lists neither the Jobs' task index (bob's Job ran) nor the pods root"
