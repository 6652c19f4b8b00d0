#!/usr/bin/python3
"""submit-throughput.py — how fast pods become Slurm jobs (docs/benchmarks.md).

On a running local cluster (slurmlink up --dir D), in one run, with the
cluster's nodes drained (jobs are accepted and queue, none starts: only
submission is measured), for each N of --pods:
  api        N pods POSTed through slurmlinkd's HTTP API by --threads client
             processes (one kept-alive connection each; --clients threads:
             threads of this process, as before 2026-12-06, which bounds
             both HTTP paths at what one Python interpreter lock lets
             through); time from the first
             POST until a watch has seen every pod carry its Slurm job id
  sbatch     N sequential `sbatch --wrap true` processes
  slurmrestd N POST job/submit to Debian's slurmrestd on a private Unix
             socket, from --threads client processes (or threads)
  floor      N sl_slurm_submit calls in one process (bench/submit-floor.c),
             1 thread and --threads threads, as nobody (the api path's
             jobs' user) and each other user of --floor-users (e.g.
             nobody,root: root is the user of the slurmrestd path's jobs)
Each is run --repeat times, the paths taking turns; medians are printed with
the ratios, and the CPU each path took per pod (ms, user + system) in
the front daemon (slurmlinkd; slurmrestd for its path), slurmctld, the
client side (this script's threads, or the sbatch / floor processes) and munged (a
credential made and checked per RPC): on a machine of C cores no path can go faster
than C × 1000 / (the sum) pods/s, so the sum is what bounds it here; and the machine's
CPU per pod (every process and the kernel, /proc/stat), with how busy that kept the cores. The pods and jobs of each round are removed before the next.
The pods run busybox, imported into D's image store first if it lacks it.

--hold partition sets the partition DOWN instead of draining the nodes, as
this bench did before: then no pending job is runnable, and slurmctld's
submission (job_allocate's _top_priority, Slurm 22.05) walks every job it
holds for one of higher priority that could run, where a live cluster's
walk stops at the first pending job: each submission costs slurmctld more
the more jobs are queued, for every path alike.

slurmctld keeps finished jobs for MinJobAge (300 s), and every submission
and job list costs more the more it holds: a path run after another pays for
the jobs the one before left. With --purge the run sets MinJobAge=2 (D's
slurm.conf, scontrol reconfigure; put back at the end) and waits, before
each path, until slurmctld holds no job: each path starts from an empty
job table.

With --daemons NAME=PATH,... the api path runs once per daemon binary
(slurmlinkd restarted with `slurmlink up --dir D --daemon PATH` before each
of its rounds), e.g. the code before and after a change, in the same run.

usage: bench/submit-throughput.py --dir D [--pods 1000,10000] [--threads 8] [--repeat 3]
                                  [--floor PATH] [--floor-users nobody,root] [--clients procs|threads] [--settle S] [--only api,sbatch,slurmrestd,floor]
                                  [--daemons NAME=PATH,...] [--slurmlink PATH] [--purge]
                                  [--waiting W] [--idle S] [--watchers K] [--delete-during] [--hold nodes|partition] [--callgrind] [--strace]
With --settle S each round starts S seconds after the round before has
been removed: ext4's inode allocator passes over every inode freed in the
last minute, so pod folders made right after the round before's were
deleted cost more (docs/benchmarks.md, 16 cores); --settle 65 takes that
out of a comparison.

With --waiting W, W pods are created first in their own namespace with an
image the local store lacks and imagePullPolicy Never: each waits in its
pull's back-off (ErrImageNeverPull, retried at growing intervals) through
the whole run, as pods of a missing image or a registry down do. They are
left until the end, and slurmlinkd's CPU while idle with them is printed
(per daemon with --daemons, over --idle seconds).

Each api round prints slurmlinkd's peak resident memory during it (VmHWM,
reset at the round's first POST), the largest of its RSS sampled every
0.1 s split into anonymous memory and mapped files (with when it came, and
how many pods were created and how many had a job id by then: the pods
whose submissions were in flight), its RSS at the round's
end and once the round's pods and jobs are gone, and, with --watchers K,
K more watches of
the round's pods run beside the one that times it, each reading every
event (the watch fan-out's cost in the CPU and memory figures).

With --delete-during each api round first makes N other pods (in a
namespace of their own, untimed, until each has its job id), then deletes
that namespace at the round's first POST: the N new pods are created while
the N old ones go and their jobs are cancelled, as when a batch of work
replaces the one before.

With --callgrind each daemon of --daemons runs under valgrind's callgrind
(VALGRIND, default valgrind) and each api round also prints the user-space
instructions slurmlinkd ran per pod in it (Ir, counted from the round's
first POST until every pod has its job id, callgrind_control zeroing and
dumping the counts): a figure that does not move with the machine's speed,
as the seconds and CPU do. It leaves out the kernel's work (syscalls, the
file system, TCP), and the daemon runs some 50 times slower than natively,
so use it with a few thousand pods, to compare builds, not for rates.

With --strace each api round runs `strace -c -f` (STRACE, default strace)
on slurmlinkd over the same span and prints its syscalls per pod, in all and
the most frequent ones: the kernel's share that callgrind leaves out. strace
slows every syscall down, so this too compares builds, not rates.

Nothing here is asserted.
"""
import argparse, http.client, json, os, socket, statistics, subprocess, sys
import signal, threading, time, warnings

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import kapi  # noqa: E402

