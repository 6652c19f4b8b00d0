#!/bin/bash
# check-upstream-examples.sh — each manifest of t/data/kubeflow-examples/
# against upstream's file at the commit its header records: the same bytes
# below the two header lines, image: lines aside. Run by hand (no network
# in CI) with the git directories of the upstream repositories, bare
# clones or checkouts, e.g.
#   scripts/check-upstream-examples.sh ~/src/training-operator ~/src/mpi-operator
# Prints one line per manifest; exits 1 when one differs or its repository
# or commit is not among the given ones.
set -u
root=$(cd "$(dirname "$0")/.." && pwd)
[ $# -gt 0 ] || { echo "usage: check-upstream-examples.sh GITDIR..." >&2; exit 2; }
noimage() { grep -v -E '^[[:space:]]*(- )?image:'; }
bad=0
for f in "$root"/t/data/kubeflow-examples/*.yaml; do
  read -r _ _ repo path _ commit < <(head -1 "$f")
  found=
  for g in "$@"; do
    gd=$(git -C "$g" rev-parse --git-dir 2>/dev/null) || gd=$g
    [[ "$gd" = /* ]] || gd=$g/$gd
    git --git-dir="$gd" cat-file -e "$commit:$path" 2>/dev/null || continue
    found=1
    if diff <(git --git-dir="$gd" show "$commit:$path" | noimage) <(tail -n +3 "$f" | noimage) >/dev/null; then
      echo "same      $(basename "$f")  $repo $path@${commit:0:12}"
    else
      echo "DIFFERENT $(basename "$f")  $repo $path@${commit:0:12}:"
      diff <(git --git-dir="$gd" show "$commit:$path" | noimage) <(tail -n +3 "$f" | noimage) | sed 's/^/  /'
      bad=1
    fi
    break
  done
  [ -n "$found" ] || { echo "MISSING   $(basename "$f")  $repo $path@${commit:0:12}: not in the given repositories"; bad=1; }
done
exit $bad
