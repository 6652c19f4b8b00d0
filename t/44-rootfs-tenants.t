#!/bin/bash
# covers: src/shim/rootfs.c src/image/rootfs.c src/image/
# 44-rootfs-tenants.t — the private root (src/shim/rootfs.c) for two real
# tenants (Unix users made here) running one stored image at the same time:
#   - each container runs as its tenant (not root) and writes / freely, in a
#     root of its own: both write /same and each reads back its own;
#   - what the tenant creates is its own; what the image's owner (root) owns
#     stays read-only to it (EACCES), as for a non-root user in Kubernetes;
#   - the stored image is unchanged afterwards.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/61-security-lib.sh"
plan 9

sec_two_tenants --token --default || bail "two tenants: Unix users, slurmlink up, the image, kubeconfigs, namespaces"
IMG=$CL/images/busybox+latest
tree_sum() { (cd "$1" && find . -printf '%p %y %m %U %G %s %l\n' | sort && find . -type f -print0 | sort -z | xargs -0 cat) | md5sum; }
before=$(tree_sum "$IMG")
SYNC=$(mktemp -d /tmp/slt-sync.XXXXXX)
chmod 1777 "$SYNC"
on_exit "rm -rf '$SYNC'"
# a tenant's pod: write /same, wait for the other tenant's pod to have
# written too, then report who it is and what it sees
script='echo $ME >/same; touch '$SYNC'/$ME; while [ ! -e '$SYNC'/$PEER ]; do usleep 100000; done; echo "uid=$(id -u) same=$(cat /same) owner=$(stat -c %u /same)"; (echo x >>/bin/busybox) 2>&1; true'
pod() { # USER ME PEER
  printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"w","annotations":{"slurmlink.io/tmp":"node"}},"spec":{"restartPolicy":"Never","containers":[{"name":"main","image":"busybox","command":["sh","-c",%s],"env":[{"name":"ME","value":"%s"},{"name":"PEER","value":"%s"}],"resources":{"requests":{"cpu":"100m","memory":"32Mi"}}}]}}' \
    "$(printf '%s' "$script" | python3 -c 'import json,sys; print(json.dumps(sys.stdin.read()))')" "$2" "$3" | kc "$1" create -f - >/dev/null
}
pod alice a b
pod bob b a
done_() { local p; p=$(kc "$1" get pod w -o jsonpath='{.status.phase}' 2>/dev/null); [ "$p" = Succeeded ] || [ "$p" = Failed ]; }
ok wait_for 120 done_ alice "alice's pod ran"
ok wait_for 120 done_ bob "bob's pod ran"
la=$(kc alice logs w 2>&1) lb=$(kc bob logs w 2>&1)
like "$la" "^uid=$UIDA same=a owner=$UIDA" "alice's container runs as alice, writes / and reads back her own /same"
like "$lb" "^uid=$UIDB same=b owner=$UIDB" "bob's, at the same time, his own"
like "$la" "can't create /bin/busybox: Permission denied" "a file of the image's owner stays read-only to the tenant"
is "$(kc alice get pod w -o jsonpath='{.status.phase}')" Succeeded "alice's pod succeeded"
is "$(kc bob get pod w -o jsonpath='{.status.phase}')" Succeeded "bob's pod succeeded"
ok test -e "$SYNC/a" -a -e "$SYNC/b" "both ran at the same time (each waited for the other)"
is "$(tree_sum "$IMG")" "$before" "the stored image is unchanged"
