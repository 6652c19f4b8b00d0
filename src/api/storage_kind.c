/* storage_kind.c — PersistentVolumeClaims (v1, namespaced),
 * PersistentVolumes (v1, cluster-scoped) and StorageClasses
 * (storage.k8s.io/v1, read-only: slurmlinkd stores them from
 * storage.classes, src/storage): validation with kube-apiserver's texts,
 * server-owned status, the pvc-protection finalizer, Table printers as
 * kubectl prints them. The controller binds claims (src/ctl/storage.c). */
#include "api/internal.h"
#include "common/err.h"
#include "common/xalloc.h"
#include "kube/meta.h"
#include "kube/quantity.h"
#include "pod/pod.h"
#include "storage/storage.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PVC_PROTECTION "kubernetes.io/pvc-protection"

static const char *const access_modes[] = {"ReadOnlyMany", "ReadWriteMany", "ReadWriteOnce",
                                           "ReadWriteOncePod", NULL};

/* ---- shared checks ---- */

static void check_modes(json_t *spec, sl_error_t *errs)
{
    json_t *a = json_object_get(spec, "accessModes");
    if (!json_array_size(a)) {
        sl_err_required(errs, "at least 1 access mode is required", "spec.accessModes");
        return;
    }
    size_t i;
    json_t *m;
    int rwop = 0;
    json_array_foreach(a, i, m)
    {
        const char *s = json_string_value(m);
        int ok = 0;
        for (int k = 0; s && access_modes[k]; k++)
            ok |= !strcmp(s, access_modes[k]);
        if (!ok)
            sl_err_not_supported(errs, s ? s : "", access_modes, "spec.accessModes");
        rwop |= s && !strcmp(s, "ReadWriteOncePod");
    }
    if (rwop && json_array_size(a) > 1)
        sl_err_forbidden(errs, "may not use ReadWriteOncePod with other access modes",
                         "spec.accessModes");
}

/* the storage quantity at key of obj's spec (pvc: resources.requests;
 * pv: capacity): bytes, or -1 with a field error */
static int64_t check_size(json_t *map, const char *field, sl_error_t *errs)
{
    json_t *v = json_object_get(map, "storage");
    int64_t b = -1;
    if (!v) {
        sl_err_required(errs, NULL, "%s", field);
        return -1;
    }
    sl_quantity_t q;
    sl_error_t qe = SL_ERROR_INIT;
    char *text = NULL;
    if (sl_quantity_from_json(v, &q, &text, &qe) < 0)
        sl_err_invalid(errs, json_string_value(v), qe.text, "%s", field);
    else if (sl_quantity_sign(&q) <= 0 || sl_quantity_ceil_div(&q, 1, &b) < 0)
        sl_err_invalid(errs, text, "must be greater than zero", "%s", field);
    free(text);
    return b;
}

static void keep_status(json_t *obj, json_t *old)
{
    json_t *s = json_object_get(old, "status");
    if (s)
        json_object_set(obj, "status", s);
    else
        json_object_del(obj, "status");
}

/* ---- PersistentVolumeClaims ---- */

static int pvc_decode(json_t *obj, json_t *unknown, json_t *warnings, sl_error_t *err)
{
    (void)warnings;
    (void)err;
    return api_schema_unknown("PersistentVolumeClaim", obj, unknown);
}

static void pvc_defaults(json_t *obj)
{
    json_t *spec = json_object_get(obj, "spec");
    if (json_is_object(spec) && !json_object_get(spec, "volumeMode"))
        json_object_set_new(spec, "volumeMode", json_string("Filesystem"));
    /* the DefaultStorageClass admission plugin: a claim without a class gets
     * the default one (an explicit "" asks for none: a static volume) */
    const sl_storage_class_t *k = sl_storage_find(sl_storage_current(), NULL);
    if (json_is_object(spec) && k && !json_object_get(spec, "storageClassName"))
        json_object_set_new(spec, "storageClassName", json_string(sl_storage_class_name(k)));
}

/* StorageObjectInUseProtection: the claim stays while a pod uses it */
static void pvc_prepare_create(json_t *obj)
{
    json_object_set_new(obj, "status", json_pack("{s:s}", "phase", "Pending"));
    json_t *m = sl_kube_meta(obj);
    json_t *fin = json_object_get(m, "finalizers");
    if (!json_is_array(fin))
        json_object_set_new(m, "finalizers", fin = json_array());
    size_t i;
    json_t *f;
    json_array_foreach(fin, i, f) if (json_string_value(f) &&
                                      !strcmp(json_string_value(f), PVC_PROTECTION)) return;
    json_array_append_new(fin, json_string(PVC_PROTECTION));
}

