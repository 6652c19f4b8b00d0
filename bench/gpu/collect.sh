#!/bin/bash
# collect.sh — everything of run.sh's into $OUT (at most 8 files come back).
set -u
W=/tmp/slwork D=${D:-/var/tmp/slc} C=/tmp/slwork/collect
rm -rf $C; mkdir -p $C/logs $C/etc
for b in ch host; do [ -d $W/bench-$b ] && cp -r $W/bench-$b $C/; cp $W/bench-$b.std* $C/ 2>/dev/null; done
cp $W/up.out $C/ 2>/dev/null; cp $D/log/*.log $C/logs/ 2>/dev/null
cp $D/etc/slurm.conf $D/etc/gres.conf $D/etc/cgroup.conf $D/etc/slurmlink-gpu.json $C/etc/ 2>/dev/null
grep -H 'slurmlink-bench-phases' $D/pods/*/*/logs/*/*.log 2>/dev/null >$C/phases.txt
for p in $D/pods/default/*/; do echo "== $p"; tail -3 $p/job.out 2>/dev/null; cat $p/logs/*/*.log 2>/dev/null | tail -3; done >$C/pods.txt 2>&1
nvidia-smi >$C/nvidia-smi.txt 2>&1
tar czf $OUT/results.tgz -C $W collect
cp $C/phases.txt $OUT/ 2>/dev/null
for b in ch host; do for f in runs.csv bench.json; do [ -f $W/bench-$b/$f ] && cp $W/bench-$b/$f $OUT/$b-$f; done; done
echo "phases lines: $(wc -l <$C/phases.txt)"; ls -la $OUT
