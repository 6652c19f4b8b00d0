#!/bin/bash
# covers: src/bench/ src/cmd/bench.c bench/ src/slurmif/acct.c
# slow
# serial: a benchmark harness of 200 pods at once (its checks are of correctness, not speed): not beside another heavy file
# bench/soak.py, bench/start-order.py, bench/submit-throughput.py,
# bench/quota-scale.py, bench/pending-idle.py, bench/pending-hold.py and bench/burst-delete.py at a small size on a
# private cluster of two nodes with accounting (docs/benchmarks.md): the harnesses work and the soak's
# invariants hold (correctness, not timing): 200 pods
# created, run, listed and deleted with three watchers attached, each
# watcher's view ends as the final list, one Slurm job per pod. sacct and
# squeue are read here again, independently of the soak's own checks.
source "$(dirname "$0")/lib.sh"
# the bench compares every path with slurmrestd of the Slurm that runs the jobs
[ -z "${SL_SLURM_PREFIX:-}" ] || [ -x "$SL_SLURM_PREFIX/sbin/slurmrestd" ] ||
  skip_all "the Slurm of $SL_SLURM_PREFIX has no sbin/slurmrestd (built only where its configure finds libjwt and http-parser)"
plan 25

PY=/usr/bin/python3
N=200
cluster_up --nodes 2 --cpus 8 --accounting || bail "cluster up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
since=$(date +%Y-%m-%dT%H:%M:%S)

$PY "$ROOT/bench/soak.py" --dir "$CL" --pods $N --sleep 0.2 --timeout 900 --json "$CL/soak.json" \
  >"$CL/soak.out" 2>&1
rc=$?
is "$rc" 0 "bench/soak.py --pods $N exits 0" || diag "$(tail -20 "$CL/soak.out")"
ok grep -q '^OK: every check held' "$CL/soak.out" "and says every check held"
j() { $PY -c "import json,sys; d=json.load(open('$CL/soak.json')); print($1)" 2>&1; }
is "$(j 'd["jobs"]')" $N "its record: $N Slurm jobs for $N pods"
is "$(j 'all(v >= 3 * d["pods"] for v in d["changes"].values()) and len(d["changes"]) == 3')" True \
  "each of the 3 watchers saw at least ADDED, one change and DELETED of each pod" || diag "$(j 'd["changes"]')"
ns=$(sed -n 's/.*namespace \(soak-[0-9]*\).*/\1/p' "$CL/soak.out")
jobs=$(sacct -a -X -n -P -S "$since" -o JobName,State | grep "^$ns/")
is "$(cut -d'|' -f1 <<<"$jobs" | sort -u | wc -l)|$(wc -l <<<"$jobs")|$(grep -vc '|COMPLETED$' <<<"$jobs")" \
  "$N|$N|0" "sacct: $N pods' jobs, one each, all COMPLETED" || diag "$(grep -v '|COMPLETED$' <<<"$jobs" | head -5)"
is "$(squeue -h -o %j | grep -c "^$ns/")" 0 "squeue: none of the soak's jobs left"
is "$(j 'd["end"][1] <= d["bare"][1]')" True "slurmlinkd's open fds are back to the count before the soak" ||
  diag "$(j '(d["bare"], d["end"])')"

$PY "$ROOT/bench/start-order.py" --dir "$CL" --pods 20 --sleep 1 --json "$CL/order.json" >"$CL/order.out" 2>&1
is "$?" 0 "bench/start-order.py --pods 20 exits 0" || diag "$(tail -20 "$CL/order.out")"
o() { $PY -c "import json,sys; d=json.load(open('$CL/order.json')); print($1)" 2>&1; }
is "$(o 'sorted(d) == ["hostpods", "mixed", "pods", "sbatch"] and all(r["n"] == 20 for r in d.values())')" True \
  "its record has the four paths of 20 jobs each"
is "$(o 'all(0 <= r["inversions"] <= r["pairs"] == 190 and -1 <= r["tau_b"] <= 1 and r["all_started_s"] > 0 for r in d.values()) and 0 <= d["mixed"]["pods_overtaken"] + d["mixed"]["sbatch_overtaken"] <= d["mixed"]["cross_pairs"] == 100')" \
  True "inversions, tau-b, start times and overtakings in their ranges" || diag "$(cat "$CL/order.out")"
