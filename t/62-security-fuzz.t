#!/bin/bash
# covers: src/fuzz/ src/api/
# slow
# 62-security-fuzz: the security parsers and the request path under
# libFuzzer with ASan/UBSan (make fuzz-build), each for FUZZ_SECONDS
# (default 8), seeded from src/fuzz/seeds/<harness>/:
#   fuzz_api     a request (target, query, headers, body) through the API
#                server's own path without a socket: authentication,
#                authorization, routing, decoding, admission, handlers;
#                oracles: well-formed answers, 401 for bad credentials, no
#                2xx for alice outside her namespace
#   fuzz_tokens  the token file (CSV) and the Authorization header reader
#   fuzz_policy  policy.yaml and the decisions of any policy it accepts
#   fuzz_podfs   the pod-folder writer over a folder its user changed
#                (planted links, folders, files); oracles: nothing outside
#                the pods root changes, no planted link survives a write
#   fuzz_logs    the `kubectl logs` CRI line reader on any file content;
#                oracles: limitBytes holds, bounded line buffer, output
#                independent of read sizes
#   fuzz_status  a pods/status write's status: its validation, then the
#                controller's updates and the printers on it; oracle: a
#                valid status stays valid after the controller's updates
#   fuzz_spdy    kubectl port-forward's SPDY/3.1 frames from the client, fed
#                in pieces, every SYN_STREAM answered; oracles: headers have
#                names, payloads within the input
# A crash, leak, sanitizer report or harness assertion fails the harness.
source "$(dirname "$0")/lib.sh"
cd "$ROOT" || exit 1
S=${FUZZ_SECONDS:-8}
if make -s fuzz-build >/tmp/fuzz-build.$$ 2>&1; then _t_report 0 "fuzz harnesses build"; else
  _t_report 1 "fuzz harnesses build"; sed 's/^/# /' /tmp/fuzz-build.$$ | tail -20; fi
rm -f /tmp/fuzz-build.$$
for h in fuzz_api fuzz_tokens fuzz_policy fuzz_podfs fuzz_logs fuzz_status fuzz_spdy; do
  corpus=$(mktemp -d /tmp/sl-fuzz.XXXXXX)
  seeds=()
  [ -d "$ROOT/src/fuzz/seeds/$h" ] && seeds=("$ROOT/src/fuzz/seeds/$h")
  (cd "$corpus" && "$ROOT/build-fuzz/$h" -max_total_time="$S" -timeout=10 -rss_limit_mb=2048 \
     "$corpus" "${seeds[@]}" > "$corpus.log" 2>&1)
  rc=$?
  if [ $rc -eq 0 ]; then _t_report 0 "$h runs ${S}s clean ($(grep -o 'Done [0-9]* runs' "$corpus.log"))"
  else _t_report 1 "$h runs ${S}s clean"; grep -E 'ERROR|SUMMARY|==[0-9]+==|#[0-9] |^0x|Base64' "$corpus.log" | head -24 | sed 's/^/# /'; fi
  rm -rf "$corpus" "$corpus.log"
done
done_testing 8
