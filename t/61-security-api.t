#!/bin/bash
# covers: src/auth/ src/api/ src/kinds/job/controller.c
# 61-security-api.t — slurmlinkd with TLS, client certificates, tokens and a
# policy (no Slurm: the API alone), driven by kubectl and curl as real
# tenants whose identities map to real Unix users made here:
#   - transport and authentication: untrusted server/CA, plain HTTP on the
#     TLS port, no/unknown/expired tokens, a certificate of another CA → 401
#     (kube-apiserver's exact Status), tokens added while running;
#   - authorization: alice cannot list, get, watch, read logs of, delete
#     bob's pods or read his secrets and config maps (403 with kube's
#     exact text); reads vs writes; -A only for admins; discovery for all;
#   - identity: slurmlink.io/user set by the server and immutable;
#     runAsUser only the mapped uid; creators without a valid Unix user;
#     the flags allow-list at admission;
#   - limits: body, object, annotations, containers, env, volumes, names —
#     4xx and nothing stored; idle connections cannot starve the server
#     (more in t/67-attack-limits.t);
#   - the loopback plain-HTTP listener and its anonymous identity; option
#     checks at start.
source "$(dirname "$0")/50-api-lib.sh"
source "$(dirname "$0")/61-security-lib.sh"

sec_users || { echo "1..1"; echo "not ok 1 - Unix users for the test"; exit 1; }
D=$(tmpdir)
on_exit "rm -rf '$D'"
sec_pki "$D" || { echo "1..1"; echo "not ok 1 - test PKI"; exit 1; }
P=$D/pki
cat >"$D/etc/policy.yaml" <<EOF
adminGroups: [system:masters]
cluster:
  read: {groups: [system:authenticated]}
namespaces:
  team-a: {account: acct-a, write: {users: [alice]}}
  team-b: {write: {users: [bob]}, read: {users: [carol]}}
  team-d: {write: {groups: [devs]}}
users:
  alice: $UA
  bob: $UB
  admin: nobody
  ghost: nosuch$$
  rooty: root
  dev: nobody
anonymous: {user: dev, groups: [devs]}
EOF
PORT=$(free_port) PLAIN=$(free_port)
URL=https://127.0.0.1:$PORT
sec_opts() { # policy file → SEC
  SEC=(--tls-cert "$P/server.crt" --tls-key "$P/server.key" --client-ca "$P/ca.crt"
       --token-file "$D/etc/tokens.csv" --policy "$1")
}
sec_opts "$D/etc/policy.yaml"
"$SLURMLINKD" --listen 127.0.0.1 --port "$PORT" --state-dir "$D/state" "${SEC[@]}" \
  --plain-http-port "$PLAIN" --max-object-bytes 300000 >"$D/daemon.log" 2>&1 &
DPID=$!
on_exit "kill $DPID"
ADM=(--cacert "$P/ca.crt")
sec_kc "$D" admin "$URL" --groups system:masters --cert
kubectl config view --raw --kubeconfig "$D/admin.kc" -o jsonpath='{.users[0].user.client-certificate-data}' | base64 -d >"$D/admin.crt"
kubectl config view --raw --kubeconfig "$D/admin.kc" -o jsonpath='{.users[0].user.client-key-data}' | base64 -d >"$D/admin.key"
ADMC=("${ADM[@]}" --cert "$D/admin.crt" --key "$D/admin.key")
ok wait_for 10 curl -sf "${ADMC[@]}" "$URL/healthz" "slurmlinkd answers /healthz over verified TLS to the admin certificate"
like "$(cat "$D/daemon.log")" "plain HTTP on http://127.0.0.1:$PLAIN" "the plain listener is announced"

sec_kc "$D" alice "$URL" --cert
sec_kc "$D" bob "$URL" --token
sec_kc "$D" carol "$URL" --token
# ghost and rooty are in group devs, which may write team-d
sec_kc "$D" ghost "$URL" --token --groups devs
sec_kc "$D" rooty "$URL" --token --groups devs
kc() { local u=$1; shift; kubectl --kubeconfig "$D/$u.kc" --cache-dir "$D/cache-$u" "$@"; }
tok() { kubectl config view --raw --kubeconfig "$D/$1.kc" -o jsonpath='{.users[0].user.token}'; }
AUTH_B="Authorization: Bearer $(tok bob)"
AUTH_C="Authorization: Bearer $(tok carol)"
# curl as a user: r USER METHOD PATH [curl args] → $CODE $BODY
r() {
  local u=$1 m=$2 p=$3; shift 3
  local cred=()
  case $u in
    admin) cred=(--cert "$D/admin.crt" --key "$D/admin.key") ;;
    alice) cred=(--cert "$D/alice.crt" --key "$D/alice.key") ;;
    none) ;;
    *) cred=(-H "Authorization: Bearer $(tok "$u")") ;;
  esac
  CODE=$(curl -s -X "$m" "${ADM[@]}" "${cred[@]}" -o "$D/body" -w '%{http_code}' "$@" "$URL$p")
  BODY=$(cat "$D/body")
}
kubectl config view --raw --kubeconfig "$D/alice.kc" -o jsonpath='{.users[0].user.client-certificate-data}' | base64 -d >"$D/alice.crt"
kubectl config view --raw --kubeconfig "$D/alice.kc" -o jsonpath='{.users[0].user.client-key-data}' | base64 -d >"$D/alice.key"

