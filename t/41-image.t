#!/bin/bash
# covers: src/image/ src/cmd/image.c
# slurmlink image: import (busybox, folder, tar, stdin), list (table, --json),
# run with ch-run, rm, the default store, bad names and sources.
source "$(dirname "$0")/lib.sh"
plan 71

export USER=${USER:-$(id -un)}
T=$(tmpdir)
on_exit "rm -rf '$T'"
S=$T/store
img() { "$SLURMLINK" image "$@"; }

out=$(img import busybox --busybox --store "$S" 2>&1); rc=$?
is "$rc" 0 "import busybox --busybox"
is "$out" "imported busybox:latest into $S/busybox+latest" "says where it went"
B=$S/busybox+latest
for d in proc sys dev tmp home etc; do ok test -d "$B/$d" -a ! -L "$B/$d" "mount point /$d is a folder"; done
for f in passwd group hosts resolv.conf; do ok test -f "$B/etc/$f" -a ! -L "$B/etc/$f" "/etc/$f is a file"; done
is "$(readlink "$B/bin/sh")" busybox "/bin/sh links to busybox"

is "$(ch-run "$B" -- echo hi 2>&1)" hi "ch-run runs the image: echo hi"
is "$(ch-run "$B" -- /bin/sh -c 'printf "%s" "$((6*7))"; ls /usr/bin/env >/dev/null && echo " env"')" "42 env" "the image's shell and applets work"
is "$(ch-run "$B" -- /bin/sh -c 'cat /proc/self/status | grep -c ^Pid:')" 1 "/proc is mounted inside"
X="it's \$(id) \`x\` ; \"q\""
is "$(ch-run "$B" -- printf '%s' "$X")" "$X" "arguments pass through ch-run unchanged"

# folder, tar, compressed tar, stdin
mkdir -p "$T/src/bin" "$T/src/data"; cp /bin/busybox "$T/src/bin/"; ln -s busybox "$T/src/bin/sh"; echo payload >"$T/src/data/f"
ok img import mine/app:1.0 "$T/src" --store "$S" "import a folder as mine/app:1.0"
ok test -f "$S/mine%app+1.0/data/f" "stored as mine%app+1.0"
ok test -f "$S/mine%app+1.0/etc/passwd" "made runnable (etc/passwd added)"
is "$(ch-run "$S/mine%app+1.0" -- /bin/sh -c 'cat /data/f')" payload "the imported folder runs"
tar -C "$T/src" -cJf "$T/src.tar.xz" .
ok img import tarred:xz "$T/src.tar.xz" --store "$S" "import a .tar.xz"
ok test -f "$S/tarred+xz/data/f" "unpacked"
tar -C "$T/src" -cf - . | img import piped - --store "$S" >/dev/null 2>&1
ok test -f "$S/piped+latest/data/f" "import - reads a tar from standard input"
nok img import mine/app:1.0 "$T/src" --store "$S" "import over an existing image fails"
like "$(img import mine/app:1.0 "$T/src" --store "$S" 2>&1)" "already exists.*--force" "and says to use --force"
echo v2 >"$T/src/data/f"
ok img import mine/app:1.0 "$T/src" --store "$S" --force "--force replaces it"
is "$(cat "$S/mine%app+1.0/data/f")" v2 "new content in place"
is "$(ls -A "$S" | grep -c '^\.')" 0 "no work folders left behind"

list=$(img list --store "$S")
is "$(head -1 <<<"$list" | tr -s ' ')" "REPOSITORY TAG DIGEST SIZE LAST-USED IN-USE PATH" "list header"
is "$(tail -n +2 <<<"$list" | awk '{print $1":"$2}' | tr '\n' ' ')" "busybox:latest mine/app:1.0 piped:latest tarred:xz " "list shows every image, sorted, with / restored"
row=$(grep '^busybox' <<<"$list")
like "$row" '^busybox +latest +- +[0-9.]+MiB +- +- ' "busybox row: name, tag, no digest, size, no use records (imported)"
ok test "${row##* }" = "$B" "busybox row: path"
json=$(img list --store "$S" --json)
is "$(jq -r '.[] | "\(.name)|\(.tag)|\(.ref)"' <<<"$json" | head -2 | tr '\n' ' ')" "busybox|latest|busybox:latest mine/app|1.0|mine/app:1.0 " "list --json: name, tag, ref"
ok test "$(jq '.[0].size' <<<"$json")" -gt 1000000 "list --json: size in bytes"
is "$(jq -r '.[0].path' <<<"$json")" "$B" "list --json: absolute path"

# default store: $SLURMLINK_IMAGE_STORE, else $SLURMLINK_DIR/images
SLURMLINK_IMAGE_STORE=$S ok "$SLURMLINK" image list "SLURMLINK_IMAGE_STORE is used"
is "$(SLURMLINK_IMAGE_STORE=$S "$SLURMLINK" image list | grep -c busybox)" 1 "list from \$SLURMLINK_IMAGE_STORE"
is "$(SLURMLINK_DIR=$T/cl "$SLURMLINK" image import tiny "$T/src" >/dev/null 2>&1; ls "$T/cl/images")" "tiny+latest" "default store \$SLURMLINK_DIR/images"
is "$(SLURMLINK_DIR=$T/cl "$SLURMLINK" image list --json | jq -r '.[0].ref')" "tiny:latest" "list from the default store"

# rm
ok img rm piped tarred:xz --store "$S" "rm two images"
ok test ! -e "$S/piped+latest" -a ! -e "$S/tarred+xz" "their folders are gone"
nok img rm piped --store "$S" "rm of a missing image fails"
like "$(img rm piped --store "$S" 2>&1)" "no image piped in $S" "and says so"

# bad names and sources
for bad in "../etc" "/abs" "Upper" "a//b" "x:y:z" "name@sha256:00" "with space" "a:" "-x"; do
  out=$(img import --store "$S" -- "$bad" "$T/src" 2>&1); rc=$?
  ok test "$rc" -ne 0 "bad name '$bad' refused"
  like "$out" "invalid image reference" "  with a clear error for '$bad'"
done
ok test ! -e "/etc+latest" -a ! -e "$T/etc+latest" "nothing written for a path-like name"
like "$(img import x /nonexistent --store "$S" 2>&1)" "/nonexistent: No such file" "missing source"
echo "not a tar" >"$T/junk.tar"
like "$(img import junk "$T/junk.tar" --store "$S" 2>&1)" "tar failed" "a broken tar reports tar's failure"
mkdir -p "$T/saved"; echo '[]' >"$T/saved/manifest.json"; tar -C "$T/saved" -cf "$T/saved.tar" .
like "$(img import saved "$T/saved.tar" --store "$S" 2>&1)" "docker save.*docker export" "a docker-save archive is refused with advice"
like "$(img import dyn --busybox=/bin/ls --store "$S" 2>&1)" "dynamically linked" "a dynamic busybox is refused"
is "$(ls -A "$S" | grep -c '^\.')" 0 "failed imports leave nothing behind"
nok img frobnicate --store "$S" "unknown action fails"
ok img --help "image --help"
like "$("$SLURMLINK" --help)" "image +import, list and remove" "slurmlink --help lists image"

done_testing
