#!/bin/bash
# covers: src/api/ src/config/
# 67-attack-limits.t — every resource a tenant can consume is bounded per
# identity, checked as a hostile tenant against the (ASan) daemon with TLS,
# tokens and a policy:
#   - request amplification: a small JSON patch of `copy` ops (422, bounded
#     RSS), too many patch operations (413), a YAML alias bomb (400, go-yaml's
#     "excessive aliasing");
#   - an oversized chunked body gets its 413 Status;
#   - error bodies name no pid and no temporary path;
#   - GET /api/v1/namespaces (and its watch) show a tenant only the
#     namespaces it may read;
#   - connections: 600 idle TCP connections without credentials do not lock
#     anyone out; an unauthenticated flood does not keep a legitimate client
#     out; an identity over its connection or watch cap gets 429 while others
#     are served.
source "$(dirname "$0")/50-api-lib.sh"
source "$(dirname "$0")/61-security-lib.sh"
plan 25

sec_users || { echo "not ok 1 - Unix users for the test"; exit 1; }
D=$(tmpdir)
on_exit "rm -rf '$D'"
sec_pki "$D" || { echo "not ok 1 - test PKI"; exit 1; }
P=$D/pki
cat >"$D/etc/policy.yaml" <<YAML
adminGroups: [system:masters]
cluster:
  read: {groups: [system:authenticated]}
namespaces:
  team-a: {write: {users: [alice]}}
  team-b: {write: {users: [bob]}}
users:
  alice: $UA
  bob: $UB
  admin: nobody
YAML
SEC=(--tls-cert "$P/server.crt" --tls-key "$P/server.key" --client-ca "$P/ca.crt"
     --token-file "$D/etc/tokens.csv" --policy "$D/etc/policy.yaml")
PORT=$(free_port)
URL=https://127.0.0.1:$PORT
"$SLURMLINKD" --listen 127.0.0.1 --port "$PORT" --state-dir "$D/state" "${SEC[@]}" \
  >"$D/daemon.log" 2>&1 &
DPID=$!
on_exit "kill $DPID"
sec_kc "$D" admin "$URL" --groups system:masters --cert
sec_kc "$D" alice "$URL" --token
sec_kc "$D" bob "$URL" --token
sec_kc "$D" carol "$URL" --token
tok() { kubectl config view --raw --kubeconfig "$D/$1.kc" -o jsonpath='{.users[0].user.token}'; }
kubectl config view --raw --kubeconfig "$D/admin.kc" -o jsonpath='{.users[0].user.client-certificate-data}' | base64 -d >"$D/admin.crt"
kubectl config view --raw --kubeconfig "$D/admin.kc" -o jsonpath='{.users[0].user.client-key-data}' | base64 -d >"$D/admin.key"
kc() { local u=$1; shift; kubectl --kubeconfig "$D/$u.kc" --cache-dir "$D/cache-$u" "$@"; }
# r USER METHOD PATH [curl args] → $CODE $BODY (USER admin: the certificate)
r() {
  local u=$1 m=$2 p=$3; shift 3
  local cred=(-H "Authorization: Bearer $(tok "$u")")
  [ "$u" = admin ] && cred=(--cert "$D/admin.crt" --key "$D/admin.key")
  [ "$u" = none ] && cred=()
  CODE=$(curl -s -X "$m" --cacert "$P/ca.crt" "${cred[@]}" -o "$D/body" -w '%{http_code}' "$@" "$URL$p")
  BODY=$(cat "$D/body")
}
wait_for 20 curl -sf --cacert "$P/ca.crt" --cert "$D/admin.crt" --key "$D/admin.key" "$URL/healthz" ||
  { diag "slurmlinkd did not start"; sed 's/^/#   /' "$D/daemon.log"; }
for ns in team-a team-b; do kc admin create namespace "$ns" >/dev/null; done
rss() { awk '/^VmRSS:/ {print $2}' "/proc/$DPID/status"; }

