#!/bin/bash
# covers: src/image/ src/ctl/pull.c
# slow
# 39-privsep-images.t — pulled images between tenants, on a real Slurm
# cluster with two real non-root tenants and real loopback registries
# (Debian's docker-registry: one with htpasswd, one public):
#   - bob's image pulled with his pull secret is his: alice cannot read its
#     files in the store, nor run it without credentials, neither through
#     a registry of her own whose index names bob's manifest digest nor by
#     naming the digest on bob's registry;
#   - the use records of the store (namespaces, pod names, uids of every
#     tenant's pods) are not readable by a tenant;
#   - pulls are a bounded pool: 50 pods naming a registry that never
#     answers run at most images.max_pulls_per_namespace skopeo processes,
#     and none is left a few seconds after the pods are deleted;
#   - a reference to a closed port, to a port that never answers and to
#     slurmctld's port give the same Event text, within a bounded time.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/61-security-lib.sh"
for t in skopeo umoci docker-registry htpasswd ch-run; do command -v $t >/dev/null || skip_all "$t is missing (scripts/deps.sh)"; done

plan 19
T=$(tmpdir)
on_exit "rm -rf '$T'"
chmod 755 "$T"
P=$(free_ports 5) || bail "free ports"
PRIV=127.0.0.1:$P PUB=127.0.0.1:$((P + 1)) EVIL=127.0.0.1:$((P + 2)) HANG=127.0.0.1:$((P + 3)) CLOSED=127.0.0.1:$((P + 4))

# --- registries: bob's (htpasswd), a public one, alice's own, one that never answers
htpasswd -Bbn bob 'b0b pw' >"$T/htpasswd"
registry() { # NAME ADDR [auth yaml]
  cat >"$T/$1.yml" <<YAML
version: 0.1
storage: {filesystem: {rootdirectory: $T/$1-data}}
http: {addr: "$2"}
${3:-}
log: {level: error}
YAML
  docker-registry serve "$T/$1.yml" >"$T/$1.log" 2>&1 &
  on_exit "kill $!"
  wait_for 20 curl -s -o /dev/null "http://$2/v2/" || bail "docker-registry $1 did not start"
}
registry priv "$PRIV" "auth: {htpasswd: {realm: test, path: $T/htpasswd}}"
registry pub "$PUB"
# a socket that takes connections and never answers
/usr/bin/python3 -c 'import socket,sys,time
s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1]))); s.listen(4096); time.sleep(100000)' "$((P + 3))" &
on_exit "kill $!"

(
  cd "$T" || exit 1
  umoci init --layout oci && umoci new --image oci:app && umoci unpack --rootless --image oci:app b >/dev/null
  mkdir -p b/rootfs/bin && cp /bin/busybox b/rootfs/bin/ && ln -s busybox b/rootfs/bin/sh && echo bobs-secret >b/rootfs/secret.txt
  umoci repack --image oci:app b && rm -rf b
  umoci config --image oci:app --config.cmd /bin/sh --config.cmd -c --config.cmd 'read x </secret.txt; echo "got $x"'
) >/dev/null 2>&1 || bail "build the image"
ok skopeo copy --quiet --dest-tls-verify=false --dest-creds 'bob:b0b pw' "oci:$T/oci:app" "docker://$PRIV/priv/app:v1" \
  "bob's private image pushed to the htpasswd registry"
# the public image: another one (its own CMD, so its own digest)
umoci config --image "$T/oci:app" --tag pub --config.cmd /bin/sh --config.cmd -c --config.cmd 'echo public' >/dev/null 2>&1 || bail "the public image"
skopeo copy --quiet --dest-tls-verify=false "oci:$T/oci:pub" "docker://$PUB/pub/app:v1" || bail "push the public image"
inspect() { skopeo inspect --tls-verify=false --creds 'bob:b0b pw' "$@" "docker://$PRIV/priv/app:v1"; }
D=$(inspect | jq -r .Digest) SIZE=$(inspect --raw | wc -c)
like "$D" '^sha256:[0-9a-f]{64}$' "bob's manifest digest: $D"
# alice's "registry": an index of one manifest, bob's digest; no blob at all
cat >"$T/evil.py" <<'PY'
import http.server, json, sys
digest, size = sys.argv[2], int(sys.argv[3])
idx = json.dumps({"schemaVersion": 2, "mediaType": "application/vnd.oci.image.index.v1+json",
    "manifests": [{"mediaType": "application/vnd.oci.image.manifest.v1+json", "digest": digest,
                   "size": size, "platform": {"architecture": "amd64", "os": "linux"}}]}).encode()
