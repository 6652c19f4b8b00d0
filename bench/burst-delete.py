#!/usr/bin/env python3
"""burst-delete.py — a burst of pods, then their namespace deleted at once:
what the controller does when more changes come than it reads.

In a `slurmlink up` folder D, per round and per daemon: N pods created in a
fresh namespace by 8 client threads (each a POST; the default grace period
of 30 s; the nodes drained, so the jobs wait), until slurmlinkd has submitted them all
(slurmlink_pod_submissions_total); then the namespace deleted, until the
API says it is gone, and until the namespace's pod folders are gone too
(at most --settle seconds more). Printed: the submission rate, the deletion
times, the pod folders left behind, Slurm jobs of the namespace still
active, and how often the pod controller fell behind the change log
(its log's "fell behind the change log" lines during the round).

usage: bench/burst-delete.py --dir D [--pods 3000] [--repeat 2] [--settle 30]
                             [--daemons NAME=PATH,...] [--slurmlink PATH]
With --daemons each round runs each binary in turn (`slurmlink up --dir D
--daemon PATH` before it), e.g. the code before and after a change.

Nothing here is asserted.
"""
import argparse, os, signal, sys, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kapi  # noqa: E402

signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

ap = argparse.ArgumentParser()
ap.add_argument("--dir", required=True)
ap.add_argument("--pods", type=int, default=3000)
ap.add_argument("--repeat", type=int, default=2)
ap.add_argument("--settle", type=float, default=30.0)
ap.add_argument("--threads", type=int, default=8)
ap.add_argument("--daemons", default="")
ap.add_argument("--slurmlink", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "../build/slurmlink"))
args = ap.parse_args()
K = kapi.Cluster(args.dir)
D = K.dir
LOG = f"{D}/log/slurmlinkd.log"
DAEMONS = [d.split("=", 1) for d in args.daemons.split(",") if d] or [("running", None)]


def submissions():
    c = K.conn()
    c.request("GET", "/metrics")
    for line in c.getresponse().read().decode().split("\n"):
        if line.startswith("slurmlink_pod_submissions_total "):
            return float(line.split()[1])
    return 0.0


def behind_lines():
    try:
        return sum("fell behind the change log" in ln for ln in open(LOG, errors="replace"))
    except OSError:
        return 0


def folders(ns):
    try:
        return len(os.listdir(f"{D}/pods/{ns}"))
    except FileNotFoundError:
        return 0


def active_jobs(ns):
    out = K.sh("squeue", "-h", "-o", "%j %T").stdout.split("\n")
    return sum(1 for ln in out if ln.startswith(f"{ns}/"))


def one(n, rnd, name):
    ns = f"bd-{n}-{rnd}-{name}-{os.getpid()}"
    c = K.conn()
    K.namespace(c, ns)
    s0, b0 = submissions(), behind_lines()
    bad = []

    def client(k):
        cc = K.conn()
        for i in range(k, n, args.threads):
            body = kapi.pod(f"p{i}", "sleep 60", cpu="100m")
            del body["spec"]["terminationGracePeriodSeconds"]  # a user's pod: 30 s
            st, _ = kapi.req(cc, "POST", f"/api/v1/namespaces/{ns}/pods", body)
            if st != 201:
                bad.append(st)

    t0 = time.time()
    ths = [threading.Thread(target=client, args=(k,)) for k in range(args.threads)]
    for t in ths:
        t.start()
    for t in ths:
        t.join()
    while submissions() - s0 < n - len(bad) and time.time() - t0 < 600:
        time.sleep(0.2)
    t_sub = time.time() - t0
    t1 = time.time()
    K.delete_namespace(ns)
    t_gone = time.time() - t1
    while folders(ns) and time.time() - t1 < t_gone + args.settle:
        time.sleep(0.2)
    t_dirs = time.time() - t1
    return {"rate": n / t_sub, "gone_s": t_gone, "dirs_s": t_dirs, "left": folders(ns),
            "active": active_jobs(ns), "behind": behind_lines() - b0, "errors": len(bad)}


def main():
    print(f"# cluster {D}, {os.cpu_count()} cores, {args.pods} pods a round, {args.repeat} rounds", flush=True)
    K.hold_nodes(True, "burst-delete")
    try:
        for rnd in range(args.repeat):
            for name, path in DAEMONS:
                if path:
                    K.restart_daemon(path, args.slurmlink)
                r = one(args.pods, rnd, name)
                print(f"  round {rnd} {name:10s} submitted {r['rate']:6.0f}/s errors {r['errors']}; "
                      f"namespace gone after {r['gone_s']:6.2f} s, its folders after {r['dirs_s']:6.2f} s; "
                      f"folders left {r['left']}, jobs active {r['active']}, fell behind {r['behind']}",
                      flush=True)
    finally:
        K.hold_nodes(False, "burst-delete")


main()
