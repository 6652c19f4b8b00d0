"""kapi.py — what the Python benches share (imported): the admin's TLS
credential of a `slurmlink up` folder's kubeconfig, kept-alive HTTPS
connections to its slurmlinkd, JSON requests, Slurm commands with the
folder's slurm.conf, and the order statistics of docs/benchmarks-history.md."""
import base64, http.client, json, math, os, ssl, subprocess, tempfile, time, urllib.parse
import yaml


class Cluster:
    def __init__(self, d):
        self.dir = os.path.abspath(d)
        kc = yaml.safe_load(open(f"{self.dir}/kubeconfig"))
        url = urllib.parse.urlsplit(kc["clusters"][0]["cluster"]["server"])
        self.host, self.port = url.hostname, url.port  # a bridge address with --nodes
        self.env = dict(os.environ, SLURM_CONF=f"{self.dir}/etc/slurm.conf")
        self.ctx = self._tls()

    def _tls(self):
        kc = yaml.safe_load(open(f"{self.dir}/kubeconfig"))
        user, cluster = kc["users"][0]["user"], kc["clusters"][0]["cluster"]
        tmp = tempfile.mkdtemp()
        files = {}
        for key, name in (("client-certificate-data", "crt"), ("client-key-data", "key"),
                          ("certificate-authority-data", "ca")):
            files[name] = f"{tmp}/{name}"
            with open(files[name], "wb") as f:
                f.write(base64.b64decode(cluster[key] if name == "ca" else user[key]))
        ctx = ssl.create_default_context(cafile=files["ca"])
        ctx.check_hostname = False
        ctx.load_cert_chain(files["crt"], files["key"])
        return ctx

    def conn(self, timeout=120):
        return http.client.HTTPSConnection(self.host, self.port, timeout=timeout, context=self.ctx)

    def sh(self, *argv, check=False):
        return subprocess.run(list(argv), env=self.env, capture_output=True, text=True, check=check)

    def namespace(self, c, ns):
        """namespace ns created; with accounting (slurmdbd enforces
        associations), its Slurm account too (the policy's default: the
        namespace's name) with the admin's Unix user in it"""
        req(c, "POST", "/api/v1/namespaces", {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": ns}})
        if not json.load(open(f"{self.dir}/cluster.json")).get("accounting"):
            return
        pol = yaml.safe_load(open(f"{self.dir}/etc/policy.yaml"))
        user = (pol.get("users") or {}).get("admin", "nobody")
        self.sh("sacctmgr", "-i", "add", "account", ns, check=True)
        self.sh("sacctmgr", "-i", "add", "user", user, f"account={ns}", check=True)

    def delete_namespace(self, ns):
        """namespace ns deleted, and gone (its pods with it), on a fresh
        connection: the server closes an idle one"""
        c = self.conn()
        req(c, "DELETE", f"/api/v1/namespaces/{ns}")
        while req(c, "GET", f"/api/v1/namespaces/{ns}")[0] != 404:
            time.sleep(0.5)

    def hold_nodes(self, on, reason):
        """every node drained (jobs wait, none starts), or given back"""
        if on:
            self.sh("scontrol", "update", "NodeName=ALL", "State=DRAIN", f"Reason={reason}", check=True)
        else:
            self.sh("scontrol", "update", "NodeName=ALL", "State=RESUME")

    def daemon_pid(self):
        return int(open(f"{self.dir}/run/slurmlinkd.pid").read())

    def restart_daemon(self, path, slurmlink):
        """the folder's slurmlinkd stopped (if it runs) and started again
        from the binary path (`slurmlink up --daemon`), answering"""
        pid = self.daemon_pid()
        try:
            os.kill(pid, 15)
        except ProcessLookupError:
            pass  # not running (stopped by hand): start it
        while alive(pid):
            time.sleep(0.1)
        subprocess.run([slurmlink, "up", "--dir", self.dir, "--daemon", path], check=True,
                       capture_output=True)
        for _ in range(600):  # 60 s: a daemon under valgrind starts slowly
            try:
                c = self.conn(5)
                c.request("GET", "/healthz")
                if c.getresponse().status == 200:
                    return
            except OSError:
                pass
            time.sleep(0.1)
        raise SystemExit(f"slurmlinkd {path} does not answer")


def busy_s():
    """CPU seconds the whole machine has spent busy (user, nice, system,
    irq, softirq: /proc/stat's first line), every process counted"""
    f = open("/proc/stat").readline().split()
    return sum(int(f[i]) for i in (1, 2, 3, 6, 7)) / os.sysconf("SC_CLK_TCK")


def cpu_of(pidfile):
    """user + system CPU seconds of the process named in pidfile (0 if gone)"""
    try:
        pid = int(open(pidfile).read())
        f = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        return (int(f[11]) + int(f[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError):
        return 0.0


def thread_cpu(pid):
    """{thread name: user + system CPU seconds} of pid's live threads, and
    the process's total (which also counts the threads that ended)"""
    out, tck = {}, os.sysconf("SC_CLK_TCK")
    try:
        for t in os.listdir(f"/proc/{pid}/task"):
            try:
                f = open(f"/proc/{pid}/task/{t}/stat").read()
            except OSError:
                continue  # ended meanwhile
            name = f[f.index("(") + 1:f.rindex(")")]
            v = f.rsplit(")", 1)[1].split()
            out[name] = out.get(name, 0.0) + (int(v[11]) + int(v[12])) / tck
        v = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
        out["(total)"] = (int(v[11]) + int(v[12])) / tck
    except (OSError, ValueError):
        pass
    return out


def alive(pid):
    """pid runs (a zombie, not yet reaped by whoever started it, does not)"""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


def req(c, method, path, body=None):
    """(status, decoded body) on kept-alive connection c"""
    c.request(method, path, body=json.dumps(body) if body is not None else None,
              headers={"Content-Type": "application/json", "Accept": "application/json"})
    r = c.getresponse()
    data = r.read()
    return r.status, (json.loads(data) if data else None)


def pod(name, command, cpu="1", memory="32Mi"):
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name},
            "spec": {"restartPolicy": "Never", "terminationGracePeriodSeconds": 0,
                     "containers": [{"name": "main", "image": "busybox", "imagePullPolicy": "Never",
                                     "command": ["sh", "-c", command],
                                     "resources": {"requests": {"cpu": cpu, "memory": memory}}}]}}

def create_pods(cluster, ns, n, threads, command="true", cpu="100m"):
    """n pods p0..p{n-1} POSTed into ns by `threads` client threads, each
    on a connection of its own; the first refusal ends the run"""
    import threading
    errors = []

    def client(k):
        c = cluster.conn()
        for i in range(k, n, threads):
            st, b = req(c, "POST", f"/api/v1/namespaces/{ns}/pods", pod(f"p{i}", command, cpu=cpu))
            if st != 201:
                errors.append(f"pod p{i}: HTTP {st}: {b}")
                return
    ths = [threading.Thread(target=client, args=(k,)) for k in range(threads)]
    for t in ths:
        t.start()
    for t in ths:
        t.join()
    if errors:
        raise SystemExit(errors[0])



def inversions(starts):
    """pairs i < j (creation order) with starts[i] > starts[j] (j started
    strictly first), and pairs with the same time stamp (ties)"""
    inv = ties = 0
    for i in range(len(starts)):
        for j in range(i + 1, len(starts)):
            inv += starts[i] > starts[j]
            ties += starts[i] == starts[j]
    return inv, ties


def kendall_tau_b(starts):
    """Kendall's tau-b of start time against creation order (1: exactly in
    creation order; creation has no ties, start stamps may)"""
    n = len(starts)
    n0 = n * (n - 1) // 2
    inv, ties = inversions(starts)
    conc = n0 - inv - ties
    den = math.sqrt(n0 * (n0 - ties)) if n0 and n0 > ties else 0
    return (conc - inv) / den if den else float("nan")


def pct(xs, q):
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(q * len(xs)))] if xs else float("nan")
