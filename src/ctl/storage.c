/* storage.c — the volume controller: PersistentVolumeClaims bound to new
 * folders of their StorageClass (src/storage) or to an admin's volume,
 * their volumes reclaimed (Delete: the folder removed as its owner; Retain:
 * Released) once the claim is gone, a deleted claim kept while a pod uses
 * it (kube's pvc-protection finalizer), and the claims of a pod resolved to
 * folders for its submission. */
#include "storage/storage.h"
#include "auth/policy.h"
#include "common/log.h"
#include "common/proc.h"
#include "common/xalloc.h"
#include "ctl/internal.h"
#include "ctl/storage.h"
#include "kube/meta.h"
#include "kube/quantity.h"
#include "metrics/metrics.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PVCS "persistentvolumeclaims"
#define PVS "persistentvolumes"
#define PVC_PROTECTION "kubernetes.io/pvc-protection"
#define PROVISIONER "slurmlink.io/shared-folder"
#define ANN_PROVISIONED "pv.kubernetes.io/provisioned-by"
#define ANN_OWNER "slurmlink.io/owner" /* "uid:gid" of the folder */
#define STORAGE_RETRY_MS 10000

/* the controller thread's (storage.h) */
struct ctl_storage {
    int64_t rev;       /* claims' and volumes' revisions at the last pass */
    long long next_ms; /* the next pass even without a change */
    int waiting;       /* a claim waits on pods: their changes count too */
};

ctl_storage_t *ctl_storage_create(void) { return sl_xcalloc(1, sizeof(ctl_storage_t)); }

void ctl_storage_destroy(ctl_storage_t *s) { free(s); }

/* a pod that is not finished names claim in its volumes */
static int pod_uses(json_t *pod, const char *claim)
{
    const char *phase = sl_kube_path_str(pod, "status.phase");
    if (phase && (!strcmp(phase, "Succeeded") || !strcmp(phase, "Failed")))
        return 0;
    size_t i;
    json_t *v;
    json_array_foreach(sl_kube_path(pod, "spec.volumes"), i, v)
    {
        const char *n = sl_kube_path_str(v, "persistentVolumeClaim.claimName");
        if (n && !strcmp(n, claim))
            return 1;
    }
    return 0;
}

/* the uid of the workload that controls pod (its controller
 * ownerReference), or NULL */
static const char *owner_uid(json_t *pod)
{
    size_t i;
    json_t *r;
    json_array_foreach(sl_kube_path(pod, "metadata.ownerReferences"), i, r)
    {
        if (json_is_true(json_object_get(r, "controller")))
            return json_string_value(json_object_get(r, "uid"));
    }
    return NULL;
}

/* the first pod of ns (other than uid skip, and not one of workload
 * same_owner) that uses claim; with started, only one whose job was
 * submitted (new ref, or NULL) */
static json_t *claim_user(sl_ctl_t *c, const char *ns, const char *claim, const char *skip,
                          const char *same_owner, int started)
{
    json_t *pods = sl_store_list(c->store, "pods", ns, NULL), *found = NULL;
    size_t i;
    json_t *p;
    json_array_foreach(pods, i, p)
    {
        const char *uid = sl_kube_uid(p);
        const char *own = owner_uid(p);
        if ((skip && uid && !strcmp(uid, skip)) || (same_owner && own && !strcmp(own, same_owner)))
            continue;
        if (started && !sl_kube_annotation(p, SL_ANN_JOB_ID) &&
            !sl_kube_path_str(p, "status.startTime"))
            continue;
        if (pod_uses(p, claim)) {
            found = json_incref(p);
            break;
        }
    }
    json_decref(pods);
    return found;
}

/* ---- binding ---- */

typedef struct bind_arg {
    json_t *pv; /* the volume bound */
    const char *claim_uid;
} bind_arg_t;

