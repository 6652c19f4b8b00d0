#!/bin/bash
# long-functions.sh [LIMIT [ROOT]]: list the C functions of ROOT/src (default:
# this repository) longer than LIMIT lines (default 100), counted from the
# signature line to the closing brace, as "LINES FILE FUNCTION", longest
# first. Generated files (a "GENERATED" mark in their first 3 lines) and unit
# tests (src/*/test/) are left out. Exit status: 1 when one is listed.
#
# It relies on the repository's clang-format style (BreakBeforeBraces: Linux):
# a function definition's opening and closing braces stand alone in column 0,
# and its signature starts in column 0.
set -euo pipefail
LIMIT=${1:-100}
ROOT=${2:-$(cd "$(dirname "$0")/.." && pwd)}
cd "$ROOT"
found=$(
  find src -name '*.c' -not -path '*/test/*' -print | sort | while read -r f; do
    head -3 "$f" | grep -q GENERATED && continue
    awk -v file="$f" -v limit="$LIMIT" '
      # a signature line: starts in column 0 with a letter, holds "(", is no
      # declaration, preprocessor line or comment
      /^[A-Za-z_]/ && /\(/ && !/;[[:space:]]*$/ && !/^(typedef|struct [A-Za-z_]+ *\{|#)/ {
        if (!infn) { sig = NR; text = $0 }
      }
      /^\{[[:space:]]*$/ { if (sig) { infn = 1; start = sig } }
      /^\}[[:space:]]*$/ {
        if (infn) {
          n = NR - start
          name = text; sub(/\(.*/, "", name); sub(/.*[ *]/, "", name)
          if (n > limit) printf "%d %s %s\n", n, file, name
        }
        infn = 0; sig = 0
      }
      /;[[:space:]]*$/ { if (!infn) sig = 0 }
    ' "$f"
  done | sort -rn
)
[ -z "$found" ] && exit 0
printf '%s\n' "$found"
exit 1
