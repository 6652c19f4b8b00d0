#!/bin/bash
# covers: src/api/ src/store/
# 50-api-watch.t — watch streams as kube-apiserver writes them, over HTTPS
# with the admin's client certificate (no Slurm: the API alone):
#   - the raw stream: the status line and headers arrive while no event
#     exists yet, and every line of the body is one complete JSON event
#     ({"type":...,"object":...}), no blank lines;
#   - filtered watches typed from each object's state just before each
#     change (kube's cacheWatcher): from N with a selector, after N x is
#     created matching, y (matching at N) stops matching, z is created not
#     matching and then starts to: ADDED x, DELETED y (as it was), ADDED z —
#     for a label selector (config maps), a field selector (events, reason)
#     and a name (fieldSelector=metadata.name), replayed from the change log
#     (served by the shared window, and after a restart from the store's log)
#     and live;
#   - a slow watcher (a tiny receive buffer, not reading) that falls out of
#     the shared window (--watch-window) reads on from the store's log and
#     misses nothing, as one behind a window bounded by its bytes
#     (--watch-window-bytes) does; one that falls out of the change log
#     gets an ERROR event with a 410 Expired Status and the end of the watch,
#     and a resume from there gets the same.
source "$(dirname "$0")/50-api-lib.sh"
source "$(dirname "$0")/61-security-lib.sh"
plan 29

D=$(tmpdir)
on_exit "rm -rf '$D'"
sec_pki "$D" || bail "test PKI"
P=$D/pki
printf 'adminGroups: [system:masters]\n' >"$D/etc/policy.yaml"
AD=$D
SEC=(--tls-cert "$P/server.crt" --tls-key "$P/server.key" --client-ca "$P/ca.crt"
     --policy "$D/etc/policy.yaml")
# the admin's certificate as `slurmlink kubeconfig` issues it (the CA is the
# server's, so the healthz probe of api_start passes with it)
sec_kc "$D" admin https://127.0.0.1:1 --groups system:masters --cert
kubectl config view --raw --kubeconfig "$D/admin.kc" -o jsonpath='{.users[0].user.client-certificate-data}' | base64 -d >"$D/admin.crt"
kubectl config view --raw --kubeconfig "$D/admin.kc" -o jsonpath='{.users[0].user.client-key-data}' | base64 -d >"$D/admin.key"
C=(--cacert "$P/ca.crt" --cert "$D/admin.crt" --key "$D/admin.key")
export API_SCHEME=https API_CURL_OPTS="${C[*]}"
up() { api_start "$D" "${SEC[@]}" "$@"; }
on_exit "api_stop"
up --watch-log 5000 || bail "slurmlinkd up"
NS=/api/v1/namespaces/default

# ---- the raw stream ---------------------------------------------------------
cat >"$D/raw.py" <<'PY'
# raw.py URL PATH OUT: one watch over TLS with the admin certificate; writes
# "headers STATUS TRANSFER-ENCODING" to OUT.hdr as soon as the headers are
# read, then the de-chunked body to OUT when the server ends the stream
import socket, ssl, sys, os, urllib.parse
url, path, out = sys.argv[1:4]
d = os.environ["D"]
u = urllib.parse.urlsplit(url)
ctx = ssl.create_default_context(cafile=d + "/pki/ca.crt")
ctx.load_cert_chain(d + "/admin.crt", d + "/admin.key")
s = ctx.wrap_socket(socket.create_connection((u.hostname, u.port)), server_hostname=u.hostname)
s.sendall(f"GET {path} HTTP/1.1\r\nHost: {u.netloc}\r\nAccept: application/json\r\n\r\n".encode())
f = s.makefile("rb")
status = f.readline().split()[1].decode()
te = ""
while True:
    line = f.readline()
    if line in (b"\r\n", b""):
        break
    k, _, v = line.decode().partition(":")
    if k.lower() == "transfer-encoding":
        te = v.strip()
with open(out + ".hdr", "w") as h:
    h.write(f"headers {status} {te}\n")
body = b""
while True:
    n = int(f.readline().split(b";")[0], 16)
    if n == 0:
        break
    body += f.read(n)
    f.read(2)
with open(out, "wb") as o:
    o.write(body)
PY
export D
# every line one JSON event with a type and an object; no blank line; ends in \n
lines_ok() {
  local f=$1
  [ -s "$f" ] && [ "$(tail -c 1 "$f" | od -An -c | tr -d ' ')" = '\n' ] || return 1
  while IFS= read -r l; do
    [ -n "$l" ] || return 1
    printf '%s' "$l" | jq -e 'type == "object" and (.type|type) == "string" and (.object|type) == "object" and (keys|length) == 2' >/dev/null || return 1
  done <"$f"
}
curl -sf "${C[@]}" -X POST -H 'Content-Type: application/json' "$API$NS/configmaps" \
  --data-binary '{"metadata":{"name":"raw0"}}' >/dev/null