# --- request amplification ---------------------------------------------------------------
kc alice -n team-a create configmap amp --from-literal=k=v >/dev/null
seed=$(printf 'x%.0s' {1..1000})
{
  printf '[{"op":"add","path":"/metadata/annotations","value":{"s":"%s"}}' "$seed"
  for i in $(seq 1 19); do printf ',{"op":"copy","from":"/metadata/annotations","path":"/metadata/annotations/c%d"}' "$i"; done
  printf ']'
} >"$D/amp.json"
before=$(rss)
r alice PATCH /api/v1/namespaces/team-a/configmaps/amp -H 'Content-Type: application/json-patch+json' --data-binary @"$D/amp.json"
after=$(rss)
diag "JSON patch of $(stat -c %s "$D/amp.json") bytes: RSS $before -> $after kB"
like "$CODE $(status_of)" '^422 422\|Invalid\|Unable to complete the copy, the accumulated size increase of copy is [0-9]+, exceeding the limit 3145728$' \
  "a 2 KB JSON patch of 19 doubling copies: 422, the copy limit (kube-apiserver's text)"
ok test $((after - before)) -lt 51200 "... and slurmlinkd's RSS grew by less than 50 MB ($(( (after - before) / 1024 )) MB)"
is "$(kc alice -n team-a get configmap amp -o jsonpath='{.metadata.annotations}')" "" "... nothing stored"
{ printf '['; for i in $(seq 1 10000); do printf '{"op":"test","path":"/data/k","value":"v"},'; done; printf '{"op":"test","path":"/data/k","value":"v"}]'; } >"$D/ops.json"
r alice PATCH /api/v1/namespaces/team-a/configmaps/amp -H 'Content-Type: application/json-patch+json' --data-binary @"$D/ops.json"
is "$CODE $(status_of)" "413 413|RequestEntityTooLarge|Request entity too large: The allowed maximum operations in a JSON patch is 10000, got 10001" \
  "10001 JSON patch operations: 413 with kube-apiserver's text"

cat >"$D/bomb.yaml" <<'YAML'
apiVersion: v1
kind: ConfigMap
metadata: {name: bomb}
x:
  a: &a ["lol","lol","lol","lol","lol","lol","lol","lol","lol"]
  b: &b [*a,*a,*a,*a,*a,*a,*a,*a,*a]
  c: &c [*b,*b,*b,*b,*b,*b,*b,*b,*b]
  d: &d [*c,*c,*c,*c,*c,*c,*c,*c,*c]
  e: &e [*d,*d,*d,*d,*d,*d,*d,*d,*d]
  f: &f [*e,*e,*e,*e,*e,*e,*e,*e,*e]
  g: &g [*f,*f,*f,*f,*f,*f,*f,*f,*f]
YAML
before=$(rss)
r alice POST /api/v1/namespaces/team-a/configmaps -H 'Content-Type: application/yaml' --data-binary @"$D/bomb.yaml"
after=$(rss)
diag "YAML alias bomb of $(stat -c %s "$D/bomb.yaml") bytes: RSS $before -> $after kB"
like "$CODE $(status_of)" '^400 400\|BadRequest\|.*yaml: document contains excessive aliasing' \
  "a YAML alias bomb: 400 'yaml: document contains excessive aliasing'"
ok test $((after - before)) -lt 51200 "... and slurmlinkd's RSS grew by less than 50 MB"
cat >"$D/fine.yaml" <<'YAML'
apiVersion: v1
kind: ConfigMap
metadata: {name: anchors, labels: &l {app: web}, annotations: *l}
data: {a: x}
YAML
r alice POST /api/v1/namespaces/team-a/configmaps -H 'Content-Type: application/yaml' --data-binary @"$D/fine.yaml"
is "$CODE $(printf '%s' "$BODY" | jq -r .metadata.annotations.app)" "201 web" "a YAML body with a few aliases is still fine"

# --- an oversized chunked body gets its 413 Status -----------------------------------------
head -c $((20 * 1024 * 1024)) /dev/zero | tr '\0' 'a' >"$D/big"
r alice POST /api/v1/namespaces/team-a/configmaps -H 'Content-Type: application/json' \
  -H 'Transfer-Encoding: chunked' --data-binary @"$D/big"
