#!/usr/bin/env python3
"""report.py — the real-GPU study's tables and chart from one `slurmlink bench` run.

usage: bench/gpu/report.py [NAME=]RUNS.csv [[NAME=]RUNS.csv ...] PHASES.txt [--svg OUT.svg] [--label TEXT]

RUNS.csv is the bench's runs.csv (several, each named, side by side in one
table and chart: e.g. host=... container=...; each set's ratios are to its
own sbatch); PHASES.txt the `slurmlink-bench-phases` lines
of every run's container log (grep -H over the pod folders, as collect.sh
makes it). Splits each warm run's end to end into the comparison study's
phases: ack, queue + start-up (Slurm, job launch, shim, private root,
ch-run), import + model load, first inference, steady inference, the rest of
the work (interpreter start before the first line of infer.py, and its exit),
completion visibility; prints them per path with the ratio to sbatch
(per-round ratio: mean, standard deviation, min..max) and Validation A
(steady images/s). Writes an SVG of the phases beside the study's published
T4 numbers (labelled as theirs). Standard library only.
"""
import csv
import re
import statistics as st
import sys

STUDY = [  # the comparison study's published end-to-end means, YOLOv8n on a Tesla T4 (theirs)
    ("Over", 4.02), ("Under", 4.67), ("Adjacent-K8s", 4.77), ("Adjacent-Slurm", 5.10),
    ("Distant", 8.64), ("Converged", 11.33)]
PHASES = [("ack", "#4c72b0"), ("queue + start-up", "#dd8452"), ("import + model load", "#55a868"),
          ("first inference", "#c44e52"), ("steady inference", "#8172b3"),
          ("interpreter + exit", "#937860"), ("visibility", "#da8bc3")]


def load(runs_csv, phases_txt, name=""):
    ph = {}
    for line in open(phases_txt):
        m = re.search(r"/pods/[^/]+/([^/]+)/logs/", line)
        kv = dict(re.findall(r"(\w+)=([^ \n]+)", line.split("slurmlink-bench-phases", 1)[-1]))
        if m and kv:
            ph[m.group(1)] = kv
    rows = []
    for r in csv.DictReader(open(runs_csv)):
        if r["warmup"] != "0" or r["error"]:
            continue
        r["set"] = name
        r["path"] = f"{name} {r['path']}" if name else r["path"]
        # a pod of slurmlinkd's (kubectl, api) has its folder removed when the bench
        # deletes it (a bench without --keep-pods): no in-job line, the four phases only
        kv = ph.get(f"{r['pod']}-{r['uid']}")
        work = float(r["work_s"])
        r["work"] = work
        r["e2e"] = float(r["e2e_s"])
        r["kv"] = kv
        if kv:
            imp, load_, first, steady = (float(kv[k]) for k in ("import", "load", "first", "steady"))
            r["p"] = [float(r["ack_s"]), float(r["queue_s"]), imp + load_, first, steady,
                      work - imp - load_ - first - steady, float(r["visibility_s"])]
            r["ips"] = float(kv["ips"])
        else:
            r["p"] = [float(r["ack_s"]), float(r["queue_s"]), None, None, None, None,
                      float(r["visibility_s"])]
        rows.append(r)
    return rows


def fmt(v):
    return f"{v:.3f}"


def table(rows):
    paths = list(dict.fromkeys(r["path"] for r in rows))
    base = {(r["set"], r["index"]): r["e2e"] for r in rows if r["path"].endswith("sbatch")}
    out = ["| path | runs | end to end mean (median) | " + " | ".join(p for p, _ in PHASES) +
           " | work (all in the job) | vs sbatch: per-round ratio mean ± sd (min–max) |"
           " steady images/s mean ± sd |",
           "|---|---|---|" + "---|" * len(PHASES) + "---|---|---|"]
    for p in paths:
        rs = [r for r in rows if r["path"] == p]
        e = [r["e2e"] for r in rs]
        means = []
        for i in range(len(PHASES)):
            v = [r["p"][i] for r in rs if r["p"][i] is not None]
            means.append(fmt(st.mean(v)) if v else "–")
        ratios = [r["e2e"] / base[(r["set"], r["index"])] for r in rs if (r["set"], r["index"]) in base]
        ips = [r["ips"] for r in rs if "ips" in r]
        rat = ("1 (baseline)" if p.endswith("sbatch") else
               f"{st.mean(ratios):.3f} ± {st.stdev(ratios):.3f} ({min(ratios):.2f}–{max(ratios):.2f})")
        ipt = f"{st.mean(ips):.2f} ± {st.stdev(ips):.2f}" if len(ips) > 1 else "–"
        out.append(f"| {p} | {len(rs)} | {fmt(st.mean(e))} ({fmt(st.median(e))}) | " +
                   " | ".join(means) + f" | {fmt(st.mean(r['work'] for r in rs))} | {rat} | {ipt} |")
    return out, paths


