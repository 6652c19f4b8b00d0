#!/bin/bash
# covers: src/translate/ src/pod/
# 30-translate-golden: every pod in t/golden/translate/<case>.yaml renders to
# exactly <case>.sh and <case>.shim.json (or fails with exactly <case>.err).
# Extra render options for a case go in <case>.args. UPDATE_GOLDEN=1 rewrites
# the expected files (review the diff before committing them).
source "$(dirname "$0")/lib.sh"
G=$ROOT/t/golden/translate
cd "$G" || bail "golden folder $G"
# five points per case that renders, two per case that is rejected (.err)
cases=(*.yaml) rejected=0
for y in "${cases[@]}"; do [ -f "${y%.yaml}.err" ] && rejected=$((rejected + 1)); done
[ -n "${UPDATE_GOLDEN:-}" ] || plan $((5 * (${#cases[@]} - rejected) + 2 * rejected))
BASE=(--shim /opt/slurmlink/bin/slurmlink-shim --pods-root /shared/pods --image-store store
      --run-as 1000:1000 --report-url https://head:6443/internal/v1/shim/events)
for y in *.yaml; do
  c=${y%.yaml}
  extra=()
  [ -f "$c.args" ] && read -r -a extra < "$c.args"
  out=$("$SLURMLINK" render "${BASE[@]}" "${extra[@]}" "$y" 2>/tmp/render-err.$$); rc=$?
  err=$(grep -v '^warning: ' /tmp/render-err.$$)
  if [ -f "$c.err" ] || { [ -n "${UPDATE_GOLDEN:-}" ] && [ $rc -ne 0 ]; }; then
    [ -n "${UPDATE_GOLDEN:-}" ] && printf '%s\n' "$err" > "$c.err"
    is "$rc" 1 "$c: rejected"
    is "$err" "$(cat "$c.err")" "$c: field errors"
    continue
  fi
  spec=$("$SLURMLINK" render "${BASE[@]}" "${extra[@]}" --no-script --spec "$y" 2>/dev/null)
  if [ -n "${UPDATE_GOLDEN:-}" ]; then
    printf '%s\n' "$out" > "$c.sh"
    printf '%s\n' "$spec" > "$c.shim.json"
  fi
  is "$rc" 0 "$c: renders"
  is "$out" "$(cat "$c.sh")" "$c: script matches $c.sh"
  is "$spec" "$(cat "$c.shim.json")" "$c: shim.json matches $c.shim.json"
  ok bash -n "$c.sh" "$c: bash -n accepts the script"
  ok python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$c.shim.json" "$c: shim.json is JSON"
done
rm -f /tmp/render-err.$$
done_testing