is "$CODE $(status_of)" "413 413|RequestEntityTooLarge|Request entity too large: limit is 3145728" \
  "a 20 MB chunked body: 413 RequestEntityTooLarge Status"
head -c $((4 * 1024 * 1024)) /dev/zero | tr '\0' 'a' >"$D/big4"
r alice POST /api/v1/namespaces/team-a/configmaps -H 'Content-Type: application/json' \
  -H 'Transfer-Encoding: chunked' --data-binary @"$D/big4"
is "$CODE $(status_of)" "413 413|RequestEntityTooLarge|Request entity too large: limit is 3145728" \
  "a 4 MB chunked body: the same 413"

# --- error bodies name no pid and no temporary path ------------------------------------------
long=$(printf 'a%.0s' {1..253})
errs=""
r alice POST /api/v1/namespaces/team-a/configmaps -H 'Content-Type: application/json' \
  --data-binary "{\"metadata\":{\"name\":\"$long\"},\"data\":{\"a\":\"b\"}}"; errs+="$BODY"
r alice GET "/api/v1/namespaces/team-a/pods/nosuch/log"; errs+="$BODY"
r alice POST /api/v1/namespaces/team-a/pods -H 'Content-Type: application/json' \
  --data-binary '{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"busybox","volumeMounts":[{"name":"v","mountPath":"/x"}]}],"volumes":[{"name":"v","hostPath":{"path":"/etc"}}]}}'; errs+="$BODY"
r none POST /internal/v1/shim/events -H 'Content-Type: application/json' --data-binary '{"pod_uid":"x","event":"started"}'; errs+="$BODY"
unlike "$errs" "(/tmp/|/var/|$D|\\.tmp\\.|(^|[^0-9])$DPID([^0-9]|\$))" "client-visible error texts name no temporary path, folder or pid"

# --- the namespace list shows what the caller may read -----------------------------------------
r bob GET /api/v1/namespaces
is "$CODE $(printf '%s' "$BODY" | jq -r '[.items[].metadata.name] | join(",")')" "200 team-b" \
  "bob lists namespaces: only team-b (GET of the others is 403)"
r carol GET /api/v1/namespaces
is "$CODE $(printf '%s' "$BODY" | jq -r '.items | length')" "200 0" "carol, with no grant: an empty list"
r admin GET /api/v1/namespaces
like "$(printf '%s' "$BODY" | jq -r '[.items[].metadata.name] | join(",")')" "default.*team-a.*team-b" "the admin lists all"
like "$(kc bob get namespaces -o name 2>&1 | tr '\n' ' ')" '^namespace/team-b $' "kubectl get namespaces as bob: team-b"
curl -sN -m 3 --cacert "$P/ca.crt" -H "Authorization: Bearer $(tok bob)" "$URL/api/v1/namespaces?watch=1" >"$D/nsw" 2>/dev/null
is "$(jq -r '.object.metadata.name' "$D/nsw" | sort | tr '\n' ' ')" "team-b " "a watch of namespaces as bob: team-b only"

# --- connections -----------------------------------------------------------------------------
T=$(dirname "$0")/67-attack-limits.py
coproc IDLE { python3 "$T" idle "$PORT" 600; }
read -r _ n <&"${IDLE[0]}"
diag "$n idle connections open"
like "$(kc bob get configmaps -n team-b 2>&1)" "^No resources found" "600 idle TCP connections from 127.0.0.1: kubectl as bob still works"
like "$(kc admin get namespaces -o name 2>&1 | tr '\n' ' ')" "namespace/team-a" "... and as the admin"
exec {IDLE[1]}>&-; wait "$IDLE_PID" 2>/dev/null
coproc FLOOD { python3 "$T" flood "$PORT" 8; }
flooding() { [ "$(ss -Htn "( dport = :$PORT )" | wc -l)" -ge 100 ]; }
wait_for 10 flooding # the flood is on: 100 connections open
ok wait_for 10 curl -sf -m 5 --cacert "$P/ca.crt" --cert "$D/admin.crt" --key "$D/admin.key" "$URL/healthz" \
  "while an unauthenticated flood goes on, a legitimate client gets in"
