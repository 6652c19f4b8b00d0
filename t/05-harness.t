#!/bin/bash
# covers: t/lib.sh t/run-tests
# 05-harness.t — t/run-tests and lib.sh on a made-up tree of test files
# whose right outcome is known: a child printing "ok" lines is not counted, a
# file short of its plan fails, a whole-file and a one-point skip count as
# skipped, done_testing N catches a block that ran fewer points, a crash
# fails, a unit binary the Makefile lists but the build lacks fails, an ASan
# unit binary that leaks fails (LeakSanitizer on), -j 2 runs files at once
# (two files that wait for each other both pass), the longest file (by
# t/durations) starts first, "# serial" files run beside ordinary ones but
# never beside each other, an "# alone" file runs alone after the rest,
# --for picks the files whose "# covers:" line names a path and the unit
# binaries of its module, lines come in the files' order, and the summary is
# "N passed, N failed, N skipped" with a non-zero exit. A file whose process
# outlives it, its test folder removed (a cluster its teardown could not
# stop), fails, and the process is killed.
source "$(dirname "$0")/lib.sh"
plan 38

T=$(tmpdir)
on_exit "rm -rf '$T'"
mkdir -p "$T/t" "$T/build/test" "$T/build-asan/test" "$T/sync"
cp "$ROOT/t/run-tests" "$ROOT/t/lib.sh" "$T/t/"
printf 'print-unit-bins:\n\t@printf "%%s\\n" test/u_good test/u_missing\n' >"$T/Makefile"
printf '#!/bin/sh\necho "ok 1 - unit"\necho "1..1"\n' >"$T/build/test/u_good"
chmod +x "$T/build/test/u_good"
cat >"$T/leak.c" <<'C'
#include <stdio.h>
#include <stdlib.h>
int main(void)
{
    char *volatile p = malloc(64);
    p = NULL;
    printf("ok 1 - leaks 64 bytes\n1..1\n");
    fflush(stdout);
    return 0;
}
C
cc -fsanitize=address -g -o "$T/build-asan/test/u_good" "$T/leak.c" 2>&1 | sed 's/^/# /'

fixture() { # NAME BODY
  { echo '#!/bin/bash'; echo 'source "$(dirname "$0")/lib.sh"'; printf '%s\n' "$2"; } >"$T/t/$1.t"
}
S=$T/sync
# a-pair1 and a-pair2 each wait for the other: both pass only when run at once
fixture a-pair1 "plan 1; touch $S/p1; ok wait_for 120 test -e $S/p2 'a-pair2 runs at the same time'; touch $S/p1.done"
fixture a-pair2 "plan 1; touch $S/p2; ok wait_for 120 test -e $S/p1 'a-pair1 runs at the same time'; touch $S/p2.done"
fixture b-short "plan 2; ok true 'the only real point'; sh -c 'echo \"ok 2 - printed by a child\"'"
fixture c-skipall 'skip_all "no widget here"'
fixture d-skipone "plan 2; ok true 'one'; skip 'no GPU here'"
fixture e-shrunk "if false; then ok true 'in a block that does not run'; fi; ok true 'after'; done_testing 2"
fixture f-crash "plan 2; ok true 'before the crash'; kill -SEGV \$\$"
fixture a-unplanned "ok true 'counted at the end'; done_testing"
fixture g-alone "ok test -e $S/p1.done -a -e $S/p2.done -a -e $S/h1.done -a -e $S/h2.done 'runs after the parallel files'
done_testing 1"
sed -i '2i # alone: made up' "$T/t/g-alone.t"
# h-ser1 and h-ser2 are serial: each holds a lock the other would find
# taken, and waits for the ordinary i-beside to have seen it run
for k in 1 2; do
  fixture h-ser$k "plan 2
ok mkdir $S/serial-lock 'h-ser$k: no other serial file runs now'
touch $S/h$k.on
ok wait_for 60 test -e $S/beside-saw-$k 'h-ser$k: an ordinary file runs beside it'
rmdir $S/serial-lock; touch $S/h$k.done"
  sed -i '2i # serial: made up' "$T/t/h-ser$k.t"
