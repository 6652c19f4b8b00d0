#!/usr/bin/python3
"""start-order.py — in what order Slurm starts pods against sbatch jobs
(docs/benchmarks-history.md, "Start order").

On a running local cluster (e.g. `slurmlink up --dir D --nodes 4 --cpus 8`:
32 CPUs), in one run, each path after the cluster's queue is empty:
  pods    N pods of 1 CPU sleeping --sleep seconds, POSTed one after
          another through slurmlinkd's API (creation order = index); their
          container is busybox through the default runtime
  hostpods  the same pods on the host runtime (slurmlink.io/runtime: host):
          the very command sbatch runs, so what differs from sbatch is
          slurmlink's path alone, not a container's start
  sbatch  N `sbatch -c1 --mem 32M --wrap 'sleep S'`, one after another
  mixed   N alternating: pod, sbatch job, pod, ... in one sequence
For each: the order slurmctld started them in against the order they were
created (inversions: pairs where the later-created one started in an
earlier second; ties: pairs started in the same second; Kendall's tau-b),
how many were submitted to Slurm out of creation order (pairs whose job
ids, numbered by slurmctld as it accepts jobs, are in the other order), the time from the first creation to the last start, and the p50/p90
of each job's wait (its start minus its creation). For mixed, the pairs of a
pod and an sbatch job one of which overtook the other, both ways: the FIFO
fairness between the two kinds of user. And the machine's CPU a job: every
process's, from the path's first creation to its empty queue (/proc/stat),
so what a pod's job costs the machine against an sbatch job's (the client
included: this script's requests, or the sbatch processes).

Start times are slurmctld's: its log's "sched: Allocate JobId=" lines
(milliseconds), else squeue -t all %S (whole seconds; finished jobs stay
listed for MinJobAge, 300 s).
Nothing here is asserted.

usage: bench/start-order.py --dir D [--pods 500] [--sleep 3]
                            [--only pods,hostpods,sbatch,mixed]
                            [--json FILE]
"""
import argparse, datetime, json, os, re, sys, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from kapi import Cluster, req, pod, inversions, kendall_tau_b, pct, busy_s  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--dir", required=True)
ap.add_argument("--pods", type=int, default=500)
ap.add_argument("--sleep", type=float, default=3)
ap.add_argument("--only", default="pods,hostpods,sbatch,mixed")
ap.add_argument("--json", default="")
args = ap.parse_args()
CL = Cluster(args.dir)


def wait_queue_empty():
    while CL.sh("squeue", "-h", "-o", "%i").stdout.strip():
        time.sleep(0.5)


def ts(s):
    return datetime.datetime.fromisoformat(s).timestamp() if s and s[0].isdigit() else None


ALLOC = re.compile(r"^\[([0-9T:.-]+)\] (?:sched: Allocate|sched/backfill: \S+ Started|backfill: Started) "
                   r"JobId=(\d+)")
DONE = re.compile(r"^\[([0-9T:.-]+)\] _job_complete: JobId=(\d+) done")


def log_starts(pattern=None):
    """job id -> when slurmctld allocated it (its log's millisecond stamps);
    with pattern (DONE), when it logged the job done"""
    res = {}
    with open(f"{CL.dir}/log/slurmctld.log", errors="replace") as f:
        for line in f:
            m = (pattern or ALLOC).match(line)
            if m:
                res[m.group(2)] = ts(m.group(1))
    return res


def slurm_times(ids):
    """job id -> (submit, start) as slurmctld recorded them (None: not yet);
    the start from its log when there, else squeue's whole second"""
    out = CL.sh("squeue", "-h", "-t", "all", "-j", ",".join(ids), "-o", "%i|%V|%S|%T").stdout
    res = {}
    for line in out.splitlines():
        jid, sub, start, state = line.split("|")
        res[jid] = (ts(sub), ts(start) if state not in ("PENDING", "CONFIGURING") else None)
    if all(v[1] for v in res.values()) and len(res) == len(ids):
        logged = log_starts()
        res = {j: (v[0], logged.get(j, v[1])) for j, v in res.items()}
    return res