# --- transport ------------------------------------------------------------------------
is "$(curl -s -o /dev/null -w '%{http_code}' "$URL/version")" "000" "curl without --cacert refuses the server (TLS)"
cp "$D/alice.kc" "$D/noca.kc"
kubectl --kubeconfig "$D/noca.kc" config unset clusters.slurmlink.certificate-authority-data >/dev/null
like "$(kubectl --kubeconfig "$D/noca.kc" get pods 2>&1)" "certificate signed by unknown authority" "kubectl without the CA refuses the server"
like "$(curl -s -m 3 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$PORT/version")" '^(000|400)$' "plain HTTP on the TLS port gets no API answer"

# --- authentication: 401 exactly as kube-apiserver ---------------------------------------
U401='{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Unauthorized","reason":"Unauthorized","code":401}'
r none GET /api/v1/namespaces/default/pods
is "$CODE $BODY" "401 $U401" "no credentials: 401 Unauthorized Status"
CODE=$(curl -s "${ADM[@]}" -H "Authorization: Bearer $(printf 'f%.0s' {1..64})" -o "$D/body" -w '%{http_code}' "$URL/version"); BODY=$(cat "$D/body")
is "$CODE $BODY" "401 $U401" "an unknown token: 401"
CODE=$(curl -s "${ADM[@]}" -H "Authorization: Basic YTpi" -o "$D/body" -w '%{http_code}' "$URL/version")
is "$CODE" 401 "a non-bearer Authorization header: 401"
cp "$D/bob.kc" "$D/bad.kc"
kubectl --kubeconfig "$D/bad.kc" config set-credentials bob --token="$(printf 'e%.0s' {1..64})" >/dev/null
# (kubectl words it "(Unauthorized)" or, when its discovery fails first,
# "(the server has asked for the client to provide credentials)", as with kube-apiserver)
like "$(kubectl --kubeconfig "$D/bad.kc" --cache-dir "$D/cache-bad" get pods -n team-b 2>&1 | tail -1)" \
  "^error: You must be logged in to the server \((Unauthorized|the server has asked for the client to provide credentials)\)$" \
  "kubectl with an unknown token: You must be logged in to the server"
OLD=$(printf '0%.0s' {1..63})1
printf '%s,old,old,"system:masters",2001-01-01T00:00:00Z\n' "$OLD" >>"$D/etc/tokens.csv"
CODE=$(curl -s "${ADM[@]}" -H "Authorization: Bearer $OLD" -o /dev/null -w '%{http_code}' "$URL/api/v1/namespaces")
is "$CODE" 401 "an expired token (even an admin's): 401"
like "$(cat "$D/daemon.log")" "unauthorized: GET /api/v1/namespaces from 127\.0\.0\.1:[0-9]+: token expired" "the server logs why (token expired); the client only learns Unauthorized"
# a client certificate from another CA, even for an admin name and group
mkdir -p "$D/other"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 -subj /CN=evil-ca \
  -addext basicConstraints=critical,CA:TRUE -addext keyUsage=critical,keyCertSign \
  -keyout "$D/other/ca.key" -out "$D/other/ca.crt" >/dev/null 2>&1
openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -subj "/O=system:masters/CN=admin" \
  -keyout "$D/other/c.key" -out "$D/other/c.csr" >/dev/null 2>&1
printf 'extendedKeyUsage=clientAuth\n' >"$D/other/ext"
openssl x509 -req -in "$D/other/c.csr" -CA "$D/other/ca.crt" -CAkey "$D/other/ca.key" -CAcreateserial \
  -days 2 -extfile "$D/other/ext" -out "$D/other/c.crt" >/dev/null 2>&1