static int mark_claim_bound(json_t *pvc, void *arg)
{
    bind_arg_t *b = arg;
    const char *uid = sl_kube_uid(pvc);
    if (!uid || strcmp(uid, b->claim_uid) || sl_kube_meta_str(pvc, "deletionTimestamp")) {
        errno = ESTALE;
        return -1;
    }
    json_object_set_new(json_object_get(pvc, "spec"), "volumeName",
                        json_string(sl_kube_name(b->pv)));
    json_object_set_new(pvc, "status",
                        json_pack("{s:s,s:O,s:O}", "phase", "Bound", "accessModes",
                                  sl_kube_path(b->pv, "spec.accessModes"), "capacity",
                                  sl_kube_path(b->pv, "spec.capacity")));
    sl_kube_set_annotation(pvc, "pv.kubernetes.io/bind-completed", "yes");
    return 1;
}

static int mark_volume_bound(json_t *pv, void *arg)
{
    json_t *pvc = arg;
    const char *cur = sl_kube_path_str(pv, "spec.claimRef.uid");
    if (cur && strcmp(cur, sl_kube_uid(pvc))) {
        errno = EBUSY;
        return -1;
    }
    json_object_set_new(json_object_get(pv, "spec"), "claimRef",
                        json_pack("{s:s,s:s,s:s,s:s,s:s}", "apiVersion", "v1", "kind",
                                  "PersistentVolumeClaim", "namespace", sl_kube_namespace(pvc),
                                  "name", sl_kube_name(pvc), "uid", sl_kube_uid(pvc)));
    json_object_set_new(pv, "status", json_pack("{s:s}", "phase", "Bound"));
    return 1;
}

static int64_t bytes_of(json_t *q)
{
    sl_quantity_t v;
    int64_t b = -1;
    if (q && sl_quantity_from_json(q, &v, NULL, NULL) == 0)
        sl_quantity_ceil_div(&v, 1, &b);
    return b;
}

/* the claim's mode list is a subset of the volume's */
static int modes_fit(json_t *pvc, json_t *pv)
{
    size_t i, j;
    json_t *m, *n;
    json_array_foreach(sl_kube_path(pvc, "spec.accessModes"), i, m)
    {
        int ok = 0;
        json_array_foreach(sl_kube_path(pv, "spec.accessModes"), j, n) ok |= json_equal(m, n);
        if (!ok)
            return 0;
    }
    return 1;
}

/* an admin's volume named by spec.volumeName */
static void bind_static(sl_ctl_t *c, json_t *pvc, const char *vol)
{
    json_t *pv = sl_store_get(c->store, PVS, NULL, vol);
    const char *why = NULL;
    const char *ref = pv ? sl_kube_path_str(pv, "spec.claimRef.name") : NULL;
    const char *refns = pv ? sl_kube_path_str(pv, "spec.claimRef.namespace") : NULL;
    if (!pv)
        why = "no such volume";
    else if (ref &&
             (strcmp(ref, sl_kube_name(pvc)) || !refns || strcmp(refns, sl_kube_namespace(pvc))))
        why = "the volume is reserved for another claim";
    else if (sl_kube_path_str(pv, "spec.claimRef.uid") &&
             strcmp(sl_kube_path_str(pv, "spec.claimRef.uid"), sl_kube_uid(pvc)))
        why = "the volume was bound to an earlier claim of that name";
    else if (bytes_of(sl_kube_path(pv, "spec.capacity.storage")) <
             bytes_of(sl_kube_path(pvc, "spec.resources.requests.storage")))
        why = "the volume is smaller than the request";
    else if (!modes_fit(pvc, pv))
        why = "the volume does not offer the requested access modes";
    sl_error_t err = SL_ERROR_INIT;
    if (!why && sl_store_mutate(c->store, PVS, NULL, vol, mark_volume_bound, pvc, NULL, &err) < 0)
        why = "the volume is bound to another claim";
    if (!why) {
        bind_arg_t b = {pv, sl_kube_uid(pvc)};
        if (sl_store_mutate(c->store, PVCS, sl_kube_namespace(pvc), sl_kube_name(pvc),
                            mark_claim_bound, &b, NULL, &err) == 0)
            ctl_event(c, pvc, "Normal", "Bound", "bound to volume %s", vol);
    } else {
        ctl_event(c, pvc, "Warning", "FailedBinding", "volume %s: %s", vol, why);
    }
    json_decref(pv);
}

