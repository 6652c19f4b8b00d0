#!/bin/bash
# covers: src/bench/ src/cmd/bench.c bench/
# serial: a benchmark (its result files are checked for form, not speed): not beside another heavy file
# slurmlink bench on a private cluster with one GPU: a short latency bench
# (2 runs after 1 warm-up) of a GPU pod over every path, then a small
# throughput batch. The result files are checked independently of the code
# that wrote them: structure, every time positive and ordered, statistics and
# ratios recomputed from the raw runs against the sbatch path of the same
# bench. A path that does not work fails its own test points.
source "$(dirname "$0")/lib.sh"
# the bench compares every path with slurmrestd of the Slurm that runs the jobs
[ -z "${SL_SLURM_PREFIX:-}" ] || [ -x "$SL_SLURM_PREFIX/sbin/slurmrestd" ] ||
  skip_all "the Slurm of $SL_SLURM_PREFIX has no sbin/slurmrestd (built only where its configure finds libjwt and http-parser)"
plan 89

PY=/usr/bin/python3
PATHS="sbatch kubectl api slurmrestd"
export USER=${USER:-$(id -un)}
cluster_up --gpus 1 || bail "cluster up"
is "$(sinfo -h -N -o '%N %G')" "node1 gpu:1" "private cluster up: node1 with gpu:1"

# checker_results FILE: one test point per line "PASS|FAIL<tab>desc[<tab>detail]"
# that a Python checker below wrote; anything else it printed (a traceback)
# is one failing point. The fixed plan catches a checker that stopped early.
checker_results() {
  local st desc detail
  while IFS=$'\t' read -r st desc detail; do
    case "$st" in
      PASS|FAIL) is "$st" PASS "$desc"; [ "$st" = FAIL ] && [ -n "${detail:-}" ] && diag "$detail" ;;
      *) is "$st $desc" "" "checker output is PASS/FAIL lines only" ;;
    esac
  done <"$1"
}

# --- usage errors ---------------------------------------------------------------------
out=$("$SLURMLINK" bench --dir "$CL" --paths sbatch,nope 2>&1); rc=$?
is "$rc" 1 "an unknown path is refused"
like "$out" "unknown path 'nope'" "and named"
out=$("$SLURMLINK" bench --dir "$CL" --runs 0 2>&1); rc=$?
is "$rc" 2 "--runs 0 is a usage error"
out=$("$SLURMLINK" bench --dir /tmp 2>&1); rc=$?
like "$out" "not a cluster folder" "a folder that is not a cluster is refused"
"$SLURMLINK" bench --help | grep -q -- "--throughput N"
is "$?" 0 "--help lists --throughput"

# --- latency: a GPU pod, every path ---------------------------------------------------
cat >"$CL/gpu-pod.yaml" <<'YAML'
apiVersion: v1
kind: Pod
metadata:
  name: replaced-by-the-bench
spec:
  restartPolicy: Never
  containers:
  - name: main
    image: busybox
    command: ["sh", "-c", "echo gpu=$CUDA_VISIBLE_DEVICES"]
    resources:
      limits: {nvidia.com/gpu: 1, cpu: "1", memory: 64Mi}
YAML
OUT=$CL/bench-out
"$SLURMLINK" bench --dir "$CL" --runs 2 --warmup 1 --timeout 120 --workload "$CL/gpu-pod.yaml" --keep-pods \
  --out "$OUT" >"$CL/bench.stdout" 2>"$CL/bench.stderr"
rc=$?
is "$rc" 0 "bench over all four paths exits 0 (every run worked and is ordered)"
[ "$rc" = 0 ] || { diag "stderr:"; tail -n 25 "$CL/bench.stderr" | sed 's/^/#   /'; }
ok test -d "$CL/images/busybox+latest" "the busybox image was imported into the cluster's store"
for f in runs.csv summary.csv bench.json bench.svg; do
  ok test -s "$OUT/$f" "$f written"
done
table=$(cat "$CL/bench.stdout")
like "$table" "path +runs +mean +median +min +max" "the table has its header"
like "$table" "End to end, warm mean" "and the bar chart"
like "$(cat "$CL/bench.stderr")" "\[3/3\] slurmrestd: run 2" "progress lines on stderr"

# every check below reads only the files; the Python is an independent reader
"$PY" - "$OUT" "$PATHS" >"$CL/checks" 2>&1 <<'PY'
import csv, json, math, os, statistics, sys, xml.etree.ElementTree as ET
out, paths = sys.argv[1], sys.argv[2].split()
def res(good, desc, detail=""):
    print(("PASS" if good else "FAIL") + "\t" + desc + ("\t" + str(detail) if detail and not good else ""))
try:
    j = json.load(open(os.path.join(out, "bench.json")))
except Exception as e:
    res(False, "bench.json parses", e); sys.exit(0)