# the client processes are forked beside the watch thread; they use none of its locks
warnings.filterwarnings("ignore", category=DeprecationWarning)
# a TERM runs the `finally` that gives the partition or the nodes back
signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))

ap = argparse.ArgumentParser()
ap.add_argument("--dir", required=True)
ap.add_argument("--pods", default="1000,10000")
ap.add_argument("--threads", type=int, default=8)
ap.add_argument("--repeat", type=int, default=3)
ap.add_argument("--floor", default="/tmp/submit-floor")
ap.add_argument("--floor-users", default="nobody")
ap.add_argument("--clients", choices=["procs", "threads"], default="procs")
ap.add_argument("--settle", type=float, default=0.0)
ap.add_argument("--only", default="api,sbatch,slurmrestd,floor")
ap.add_argument("--daemons", default="")
ap.add_argument("--purge", action="store_true")
ap.add_argument("--hold", choices=["partition", "nodes"], default="nodes")
ap.add_argument("--waiting", type=int, default=0)
ap.add_argument("--idle", type=float, default=20.0)
ap.add_argument("--watchers", type=int, default=0)
ap.add_argument("--delete-during", action="store_true")
ap.add_argument("--callgrind", action="store_true")
ap.add_argument("--strace", action="store_true")
ap.add_argument("--slurmlink", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "../build/slurmlink"))
args = ap.parse_args()
D = os.path.abspath(args.dir)
cl = json.load(open(f"{D}/cluster.json"))
PORT = cl["api_port"]
ENV = dict(os.environ, SLURM_CONF=f"{D}/etc/slurm.conf")
PATHS = args.only.split(",")
DAEMONS = [d.split("=", 1) for d in args.daemons.split(",") if d]
if "api" in PATHS and DAEMONS:
    i = PATHS.index("api")
    PATHS[i:i + 1] = [f"api:{name}" for name, _ in DAEMONS]


KAPI = kapi.Cluster(D)  # the kubeconfig's address and admin credential


def conn(timeout=120):
    return KAPI.conn(timeout)


def req(c, method, path, body=None):
    c.request(method, path, body=json.dumps(body) if body is not None else None,
              headers={"Content-Type": "application/json", "Accept": "application/json"})
    r = c.getresponse()
    data = r.read()
    return r.status, (json.loads(data) if data else None)


def pod(name, image="busybox"):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"restartPolicy": "Never", "terminationGracePeriodSeconds": 0,
                     "containers": [{"name": "main", "image": image, "imagePullPolicy": "Never", "command": ["true"],
                                     "resources": {"requests": {"cpu": "100m", "memory": "32Mi"}}}]}}


WAIT_NS = f"tput-waiting-{os.getpid()}"


def make_waiting(w):
    """w pods in WAIT_NS whose image the store lacks: each in its pull's back-off"""
    c = conn()
    req(c, "POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": WAIT_NS}})
    for i in range(w):
        st, _ = req(c, "POST", f"/api/v1/namespaces/{WAIT_NS}/pods", pod(f"w{i}", "slurmlink.invalid/absent:1"))
        if st != 201:
            raise SystemExit(f"waiting pod w{i}: HTTP {st}")
    while True:  # each pull tried once: ErrImageNeverPull
        _, lst = req(c, "GET", f"/api/v1/namespaces/{WAIT_NS}/pods")
        why = [((p.get("status", {}).get("containerStatuses") or [{}])[0].get("state", {})
                .get("waiting", {}).get("reason")) for p in lst["items"]]
        if sum(r in ("ErrImageNeverPull", "ImagePullBackOff") for r in why) == w:
            return
        time.sleep(0.5)


