#!/bin/bash
# covers: t/run-tests t/durations t/
# 06-test-map.t — the map from tests to code that t/run-tests --for reads:
# every integration script has a "# covers:" line among its first 20 lines
# naming one or more paths of this tree, and each of them exists; a script
# that took over 60 s in the last full run (t/durations) says "# slow"; the
# markers run-tests reads ("# serial", "# alone") carry their reason; and
# --for, asked about one path of each kind, picks the scripts whose line
# names it.
source "$(dirname "$0")/lib.sh"
plan 7
cd "$ROOT" || bail "cd $ROOT"

head20() { head -20 "$1"; }
nocovers=() badpath=() noslow=() noreason=()
declare -A secs=()
while read -r n name _; do secs[$name]=$n; done < <(grep -v '^#' t/durations)
for f in t/*.t; do
  n=$(basename "$f")
  if [ "${secs[$n]:-0}" -gt 60 ] && ! head20 "$f" | grep -q '^# slow'; then noslow+=("$n (${secs[$n]} s)"); fi
  if head20 "$f" | grep -qE '^# (serial|alone)' && ! head20 "$f" | grep -qE '^# (serial|alone): .+'; then noreason+=("$n"); fi
  line=$(head20 "$f" | sed -n 's/^# covers: *//p' | head -1)
  if [ -z "$line" ]; then nocovers+=("$f"); continue; fi
  for p in $line; do [ -e "$p" ] || badpath+=("$f: $p"); done
done
is "${#nocovers[@]}" 0 "every t/*.t has a '# covers:' line among its first 20 lines" || diag "without: ${nocovers[*]}"
is "${#badpath[@]}" 0 "every path a covers line names exists" || diag "$(printf '%s\n' "${badpath[@]}")"
is "${#noslow[@]}" 0 "every script over 60 s in t/durations is marked '# slow'" || diag "not marked: ${noslow[*]}"
is "${#noreason[@]}" 0 "every '# serial' and '# alone' marker gives its reason" || diag "${noreason[*]}"

# --for on the real tree: a file's scripts are those naming it, its folder
# or src/ (a covers path is a file or a folder, "src/ctl" or "src/ctl/")
nfor() { t/run-tests --estimate -j 1 "$@" 2>&1 | sed -n 's/^\([0-9]*\) files.*/\1/p'; }
want=$(grep -lE '^# covers:.* (src/kinds/cronjob/controller\.c|src/kinds/cronjob/?|src/kinds/?|src/?)( |$)' t/*.t | wc -l)
ok test "$want" -gt 0 "some scripts cover src/kinds/cronjob/controller.c ($want)"
is "$(nfor --integration --for src/kinds/cronjob/controller.c)" "$want" \
  "--for src/kinds/cronjob/controller.c picks the scripts naming that file, its folders or src/"
units=$(make -s --no-print-directory print-unit-bins | grep -c '^test/kube_')
# the ASan build's too; without build-asan/ the runner lists one placeholder
# for it instead (it fails, saying make asan did not run)
if [ -d build-asan ]; then units=$((units * 2)); else units=$((units + 1)); fi
is "$(nfor --unit --for src/kube/cron.c)" "$units" "--unit --for src/kube/cron.c picks the kube module's unit binaries"