is "$(o 'all(0 <= r[k + "_start_p50"] <= r[k + "_start_p90"] <= r["all_started_s"] + 0.001 for r in d.values() for k in ("pod", "sbatch") if k + "_start_p50" in r) and all(k + "_start_p90" in d["mixed"] for k in ("pod", "sbatch"))')" \
  True "each kind's start after the first creation, p50 <= p90 <= the last start" || diag "$(cat "$CL/order.out")"
is "$(o 'all(r["cpu_ms_per_job"] > 0 for r in d.values())')" True \
  "each path's machine CPU a job, counted" || diag "$(cat "$CL/order.out")"

# submission throughput: each path's jobs all submitted, and the nodes the
# bench drained to hold them are given back
timeout 600 $PY "$ROOT/bench/submit-throughput.py" --dir "$CL" --pods 30 --repeat 1 --purge \
  --only api,slurmrestd,sbatch --strace --slurmlink "$SLURMLINK" >"$CL/tput.out" 2>&1
is "$?" 0 "bench/submit-throughput.py --pods 30 exits 0" || diag "$(tail -20 "$CL/tput.out")"
is "$(grep -c '^  N=30 round 0 .* errors 0' "$CL/tput.out")|$(grep -c ': 30 of 30 with a job id' "$CL/tput.out")" "3|1" \
  "api, slurmrestd and sbatch: no errors; the api's 30 pods all carry a job id" || diag "$(cat "$CL/tput.out")"
is "$(scontrol show node -o | grep -c 'State=[A-Z+]*DRAIN')" 0 "no node is left drained afterwards" || diag "$(sinfo -N)"
# --strace: the api round's syscalls per pod, in all and by name (a pod
# costs at least its submission's connect, sends and receives)
is "$(grep -cE '^      syscalls per pod [0-9]{2,}\.[0-9]: [a-z_0-9]+ [0-9.]+(, [a-z_0-9]+ [0-9.]+){9}$' "$CL/tput.out")" 1 \
  "bench/submit-throughput.py --strace: the api round's syscalls per pod, the ten most frequent named" || diag "$(cat "$CL/tput.out")"

# the store's two locks over the api round: how busy, and per pod
is "$(grep -cE '^      store locks over the round: writer held [0-9]+ % of the [0-9.]+ s, per pod [0-9.]+ takes, [0-9.]+ ms held, [0-9.]+ ms waited; reader held [0-9]+ % ' "$CL/tput.out")" 1 \
  "bench/submit-throughput.py: the store's writer and reader locks over the api round (slurmlink_store_lock_*)" || diag "$(grep -A3 'by thread' "$CL/tput.out")"
is "$(grep -cE '; drafts [0-9]+ written as drafted, [0-9]+ made again under the writer;' "$CL/tput.out")" 1 \
  "... and the job ids the workers drafted (slurmlink_store_drafts_total)" || diag "$(grep 'store locks' "$CL/tput.out")"
is "$(grep -cE '; commits [0-9.]+ a pod, [0-9.]+ ms a pod committing; group commits [0-9]+ of [0-9]+ creates$' "$CL/tput.out")" 1 \
  "... the store's commits, the time in them and the group commits (slurmlink_store_commit_seconds_total, _group_commits_total, _grouped_writes_total)" || diag "$(grep 'store locks' "$CL/tput.out")"

# each round's CPU per pod by party, munged's included, and the machine's
# (every process and the kernel) with how busy it kept the cores
is "$(grep -cE '^      CPU ms per pod: front [0-9.]+ slurmctld [0-9.]+ client [0-9.]+ munged [0-9.]+; machine [0-9]+\.[0-9]{2} \([0-9]+ % of [0-9]+ cores busy\)' "$CL/tput.out")" 3 \
  "bench/submit-throughput.py: CPU per pod by party, munged's, and the machine's, for each of the three paths" || diag "$(grep 'CPU ms' "$CL/tput.out")"

