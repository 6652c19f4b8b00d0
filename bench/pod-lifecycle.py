#!/usr/bin/python3
"""pod-lifecycle.py — the pod lifecycle figures of docs/benchmarks.md.

Measures, on a running local cluster (slurmlink up --dir D), in one run:
  1. pod create (POST answered) -> Slurm job id visible on the pod (watch), p50/p99
  2. container exit (the shim's finishedAt) -> the watch event that carries it, p50/p99
  3. 1,000 pods POSTed through the API vs 1,000 sbatch calls: time until
     all pods have a Slurm job id / all sbatch processes returned
  4. slurmctld RPCs per pod and per sbatch job (sdiag, reset before each phase),
     and the controller's idle poll rate

usage: bench/pod-lifecycle.py --dir D [--runs N] [--many N]
Nothing here is asserted: it prints numbers and the ratio against sbatch.
"""
import argparse, json, os, re, statistics, subprocess, sys, threading, time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kapi  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--dir", required=True)
ap.add_argument("--runs", type=int, default=30)
ap.add_argument("--many", type=int, default=1000)
args = ap.parse_args()
D = os.path.abspath(args.dir)
cl = json.load(open(f"{D}/cluster.json"))
PORT = cl["api_port"]
ENV = dict(os.environ, SLURM_CONF=f"{D}/etc/slurm.conf")
NS = "bench"

KAPI = kapi.Cluster(D)  # the kubeconfig's address and admin credential


def conn():
    return KAPI.conn(60)

def req(c, method, path, body=None):
    c.request(method, path, body=json.dumps(body) if body is not None else None,
              headers={"Content-Type": "application/json", "Accept": "application/json"})
    r = c.getresponse()
    data = r.read()
    return r.status, (json.loads(data) if data else None)

def pod(name, cmd):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"restartPolicy": "Never", "terminationGracePeriodSeconds": 1,
                     "containers": [{"name": "main", "image": "busybox", "command": ["sh", "-c", cmd],
                                     "resources": {"requests": {"cpu": "100m", "memory": "32Mi"}}}]}}

def pct(xs, p):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    k = (len(xs) - 1) * p / 100.0
    lo, hi = int(k), min(int(k) + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)

def rfc3339(s):
    m = re.match(r"(\d+-\d+-\d+T\d+:\d+:\d+)(\.\d+)?Z", s)
    t = time.mktime(time.strptime(m.group(1), "%Y-%m-%dT%H:%M:%S")) - time.timezone
    return t + (float(m.group(2)) if m.group(2) else 0.0)

def sdiag_total():
    out = subprocess.run(["sdiag"], env=ENV, capture_output=True, text=True).stdout
    sect = out.split("Remote Procedure Call statistics by message type")[1].split("Remote Procedure Call statistics by user")[0]
    counts = {}
    for m in re.finditer(r"^\s+(\S+)\s+\(\s*\d+\)\s+count:(\d+)", sect, re.M):
        counts[m.group(1)] = int(m.group(2))
    return counts

def sdiag_reset():
    subprocess.run(["sdiag", "-r"], env=ENV, capture_output=True)

class Watch(threading.Thread):
    """One watch on the namespace's pods; records arrival times of facts."""
    def __init__(self, rv):
        super().__init__(daemon=True)
        self.rv, self.jobid_seen, self.term_seen, self.finished_at = rv, {}, {}, {}
        self.ready = threading.Event()
    def run(self):
        c = conn()
        c.request("GET", f"/api/v1/namespaces/{NS}/pods?watch=true&resourceVersion={self.rv}",
                  headers={"Accept": "application/json"})
        r = c.getresponse()
        self.ready.set()
        buf = b""
        while True:
            chunk = r.read1(65536) if hasattr(r, "read1") else r.read(1)
            if not chunk:
                return
            now = time.time()
            buf += chunk
            while b"\n" in buf:
                line, buf = buf.split(b"\n", 1)
                if not line.strip():
                    continue
                ev = json.loads(line)
                o = ev.get("object", {})
                name = o.get("metadata", {}).get("name")
                ann = o.get("metadata", {}).get("annotations", {}) or {}
                if "slurmlink.io/job-id" in ann and name not in self.jobid_seen:
                    self.jobid_seen[name] = now
                for cs in (o.get("status", {}) or {}).get("containerStatuses", []) or []:
                    t = cs.get("state", {}).get("terminated")
                    if t and name not in self.term_seen:
                        self.term_seen[name] = now
                        self.finished_at[name] = rfc3339(t["finishedAt"])

def ensure_ns(c):
    req(c, "POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": NS}})

def cleanup(c):
    st, lst = req(c, "GET", f"/api/v1/namespaces/{NS}/pods")
    for p in (lst or {}).get("items", []):
        req(c, "DELETE", f"/api/v1/namespaces/{NS}/pods/{p['metadata']['name']}?gracePeriodSeconds=0")
    subprocess.run(["scancel", "-u", "nobody"], env=ENV, capture_output=True)
    for _ in range(600):
        st, lst = req(c, "GET", f"/api/v1/namespaces/{NS}/pods")
        if not lst or not lst.get("items"):
            break
        time.sleep(0.2)

