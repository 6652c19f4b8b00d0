#!/usr/bin/python3
"""soak.py — N pods through the API with three watchers attached
(docs/benchmarks-history.md, "The 10,000-pod soak").

On a running local cluster started with --accounting (e.g. `slurmlink up
--dir D --nodes 4 --cpus 8 --accounting`), in one namespace:
  1. three watch streams start: `kubectl get pods -w --output-watch-events
     -o json`, the Python client's watch.Watch (a 410 Gone is followed by a
     relist and a watch from the list's resourceVersion), and a plain HTTP
     watch with bookmarks (the same relist rule);
  2. --pods N pods (sleep --sleep s, succeed) are POSTed by --threads
     client threads; the run waits until every pod has Succeeded;
  3. a final list; then every pod is deleted and the run waits until the
     list is empty and each watcher has seen every DELETED.
Checked, per watcher: each pod's phases go forward only (Pending, Running,
Succeeded), end Succeeded and then DELETED; what the watcher holds before
the deletions is the final list (names, phases, resourceVersions); without
a relist, the three saw the same changes of each pod (the same
resourceVersions); Slurm: sacct has exactly one job per pod (none
submitted twice), every one COMPLETED, and squeue is empty. Sampled every
--every s: slurmlinkd's RSS and open fds (before, the most during, after
the deletions). Prints the figures and each failed check; exit 1 if any.

usage: bench/soak.py --dir D [--pods 10000] [--threads 8] [--sleep 0.5] [--timeout 7200]
                     [--json FILE]
"""
import argparse, json, os, subprocess, sys, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kapi import Cluster, req, pod  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--dir", required=True)
ap.add_argument("--pods", type=int, default=10000)
ap.add_argument("--threads", type=int, default=8)
ap.add_argument("--sleep", type=float, default=0.5)
ap.add_argument("--every", type=float, default=2)
ap.add_argument("--timeout", type=float, default=7200)
ap.add_argument("--json", default="")
args = ap.parse_args()
CL = Cluster(args.dir)
NS = f"soak-{os.getpid()}"
ORDER = {"Pending": 0, "Running": 1, "Succeeded": 2, "Failed": 2}
FAILS = []


def fail(msg):
    FAILS.append(msg)
    print(f"FAIL: {msg}", flush=True)


class Watcher:
    """what one watch stream saw: per pod the (type, rv, phase) in order,
    the last object state, and the relists it had to make"""
    def __init__(self, name):
        self.name, self.seen, self.state = name, {}, {}
        self.relists, self.lock, self.ready = 0, threading.Lock(), threading.Event()
        self.deleted = set()

    def event(self, typ, o):
        md = o["metadata"]
        n, rv, ph = md["name"], md["resourceVersion"], o.get("status", {}).get("phase", "")
        with self.lock:
            self.seen.setdefault(n, []).append((typ, rv, ph))
            if typ == "DELETED":
                self.state.pop(n, None)
                self.deleted.add(n)
            else:
                self.state[n] = (rv, ph)

    def relist(self, items):
        with self.lock:
            self.relists += 1
            self.seen = {n: v + [("RELIST", "", "")] for n, v in self.seen.items()}
            names = {o["metadata"]["name"] for o in items}
            for n in list(self.state):
                if n not in names:  # gone while unseen
                    self.state.pop(n)
                    self.deleted.add(n)
        for o in items:
            self.event("ADDED", o)


def kubectl_watch(w, stop):
    """kubectl get pods -w: a list then a watch, one JSON document per event"""
    argv = ["kubectl", "--kubeconfig", f"{CL.dir}/kubeconfig", "--cache-dir", f"{CL.dir}/kcache",
            "get", "pods", "-n", NS, "-w", "--output-watch-events", "-o", "json"]
    while not stop.is_set():
        p = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        dec, buf = json.JSONDecoder(), ""
        w.ready.set()
        for line in p.stdout:  # one event per line (compact), or pretty over several
            buf += line
            try:
                ev, _ = dec.raw_decode(buf.strip())
            except ValueError:
                continue
            buf = ""
            w.event(ev["type"], ev["object"])
            if stop.is_set():
                break
        p.kill()
        p.wait()
        if not stop.is_set():  # kubectl ended: again, from a new list
            w.relist([])


