#!/usr/bin/python3
"""gpu-report.py — the demo's summary of a mixed sbatch + pod GPU load, and
its check that no GPU was held by two jobs at once.

  gpu-report.py --sacct FILE --records FILE... [--pods FILE]

--sacct FILE   the output of
               sacct -X -P -o JobID,JobName,User,Account,NodeList,AllocTRES,Submit,Start,End,ExitCode,State,Comment
               (with its header line; -P: fields separated by '|')
--records FILE text in which each job recorded, from inside itself, the GPU
               Slurm bound it on each of its nodes, one line per node:
               `gpu-record job=JOBID node=NODE gpu=INDEX` (anywhere on a
               line; other lines are ignored: job outputs and pod logs can
               be given as they are)
--pods FILE    `kubectl get pods -A -o json`: a job whose Comment carries
               `slurmlink:uid=UID` is that pod's; its origin is namespace/name,
               and the pod's node (spec.nodeName) and container exit code
               must equal sacct's NodeList and ExitCode

It prints one line per job (id, origin, user, account, nodes, GPUs held as
node:index, queue wait, run time, exit code), then one verdict line. It
exits 1 when two jobs held the same (node, GPU) in overlapping [Start, End)
intervals, when a job with gres/gpu=N in AllocTRES did not record exactly N
(node, GPU) pairs on its own nodes, when a GPU job has not ended, or when a
pod and sacct disagree; 2 on unreadable input."""
import argparse
import datetime
import json
import re
import sys

FIELDS = ["JobID", "JobName", "User", "Account", "NodeList", "AllocTRES", "Submit", "Start",
          "End", "ExitCode", "State", "Comment"]
RECORD = re.compile(r"gpu-record job=(\d+) node=([A-Za-z0-9_.-]+) gpu=(\d+)\b")


def fail(msg):
    print(f"gpu-report: {msg}", file=sys.stderr)
    sys.exit(2)


def when(s):
    try:
        return datetime.datetime.fromisoformat(s)
    except ValueError:
        return None  # Unknown, None: not started or not ended


def read_sacct(path):
    lines = [l for l in open(path, encoding="utf-8").read().splitlines() if l.strip()]
    if not lines:
        fail(f"{path}: empty")
    head = lines[0].split("|")
    missing = [f for f in FIELDS if f not in head]
    if missing:
        fail(f"{path}: no field(s) {', '.join(missing)} in the header line")
    jobs = []
    for l in lines[1:]:
        v = l.split("|", len(head) - 1)
        if len(v) != len(head):
            fail(f"{path}: a line with {len(v)} fields, the header has {len(head)}: {l}")
        j = dict(zip(head, v))
        if "." in j["JobID"]:
            continue  # steps (sacct without -X)
        m = re.search(r"gres/gpu=(\d+)", j["AllocTRES"])
        j["gpus"] = int(m.group(1)) if m else 0
        j["start"], j["end"], j["submit"] = when(j["Start"]), when(j["End"]), when(j["Submit"])
        jobs.append(j)
    return jobs


def read_records(paths):
    rec = {}
    for p in paths:
        for m in RECORD.finditer(open(p, encoding="utf-8", errors="replace").read()):
            rec.setdefault(m.group(1), set()).add((m.group(2), int(m.group(3))))
    return rec


def pods_by_uid(path):
    if not path:
        return {}
    try:
        items = json.load(open(path, encoding="utf-8"))["items"]
    except (ValueError, KeyError) as e:
        fail(f"{path}: not a pod list: {e}")
    return {p["metadata"]["uid"]: p for p in items}


def pod_exit(p):
    for cs in p.get("status", {}).get("containerStatuses", []):
        t = cs.get("state", {}).get("terminated")
        if t:
            return t.get("exitCode")
    return None


def expand_nodes(nodelist):
    """node[1-2],gpu3 -> [node1, node2, gpu3] (Slurm's host list form)"""
    out = []
    for m in re.finditer(r"([^,\[]+)(?:\[([^\]]+)\])?", nodelist):
        prefix, ranges = m.group(1), m.group(2)
        if not ranges:
            out.append(prefix)
            continue
        for r in ranges.split(","):
            a, _, b = r.partition("-")
            for i in range(int(a), int(b or a) + 1):
                out.append(f"{prefix}{i:0{len(a)}d}")
    return out