/* status and the creator (whose Unix user owns the folder) stay */
static void pvc_prepare_update(json_t *obj, json_t *old)
{
    keep_status(obj, old);
    const char *creator = sl_kube_annotation(old, SL_ANN_USER);
    json_t *ann = json_object_get(sl_kube_meta(obj), "annotations");
    if (creator)
        sl_kube_set_annotation(obj, SL_ANN_USER, creator);
    else if (json_is_object(ann))
        json_object_del(ann, SL_ANN_USER);
}

/* the class's limits on a claim's request and modes */
static void check_class(json_t *spec, int64_t bytes, sl_error_t *errs)
{
    const char *cls = json_string_value(json_object_get(spec, "storageClassName"));
    if (!cls || !*cls)
        return; /* no class: an admin's volume binds it (volumeName, or its claimRef) */
    const sl_storage_class_t *k = sl_storage_find(sl_storage_current(), cls);
    if (!k) {
        char *d = sl_xasprintf("no StorageClass %s (kubectl get storageclass lists them)", cls);
        sl_err_invalid(errs, cls, d, "spec.storageClassName");
        free(d);
        return;
    }
    size_t i;
    json_t *m;
    json_array_foreach(json_object_get(spec, "accessModes"), i, m)
    {
        const char *s = json_string_value(m);
        if (s && !sl_storage_class_allows(k, s)) {
            char *d = sl_xasprintf("StorageClass %s does not offer this access mode", cls);
            sl_err_invalid(errs, s, d, "spec.accessModes[%zu]", i);
            free(d);
        }
    }
    int64_t max = sl_storage_class_max_claim(k);
    if (bytes > 0 && max > 0 && bytes > max) {
        char *d = sl_xasprintf("must be at most %lld bytes, the largest claim StorageClass %s "
                               "allows",
                               (long long)max, cls);
        sl_err_forbidden(errs, d, "spec.resources.requests[storage]");
        free(d);
    }
}

static int pvc_validate(json_t *obj, sl_error_t *err)
{
    api_validate_meta(obj, false, err);
    json_t *spec = json_object_get(obj, "spec");
    check_modes(spec, err);
    json_t *req = sl_kube_path(obj, "spec.resources.requests");
    int64_t bytes = -1;
    if (!json_object_get(req, "storage"))
        sl_err_required(err, NULL, "spec.resources[storage]");
    else
        bytes = check_size(req, "spec.resources.requests[storage]", err);
    const char *vm = json_string_value(json_object_get(spec, "volumeMode"));
    static const char *const fs_only[] = {"Filesystem", NULL};
    if (vm && strcmp(vm, "Filesystem"))
        sl_err_not_supported(err, vm, fs_only, "spec.volumeMode");
    if (json_object_get(spec, "dataSource") || json_object_get(spec, "dataSourceRef"))
        sl_err_forbidden(err, "volumes are folders on a shared filesystem: no data source",
                         "spec.dataSource");
    if (!sl_err_nfields(err))
        check_class(spec, bytes, err);
    return api_fields_result(err);
}

static int pvc_validate_update(json_t *obj, json_t *old, sl_error_t *err)
{
    api_validate_meta(obj, false, err);
    if (!json_equal(json_object_get(obj, "spec"), json_object_get(old, "spec")))
        sl_err_forbidden(err,
                         "spec is immutable after creation except resources.requests and "
                         "volumeAttributesClassName for bound claims",
                         "spec");
    return api_fields_result(err);
}

static const char *mode_short(const char *m)
{
    return !strcmp(m, "ReadWriteOnce")      ? "RWO"
           : !strcmp(m, "ReadOnlyMany")     ? "ROX"
           : !strcmp(m, "ReadWriteMany")    ? "RWX"
           : !strcmp(m, "ReadWriteOncePod") ? "RWOP"
                                            : m;
}

/* "RWO,RWX" as kubectl prints access modes */
static void modes_text(json_t *a, char *buf, size_t len)
{
    size_t i, n = 0;
    json_t *m;
    buf[0] = 0;
    json_array_foreach(a, i, m)
    {
        if (!json_string_value(m))
            continue;
        n += (size_t)snprintf(buf + n, n < len ? len - n : 0, "%s%s", i ? "," : "",
                              mode_short(json_string_value(m)));
    }
}

static json_t *col(const char *name, const char *format, int priority)
{
    return json_pack("{s:s, s:s, s:s, s:s, s:i}", "name", name, "type", "string", "format", format,
                     "description", "", "priority", priority);
}