done
fixture i-beside "plan 2
for k in 1 2; do ok wait_for 60 test -e $S/h\$k.on \"serial file h-ser\$k runs beside this one\"; touch $S/beside-saw-\$k; done"
# j-long is the longest by t/durations: it starts before a-pair1
fixture j-long "plan 1; ok test ! -e $S/p1 'the longest file starts first'"
printf '# made up\n900 j-long.t\n' >"$T/t/durations"
fixture k-cov "plan 1; ok true 'covers src/foo/'"
sed -i '2i # covers: src/foo/ t/lib.sh' "$T/t/k-cov.t"

out=$(cd "$T" && t/run-tests -j 2 2>&1)
rc=$?
diag "$out"
is "$rc" 1 "run-tests exits 1 when anything failed"
is "$(tail -1 <<<"$out")" "18 passed, 6 failed, 2 skipped" "the summary counts passed, failed and skipped points"
line() { grep -E "^$1 " <<<"$out"; }
like "$(line u_good)" 'ok +1 passed' "a unit binary passes"
like "$(line u_missing)" 'FAIL' "a unit binary the Makefile lists but the build lacks fails"
like "$(line asan-u_good)" 'FAIL' "an ASan unit binary that leaks fails"
like "$(sed -n '/^asan-u_good/,/^[a-z]/p' <<<"$out")" 'LeakSanitizer: detected memory leaks' "and the leak report is shown"
like "$(line asan-u_missing)" 'FAIL' "a missing ASan unit binary fails"
like "$(line a-unplanned.t)" 'ok +1 passed .*\(no fixed count: plan N\)' "a file without a fixed count passes, flagged"
like "$(line a-pair1.t)" 'ok +1 passed' "-j 2 runs two files at once (a-pair1)"
like "$(line a-pair2.t)" 'ok +1 passed' "-j 2 runs two files at once (a-pair2)"
like "$(line b-short.t)" 'FAIL +1 passed +1 failed.*plan=2' "a child's 'ok' line is not counted: the file is short of its plan"
like "$(cat "$T/t/out/b-short.t.log")" 'ok 2 - printed by a child' "the child's output is in the log"
like "$(line c-skipall.t)" 'SKIP.*no widget here' "a whole-file skip is reported as SKIP with its reason"
like "$(line d-skipone.t)" 'ok +1 passed, 1 skipped' "a skipped point is counted as skipped"
like "$(line e-shrunk.t)" 'FAIL +1 passed +1 failed.*plan=2' "done_testing N: a block that did not run fails the file"
like "$(line f-crash.t)" 'FAIL +1 passed +1 failed \(rc=139' "a crash fails the file"
like "$(line g-alone.t)" 'ok +1 passed' "an '# alone' file runs after the others"
like "$(line h-ser1.t)" 'ok +2 passed' "a '# serial' file runs beside an ordinary one, never beside another serial one (h-ser1)"
like "$(line h-ser2.t)" 'ok +2 passed' "... (h-ser2)"
like "$(line i-beside.t)" 'ok +2 passed' "... the ordinary file saw both run"
like "$(line j-long.t)" 'ok +1 passed' "the longest file by t/durations starts first"
is "$(grep -oE '^[a-z][-a-z0-9_.]+ +(ok|FAIL|SKIP)' <<<"$out" | awk '{print $1}' | tr '\n' ' ')" \
  "u_good u_missing asan-u_good asan-u_missing a-pair1.t a-pair2.t a-unplanned.t b-short.t c-skipall.t d-skipone.t e-shrunk.t f-crash.t g-alone.t h-ser1.t h-ser2.t i-beside.t j-long.t k-cov.t " \
  "one line per file, units first, in the files' order, whatever order they ran in"
like "$(line 'failing:')" 'failing: u_missing asan-u_good asan-u_missing b-short.t e-shrunk.t f-crash.t' "the failing files are named"

