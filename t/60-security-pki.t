#!/bin/bash
# covers: src/pki/ src/cluster/
# 60-security-pki.t — the TLS and credential material of a cluster folder:
# the PKI `slurmlink up` makes (file modes, CA and key-usage extensions, SANs,
# chains, checked with certtool as an independent oracle), the default
# policy, `slurmlink kubeconfig` with client certificates and tokens (read by
# kubectl), real TLS handshakes of kubectl against a gnutls-serv that uses the
# folder's server certificate and trusts its CA, and a second `up` that keeps
# the CA and refuses an invalid policy with its line.
source "$(dirname "$0")/lib.sh"

mode() { stat -c %a "$1" 2>/dev/null; }
b64file() { base64 -d >"$1"; }
free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }

cluster_up --gpus 1
ok test -f "${CL:-/nonexistent}/cluster.json" "slurmlink up starts a cluster"
P=$CL/pki
HOST=$(hostname)
apiport=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["api_port"])' "$CL/cluster.json")

# --- files and modes -----------------------------------------------------------
is "$(mode "$P")" 755 "pki folder 0755 (jobs read ca.crt)"
for f in ca server admin; do
  is "$(mode "$P/$f.key")" 600 "$f.key is 0600"
  is "$(mode "$P/$f.crt")" 644 "$f.crt is 0644"
done
is "$(mode "$CL/etc/tokens.csv")" 600 "etc/tokens.csv is 0600"
is "$(mode "$CL/kubeconfig")" 600 "kubeconfig is 0600"
ok test ! -e "$CL/kubeconfig.https" "no kubeconfig.https any more (D/kubeconfig is the HTTPS one)"
ok test -s "$CL/etc/policy.yaml" "etc/policy.yaml written"
like "$(cat "$CL/etc/policy.yaml")" "adminGroups: \[system:masters\]" "default policy: system:masters are admins"
like "$(cat "$CL/etc/policy.yaml")" $'default:\n    account: default' "default policy: namespace default → account default"
like "$(head -c 40 "$P/ca.key")" "BEGIN (EC )?PRIVATE KEY" "keys are PEM"

# --- the certificates, as certtool reads them ------------------------------------
ca=$(certtool -i --infile "$P/ca.crt" 2>&1)
like "$ca" "Certificate Authority \(CA\): TRUE" "CA: basicConstraints CA:TRUE"
like "$ca" "Certificate signing" "CA: keyCertSign"
like "$ca" "Subject: CN=slurmlink-ca@" "CA subject"
nb=$(date -d "$(printf '%s\n' "$ca" | sed -n 's/.*Not After: //p')" +%s)
ok test $(( (nb - $(date +%s)) / 86400 )) -ge 3649 "CA valid for 10 years"

srv=$(certtool -i --infile "$P/server.crt" 2>&1)
like "$srv" "IPAddress: 127\.0\.0\.1" "server SAN IP 127.0.0.1"
like "$srv" "DNSname: localhost" "server SAN localhost"
like "$srv" "DNSname: $HOST" "server SAN host name ($HOST)"
like "$srv" "TLS WWW Server" "server: extendedKeyUsage serverAuth"
like "$srv" "Certificate Authority \(CA\): FALSE" "server is not a CA"
like "$(certtool --verify --load-ca-certificate "$P/ca.crt" --infile "$P/server.crt" 2>&1)" \
  "Chain verification output: Verified" "server certificate chains to the CA"

adm=$(certtool -i --infile "$P/admin.crt" 2>&1)
like "$adm" "Subject: O=system:masters,CN=admin" "admin: CN=admin, O=system:masters"
like "$adm" "TLS WWW Client" "admin: extendedKeyUsage clientAuth"
like "$(certtool --verify --load-ca-certificate "$P/ca.crt" --infile "$P/admin.crt" 2>&1)" \
  "Chain verification output: Verified" "admin certificate chains to the CA"

