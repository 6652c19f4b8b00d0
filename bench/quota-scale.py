#!/usr/bin/python3
"""quota-scale.py — what a ResourceQuota costs a namespace's pod creates as
the namespace grows (docs/benchmarks.md).

On a running local cluster (slurmlink up --dir D), with the partition DOWN
(the pods are submitted and stay Pending, so every one keeps counting), for
each daemon of --daemons (slurmlinkd restarted with `slurmlink up --daemon`)
and in turn for a namespace without a quota and one with a quota (pods and
requests.cpu, far above what the run asks): --pods pods POSTed by --threads
client threads, in steps of --step; for each step the creates per second
and slurmlinkd's CPU per create (ms, user + system). The namespace is deleted,
and its jobs gone, before the next. The ratios compare the last daemon's
last step with each other's.

With --neighbour N, another namespace with a quota holds N pods (Pending,
all counted) for each daemon's runs: what a tenant's large queue under a
quota costs the creates of other namespaces (the API's janitor recounts a
namespace's pods for its quota's status.used).

usage: bench/quota-scale.py --dir D [--pods 4000] [--step 500] [--threads 8]
                            [--neighbour N] [--daemons NAME=PATH,...]
                            [--slurmlink PATH]
Nothing here is asserted.
"""
import argparse, os, signal, sys, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kapi  # noqa: E402

# a TERM runs the `finally` that gives the partition or the nodes back
signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

ap = argparse.ArgumentParser()
ap.add_argument("--dir", required=True)
ap.add_argument("--pods", type=int, default=4000)
ap.add_argument("--step", type=int, default=500)
ap.add_argument("--threads", type=int, default=8)
ap.add_argument("--neighbour", type=int, default=0)
ap.add_argument("--daemons", default="")
ap.add_argument("--slurmlink", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "../build/slurmlink"))
args = ap.parse_args()
K = kapi.Cluster(args.dir)
DAEMONS = [d.split("=", 1) for d in args.daemons.split(",") if d] or [("running", None)]
QUOTA = {"apiVersion": "v1", "kind": "ResourceQuota", "metadata": {"name": "q"},
         "spec": {"hard": {"pods": "1000000", "requests.cpu": "100000"}}}


def cpu_s():
    return kapi.cpu_of(f"{K.dir}/run/slurmlinkd.pid")


def post_step(ns, first, n):
    def client(k):
        c = K.conn()
        for i in range(first + k, first + n, args.threads):
            st, b = kapi.req(c, "POST", f"/api/v1/namespaces/{ns}/pods", kapi.pod(f"p{i}", "true", cpu="100m"))
            if st != 201:
                raise SystemExit(f"pod p{i}: HTTP {st}: {b}")
    ths = [threading.Thread(target=client, args=(k,)) for k in range(args.threads)]
    c0, t0 = cpu_s(), time.time()
    for t in ths:
        t.start()
    for t in ths:
        t.join()
    took = time.time() - t0
    return n / took, (cpu_s() - c0) * 1000.0 / n


def make_ns(ns, quota):
    c = K.conn()
    K.namespace(c, ns)
    if quota:
        st, b = kapi.req(c, "POST", f"/api/v1/namespaces/{ns}/resourcequotas", QUOTA)
        if st != 201:
            raise SystemExit(f"quota: HTTP {st}: {b}")


def drop_ns(ns, keep_jobs=False):
    K.delete_namespace(ns)
    while not keep_jobs and K.sh("squeue", "-h", "-o", "%i").stdout.strip():
        time.sleep(0.5)


def run(ns, quota):
    make_ns(ns, quota)
    steps = [post_step(ns, base, min(args.step, args.pods - base)) for base in range(0, args.pods, args.step)]
    drop_ns(ns, keep_jobs=args.neighbour > 0)
    return steps


def main():
    part = K.sh("sinfo", "-h", "-o", "%R").stdout.split()[0]
    K.sh("scontrol", "update", f"PartitionName={part}", "State=DOWN", check=True)
    print(f"# cluster {K.dir}, {os.cpu_count()} cores, load {' '.join(open('/proc/loadavg').read().split()[:3])}, "
          f"{args.pods} pods in steps of {args.step}, {args.threads} client threads"
          + (f", a neighbour namespace with a quota and {args.neighbour} pods" if args.neighbour else ""),
          flush=True)
    res = {}
    try:
        for name, path in DAEMONS:
            if path:
                K.restart_daemon(path, args.slurmlink)
            big = f"qs-{name}-big-{os.getpid()}"
            if args.neighbour:
                make_ns(big, True)
                for base in range(0, args.neighbour, 1000):
                    post_step(big, base, min(1000, args.neighbour - base))
            for quota in (False, True):
                label = f"{name}, {'quota' if quota else 'no quota'}"
                steps = run(f"qs-{name}-{'q' if quota else 'n'}-{os.getpid()}", quota)
                res[label] = steps
                print(f"  {label:24} creates/s per step: " + " ".join(f"{r:.0f}" for r, _ in steps), flush=True)
                print(f"  {'':24} slurmlinkd ms/create:  " + " ".join(f"{m:.2f}" for _, m in steps), flush=True)
            if args.neighbour:
                drop_ns(big)
    finally:
        K.sh("scontrol", "update", f"PartitionName={part}", "State=UP")
    last = list(res)[-1]
    print(f"\nlast step ({args.pods - args.step}..{args.pods} pods in the namespace): rate, and "
          f"{last} over it")
    for label, steps in res.items():
        print(f"  {label:24} {steps[-1][0]:8.0f}/s   ratio {res[last][-1][0] / steps[-1][0]:6.2f}")


main()