def python_watch(w, stop):
    """the Python client's watch.Watch, 60 s streams one after another from
    the last resourceVersion seen; 410 Gone: a relist, a watch from its rv"""
    from kubernetes import client, config, watch
    config.load_kube_config(config_file=f"{CL.dir}/kubeconfig")
    v1 = client.CoreV1Api()
    rv = v1.list_namespaced_pod(NS).metadata.resource_version
    w.ready.set()
    while not stop.is_set():
        try:
            wt = watch.Watch()
            for ev in wt.stream(v1.list_namespaced_pod, NS, resource_version=rv, timeout_seconds=60):
                w.event(ev["type"], ev["raw_object"])
                rv = ev["raw_object"]["metadata"]["resourceVersion"]
                if stop.is_set():
                    wt.stop()
        except client.exceptions.ApiException as e:
            if e.status != 410:
                raise
            lst = json.loads(v1.list_namespaced_pod(NS, _preload_content=False).data)
            w.relist(lst["items"])
            rv = lst["metadata"]["resourceVersion"]


def http_watch(w, stop):
    """a plain HTTP watch with bookmarks, resumed from the last rv when the
    server ends it; an ERROR 410: a relist, a watch from its rv"""
    c = CL.conn()
    rv = req(c, "GET", f"/api/v1/namespaces/{NS}/pods")[1]["metadata"]["resourceVersion"]
    w.ready.set()
    while not stop.is_set():
        c = CL.conn(3600)
        c.request("GET", f"/api/v1/namespaces/{NS}/pods?watch=true&allowWatchBookmarks=true"
                  f"&resourceVersion={rv}", headers={"Accept": "application/json"})
        r = c.getresponse()
        gone = False
        for line in r:
            ev = json.loads(line)
            if ev["type"] == "ERROR":
                if ev["object"].get("code") != 410:
                    raise RuntimeError(ev)
                gone = True
                break
            rv = ev["object"]["metadata"]["resourceVersion"]
            if ev["type"] != "BOOKMARK":
                w.event(ev["type"], ev["object"])
            if stop.is_set():
                break
        c.close()
        if gone:
            lst = req(CL.conn(), "GET", f"/api/v1/namespaces/{NS}/pods")[1]
            w.relist(lst["items"])
            rv = lst["metadata"]["resourceVersion"]


def sample(pid):
    """(RSS in KiB, open fds) of process pid"""
    rss = 0
    for line in open(f"/proc/{pid}/status"):
        if line.startswith("VmRSS:"):
            rss = int(line.split()[1])
    return rss, len(os.listdir(f"/proc/{pid}/fd"))


class Sampler(threading.Thread):
    def __init__(self, pid):
        super().__init__(daemon=True)
        self.pid, self.samples, self.stop = pid, [], threading.Event()

    def run(self):
        while not self.stop.wait(args.every):
            self.samples.append((time.time(),) + sample(self.pid))


def names(c):
    """the namespace's pods: name -> (rv, phase), and the list's rv"""
    _, lst = req(c, "GET", f"/api/v1/namespaces/{NS}/pods")
    return ({o["metadata"]["name"]: (o["metadata"]["resourceVersion"], o.get("status", {}).get("phase"))
             for o in lst["items"]}, lst["metadata"]["resourceVersion"])


def create_all():
    bad = []

    def client_thread(k):
        c = CL.conn()
        for i in range(k, args.pods, args.threads):
            st, _ = req(c, "POST", f"/api/v1/namespaces/{NS}/pods", pod(f"s{i}", f"sleep {args.sleep}", cpu="100m"))
            if st != 201:
                bad.append((i, st))

    ths = [threading.Thread(target=client_thread, args=(k,)) for k in range(args.threads)]
    for t in ths:
        t.start()
    for t in ths:
        t.join()
    if bad:
        fail(f"{len(bad)} POSTs not 201, e.g. {bad[:3]}")


def wait_until(cond, what, timeout=None):
    end = time.time() + (timeout or args.timeout)
    while time.time() < end:
        if cond():
            return True
        time.sleep(2)
    fail(f"timed out waiting for {what}")
    return False