/* the Unix user a claim's folder belongs to: its creator's (policy), else
 * the default job user */
static int claim_owner(sl_ctl_t *c, json_t *pvc, uid_t *uid, gid_t *gid, sl_error_t *err)
{
    struct sl_authz_policy *policy = atomic_load(&c->policy);
    const char *kuser = sl_kube_annotation(pvc, SL_ANN_USER);
    *uid = c->uid;
    *gid = c->gid;
    if (policy && kuser)
        return sl_authz_unix_user(policy, kuser, uid, gid, NULL, err);
    return 0;
}

/* the sum of the requests of ns's other claims of class cls */
static int64_t ns_claimed(json_t *pvcs, const char *ns, const char *cls, const char *skip)
{
    int64_t sum = 0;
    size_t i;
    json_t *o;
    json_array_foreach(pvcs, i, o)
    {
        const char *c2 = sl_kube_path_str(o, "spec.storageClassName");
        if (strcmp(sl_kube_namespace(o), ns) || !c2 || strcmp(c2, cls) ||
            !strcmp(sl_kube_uid(o), skip))
            continue;
        const char *ph = sl_kube_path_str(o, "status.phase");
        if (ph && !strcmp(ph, "Bound")) {
            int64_t b = bytes_of(sl_kube_path(o, "spec.resources.requests.storage"));
            sum += b > 0 ? b : 0;
        }
    }
    return sum;
}

static json_t *new_volume(json_t *pvc, const sl_storage_class_t *k, const char *name,
                          const char *path, uid_t uid, gid_t gid)
{
    char owner[64];
    snprintf(owner, sizeof(owner), "%u:%u", (unsigned)uid, (unsigned)gid);
    return json_pack("{s:s,s:s,s:{s:s,s:{s:s,s:s}},s:{s:O,s:O,s:{s:s,s:s},s:s,s:s,s:s},s:{s:s}}",
                     "apiVersion", "v1", "kind", "PersistentVolume", "metadata", "name", name,
                     "annotations", ANN_PROVISIONED, PROVISIONER, ANN_OWNER, owner, "spec",
                     "capacity", sl_kube_path(pvc, "spec.resources.requests"), "accessModes",
                     sl_kube_path(pvc, "spec.accessModes"), "hostPath", "path", path, "type",
                     "Directory", "persistentVolumeReclaimPolicy", sl_storage_class_reclaim(k),
                     "storageClassName", sl_storage_class_name(k), "volumeMode", "Filesystem",
                     "status", "phase", "Available");
}

/* a new folder of the claim's class, owned by the claim's Unix user, and
 * its volume; -1 with why */
static int provision(sl_ctl_t *c, json_t *pvc, const sl_storage_class_t *k, char **volname,
                     sl_error_t *err)
{
    uid_t uid;
    gid_t gid;
    if (claim_owner(c, pvc, &uid, &gid, err) < 0)
        return -1;
    char *name = sl_xasprintf("pvc-%s", sl_kube_uid(pvc));
    char *path = sl_xasprintf("%s/%s", sl_storage_class_root(k), name);
    json_t *pv = sl_store_get(c->store, PVS, NULL, name);
    int rc = 0;
    if (!pv) { /* a volume stored before a crash has its folder already */
        if (sl_storage_make_dir(sl_storage_class_root(k), name, uid, gid, err) < 0)
            rc = -1;
        pv = rc == 0 ? new_volume(pvc, k, name, path, uid, gid) : NULL;
        if (pv && sl_store_create(c->store, PVS, pv, err) < 0 && errno != EEXIST)
            rc = -1;
    }
    json_decref(pv);
    free(path);
    if (rc == 0)
        *volname = name;
    else
        free(name);
    return rc;
}

