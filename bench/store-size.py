#!/usr/bin/python3
# store-size.py — the store's files (objects.db and its -wal) after N pods
# are created and then deleted through the API, and after a further M writes
# (the change log trimmed past the deletions). Used by bench/store-size.sh.
import argparse, http.client, json, os, sys

ap = argparse.ArgumentParser()
ap.add_argument("--port", type=int, required=True)
ap.add_argument("--state", required=True)
ap.add_argument("--pods", type=int, default=10000)
ap.add_argument("--writes", type=int, default=11000)
a = ap.parse_args()
conn = http.client.HTTPConnection("127.0.0.1", a.port)
P = "/api/v1/namespaces/default/pods"


def call(method, path, body=None, ctype="application/json"):
    conn.request(method, path, body=body, headers={"Content-Type": ctype} if body else {})
    r = conn.getresponse()
    return r.status, r.read()


def size():
    f = os.path.join(a.state, "objects.db")
    mb = lambda p: os.path.getsize(p) / 1e6 if os.path.exists(p) else 0.0
    return f"objects.db {mb(f):6.1f} MB, -wal {mb(f + '-wal'):5.1f} MB"


pod = lambda i: json.dumps({"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i:06d}", "labels": {"app": "bench"}},
                            "spec": {"containers": [{"name": "main", "image": "busybox", "command": ["sleep", "1"]}]}})
print(f"fresh:                                {size()}")
for i in range(a.pods):
    if call("POST", P, pod(i))[0] != 201:
        sys.exit(f"create p{i}")
print(f"{a.pods} pods created:                  {size()}")
for i in range(a.pods):
    st, _ = call("DELETE", f"{P}/p{i:06d}?gracePeriodSeconds=0")
    if st != 200:
        sys.exit(f"delete p{i}: HTTP {st}")
print(f"... and deleted:                      {size()}")
call("POST", P, pod(999999))
for i in range(a.writes):
    st, _ = call("PATCH", f"{P}/p999999", json.dumps({"metadata": {"labels": {"n": str(i)}}}), "application/merge-patch+json")
    if st != 200:
        sys.exit(f"patch: HTTP {st}")
print(f"... then {a.writes} changes to one pod:    {size()}")
