#!/usr/bin/python3
# mem-peaks.py — slurmlinkd's resident memory peak (VmHWM, reset before each
# step) during whole-store operations, with M pods and N Events stored in one
# namespace: a /metrics scrape (pods counted by namespace and phase), a full
# JSON list of the pods, and the namespace's deletion (its content swept,
# then the namespace removed). Used by bench/mem-peaks.sh.
import argparse, http.client, json, sys, time

ap = argparse.ArgumentParser()
ap.add_argument("--port", type=int, required=True)
ap.add_argument("--pid", type=int, required=True)
ap.add_argument("--events", type=int, default=20000)
ap.add_argument("--pods", type=int, default=2000)
a = ap.parse_args()
conn = http.client.HTTPConnection("127.0.0.1", a.port)


def call(method, path, body=None):
    conn.request(method, path, body=body, headers={"Content-Type": "application/json"} if body else {})
    r = conn.getresponse()
    return r.status, r.read()


def mem():
    kv = dict(l.split(":", 1) for l in open(f"/proc/{a.pid}/status") if ":" in l)
    mib = lambda k: int(kv[k].split()[0]) / 1024
    return mib("VmRSS"), mib("VmHWM")


NS = "sweep"
if call("POST", "/api/v1/namespaces", json.dumps({"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}}))[0] != 201:
    sys.exit("create namespace")
for i in range(a.pods):
    p = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i:06d}", "labels": {"app": "bench"}},
         "spec": {"containers": [{"name": "main", "image": "busybox", "command": ["sleep", "1"]}]}}
    if call("POST", f"/api/v1/namespaces/{NS}/pods", json.dumps(p))[0] != 201:
        sys.exit(f"create pod {i}")
for i in range(a.events):
    e = {"apiVersion": "v1", "kind": "Event", "metadata": {"name": f"p{i % max(a.pods, 1):06d}.{i:08x}"},
         "involvedObject": {"kind": "Pod", "namespace": NS, "name": f"p{i % max(a.pods, 1):06d}"},
         "reason": "Scheduled", "message": f"Successfully assigned {NS}/p{i:06d} to node1 (Slurm job {i})",
         "type": "Normal", "count": 1, "source": {"component": "slurmlink"},
         "firstTimestamp": "2026-12-03T12:00:00Z", "lastTimestamp": "2026-12-03T12:00:00Z"}
    if call("POST", f"/api/v1/namespaces/{NS}/events", json.dumps(e))[0] != 201:
        sys.exit(f"create event {i}")
rss0, hwm0 = mem()
print(f"{a.pods} pods and {a.events} Events stored: RSS {rss0:.1f} MiB, peak so far {hwm0:.1f} MiB")


def step(name, method, path):
    open(f"/proc/{a.pid}/clear_refs", "w").write("5")  # VmHWM from here on
    before = mem()[0]
    t = time.time()
    st, body = call(method, path)
    if st != 200:
        sys.exit(f"{name}: HTTP {st}")
    rss, hwm = mem()
    print(f"{name}: {time.time() - t:.3f} s, {len(body) / 1e6:.1f} MB; peak RSS {hwm:.1f} MiB "
          f"(+{hwm - before:.1f}), RSS after {rss:.1f} MiB")


step("GET /metrics", "GET", "/metrics")
step(f"list {a.pods} pods as JSON", "GET", f"/api/v1/namespaces/{NS}/pods")
rss0 = mem()[0]
open(f"/proc/{a.pid}/clear_refs", "w").write("5")
t0 = time.time()
st, _ = call("DELETE", f"/api/v1/namespaces/{NS}")
if st not in (200, 202):
    sys.exit(f"delete namespace: HTTP {st}")
while call("GET", f"/api/v1/namespaces/{NS}")[0] != 404:
    if time.time() - t0 > 600:
        sys.exit("namespace not gone after 600 s")
    time.sleep(0.05)
rss1, hwm1 = mem()
print(f"namespace deleted in {time.time() - t0:.2f} s: peak RSS during it {hwm1:.1f} MiB "
      f"(+{hwm1 - rss0:.1f} over before), RSS after {rss1:.1f} MiB")