CODE=$(curl -s "${ADM[@]}" --cert "$D/other/c.crt" --key "$D/other/c.key" -o "$D/body" -w '%{http_code}' "$URL/api/v1/namespaces")
is "$CODE $(cat "$D/body")" "401 $U401" "a client certificate of another CA (CN=admin, O=system:masters): 401"
like "$(cat "$D/daemon.log")" "client certificate: " "... logged as a certificate failure"
r admin GET /version
is "$CODE" 200 "the admin's client certificate authenticates"
# tokens issued while the server runs work at once
sec_kc "$D" dave "$URL" --token
r dave GET /api/v1/nodes
is "$CODE" 200 "a token added while running works at once (dave reads nodes)"

# --- tenants and their objects ---------------------------------------------------------
for ns in team-a team-b team-d; do kc admin create namespace "$ns" >/dev/null; done
pod_yaml() { # name [extra spec json]
  printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s"},"spec":{"containers":[{"name":"main","image":"busybox","command":["sleep","1"]}]%s}}' "$1" "${2:-}"
}
like "$(pod_yaml pb | kc bob create -n team-b -f - 2>&1)" "pod/pb created" "bob (token) creates a pod in team-b"
like "$(kc bob create secret generic sb -n team-b --from-literal=k=v 2>&1)" "secret/sb created" "bob creates a secret"
like "$(kc bob create configmap cb -n team-b --from-literal=k=v 2>&1)" "configmap/cb created" "bob creates a config map"
like "$(pod_yaml pa | kc alice create -n team-a -f - 2>&1)" "pod/pa created" "alice (certificate) creates a pod in team-a"

# --- alice against bob's namespace: 403 with kube-apiserver's text ---------------------
F='User \"alice\" cannot'
is "$(kc alice get pod pb -n team-b 2>&1)" \
  "Error from server (Forbidden): pods \"pb\" is forbidden: User \"alice\" cannot get resource \"pods\" in API group \"\" in the namespace \"team-b\"" \
  "alice cannot get bob's pod"
is "$(kc alice get pods -n team-b 2>&1)" \
  "Error from server (Forbidden): pods is forbidden: User \"alice\" cannot list resource \"pods\" in API group \"\" in the namespace \"team-b\"" \
  "alice cannot list bob's pods"
r alice GET "/api/v1/namespaces/team-b/pods?watch=1&timeoutSeconds=1"
is "$(status_of)" "403|Forbidden|pods is forbidden: User \"alice\" cannot watch resource \"pods\" in API group \"\" in the namespace \"team-b\"" "alice cannot watch bob's pods"
r alice GET "/api/v1/watch/namespaces/team-b/pods/pb"
is "$CODE" 403 "... nor through the legacy /watch/ path"
# a name with a quote: kube's NewForbidden prints it with Go's %q
r alice GET "/api/v1/namespaces/team-b/pods/a%22b"
is "$(status_of)" "403|Forbidden|pods \"a\\\"b\" is forbidden: User \"alice\" cannot get resource \"pods\" in API group \"\" in the namespace \"team-b\"" \
  "alice cannot get a pod whose name has a quote: the name printed as Go's %q"
r alice GET /api/v1/namespaces/team-b/pods/pb/log
is "$(status_of)" "403|Forbidden|pods \"pb\" is forbidden: User \"alice\" cannot get resource \"pods/log\" in API group \"\" in the namespace \"team-b\"" "alice cannot read bob's pod logs"
like "$(kc alice logs pb -n team-b 2>&1)" "Error from server \(Forbidden\): pods \"pb\" is forbidden: User \"alice\" cannot get resource \"pods\"" "kubectl logs as alice: Forbidden"
is "$(kc alice delete pod pb -n team-b 2>&1)" \
  "Error from server (Forbidden): pods \"pb\" is forbidden: User \"alice\" cannot delete resource \"pods\" in API group \"\" in the namespace \"team-b\"" \
  "alice cannot delete bob's pod"
r alice DELETE /api/v1/namespaces/team-b/pods
is "$(status_of)" "403|Forbidden|pods is forbidden: User \"alice\" cannot deletecollection resource \"pods\" in API group \"\" in the namespace \"team-b\"" "alice cannot delete all of bob's pods"
is "$(kc alice get secret sb -n team-b 2>&1)" \
  "Error from server (Forbidden): secrets \"sb\" is forbidden: User \"alice\" cannot get resource \"secrets\" in API group \"\" in the namespace \"team-b\"" \
  "alice cannot read bob's secret"
is "$(kc alice get configmap cb -n team-b -o yaml 2>&1)" \
  "Error from server (Forbidden): configmaps \"cb\" is forbidden: User \"alice\" cannot get resource \"configmaps\" in API group \"\" in the namespace \"team-b\"" \
  "alice cannot read bob's config map"
