#!/bin/bash
# covers: src/api/ src/pod/ src/kube/
# 53-badinput.t — bad requests get kube-apiserver's exact Status (code,
# reason, message): malformed JSON, wrong apiVersion/kind, unknown fields,
# invalid names, labels and quantities, oversized bodies, unknown URLs, bad
# selectors and log options; garbage on the socket does not hurt the daemon.
source "$(dirname "$0")/50-api-lib.sh"
plan 39

api_up || bail "slurmlinkd up"
P=/api/v1/namespaces/default/pods
C='"spec":{"containers":[{"name":"c","image":"busybox"}]}'

jpost $P '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x"'
status_is 400 BadRequest 'the object provided is unrecognized (must be of type Pod): couldn'\''t get version/kind; json parse error: unexpected end of JSON input ({"apiVersion":"v1","kind":"Pod ...)' \
  "truncated JSON"
jpost $P '{"a":1,}'
status_is 400 BadRequest 'the object provided is unrecognized (must be of type Pod): couldn'\''t get version/kind; json parse error: invalid character '\''}'\'' looking for beginning of object key string ({"a":1,})' \
  "trailing comma"
jpost $P 'apiVersion: v1'
status_is 400 BadRequest 'the object provided is unrecognized (must be of type Pod): couldn'\''t get version/kind; json parse error: invalid character '\''a'\'' looking for beginning of value (apiVersion: v1)' \
  "YAML sent as JSON"
jpost $P ''
status_is 400 BadRequest 'the object provided is unrecognized (must be of type Pod): couldn'\''t get version/kind; json parse error: unexpected end of JSON input (<empty>)' "empty body"
jpost $P '[1,2]'
status_is 400 BadRequest 'the object provided is unrecognized (must be of type Pod): couldn'\''t get version/kind; json parse error: json: cannot unmarshal array into Go value of type struct { APIVersion string "json:\"apiVersion,omitempty\""; Kind string "json:\"kind,omitempty\"" } ([1,2])' \
  "a JSON array"

jpost $P '{"apiVersion":"v1","kind":"Service","metadata":{"name":"x"}}'
status_is 400 BadRequest 'Service in version "v1" cannot be handled as a Pod: converting (v1.Service) to (core.Pod): unknown conversion' "wrong kind"
jpost $P "{\"apiVersion\":\"v1\",\"kind\":\"Podd\",\"metadata\":{\"name\":\"x\"},$C}"
status_is 400 BadRequest 'Podd in version "v1" cannot be handled as a Pod: no kind "Podd" is registered for version "v1" in scheme "pkg/api/legacyscheme/scheme.go:30"' "unknown kind"
jpost $P "{\"apiVersion\":\"apps/v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"x\"},$C}"
status_is 400 BadRequest 'Pod in version "v1" cannot be handled as a Pod: no kind "Pod" is registered for version "apps/v1" in scheme "pkg/api/legacyscheme/scheme.go:30"' "wrong apiVersion"
jpost "$P?fieldValidation=Strict" '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x","nmae":"y"},"spec":{"containers":[{"name":"c","image":"busybox","imagee":"z"}]},"extra":1}'
status_is 400 BadRequest 'Pod in version "v1" cannot be handled as a Pod: strict decoding error: unknown field "metadata.nmae", unknown field "spec.containers[0].imagee", unknown field "extra"' \
  "unknown fields (Strict), in document order"
jpost "/api/v1/namespaces/default/configmaps?fieldValidation=Strict" '{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"},"date":{}}'
status_is 400 BadRequest 'ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "date"' "unknown field in a ConfigMap"
jpost $P "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"Bad_Name\"},$C}"
status_is 422 Invalid 'Pod "Bad_Name" is invalid: metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '\''-'\'' or '\''.'\'', and must start and end with an alphanumeric character (e.g. '\''example.com'\'', regex used for validation is '\''[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'\'')' \
  "invalid name"
is "$(jqr '.details.causes[0] | .reason + " " + .field')" "FieldValueInvalid metadata.name" "invalid name: details.causes"
jpost /api/v1/namespaces '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"a.b"}}'
status_is 422 Invalid 'Namespace "a.b" is invalid: metadata.name: Invalid value: "a.b": must not contain dots' "namespace names are DNS labels: no dots"
jpost /api/v1/namespaces '{"apiVersion":"v1","kind":"Namespace","metadata":{"name":"A_b"}}'
status_is 422 Invalid 'Namespace "A_b" is invalid: metadata.name: Invalid value: "A_b": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '\''-'\'', and must start and end with an alphanumeric character (e.g. '\''my-name'\'',  or '\''123-abc'\'', regex used for validation is '\''[a-z0-9]([-a-z0-9]*[a-z0-9])?'\'')' \
  "namespace names are DNS labels: the label regex"
jpost $P "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"labels\":{\"a\":\"b\"}},$C}"
status_is 422 Invalid 'Pod "" is invalid: metadata.name: Required value: name or generateName is required' "no name"
jpost $P "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"x\",\"labels\":{\"a\":\"bad value!\"}},$C}"
status_is 422 Invalid 'Pod "x" is invalid: metadata.labels: Invalid value: "bad value!": a valid label must be an empty string or consist of alphanumeric characters, '\''-'\'', '\''_'\'' or '\''.'\'', and must start and end with an alphanumeric character (e.g. '\''MyValue'\'',  or '\''my_value'\'',  or '\''12345'\'', regex used for validation is '\''(([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9])?'\'')' \
  "invalid label value"
jpost $P '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x"},"spec":{"containers":[]}}'
status_is 422 Invalid 'Pod "x" is invalid: spec.containers: Required value' "no containers"
# a flag value submission could not parse is refused at create, naming the
# flag and the reason, and nothing is stored
jpost $P '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"fl1","annotations":{"slurm-job.vk.io/flags":"--extra-node-info=2x"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}'
status_is 422 Invalid 'Pod "fl1" is invalid: metadata.annotations[slurm-job.vk.io/flags]: Invalid value: "--extra-node-info=2x": --extra-node-info: invalid value "2x": want S[:C[:T]]' \
  "flags: --extra-node-info=2x is a 422 naming the flag"
jpost $P '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"fl2","annotations":{"slurm-job.vk.io/flags":"--gpus=abc"}},"spec":{"containers":[{"name":"c","image":"busybox"}]}}'
status_is 422 Invalid 'Pod "fl2" is invalid: metadata.annotations[slurm-job.vk.io/flags]: Invalid value: "--gpus=abc": --gpus: invalid value "abc": want [TYPE:]COUNT' \
  "flags: --gpus=abc is a 422 naming the flag"
req GET $P/fl1
is "$CODE" 404 "the refused pod was not stored"
jpost $P '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"x"},"spec":{"containers":[{"name":"c","image":"busybox","resources":{"limits":{"memory":"12Q"}}}]}}'
status_is 400 BadRequest 'Pod in version "v1" cannot be handled as a Pod: quantities must match the regular expression '\''^([+-]?[0-9.]+)([eEinumkKMGTP]*[-+]?[0-9]*)$'\''' \
  "invalid quantity"
jpost $P "{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"x\",\"namespace\":\"other\"},$C}"
status_is 400 BadRequest 'the namespace of the provided object does not match the namespace sent on the request' "namespace in the body differs from the URL"
req POST $P -H 'Content-Type: text/plain' --data-binary '{}'
status_is 415 UnsupportedMediaType 'the body of the request was in an unknown format - accepted media types include: application/json, application/yaml' "wrong Content-Type"
req POST $P -H 'Content-Type: application/yaml' --data-binary $'apiVersion: v1\nkind: Pod\nmetadata: {name: y1}\nspec:\n  containers:\n  - {name: c, image: busybox}\n'
is "$CODE $(jqr .metadata.name)" "201 y1" "a YAML body (application/yaml) is accepted"

# 10 MiB: refused before it is read (Content-Length) and when chunked
head -c 10485760 /dev/zero | tr '\0' ' ' >"$AD/big"
req POST $P -H 'Content-Type: application/json' --data-binary @"$AD/big"
status_is 413 RequestEntityTooLarge 'Request entity too large: limit is 3145728' "10 MiB body with Content-Length: 413"
req POST $P -H 'Content-Type: application/json' -H 'Transfer-Encoding: chunked' --data-binary @"$AD/big"
status_is 413 RequestEntityTooLarge 'Request entity too large: limit is 3145728' "10 MiB chunked body: 413"

req GET /api/v1/namespaces/default/widgets
status_is 404 NotFound 'the server could not find the requested resource' "unknown resource"
req GET /apis/networking.k8s.io/v1/ingresses
status_is 404 NotFound 'the server could not find the requested resource' "unknown group"
req GET /api/v2/pods
status_is 404 NotFound 'the server could not find the requested resource' "unknown version"
req GET "$P?labelSelector=a+in+("
status_is 400 BadRequest "unable to parse requirement: found '', expected: ',', ')' or identifier" "malformed label selector"
req GET "$P?fieldSelector=spec.foo%3Dx"
status_is 400 BadRequest 'field label not supported: spec.foo' "unsupported field selector"
req GET "$P?watch=1&resourceVersion=abc"
is "$CODE $(jqr .reason)" "400 BadRequest" "watch with a malformed resourceVersion"

# logs: container choice
jpost $P '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"two"},"spec":{"initContainers":[{"name":"i","image":"busybox"}],"containers":[{"name":"a","image":"busybox"},{"name":"b","image":"busybox"}]}}'
req GET $P/two/log
status_is 400 BadRequest 'a container name must be specified for pod two, choose one of: [i a b]' "logs of a multi-container pod without container"
req GET "$P/two/log?container=zz"
status_is 400 BadRequest 'container zz is not valid for pod two' "logs of an unknown container"
req GET "$P/nope/log"
status_is 404 NotFound 'pods "nope" not found' "logs of a missing pod"
req GET "$P/two/log?container=a&previous=true"
status_is 400 BadRequest 'previous terminated container "a" in pod "two" not found' "previous logs that do not exist"

# the daemon shrugs off garbage and half requests
printf 'GARBAGE\r\n\r\n' | timeout 2 bash -c "cat >/dev/tcp/127.0.0.1/$API_PORT" 2>/dev/null
printf 'GET /api HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n{"a"' | timeout 2 bash -c "cat >/dev/tcp/127.0.0.1/$API_PORT" 2>/dev/null
printf 'POST %s HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 4\r\n\r\n\x00\xff\xfe{' "$P" | timeout 2 bash -c "cat >/dev/tcp/127.0.0.1/$API_PORT" 2>/dev/null
req GET /healthz
is "$CODE $BODY" "200 ok" "still healthy after garbage"
api_stop
is "$?" "0" "clean exit"
ok bash -c "! grep -qE 'ERROR: (Address|Leak)Sanitizer|runtime error:' '$AD/daemon.log'" "no sanitizer reports in the daemon log"
done_testing
