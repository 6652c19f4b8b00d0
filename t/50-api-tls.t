#!/bin/bash
# covers: src/api/ src/pki/
# 50-api-tls.t — slurmlinkd over HTTPS (--tls-cert/--tls-key): curl and
# kubectl verify the certificate (IP SAN 127.0.0.1) and everything, watches
# and log streams included, works as over plain HTTP.
source "$(dirname "$0")/50-api-lib.sh"
plan 8

D=$(tmpdir)
on_exit "rm -rf '$D'"
openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -days 2 \
  -subj /CN=slurmlink-test -addext subjectAltName=IP:127.0.0.1 \
  -keyout "$D/key.pem" -out "$D/cert.pem" >/dev/null 2>&1
ok test -s "$D/cert.pem" "test certificate"

API_SCHEME=https API_CURL_OPTS="--cacert $D/cert.pem" API_CA=$D/cert.pem API_TOKEN=any \
  api_up --tls-cert "$D/cert.pem" --tls-key "$D/key.pem" || bail "slurmlinkd up"
HTTPS=$API
req GET /version --cacert "$D/cert.pem"
is "$CODE $(jqr .minor)" "200 32" "HTTPS with a verified certificate"
req GET /version
is "$CODE" "000" "an unverified certificate is refused by curl"
like "$(curl -s "http://127.0.0.1:$API_PORT/version" -m 2 -o /dev/null -w '%{http_code}' 2>&1)" '^(000|400)$' "plain HTTP on the TLS port does not get an API answer"

k run tls1 --image=busybox --restart=Never >/dev/null 2>&1
like "$(k get pods 2>&1)" 'tls1 +0/1 +Pending' "kubectl over HTTPS (run, get)"
curl -s -N --cacert "$D/cert.pem" "$HTTPS/api/v1/namespaces/default/pods?watch=1&timeoutSeconds=2" >"$AD/w" &
wp=$!
wait_for 10 grep -q ADDED "$AD/w" # the watch is open: tls1's ADDED came
k label pod tls1 a=b >/dev/null 2>&1
wait $wp
is "$(grep -v '^$' "$AD/w" | jq -r .type | tr '\n' ' ')" "ADDED MODIFIED " "watch over HTTPS"
is "$(k delete pod tls1 2>&1)" 'pod "tls1" deleted' "kubectl delete over HTTPS"
api_stop
is "$?" "0" "clean exit"
done_testing