class H(http.server.BaseHTTPRequestHandler):
    def answer(self, body):
        if self.path == "/v2/":
            code, ctype, body_ = 200, "application/json", b"{}"
        elif self.path == "/v2/evil/app/manifests/v1":
            code, ctype, body_ = 200, "application/vnd.oci.image.index.v1+json", idx
        else:
            code, ctype, body_ = 404, "application/json", b'{"errors":[{"code":"MANIFEST_UNKNOWN","message":"manifest unknown"}]}'
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body_)))
        self.end_headers()
        if body:
            self.wfile.write(body_)
    def do_GET(self): self.answer(True)
    def do_HEAD(self): self.answer(False)
    def log_message(self, *a): pass
http.server.ThreadingHTTPServer(("127.0.0.1", int(sys.argv[1])), H).serve_forever()
PY
/usr/bin/python3 "$T/evil.py" "$((P + 2))" "$D" "$SIZE" &
on_exit "kill $!"
wait_for 10 curl -s -o /dev/null "http://$EVIL/v2/" || bail "alice's registry did not start"

# --- the cluster: at most 2 pulls per namespace, 4 in all (SL_T39_DAEMON_ARGS
# replaces these options: empty runs a slurmlinkd that has none)
SLURMLINKD=$(daemon_with "$T" ${SL_T39_DAEMON_ARGS---image-max-pulls 4 --image-max-pulls-per-namespace 2})
export SLURMLINKD
sec_two_tenants --token || bail "two tenants: Unix users, slurmlink up, the image, kubeconfigs, namespaces"
kc bob -n team-b create secret docker-registry regcred --docker-server="$PRIV" --docker-username=bob --docker-password='b0b pw' >/dev/null
pod() { # NAME IMAGE [spec lines]
  cat <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $1, annotations: {slurmlink.io/runtime: charliecloud}}
spec:
  restartPolicy: Never
${3:-}
  containers:
  - name: main
    image: $2
    resources: {requests: {cpu: 100m, memory: 64Mi}}
YAML
}
phase() { kc "$1" get pod "$2" -o jsonpath='{.status.phase}' 2>/dev/null; }
is_phase() { [ "$(phase "$1" "$2")" = "$3" ]; }
wr() { kc "$1" get pod "$2" -o jsonpath='{.status.containerStatuses[0].state.waiting.reason}' 2>/dev/null; }
pull_refused() { case $(wr "$1" "$2") in ErrImagePull | ImagePullBackOff) return 0 ;; esac; return 1; }
msgs() { kc "$1" get events --field-selector involvedObject.name="$2" -o jsonpath='{range .items[*]}{.reason}: {.message}{"\n"}{end}' 2>&1; }
as() { local u=$1; shift; su -s /bin/sh "$u" -c "$*" 2>&1; }

# --- bob's private image ---------------------------------------------------------
pod b1 "$PRIV/priv/app:v1" '  imagePullSecrets: [{name: regcred}]' | kc bob create -f - >/dev/null
wait_for 120 is_phase bob b1 Succeeded; r=$?
is "$r" 0 "bob's pod with his pull secret runs his private image"
[ "$r" = 0 ] || diag "$(kc bob get pod b1 -o jsonpath='{.status}'; msgs bob b1)"
is "$(kc bob logs b1 2>&1)" "got bobs-secret" "it runs the private image's CMD"

SECRET=$(find "$CL/images" -path '*rootfs/secret.txt' 2>/dev/null | head -1)
ok test -n "$SECRET" "the private image's file is in the store ($SECRET)"
like "$SECRET" "/sha256/${D#sha256:}/rootfs/secret.txt\$" "stored under the digest bob's registry names"
got=$(as "$UA" "cat '$SECRET'")
unlike "$got" 'bobs-secret' "alice cannot read the private image's files in the store (cat: $got)"
got=$(as "$UA" "ls -R '$CL/images' 2>/dev/null | grep -c secret.txt")
is "$got" 0 "nor find them by listing the store"

