#!/bin/bash
# covers: src/storage/ src/api/storage_kind.c src/ctl/storage.c src/auth/authz.c
# 94-storage-tenants.t — PersistentVolumeClaims against hostile tenants: two
# real Unix users, alice ($UA, namespace team-a) and bob ($UB, team-b), on a
# real cluster whose default StorageClass is its shared folder D/shared:
#   - each claim's folder belongs to its creator's Unix user, mode 0700:
#     the other tenant can neither list nor read it, nor reach it by name
#     from a pod (a claim is looked up in the pod's own namespace);
#   - the owner cannot redirect her folder: the class root is root's, so
#     renaming the folder away or putting a symlink in its place fails;
#     links she plants inside it do not lead root anywhere: deleting the
#     claim (reclaim Delete) empties the folder as her Unix user, so a
#     root-owned file and bob's file her links point at survive;
#   - a class root a tenant could write is refused: claims stay Pending
#     (ProvisioningFailed) until the admin fixes its mode;
#   - a tenant may not create PersistentVolumes (403) nor take over a
#     claim by rewriting its creator annotation, nor reach another claim's
#     folder by naming its volume (her claim stays unbound; its status is
#     the server's);
#   - ResourceQuota counts persistentvolumeclaims, requests.storage and
#     <class>.storageclass.storage.k8s.io/requests.storage: a claim over it
#     is refused (403), a deleted claim's storage is given back.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/61-security-lib.sh"
plan 29

sec_two_tenants --cert || bail "two tenants: Unix users, slurmlink up, the image, kubeconfigs, namespaces"
as() { local u=$1; shift; setpriv --reuid="$u" --regid="$(id -g "$u")" --clear-groups "$@"; }
jpu() { local u=$1; shift; kc "$u" get "$1" -o jsonpath="$2" 2>&1; }
pvc() { printf 'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: %s}\nspec:\n  accessModes: [ReadWriteMany]\n  resources: {requests: {storage: 1Gi}}\n' "$1"; }
bound() { [ "$(jpu "$1" "pvc/$2" '{.status.phase}')" = Bound ]; }
pod() { # NAME CLAIM SCRIPT
  printf '{"apiVersion":"v1","kind":"Pod","metadata":{"name":"%s","annotations":{"slurmlink.io/runtime":"charliecloud"}},"spec":{"restartPolicy":"Never","volumes":[{"name":"d","persistentVolumeClaim":{"claimName":"%s"}}],"containers":[{"name":"c","image":"busybox","command":["sh","-c","%s"],"volumeMounts":[{"name":"d","mountPath":"/data"}],"resources":{"requests":{"cpu":"100m","memory":"32Mi"}}}]}}' "$1" "$2" "$3"
}
phase() { jpu "$1" "pod/$2" '{.status.phase}'; }

pvc a | kc alice create -f - >/dev/null
pvc b | kc bob create -f - >/dev/null
ok wait_for 20 eval 'bound alice a && bound bob b' "alice's and bob's claims bind"
DA=$CL/shared/$(jpu alice pvc/a '{.spec.volumeName}') DB=$CL/shared/$(jpu bob pvc/b '{.spec.volumeName}')
is "$(stat -c '%u %a' "$DA") $(stat -c '%u %a' "$DB")" "$UIDA 700 $UIDB 700" "each folder is its creator's Unix user's, mode 0700"
pod pa a 'echo alice-secret >/data/secret' | kc alice create -f - >/dev/null
ok wait_for 60 eval '[ "$(phase alice pa)" = Succeeded ]' "alice's pod writes to her claim"
is "$(stat -c %U "$DA/secret" 2>&1)" "$UA" "... as alice"
nok as "$UB" ls "$DA" "bob cannot list alice's folder"
nok as "$UB" cat "$DA/secret" "... nor read her file"
pod pb a 'cat /data/secret' | kc bob create -f - >/dev/null
ok wait_for 20 sched_says pb 'persistentvolumeclaim "a" not found' kc bob "bob's pod naming claim a finds none in team-b: it waits, never mounts alice's"
kc bob delete pod pb --wait=false >/dev/null 2>&1