def secs(a, b):
    return f"{int((b - a).total_seconds())}s" if a and b else "-"


def origin(j, pods, problems):
    m = re.search(r"slurmlink:uid=([^ ,;]+)", j["Comment"])
    if not m:
        return "sbatch"
    p = pods.get(m.group(1))
    if p is None:
        return j["JobName"] + " (pod)"
    name = f"{p['metadata']['namespace']}/{p['metadata']['name']}"
    if j["JobName"] != name:
        problems.append(f"job {j['JobID']}: JobName {j['JobName']} but the pod is {name}")
    if p.get("spec", {}).get("nodeName") != j["NodeList"]:
        problems.append(f"job {j['JobID']}: sacct NodeList {j['NodeList']}, "
                        f"pod {name} spec.nodeName {p.get('spec', {}).get('nodeName')}")
    code = pod_exit(p)
    if code is None or f"{code}:0" != j["ExitCode"]:
        problems.append(f"job {j['JobID']}: sacct ExitCode {j['ExitCode']}, pod {name} exitCode {code}")
    return name


def check_records(j, held, problems):
    nodes = set(expand_nodes(j["NodeList"]))
    if len(held) != j["gpus"]:
        problems.append(f"job {j['JobID']}: AllocTRES gres/gpu={j['gpus']} but it recorded "
                        f"{len(held)} GPU(s)")
    for node, _ in held:
        if node not in nodes:
            problems.append(f"job {j['JobID']}: recorded a GPU on {node}, not one of its nodes {j['NodeList']}")
    if held and not (j["start"] and j["end"]):
        problems.append(f"job {j['JobID']}: holds GPUs but has not ended (Start {j['Start']}, End {j['End']})")


def overlaps(jobs, rec):
    """(node, gpu, job a, job b) for each pair holding one GPU at once"""
    by_gpu = {}
    for j in jobs:
        for g in rec.get(j["JobID"], ()):
            if j["start"] and j["end"]:
                by_gpu.setdefault(g, []).append(j)
    found = []
    for (node, gpu), js in sorted(by_gpu.items()):
        js.sort(key=lambda j: j["start"])
        for i, a in enumerate(js):
            for b in js[i + 1:]:
                if b["start"] < a["end"] and a["start"] < b["end"]:
                    found.append((node, gpu, a, b))
    return found


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--sacct", required=True)
    ap.add_argument("--records", nargs="+", required=True)
    ap.add_argument("--pods")
    a = ap.parse_args()
    try:
        jobs, rec, pods = read_sacct(a.sacct), read_records(a.records), pods_by_uid(a.pods)
    except OSError as e:
        fail(str(e))
    problems = []
    fmt = "{:>6}  {:<22} {:<10} {:<10} {:<10} {:<16} {:>5} {:>5}  {}"
    print(fmt.format("JOBID", "ORIGIN", "USER", "ACCOUNT", "NODES", "GPU(node:idx)", "WAIT", "RUN", "EXIT"))
    for j in jobs:
        held = rec.get(j["JobID"], set())
        if j["gpus"] or held:
            check_records(j, held, problems)
        gpus = ",".join(f"{n}:{i}" for n, i in sorted(held)) or "-"
        print(fmt.format(j["JobID"], origin(j, pods, problems), j["User"], j["Account"], j["NodeList"],
                         gpus, secs(j["submit"], j["start"]), secs(j["start"], j["end"]), j["ExitCode"]))
    for node, gpu, x, y in overlaps(jobs, rec):
        problems.append(f"OVERLAP: {node} GPU {gpu} held by job {x['JobID']} ({x['Start']}..{x['End']}) "
                        f"and job {y['JobID']} ({y['Start']}..{y['End']})")
    for p in problems:
        print(p)
    n_gpu = len({g for s in rec.values() for g in s})
    n_held = sum(len(rec.get(j["JobID"], ())) for j in jobs)
    if problems:
        print(f"FAILED: {len(problems)} problem(s) above")
        return 1
    print(f"no GPU was held by two jobs at once: {n_held} holdings of {n_gpu} (node, GPU) pair(s) "
          f"by {sum(1 for j in jobs if j['gpus'])} GPU job(s), from their recorded indices and sacct's Start/End")
    return 0


if __name__ == "__main__":
    sys.exit(main())