# a quota's cost as the namespace grows: both namespaces' rows, every step
timeout 600 $PY "$ROOT/bench/quota-scale.py" --dir "$CL" --pods 40 --step 20 --neighbour 30 --slurmlink "$SLURMLINK" >"$CL/qs.out" 2>&1
is "$?|$(grep -cE '^  running, (no quota|quota) +creates/s per step: [0-9]+ [0-9]+$' "$CL/qs.out")|$(grep -c 'a neighbour namespace with a quota and 30 pods' "$CL/qs.out")" "0|2|1" \
  "bench/quota-scale.py --pods 40 --step 20 --neighbour 30: a rate per step, without and with the quota" || diag "$(cat "$CL/qs.out")"

# a queue of pending pods at rest: both daemons' CPU and the poll's views
timeout 300 $PY "$ROOT/bench/pending-idle.py" --dir "$CL" --pods 20 --settle 1 --seconds 3 --slurmlink "$SLURMLINK" >"$CL/idle.out" 2>&1
is "$?|$(grep -cE '^  running +CPU s per s: slurmlinkd [0-9.]+ slurmctld [0-9.]+ +views/s applied [0-9]+ unchanged [0-9]+$' "$CL/idle.out")|$(scontrol show node -o | grep -c 'State=[A-Z+]*DRAIN')" "0|1|0" \
  "bench/pending-idle.py --pods 20: CPU and views per second, the nodes given back" || diag "$(cat "$CL/idle.out")"

# a queue of pending pods whose jobs are all held at once: the writer's
# figures per view, each view written as a draft, the nodes given back
timeout 300 $PY "$ROOT/bench/pending-hold.py" --dir "$CL" --pods 20 --slurmlink "$SLURMLINK" >"$CL/hold.out" 2>&1
is "$?|$(grep -cE '^  running +views (20|21|22): writer held [0-9.]+ us a view \([0-9.]+ s\), taken [0-9.]+, commits [0-9.]+, drafts (1\.00|0\.9[0-9]) \(\+[0-9]+ redone\); controller CPU [0-9]+ us a view$' "$CL/hold.out")|$(scontrol show node -o | grep -c 'State=[A-Z+]*DRAIN')" "0|1|0" \
  "bench/pending-hold.py --pods 20: the writer's figures per view, each view a draft, the nodes given back" || diag "$(cat "$CL/hold.out")"

# a burst, then its namespace deleted: nothing left behind, nodes given back
timeout 300 $PY "$ROOT/bench/burst-delete.py" --dir "$CL" --pods 40 --repeat 1 --settle 30 --slurmlink "$SLURMLINK" >"$CL/bd.out" 2>&1
is "$?|$(grep -cE '^  round 0 running +submitted +[0-9]+/s errors 0; namespace gone after +[0-9.]+ s, its folders after +[0-9.]+ s; folders left 0, jobs active 0, fell behind 0$' "$CL/bd.out")|$(scontrol show node -o | grep -c 'State=[A-Z+]*DRAIN')" "0|1|0" \
  "bench/burst-delete.py --pods 40: submitted, deleted, no folder or job left, the nodes given back" || diag "$(cat "$CL/bd.out")"

# instructions per pod: the plain daemon (not a sanitizer build: valgrind
# cannot run those) under callgrind for one small api round; last, since it
# leaves that daemon running
timeout 600 $PY "$ROOT/bench/submit-throughput.py" --dir "$CL" --pods 10 --repeat 1 --purge --only api \
  --callgrind --daemons cg="$ROOT/build/slurmlinkd" --slurmlink "$SLURMLINK" >"$CL/cg.out" 2>&1
is "$?|$(grep -cE '^  N=10 round 0 api:cg .* errors 0' "$CL/cg.out")|$(grep -cE 'slurmlinkd instructions per pod [0-9,]{6,}$' "$CL/cg.out")" "0|1|1" \
  "bench/submit-throughput.py --callgrind: slurmlinkd's instructions per pod counted" || diag "$(cat "$CL/cg.out")"