# --- redirection ---------------------------------------------------------------------------------
nok as "$UA" mv "$DA" "$DA.away" "alice cannot rename her folder away (the class root is root's)"
nok as "$UA" ln -s /etc "$CL/shared/evil" "... nor put a symlink beside it"
ok test -d "$DA" -a ! -L "$DA" "her folder is still the folder made for her claim"
V=$(tmpdir); on_exit "rm -rf '$V'"; chmod 755 "$V"
echo keep >"$V/rootfile"; chmod 644 "$V/rootfile"
pod pb2 b 'echo bob-data >/data/bobfile' | kc bob create -f - >/dev/null
ok wait_for 60 eval '[ "$(phase bob pb2)" = Succeeded ]' "bob keeps a file in his claim"
chmod 755 "$DB" # bob lets others see his folder's names (his choice)
as "$UA" ln -s "$V/rootfile" "$DA/l1"; as "$UA" ln -s "$DB/bobfile" "$DA/l2"; as "$UA" ln -s "$V" "$DA/l3"
as "$UA" mkdir -p "$DA/deep/er"; as "$UA" ln -s / "$DA/deep/er/root"
# a folder of hers she may not write: her Unix user cannot empty it, root could
as "$UA" mkdir "$DA/locked"; as "$UA" touch "$DA/locked/f"; as "$UA" chmod 500 "$DA/locked"
VA=$(basename "$DA")
kc alice delete pod pa >/dev/null 2>&1
kc alice delete pvc a >/dev/null 2>&1
ok wait_for 30 event_says "$VA" VolumeFailedDelete ka -n default "alice's claim deleted: the removal runs as her Unix user, which cannot empty her 0500 folder (VolumeFailedDelete)"
ok test -e "$DA/locked/f" "... so what root could have removed is still there"
as "$UA" chmod 700 "$DA/locked"
ok wait_for 30 eval "[ ! -e '$DA' ]" "once she may write it, her folder is removed (reclaim Delete)"
is "$(cat "$V/rootfile" 2>&1)|$(cat "$DB/bobfile" 2>&1)|$(ls / | wc -l | awk '$1 > 5 {print "root intact"}')" "keep|bob-data|root intact" \
  "... as her user: the root-owned file and bob's file her links named survive"

# --- a root a tenant could write --------------------------------------------------------------------
chmod 1777 "$CL/shared"
pvc c | kc alice create -f - >/dev/null
ok wait_for 20 event_says c 'ProvisioningFailed*writable' kc alice "a class root others may write: no folder is made there (ProvisioningFailed, naming it)"
is "$(jpu alice pvc/c '{.status.phase}')" Pending "... the claim stays Pending"
chmod 755 "$CL/shared"
ok wait_for 30 bound alice c "once the admin fixes its mode, the claim binds"

# --- what a tenant may not do -------------------------------------------------------------------------
like "$(printf 'apiVersion: v1\nkind: PersistentVolume\nmetadata: {name: mine}\nspec:\n  capacity: {storage: 1Gi}\n  accessModes: [ReadWriteMany]\n  hostPath: {path: "%s/shared/x"}\n' "$CL" | kc alice create -f - 2>&1)" \
  'Forbidden|forbidden' "a tenant may not create a PersistentVolume (403)"
kc alice annotate pvc c slurmlink.io/user=bob --overwrite >/dev/null 2>&1
is "$(jpu alice pvc/c '{.metadata.annotations.slurmlink\.io/user}')" alice "a claim's creator annotation stays the server's"

pvc2() { printf 'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: %s}\nspec:\n  accessModes: [ReadWriteMany]\n  storageClassName: ""\n  volumeName: %s\n  resources: {requests: {storage: 1Gi}}\n' "$1" "$2"; }
pvc2 steal "$(basename "$DB")" | kc alice create -f - >/dev/null
like "$(kc alice patch pvc steal --subresource=status --type=merge -p '{"status":{"phase":"Bound"}}' 2>&1)" \
  'User "alice" cannot patch resource "persistentvolumeclaims/status"' "alice names bob's volume in a claim: she cannot write Bound into its status (403)"
pod ps steal 'cat /data/bobfile' | kc alice create -f - >/dev/null
ok wait_for 20 sched_says ps 'persistentvolumeclaim "steal" is not bound' kc alice "... the claim stays unbound (bob's volume is bound to his claim): her pod waits"
unlike "$(kc alice logs ps 2>&1)" "bob-data" "... and never reads bob's file"

# --- quota --------------------------------------------------------------------------------------------
sz() { printf 'apiVersion: v1\nkind: PersistentVolumeClaim\nmetadata: {name: %s}\nspec:\n  accessModes: [ReadWriteMany]\n  resources: {requests: {storage: %s}}\n' "$1" "$2"; }
is "$(ka create quota st -n team-b --hard=persistentvolumeclaims=3,requests.storage=1500Mi,shared.storageclass.storage.k8s.io/requests.storage=1600Mi 2>&1)" \
  "resourcequota/st created" "an admin's quota on claims and storage (per class too)"
used() { [ "$(ka get quota st -n team-b -o jsonpath='{.status.used.persistentvolumeclaims} {.status.used.requests\.storage}' 2>&1)" = "$1" ]; }
ok wait_for 20 used "1 1Gi" "its status counts bob's claim and its 1Gi"
like "$(sz big 1Gi | kc bob create -f - 2>&1)" 'forbidden: exceeded quota: st, requested: requests.storage=1Gi,shared.storageclass.storage.k8s.io/requests.storage=1Gi, used: requests.storage=1Gi,shared.storageclass.storage.k8s.io/requests.storage=1Gi, limited: requests.storage=1500Mi,shared.storageclass.storage.k8s.io/requests.storage=1600Mi' \
  "a claim over it: 403 exceeded quota, naming requests.storage and the class's"
is "$(sz small 100Mi | kc bob create -f - 2>&1)" "persistentvolumeclaim/small created" "a claim within it is admitted"
ok wait_for 10 used "2 1124Mi" "... and counted"
kc bob delete pvc small >/dev/null 2>&1
ok wait_for 30 used "1 1Gi" "a deleted claim's storage is given back (the janitor's recount)"