res(True, "bench.json parses")
res(set(j) >= {"meta", "runs", "summary", "throughput"}, "bench.json has meta, runs, summary, throughput", sorted(j))
res(j["meta"].get("command", "").startswith("slurmlink bench"), "meta records the command", j["meta"].get("command"))
res(j["meta"].get("runs") == 2 and j["meta"].get("warmup") == 1, "meta records runs 2, warm-up 1")
res("batch_sched_delay" in j["meta"].get("scheduler_parameters", ""), "meta records the scheduler parameters every path shared", j["meta"].get("scheduler_parameters"))
runs = j["runs"]
res(len(runs) == 3 * len(paths), "3 runs per path in bench.json", len(runs))
T = ["t_submit_us", "t_ack_us", "t_start_us", "t_end_us", "t_seen_us"]
with open(os.path.join(out, "runs.csv"), newline="") as f:
    rows = list(csv.reader(f))
hdr = rows[0]
res(hdr[:13] == ["path", "batch", "index", "warmup", "pod", "uid", "job_id", "phase"] + T, "runs.csv header", hdr)
res(all(len(r) == len(hdr) for r in rows), "runs.csv: every row has every column")
res(len(rows) - 1 == len(runs), "runs.csv: one row per run", len(rows) - 1)
with open(os.path.join(out, "summary.csv"), newline="") as f:
    srows = list(csv.DictReader(f))
res([r["path"] for r in srows] == paths, "summary.csv: one row per path, in order", [r["path"] for r in srows])
summ = {s["path"]: s for s in j["summary"]}
e2e = {}
for p in paths:
    mine = [r for r in runs if r["path"] == p and r["batch"] == 0]
    warm = [r for r in mine if not r["warmup"]]
    bad = [r.get("error") for r in mine if r.get("error")]
    res(len(mine) == 3 and len(warm) == 2 and not bad, p + ": 1 warm-up and 2 runs, none failed", bad[:1])
    times_ok = all(all(isinstance(r[t], int) and r[t] > 0 for t in T) for r in mine)
    ordered = all(all(r[T[i]] <= r[T[i + 1]] for i in range(4)) for r in mine)
    res(mine and times_ok, p + ": every time recorded and positive", [[r[t] for t in T] for r in mine][:1])
    res(mine and ordered, p + ": t_submit <= t_ack <= t_start <= t_end <= t_seen in every run",
        [[r[t] for t in T] for r in mine if not all(r[T[i]] <= r[T[i + 1]] for i in range(4))][:1])
    csvmine = [r for r in rows[1:] if r[0] == p]
    res(len(csvmine) == 3 and all(int(r[hdr.index(t)]) == jr[t] for r, jr in zip(csvmine, mine) for t in T),
        p + ": runs.csv carries the same raw times as bench.json")
    res(all(r["job_id"].isdigit() for r in mine), p + ": every run names its Slurm job", [r["job_id"] for r in mine])
    gpu = []
    for r in mine:
        try:
            gpu.append(open(os.path.join(r["pod_dir"], "logs/main/0.log")).read())
        except Exception as e:
            gpu.append(str(e))
    res(mine and all(" stdout F gpu=0\n" in g for g in gpu), p + ": every container saw the GPU Slurm gave it", gpu[:1])
    e = [(r["t_seen_us"] - r["t_submit_us"]) / 1e6 for r in warm if not r.get("error")]
    e2e[p] = e
    s = summ.get(p, {})
    st = s.get("e2e_s", {})
    if len(e) == 2:
        good = (s.get("ok") == 2 and abs(st["mean"] - statistics.mean(e)) < 1e-5 and abs(st["median"] - statistics.median(e)) < 1e-5
                and abs(st["min"] - min(e)) < 1e-5 and abs(st["max"] - max(e)) < 1e-5)
        res(good, p + ": mean, median, min, max recomputed from the raw times agree", (st, e))
        ph = s.get("phases_s", {})
        res(abs(sum(ph[k]["mean"] for k in ("ack", "queue", "work", "visibility")) - st["mean"]) < 1e-5,
            p + ": phase means add up to the end-to-end mean", ph)
    else:
        res(False, p + ": mean, median, min, max recomputed from the raw times agree", "no good warm runs")
        res(False, p + ": phase means add up to the end-to-end mean", "no good warm runs")
base = e2e.get("sbatch", [])
for p in paths[1:]:
    s = summ.get(p, {})
    vb = s.get("vs_baseline") or {}
    if len(base) == 2 and len(e2e[p]) == 2:
        want = statistics.mean(e2e[p]) / statistics.mean(base)
        res(abs(vb.get("ratio_mean", -1) - want) < 1e-5, p + ": ratio = its mean / sbatch's mean in this bench", (vb, want))
        want = statistics.median(e2e[p]) / statistics.median(base)
        res(abs(vb.get("ratio_median", -1) - want) < 1e-5, p + ": median ratio against this bench's sbatch", (vb, want))
        pair = {}
        for r in runs:
            if r["batch"] == 0 and not r["warmup"] and not r.get("error") and r["path"] in (p, "sbatch"):
                pair.setdefault(r["index"], {})[r["path"]] = (r["t_seen_us"] - r["t_submit_us"]) / 1e6
        d = [v[p] - v["sbatch"] for v in pair.values() if len(v) == 2]
        res(len(d) == 2 and abs(vb.get("paired_median_s", -9) - statistics.median(d)) < 1e-5,
            p + ": paired difference against sbatch's run of the same round", (vb, d))
    else:
        res(False, p + ": ratio = its mean / sbatch's mean in this bench", "no good runs on %s or sbatch" % p)
        res(False, p + ": median ratio against this bench's sbatch", "no good runs")
        res(False, p + ": paired difference against sbatch's run of the same round", "no good runs")