is "$(kc alice get secrets -n team-b 2>&1)" \
  "Error from server (Forbidden): secrets is forbidden: User \"alice\" cannot list resource \"secrets\" in API group \"\" in the namespace \"team-b\"" \
  "alice cannot list bob's secrets"
r alice PATCH /api/v1/namespaces/team-b/pods/pb -H 'Content-Type: application/merge-patch+json' --data-binary '{"metadata":{"labels":{"x":"y"}}}'
is "$CODE" 403 "alice cannot patch bob's pod"
r alice PUT /api/v1/namespaces/team-b/pods/pb/status -H 'Content-Type: application/json' --data-binary '{}'
is "$(status_of)" "403|Forbidden|pods \"pb\" is forbidden: User \"alice\" cannot update resource \"pods/status\" in API group \"\" in the namespace \"team-b\"" "alice cannot write bob's pod status"
r alice GET /api/v1/namespaces/team-b
is "$(status_of)" "403|Forbidden|namespaces \"team-b\" is forbidden: User \"alice\" cannot get resource \"namespaces\" in API group \"\" in the namespace \"team-b\"" "alice cannot read bob's namespace object"
r alice GET /api/v1/namespaces/team-b/events
is "$CODE" 403 "alice cannot read bob's events"
r alice GET /apis/batch/v1/namespaces/team-b/jobs
is "$(status_of)" "403|Forbidden|jobs.batch is forbidden: User \"alice\" cannot list resource \"jobs\" in API group \"batch\" in the namespace \"team-b\"" "other groups: jobs.batch forbidden (before any 404)"
is "$(kc alice get pods -A 2>&1)" \
  "Error from server (Forbidden): pods is forbidden: User \"alice\" cannot list resource \"pods\" in API group \"\" at the cluster scope" \
  "alice cannot list pods across all namespaces"
r alice GET "/api/v1/pods?watch=1"
is "$CODE" 403 "... nor watch them"
r alice GET /api/v1/secrets
is "$CODE" 403 "... nor list every namespace's secrets"
is "$(kc alice get pod pb -n team-b -o name 2>/dev/null | wc -l)" 0 "nothing of bob's leaks into alice's output"
is "$(kc bob get pod pb -n team-b -o name 2>&1)" "pod/pb" "bob still has his pod"
# bob against alice, too
is "$(kc bob get pods -n team-a 2>&1)" \
  "Error from server (Forbidden): pods is forbidden: User \"bob\" cannot list resource \"pods\" in API group \"\" in the namespace \"team-a\"" \
  "bob cannot list alice's pods"

# --- each in their own namespace; reads vs writes; admins; discovery ---------------------
is "$(kc alice get pods -n team-a -o name 2>&1)" "pod/pa" "alice lists her own pods"
r alice GET "/api/v1/namespaces/team-a/pods?watch=1&timeoutSeconds=1"
is "$CODE" 200 "alice watches her own pods"
is "$(kc carol get pod pb -n team-b -o name 2>&1)" "pod/pb" "carol (read grant in team-b) reads bob's pod"
is "$(kc carol delete pod pb -n team-b 2>&1)" \
  "Error from server (Forbidden): pods \"pb\" is forbidden: User \"carol\" cannot delete resource \"pods\" in API group \"\" in the namespace \"team-b\"" \
  "carol cannot delete it (read is not write)"
like "$(kc admin get pods -A 2>&1)" "team-a +pa .*team-b +pb|team-b +pb .*team-a +pa" "the admin lists pods of every namespace"
like "$(kc alice get nodes 2>&1)" "No resources found|NAME" "every authenticated user reads nodes (cluster read)"
is "$(kc alice create namespace mine 2>&1)" \
  "Error from server (Forbidden): namespaces is forbidden: User \"alice\" cannot create resource \"namespaces\" in API group \"\" at the cluster scope" \
  "alice cannot create namespaces (cluster write)"
for p in /version /api /apis /api/v1 /openapi/v2 /openapi/v3 /healthz; do
  r carol GET "$p"
  is "$CODE" 200 "discovery for any authenticated user: $p"
done
r carol POST /version
is "$(status_of)" "403|Forbidden|forbidden: User \"carol\" cannot post path \"/version\"" "a non-read verb on a non-resource URL: 403 naming the path"
like "$(kc alice api-resources 2>&1)" "pods +po +v1 +true +Pod" "kubectl api-resources works for alice"

# --- identity: slurmlink.io/user ----------------------------------------------------------
is "$(kc alice get pod pa -n team-a -o jsonpath='{.metadata.annotations.slurmlink\.io/user}')" "alice" "the server sets slurmlink.io/user to the creator"
printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"pa2","annotations":{"slurmlink.io/user":"bob","x":"y"}},"spec":{"containers":[{"name":"main","image":"busybox"}]}}' \
  | kc alice create -n team-a -f - >/dev/null 2>&1