static void bind_dynamic(sl_ctl_t *c, json_t *pvc, json_t *pvcs)
{
    const char *cls = sl_kube_path_str(pvc, "spec.storageClassName");
    const sl_storage_class_t *k = cls && *cls ? sl_storage_find(sl_storage_current(), cls) : NULL;
    if (!cls || !*cls) { /* kube's text: an admin's volume may come */
        ctl_event(c, pvc, "Normal", "FailedBinding",
                  "no persistent volumes available for this claim and no storage class is set");
        return;
    }
    if (!k) {
        ctl_event(c, pvc, "Warning", "ProvisioningFailed",
                  "storageclass.storage.k8s.io \"%s\" not found", cls);
        return;
    }
    if (!strcmp(sl_storage_class_binding(k), "WaitForFirstConsumer")) {
        json_t *user = claim_user(c, sl_kube_namespace(pvc), sl_kube_name(pvc), NULL, NULL, 0);
        json_decref(user);
        if (!user) {
            ctl_event(c, pvc, "Normal", "WaitForFirstConsumer",
                      "waiting for first consumer to be created before binding");
            return;
        }
    }
    int64_t max = sl_storage_class_max_namespace(k);
    int64_t want = bytes_of(sl_kube_path(pvc, "spec.resources.requests.storage"));
    if (max > 0 && ns_claimed(pvcs, sl_kube_namespace(pvc), cls, sl_kube_uid(pvc)) + want > max) {
        ctl_event(c, pvc, "Warning", "ProvisioningFailed",
                  "the claims of namespace %s in StorageClass %s would exceed %lld bytes",
                  sl_kube_namespace(pvc), cls, (long long)max);
        return;
    }
    sl_error_t err = SL_ERROR_INIT;
    char *vol = NULL;
    if (provision(c, pvc, k, &vol, &err) < 0) {
        sl_warn("claim %s/%s: %s", sl_kube_namespace(pvc), sl_kube_name(pvc), err.text);
        ctl_event(c, pvc, "Warning", "ProvisioningFailed", "cannot make the volume's folder: %s",
                  err.text);
        return;
    }
    json_t *pv = sl_store_get(c->store, PVS, NULL, vol);
    if (pv && sl_store_mutate(c->store, PVS, NULL, vol, mark_volume_bound, pvc, NULL, &err) == 0) {
        json_decref(pv);
        pv = sl_store_get(c->store, PVS, NULL, vol);
        bind_arg_t b = {pv, sl_kube_uid(pvc)};
        if (sl_store_mutate(c->store, PVCS, sl_kube_namespace(pvc), sl_kube_name(pvc),
                            mark_claim_bound, &b, NULL, &err) == 0)
            ctl_event(c, pvc, "Normal", "ProvisioningSucceeded",
                      "Successfully provisioned volume %s", vol);
    }
    json_decref(pv);
    free(vol);
}

/* ---- deletion and reclaim ---- */

/* a deleted claim that no pod uses any more goes (its finalizer done) */
static void release_claim(sl_ctl_t *c, json_t *pvc)
{
    json_t *user = claim_user(c, sl_kube_namespace(pvc), sl_kube_name(pvc), NULL, NULL, 0);
    if (user) {
        json_decref(user);
        return;
    }
    json_t *fin = json_object_get(sl_kube_meta(pvc), "finalizers");
    size_t i;
    json_t *f;
    json_array_foreach(fin, i, f)
    {
        if (json_string_value(f) && strcmp(json_string_value(f), PVC_PROTECTION))
            return; /* another finalizer: its owner removes it */
    }
    sl_error_t err = SL_ERROR_INIT;
    sl_store_delete(c->store, PVCS, sl_kube_namespace(pvc), sl_kube_name(pvc), sl_kube_rv(pvc),
                    NULL, &err);
}