def idle_cpu(name):
    """slurmlinkd's CPU while nothing is asked of it, ms per s"""
    time.sleep(2)
    a = kapi.cpu_of(f"{D}/run/slurmlinkd.pid")
    time.sleep(args.idle)
    b = kapi.cpu_of(f"{D}/run/slurmlinkd.pid")
    ms = (b - a) * 1000.0 / args.idle
    print(f"  idle {name:12s} slurmlinkd {ms:6.2f} ms CPU per s over {args.idle:.0f} s, "
          f"{args.waiting} pods waiting in back-off", flush=True)
    return ms


class Watch(threading.Thread):
    """A watch on one namespace's pods: the set of pods that carry a job id."""
    def __init__(self, ns, rv):
        super().__init__(daemon=True)
        self.ns, self.rv, self.with_job, self.failed, self.events = ns, rv, set(), {}, 0
        self.ready = threading.Event()

    def run(self):
        c = conn(3600)
        c.request("GET", f"/api/v1/namespaces/{self.ns}/pods?watch=true&resourceVersion={self.rv}",
                  headers={"Accept": "application/json"})
        r = c.getresponse()
        self.ready.set()
        buf = b""
        while True:
            try:
                chunk = r.read1(1 << 20)
            except (http.client.HTTPException, OSError):
                chunk = b""  # a round's daemon restarted under an old round's watch
            if not chunk:
                return
            buf += chunk
            *lines, buf = buf.split(b"\n")
            self.events += len(lines)
            for line in lines:
                if b"slurmlink.io/job-id" in line:
                    self.with_job.add(json.loads(line)["object"]["metadata"]["name"])
                elif b'"Failed"' in line:  # Slurm refused it: it never gets a job id
                    o = json.loads(line)["object"]
                    if o.get("status", {}).get("phase") == "Failed":
                        self.failed[o["metadata"]["name"]] = o["status"].get("message", "")


class RssTrace(threading.Thread):
    """pid's RssAnon and RssFile every 0.1 s until stop(): the sample of the
    largest sum, to split the round's peak (VmHWM, between samples) into
    the heaps, stacks and other anonymous memory, and the mapped files"""
    def __init__(self, pid, watch):
        super().__init__(daemon=True)
        self.pid, self.watch, self.halt = pid, watch, threading.Event()
        self.best, self.at, self.t0 = (0, 0), (0.0, 0), time.time()

    def run(self):
        while not self.halt.wait(0.1):
            try:
                kv = dict(ln.split(":", 1) for ln in open(f"/proc/{self.pid}/status") if ":" in ln)
                a, f = int(kv["RssAnon"].split()[0]) / 1024, int(kv["RssFile"].split()[0]) / 1024
            except (OSError, KeyError, ValueError):
                continue
            if a + f > sum(self.best):
                self.best, self.at = (a, f), (time.time() - self.t0, len(self.watch.with_job))

    def stop(self):
        """(anonymous MiB, files MiB) of the largest sample, and (its second
        of the round, the pods with a job id by then)"""
        self.halt.set()
        self.join()
        return self.best, self.at


RESTD_PID = f"/tmp/tput-restd-{os.getpid()}.pid"


def cpu_now(front=None):
    """(front daemon, slurmctld, client, munged, machine) CPU seconds so far:
    the front is slurmlinkd, or slurmrestd for its path; the client is this
    process and its reaped children (sbatch, the floor's program); munged
    checks and makes every RPC's credential; machine is every process's
    and the kernel's (/proc/stat)"""
    t = os.times()
    return (kapi.cpu_of(front or f"{D}/run/slurmlinkd.pid"), kapi.cpu_of(f"{D}/run/slurmctld.daemon.pid"),
            t.user + t.system + t.children_user + t.children_system, kapi.cpu_of(f"{D}/run/munged.daemon.pid"),
            kapi.busy_s())


def cpu_per_pod(c0, c1, n):
    """ms of CPU per pod in each of cpu_now's parts between c0 and c1"""
    return [(b - a) * 1000.0 / n for a, b in zip(c0, c1)]


CG_DIR = f"/tmp/tput-cg-{os.getpid()}"