def check_watcher(w, final):
    """the checks of one watcher against the final list"""
    with w.lock:
        seen = dict(w.seen)
    backwards = [n for n, evs in seen.items()
                 if any(ORDER.get(a[2], -1) > ORDER.get(b[2], -1) for a, b in zip(evs, evs[1:])
                        if "RELIST" not in (a[0], b[0]) and b[0] != "DELETED")]
    if backwards:
        fail(f"{w.name}: {len(backwards)} pods' phases went back ({' '.join(sorted(backwards))}), "
             f"e.g. {backwards[0]}: {seen[backwards[0]]}")
    ends = [n for n, evs in seen.items() if [e for e in evs if e[0] != "RELIST"][-1][0] != "DELETED"
            or [e for e in evs if e[0] not in ("RELIST", "DELETED")][-1][2] != "Succeeded"]
    if ends or len(seen) != args.pods:
        fail(f"{w.name}: {len(seen)} pods seen; {len(ends)} not ending Succeeded then DELETED")
    return seen


def compare(watchers):
    """without relists, each pod's changes (resourceVersions) alike in all"""
    clean = [w for w in watchers if not w.relists]
    if len(clean) < 2:
        return 0
    ref = {n: [e[1] for e in evs] for n, evs in clean[0].seen.items()}
    diff = 0
    for w in clean[1:]:
        for n, evs in w.seen.items():
            if [e[1] for e in evs] != ref.get(n):
                diff += 1
    if diff:
        fail(f"{diff} pods' changes differ between the watchers without a relist")
    return diff


def delete_all():
    def client_thread(k):
        c = CL.conn()
        for i in range(k, args.pods, args.threads):
            st, _ = req(c, "DELETE", f"/api/v1/namespaces/{NS}/pods/s{i}")
            if st not in (200, 202):
                fail(f"DELETE s{i}: {st}")

    ths = [threading.Thread(target=client_thread, args=(k,)) for k in range(args.threads)]
    for t in ths:
        t.start()
    for t in ths:
        t.join()


def slurm_checks(since):
    """one COMPLETED job per pod in sacct (none submitted twice); squeue empty"""
    jobs = {}

    def count():
        out = CL.sh("sacct", "-a", "-X", "-n", "-P", "-S", since, "-o", "JobID,JobName,State").stdout
        jobs.clear()
        for line in out.splitlines():
            jid, name, state = line.split("|")[:3]
            if name.startswith(NS + "/"):
                jobs.setdefault(name, []).append((jid, state))
        return len(jobs) >= args.pods and all(st == "COMPLETED" for v in jobs.values() for _, st in v)

    wait_until(count, "sacct to show every job COMPLETED")
    twice = [n for n, v in jobs.items() if len(v) > 1]
    if len(jobs) != args.pods or twice:
        fail(f"sacct: {len(jobs)} pods' jobs of {args.pods}; {len(twice)} submitted more than once")
    left = [line for line in CL.sh("squeue", "-h", "-o", "%j").stdout.split() if line.startswith(NS + "/")]
    if left:
        fail(f"squeue still has {len(left)} of the soak's jobs")
    return sum(len(v) for v in jobs.values()), len(twice)


def fmt(smp):
    return f"RSS {smp[0] / 1024:.1f} MiB, {smp[1]} fds"