# the same tree, one file at a time: the pair cannot meet, everything else is the same
rm -f "$S"/*
out1=$(cd "$T" && t/run-tests -j 1 c-skip d-skip 2>&1)
is "$(tail -1 <<<"$out1")" "1 passed, 0 failed, 2 skipped" "-j 1 and patterns: only the named files"
is "$(cd "$T" && t/run-tests --integration d-skip >/dev/null 2>&1; echo $?)" 0 "a run with only passes and skips exits 0"
like "$(cd "$T" && t/run-tests -j 0 2>&1)" '-j wants a positive number' "-j 0 is refused"
# a failing assertion returns 1, so "|| diag" explains it; a passing one returns 0
fixture h-diag "plan 3; is a b 'differs' || diag 'is explained'; ok false 'fails' || diag 'ok explained'; like x x 'passes' || diag 'not shown'"
(cd "$T" && t/run-tests -j 1 h-diag >/dev/null 2>&1)
is "$(grep -E '^# (is|ok|not) ' "$T/t/out/h-diag.t.log" | tr '\n' ' ')" "# is explained # ok explained " \
  "a failing is/ok returns 1 (its '|| diag' runs), a passing like returns 0"
# a process left running by a file whose test folder is gone: the file
# fails, naming it, and it is killed
fixture l-left "plan 1; d=\$(tmpdir); rmdir \$d; echo \$d >$S/left; (sh -c 'sleep 300; true' \$d/daemon >/dev/null 2>&1 &); ok true 'left a process behind'"
out2=$(cd "$T" && t/run-tests -j 1 l-left 2>&1)
left=$(cat "$S/left")
like "$(grep -E '^l-left.t ' <<<"$out2")" 'FAIL +1 passed +1 failed' "a file whose process outlives its deleted test folder fails"
like "$(cat "$T/t/out/l-left.t.log")" "still ran after it ended.*$left/daemon" "... its log names the process" || diag "$out2"
is "$(pgrep -f "$left/daemon" | wc -l)" 0 "... which is killed"
# --for: the scripts whose covers line names the path, a folder above it or
# a file under it, and the unit binaries of the path's module (test/u_*: src/u)
forrun() { (cd "$T" && t/run-tests -j 1 --for "$@" 2>&1 | grep -oE '^[a-z][-a-z0-9_.]+ +(ok|FAIL|SKIP)' | awk '{print $1}' | tr '\n' ' '); }
is "$(forrun src/foo/bar.c)" "k-cov.t " "--for a file under a covered folder runs the script that covers it, and nothing else"
is "$(forrun src/foo t/lib.sh)" "k-cov.t " "--for a folder or a covered file: the same script once"
is "$(forrun src/u/x.c)" "u_good u_missing asan-u_good asan-u_missing " "--for a file of module u runs u's unit binaries"
is "$(forrun src/bar/)" "" "--for a path nothing covers runs nothing"
is "$(cd "$T" && t/run-tests --for src/foo/bar.c --estimate -j 1 | head -1)" "1 files, 60 s of work, -j 1" \
  "--for's paths end at the next option (--estimate counts k-cov.t alone, 60 s: not in t/durations)"
like "$(cd "$T" && t/run-tests --estimate -j 2)" "this order \(longest first, serial beside others\): [0-9]+ s" "--estimate prints the run's wall time from t/durations"
rm -rf "$T/build-asan"
like "$(cd "$T" && t/run-tests --unit 2>&1 | grep asan)" 'asan-unit-tests +SKIP' "no build-asan/: its unit binaries are reported skipped, not passed"
# a test's sacct reads every job of its cluster: sacct's own default is
# the jobs since midnight, so a run that crosses midnight missed the jobs
# before it (a fresh-check's 87-kubeflow-upstream found none at 00:01)
mkdir -p "$T/fakesacct" && cat >"$T/fakesacct/sacct" <<'EOF'
#!/bin/sh
printf '%s ' "$@"
EOF
chmod 755 "$T/fakesacct/sacct"
is "$(PATH="$T/fakesacct:$PATH" sacct -n -X -o JobID)" "-S 1970-01-01T00:00:01 -n -X -o JobID " \
  "lib.sh's sacct asks for every job since the epoch, not since midnight"
done_testing