def restart_daemon(path):
    if args.callgrind:  # a wrapper that runs it under callgrind (its pid stays the daemon's)
        os.makedirs(CG_DIR, exist_ok=True)
        wrap = f"{CG_DIR}/{abs(hash(path))}.sh"
        with open(wrap, "w") as f:
            f.write(f"#!/bin/sh\nexec {os.environ.get('VALGRIND', 'valgrind')} --tool=callgrind "
                    f"--callgrind-out-file={CG_DIR}/cg.%p '{path}' \"$@\"\n")
        os.chmod(wrap, 0o755)
        path = wrap
    KAPI.restart_daemon(path, args.slurmlink)


def cg_pid():
    return int(open(f"{D}/run/slurmlinkd.pid").read().split()[0])


def cg_zero():
    if args.callgrind:
        subprocess.run(["callgrind_control", "-z", str(cg_pid())], capture_output=True, check=True)


def cg_instructions():
    """the instructions counted since cg_zero (None without --callgrind)"""
    if not args.callgrind:
        return None
    pid = cg_pid()
    before = set(os.listdir(CG_DIR))
    subprocess.run(["callgrind_control", "-d", str(pid)], capture_output=True, check=True)
    new = [f for f in os.listdir(CG_DIR) if f.startswith(f"cg.{pid}") and f not in before]
    total = 0
    for f in new:
        for line in open(f"{CG_DIR}/{f}"):
            if line.startswith("totals:") or line.startswith("summary:"):
                total = max(total, int(line.split()[1]))
        os.unlink(f"{CG_DIR}/{f}")  # read; a dump is megabytes
    return total


def st_start():
    """strace -c -f attached to slurmlinkd (None without --strace)"""
    if not args.strace:
        return None
    out = f"/tmp/tput-strace-{os.getpid()}.txt"
    p = subprocess.Popen([os.environ.get("STRACE", "strace"), "-c", "-f", "-q", "-o", out, "-p", str(cg_pid())],
                         stderr=subprocess.DEVNULL)
    time.sleep(1.0)  # every thread attached before the round starts
    return p, out


def st_stop(st, n):
    """syscalls per pod from strace's summary: (total, [(name, per pod), ...])"""
    if not st:
        return None
    p, out = st
    p.send_signal(signal.SIGINT)
    p.wait()
    calls = {}
    for line in open(out):
        f = line.split()
        if len(f) >= 5 and f[0][0].isdigit() and f[3].isdigit():
            calls[f[-1]] = int(f[3])
    os.unlink(out)
    total = calls.pop("total", sum(calls.values()))
    top = sorted(calls.items(), key=lambda kv: -kv[1])[:10]
    return total / n, [(k, v / n) for k, v in top]


def sh(*argv, check=False):
    return subprocess.run(list(argv), env=ENV, capture_output=True, text=True, check=check)


def wait_no_jobs(user):
    sh("scancel", "-u", user)
    while sh("squeue", "-h", "-u", user, "-o", "%i").stdout.strip():
        time.sleep(0.5)


def run_clients(client):
    """client(k) for k in 0..--threads-1 at once, each in a process of its
    own (--clients procs: one Python process is bound by its interpreter
    lock, not by the server it measures) or a thread of this one; returns
    the sum of what they return (their errors). A process's CPU counts in
    the client's column once it is reaped."""
    if args.clients == "threads":
        res = [0] * args.threads

        def one(k):
            res[k] = client(k)
        ths = [threading.Thread(target=one, args=(k,)) for k in range(args.threads)]
        for t in ths:
            t.start()
        for t in ths:
            t.join()
        return sum(res)
    pids = []
    for k in range(args.threads):
        pid = os.fork()
        if pid == 0:
            code = 1
            try:
                code = min(client(k), 100)
            finally:
                os._exit(code)
        pids.append(pid)
    errors = 0
    for pid in pids:
        _, status = os.waitpid(pid, 0)
        errors += os.waitstatus_to_exitcode(status)
    return errors


def post_pods(ns, n):
    """n pods POSTed into ns by the clients: the number refused"""
    def client(k):
        cc = conn()
        bad = 0
        for i in range(k, n, args.threads):
            st, _ = req(cc, "POST", f"/api/v1/namespaces/{ns}/pods", pod(f"p{i}"))
            bad += st != 201
        return bad
    return run_clients(client)


