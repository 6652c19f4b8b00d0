#!/bin/sh
# openapi-gen.sh — prints src/api/openapi_schemas.c: fetches the two pinned
# npm packages (scripts/npm-pinned.sh: version and SHA-256 below, cached)
# and runs openapi-gen.mjs on them. Needs npm and node.
#   src/api/gen/openapi-gen.sh > src/api/openapi_schemas.c    (make openapi)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

fetch() { # name version sha256 folder
    tgz=$("$here/../../../scripts/npm-pinned.sh" "$1" "$2" "$3")
    mkdir -p "$tmp/$4"
    tar xzf "$tgz" -C "$tmp/$4"
}

fetch kubernetes-models 5.1.0 a7b5c0d34639c52699fc2998879590b20d57558598fb35b219b3e5a5871aa0c0 core
fetch @kubernetes-models/apimachinery 3.0.2 c4cbb5e7021158d1279180ccb7abb31ae0467165217eced89a9ec9273362227e am
node "$here/openapi-gen.mjs" "$tmp/core/package" "$tmp/am/package"
