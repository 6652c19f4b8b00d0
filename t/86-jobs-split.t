#!/bin/bash
# covers: src/kinds/job/controller.c src/ctl/jobtask.c src/kinds/job/jobpod.c src/kinds/job/jobindex.c src/api/ src/slurmif/acct.c
# 86-jobs-split.t — a Job larger than Slurm's MaxArraySize is split
# honestly: with MaxArraySize=4, an Indexed Job of 10 completions and
# parallelism 3 becomes three arrays (indexes 0-3, 4-7, 8-9 as tasks 0-3,
# 0-3, 0-1), submitted one after the other so that never more than 3 tasks
# of the Job run at once; every index runs once, JOB_COMPLETION_INDEX the
# index (not the task id).
source "$(dirname "$0")/lib.sh"
plan 7

cluster_up --cpus 4 --accounting || bail "cluster up"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
jp() { kc get "$1" -o jsonpath="$2" 2>&1; }
echo "MaxArraySize=4" >>"$CL/etc/slurm.conf"
scontrol reconfigure >/dev/null 2>&1
max4() { scontrol show config | grep -q 'MaxArraySize *= 4$'; }
ok wait_for 30 max4 "slurmctld runs with MaxArraySize=4"

kc apply -f - >/dev/null <<'YAML'
apiVersion: batch/v1
kind: Job
metadata: {name: big}
spec:
  completions: 10
  parallelism: 3
  completionMode: Indexed
  template:
    spec:
      restartPolicy: Never
      containers:
      - {name: c, image: busybox, command: [sh, -c, 'echo "index=$JOB_COMPLETION_INDEX"; sleep 2']}
YAML
uid=$(jp job/big '{.metadata.uid}')
ok kc wait --for=condition=complete job/big --timeout=240s "the Job of 10 completions completes"
is "$(jp job/big '{.status.succeeded} {.status.completedIndexes}')" "10 0-9" "10 succeeded, completedIndexes 0-9"
is "$(for p in $(kc get pods -l job-name=big -o name); do kc logs "$p"; done | sed 's/index=//' | sort -n | tr '\n' ' ')" \
  "0 1 2 3 4 5 6 7 8 9 " "each index once, JOB_COMPLETION_INDEX the index"
rows() { sacct -n -X -P --name=default/big --format=JobID,Comment,Start,End; }
all10() { [ "$(rows | wc -l)" -ge 10 ]; }
wait_for 30 all10
acct=$(rows)
diag "$acct"
is "$(printf '%s\n' "$acct" | cut -d'|' -f2 | sort | uniq -c | awk '{print $1, $NF}' | tr '\n' ' ')" \
  "4 slurmlink:submission=1.0 4 slurmlink:submission=1.1 2 slurmlink:submission=1.2 " "three arrays of 4, 4 and 2 tasks (chunks 0, 1, 2)"
is "$(printf '%s\n' "$acct" | cut -d'|' -f1 | sed 's/.*_//' | sort -n | tr '\n' ' ')" "0 0 0 1 1 1 2 2 3 3 " "task ids within MaxArraySize"
maxrun=$(printf '%s\n' "$acct" | /usr/bin/python3 -c '
import sys, datetime
iv = []
for l in sys.stdin:
    f = l.strip().split("|")
    if len(f) >= 4 and "T" in f[2] and "T" in f[3]:
        iv.append((datetime.datetime.fromisoformat(f[2]), datetime.datetime.fromisoformat(f[3])))
print(max(sum(1 for s2, e2 in iv if s2 <= s < e2) for s, e in iv) if iv else -1)')
ok test "$maxrun" -ge 1 -a "$maxrun" -le 3 "never more than parallelism 3 tasks at once across the arrays (sacct: $maxrun)"