is "$(kc alice get pod pa2 -n team-a -o jsonpath='{.metadata.annotations.slurmlink\.io/user} {.metadata.annotations.x}')" "alice y" "a client's slurmlink.io/user is overridden at create"
is "$(kc alice annotate pod pa -n team-a --overwrite slurmlink.io/user=bob 2>&1)" \
  "The Pod \"pa\" is invalid: metadata.annotations[slurmlink.io/user]: Invalid value: \"bob\": field is immutable: the server sets it to the user who created the pod" \
  "changing slurmlink.io/user: 422 naming the field"
r admin PATCH /api/v1/namespaces/team-a/pods/pa -H 'Content-Type: application/json-patch+json' --data-binary '[{"op":"remove","path":"/metadata/annotations/slurmlink.io~1user"}]'
is "$CODE $(printf '%s' "$BODY" | jq -r '.metadata.annotations["slurmlink.io/user"]')" "200 alice" "a write without it keeps it (even the admin cannot remove it)"
r admin PATCH /api/v1/namespaces/team-a/pods/pa -H 'Content-Type: application/merge-patch+json' --data-binary '{"metadata":{"annotations":{"slurmlink.io/user":"admin"}}}'
is "$CODE" 422 "nor change it"
kc alice get pod pa -n team-a -o json | jq 'del(.metadata.annotations)' >"$D/pa.json"
is "$(kc alice replace -f "$D/pa.json" 2>&1)" "pod/pa replaced" "kubectl replace without the annotation succeeds"
is "$(kc alice get pod pa -n team-a -o jsonpath='{.metadata.annotations.slurmlink\.io/user}')" "alice" "... and keeps it"

