#!/bin/bash
# slurmlinkd with its controllers under valgrind, through a pod's whole life
# on the real cluster: no memory errors, no leaks.
source "$(dirname "$0")/lib.sh"

VG=$(tmpdir); chmod 755 "$VG"   # the job user runs the shim copied here
on_exit "rm -rf '$VG'"
cat > "$VG/slurmlinkd" <<SH
#!/bin/sh
exec valgrind --quiet --error-exitcode=9 --leak-check=full --show-leak-kinds=definite,indirect \
  --errors-for-leak-kinds=definite,indirect --track-origins=yes --log-file="$VG/valgrind.log" \
  --suppressions="$ROOT/t/valgrind.supp" "$ROOT/build/slurmlinkd" "\$@"
SH
chmod +x "$VG/slurmlinkd"
cp "$ROOT/build/slurmlink-shim" "$VG/slurmlink-shim"   # the daemon finds the shim beside itself
cluster_up --gpus 1 --daemon "$VG/slurmlinkd" || { echo "1..1"; echo "not ok 1 - cluster up under valgrind"; exit 1; }
"$SLURMLINK" image import busybox --busybox --store "$CL/images" >/dev/null
like "$(tr '\0' ' ' < "/proc/$(cat "$CL/run/slurmlinkd.pid")/cmdline")" "valgrind[.a-z]* .*build/slurmlinkd" "slurmlinkd runs under valgrind"
kc() { kubectl --cache-dir "$CL/kcache" "$@"; }
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
"$SLURMLINK" down --dir "$CL" >/dev/null
sleep 1
ok test -s "$VG/valgrind.log" -o -e "$VG/valgrind.log" "valgrind wrote its log"
errs=$(grep -c "^==[0-9]*== [A-Z].*\(Invalid\|uninitialised\|Mismatched\|definitely lost\|indirectly lost\|Syscall param\)" "$VG/valgrind.log")
is "$errs" 0 "no memory errors and no leaks"
[ "$errs" = 0 ] || sed -n 1,80p "$VG/valgrind.log" | sed 's/^/# /'
done_testing
