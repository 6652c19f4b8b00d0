#!/bin/sh
# scripts/config-keys-md.sh SLURMLINKD — the key table of docs/configuration.md,
# made from slurmlinkd's option table (slurmlinkd --config-keys); t/88-install.t
# checks that the document holds exactly this.
set -e
"${1:-build/slurmlinkd}" --config-keys | awk -F'\t' '
BEGIN { print "| key | option | type | default | SIGHUP | meaning |"; print "|---|---|---|---|---|---|" }
{ printf "| `%s` | `%s` | %s | %s | %s | %s |\n", $1, $2, $3, ($4 == "-" ? "—" : "`" $4 "`"), $5, $6 }'