# --- D/kubeconfig: the admin's, over HTTPS -------------------------------------------
KH=$CL/kubeconfig
ok kubectl config view --raw --kubeconfig "$KH" "kubectl accepts D/kubeconfig"
is "$(kubectl config view --raw --kubeconfig "$KH" -o jsonpath='{.clusters[0].cluster.server}')" \
  "https://127.0.0.1:$apiport" "D/kubeconfig points at https://127.0.0.1:<api port>"
is "$(kubectl config view --raw --kubeconfig "$KH" -o jsonpath='{.clusters[0].cluster.certificate-authority-data}' | base64 -d | sha256sum)" \
  "$(sha256sum <"$P/ca.crt")" "D/kubeconfig carries the CA"
is "$(kubectl --kubeconfig "$KH" get ns default -o name 2>&1)" "namespace/default" "kubectl with D/kubeconfig works against slurmlinkd over HTTPS"

# --- slurmlink kubeconfig --cert ---------------------------------------------------
W=$(tmpdir); on_exit "rm -rf '$W'"
out=$("$SLURMLINK" kubeconfig --dir "$CL" --user alice --groups devs,gpu-users --cert -o "$W/alice.kcfg" 2>&1)
is "$?: $out" "0: " "kubeconfig --user alice --groups devs,gpu-users --cert"
is "$(mode "$W/alice.kcfg")" 600 "-o file is 0600"
ok kubectl config view --raw --kubeconfig "$W/alice.kcfg" "kubectl config view --raw accepts it"
kv() { kubectl config view --raw --kubeconfig "$1" -o jsonpath="$2"; }
is "$(kv "$W/alice.kcfg" '{.current-context}')" "alice@slurmlink" "current context alice@slurmlink"
is "$(kv "$W/alice.kcfg" '{.clusters[0].cluster.server}')" "https://127.0.0.1:$apiport" "server URL from cluster.json"
kv "$W/alice.kcfg" '{.users[0].user.client-certificate-data}' | b64file "$W/alice.crt"
kv "$W/alice.kcfg" '{.users[0].user.client-key-data}' | b64file "$W/alice.key"
ac=$(certtool -i --infile "$W/alice.crt" 2>&1)
like "$ac" "Subject: O=gpu-users,O=devs,CN=alice" "client cert: CN=alice, one O per group"
like "$ac" "TLS WWW Client" "client cert: clientAuth"
like "$ac" "Issuer: CN=slurmlink-ca@" "client cert issued by the folder CA"
like "$(certtool --verify --load-ca-certificate "$P/ca.crt" --infile "$W/alice.crt" 2>&1)" \
  "Chain verification output: Verified" "client cert chains to the CA"
na=$(date -d "$(printf '%s\n' "$ac" | sed -n 's/.*Not After: //p')" +%s)
d=$(( (na - $(date +%s)) / 86400 ))
ok test "$d" -ge 364 -a "$d" -le 366 "client cert valid for 365 days by default ($d)"
pk=$(certtool --pubkey-info --load-privkey "$W/alice.key" 2>/dev/null | sed -n '/BEGIN PUBLIC KEY/,/END PUBLIC KEY/p')
pc=$(certtool --pubkey-info --infile "$W/alice.crt" 2>/dev/null | sed -n '/BEGIN PUBLIC KEY/,/END PUBLIC KEY/p')
ok test -n "$pk" -a "$pk" = "$pc" "embedded key belongs to the certificate"

"$SLURMLINK" kubeconfig --dir "$CL" --user bob --days 3 >"$W/bob.kcfg" 2>"$W/err"
kv "$W/bob.kcfg" '{.users[0].user.client-certificate-data}' | b64file "$W/bob.crt"
bc=$(certtool -i --infile "$W/bob.crt" 2>&1)
like "$bc" "Subject: CN=bob" "default is --cert; no groups: no O"
na=$(date -d "$(printf '%s\n' "$bc" | sed -n 's/.*Not After: //p')" +%s)
ok test $(( (na - $(date +%s)) / 86400 )) -le 3 "--days 3"