# --- admission: runAsUser, Unix users, flags -----------------------------------------------
# (the host runtime: no container, so runAsUser may only name the job
# user's uid; in charliecloud it is a uid inside: t/64-run-as-userns.t)
HOSTWHY=' (the host runtime runs no container; runAsUser names a uid inside the container, mapped to that user, with charliecloud)'
run_as() { # user name securityContext-json [container-sc-json]
  local c='{"name":"main","image":"busybox"'
  [ -n "${4:-}" ] && c+=",\"securityContext\":$4"
  c+='}'
  printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","annotations":{"slurmlink.io/runtime":"host"}},"spec":{%s"containers":[%s]}}' \
    "$2" "${3:+\"securityContext\":$3,}" "$c" | kc "$1" create -n team-a -f - 2>&1
}
is "$(run_as alice root0 '{"runAsUser":0}')" \
  "The Pod \"root0\" is invalid: spec.securityContext.runAsUser: Invalid value: 0: must be $UIDA, the uid of Unix user \"$UA\", which the jobs of user \"alice\" run as$HOSTWHY" \
  "runAsUser: 0 is refused on the host runtime (422 naming the field and why)"
is "$(run_as alice root1 '' '{"runAsUser":0}')" \
  "The Pod \"root1\" is invalid: spec.containers[0].securityContext.runAsUser: Invalid value: 0: must be $UIDA, the uid of Unix user \"$UA\", which the jobs of user \"alice\" run as$HOSTWHY" \
  "a container's runAsUser: 0 is refused"
like "$(run_as alice other '{"runAsUser":'"$UIDB"'}')" "spec.securityContext.runAsUser: Invalid value: $UIDB: must be $UIDA" "another user's uid is refused"
is "$(run_as alice mine '{"runAsUser":'"$UIDA"'}' '{"runAsUser":'"$UIDA"'}')" "pod/mine created" "her own uid is accepted"
is "$(kc admin get pods -n team-a -o name | sort | tr '\n' ' ')" "pod/mine pod/pa pod/pa2 " "refused pods were not stored"
ghost() { pod_yaml "$2" | kc "$1" create -n team-d -f - 2>&1; }
is "$(ghost ghost g1)" \
  "Error from server (Forbidden): error when creating \"STDIN\": pods \"g1\" is forbidden: no Unix user to run its jobs as: user \"ghost\" maps to Unix user \"nosuch$$\", which does not exist" \
  "a creator whose Unix user does not exist: 403 with the reason"
like "$(ghost rooty r1)" "pods \"r1\" is forbidden: no Unix user to run its jobs as: user \"rooty\" maps to Unix user \"root\", which is root \(uid 0\)" "a creator mapped to root: 403"
is "$(kc admin get pods -n team-d -o name 2>/dev/null | wc -l)" 0 "... nothing stored"
flags() { # name flags-json-string
  printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","annotations":{"slurm-job.vk.io/flags":%s}},"spec":{"containers":[{"name":"main","image":"busybox"}]}}' "$1" "$2" \
    | kc alice create -n team-a -f - 2>&1
}
is "$(flags f1 '"--uid=0"')" \
  "The Pod \"f1\" is invalid: metadata.annotations[slurm-job.vk.io/flags]: Invalid value: \"--uid=0\": --uid is not allowed: the job runs as the pod's user" \
  "flags: --uid refused at admission, 422 naming the flag"
like "$(flags f2 '"--partition=gpu --wrap=\"id\""')" "metadata.annotations\[slurm-job.vk.io/flags\]: .*--wrap is not allowed" "flags: --wrap refused"
like "$(flags f3 '"--mail-user=\"a\nb\""')" "metadata.annotations\[slurm-job.vk.io/flags\]: .*--mail-user: value contains a newline" "flags: a newline in a value refused"
like "$(flags f4 '"--mem=1G; id"')" "metadata.annotations\[slurm-job.vk.io/flags\]" "flags: a ';' word refused"
like "$(flags f5 '"--frobnicate"')" "unknown sbatch option --frobnicate" "flags: unknown options refused"
is "$(flags f6 '"--exclusive --mail-user='"'"'a$(id)`id`;b\"c@x'"'"'"')" "pod/f6 created" "flags: allowed options with hostile quoted values pass admission"
like "$(printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"pe","annotations":{"slurm-job.vk.io/pre-exec":"id"}},"spec":{"containers":[{"name":"main","image":"busybox"}]}}' | kc alice create -n team-a -f - 2>&1)" \
  "metadata.annotations\[slurm-job.vk.io/pre-exec\]: Forbidden: shell pre-exec commands are disabled" "pre-exec shell refused at admission"

# --- limits: clear 4xx, nothing half-stored ------------------------------------------------
J='Content-Type: application/json'
python3 -c 'print("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"big\"},\"data\":{\"a\":\"" + "x"*(4*1024*1024) + "\"}}")' >"$D/big.json"
r alice POST /api/v1/namespaces/team-a/configmaps -H "$J" --data-binary @"$D/big.json"
is "$(status_of)" "413|RequestEntityTooLarge|Request entity too large: limit is 3145728" "a 4 MiB body: 413"
python3 -c 'print("{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"big\"},\"data\":{\"a\":\"" + "x"*400000 + "\"}}")' >"$D/big.json"
r alice POST /api/v1/namespaces/team-a/configmaps -H "$J" --data-binary @"$D/big.json"
like "$(status_of)" "^413\|RequestEntityTooLarge\|the object is too large to store: 4[0-9]{5} bytes, at most 300000$" "an object over --max-object-bytes: 413"
python3 -c 'import json; print(json.dumps({"apiVersion":"v1","kind":"Pod","metadata":{"name":"ann","annotations":{"a":"x"*262144}},"spec":{"containers":[{"name":"main","image":"busybox"}]}}))' >"$D/ann.json"
r alice POST /api/v1/namespaces/team-a/pods -H "$J" --data-binary @"$D/ann.json"
is "$(status_of)" "422|Invalid|Pod \"ann\" is invalid: metadata.annotations: Too long: may not be more than 262144 bytes" "annotations over 256 KiB: 422"
many() { # field count item-json
  python3 - "$1" "$2" "$3" <<'PY'
import json, sys
f, n, item = sys.argv[1], int(sys.argv[2]), json.loads(sys.argv[3])
c = {"name": "main", "image": "busybox"}
pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": "many"}, "spec": {"containers": [c]}}
def it(i):
    s = json.dumps(item).replace("NN", str(i))
    return json.loads(s)
if f == "containers":
    pod["spec"]["containers"] = [it(i) for i in range(n)]
elif f == "env":
    c["env"] = [it(i) for i in range(n)]
elif f == "volumes":
    pod["spec"]["volumes"] = [it(i) for i in range(n)]
print(json.dumps(pod))
PY
}
many containers 65 '{"name":"cNN","image":"busybox"}' >"$D/m.json"
r alice POST /api/v1/namespaces/team-a/pods -H "$J" --data-binary @"$D/m.json"
is "$(status_of)" "422|Invalid|Pod \"many\" is invalid: spec.containers: Too many: 65: must have at most 64 items" "65 containers: 422"
many containers 64 '{"name":"cNN","image":"busybox"}' >"$D/m.json"
r alice POST "/api/v1/namespaces/team-a/pods?dryRun=All" -H "$J" --data-binary @"$D/m.json"
is "$CODE" 201 "64 containers are fine (dry run)"
many env 1025 '{"name":"ENV_NN","value":"v"}' >"$D/m.json"
r alice POST /api/v1/namespaces/team-a/pods -H "$J" --data-binary @"$D/m.json"
is "$(status_of)" "422|Invalid|Pod \"many\" is invalid: spec.containers[0].env: Too many: 1025: must have at most 1024 items" "1025 env entries: 422"
many volumes 257 '{"name":"vNN","emptyDir":{}}' >"$D/m.json"
r alice POST /api/v1/namespaces/team-a/pods -H "$J" --data-binary @"$D/m.json"
is "$(status_of)" "422|Invalid|Pod \"many\" is invalid: spec.volumes: Too many: 257: must have at most 256 items" "257 volumes: 422"
long=$(printf 'a%.0s' {1..254})
pod_yaml "$long" >"$D/m.json"
r alice POST /api/v1/namespaces/team-a/pods -H "$J" --data-binary @"$D/m.json"
like "$(status_of)" "^422\|Invalid\|.*metadata.name: Invalid value: \"a+\": must be no more than 253 characters" "a 254-character pod name: 422"
printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"cn"},"spec":{"containers":[{"name":"%s","image":"busybox"}]}}' "$(printf 'c%.0s' {1..64})" >"$D/m.json"
r alice POST /api/v1/namespaces/team-a/pods -H "$J" --data-binary @"$D/m.json"
like "$(status_of)" "^422\|Invalid\|.*spec.containers\[0\].name: Invalid value: \"c+\": must be no more than 63 characters" "a 64-character container name: 422"
r admin GET "/api/v1/namespaces/$(printf 'n%.0s' {1..3000})/pods/x"
like "$CODE" "^(400|404|414|431)$" "a 3000-character namespace in the URL: a 4xx ($CODE), no crash"
is "$(kc admin get pods -n team-a -o name | sort | tr '\n' ' ')" "pod/f6 pod/mine pod/pa pod/pa2 " "no refused object was stored"
is "$(kc admin get configmaps -n team-a -o name 2>&1 | grep -c big)" 0 "no oversized config map was stored"
ok kill -0 "$DPID" "slurmlinkd is still running"