class Creator:
    """creates pods (in namespace ns) and sbatch jobs, recording each one's
    creation time and, once known, its Slurm job id"""
    def __init__(self, ns):
        self.ns, self.c = ns, CL.conn()
        CL.namespace(self.c, ns)
        self.items = []  # [kind, name, created, job id]

    def pod(self, i, host=False):
        body = pod(f"p{i}", f"sleep {args.sleep}")
        if host:
            body["metadata"]["annotations"] = {"slurmlink.io/runtime": "host"}
        t = time.time()
        st, _ = req(self.c, "POST", f"/api/v1/namespaces/{self.ns}/pods", body)
        if st != 201:
            raise SystemExit(f"POST pod p{i}: {st}")
        self.items.append(["pod", f"p{i}", t, None])

    def sbatch(self, i):
        t = time.time()
        r = CL.sh("sbatch", "--parsable", "-J", f"so{i}", "-c1", "--mem", "32M", "-o", "/dev/null",
                  "--wrap", f"sleep {args.sleep}")
        if r.returncode:
            raise SystemExit(f"sbatch: {r.stderr}")
        self.items.append(["sbatch", f"so{i}", t, r.stdout.strip().split(";")[0]])

    def pod_job_ids(self):
        while True:
            _, lst = req(self.c, "GET", f"/api/v1/namespaces/{self.ns}/pods")
            ids = {p["metadata"]["name"]: p["metadata"].get("annotations", {}).get("slurmlink.io/job-id")
                   for p in lst["items"]}
            failed = [p for p in lst["items"] if p.get("status", {}).get("phase") == "Failed"]
            if failed:
                raise SystemExit(f"pod {failed[0]['metadata']['name']} Failed: "
                                 f"{failed[0]['status'].get('message')}")
            if all(ids.get(it[1]) for it in self.items if it[0] == "pod"):
                for it in self.items:
                    if it[0] == "pod":
                        it[3] = ids[it[1]]
                return
            time.sleep(1)

    def wait_started(self):
        self.pod_job_ids()
        ids = [it[3] for it in self.items]
        while True:
            tm = slurm_times(ids)
            if all(tm.get(j, (None, None))[1] for j in ids):
                return tm
            time.sleep(1)

    def remove(self):
        CL.delete_namespace(self.ns)


def cross(items, tm):
    """(pods overtaken by a later-created sbatch job, sbatch jobs overtaken
    by a later-created pod, pod/sbatch pairs)"""
    pods_over = sb_over = pairs = 0
    for i in range(len(items)):
        for j in range(i + 1, len(items)):
            a, b = items[i], items[j]
            if a[0] == b[0]:
                continue
            pairs += 1
            if tm[a[3]][1] > tm[b[3]][1]:
                if a[0] == "pod":
                    pods_over += 1
                else:
                    sb_over += 1
    return pods_over, sb_over, pairs


def stats(items, tm):
    starts = [tm[it[3]][1] for it in items]
    subs = [int(it[3]) for it in items]  # slurmctld numbers jobs as it accepts them
    inv, ties = inversions(starts)
    sub_inv, _ = inversions(subs)
    t0 = items[0][2]
    r = {"n": len(items), "inversions": inv, "ties": ties, "pairs": len(items) * (len(items) - 1) // 2,
         "tau_b": kendall_tau_b(starts), "submit_inversions": sub_inv,
         "all_started_s": max(starts) - t0, "created_s": items[-1][2] - t0}
    for kind in ("pod", "sbatch"):
        w = [tm[it[3]][1] - it[2] for it in items if it[0] == kind]
        if w:
            r[f"{kind}_wait_p50"], r[f"{kind}_wait_p90"] = pct(w, 0.5), pct(w, 0.9)
            # when they started, counted from the burst's first creation: the
            # figure that compares paths created at different speeds
            st = [tm[it[3]][1] - t0 for it in items if it[0] == kind]
            r[f"{kind}_start_p50"], r[f"{kind}_start_p90"] = pct(st, 0.5), pct(st, 0.9)
    return r