RV=$(curl -sf "${C[@]}" "$API$NS/configmaps" | jq -r .metadata.resourceVersion)
$PY "$D/raw.py" "$API" "$NS/configmaps?watch=1&resourceVersion=$RV&timeoutSeconds=6" "$D/raw1" &
R1=$!
$PY "$D/raw.py" "$API" "$NS/configmaps?watch=1&labelSelector=never%3D1&timeoutSeconds=2" "$D/raw2" &
R2=$!
ok wait_for 30 test -s "$D/raw1.hdr" "the watch's headers arrive while it has no event to send"
is "$(cat "$D/raw1.hdr" 2>/dev/null)" "headers 200 chunked" "status 200, chunked"
is "$(curl -s "${C[@]}" "$API$NS/configmaps" | jq -r .metadata.resourceVersion)" "$RV" \
  "(no change happened before the headers came)"
curl -sf "${C[@]}" -X POST -H 'Content-Type: application/json' "$API$NS/configmaps" \
  --data-binary '{"metadata":{"name":"raw1"}}' >/dev/null
curl -sf "${C[@]}" -X PATCH -H 'Content-Type: application/merge-patch+json' "$API$NS/configmaps/raw1" \
  --data-binary '{"data":{"k":"v"}}' >/dev/null
wait $R1 $R2
ok lines_ok "$D/raw1" "every line of the stream is one JSON event"
is "$(jq -r '.type + ":" + .object.metadata.name' "$D/raw1" | tr '\n' ' ')" "ADDED:raw1 MODIFIED:raw1 " "the events"
is "$(wc -c <"$D/raw2" 2>/dev/null)" "0" "a watch with nothing to send sends nothing (not a blank line)"

