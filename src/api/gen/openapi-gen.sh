#!/bin/sh
# openapi-gen.sh — prints src/api/openapi_schemas.c: fetches the two pinned
# npm packages (checked against the integrity hashes below, as a lockfile
# would) and runs openapi-gen.mjs on them. Needs npm, node, openssl.
#   src/api/gen/openapi-gen.sh > src/api/openapi_schemas.c    (make openapi)
set -eu
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT INT TERM

fetch() { # name version integrity folder
    (cd "$tmp" && npm pack --silent "$1@$2" >/dev/null)
    tgz="$tmp/$(printf '%s' "$1" | sed 's/^@//; s,/,-,')-$2.tgz"
    got="sha512-$(openssl dgst -sha512 -binary "$tgz" | base64 -w0)"
    if [ "$got" != "$3" ]; then
        echo "openapi-gen: $1@$2 has integrity $got, pinned $3" >&2
        exit 1
    fi
    mkdir -p "$tmp/$4"
    tar xzf "$tgz" -C "$tmp/$4"
}

fetch kubernetes-models 5.1.0 \
    sha512-ym4Kiyr8BzGIWj4f853ytVYES1B8C1BdONRP5zodItPD1o//OEKuTwC5nFV3ZJtFGeMqOFbIYkpunSVXSlHS8g== core
fetch @kubernetes-models/apimachinery 3.0.2 \
    sha512-6Vbzr/tinxPBGGdfYjXiV9WPj8PEhyiqGJiWhXrsihK7h6glPj4HKUxZ0YwYXH/5uucm/NVef/xY3vZ4Crj1Fg== am
node "$here/openapi-gen.mjs" "$tmp/core/package" "$tmp/am/package"