def make_old(n, rnd):
    """--delete-during: n pods in a namespace of their own, each with its job id"""
    old = f"tput-old-{n}-{rnd}-{os.getpid()}"
    c = conn()
    KAPI.namespace(c, old)
    _, lst = req(c, "GET", f"/api/v1/namespaces/{old}/pods")
    w = Watch(old, lst["metadata"]["resourceVersion"])
    w.start()
    w.ready.wait()
    post_pods(old, n)
    t0 = time.time()
    while len(w.with_job) + len(w.failed) < n and time.time() - t0 < 1800:
        time.sleep(0.05)
    return old


def run_api(n, rnd):
    ns = f"tput-{n}-{rnd}-{os.getpid()}"
    old = make_old(n, rnd) if args.delete_during else None
    c = conn()
    KAPI.namespace(c, ns)  # and its Slurm account, on a cluster with accounting
    _, lst = req(c, "GET", f"/api/v1/namespaces/{ns}/pods")
    w = Watch(ns, lst["metadata"]["resourceVersion"])
    w.start()
    w.ready.wait()
    extra = [Watch(ns, lst["metadata"]["resourceVersion"]) for _ in range(args.watchers)]
    for x in extra:  # more watchers of the same pods (--watchers): the fan-out's cost
        x.start()
        x.ready.wait()
    pid = KAPI.daemon_pid()
    open(f"/proc/{pid}/clear_refs", "w").write("5")  # VmHWM from here on
    trace = RssTrace(pid, w)
    trace.start()
    cg_zero()
    stc = st_start()
    th0 = kapi.thread_cpu(pid)
    lk0 = store_locks()
    c0 = cpu_now()
    t0 = time.time()
    if old:  # the old pods go while the new ones come
        req(conn(), "DELETE", f"/api/v1/namespaces/{old}")
    bad = post_pods(ns, n)
    t_ack = time.time() - t0
    while len(w.with_job) + len(w.failed) < n and time.time() - t0 < 1800:
        time.sleep(0.02)
    ir = cg_instructions()
    sc = st_stop(stc, n)
    if w.failed:
        name, why = next(iter(w.failed.items()))
        print(f"    ({ns}: {len(w.failed)} pods failed, e.g. {name}: {why})", flush=True)
    t_all = time.time() - t0
    cpu = cpu_per_pod(c0, cpu_now(), n)
    hwm = rss_mib(pid)
    top, (t_top, jobs_top) = trace.stop()
    posted_top = min(n, round(n * t_top / t_ack)) if t_ack > 0 else n  # the POSTs go at an even pace
    th = thread_split(th0, kapi.thread_cpu(pid), n)
    locks = lock_split(lk0, store_locks(), n, t_all)
    print(f"    ({ns}: {len(w.with_job)} of {n} with a job id after {t_all:.2f} s; slurmlinkd peak RSS "
          f"{hwm[1]:.1f} MiB, now {hwm[0]:.1f} MiB; {1 + args.watchers} watchers, events seen "
          f"{', '.join(str(x.events) for x in [w] + extra)}; removing)", flush=True)
    print(f"      slurmlinkd's largest RSS sampled (every 0.1 s): {sum(top):.1f} MiB, anonymous "
          f"{top[0]:.1f} + files {top[1]:.1f}, {t_top:.1f} s into the round, ~{posted_top} pods "
          f"created and {jobs_top} with a job id by then", flush=True)
    print("      slurmlinkd CPU ms per pod by thread: " + ", ".join(f"{k} {v:.3f}" for k, v in th), flush=True)
    print(f"      {locks}", flush=True)
    KAPI.delete_namespace(ns)  # the pods go with it (their jobs are cancelled)
    if old:
        KAPI.delete_namespace(old)
    wait_no_jobs("nobody")
    print(f"      slurmlinkd RSS once the round's pods and jobs are gone: {rss_mib(pid)[0]:.1f} MiB", flush=True)
    return {"ack_s": t_ack, "all_s": t_all, "rate": n / t_all, "errors": bad + len(w.failed),
            "got": len(w.with_job), "cpu": cpu, "ir": ir / n if ir else None, "sc": sc}


