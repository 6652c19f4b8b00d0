#!/bin/bash
# schema.sh — generate src/pod/schema_table.c (the field sets of the core/v1
# kinds slurmlink stores) from Kubernetes' OpenAPI, as `make schema` does:
#   1. the npm package kubernetes-models at the pinned version (its
#      TypeScript declarations are generated from Kubernetes' OpenAPI),
#      fetched once with `npm pack` into the cache folder and checked against
#      the pinned SHA-256;
#   2. src/pod/gen/schema-gen.mjs (node) reads its v1/*.d.ts;
#   3. clang-format with the repository's .clang-format.
# usage: scripts/schema.sh OUT        (OUT: the file to write, e.g. src/pod/schema_table.c)
# The tarball is kept in $SLURMLINK_NPM_CACHE (default ~/.cache/slurmlink/npm):
# CI caches that folder, and a run with the tarball there needs no network.
set -euo pipefail

PKG=kubernetes-models
VERSION=5.1.0
SHA256=a7b5c0d34639c52699fc2998879590b20d57558598fb35b219b3e5a5871aa0c0

[ $# -eq 1 ] || { echo "usage: $0 OUT" >&2; exit 2; }
out=$1
root=$(cd "$(dirname "$0")/.." && pwd)
cache=${SLURMLINK_NPM_CACHE:-${HOME:-/root}/.cache/slurmlink/npm}
tgz=$cache/$PKG-$VERSION.tgz
for tool in node npm clang-format; do
  command -v "$tool" >/dev/null || { echo "schema.sh: $tool is missing (scripts/deps.sh installs it)" >&2; exit 1; }
done

mkdir -p "$cache"
if [ ! -s "$tgz" ]; then
  (cd "$cache" && npm pack --silent "$PKG@$VERSION" >/dev/null) ||
    { echo "schema.sh: npm pack $PKG@$VERSION failed" >&2; exit 1; }
fi
got=$(sha256sum "$tgz" | cut -d' ' -f1)
if [ "$got" != "$SHA256" ]; then
  echo "schema.sh: $tgz: sha256 $got, want $SHA256 (pinned $PKG@$VERSION)" >&2
  exit 1
fi

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -xzf "$tgz" -C "$work" package/v1
node "$root/src/pod/gen/schema-gen.mjs" "$work/package/v1" > "$work/schema_table.c"
# clang-format finds .clang-format beside the file it formats: format in the tree's style
clang-format --style="file:$root/.clang-format" "$work/schema_table.c" > "$work/formatted.c"
mv -f "$work/formatted.c" "$out"
