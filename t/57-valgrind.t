#!/bin/bash
# covers: src/daemon/ src/ctl/ src/api/ src/store/
# alone: valgrind is slow and timing-sensitive on a loaded machine
# slurmlinkd with its controllers under valgrind, through a pod's whole life
# on the real cluster: no memory errors, no leaks. The daemon is stopped by
# the test itself (SIGTERM, then waiting as long as valgrind's exit-time leak
# check takes), not by `slurmlink down`, which would SIGKILL it after 10 s;
# valgrind's exit status (9: errors or definite/indirect leaks) and its
# ERROR SUMMARY decide.
source "$(dirname "$0")/lib.sh"
plan 10

VG=$(tmpdir); chmod 755 "$VG"   # the job user runs the shim copied here
on_exit "rm -rf '$VG'"
# the pidfile names this wrapper: it passes TERM on to valgrind and keeps
# valgrind's exit status in $VG/exit
cat > "$VG/slurmlinkd" <<SH
#!/bin/bash
trap 'kill -TERM \$vg 2>/dev/null' TERM INT
valgrind --error-exitcode=9 --leak-check=full --show-leak-kinds=definite,indirect \
  --errors-for-leak-kinds=definite,indirect --track-origins=yes --log-file="$VG/valgrind.log" \
  --suppressions="$ROOT/t/valgrind.supp" "$ROOT/build/slurmlinkd" "\$@" &
vg=\$!
while :; do wait \$vg; rc=\$?; kill -0 \$vg 2>/dev/null || break; done
echo \$rc >"$VG/exit"
exit \$rc
SH
chmod +x "$VG/slurmlinkd"
cp "$ROOT/build/slurmlink-shim" "$VG/slurmlink-shim"   # the daemon finds the shim beside itself
cluster_up --gpus 1 --daemon "$VG/slurmlinkd" || bail "cluster up under valgrind"
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
WPID=$(cat "$CL/run/slurmlinkd.pid")
VPID=$(pgrep -P "$WPID" | head -1)
like "$(tr '\0' ' ' < "/proc/${VPID:-0}/cmdline" 2>&1)" "valgrind[.a-z]* .*build/slurmlinkd" "slurmlinkd runs under valgrind"
cat <<'YAML' | kc apply -f - >/dev/null
apiVersion: v1
kind: Pod
metadata: {name: vg1}
spec:
  restartPolicy: Never
  containers:
  - {name: main, image: busybox, command: [sh, -c, 'echo hi; exit 2'], resources: {limits: {nvidia.com/gpu: 1}}}
YAML
cat <<'YAML' | kc apply -f - >/dev/null
apiVersion: v1
kind: Pod
metadata: {name: vg2}
spec:
  restartPolicy: Never
  terminationGracePeriodSeconds: 5
  containers:
  - {name: main, image: busybox, command: [sh, -c, 'trap "exit 0" TERM; while :; do sleep 0.2; done']}
YAML
done1() { [ "$(kc get pod vg1 -o jsonpath='{.status.phase}')" = Failed ]; }
ok wait_for 90 done1 "a pod fails with exit 2 under a valgrind'ed daemon"
is "$(kc logs vg1)" "hi" "its log"
run2() { [ "$(kc get pod vg2 -o jsonpath='{.status.phase}')" = Running ]; }
ok wait_for 90 run2 "a second pod runs"
ok timeout 60 kubectl --cache-dir "$CL/kcache" delete pod vg2 "and is deleted gracefully"
kc get pods -w --request-timeout=2s >/dev/null 2>&1
kc get nodes >/dev/null
kill -TERM "$WPID"
ok wait_for 900 test -s "$VG/exit" "slurmlinkd under valgrind exits after SIGTERM"
is "$(cat "$VG/exit" 2>&1)" 0 "valgrind's exit status is 0 (9: memory errors or leaks)"
"$SLURMLINK" down --dir "$CL" >/dev/null
summ=$(grep -a 'ERROR SUMMARY:' "$VG/valgrind.log")
like "$summ" 'ERROR SUMMARY: 0 errors' "valgrind finished its report"
unlike "$summ" 'ERROR SUMMARY: [1-9]' "ERROR SUMMARY: 0 errors for every process"
unlike "$(cat "$VG/valgrind.log")" '(definitely|indirectly) lost: [1-9]' "nothing definitely or indirectly lost"
[ "$(cat "$VG/exit" 2>&1)" = 0 ] || grep -a -v '^==[0-9]*== *$' "$VG/valgrind.log" | head -80 | sed 's/^/# /'
done_testing