def store_locks():
    """{(what, lock): value} of slurmlinkd's store lock metrics (what:
    acquisitions, wait or held seconds; lock: writer or reader); {} from a
    daemon without them"""
    c = conn()
    c.request("GET", "/metrics")
    text = c.getresponse().read().decode()
    out = {}
    for ln in text.splitlines():
        for what in ("acquisitions", "wait_seconds", "held_seconds"):
            for lock in ("writer", "reader"):
                pre = f'slurmlink_store_lock_{what}_total{{lock="{lock}"}} '
                if ln.startswith(pre):
                    out[(what, lock)] = float(ln[len(pre):])
        for outcome in ("written", "redone"):
            pre = f'slurmlink_store_drafts_total{{outcome="{outcome}"}} '
            if ln.startswith(pre):
                out[("drafts", outcome)] = float(ln[len(pre):])
        for what in ("commits", "commit_seconds", "group_commits", "grouped_writes"):
            pre = f"slurmlink_store_{what}_total "
            if ln.startswith(pre):
                out[("store", what)] = float(ln[len(pre):])
    return out


def lock_split(a, b, n, secs):
    """the store's locks over a round of n pods and secs seconds: how busy
    each was (held seconds per second), and per pod how often it was taken
    and the ms held and waited for it"""
    if not a or not b:
        return "store locks: not measured (the daemon has no slurmlink_store_lock_* metrics)"
    d = {k: b.get(k, 0.0) - a.get(k, 0.0) for k in b}
    more = ""
    if ("drafts", "written") in d:
        more = (f"; drafts {d[('drafts', 'written')]:.0f} written as drafted, "
                  f"{d.get(('drafts', 'redone'), 0.0):.0f} made again under the writer")
    if ("store", "commit_seconds") in d:
        more += (f"; commits {d[('store', 'commits')] / n:.2f} a pod, "
                   f"{1000 * d[('store', 'commit_seconds')] / n:.3f} ms a pod committing; "
                   f"group commits {d[('store', 'group_commits')]:.0f} of "
                   f"{d[('store', 'grouped_writes')]:.0f} creates")
    return "store locks over the round: " + "; ".join(
        f"{lock} held {100 * d[('held_seconds', lock)] / secs:.0f} % of the {secs:.2f} s, per pod "
        f"{d[('acquisitions', lock)] / n:.2f} takes, {1000 * d[('held_seconds', lock)] / n:.3f} ms held, "
        f"{1000 * d[('wait_seconds', lock)] / n:.3f} ms waited" for lock in ("writer", "reader")) + more


def thread_split(a, b, n):
    """slurmlinkd's CPU ms per pod between a and b by thread name (sl-ctl:
    the controller, sl-submit: the submission workers, MHD-*: the API's
    connections, sl-kill, sl-remove ...); "ended": threads gone meanwhile"""
    d = {k: (b.get(k, 0.0) - a.get(k, 0.0)) * 1000.0 / n for k in set(a) | set(b) if k != "(total)"}
    d = {k: v for k, v in d.items() if v > 0}
    live = sum(d.values())
    d["ended"] = max((b.get("(total)", 0.0) - a.get("(total)", 0.0)) * 1000.0 / n - live, 0.0)
    return sorted(d.items(), key=lambda kv: -kv[1])


def rss_mib(pid):
    """(VmRSS, VmHWM) of pid in MiB"""
    kv = dict(ln.split(":", 1) for ln in open(f"/proc/{pid}/status") if ":" in ln)
    return int(kv["VmRSS"].split()[0]) / 1024, int(kv["VmHWM"].split()[0]) / 1024


def set_min_job_age(age):
    conf = f"{D}/etc/slurm.conf"
    text = open(conf).read()
    lines = [f"MinJobAge={age}" if ln.startswith("MinJobAge=") else ln for ln in text.split("\n")]
    open(conf, "w").write("\n".join(lines))
    sh("scontrol", "reconfigure", check=True)


def wait_empty():
    """until slurmctld holds no job at all (with --purge: MinJobAge=2, and
    slurmctld purges finished jobs in a periodic pass)"""
    t0 = time.time()
    while sh("squeue", "-h", "-t", "all", "-o", "%i").stdout.strip() and time.time() - t0 < 600:
        time.sleep(1)
    return time.time() - t0


def run_sbatch(n, rnd):
    c0 = cpu_now()
    t0 = time.time()
    ok = 0
    for i in range(n):
        r = subprocess.run(["sbatch", "--parsable", "-J", f"sb{i}", "-o", "/dev/null", "--wrap", "true"],
                           env=ENV, capture_output=True)
        ok += r.returncode == 0
    dt = time.time() - t0
    cpu = cpu_per_pod(c0, cpu_now(), n)
    wait_no_jobs("root")
    return {"all_s": dt, "rate": n / dt, "errors": n - ok, "cpu": cpu}


