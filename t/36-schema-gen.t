#!/bin/bash
# covers: src/pod/gen/ src/pod/schema.c scripts/schema.sh
# 36-schema-gen: src/pod/schema_table.c is what `make schema` generates: the
# pinned kubernetes-models tarball (fetched with npm into
# $SLURMLINK_NPM_CACHE, default ~/.cache/slurmlink/npm, which CI caches),
# src/pod/gen/schema-gen.mjs and clang-format, regenerated into a temporary
# file and compared byte for byte with the committed one. A tarball that
# does not match the pinned SHA-256 is refused.
source "$(dirname "$0")/lib.sh"
cd "$ROOT" || exit 1
T=$(tmpdir)
on_exit rm -rf "$T"
CACHE=${SLURMLINK_NPM_CACHE:-${HOME:-/root}/.cache/slurmlink/npm}
if [ ! -s "$CACHE/kubernetes-models-5.1.0.tgz" ]; then
  why=$(npm_unreachable)
  [ -z "$why" ] || skip_all "$why (the pinned tarball is not cached in $CACHE)"
fi
plan 5

ok command -v node "node is installed (scripts/deps.sh)"
if scripts/schema.sh "$T/schema_table.c" 2>"$T/err"; then _t_report 0 "scripts/schema.sh regenerates the table"; else
  _t_report 1 "scripts/schema.sh regenerates the table"; diag "$(tail -5 "$T/err")"; fi
if cmp -s "$T/schema_table.c" src/pod/schema_table.c; then
  _t_report 0 "the committed src/pod/schema_table.c is a fresh generation"
else
  _t_report 1 "the committed src/pod/schema_table.c is a fresh generation (make schema)"
  diag "$(diff -u src/pod/schema_table.c "$T/schema_table.c" 2>&1 | head -20)"
fi
ok test -s "$CACHE/kubernetes-models-5.1.0.tgz" "the pinned tarball is cached in $CACHE"

# a corrupted tarball in the cache is refused, not used
mkdir -p "$T/cache"
printf 'not a tarball' > "$T/cache/kubernetes-models-5.1.0.tgz"
like "$(SLURMLINK_NPM_CACHE=$T/cache scripts/schema.sh "$T/bad.c" 2>&1; echo "rc=$?")" \
  "sha256 .*want a7b5c0d3.*rc=1" "a tarball with another SHA-256 is refused"