static int mark_released(json_t *pv, void *arg)
{
    (void)arg;
    const char *ph = sl_kube_path_str(pv, "status.phase");
    if (ph && !strcmp(ph, "Released"))
        return 0;
    json_object_set_new(pv, "status", json_pack("{s:s}", "phase", "Released"));
    return 1;
}

/* the class root a dynamic volume's folder is directly beneath, and the
 * folder's name */
static const sl_storage_class_t *volume_class(json_t *pv, const char **name)
{
    const char *path = sl_kube_path_str(pv, "spec.hostPath.path");
    const sl_storage_t *s = sl_storage_current();
    for (size_t i = 0; path && i < sl_storage_count(s); i++) {
        const char *root = sl_storage_class_root(sl_storage_at(s, i));
        size_t n = strlen(root);
        if (!strncmp(path, root, n) && path[n] == '/' && !strcmp(path + n + 1, sl_kube_name(pv))) {
            *name = path + n + 1;
            return sl_storage_at(s, i);
        }
    }
    return NULL;
}

/* a volume whose claim is gone: Delete (the controller's own volumes)
 * removes the folder as its owner, then the volume; else Released */
static void reclaim(sl_ctl_t *c, json_t *pv)
{
    const char *policy = sl_kube_path_str(pv, "spec.persistentVolumeReclaimPolicy");
    const char *prov = sl_kube_annotation(pv, ANN_PROVISIONED);
    const char *owner = sl_kube_annotation(pv, ANN_OWNER);
    const char *name = NULL;
    const sl_storage_class_t *k = volume_class(pv, &name);
    unsigned uid, gid;
    sl_error_t err = SL_ERROR_INIT;
    if (policy && !strcmp(policy, "Delete") && prov && !strcmp(prov, PROVISIONER) && k && owner &&
        sscanf(owner, "%u:%u", &uid, &gid) == 2 && uid != 0) {
        if (sl_storage_remove_dir(sl_storage_class_root(k), name, (uid_t)uid, (gid_t)gid, &err) <
            0) {
            sl_warn("volume %s: %s", sl_kube_name(pv), err.text);
            ctl_event(c, pv, "Warning", "VolumeFailedDelete", "%s", err.text);
            return;
        }
        sl_store_delete(c->store, PVS, NULL, sl_kube_name(pv), 0, NULL, &err);
        return;
    }
    sl_store_mutate(c->store, PVS, NULL, sl_kube_name(pv), mark_released, NULL, NULL, &err);
}

/* a volume's spec.claimRef: the claim's namespace, name and uid (each NULL
 * when not set) */
static void claim_ref(json_t *pv, const char **ns, const char **name, const char **uid)
{
    *ns = sl_kube_path_str(pv, "spec.claimRef.namespace");
    *name = sl_kube_path_str(pv, "spec.claimRef.name");
    *uid = sl_kube_path_str(pv, "spec.claimRef.uid");
}

static void check_volumes(sl_ctl_t *c)
{
    json_t *pvs = sl_store_list(c->store, PVS, NULL, NULL);
    size_t i;
    json_t *pv;
    json_array_foreach(pvs, i, pv)
    {
        const char *ns, *cn, *cu;
        claim_ref(pv, &ns, &cn, &cu);
        if (!ns || !cn || !cu)
            continue; /* available, or reserved for a claim to come */
        json_t *pvc = sl_store_get(c->store, PVCS, ns, cn);
        const char *u = pvc ? sl_kube_uid(pvc) : NULL;
        if (!u || strcmp(u, cu))
            reclaim(c, pv);
        json_decref(pvc);
    }
    json_decref(pvs);
}