def main():
    c = conn()
    ensure_ns(c)
    cleanup(c)
    print(f"# slurmlinkd at 127.0.0.1:{PORT}, cluster {D}, {os.cpu_count()} cores", flush=True)

    # idle poll rate
    sdiag_reset(); time.sleep(10); idle = sum(sdiag_total().values()) / 10.0

    # 1 + 2: latency, one pod at a time
    st, lst = req(c, "GET", f"/api/v1/namespaces/{NS}/pods")
    w = Watch(lst["metadata"]["resourceVersion"]); w.start(); w.ready.wait()
    posted = {}
    sdiag_reset()
    for i in range(args.runs):
        name = f"lat{i}"
        t0 = time.time()
        st, _ = req(c, "POST", f"/api/v1/namespaces/{NS}/pods", pod(name, "sleep 0.3"))
        posted[name] = t0
        for _ in range(3000):
            if name in w.term_seen:
                break
            time.sleep(0.01)
    rpcs = sdiag_total()
    per_pod_rpc = sum(rpcs.values()) / args.runs
    create_to_job = [1000 * (w.jobid_seen[n] - posted[n]) for n in posted if n in w.jobid_seen]
    exit_to_watch = [1000 * (w.term_seen[n] - w.finished_at[n]) for n in posted if n in w.term_seen]
    cleanup(c)

    # 3: throughput, N pods vs N sbatch calls. The partition is DOWN meanwhile
    # (jobs are accepted and queued, none starts): both paths are measured
    # submitting, not competing with their own running jobs for the cores
    N = args.many
    part = subprocess.run(["sinfo", "-h", "-o", "%R"], env=ENV, capture_output=True, text=True).stdout.split()[0]
    subprocess.run(["scontrol", "update", f"PartitionName={part}", "State=DOWN"], env=ENV, check=True)
    st, lst = req(c, "GET", f"/api/v1/namespaces/{NS}/pods")
    w2 = Watch(lst["metadata"]["resourceVersion"]); w2.start(); w2.ready.wait()
    sdiag_reset()
    t0 = time.time()
    for i in range(N):
        req(c, "POST", f"/api/v1/namespaces/{NS}/pods", pod(f"many{i}", "true"))
    t_acked = time.time()
    while len(w2.jobid_seen) < N and time.time() - t0 < 600:
        time.sleep(0.05)
    t_jobs = time.time()
    rpc_many = sum(sdiag_total().values())
    api_rate = N / (t_jobs - t0)
    cleanup(c)

    # N sbatch calls, each its own process as a user would run them (the
    # job itself is `true`: submission cost is what is compared here)
    sdiag_reset()
    t0 = time.time()
    ok = 0
    for i in range(N):
        r = subprocess.run(["sbatch", "--parsable", "-J", f"sb{i}", "-o", "/dev/null", "--wrap", "true"],
                           env=ENV, capture_output=True, text=True)
        ok += r.returncode == 0
    t_sb = time.time()
    rpc_sb = sum(sdiag_total().values())
    sb_rate = N / (t_sb - t0)
    subprocess.run(["scancel", "-u", "root"], env=ENV, capture_output=True)
    subprocess.run(["scontrol", "update", f"PartitionName={part}", "State=UP"], env=ENV, check=True)

    print()
    print(f"{'figure':58s} {'value':>12s}")
    print(f"{'pod create -> Slurm job id on the pod (watch), p50':58s} {pct(create_to_job, 50):9.1f} ms")
    print(f"{'pod create -> Slurm job id on the pod (watch), p99':58s} {pct(create_to_job, 99):9.1f} ms")
    print(f"{'container exit -> watch event at the client, p50':58s} {pct(exit_to_watch, 50):9.1f} ms")
    print(f"{'container exit -> watch event at the client, p99':58s} {pct(exit_to_watch, 99):9.1f} ms")
    print(f"{'  (runs)':58s} {len(exit_to_watch):12d}")
    print(f"{f'{N} pods via the API: POSTs answered':58s} {t_acked - (t_jobs - N / api_rate):9.2f} s")
    print(f"{f'{N} pods via the API: all have a Slurm job id':58s} {N / api_rate:9.2f} s  ({api_rate:.0f}/s)")
    print(f"{f'{N} sbatch calls (sequential processes)':58s} {t_sb - t0:9.2f} s  ({sb_rate:.0f}/s, {ok} ok)")
    print(f"{'throughput ratio API / sbatch':58s} {api_rate / sb_rate:12.2f}")
    print(f"{'slurmctld RPCs per pod (one at a time, incl. polls)':58s} {per_pod_rpc:12.1f}")
    print(f"{f'slurmctld RPCs per pod ({N} at once)':58s} {rpc_many / N:12.2f}")
    print(f"{f'slurmctld RPCs per sbatch job ({N} sbatch calls)':58s} {rpc_sb / N:12.2f}")
    print(f"{'slurmctld RPCs per second while idle (job/node polls)':58s} {idle:12.1f}")
    print()
    print("RPC mix, one pod at a time:", json.dumps(rpcs))

main()