def svg(rows, paths, path_out, label):
    means = {}
    for p in paths:
        rs = [r for r in rows if r["path"] == p]
        if all(r["p"][2] is not None for r in rs):
            means[p] = [st.mean(r["p"][i] for r in rs) for i in range(len(PHASES))]
        else:  # the work unsplit, in a colour of its own
            m = [st.mean(r["p"][i] for r in rs) for i in (0, 1)]
            means[p] = m + [st.mean(r["work"] for r in rs), None, None, None,
                            st.mean(r["p"][6] for r in rs)]
    bars = [(f"slurmlink {p}", means[p]) for p in paths] + [(f"study {n} (T4, theirs)", [v]) for n, v in STUDY]
    top = max(sum(d for d in v if d) for _, v in bars)
    left = max(230, 7 * max(len(n) for n, _ in bars) + 10)
    W, H, bh, gap = 670 + left, 60 + 28 * len(bars) + 90, 18, 10
    scale = (W - left - 80) / top
    s = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
         f'<text x="10" y="20" font-size="14">{label}</text>']
    y = 40
    for name, v in bars:
        s.append(f'<text x="{left - 6}" y="{y + 13}" text-anchor="end">{name}</text>')
        x = left
        unsplit = len(v) > 1 and v[3] is None
        for i, d in enumerate(v):
            if d is None:
                continue
            col = PHASES[i][1] if len(v) > 1 else "#999999"
            col = "#444444" if unsplit and i == 2 else col
            s.append(f'<rect x="{x:.1f}" y="{y}" width="{max(d, 0) * scale:.1f}" height="{bh}" fill="{col}"/>')
            x += max(d, 0) * scale
        s.append(f'<text x="{x + 4:.1f}" y="{y + 13}">{sum(d for d in v if d):.2f} s</text>')
        y += bh + gap
    for t in range(0, int(top) + 2, 2):
        xx = left + t * scale
        s.append(f'<line x1="{xx:.1f}" y1="{y}" x2="{xx:.1f}" y2="{y + 5}" stroke="black"/>')
        s.append(f'<text x="{xx:.1f}" y="{y + 18}" text-anchor="middle">{t}</text>')
    y += 34
    x = 10
    for n, c in PHASES + [("work, not split (pod folder removed)", "#444444"),
                          ("study: end to end only", "#999999")]:
        s.append(f'<rect x="{x}" y="{y}" width="12" height="12" fill="{c}"/><text x="{x + 16}" y="{y + 11}">{n}</text>')
        x += 24 + 7 * len(n)
        if x > W - 150:
            x, y = 10, y + 18
    s.append("</svg>")
    open(path_out, "w").write("\n".join(s) + "\n")


def main(argv):
    if len(argv) < 3:
        sys.exit(__doc__)
    pos = [a for i, a in enumerate(argv[1:], 1) if not a.startswith("--") and argv[i - 1] not in ("--svg", "--label")]
    rows = []
    for spec in pos[:-1]:
        name, _, f = spec.rpartition("=")
        rows += load(f, pos[-1], name)
    out, paths = table(rows)
    print("\n".join(out))
    seen = [r["kv"] for r in rows if r["kv"]]
    kv = seen[0] if seen else {}
    print(f"\n{len(rows)} warm runs, {len(seen)} with the in-job line; gpu {kv.get('gpu')}, "
          f"torch {kv.get('torch')}, CUDA_VISIBLE_DEVICES {sorted({k.get('cvd') for k in seen})}, "
          f"/dev/nvidia* seen: {sorted({k.get('devs', '') for k in seen})}")
    if "--svg" in argv:
        lab = argv[argv.index("--label") + 1] if "--label" in argv else "end to end, warm mean (s)"
        svg(rows, paths, argv[argv.index("--svg") + 1], lab)


if __name__ == "__main__":
    main(sys.argv)