# ---- filtered watches from N: x, y, z -----------------------------------------
cj() { curl -s "${C[@]}" -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' "$@"; }
mp() { curl -s "${C[@]}" -o /dev/null -w '%{http_code}' -X PATCH -H 'Content-Type: application/merge-patch+json' "$@"; }
cm() { cj -X POST "$API$NS/configmaps" --data-binary "{\"metadata\":{\"name\":\"$1\",\"labels\":{\"l\":\"$2\"}}}"; }
relabel() { mp "$API$NS/configmaps/$1" --data-binary "{\"metadata\":{\"labels\":{\"l\":\"$2\"}}}"; }
ev() {
  cj -X POST "$API$NS/events" --data-binary "{\"metadata\":{\"name\":\"$1\"},\"reason\":\"$2\",\"type\":\"Normal\",\"involvedObject\":{\"kind\":\"Pod\",\"namespace\":\"default\",\"name\":\"p\"}}"
}
reason() { mp "$API$NS/events/$1" --data-binary "{\"reason\":\"$2\"}"; }
curr() { curl -sf "${C[@]}" "$API/api/v1/$1" | jq -r .metadata.resourceVersion; }
# seq FILE: type:name:value for each event (value: label l, or the reason)
seq_of() { jq -r '.type + ":" + .object.metadata.name + ":" + (.object.metadata.labels.l // .object.reason // "")' "$1" 2>/dev/null | tr '\n' ' '; }
watch_to() { # OUT PATH: the events until the server ends the watch
  curl -s -N "${C[@]}" -o "$1" "$API$2"
}

out=$(cm ly v; cm lq v)
NL=$(curr namespaces/default/configmaps)
out+=$(cm lx v; relabel ly w; cm lz w; relabel lz v)
out+=$(ev fy Hit)
NF=$(curr namespaces/default/events)
out+=$(ev fx Hit; reason fy Miss; ev fz Miss; reason fz Hit)
out+=$(cm ny 0)
NN=$(curr namespaces/default/configmaps)
out+=$(cm nx 0; relabel nx 1; relabel ny 1; curl -s "${C[@]}" -o /dev/null -w '%{http_code}' -X DELETE "$API$NS/configmaps/ny")
is "$out" "201201201200201200201201200201200201201200200200" "the changes after N were made"

check_log() { # WHERE: the three watches from N, each against its exact sequence
  watch_to "$D/wl" "$NS/configmaps?watch=1&resourceVersion=$NL&labelSelector=l%3Dv&timeoutSeconds=2"
  is "$(seq_of "$D/wl")" "ADDED:lx:v DELETED:ly:v ADDED:lz:v " "label selector from N ($1)"
  watch_to "$D/wf" "$NS/events?watch=1&resourceVersion=$NF&fieldSelector=reason%3DHit&timeoutSeconds=2"
  is "$(seq_of "$D/wf")" "ADDED:fx:Hit DELETED:fy:Hit ADDED:fz:Hit " "field selector from N ($1)"
  watch_to "$D/wx" "$NS/configmaps?watch=1&resourceVersion=$NN&fieldSelector=metadata.name%3Dnx&timeoutSeconds=2"
  watch_to "$D/wy" "$NS/configmaps?watch=1&resourceVersion=$NN&fieldSelector=metadata.name%3Dny&timeoutSeconds=2"
  is "$(seq_of "$D/wx")|$(seq_of "$D/wy")" "ADDED:nx:0 MODIFIED:nx:1 |MODIFIED:ny:1 DELETED:ny:1 " \
    "name selector from N ($1)"
}
check_log "the shared window"
# the object that left the selection comes as it was, at the change's resourceVersion
YRV=$(jq -r 'select(.type=="DELETED") | .object.metadata.resourceVersion' "$D/wl")
is "$(curl -sf "${C[@]}" "$API$NS/configmaps/ly" | jq -r .metadata.resourceVersion)" "$YRV" \
  "DELETED (left the selection) carries the resourceVersion of the change"
# after a restart the shared window starts at the current revision: N is
# then read from the store's change log
api_stop
up --watch-log 5000 || bail "slurmlinkd up again"
check_log "the store's change log, after a restart"

# live: the watch is open (its first ADDED came) before the changes; a last
# matching change (end, or vy created again) marks that every event before
# it has come, and the watch is then closed by the client
has() { grep -q "\"name\":\"$2\"" "$1"; }
nlines() { [ "$(wc -l <"$1")" -ge "$2" ]; }
W="timeoutSeconds=300"
curl -s -N "${C[@]}" -o "$D/vl" "$API$NS/configmaps?watch=1&labelSelector=l%3Dv2&$W" &
V1=$!
curl -s -N "${C[@]}" -o "$D/vf" "$API$NS/events?watch=1&fieldSelector=reason%3DHit2&$W" &
V2=$!
curl -s -N "${C[@]}" -o "$D/vn" "$API$NS/configmaps?watch=1&fieldSelector=metadata.name%3Dvy&$W" &
V3=$!
on_exit "kill $V1 $V2 $V3"
out=$(cm vy v2; ev gy Hit2)
wait_for 60 has "$D/vl" vy; wait_for 60 has "$D/vf" gy; wait_for 60 has "$D/vn" vy
out+=$(cm vx v2; relabel vy w; cm vz w; relabel vz v2)
out+=$(ev gx Hit2; reason gy Miss; ev gz Miss; reason gz Hit2)
out+=$(curl -s "${C[@]}" -o /dev/null -w '%{http_code}' -X DELETE "$API$NS/configmaps/vy")
out+=$(cm vend v2; ev gend Hit2; cm vy 0)
wait_for 60 has "$D/vl" vend; wait_for 60 has "$D/vf" gend; wait_for 60 nlines "$D/vn" 4
kill $V1 $V2 $V3
is "$out" "201201201200201200201200201200200201201201" "the live changes were made"
is "$(seq_of "$D/vl")" "ADDED:vy:v2 ADDED:vx:v2 DELETED:vy:v2 ADDED:vz:v2 ADDED:vend:v2 " "label selector, live"
is "$(seq_of "$D/vf")" "ADDED:gy:Hit2 ADDED:gx:Hit2 DELETED:gy:Hit2 ADDED:gz:Hit2 ADDED:gend:Hit2 " "field selector, live"
is "$(seq_of "$D/vn")" "ADDED:vy:v2 MODIFIED:vy:w DELETED:vy:w ADDED:vy:0 " "name selector, live"

# ---- slow watchers ----------------------------------------------------------
cat >"$D/slow.py" <<'PY'
# slow.py URL PATH N OUT: a watcher with a tiny receive buffer reads the
# headers, stops reading while N config maps of 12 KiB are created (on a
# second connection, in PATH's collection), then reads its stream into OUT
# until it has N events, an ERROR event or the end
import http.client, json, socket, ssl, sys, os, urllib.parse
url, path, n, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
d = os.environ["D"]
u = urllib.parse.urlsplit(url)
ctx = ssl.create_default_context(cafile=d + "/pki/ca.crt")
ctx.load_cert_chain(d + "/admin.crt", d + "/admin.key")
raw = socket.socket()
raw.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 2048)
raw.connect((u.hostname, u.port))
s = ctx.wrap_socket(raw, server_hostname=u.hostname)
s.sendall(f"GET {path} HTTP/1.1\r\nHost: {u.netloc}\r\n\r\n".encode())
f = s.makefile("rb", buffering=0)
while f.readline() not in (b"\r\n", b""):
    pass
