#!/bin/bash
# covers: src/image/ src/ctl/pull.c src/ctl/pullpool.c src/slurmif/acct.c
# Private registries: Debian's docker-registry with TLS (a CA made here) and
# htpasswd (bcrypt) on this host's non-loopback address, so TLS is verified
# (loopback registries may be plain HTTP). `slurmlink image pull` with and
# without credentials and the CA; then pods: an imagePullSecret of type
# kubernetes.io/dockerconfigjson in its namespace, the server's CA folder
# (images.ca_dir), and isolation: a namespace without the secret gets the
# registry's refusal although the image is in the shared store.
source "$(dirname "$0")/lib.sh"
for t in skopeo umoci docker-registry htpasswd openssl; do command -v $t >/dev/null || { plan 1; bail "$t is missing (scripts/deps.sh)"; }; done
IP=$(hostname -I 2>/dev/null | tr ' ' '\n' | grep -m1 -E '^[0-9]+\.[0-9]+\.[0-9]+\.[0-9]+$' | grep -v '^127\.')
[ -n "$IP" ] || skip_all "no non-loopback IPv4 address for a TLS registry"
plan 18

T=$(tmpdir)
on_exit "rm -rf '$T'"
PORT=$(/usr/bin/python3 -c 'import socket,sys; s=socket.socket(); s.bind((sys.argv[1],0)); print(s.getsockname()[1])' "$IP")
REG=$IP:$PORT
mkdir -p "$T/ca"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj /CN=test-ca -keyout "$T/ca.key" -out "$T/ca/ca.crt" 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj "/CN=$IP" -keyout "$T/srv.key" -out "$T/srv.csr" 2>/dev/null
printf 'subjectAltName=IP:%s\n' "$IP" >"$T/san.ext"
openssl x509 -req -in "$T/srv.csr" -CA "$T/ca/ca.crt" -CAkey "$T/ca.key" -CAcreateserial -days 2 -extfile "$T/san.ext" -out "$T/srv.crt" 2>/dev/null
htpasswd -Bbn alice 's3cret pw' >"$T/htpasswd"
cat >"$T/reg.yml" <<YAML
version: 0.1
storage: {filesystem: {rootdirectory: $T/regdata}}
http: {addr: "$REG", tls: {certificate: $T/srv.crt, key: $T/srv.key}}
auth: {htpasswd: {realm: test, path: $T/htpasswd}}
log: {level: info}
YAML
docker-registry serve "$T/reg.yml" >"$T/reg.log" 2>&1 &
on_exit "kill $!"
wait_for 20 curl -s --cacert "$T/ca/ca.crt" -o /dev/null "https://$REG/v2/" || bail "docker-registry did not start"

cd "$T" || bail cd
umoci init --layout oci && umoci new --image oci:app && umoci unpack --rootless --image oci:app b >/dev/null
mkdir -p b/rootfs/bin && cp /bin/busybox b/rootfs/bin/ && ln -s busybox b/rootfs/bin/sh && echo private >b/rootfs/secret.txt
umoci repack --image oci:app b && rm -rf b
umoci config --image oci:app --config.cmd /bin/sh --config.cmd -c --config.cmd 'read x </secret.txt; echo "got $x"'
ok skopeo copy --quiet --dest-cert-dir "$T/ca" --dest-creds 'alice:s3cret pw' oci:oci:app "docker://$REG/priv/app:v1" "push to the TLS + htpasswd registry"
cd - >/dev/null || bail cd
auth() { printf '{"auths":{"%s":{"auth":"%s"}}}' "$REG" "$(printf '%s' "$1" | base64 -w0)"; }
auth 'alice:s3cret pw' >"$T/good.json"
auth 'alice:wrong' >"$T/bad.json"

S=$T/store
pull() { "$SLURMLINK" image pull "$REG/priv/app:v1" --store "$S" "$@" 2>&1; }
like "$(pull --cert-dir "$T/ca")" 'authentication required|unauthorized' "no credentials: the registry's refusal"
like "$(pull --cert-dir "$T/ca" --authfile "$T/bad.json")" 'unauthorized|authentication required' "a wrong password: the registry's refusal"
like "$(pull --authfile "$T/good.json")" 'x509|certificate' "the right password but not the CA: TLS is verified"
like "$(pull --authfile "$T/good.json" --cert-dir "$T/ca")" '^pulled ' "the right password and the CA: pulled"
is "$(ls "$S/sha256" 2>/dev/null | wc -l)" 1 "one image in the store"