def run(path):
    wait_queue_empty()
    b0 = busy_s()
    cr = Creator(f"order-{path}-{os.getpid()}")
    for i in range(args.pods):
        if path in ("pods", "hostpods") or (path == "mixed" and i % 2 == 0):
            cr.pod(i, host=path == "hostpods")
        else:
            cr.sbatch(i)
    tm = cr.wait_started()
    r = stats(cr.items, tm)
    if path == "mixed":
        r["pods_overtaken"], r["sbatch_overtaken"], r["cross_pairs"] = cross(cr.items, tm)
    wait_queue_empty()
    # the machine's CPU a job, from the first creation to the empty queue:
    # the client's (this script's requests, or the sbatch processes), the
    # daemons', slurmd's and slurmstepd's, the shim's and the command's
    r["cpu_ms_per_job"] = (busy_s() - b0) * 1000 / len(cr.items)
    # how long each job ran (allocation to done): a pod's job runs its
    # container (the shim, the runtime's start) around the same command, so a
    # wave of pods on the CPUs lasts longer than a wave of sbatch jobs
    ends = log_starts(DONE)
    for kind in ("pod", "sbatch"):
        d = [ends[it[3]] - tm[it[3]][1] for it in cr.items if it[0] == kind and it[3] in ends]
        if d:
            r[f"{kind}_ran_mean"] = sum(d) / len(d)
    cr.remove()
    return r


def show(path, r):
    line = (f"{path:8s} n={r['n']} created in {r['created_s']:.1f} s, all started "
            f"{r['all_started_s']:.1f} s after the first creation; inversions {r['inversions']} of "
            f"{r['pairs']} pairs (ties {r['ties']}), tau-b {r['tau_b']:.4f}; submitted out of "
            f"order: {r['submit_inversions']} pairs; machine CPU {r['cpu_ms_per_job']:.1f} ms a job")
    for kind in ("pod", "sbatch"):
        if f"{kind}_wait_p50" in r:
            ran = f" ran {r[kind + '_ran_mean']:.2f} s on average," if kind + "_ran_mean" in r else ""
            line += (f"; {kind}{ran} wait p50 {r[kind + '_wait_p50']:.1f} s p90 {r[kind + '_wait_p90']:.1f} s, "
                     f"started after the first creation p50 {r[kind + '_start_p50']:.1f} s "
                     f"p90 {r[kind + '_start_p90']:.1f} s")
    if "cross_pairs" in r:
        line += (f"; of {r['cross_pairs']} pod/sbatch pairs, a pod overtaken by a later sbatch job "
                 f"{r['pods_overtaken']}, an sbatch job by a later pod {r['sbatch_overtaken']}")
    print(line, flush=True)


def main():
    cpus = CL.sh("sinfo", "-h", "-o", "%C").stdout.split("/")[-1].strip()
    load = " ".join(open("/proc/loadavg").read().split()[:3])
    print(f"# cluster {CL.dir}: {cpus} CPUs, {os.cpu_count()} cores, load {load}; "
          f"{args.pods} jobs of 1 CPU, sleep {args.sleep} s", flush=True)
    res = {}
    for path in args.only.split(","):
        res[path] = run(path)
        show(path, res[path])
    for pods in ("pods", "hostpods"):
        if pods not in res or "sbatch" not in res:
            continue
        p, s = res[pods], res["sbatch"]
        print(f"ratio {pods}/sbatch: all started {p['all_started_s'] / s['all_started_s']:.2f}, "
              f"wait p50 {p['pod_wait_p50'] / s['sbatch_wait_p50']:.2f}, "
              f"p90 {p['pod_wait_p90'] / s['sbatch_wait_p90']:.2f}; started after the first creation "
              f"p50 {p['pod_start_p50'] / s['sbatch_start_p50']:.2f}, "
              f"p90 {p['pod_start_p90'] / s['sbatch_start_p90']:.2f}; machine CPU a job "
              f"{p['cpu_ms_per_job'] / s['cpu_ms_per_job']:.2f}")
    if "mixed" in res and "pod_start_p50" in res["mixed"]:
        m = res["mixed"]
        print(f"ratio in mixed, pods/sbatch started after the first creation: "
              f"p50 {m['pod_start_p50'] / m['sbatch_start_p50']:.2f}, "
              f"p90 {m['pod_start_p90'] / m['sbatch_start_p90']:.2f}")
    if args.json:
        json.dump(res, open(args.json, "w"), indent=1)


main()