class UnixHTTP(http.client.HTTPConnection):
    def __init__(self, path):
        super().__init__("localhost", timeout=120)
        self.path = path

    def connect(self):
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(self.path)


def restd_start():
    sock = f"{D}/run/tput-restd.sock"
    if os.path.exists(sock):
        os.unlink(sock)
    env = dict(ENV, SLURMRESTD_SECURITY="disable_user_check", SLURMLINK_DIR=D)
    p = subprocess.Popen(["slurmrestd", "-a", "rest_auth/local", "-s", "openapi/v0.0.38", f"unix:{sock}"],
                         env=env, stdout=subprocess.DEVNULL, stderr=open(f"{D}/tput-restd.log", "w"),
                         start_new_session=True)
    for _ in range(100):
        try:
            c = UnixHTTP(sock)
            c.request("GET", "/slurm/v0.0.38/ping")
            if c.getresponse().status == 200:
                open(RESTD_PID, "w").write(str(p.pid))
                return p, sock
        except OSError:
            pass
        time.sleep(0.1)
    raise SystemExit("slurmrestd did not answer")


def run_restd(n, rnd, sock):
    body = json.dumps({"script": "#!/bin/sh\ntrue\n",
                       "job": {"name": "restd-tput", "current_working_directory": "/tmp",
                               "standard_output": "/dev/null", "environment": {"PATH": "/usr/bin:/bin"}}})
    def client(k):
        c = UnixHTTP(sock)
        bad = 0
        for i in range(k, n, args.threads):
            c.request("POST", "/slurm/v0.0.38/job/submit", body=body,
                      headers={"Content-Type": "application/json"})
            r = c.getresponse()
            data = r.read()
            # with the nodes drained (--hold nodes) slurmctld answers 2068 (required node
            # not available) with the job queued: a job id is a submission
            bad += r.status != 200 or not json.loads(data).get("job_id")
        return bad

    c0 = cpu_now(RESTD_PID)
    t0 = time.time()
    bad = run_clients(client)
    dt = time.time() - t0
    cpu = cpu_per_pod(c0, cpu_now(RESTD_PID), n)
    wait_no_jobs("root")
    return {"all_s": dt, "rate": n / dt, "errors": bad, "cpu": cpu}


def run_floor(n, rnd, threads, user="nobody"):
    if args.purge:  # the round before (x1, another user) left its cancelled jobs
        print(f"    (slurmctld empty after {wait_empty():.0f} s)", flush=True)
    c0 = cpu_now()
    r = sh(args.floor, user, str(n), str(threads))
    cpu = cpu_per_pod(c0, cpu_now(), n)
    wait_no_jobs(user)
    # "T threads: K of N jobs in S s: R jobs/s"
    words = r.stdout.split()
    return {"all_s": float(words[7]), "rate": float(words[9]),
            "errors": n - int(words[2]) if words else n, "cpu": cpu}


def hold(part, on):
    """keep the jobs from starting (--hold): the partition DOWN, or its nodes drained"""
    if args.hold == "partition":
        sh("scontrol", "update", f"PartitionName={part}", f"State={'DOWN' if on else 'UP'}", check=True)
    else:
        KAPI.hold_nodes(on, "submit-throughput")