static json_t *age(json_t *obj, long long now)
{
    char buf[32];
    return json_string(
        sl_kube_age(sl_kube_meta_str(obj, "creationTimestamp"), now, buf, sizeof(buf)));
}

static const char *or_empty(const char *s) { return s ? s : ""; }

static json_t *pvc_columns(void)
{
    return json_pack("[o,o,o,o,o,o,o,o,o]", col("Name", "name", 0), col("Status", "", 0),
                     col("Volume", "", 0), col("Capacity", "", 0), col("Access Modes", "", 0),
                     col("StorageClass", "", 0), col("VolumeAttributesClass", "", 0),
                     col("Age", "", 0), col("VolumeMode", "", 1));
}

static json_t *pvc_cells(json_t *o, long long now)
{
    char modes[64] = "";
    const char *phase = or_empty(sl_kube_path_str(o, "status.phase"));
    int bound = !strcmp(phase, "Bound");
    if (bound)
        modes_text(sl_kube_path(o, "status.accessModes"), modes, sizeof(modes));
    const char *cls = sl_kube_path_str(o, "spec.storageClassName");
    return json_pack("[s,s,s,s,s,s,s,o,s]", or_empty(sl_kube_name(o)),
                     sl_kube_meta_str(o, "deletionTimestamp") ? "Terminating" : phase,
                     or_empty(sl_kube_path_str(o, "spec.volumeName")),
                     bound ? or_empty(sl_kube_path_str(o, "status.capacity.storage")) : "", modes,
                     cls ? cls : "<unset>", "<unset>", age(o, now),
                     or_empty(sl_kube_path_str(o, "spec.volumeMode")));
}

const api_kind_ops_t api_pvc_ops = {
    .decode_check = pvc_decode,
    .defaults = pvc_defaults,
    .prepare_create = pvc_prepare_create,
    .prepare_update = pvc_prepare_update,
    .validate_create = pvc_validate,
    .validate_update = pvc_validate_update,
    .table_columns = pvc_columns,
    .table_cells = pvc_cells,
};

/* ---- PersistentVolumes (an admin's static volumes, the controller's
 * dynamic ones) ---- */

static int pv_decode(json_t *obj, json_t *unknown, json_t *warnings, sl_error_t *err)
{
    (void)warnings;
    (void)err;
    return api_schema_unknown("PersistentVolume", obj, unknown);
}

static void pv_defaults(json_t *obj)
{
    json_t *spec = json_object_get(obj, "spec");
    if (!json_is_object(spec))
        return;
    if (!json_object_get(spec, "persistentVolumeReclaimPolicy"))
        json_object_set_new(spec, "persistentVolumeReclaimPolicy", json_string("Retain"));
    if (!json_object_get(spec, "volumeMode"))
        json_object_set_new(spec, "volumeMode", json_string("Filesystem"));
}

static void pv_prepare_create(json_t *obj)
{
    json_object_set_new(obj, "status", json_pack("{s:s}", "phase", "Available"));
}

static void pv_prepare_update(json_t *obj, json_t *old) { keep_status(obj, old); }

/* a static volume's folder: absolute, inside a class root (a folder every
 * node mounts), no ".." */
static void check_path(json_t *spec, sl_error_t *errs)
{
    const char *key = json_object_get(spec, "hostPath") ? "hostPath" : "local";
    json_t *src = json_object_get(spec, key);
    if (!src) {
        sl_err_required(errs,
                        "a hostPath or local volume (a folder on a filesystem every node "
                        "mounts) is required",
                        "spec");
        return;
    }
    const char *path = json_string_value(json_object_get(src, "path"));
    if (!path || !*path) {
        sl_err_required(errs, NULL, "spec.%s.path", key);
        return;
    }
    const sl_storage_t *s = sl_storage_current();
    int inside = path[0] == '/' && !strstr(path, "/../") && !strstr(path, "/./") &&
                 strcmp(path + strlen(path) - (strlen(path) >= 3 ? 3 : 0), "/..");
    int under = 0;
    for (size_t i = 0; inside && i < sl_storage_count(s); i++) {
        const char *root = sl_storage_class_root(sl_storage_at(s, i));
        size_t n = strlen(root);
        under |= !strncmp(path, root, n) && path[n] == '/' && path[n + 1];
    }
    if (!under)
        sl_err_invalid(errs, path,
                       "must be a folder beneath the root of a StorageClass (storage.classes), "
                       "without \"..\"",
                       "spec.%s.path", key);
}