# --- pods -------------------------------------------------------------------
mkdir -p "$T/bin" && chmod 711 "$T" && chmod 755 "$T/bin" # the job user runs the shim through it
printf '#!/bin/sh\nexec "%s" "$@" --image-ca-dir "%s"\n' "$SLURMLINKD" "$T/ca" >"$T/bin/slurmlinkd"
chmod +x "$T/bin/slurmlinkd"
ln -s "$(dirname "$SLURMLINKD")/slurmlink-shim" "$T/bin/slurmlink-shim"
SLURMLINKD=$T/bin/slurmlinkd cluster_up || bail "cluster up"
KC=(kubectl --cache-dir "$CL/kcache")
kc create namespace team-a >/dev/null
kc create namespace team-b >/dev/null
ok kc -n team-a create secret docker-registry regcred --docker-server="$REG" --docker-username=alice --docker-password='s3cret pw' \
  "kubectl create secret docker-registry in team-a"
pod() { # ns name [spec yaml]
  cat <<YAML
apiVersion: v1
kind: Pod
metadata: {name: $2, namespace: $1, annotations: {slurmlink.io/runtime: charliecloud}}
spec:
  restartPolicy: Never
${3:-}
  containers:
  - name: main
    image: $REG/priv/app:v1
    resources: {requests: {cpu: 100m, memory: 64Mi}}
YAML
}
phase() { kc -n "$1" get pod "$2" -o jsonpath='{.status.phase}' 2>/dev/null; }
is_phase() { [ "$(phase "$1" "$2")" = "$3" ]; }
wr() { kc -n "$1" get pod "$2" -o jsonpath='{.status.containerStatuses[0].state.waiting.reason}' 2>/dev/null; }
is_wr() { [ "$(wr "$1" "$2")" = "$3" ]; }
msgs() { kc -n "$1" get events --field-selector involvedObject.name="$2" -o jsonpath='{range .items[*]}{.reason}: {.message}{"\n"}{end}' 2>&1; }

pod team-a a1 '  imagePullSecrets: [{name: regcred}]' | kc apply -f - >/dev/null
wait_for 120 is_phase team-a a1 Succeeded; r=$?
is "$r" 0 "team-a's pod with its pull secret runs (TLS verified with images.ca_dir)"
[ "$r" = 0 ] || diag "$(kc -n team-a get pod a1 -o jsonpath='{.status}'; msgs team-a a1; cat "$CL"/pods/team-a/a1-*/job.out "$CL"/pods/team-a/a1-*/logs/*/* 2>&1)"
is "$(kc -n team-a logs a1 2>&1)" "got private" "it runs the private image's CMD"
like "$(msgs team-a a1)" 'Pulling: Pulling image' "Pulling event"

pod team-b b1 '  imagePullSecrets: [{name: regcred}]' | kc apply -f - >/dev/null
ok wait_for 60 is_wr team-b b1 ImagePullBackOff "team-b naming team-a's secret: it is not found in team-b, the pull is refused"
like "$(msgs team-b b1)" 'Failed: Failed to pull image .*(authentication required|unauthorized)' "with the registry's answer, although the image is in the store"
pod team-b b2 '  imagePullSecrets: []' | sed 's/^    image: .*/&\n    imagePullPolicy: IfNotPresent/' | kc apply -f - >/dev/null
ok wait_for 60 is_wr team-b b2 ImagePullBackOff "IfNotPresent without credentials: the stored private image is not served"
like "$(msgs team-b b2)" 'Failed: Failed to pull image .*(authentication required|unauthorized)' "the registry was asked"
unlike "$(msgs team-b b2)" 'already present' "no 'already present' for a tenant without access"
kc -n team-b create secret docker-registry wrongcred --docker-server="$REG" --docker-username=alice --docker-password=nope >/dev/null
pod team-b b3 '  imagePullSecrets: [{name: wrongcred}]' | kc apply -f - >/dev/null
ok wait_for 60 is_wr team-b b3 ImagePullBackOff "a wrong password in a pull secret: ImagePullBackOff"
uids=$(kc -n team-b get pod b1 b2 b3 -o jsonpath='{range .items[*]}{.metadata.uid}{"\n"}{end}')
jobs=$(squeue -h -o '%k' 2>&1; sacct -n -X -o comment%80 2>&1)
is "$(grep -cFf <(grep . <<<"$uids") <<<"$jobs")" 0 "none of team-b's pods became a Slurm job"
is "$(ls "$CL/slurmlinkd" 2>/dev/null | grep -c pull-auth)" 0 "no pull authfile is left in the state folder"