def main():
    pid = CL.daemon_pid()
    load = " ".join(open("/proc/loadavg").read().split()[:3])
    since = time.strftime("%Y-%m-%dT%H:%M:%S")
    print(f"# cluster {CL.dir}, slurmlinkd pid {pid}, {os.cpu_count()} cores, load {load}; "
          f"{args.pods} pods (sleep {args.sleep} s) by {args.threads} threads, namespace {NS}", flush=True)
    c = CL.conn()
    CL.namespace(c, NS)
    bare = sample(pid)
    stop = threading.Event()
    ws = [Watcher("kubectl -w"), Watcher("python watch"), Watcher("http watch")]
    for w, fn in zip(ws, (kubectl_watch, python_watch, http_watch)):
        threading.Thread(target=fn, args=(w, stop), daemon=True).start()
        w.ready.wait(120)
    time.sleep(2)  # kubectl's list and watch requests under way (ready is set before)
    before = sample(pid)
    sm = Sampler(pid)
    sm.start()
    t0 = time.time()
    create_all()
    t_post = time.time() - t0
    print(f"  {args.pods} POSTs answered in {t_post:.1f} s ({args.pods / t_post:.0f}/s)", flush=True)
    final = {}

    def all_done():
        nonlocal final
        final, _ = names(CL.conn())
        failed = [n for n, v in final.items() if v[1] == "Failed"]
        if failed:
            fail(f"{len(failed)} pods Failed, e.g. {failed[0]}")
            raise SystemExit(1)
        return len(final) == args.pods and all(v[1] == "Succeeded" for v in final.values())

    last = [time.time()]

    def progress():
        done = all_done()
        if time.time() - last[0] >= 60:
            last[0] = time.time()
            n = sum(v[1] == "Succeeded" for v in final.values())
            print(f"  ({time.time() - t0:.0f} s: {n} Succeeded, {sample(pid)[0] / 1024:.1f} MiB)", flush=True)
        return done

    def holds_list(w):
        nonlocal final
        final, _ = names(CL.conn())
        with w.lock:
            return dict(w.state) == final

    wait_until(progress, "every pod Succeeded")
    t_done = time.time() - t0
    print(f"  all {args.pods} Succeeded {t_done:.1f} s after the first POST", flush=True)
    # a pod may still be written after it Succeeded (its job's end as
    # Slurm reports it): each watcher must come to hold the list as it is
    # now, so the list is read again at every look
    done_at = dict(final)
    for w in ws:
        if not wait_until(lambda w=w: holds_list(w), f"{w.name} to hold the final list", 300):
            with w.lock:
                odd = [(n, w.state.get(n), v) for n, v in final.items() if w.state.get(n) != v]
            print(f"  {w.name}: {len(w.state)} pods held, {len(odd)} unlike the list "
                  f"(watcher's, list's), e.g. {odd[:2]}")
    later = sum(final.get(n) != v for n, v in done_at.items())
    print(f"  {later} pods written again after all had Succeeded", flush=True)
    during = (max(s[1] for s in sm.samples), max(s[2] for s in sm.samples)) if sm.samples else before
    t1 = time.time()
    delete_all()
    wait_until(lambda: not names(CL.conn())[0], "the pods to be gone")
    for w in ws:
        wait_until(lambda w=w: len(w.deleted) >= args.pods and not w.state, f"{w.name} to see every DELETED", 300)
    t_del = time.time() - t1
    print(f"  all deleted {t_del:.1f} s after the first DELETE", flush=True)
    after = sample(pid)
    stop.set()
    sm.stop.set()
    for w in ws:
        check_watcher(w, final)
    diff = compare(ws)
    nchanges = {w.name: sum(len(v) for v in w.seen.values()) for w in ws}
    njobs, twice = slurm_checks(since)
    req(CL.conn(), "DELETE", f"/api/v1/namespaces/{NS}")
    wait_until(lambda: sample(pid)[1] <= bare[1], "the fds to be back to the bare count", 120)
    end = sample(pid)
    print(f"  slurmlinkd: bare {fmt(bare)}; watchers attached {fmt(before)}; the most during (each "
          f"alone) {fmt(during)}; "
          f"after the deletions {fmt(after)}; watchers gone {fmt(end)}")
    print(f"  watchers: changes seen {nchanges}, relists {[w.relists for w in ws]}, "
          f"pods whose changes differ {diff}")
    print(f"  Slurm: {njobs} jobs in sacct for {args.pods} pods, {twice} pods with more than one")
    print("OK: every check held" if not FAILS else f"{len(FAILS)} checks failed", flush=True)
    if args.json:
        json.dump({"pods": args.pods, "post_s": t_post, "succeeded_s": t_done, "deleted_s": t_del,
                   "bare": bare, "before": before, "during": during, "after": after, "end": end,
                   "changes": nchanges, "relists": [w.relists for w in ws], "jobs": njobs,
                   "samples": sm.samples, "fails": FAILS}, open(args.json, "w"), indent=1)
    sys.exit(1 if FAILS else 0)


main()
