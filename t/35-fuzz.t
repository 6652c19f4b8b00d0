#!/bin/bash
# covers: src/fuzz/
# slow
# 35-fuzz: build the libFuzzer harnesses (make fuzz-build: clang,
# ASan/UBSan/libFuzzer) and run each for FUZZ_SECONDS (default 5). A crash,
# leak, sanitizer report or harness assertion fails the harness. The golden
# pods seed fuzz_pod. `make fuzz` runs longer.
source "$(dirname "$0")/lib.sh"
plan 4
cd "$ROOT" || exit 1
S=${FUZZ_SECONDS:-5}
if make -s fuzz-build >/tmp/fuzz-build.$$ 2>&1; then _t_report 0 "fuzz harnesses build"; else
  _t_report 1 "fuzz harnesses build"; sed 's/^/# /' /tmp/fuzz-build.$$ | tail -20; fi
rm -f /tmp/fuzz-build.$$
for h in fuzz_pod fuzz_quantity fuzz_flags; do
  corpus=$(mktemp -d /tmp/sl-fuzz.XXXXXX)
  seeds=()
  [ "$h" = fuzz_pod ] && seeds=("$ROOT/t/golden/translate")
  (cd "$corpus" && "$ROOT/build-fuzz/$h" -max_total_time="$S" -timeout=10 -rss_limit_mb=2048 \
     "$corpus" "${seeds[@]}" > "$corpus.log" 2>&1)
  rc=$?
  if [ $rc -eq 0 ]; then _t_report 0 "$h runs ${S}s clean ($(grep -o 'Done [0-9]* runs' "$corpus.log"))"
  else _t_report 1 "$h runs ${S}s clean"; grep -E 'ERROR|SUMMARY|==[0-9]+==|#[0-9] ' "$corpus.log" | head -20 | sed 's/^/# /'; fi
  rm -rf "$corpus" "$corpus.log"
done
done_testing