# --- slurmlink kubeconfig --token ---------------------------------------------------
out=$("$SLURMLINK" kubeconfig --dir "$CL" --user alice --groups devs --token --namespace team-a -o "$W/alice-tok.kcfg" 2>&1)
is "$?: $out" "0: " "kubeconfig --user alice --groups devs --token"
ok kubectl config view --raw --kubeconfig "$W/alice-tok.kcfg" "kubectl config view --raw accepts the token kubeconfig"
tok=$(kv "$W/alice-tok.kcfg" '{.users[0].user.token}')
like "$tok" '^[0-9a-f]{64}$' "token is 64 hex digits"
is "$(kv "$W/alice-tok.kcfg" '{.contexts[0].context.namespace}')" "team-a" "--namespace sets the context's namespace"
is "$(kv "$W/alice-tok.kcfg" '{.users[0].user.client-key-data}')" "" "no key in a token kubeconfig"
is "$(grep -c "^$tok,alice,alice,\"devs\"\$" "$CL/etc/tokens.csv")" 1 "token appended to etc/tokens.csv"
is "$(mode "$CL/etc/tokens.csv")" 600 "tokens.csv still 0600"
"$SLURMLINK" kubeconfig --dir "$CL" --user carol --token --days 2 >"$W/carol.kcfg" 2>/dev/null
tok2=$(kv "$W/carol.kcfg" '{.users[0].user.token}')
like "$(grep "^$tok2," "$CL/etc/tokens.csv")" "^$tok2,carol,carol,\"\",$(date -u -d '+2 days' +%Y-%m-%d)T" "--token --days 2 writes an expiry"
ok test "$tok" != "$tok2" "every token is new"

# --- refusals ------------------------------------------------------------------------
out=$("$SLURMLINK" kubeconfig --dir "$CL" 2>&1); rc=$?
is "$rc" 2 "no --user: usage error"
out=$("$SLURMLINK" kubeconfig --dir "$CL" --user x --token --cert 2>&1); rc=$?
is "$rc" 2 "--token with --cert: usage error"
out=$("$SLURMLINK" kubeconfig --dir "$W/none" --user x 2>&1); rc=$?
like "$rc: $out" "^1: .*not a slurmlink cluster folder" "not a cluster folder: refused"
lines=$(wc -l <"$CL/etc/tokens.csv")
out=$("$SLURMLINK" kubeconfig --dir "$CL" --user $'ev\nil' --token 2>&1); rc=$?
is "$rc" 1 "user name with a newline refused"
is "$(wc -l <"$CL/etc/tokens.csv")" "$lines" "nothing appended by the refusal"
out=$("$SLURMLINK" kubeconfig --dir "$CL" --user 'd, "q"' --groups 'a,"b' --token -o "$W/q.kcfg" 2>&1); rc=$?
is "$rc" 0 "user and group with quotes and commas: issued"
is "$(kv "$W/q.kcfg" '{.users[0].name}')" 'd, "q"' "... the kubeconfig names the user exactly"
qt=$(kv "$W/q.kcfg" '{.users[0].user.token}')
is "$(grep -c "^$qt,\"d, \"\"q\"\"\",\"d, \"\"q\"\"\",\"a,\"\"b\"\$" "$CL/etc/tokens.csv")" 1 "... written CSV-quoted"
out=$("$SLURMLINK" kubeconfig --dir "$CL" --user dave --token 2>&1); rc=$?
is "$rc" 0 "the token file still parses after it (the next append checks it)"

# --- TLS handshakes with the folder's certificates ------------------------------------
GP=$(free_port)
gnutls-serv --http --x509certfile "$P/server.crt" --x509keyfile "$P/server.key" \
  --x509cafile "$P/ca.crt" --verify-client-cert -p "$GP" >"$W/gs.log" 2>&1 &
