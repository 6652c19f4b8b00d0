#!/bin/bash
# covers: src/common/memtrim.c src/daemon/ src/api/ src/store/
# Whole-store operations hold one object at a time, not the whole store:
# slurmlinkd's resident peak (VmHWM, reset before each step) while a
# /metrics scrape counts 5,000 stored pods, while a watch from now sends
# them (their texts kept until sent, not their parsed objects), while a namespace of 5,000
# pods and 5,000 Events is deleted, and while the Event TTL's sweeps remove
# 10,000 Events, and while a deletecollection removes 5,000 pods (its reply
# carries them all, as kube-apiserver's does: kept as their texts), stays
# far below what holding them all parsed takes (~3.5 KB an object: 17, 35
# and up to 35 MiB; each was that before).
# The plain build: ASan's quarantine keeps freed memory resident by design.
source "$(dirname "$0")/lib.sh"
plan 13

PLAIN=$ROOT/build/slurmlinkd
[ -x "$PLAIN" ] || bail "no plain build at $PLAIN (make all)"
D=$(tmpdir)
on_exit "rm -rf '$D'"
port=$(free_ports 1)
"$PLAIN" --port "$port" --state-dir "$D/state" --max-per-ip 1000 >"$D/log" 2>&1 &
pid=$!
on_exit "kill $pid 2>/dev/null; wait $pid 2>/dev/null"
ok wait_for 60 healthy "slurmlinkd (plain build) answers"

# what both daemons' checks share: argv PORT PID, then call(), mib(), reset()
cat >"$D/memlib.py" <<'PY'
import http.client, json, sys, time
port, pid = int(sys.argv[1]), int(sys.argv[2])
conn = http.client.HTTPConnection("127.0.0.1", port)
def call(method, path, body=None):
    conn.request(method, path, body=json.dumps(body) if body else None,
                 headers={"Content-Type": "application/json"} if body else {})
    r = conn.getresponse()
    return r.status, r.read()
def mib(key):
    for l in open(f"/proc/{pid}/status"):
        if l.startswith(key + ":"):
            return int(l.split()[1]) / 1024
def reset():
    open(f"/proc/{pid}/clear_refs", "w").write("5")  # VmHWM := VmRSS
    return mib("VmRSS")
PY
/usr/bin/python3 - "$port" "$pid" "$D" >"$D/out" 2>&1 <<'PY'
import http.client, json, sys, time
sys.path.insert(0, sys.argv[3])
from memlib import call, mib, reset, port
NS = "mem"
assert call("POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}})[0] == 201
for i in range(5000):
    st, b = call("POST", f"/api/v1/namespaces/{NS}/pods", {"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": f"p{i:05d}", "labels": {"app": "mem"}},
        "spec": {"containers": [{"name": "main", "image": "busybox", "command": ["sleep", "1"]}]}})
    assert st == 201, (st, b[:200])
    st, b = call("POST", f"/api/v1/namespaces/{NS}/events", {"apiVersion": "v1", "kind": "Event",
        "metadata": {"name": f"p{i:05d}.{i:08x}"},
        "involvedObject": {"kind": "Pod", "namespace": NS, "name": f"p{i:05d}"},
        "reason": "Scheduled", "message": f"Successfully assigned {NS}/p{i:05d} to node1 (Slurm job {i})",
        "type": "Normal", "count": 1, "firstTimestamp": "2026-12-03T12:00:00Z",
        "lastTimestamp": "2026-12-03T12:00:00Z"})
    assert st == 201, (st, b[:200])
before = reset()
st, body = call("GET", "/metrics")
n = sum(float(l.rsplit(" ", 1)[1]) for l in body.decode().splitlines()
        if l.startswith("slurmlink_pods{") and f'namespace="{NS}"' in l)
print(f"metrics\t{st}\t{n:.0f}\t{mib('VmHWM') - before:.1f}")
before = reset()
wc = http.client.HTTPConnection("127.0.0.1", port)
wc.request("GET", f"/api/v1/namespaces/{NS}/pods?watch=1&timeoutSeconds=60")
wr = wc.getresponse()
added = 0
while added < 5000:
    line = wr.readline()
    if not line:
        break
    added += json.loads(line).get("type") == "ADDED"
wc.close()
print(f"watch\t{wr.status}\t{added}\t{mib('VmHWM') - before:.1f}")
before = reset()
st, _ = call("DELETE", f"/api/v1/namespaces/{NS}")
t = time.time()
while call("GET", f"/api/v1/namespaces/{NS}")[0] != 404 and time.time() - t < 300:
    time.sleep(0.05)
