#!/bin/bash
# covers: src/api/ src/pod/ src/kube/
# 54-badinput-data.t — the data of ConfigMaps and Secrets is checked as
# kube-apiserver checks it, with its exact texts: keys (IsConfigMapKey: the
# characters, 253 at most, never "." or ".." or a "..x" prefix), keys unique
# across data and binaryData, base64 as Go's decoder reads it, at most 1 MiB.
# A refused object is not stored.
source "$(dirname "$0")/50-api-lib.sh"

plan 21
api_up || { echo "not ok 1 - daemon"; exit 1; }
CM=/api/v1/namespaces/default/configmaps
SE=/api/v1/namespaces/default/secrets
KEYMSG="a valid config key must consist of alphanumeric characters, '-', '_' or '.' (e.g. 'key.name',  or 'KEY_NAME',  or 'key-name', regex used for validation is '[-._a-zA-Z0-9]+')"

jpost $CM '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c1"},"data":{"../../etc/passwd":"x"}}'
status_is 422 Invalid "ConfigMap \"c1\" is invalid: [data[../../etc/passwd]: Invalid value: \"../../etc/passwd\": $KEYMSG, data[../../etc/passwd]: Invalid value: \"../../etc/passwd\": must not start with '..']" \
  "a config map key with '/' (a path escape in a volume)"
is "$(jqr '.details.causes[0] | .reason + " " + .field')" "FieldValueInvalid data[../../etc/passwd]" "... naming the field in details.causes"
jpost $CM '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c2"},"data":{"..":"x"}}'
status_is 422 Invalid "ConfigMap \"c2\" is invalid: data[..]: Invalid value: \"..\": must not be '..'" "key '..'"
jpost $CM '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c3"},"data":{".":"x"}}'
status_is 422 Invalid "ConfigMap \"c3\" is invalid: data[.]: Invalid value: \".\": must not be '.'" "key '.'"
jpost $CM '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c4"},"data":{"..data":"x"}}'
status_is 422 Invalid "ConfigMap \"c4\" is invalid: data[..data]: Invalid value: \"..data\": must not start with '..'" \
  "key '..data' (the atomic writer's own folder)"
LONGK=$(printf 'k%.0s' $(seq 1 254))
jpost $CM "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"c5\"},\"data\":{\"$LONGK\":\"x\"}}"
status_is 422 Invalid "ConfigMap \"c5\" is invalid: data[$LONGK]: Invalid value: \"$LONGK\": must be no more than 253 characters" "a 254-character key"
jpost $CM '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c6"},"data":{"a":"x"},"binaryData":{"a":"eA=="}}'
status_is 422 Invalid "ConfigMap \"c6\" is invalid: data[a]: Invalid value: \"a\": duplicate of key present in binaryData" \
  "a key in both data and binaryData"
jpost $CM '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c7"},"binaryData":{"b":"ab$d"}}'
status_is 400 BadRequest 'ConfigMap in version "v1" cannot be handled as a ConfigMap: illegal base64 data at input byte 2' \
  "binaryData that is not base64"
python3 -c 'import json; print(json.dumps({"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c8"},"data":{"a":"x"*600000,"b":"y"*600000}}))' >"$AD/big.json"
req POST $CM -H 'Content-Type: application/json' --data-binary "@$AD/big.json"
status_is 422 Invalid 'ConfigMap "c8" is invalid: []: Too long: may not be more than 1048576 bytes' "1.2 MB of data"
jpost $CM '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"ok"},"data":{"key.name":"1","KEY_NAME":"2","key-name":"3"},"binaryData":{"bin":"AAEC"}}'
is "$CODE" 201 "valid keys and base64 are accepted"
req GET $CM
is "$(jqr '[.items[].metadata.name] | join(",")')" "ok" "... and nothing refused was stored"

jpost $SE '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s1"},"data":{"k":"not base64!"}}'
status_is 400 BadRequest 'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 3' \
  "secret data that is not base64"
jpost $SE '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s2"},"data":{"k":"YWJj\nZA="}}'
status_is 400 BadRequest 'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 8' \
  "not enough padding (newlines are skipped, as Go does)"
jpost $SE '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s3"},"data":{"k":"YQ==YQ=="}}'
status_is 400 BadRequest 'Secret in version "v1" cannot be handled as a Secret: illegal base64 data at input byte 4' \
  "data after the padding"
jpost $SE '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s4"},"data":{"a/b":"eA=="}}'
status_is 422 Invalid "Secret \"s4\" is invalid: data[a/b]: Invalid value: \"a/b\": $KEYMSG" "a secret key with '/'"
python3 -c 'import json,base64; print(json.dumps({"apiVersion":"v1","kind":"Secret","metadata":{"name":"s5"},"data":{"a":base64.b64encode(b"x"*1048577).decode()}}))' >"$AD/bigs.json"
req POST $SE -H 'Content-Type: application/json' --data-binary "@$AD/bigs.json"
status_is 422 Invalid 'Secret "s5" is invalid: data: Too long: may not be more than 1048576 bytes' "1 MiB + 1 of secret data"
jpost $SE '{"apiVersion":"v1","kind":"Secret","metadata":{"name":"sok"},"data":{"k":"YWJj\nZA=="}}'
is "$CODE $(jqr .data.k)" "201 YWJj
ZA==" "valid base64 with a newline is accepted, as kube-apiserver does"
req GET $SE
is "$(jqr '[.items[].metadata.name] | join(",")')" "sok" "... and nothing refused was stored"
k create configmap kc --from-literal=good.key=v >/dev/null 2>&1
is "$(k get configmap kc -o jsonpath='{.data.good\.key}')" "v" "kubectl create configmap still works"
req GET $CM/ok
RV=$(jqr .metadata.resourceVersion)
jput $CM/ok "{\"apiVersion\":\"v1\",\"kind\":\"ConfigMap\",\"metadata\":{\"name\":\"ok\",\"resourceVersion\":\"$RV\"},\"data\":{\"a b\":\"1\"}}"
status_is 422 Invalid "ConfigMap \"ok\" is invalid: data[a b]: Invalid value: \"a b\": $KEYMSG" "an update is checked too"
api_stop
ok bash -c "! grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' '$AD/daemon.log'" "no sanitizer reports in the daemon log"
