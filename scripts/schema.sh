#!/bin/bash
# schema.sh — generate src/pod/schema_table.c (the field sets of the core/v1
# and batch/v1 kinds slurmlink stores) from Kubernetes' OpenAPI, as `make schema` does:
#   1. the npm package kubernetes-models at the pinned version (its
#      TypeScript declarations are generated from Kubernetes' OpenAPI),
#      fetched and checked by scripts/npm-pinned.sh;
#   2. src/pod/gen/schema-gen.mjs (node) reads its v1/*.d.ts;
#   3. clang-format with the repository's .clang-format.
# usage: scripts/schema.sh OUT        (OUT: the file to write, e.g. src/pod/schema_table.c)
set -euo pipefail

PKG=kubernetes-models
VERSION=5.1.0
SHA256=a7b5c0d34639c52699fc2998879590b20d57558598fb35b219b3e5a5871aa0c0

[ $# -eq 1 ] || { echo "usage: $0 OUT" >&2; exit 2; }
out=$1
root=$(cd "$(dirname "$0")/.." && pwd)
for tool in node clang-format; do
  command -v "$tool" >/dev/null || { echo "schema.sh: $tool is missing (scripts/deps.sh installs it)" >&2; exit 1; }
done
tgz=$("$root/scripts/npm-pinned.sh" "$PKG" "$VERSION" "$SHA256")

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
tar -xzf "$tgz" -C "$work" package/v1 package/batch/v1 package/discovery.k8s.io/v1 package/apps/v1 \
  package/autoscaling/v1
node "$root/src/pod/gen/schema-gen.mjs" "$work/package/v1" > "$work/schema_table.c"
# clang-format finds .clang-format beside the file it formats: format in the tree's style
clang-format --style="file:$root/.clang-format" "$work/schema_table.c" > "$work/formatted.c"
mv -f "$work/formatted.c" "$out"