gone = call("GET", f"/api/v1/namespaces/{NS}")[0] == 404
left = json.loads(call("GET", f"/api/v1/namespaces/{NS}/events")[1]).get("items", [])
print(f"nsdelete\t{st}\t{int(gone)}:{len(left)}\t{mib('VmHWM') - before:.1f}")
PY
m=$(grep '^metrics' "$D/out"); n=$(grep '^nsdelete' "$D/out")
[ -n "$m" ] && [ -n "$n" ] || diag "$(cat "$D/out")"
IFS=$'\t' read -r _ st count rise <<<"$m"
is "$st $count" "200 5000" "/metrics answers and counts the 5,000 pods of the namespace"
ok awk -v r="${rise:-999}" 'BEGIN { exit !(r < 12) }' "a scrape of 5,000 pods raises the resident peak by under 12 MiB (${rise:-?} MiB)"
IFS=$'\t' read -r _ st added rise <<<"$(grep '^watch' "$D/out")"
is "${st:-} ${added:-}" "200 5000" "a watch from now sends the 5,000 pods as ADDED"
ok awk -v r="${rise:-999}" 'BEGIN { exit !(r < 12) }' "and raises the resident peak by under 12 MiB meanwhile (${rise:-?} MiB)"
IFS=$'\t' read -r _ st gone rise <<<"$n"
like "$st" "^20[02]$" "the namespace's DELETE is accepted"
is "$gone" "1:0" "the namespace and its Events are gone"
ok awk -v r="${rise:-999}" 'BEGIN { exit !(r < 12) }' "deleting a namespace of 10,000 objects raises the resident peak by under 12 MiB (${rise:-?} MiB)"
kill "$pid"; wait "$pid" 2>/dev/null

# the Event TTL (10 s here: a sweep every 10 s): 10,000 Events stamped now,
# the peak from their creation until the sweeps removed them all
port=$(free_ports 1)
"$PLAIN" --port "$port" --state-dir "$D/state2" --max-per-ip 1000 --event-ttl 10 >"$D/log2" 2>&1 &
pid=$!
on_exit "kill $pid 2>/dev/null; wait $pid 2>/dev/null"
wait_for 60 healthy || diag "slurmlinkd did not answer: $(tail -3 "$D/log2")"
/usr/bin/python3 - "$port" "$pid" "$D" >"$D/out2" 2>&1 <<'PY'
import datetime, json, sys, time
sys.path.insert(0, sys.argv[3])
from memlib import call, mib, reset
for i in range(10000):
    now = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    st, b = call("POST", "/api/v1/namespaces/default/events", {"apiVersion": "v1", "kind": "Event",
        "metadata": {"name": f"e.{i:08x}"}, "involvedObject": {"kind": "Pod", "namespace": "default", "name": f"p{i}"},
        "reason": "Scheduled", "message": f"Successfully assigned default/p{i} to node1 (Slurm job {i})",
        "type": "Normal", "count": 1, "firstTimestamp": now, "lastTimestamp": now})
    assert st == 201, (st, b[:200])
before = reset()
t = time.time()
left = -1
while time.time() - t < 120:
    left = len(json.loads(call("GET", "/api/v1/namespaces/default/events?limit=1")[1]).get("items", []))
    if left == 0:
        break
    time.sleep(0.2)
print(f"ttl\t{left}\t{mib('VmHWM') - before:.1f}")
PY
IFS=$'\t' read -r _ left rise <<<"$(grep '^ttl' "$D/out2")"
is "${left:-}" 0 "the TTL's sweeps removed all 10,000 Events" || diag "$(tail -5 "$D/out2")"
ok awk -v r="${rise:-999}" 'BEGIN { exit !(r < 12) }' "their sweeps raise the resident peak by under 12 MiB (${rise:-?} MiB)"

# deletecollection of 5,000 pods by a label selector (5,000 others stay):
# the reply lists the deleted ones
/usr/bin/python3 - "$port" "$pid" "$D" >"$D/out3" 2>&1 <<'PY'
import json, sys
sys.path.insert(0, sys.argv[3])
from memlib import call, mib, reset
for i in range(10000):
    st, b = call("POST", "/api/v1/namespaces/default/pods", {"apiVersion": "v1", "kind": "Pod",
        "metadata": {"name": f"d{i:05d}", "labels": {"app": "gone" if i % 2 else "stays"}},
        "spec": {"containers": [{"name": "main", "image": "busybox", "command": ["sleep", "1"]}]}})
    assert st == 201, (st, b[:200])
before = reset()
st, body = call("DELETE", "/api/v1/namespaces/default/pods?labelSelector=app%3Dgone")
rise = mib("VmHWM") - before
r = json.loads(body)
names = sorted(o["metadata"]["name"] for o in r.get("items", []))
odd = names == [f"d{i:05d}" for i in range(1, 10000, 2)]
left = json.loads(call("GET", "/api/v1/namespaces/default/pods")[1])["items"]
stays = len(left) == 5000 and all(o["metadata"]["labels"]["app"] == "stays" for o in left)
print(f"delcol\t{st}\t{r.get('kind')}:{len(names)}:{int(odd)}:{int(stays)}\t{rise:.1f}")
PY
IFS=$'\t' read -r _ st what rise <<<"$(grep '^delcol' "$D/out3")"
is "${st:-}" 200 "deletecollection of the 5,000 pods labelled app=gone answers 200" || diag "$(tail -5 "$D/out3")"
is "${what:-}" "PodList:5000:1:1" "its reply lists exactly them, and the 5,000 others stay"
ok awk -v r="${rise:-999}" 'BEGIN { exit !(r < 12) }' "it raises the resident peak by under 12 MiB (${rise:-?} MiB)"