/* each class's filesystem, as statfs tells it (no walk of its folders) */
static void fs_metrics(void)
{
    const sl_storage_t *s = sl_storage_current();
    for (size_t i = 0; i < sl_storage_count(s); i++) {
        const sl_storage_class_t *k = sl_storage_at(s, i);
        int64_t used, total;
        if (sl_storage_fs_usage(sl_storage_class_root(k), NULL, &used, &total) == 0)
            sl_metrics_storage(sl_storage_class_name(k), (double)used, (double)total);
    }
}

/* an admin's volume whose claimRef reserves it for this claim (by
 * namespace and name, not yet bound to another claim of that name) */
static const char *reserved_volume(json_t *pvs, json_t *pvc)
{
    size_t i;
    json_t *pv;
    json_array_foreach(pvs, i, pv)
    {
        const char *ns, *n, *u;
        claim_ref(pv, &ns, &n, &u);
        if (ns && n && !strcmp(ns, sl_kube_namespace(pvc)) && !strcmp(n, sl_kube_name(pvc)) &&
            (!u || !strcmp(u, sl_kube_uid(pvc))))
            return sl_kube_name(pv);
    }
    return NULL;
}

void ctl_storage_pass(sl_ctl_t *c)
{
    int64_t rev = sl_store_resource_rev(c->store, PVCS) + sl_store_resource_rev(c->store, PVS);
    if (c->storage->waiting)
        rev += sl_store_resource_rev(c->store, "pods");
    long long now = sl_now_ms();
    if (rev == c->storage->rev && now < c->storage->next_ms)
        return;
    c->storage->rev = rev;
    c->storage->next_ms = now + STORAGE_RETRY_MS;
    c->storage->waiting = 0;
    fs_metrics();
    json_t *pvcs = sl_store_list(c->store, PVCS, NULL, NULL);
    json_t *pvs = sl_store_list(c->store, PVS, NULL, NULL);
    size_t i;
    json_t *pvc;
    json_array_foreach(pvcs, i, pvc)
    {
        const char *phase = sl_kube_path_str(pvc, "status.phase");
        const char *vol = sl_kube_path_str(pvc, "spec.volumeName");
        if (sl_kube_meta_str(pvc, "deletionTimestamp")) {
            c->storage->waiting = 1; /* a pod's end lets it go */
            release_claim(c, pvc);
        } else if (phase && !strcmp(phase, "Bound")) {
            continue;
        } else if (vol && *vol) {
            bind_static(c, pvc, vol);
        } else if ((vol = reserved_volume(pvs, pvc))) {
            bind_static(c, pvc, vol); /* the admin's claimRef pre-binds it */
        } else {
            c->storage->waiting = 1; /* WaitForFirstConsumer: a pod's creation */
            bind_dynamic(c, pvc, pvcs);
        }
    }
    json_decref(pvcs);
    json_decref(pvs);
    check_volumes(c);
}

/* ---- a pod's claims, for its submission (any thread) ---- */

/* the volume's claimRef names this claim (namespace, name and uid) */
static int bound_to(json_t *pv, json_t *pvc)
{
    const char *ns = sl_kube_path_str(pv, "spec.claimRef.namespace");
    const char *n = sl_kube_path_str(pv, "spec.claimRef.name");
    const char *u = sl_kube_path_str(pv, "spec.claimRef.uid");
    const char *cu = sl_kube_uid(pvc);
    return ns && n && u && cu && !strcmp(ns, sl_kube_namespace(pvc)) &&
           !strcmp(n, sl_kube_name(pvc)) && !strcmp(u, cu);
}