read -r _ n <&"${FLOOD[0]}"; diag "flood opened $n connections"
wait "$FLOOD_PID" 2>/dev/null

# a second daemon with small caps: --max-per-user 3 --max-watches-per-user 2
P2=$(free_port)
"$SLURMLINKD" --listen 127.0.0.1 --port "$P2" --state-dir "$D/state2" "${SEC[@]}" \
  --max-per-user 3 --max-watches-per-user 2 >"$D/d2.log" 2>&1 &
D2=$!
on_exit "kill $D2"
wait_for 20 curl -sf --cacert "$P/ca.crt" --cert "$D/admin.crt" --key "$D/admin.key" "https://127.0.0.1:$P2/healthz"
coproc HOLD { python3 "$T" hold "$P2" "$P/ca.crt" 4 "$(tok carol)" /version; }
read -r codes <&"${HOLD[0]}"
is "$codes" "codes 200 200 200 429" "carol's 4th kept-alive connection over --max-per-user 3: 429"
CODE=$(curl -s -o "$D/body" -w '%{http_code}' --cacert "$P/ca.crt" -H "Authorization: Bearer $(tok carol)" "https://127.0.0.1:$P2/version"); BODY=$(cat "$D/body")
is "$CODE $(status_of)" "429 429|TooManyRequests|Too many requests, please try again later." "... a new one too, with kube-apiserver's TooManyRequests Status"
is "$(curl -s -o /dev/null -w '%{http_code}' --cacert "$P/ca.crt" -H "Authorization: Bearer $(tok bob)" "https://127.0.0.1:$P2/version")" 200 \
  "... while bob is served"
exec {HOLD[1]}>&-; wait "$HOLD_PID" 2>/dev/null
W=()
for i in 1 2; do
  curl -sN --cacert "$P/ca.crt" -H "Authorization: Bearer $(tok bob)" "https://127.0.0.1:$P2/api/v1/namespaces/team-b/configmaps?watch=1" >/dev/null 2>&1 &
  W+=($!)
done
on_exit "kill ${W[*]}"
wait_for 10 sh -c "ss -tn state established '( dport = :$P2 )' | grep -c . | awk '\$1 >= 3 {exit 0} {exit 1}'"
# the daemon counts both watches open
watching() { curl -s --cacert "$P/ca.crt" --cert "$D/admin.crt" --key "$D/admin.key" "https://127.0.0.1:$P2/metrics" |
  awk '/^slurmlink_api_open_watches/ {s += $NF} END {exit !(s >= 2)}'; }
wait_for 10 watching
CODE=$(curl -s -m 5 -o "$D/body" -w '%{http_code}' --cacert "$P/ca.crt" -H "Authorization: Bearer $(tok bob)" "https://127.0.0.1:$P2/api/v1/namespaces/team-b/configmaps?watch=1"); BODY=$(cat "$D/body")
is "$CODE $(status_of)" "429 429|TooManyRequests|Too many requests, please try again later." "bob's 3rd concurrent watch over --max-watches-per-user 2: 429"
kill "${W[@]}"; wait "${W[@]}" 2>/dev/null
ok wait_for 10 sh -c "curl -s -m 2 -o /dev/null -w '%{http_code}' --cacert '$P/ca.crt' -H 'Authorization: Bearer $(tok bob)' 'https://127.0.0.1:$P2/api/v1/namespaces/team-b/configmaps?watch=1' | grep -q 200" \
  "... once they end, bob may watch again"
kill "$D2"; wait "$D2" 2>/dev/null
is "$?" 0 "that slurmlinkd exits cleanly (ASan: no leak, no error)"
kill "$DPID"; wait "$DPID" 2>/dev/null
is "$?" 0 "slurmlinkd exits cleanly"
done_testing
