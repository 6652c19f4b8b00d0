#!/bin/bash
# npm-pinned.sh — the one way the build fetches an npm package: at a pinned
# version, checked against a pinned SHA-256, kept in a cache folder.
# usage: scripts/npm-pinned.sh NAME VERSION SHA256   (prints the tarball's path)
# The cache is $SLURMLINK_NPM_CACHE (default ~/.cache/slurmlink/npm): CI can
# keep that folder, and a run with the tarball there needs no network.
set -euo pipefail
[ $# -eq 3 ] || { echo "usage: $0 NAME VERSION SHA256" >&2; exit 2; }
name=$1 version=$2 want=$3
command -v npm >/dev/null || { echo "npm-pinned: npm is missing (scripts/deps.sh installs it)" >&2; exit 1; }
cache=${SLURMLINK_NPM_CACHE:-${HOME:-/root}/.cache/slurmlink/npm}
# npm pack names @scope/name as scope-name-VERSION.tgz
tgz=$cache/$(printf '%s' "$name" | sed 's/^@//; s,/,-,')-$version.tgz
mkdir -p "$cache"
if [ ! -s "$tgz" ]; then
  (cd "$cache" && npm pack --silent "$name@$version" >/dev/null) ||
    { echo "npm-pinned: npm pack $name@$version failed" >&2; exit 1; }
fi
got=$(sha256sum "$tgz" | cut -d' ' -f1)
if [ "$got" != "$want" ]; then
  echo "npm-pinned: $tgz: sha256 $got, want $want (pinned $name@$version)" >&2
  exit 1
fi
printf '%s\n' "$tgz"
