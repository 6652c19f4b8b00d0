#!/usr/bin/python3
"""pending-hold.py — what one poll's writes of many pending jobs' views
cost the store's writer (docs/benchmarks.md run 13): the writer lock's
held time, commits and drafts per view written, and the controller
thread's CPU per view.

On a running local cluster (slurmlink up --dir D), its nodes drained, for
each daemon of --daemons (slurmlinkd restarted with `slurmlink up
--daemon`): --pods pods are POSTed and wait, each with its job id and its
job's pending reason; then every job is held at once (`scontrol hold`), so
the next job poll writes each pod's new reason (JobHeldAdmin) as one burst
of pending views, and the figures are read before and after that burst.
The namespace is deleted, and its jobs gone, before the next daemon.
Nothing else writes meanwhile, so the writer's figures are the views'.

usage: bench/pending-hold.py --dir D [--pods 2000] [--threads 8]
                             [--daemons NAME=PATH,...] [--slurmlink PATH]
Nothing here is asserted.
"""
import argparse, os, signal, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kapi  # noqa: E402

signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

ap = argparse.ArgumentParser()
ap.add_argument("--dir", required=True)
ap.add_argument("--pods", type=int, default=2000)
ap.add_argument("--threads", type=int, default=8)
ap.add_argument("--daemons", default="")
ap.add_argument("--slurmlink", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "../build/slurmlink"))
args = ap.parse_args()
K = kapi.Cluster(args.dir)
DAEMONS = [d.split("=", 1) for d in args.daemons.split(",") if d] or [("running", None)]
WANT = {
    'slurmlink_store_lock_held_seconds_total{lock="writer"}': "held",
    'slurmlink_store_lock_acquisitions_total{lock="writer"}': "takes",
    "slurmlink_store_commits_total": "commits",
    'slurmlink_store_drafts_total{outcome="written"}': "drafted",
    'slurmlink_store_drafts_total{outcome="redone"}': "redone",
    'slurmlink_job_views_total{result="applied"}': "views",
}


def metrics():
    c = K.conn()
    c.request("GET", "/metrics")
    out = {}
    for line in c.getresponse().read().decode().splitlines():
        k, _, v = line.rpartition(" ")
        if k in WANT:
            out[WANT[k]] = float(v)
    pid = K.daemon_pid()
    out["ctl_cpu"] = kapi.thread_cpu(pid).get("sl-ctl", 0.0) if pid else 0.0
    return out


def create(ns):
    kapi.create_pods(K, ns, args.pods, args.threads)


def messages(ns):
    """[(job id, PodScheduled message)] of the namespace's pods"""
    st, b = kapi.req(K.conn(), "GET", f"/api/v1/namespaces/{ns}/pods")
    out = []
    for p in b.get("items", []):
        job = (p["metadata"].get("annotations") or {}).get("slurmlink.io/job-id", "")
        msg = ""
        for cnd in (p.get("status") or {}).get("conditions") or []:
            if cnd.get("type") == "PodScheduled":
                msg = cnd.get("message", "")
        out.append((job, msg))
    return out


def wait_for(what, cond, limit=600):
    t0 = time.time()
    while not cond():
        if time.time() - t0 > limit:
            raise SystemExit(f"not reached after {limit} s: {what}")
        time.sleep(0.5)


def run(name):
    ns = f"ph-{name}-{os.getpid()}"
    K.namespace(K.conn(), ns)
    create(ns)
    # each pod pends with a reason past the first (None), and one poll has
    # compared them all since (nothing more to write)
    wait_for("every pod's job pends with its reason",
             lambda: sum(1 for j, m in messages(ns) if j and m.startswith("Slurm job ") and not m.endswith(": None")) == args.pods)
    time.sleep(5)
    jobs = [j for j, _ in messages(ns)]
    a = metrics()
    for k in range(0, len(jobs), 500):
        K.sh("scontrol", "hold", ",".join(jobs[k:k + 500]), check=True)
    wait_for("every pod says JobHeldAdmin",
             lambda: sum(1 for _, m in messages(ns) if m.endswith(": JobHeldAdmin")) == args.pods)
    b = metrics()
    K.delete_namespace(ns)
    while K.sh("squeue", "-h", "-o", "%i").stdout.strip():
        time.sleep(0.5)
    return {k: b.get(k, 0) - a.get(k, 0) for k in b}


def main():
    print(f"# cluster {K.dir}, {os.cpu_count()} cores, load {' '.join(open('/proc/loadavg').read().split()[:3])}, "
          f"{args.pods} pending pods, all held at once", flush=True)
    K.hold_nodes(True, "pending-hold")
    try:
        for name, path in DAEMONS:
            if path:
                K.restart_daemon(path, args.slurmlink)
            d = run(name)
            v = d.get("views", 0) or 1
            print(f"  {name:10} views {d.get('views', 0):.0f}: writer held {1e6 * d['held'] / v:.1f} us a view "
                  f"({d['held']:.3f} s), taken {d['takes'] / v:.2f}, commits {d['commits'] / v:.3f}, "
                  f"drafts {d.get('drafted', 0) / v:.2f} (+{d.get('redone', 0):.0f} redone); "
                  f"controller CPU {1e6 * d['ctl_cpu'] / v:.0f} us a view", flush=True)
    finally:
        K.hold_nodes(False, "pending-hold")


main()