def main():
    if any(p.startswith("api") for p in PATHS) and not os.path.isdir(f"{D}/images/busybox+latest"):
        # the pods' image: without it every pod waits in ErrImageNeverPull
        sh(args.slurmlink, "image", "import", "busybox", "--busybox", "--store", f"{D}/images", check=True)
    part = sh("sinfo", "-h", "-o", "%R").stdout.split()[0]
    if args.purge:  # first: a reconfigure puts the partition back UP, as slurm.conf has it
        set_min_job_age(2)
    hold(part, True)
    restd = None
    try:
        if "slurmrestd" in PATHS:
            restd, sock = restd_start()
        load = open("/proc/loadavg").read().split()[:3]
        print(f"# cluster {D}, slurmlinkd :{PORT}, {os.cpu_count()} cores, load {' '.join(load)}, "
              f"{args.threads} client threads, {args.repeat} rounds", flush=True)
        res = {}
        if args.waiting:
            make_waiting(args.waiting)
            if DAEMONS:
                for name, path in DAEMONS:
                    restart_daemon(path)
                    idle_cpu(name)
            else:
                idle_cpu("api")
        for n in [int(x) for x in args.pods.split(",")]:
            for rnd in range(args.repeat):
                for path in PATHS:
                    if args.purge:
                        print(f"    (slurmctld empty after {wait_empty():.0f} s)", flush=True)
                    if args.settle:  # the file system past the round before's deletions
                        time.sleep(args.settle)
                    if path == "api":
                        out = [("api", run_api(n, rnd))]
                    elif path.startswith("api:"):
                        restart_daemon(dict(DAEMONS)[path[4:]])
                        out = [(path, run_api(n, rnd))]
                    elif path == "sbatch":
                        out = [("sbatch", run_sbatch(n, rnd))]
                    elif path == "slurmrestd":
                        out = [("slurmrestd", run_restd(n, rnd, sock))]
                    else:
                        out = []
                        for u in args.floor_users.split(","):
                            who = "" if u == "nobody" else f" {u}"
                            out += [(f"floor{who} x1", run_floor(n, rnd, 1, u)),
                                    (f"floor{who} x{args.threads}", run_floor(n, rnd, args.threads, u))]
                    for name, r in out:
                        res.setdefault((n, name), []).append(r)
                        print(f"  N={n} round {rnd} {name:12s} {r['all_s']:8.2f} s {r['rate']:7.0f}/s "
                              f"errors {r['errors']}" + (f" ack {r['ack_s']:.2f} s" if "ack_s" in r else ""),
                              flush=True)
                        busy = r['cpu'][4] * r['rate'] / (os.cpu_count() * 10)
                        print(f"      CPU ms per pod: front {r['cpu'][0]:.2f} slurmctld {r['cpu'][1]:.2f} "
                              f"client {r['cpu'][2]:.2f} munged {r['cpu'][3]:.2f}; machine {r['cpu'][4]:.2f} "
                              f"({busy:.0f} % of {os.cpu_count()} cores busy)" +
                              (f"; slurmlinkd instructions per pod {r['ir']:,.0f}" if r.get("ir") else ""),
                              flush=True)
                        if r.get("sc"):
                            print(f"      syscalls per pod {r['sc'][0]:.1f}: " +
                                  ", ".join(f"{k} {v:.1f}" for k, v in r["sc"][1]), flush=True)
        print()
        print("ratio: the last api path's rate (api, or the last of --daemons) over the path's")
        print("CPU: median ms per pod in the front daemon (slurmlinkd, or slurmrestd) / slurmctld / client / munged;")
        print("bound: cores x 1000 / their sum, the most pods/s this machine could give that path;")
        print("machine: ms per pod of every process and the kernel (/proc/stat)")
        print(f"{'N':>6s} {'path':14s} {'median s':>9s} {'/s':>7s} {'ratio':>7s}   {'CPU ms/pod':>26s} {'bound/s':>8s}"
              f" {'machine':>8s}")
        for n in sorted({k[0] for k in res}):
            ref = "api" if (n, "api") in res else f"api:{DAEMONS[-1][0]}" if DAEMONS else "api"
            api = statistics.median(r["rate"] for r in res.get((n, ref), [{"rate": float("nan")}]))
            for (nn, name), rs in res.items():
                if nn != n:
                    continue
                med = statistics.median(r["all_s"] for r in rs)
                rate = statistics.median(r["rate"] for r in rs)
                cpu = [statistics.median(r["cpu"][i] for r in rs) for i in range(5)]
                tot = sum(cpu[:4])
                bound = os.cpu_count() * 1000 / tot if tot > 0 else float("nan")
                irs = [r["ir"] for r in rs if r.get("ir")]
                scs = [r["sc"][0] for r in rs if r.get("sc")]
                print(f"{n:6d} {name:14s} {med:9.2f} {rate:7.0f} {api / rate:7.2f}   "
                      f"{cpu[0]:6.2f}/{cpu[1]:5.2f}/{cpu[2]:5.2f}/{cpu[3]:5.2f} {bound:8.0f} {cpu[4]:8.2f}" +
                      (f"   Ir/pod {statistics.median(irs):,.0f}" if irs else "") +
                      (f"   syscalls/pod {statistics.median(scs):.1f}" if scs else ""))
    finally:
        if args.waiting:
            req(conn(), "DELETE", f"/api/v1/namespaces/{WAIT_NS}")
        if restd:
            restd.terminate()
            restd.wait()
        if args.purge:
            set_min_job_age(300)
        hold(part, False)
        if args.callgrind:  # the wrappers and any dump left (the daemon stays under callgrind)
            subprocess.run(["rm", "-rf", CG_DIR])


main()
