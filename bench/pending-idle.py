#!/usr/bin/python3
"""pending-idle.py — what a queue of pending pods costs while nothing else
happens (docs/benchmarks.md): slurmlinkd's and slurmctld's CPU per second,
and the job poll's views (slurmlink_job_views_total).

On a running local cluster (slurmlink up --dir D), its nodes drained (the
pods are submitted and stay Pending), for each daemon of --daemons
(slurmlinkd restarted with `slurmlink up --daemon`): --pods pods POSTed by
--threads client threads, then, once every pod has its job id and
--settle seconds have passed, the CPU both daemons take over --seconds.
While any pod's job pends slurmlinkd reads slurmctld's whole job list at
least every 2 s. The namespace is deleted, and its jobs gone, before the
next daemon.

usage: bench/pending-idle.py --dir D [--pods 10000] [--threads 8]
                             [--settle 10] [--seconds 30]
                             [--daemons NAME=PATH,...] [--slurmlink PATH]
Nothing here is asserted.
"""
import argparse, os, signal, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kapi  # noqa: E402

# a TERM runs the `finally` that gives the nodes back
signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

ap = argparse.ArgumentParser()
ap.add_argument("--dir", required=True)
ap.add_argument("--pods", type=int, default=10000)
ap.add_argument("--threads", type=int, default=8)
ap.add_argument("--settle", type=float, default=10)
ap.add_argument("--seconds", type=float, default=30)
ap.add_argument("--daemons", default="")
ap.add_argument("--slurmlink", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "../build/slurmlink"))
args = ap.parse_args()
K = kapi.Cluster(args.dir)
DAEMONS = [d.split("=", 1) for d in args.daemons.split(",") if d] or [("running", None)]


def ctld_cpu():
    pid = K.sh("pgrep", "-o", "-f", f"slurmctld .*{K.dir}/etc/slurm.conf").stdout.strip()
    try:
        f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError):
        return 0.0


def views():
    """slurmlink_job_views_total by result (absent: an older daemon)"""
    c = K.conn()
    c.request("GET", "/metrics")
    text = c.getresponse().read().decode()
    out = {}
    for line in text.splitlines():
        for r in ("applied", "unchanged"):
            if line.startswith(f'slurmlink_job_views_total{{result="{r}"}} '):
                out[r] = float(line.split()[1])
    return out


def create(ns):
    kapi.create_pods(K, ns, args.pods, args.threads)


def with_job_ids(ns):
    st, b = kapi.req(K.conn(), "GET", f"/api/v1/namespaces/{ns}/pods")
    return sum(1 for p in b.get("items", []) if (p["metadata"].get("annotations") or {}).get("slurmlink.io/job-id"))


def run(name):
    ns = f"pi-{name}-{os.getpid()}"
    K.namespace(K.conn(), ns)
    if kapi.req(K.conn(), "GET", f"/api/v1/namespaces/{ns}")[0] != 200:
        raise SystemExit(f"namespace {ns} was not created")
    create(ns)
    t0 = time.time()
    while with_job_ids(ns) < args.pods:
        if time.time() - t0 > 600:
            raise SystemExit(f"{ns}: not every pod has a job id after 600 s")
        time.sleep(1)
    time.sleep(args.settle)
    v0, d0, c0, w0 = views(), kapi.cpu_of(f"{K.dir}/run/slurmlinkd.pid"), ctld_cpu(), time.time()
    time.sleep(args.seconds)
    v1, d1, c1, w1 = views(), kapi.cpu_of(f"{K.dir}/run/slurmlinkd.pid"), ctld_cpu(), time.time()
    K.delete_namespace(ns)
    while K.sh("squeue", "-h", "-o", "%i").stdout.strip():
        time.sleep(0.5)
    per = {r: (v1.get(r, 0) - v0.get(r, 0)) / (w1 - w0) for r in ("applied", "unchanged")} if v0 else None
    return (d1 - d0) / (w1 - w0), (c1 - c0) / (w1 - w0), per


def main():
    print(f"# cluster {K.dir}, {os.cpu_count()} cores, load {' '.join(open('/proc/loadavg').read().split()[:3])}, "
          f"{args.pods} pending pods, {args.settle:.0f} s settle, {args.seconds:.0f} s measured", flush=True)
    K.hold_nodes(True, "pending-idle")
    try:
        for name, path in DAEMONS:
            if path:
                K.restart_daemon(path, args.slurmlink)
            d, c, per = run(name)
            v = (f"views/s applied {per['applied']:.0f} unchanged {per['unchanged']:.0f}" if per
                 else "views: not counted by this daemon")
            print(f"  {name:12} CPU s per s: slurmlinkd {d:.3f} slurmctld {c:.3f}   {v}", flush=True)
    finally:
        K.hold_nodes(False, "pending-idle")


main()