# --- alice runs it without credentials -------------------------------------------
pod a1 "$EVIL/evil/app:v1" | kc alice create -f - >/dev/null
wait_for 90 pull_refused alice a1; r=$?
is "$r" 0 "alice's own registry naming bob's digest: her pull is refused"
diag "$(msgs alice a1)"
unlike "$(phase alice a1)$(kc alice logs a1 2>&1)" 'Succeeded|bobs-secret' "her pod never ran bob's image"
pod a2 "$PRIV/priv/app@$D" '' | sed 's/^    image: .*/&\n    imagePullPolicy: IfNotPresent/' | kc alice create -f - >/dev/null
ok wait_for 90 pull_refused alice a2 "bob's digest named on his registry, no credentials: refused"
unlike "$(msgs alice a2)" 'already present' "no 'already present' for alice"

# --- the use records ---------------------------------------------------------------
pod p1 "$PUB/pub/app:v1" | kc bob create -f - >/dev/null
wait_for 120 is_phase bob p1 Succeeded || diag "$(msgs bob p1)"
ok test -d "$CL/images/uses" "a public image's use is recorded in the store's uses folder"
got=$(as "$UA" "ls '$CL/images/uses' '$CL/images/uses/'* 2>&1; cat '$CL/images/uses/'*/* 2>&1")
unlike "$got" 'team-b|"uid"|p1|b1' "the use records (bob's namespace, pod names, uids) are not readable by alice"

# --- the pull pool -------------------------------------------------------------------
for i in $(seq 1 50); do pod "h$i" "$HANG/hang/app:v1"; echo ---; done | kc alice create -f - >/dev/null
skopeos() { pgrep -c -f "docker://$HANG/" || true; }
some_skopeo() { [ "$(skopeos)" -gt 0 ]; }
no_skopeo() { [ "$(skopeos)" = 0 ]; }
wait_for 30 some_skopeo
pool_full() { [ "$(skopeos)" -ge 2 ]; }
wait_for 30 pool_full # the pulls' pool has started all it may (2), and no more
n=$(skopeos)
ok test "$n" -ge 1 -a "$n" -le 2 "50 pods naming a registry that never answers: $n skopeo processes (at most 2 per namespace)"
kc alice delete pod --all --wait=false >/dev/null 2>&1
t0=$(date +%s)
wait_for 5 no_skopeo
is "$(skopeos)" 0 "within 5 s of the pods' deletion, no skopeo process is left ($(($(date +%s) - t0)) s)"

# --- what Events tell of the head node's ports -------------------------------------
CTLD=127.0.0.1:$(sed -n 's/^SlurmctldPort=\([0-9]*\).*/\1/p' "$CL/etc/slurm.conf")
pod e1 "$CLOSED/x/app:v1" | kc alice create -f - >/dev/null
pod e2 "$HANG/x/app:v1" | kc alice create -f - >/dev/null
pod e3 "$CTLD/x/app:v1" | kc alice create -f - >/dev/null
failed_of() { msgs alice "$1" | grep -m1 '^Failed: Failed to pull' | sed -E 's/127\.0\.0\.1:[0-9]+/HOST/g'; }
all_failed() { [ -n "$(failed_of e1)" ] && [ -n "$(failed_of e2)" ] && [ -n "$(failed_of e3)" ]; }
t0=$(date +%s)
wait_for 120 all_failed
dt=$(($(date +%s) - t0))
ok test "$dt" -lt 75 "a registry that never answers and slurmctld's port fail within a bounded time (${dt} s)"
E1=$(failed_of e1) E2=$(failed_of e2) E3=$(failed_of e3)
is "$E2" "${E1:-no Failed event for the closed port}" "a port that never answers reads as a closed one ($E1)"
is "$E3" "${E1:-no Failed event for the closed port}" "slurmctld's port reads as a closed one"