static int pv_validate(json_t *obj, sl_error_t *err)
{
    api_validate_meta(obj, false, err);
    json_t *spec = json_object_get(obj, "spec");
    check_modes(spec, err);
    check_size(json_object_get(spec, "capacity"), "spec.capacity[storage]", err);
    check_path(spec, err);
    static const char *const reclaims[] = {"Delete", "Recycle", "Retain", NULL};
    const char *rp = json_string_value(json_object_get(spec, "persistentVolumeReclaimPolicy"));
    if (rp && strcmp(rp, "Retain") && strcmp(rp, "Delete"))
        sl_err_not_supported(err, rp, reclaims, "spec.persistentVolumeReclaimPolicy");
    return api_fields_result(err);
}

static int pv_validate_update(json_t *obj, json_t *old, sl_error_t *err)
{
    pv_validate(obj, err);
    json_t *a = json_object_get(obj, "spec"), *b = json_object_get(old, "spec");
    const char *k = json_object_get(b, "hostPath") ? "hostPath" : "local";
    if (!json_equal(json_object_get(a, k), json_object_get(b, k)))
        sl_err_forbidden(err, "spec.persistentvolumesource is immutable after creation",
                         "spec.persistentvolumesource");
    return api_fields_result(err);
}

static json_t *pv_columns(void)
{
    return json_pack("[o,o,o,o,o,o,o,o,o,o,o]", col("Name", "name", 0), col("Capacity", "", 0),
                     col("Access Modes", "", 0), col("Reclaim Policy", "", 0), col("Status", "", 0),
                     col("Claim", "", 0), col("StorageClass", "", 0),
                     col("VolumeAttributesClass", "", 0), col("Reason", "", 0), col("Age", "", 0),
                     col("VolumeMode", "", 1));
}

static json_t *pv_cells(json_t *o, long long now)
{
    char modes[64], claim[320] = "";
    modes_text(sl_kube_path(o, "spec.accessModes"), modes, sizeof(modes));
    const char *cns = sl_kube_path_str(o, "spec.claimRef.namespace");
    const char *cn = sl_kube_path_str(o, "spec.claimRef.name");
    if (cn)
        snprintf(claim, sizeof(claim), "%s/%s", or_empty(cns), cn);
    const char *cls = sl_kube_path_str(o, "spec.storageClassName");
    return json_pack(
        "[s,s,s,s,s,s,s,s,s,o,s]", or_empty(sl_kube_name(o)),
        or_empty(sl_kube_path_str(o, "spec.capacity.storage")), modes,
        or_empty(sl_kube_path_str(o, "spec.persistentVolumeReclaimPolicy")),
        sl_kube_meta_str(o, "deletionTimestamp") ? "Terminating"
                                                 : or_empty(sl_kube_path_str(o, "status.phase")),
        claim, or_empty(cls), "<unset>", or_empty(sl_kube_path_str(o, "status.reason")),
        age(o, now), or_empty(sl_kube_path_str(o, "spec.volumeMode")));
}

const api_kind_ops_t api_pv_ops = {
    .decode_check = pv_decode,
    .defaults = pv_defaults,
    .prepare_create = pv_prepare_create,
    .prepare_update = pv_prepare_update,
    .validate_create = pv_validate,
    .validate_update = pv_validate_update,
    .table_columns = pv_columns,
    .table_cells = pv_cells,
};

/* ---- StorageClasses (read-only) ---- */

static json_t *sc_columns(void)
{
    return json_pack("[o,o,o,o,o,o]", col("Name", "name", 0), col("Provisioner", "", 0),
                     col("ReclaimPolicy", "", 0), col("VolumeBindingMode", "", 0),
                     col("AllowVolumeExpansion", "", 0), col("Age", "", 0));
}

static json_t *sc_cells(json_t *o, long long now)
{
    const char *d = sl_kube_annotation(o, "storageclass.kubernetes.io/is-default-class");
    char *name = sl_xasprintf("%s%s", or_empty(sl_kube_name(o)),
                              d && !strcmp(d, "true") ? " (default)" : "");
    json_t *cells = json_pack(
        "[s,s,s,s,b,o]", name, or_empty(json_string_value(json_object_get(o, "provisioner"))),
        or_empty(json_string_value(json_object_get(o, "reclaimPolicy"))),
        or_empty(json_string_value(json_object_get(o, "volumeBindingMode"))),
        json_is_true(json_object_get(o, "allowVolumeExpansion")), age(o, now));
    free(name);
    return cells;
}

const api_kind_ops_t api_storageclass_ops = {
    .table_columns = sc_columns,
    .table_cells = sc_cells,
};