GS=$!
on_exit "kill $GS"
ok wait_for 10 bash -c "echo >/dev/tcp/127.0.0.1/$GP" "gnutls-serv listens with the folder's server certificate"
page=$(kubectl --kubeconfig "$W/alice.kcfg" --server "https://127.0.0.1:$GP" get --raw / 2>&1)
like "$page" "Subject: O=gpu-users,O=devs,CN=alice" "kubectl trusts 127.0.0.1 by the CA and presents alice's certificate"
like "$(cat "$W/gs.log")" "The certificate is trusted" "the server verifies alice's certificate against the CA"
page=$(kubectl --kubeconfig "$W/alice.kcfg" --server "https://localhost:$GP" get --raw / 2>&1)
like "$page" "CN=alice" "... by the name localhost"
page=$(kubectl --kubeconfig "$W/alice.kcfg" --server "https://$HOST:$GP" get --raw / 2>&1)
like "$page" "CN=alice" "... by the host name"
page=$(kubectl --kubeconfig "$KH" --server "https://127.0.0.1:$GP" get --raw / 2>&1)
like "$page" "Subject: O=system:masters,CN=admin" "D/kubeconfig presents the admin certificate"
page=$(kubectl --kubeconfig "$W/alice-tok.kcfg" --server "https://127.0.0.1:$GP" get --raw / 2>&1)
like "$page" "Authorization: Bearer $tok" "the token kubeconfig sends its bearer token over TLS"
cp "$W/alice.kcfg" "$W/noca.kcfg"
kubectl --kubeconfig "$W/noca.kcfg" config unset clusters.slurmlink.certificate-authority-data >/dev/null
page=$(kubectl --kubeconfig "$W/noca.kcfg" --server "https://127.0.0.1:$GP" get --raw / 2>&1)
like "$page" "certificate signed by unknown authority" "a client that does not trust the CA refuses the server"
kill $GS 2>/dev/null; wait $GS 2>/dev/null

# --- a second up keeps the CA; an invalid policy stops up with its line --------------
casum=$(sha256sum <"$P/ca.crt")
srvsum=$(sha256sum <"$P/server.crt")
"$SLURMLINK" down --dir "$CL" >/dev/null 2>&1
cp "$CL/etc/policy.yaml" "$W/policy.good"
printf 'adminGroups: [system:masters]\nnamespaces:\n  Bad_Name: {}\n' >"$CL/etc/policy.yaml"
out=$("$SLURMLINK" up --dir "$CL" 2>&1); rc=$?
like "$rc: $out" "^1: .*policy\.yaml:3: namespaces\.Bad_Name: .*not a namespace name" "up refuses an invalid policy, naming file, line and field"
ok test -z "$(procs_of "$CL")" "... and leaves no daemon running"
cp "$W/policy.good" "$CL/etc/policy.yaml"
out=$("$SLURMLINK" up --dir "$CL" 2>&1); rc=$?
is "$rc" 0 "up again with the policy fixed"
[ "$rc" = 0 ] || diag "$out"
is "$(sha256sum <"$P/ca.crt")" "$casum" "the CA is kept across up"
is "$(sha256sum <"$P/server.crt")" "$srvsum" "a valid server certificate is kept"
like "$(certtool --verify --load-ca-certificate "$P/ca.crt" --infile "$W/alice.crt" 2>&1)" \
  "Chain verification output: Verified" "alice's earlier certificate still verifies"
is "$(grep -c "^$tok," "$CL/etc/tokens.csv")" 1 "issued tokens are kept"
rm -f "$P/server.crt"
"$SLURMLINK" down --dir "$CL" >/dev/null 2>&1
out=$("$SLURMLINK" up --dir "$CL" 2>&1); rc=$?
is "$rc" 0 "up with the server certificate removed"
like "$(certtool --verify --load-ca-certificate "$P/ca.crt" --infile "$P/server.crt" 2>&1)" \
  "Chain verification output: Verified" "... issues a new one from the same CA"
mv "$P/ca.key" "$W/ca.key"
"$SLURMLINK" down --dir "$CL" >/dev/null 2>&1
out=$("$SLURMLINK" up --dir "$CL" 2>&1); rc=$?
like "$rc: $out" "^1: .*ca\.crt without .*ca\.key" "up refuses a CA certificate without its key"
mv "$W/ca.key" "$P/ca.key"

done_testing 81