/* one claim of the pod: {path, readOnly} into out, or -1 with why */
static int resolve(sl_ctl_t *c, const sl_pod_volume_t *v, const char *ns, const char *pod_uid,
                   const char *owner, json_t *out, sl_error_t *err)
{
    const char *cn = v->claim_name;
    json_t *pvc = sl_store_get(c->store, PVCS, ns, cn), *pv = NULL;
    int rc = -1;
    const char *phase = pvc ? sl_kube_path_str(pvc, "status.phase") : NULL;
    const char *vol = pvc ? sl_kube_path_str(pvc, "spec.volumeName") : NULL;
    if (!pvc)
        sl_errprintf(err, "persistentvolumeclaim \"%s\" not found", cn);
    else if (sl_kube_meta_str(pvc, "deletionTimestamp"))
        sl_errprintf(err, "persistentvolumeclaim \"%s\" is being deleted", cn);
    else if (!phase || strcmp(phase, "Bound") || !vol)
        sl_errprintf(err, "persistentvolumeclaim \"%s\" is not bound (%s)", cn,
                     phase ? phase : "Pending");
    else if (!(pv = sl_store_get(c->store, PVS, NULL, vol)))
        sl_errprintf(err, "persistentvolumeclaim \"%s\": volume %s not found", cn, vol);
    else if (!bound_to(pv, pvc)) /* the claim's status is not proof: its volume must say so */
        sl_errprintf(err,
                     "persistentvolumeclaim \"%s\" is not bound (volume %s is not bound to it)", cn,
                     vol);
    else
        rc = 0;
    const char *path = pv ? sl_kube_path_str(pv, "spec.hostPath.path") : NULL;
    if (rc == 0 && !path)
        path = sl_kube_path_str(pv, "spec.local.path");
    json_t *modes = pvc ? sl_kube_path(pvc, "status.accessModes") : NULL;
    int once = 0, shared = 0, pod_only = 0;
    size_t i;
    json_t *m;
    json_array_foreach(modes, i, m)
    {
        const char *s = json_string_value(m);
        once |= s && (!strcmp(s, "ReadWriteOncePod") || !strcmp(s, "ReadWriteOnce"));
        pod_only |= s && !strcmp(s, "ReadWriteOncePod");
        shared |= s && (!strcmp(s, "ReadWriteMany") || !strcmp(s, "ReadOnlyMany"));
    }
    if (rc == 0 && once && !shared) {
        /* ReadWriteOnce: one node in kube; slurmlinkd cannot tell the node
         * before Slurm places the job, so one workload (a gang's replicas,
         * placed together) at a time */
        json_t *other = claim_user(c, ns, cn, pod_uid, pod_only ? NULL : owner, 1);
        if (other)
            rc = sl_errprintf(err, "persistentvolumeclaim \"%s\" is %s and in use by pod %s", cn,
                              json_string_value(json_array_get(modes, 0)), sl_kube_name(other));
        json_decref(other);
    }
    if (rc == 0 && path) {
        /* an admin's volume (existing data) is read-only to tenants; so is
         * one whose claim asked only ReadOnlyMany */
        const char *prov = sl_kube_annotation(pv, ANN_PROVISIONED);
        int ro = !prov || strcmp(prov, PROVISIONER) ||
                 (json_array_size(modes) == 1 &&
                  !strcmp(json_string_value(json_array_get(modes, 0)), "ReadOnlyMany"));
        json_object_set_new(out, cn, json_pack("{s:s,s:b}", "path", path, "readOnly", ro));
    } else if (rc == 0) {
        rc = sl_errprintf(err, "persistentvolumeclaim \"%s\": volume %s has no folder", cn, vol);
    }
    json_decref(pv);
    json_decref(pvc);
    return rc;
}

json_t *ctl_storage_claims(sl_ctl_t *c, const sl_pod_t *m, const char *ns, const char *pod_uid,
                           sl_error_t *err)
{
    json_t *out = json_object();
    for (size_t i = 0; i < m->nvolumes; i++) {
        const sl_pod_volume_t *v = &m->volumes[i];
        if (v->type != SL_VOL_PVC || json_object_get(out, v->claim_name))
            continue;
        if (resolve(c, v, ns, pod_uid, owner_uid((json_t *)m->json), out, err) < 0) {
            json_decref(out);
            return NULL;
        }
    }
    return out;
}