res(summ.get("sbatch", {}).get("vs_baseline") is None, "sbatch is the baseline (no ratio against itself)")
try:
    svg = ET.parse(os.path.join(out, "bench.svg")).getroot()
    ok = svg.tag == "{http://www.w3.org/2000/svg}svg"
except Exception as e:
    ok, svg = False, None
res(ok, "bench.svg is an XML svg document")
if svg is not None:
    ns = "{http://www.w3.org/2000/svg}"
    texts = " ".join("".join(t.itertext()) for t in svg.iter(ns + "text"))
    res(all(p in texts for p in paths), "bench.svg names every path")
    rects = [r for r in svg.iter(ns + "rect") if r.find(ns + "title") is not None]
    res(len(rects) == 4 * len([p for p in paths if len(e2e[p]) == 2]) and len(rects) > 0,
        "bench.svg: one stacked bar of 4 phases per path with good runs", len(rects))
    res(all(float(r.get("width")) >= 0 and not math.isnan(float(r.get("width"))) for r in rects), "bench.svg: bar widths are numbers >= 0")
PY
checker_results "$CL/checks"

# every path's jobs ran as the same user (the bench's --run-as, nobody): a path whose
# jobs ran as someone else would not compare like with like (a root job can write
# where the others cannot, such as a shared Python's bytecode)
users=$(awk -F, 'NR > 1 && $7 != "" {print $1, $7}' "$OUT/runs.csv" | while read -r p j; do
  echo "$p $(scontrol show job "$j" -o 2>/dev/null | grep -o 'UserId=[^( ]*' | cut -d= -f2)"; done | sort -u | tr '\n' ' ')
is "$users" "api nobody kubectl nobody sbatch nobody slurmrestd nobody " "every path's jobs ran as nobody (runs.csv's job ids, scontrol)"

# slurmrestd was the bench's own and is gone again
ok test -z "$(ls "$CL/run" | grep bench-restd)" "slurmrestd's socket removed"
left=$(for p in $(procs_of "$CL"); do tr '\0' ' ' <"/proc/$p/cmdline" 2>/dev/null; echo; done | grep -c '^slurmrestd' || true)
is "$left" 0 "no slurmrestd left running"

# --- throughput: pods submitted at once -------------------------------------------------
TOUT=$CL/tput-out
"$SLURMLINK" bench --dir "$CL" --throughput 4 --warmup 1 --timeout 120 --out "$TOUT" --json \
  >"$CL/tput.json" 2>"$CL/tput.stderr"
rc=$?
is "$rc" 0 "throughput bench (4 pods at once per path) exits 0"
[ "$rc" = 0 ] || { diag "stderr:"; tail -n 15 "$CL/tput.stderr" | sed 's/^/#   /'; }
"$PY" - "$TOUT" "$CL/tput.json" "$PATHS" >"$CL/checks2" 2>&1 <<'PY'
import csv, json, sys
out, printed, paths = sys.argv[1], sys.argv[2], sys.argv[3].split()
def res(good, desc, detail=""):
    print(("PASS" if good else "FAIL") + "\t" + desc + ("\t" + str(detail) if detail and not good else ""))
try:
    j = json.load(open(printed))
    res(True, "--json prints the results as JSON")
except Exception as e:
    res(False, "--json prints the results as JSON", e); sys.exit(0)
rows = list(csv.DictReader(open(out + "/throughput.csv", newline="")))
res([r["path"] for r in rows] == paths, "throughput.csv: one row per path", [r["path"] for r in rows])
for p in paths:
    t = next((x for x in j["throughput"] if x["path"] == p), None)
    res(t and t["pods"] == 4 and t["seen"] == 4 and t["failed"] == 0, p + ": 4 pods at once, all seen finished", t and t.get("first_error"))
    good = t and 0 < t["all_acked_s"] <= t["all_started_s"] <= t["all_finished_s"] <= t["all_seen_s"] and t["jobs_per_s"] > 0
    res(good, p + ": all acknowledged <= all started <= all finished <= all seen, jobs/s > 0", t)
    pods = [r for r in j["runs"] if r["path"] == p and r["batch"] == 1]
    if t and pods:
        t0 = min(r["t_submit_us"] for r in pods)
        want = 4 / ((max(r["t_seen_us"] for r in pods) - t0) / 1e6)
        res(abs(t["jobs_per_s"] - want) < 1e-3, p + ": jobs/s recomputed from the raw times", (t["jobs_per_s"], want))
    else:
        res(False, p + ": jobs/s recomputed from the raw times", "no batch")
PY
checker_results "$CL/checks2"

done_testing
