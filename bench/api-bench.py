#!/usr/bin/python3
"""api-bench.py — slurmlinkd's API under load (run by bench/api-bench.sh).

1. Store N pods (default 10,000) through the API (keep-alive POSTs).
2. List them as a Table (what `kubectl get pods` asks for) and as JSON,
   R times each: p50/p99 of the request time seen on loopback.
3. Watch fan-out: W watchers (default 100) on the pods of one namespace,
   then C changes (default 1,000) paced at a fixed rate; each change carries
   its send time (ns) in an annotation; each watcher's receive time minus
   that is the delivery latency. One epoll loop reads all watchers.
4. slurmlinkd's resident memory (VmRSS, VmHWM) after each phase.
"""
import argparse, http.client, json, os, selectors, socket, statistics, sys, time


def pct(xs, p):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    k = max(0, min(len(xs) - 1, int(round(p / 100.0 * len(xs) + 0.5)) - 1))
    return xs[k]


def rss(pid):
    out = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith(("VmRSS", "VmHWM")):
                k, v = line.split(":")
                out[k] = int(v.split()[0]) // 1024
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--port", type=int, required=True)
    ap.add_argument("--pid", type=int, required=True)
    ap.add_argument("--pods", type=int, default=10000)
    ap.add_argument("--repeat", type=int, default=20)
    ap.add_argument("--watchers", type=int, default=100)
    ap.add_argument("--changes", type=int, default=1000)
    ap.add_argument("--rate", type=int, default=200, help="changes per second")
    a = ap.parse_args()
    host = "127.0.0.1"
    conn = http.client.HTTPConnection(host, a.port)

    def call(method, path, body=None, ctype="application/json", accept="application/json"):
        headers = {"Accept": accept}
        if body is not None:
            headers["Content-Type"] = ctype
        conn.request(method, path, body=body, headers=headers)
        r = conn.getresponse()
        data = r.read()
        return r.status, data

    # 1. pods
    t0 = time.time()
    for i in range(a.pods):
        pod = {"apiVersion": "v1", "kind": "Pod",
               "metadata": {"name": f"p{i:05d}", "labels": {"app": "bench", "shard": str(i % 10)}},
               "spec": {"containers": [{"name": "main", "image": "busybox", "command": ["sleep", "1"],
                                        "resources": {"limits": {"cpu": "1", "memory": "64Mi"}}}]}}
        st, _ = call("POST", "/api/v1/namespaces/default/pods", json.dumps(pod))
        if st != 201:
            sys.exit(f"create p{i}: HTTP {st}")
    create_s = time.time() - t0
    mem_loaded = rss(a.pid)
    print(f"created {a.pods} pods in {create_s:.1f} s ({a.pods / create_s:.0f}/s)")

    # 2. lists
    table = "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json"
    results = {}
    for name, path, accept in (("Table", "/api/v1/namespaces/default/pods", table),
                               ("Table page (limit=500)", "/api/v1/namespaces/default/pods?limit=500", table),
                               ("JSON", "/api/v1/namespaces/default/pods", "application/json"),
                               ("Table -l shard=3", "/api/v1/namespaces/default/pods?labelSelector=shard%3D3", table),
                               ("JSON one pod by name", "/api/v1/namespaces/default/pods?fieldSelector=metadata.name%3Dp04242", "application/json")):
        times, size = [], 0
        for _ in range(a.repeat):
            t = time.perf_counter()
            st, data = call("GET", path, accept=accept)
            times.append((time.perf_counter() - t) * 1000)
            size = len(data)
            if st != 200:
                sys.exit(f"list {name}: HTTP {st}")
        results[name] = (pct(times, 50), pct(times, 99), size)
        print(f"list {name:22s} p50 {pct(times, 50):8.1f} ms  p99 {pct(times, 99):8.1f} ms  ({size / 1e6:.1f} MB)")
    mem_listed = rss(a.pid)

    # 3. watch fan-out
    st, data = call("GET", "/api/v1/namespaces/default/pods?fieldSelector=metadata.name%3Dp00000")
    rv = json.loads(data)["metadata"]["resourceVersion"]
    sel = selectors.DefaultSelector()
    socks = []
    for w in range(a.watchers):
        s = socket.create_connection((host, a.port))
        s.sendall((f"GET /api/v1/namespaces/default/pods?watch=true&resourceVersion={rv}&timeoutSeconds=600 HTTP/1.1\r\n"
                   f"Host: {host}\r\nAccept: application/json\r\n\r\n").encode())
        s.setblocking(False)
        st = {"buf": b"", "hdr": False, "lat": [], "n": 0}
        sel.register(s, selectors.EVENT_READ, st)
        socks.append(s)
    lats = []
    got = 0
    want = a.watchers * a.changes
    interval = 1.0 / a.rate
    next_send = time.perf_counter() + 0.5
    sent = 0
    deadline = time.time() + a.changes / a.rate + 60
    while got < want and time.time() < deadline:
        now = time.perf_counter()
        if sent < a.changes and now >= next_send:
            patch = json.dumps({"metadata": {"annotations": {"sent": str(time.time_ns())}}})
            st, _ = call("PATCH", f"/api/v1/namespaces/default/pods/p{sent % a.pods:05d}", patch,
                         ctype="application/merge-patch+json")
            sent += 1
            next_send += interval
            continue
        timeout = max(0.0, next_send - time.perf_counter()) if sent < a.changes else 1.0
        for key, _ in sel.select(timeout):
            s, st = key.fileobj, key.data
            try:
                chunk = s.recv(1 << 20)
            except BlockingIOError:
                continue
            if not chunk:
                sel.unregister(s)
                continue
            recv_ns = time.time_ns()
            st["buf"] += chunk
            if not st["hdr"]:
                i = st["buf"].find(b"\r\n\r\n")
                if i < 0:
                    continue
                st["buf"] = st["buf"][i + 4:]
                st["hdr"] = True
                st["data"] = b""
            # undo the chunked framing, then take complete event lines
            while True:
                j = st["buf"].find(b"\r\n")
                if j < 0:
                    break
                size = int(st["buf"][:j], 16)
                if len(st["buf"]) < j + 2 + size + 2:
                    break
                st["data"] += st["buf"][j + 2:j + 2 + size]
                st["buf"] = st["buf"][j + 2 + size + 2:]
            while True:
                j = st["data"].find(b"\n")
                if j < 0:
                    break
                line, st["data"] = st["data"][:j], st["data"][j + 1:]
                if not line.startswith(b"{"):
                    continue  # the blank line that gets the headers out
                # the send time, without parsing the whole event (the
                # client must not be the bottleneck of the measurement)
                k = line.find(b'"sent":"')
                if k >= 0:
                    e = line.find(b'"', k + 8)
                    lats.append((recv_ns - int(line[k + 8:e])) / 1e6)
                    got += 1
    for s in socks:
        s.close()
    mem_watched = rss(a.pid)
    print(f"watch fan-out: {a.watchers} watchers x {sent} changes at {a.rate}/s: {got}/{want} events delivered")
    print(f"  delivery latency (PATCH sent -> event parsed by the watcher) p50 {pct(lats, 50):.2f} ms  "
          f"p99 {pct(lats, 99):.2f} ms  max {max(lats) if lats else float('nan'):.2f} ms")
    print(f"memory: {mem_loaded['VmRSS']} MB RSS with {a.pods} pods stored; {mem_listed['VmRSS']} MB after the lists; "
          f"{mem_watched['VmRSS']} MB after the fan-out (peak {mem_watched['VmHWM']} MB)")
    ok = got == want
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
