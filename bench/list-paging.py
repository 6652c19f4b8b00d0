#!/usr/bin/python3
# list-paging.py — paged list figures (not a test): with N pods stored, the
# first page of limit=500 as Table, a later page (continue) with nothing
# changed, the same page after M pods changed since the first (served as of
# the first page's revision from the change log), and a walk of all pages.
# Prints p50/p99 in ms. Used by bench/list-paging.sh.
import argparse, http.client, json, statistics, sys, time

ap = argparse.ArgumentParser()
ap.add_argument("--port", type=int, required=True)
ap.add_argument("--pods", type=int, default=10000)
ap.add_argument("--changes", type=int, default=1000)
ap.add_argument("--repeat", type=int, default=20)
a = ap.parse_args()
conn = http.client.HTTPConnection("127.0.0.1", a.port)
TABLE = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json"


def call(method, path, body=None, accept="application/json", ctype="application/json"):
    h = {"Accept": accept}
    if body is not None:
        h["Content-Type"] = ctype
    conn.request(method, path, body=body, headers=h)
    r = conn.getresponse()
    return r.status, r.read()


def timed(path, accept=TABLE):
    ts = []
    for _ in range(a.repeat):
        t = time.perf_counter()
        st, data = call("GET", path, accept=accept)
        ts.append((time.perf_counter() - t) * 1000)
        if st != 200:
            sys.exit(f"{path}: HTTP {st}: {data[:200]}")
    ts.sort()
    return ts[len(ts) // 2], ts[min(len(ts) - 1, int(len(ts) * 0.99))], data


P = "/api/v1/namespaces/default/pods"
for i in range(a.pods):
    pod = {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": f"p{i:05d}", "labels": {"app": "bench"}},
           "spec": {"containers": [{"name": "main", "image": "busybox", "command": ["sleep", "1"]}]}}
    st, _ = call("POST", P, json.dumps(pod))
    if st != 201:
        sys.exit(f"create p{i}: HTTP {st}")
p50, p99, data = timed(P + "?limit=500")
print(f"first page (limit=500, Table)        p50 {p50:7.1f} ms  p99 {p99:7.1f} ms")
cont = json.loads(data)["metadata"]["continue"]
p50, p99, _ = timed(P + "?limit=500&continue=" + cont)
print(f"page 2, nothing changed since page 1 p50 {p50:7.1f} ms  p99 {p99:7.1f} ms")
for i in range(a.changes):
    st, _ = call("PATCH", f"{P}/p{(i * 7) % a.pods:05d}", json.dumps({"metadata": {"labels": {"n": str(i)}}}),
                 ctype="application/merge-patch+json")
    if st != 200:
        sys.exit(f"patch: HTTP {st}")
p50, p99, data = timed(P + "?limit=500&continue=" + cont)
print(f"page 2 after {a.changes} changes since page 1 p50 {p50:7.1f} ms  p99 {p99:7.1f} ms")
t = time.perf_counter()
n, cont = 0, ""
while True:
    st, data = call("GET", P + "?limit=500" + (f"&continue={cont}" if cont else ""), accept=TABLE)
    d = json.loads(data)
    n += len(d["rows"])
    cont = d["metadata"].get("continue")
    if not cont:
        break
print(f"all pages ({n} rows)                  {(time.perf_counter() - t) * 1000:7.0f} ms")