w = http.client.HTTPSConnection(u.hostname, u.port, context=ctx)
for i in range(n):
    body = json.dumps({"metadata": {"name": f"s{i:05d}"}, "data": {"k": "x" * 12288}})
    w.request("POST", path.split("?")[0], body, {"Content-Type": "application/json"})
    r = w.getresponse()
    r.read()
    if r.status != 201:
        sys.exit(f"create s{i}: {r.status}")
f = s.makefile("rb")
body = b""
while body.count(b"\n") < n and b'"type":"ERROR"' not in body:
    line = f.readline()
    if not line:
        break
    k = int(line.split(b";")[0], 16)
    if k == 0:
        break
    body += f.read(k)
    f.read(2)
open(out, "wb").write(body)
PY
nsmk() { cj -X POST "$API/api/v1/namespaces" --data-binary "{\"metadata\":{\"name\":\"$1\"}}"; }
# a shared window of 64 changes per resource (instead of 1,024)
api_stop
up --watch-log 5000 --watch-window 64 || bail "slurmlinkd with a small shared window"
is "$(nsmk slow)" "201" "namespace slow"
SRV=$(curr namespaces/slow/configmaps)
# 600 changes of 12 KiB: the watcher stalls once the socket buffers are full
# (4 MiB at most here, ~340 events), more than 64 changes before its
# position; fewer than the log (5000)
$PY "$D/slow.py" "$API" "/api/v1/namespaces/slow/configmaps?watch=1&resourceVersion=$SRV&timeoutSeconds=1800" 600 "$D/slow1" &
S1=$!
ok wait $S1 "the slow watcher ran"
is "$(jq -r .type "$D/slow1" | sort | uniq -c | tr -s ' ' | tr '\n' ' ')" " 600 ADDED " "600 ADDED events"
is "$(jq -r .object.metadata.name "$D/slow1" | tr '\n' ' ' | md5sum)" "$(for i in $(seq 0 599); do printf 's%05d ' "$i"; done | md5sum)" \
  "every change, in order, none lost: it read on from the store's log"

# a shared window bounded by bytes (256 KiB: some 20 of these changes)
# rather than by its count: the same
api_stop
up --watch-log 5000 --watch-window 1024 --watch-window-bytes 262144 || bail "slurmlinkd with a window of 256 KiB"
nsmk slowb >/dev/null
SRV=$(curr namespaces/slowb/configmaps)
$PY "$D/slow.py" "$API" "/api/v1/namespaces/slowb/configmaps?watch=1&resourceVersion=$SRV&timeoutSeconds=1800" 600 "$D/slowb" &
SB=$!
ok wait $SB "the slow watcher of a window bounded by bytes ran"
is "$(jq -r .object.metadata.name "$D/slowb" | tr '\n' ' ' | md5sum)" "$(for i in $(seq 0 599); do printf 's%05d ' "$i"; done | md5sum)" \
  "window bounded by bytes: every change, in order, none lost"

# a log of 200 changes: the slow watcher falls out of it
api_stop
up --watch-log 200 --watch-window 64 || bail "slurmlinkd with a short change log"
nsmk slow2 >/dev/null
SRV=$(curr namespaces/slow2/configmaps)
$PY "$D/slow.py" "$API" "/api/v1/namespaces/slow2/configmaps?watch=1&resourceVersion=$SRV&timeoutSeconds=1800" 600 "$D/slow2" &
S2=$!
ok wait $S2 "the second slow watcher ran"
is "$(tail -n 1 "$D/slow2" | jq -r '.type + " " + (.object.code|tostring) + " " + .object.reason')" "ERROR 410 Expired" \
  "fallen out of the change log: an ERROR event with a 410 Expired Status ends the watch"
LAST=$(grep -v '"ERROR"' "$D/slow2" | tail -n 1 | jq -r .object.metadata.resourceVersion)
[ -n "$LAST" ] || LAST=$SRV
watch_to "$D/slow3" "/api/v1/namespaces/slow2/configmaps?watch=1&resourceVersion=$LAST&timeoutSeconds=1"
is "$(jq -r '.type + " " + (.object.code|tostring) + " " + .object.reason' "$D/slow3")" "ERROR 410 Expired" \
  "resuming from the last resourceVersion it got: 200 with an ERROR event, 410 Expired"
like "$(jq -r .object.message "$D/slow3")" "^too old resource version: $LAST \\([0-9]+\\)$" "kube-apiserver's message"
api_stop
is "$?" "0" "clean exit"