# --- the plain-HTTP listener: loopback, anonymous identity ------------------------------
PU=http://127.0.0.1:$PLAIN
CODE=$(curl -s -o "$D/body" -w '%{http_code}' -X POST -H "$J" --data-binary "$(pod_yaml dp)" "$PU/api/v1/namespaces/team-d/pods"); BODY=$(cat "$D/body")
is "$CODE $(printf '%s' "$BODY" | jq -r '.metadata.annotations["slurmlink.io/user"]')" "201 dev" "plain HTTP acts as the policy's anonymous identity (dev, group devs)"
CODE=$(curl -s -o "$D/body" -w '%{http_code}' "$PU/api/v1/namespaces/team-a/pods"); BODY=$(cat "$D/body")
is "$(status_of)" "403|Forbidden|pods is forbidden: User \"dev\" cannot list resource \"pods\" in API group \"\" in the namespace \"team-a\"" "... and only what that identity may do"
CODE=$(curl -s -o /dev/null -w '%{http_code}' -H "Authorization: Bearer $(tok bob)" "$PU/api/v1/namespaces/team-b/pods")
is "$CODE" 403 "a token on the plain listener does not change who you are (still dev)"
kill "$DPID"; wait "$DPID" 2>/dev/null
is "$?" 0 "slurmlinkd exits cleanly"

# a policy without anonymous: the plain listener refuses everything
grep -v '^anonymous' "$D/etc/policy.yaml" >"$D/etc/noanon.yaml"
P2=$(free_port) PL2=$(free_port)
sec_opts "$D/etc/noanon.yaml"
"$SLURMLINKD" --port "$P2" --state-dir "$D/state2" "${SEC[@]}" \
  --plain-http-port "$PL2" >"$D/d2.log" 2>&1 &
D2=$!
on_exit "kill $D2"
wait_for 10 curl -sf "${ADMC[@]}" "https://127.0.0.1:$P2/healthz"
CODE=$(curl -s -o "$D/body" -w '%{http_code}' "http://127.0.0.1:$PL2/version")
is "$CODE $(cat "$D/body")" "401 $U401" "plain listener without an anonymous identity: 401"
kill "$D2"; wait "$D2" 2>/dev/null
sec_opts "$D/etc/policy.yaml"

# --- option checks at start -----------------------------------------------------------------
start_err() { "$SLURMLINKD" --port 0 --state-dir "$D/state3" "$@" 2>&1; echo "rc=$?"; }
like "$(start_err "${SEC[@]}" --plain-http-port 0 --plain-http-address 10.1.2.3)" "loopback address .*not 10\.1\.2\.3.*rc=1" "a plain listener off loopback is refused"
like "$(start_err --token-file "$D/etc/tokens.csv")" "--token-file needs --policy.*rc=2" "--token-file without --policy is refused"
like "$(start_err --policy "$D/etc/policy.yaml")" "--policy needs --tls-cert and --tls-key.*rc=2" "--policy without TLS is refused"
like "$(start_err --plain-http-port 0)" "--plain-http-port needs --policy.*rc=2" "--plain-http-port without --policy is refused"
printf 'namespaces: {Bad: {}}\n' >"$D/etc/bad.yaml"
sec_opts "$D/etc/bad.yaml"
like "$(start_err "${SEC[@]}")" "bad\.yaml:1: namespaces\.Bad: .*rc=1" "an invalid policy stops the start with file, line and field"
sec_opts "$D/etc/policy.yaml"
chmod 644 "$D/etc/tokens.csv"
like "$(start_err "${SEC[@]}")" "tokens\.csv.*rc=1" "a token file readable by others stops the start"
chmod 600 "$D/etc/tokens.csv"
"$SLURMLINKD" --port 0 --state-dir "$D/state4" --no-controllers >"$D/devmode.log" 2>&1 &
p=$!
wait_for 30 grep -q "no --policy: development mode" "$D/devmode.log"
kill $p; wait $p
like "$(cat "$D/devmode.log")" "no --policy: development mode" "without --policy the daemon warns that nothing is checked"

# --- idle connections cannot starve the server ----------------------------------------------
P3=$(free_port)
"$SLURMLINKD" --port "$P3" --state-dir "$D/state5" "${SEC[@]}" --max-connections 8 --max-per-ip 4 \
  --idle-timeout 2 >"$D/d3.log" 2>&1 &
D3=$!
on_exit "kill $D3"
wait_for 10 curl -sf "${ADMC[@]}" "https://127.0.0.1:$P3/healthz"
# idle.py PORT N SRC-ADDRS... : open N silent connections (never a TLS
# handshake), round-robin over the source addresses; print how many the
# server had closed after WAIT seconds, then hold the rest until stdin closes
cat >"$D/idle.py" <<'PY'
import socket, sys, time, select
port, n, wait = int(sys.argv[1]), int(sys.argv[2]), float(sys.argv[3])
srcs = sys.argv[4:]
socks = []
for i in range(n):
    s = socket.socket()
    s.bind((srcs[i % len(srcs)], 0))
    try:
        s.connect(("127.0.0.1", port))
    except OSError:
        pass
    socks.append(s)
print("open", flush=True)
time.sleep(wait)
closed = 0
for s in socks:
    s.setblocking(False)
    try:  # a TLS alert may come before the end of the stream
        while True:
            if s.recv(4096) == b"":
                closed += 1
                break
    except BlockingIOError:
        pass
    except OSError:
        closed += 1
print("closed", closed, flush=True)
sys.stdin.read()
PY
health() { curl -s -m 3 -o /dev/null -w '%{http_code}' "${ADMC[@]}" "https://127.0.0.1:$P3/healthz"; }
# 1. one address floods: the per-address limit keeps the rest of the world served
coproc IDLE { python3 "$D/idle.py" "$P3" 30 0.5 127.0.0.2; }
read -r l <&"${IDLE[0]}"
is "$(health)" 200 "30 idle connections from one address: a normal request from another is served at once"
read -r _ c <&"${IDLE[0]}"
ok test "${c:-0}" -ge 26 "... all but the per-address limit (4) were closed at once ($c of 30)"
exec {IDLE[1]}>&-; wait "$IDLE_PID" 2>/dev/null
# 2. many addresses: connections not yet authenticated hold at most half of
# the slots (the oldest are closed for newer ones), the rest are dropped
# after --idle-timeout
coproc IDLE { python3 "$D/idle.py" "$P3" 8 3.5 127.0.0.3 127.0.0.4 127.0.0.5 127.0.0.6 127.0.0.7 127.0.0.8 127.0.0.9 127.0.0.10; }
read -r l <&"${IDLE[0]}"
sleep 0.3
is "$(health)" 200 "8 idle connections from 8 addresses (--max-connections 8): the unauthenticated hold at most 4 slots, a new client is served"
read -r _ c <&"${IDLE[0]}"
is "$c" 8 "after --idle-timeout 2 the server has closed all 8"
is "$(health)" 200 "... and serves normal requests again"
exec {IDLE[1]}>&-; wait "$IDLE_PID" 2>/dev/null
kill "$D3"; wait "$D3" 2>/dev/null
is "$?" 0 "that slurmlinkd exits cleanly too"
done_testing 111
