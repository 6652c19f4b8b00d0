/* api.c — the apps/v1 StatefulSet's API hooks: strict decoding,
 * SetDefaults_StatefulSet (replicas 1, OrderedReady, RollingUpdate with
 * partition 0, revisionHistoryLimit 10, the PVC retention policy Retain)
 * and the template's pod defaults, ValidateStatefulSet's texts (the spec
 * common with a ReplicaSet's, the policies, the fields an update may not
 * change), the status subresource, printStatefulSet's Table. */
#include "api/internal.h"
#include "common/err.h"
#include "kinds/replicaset/replicaset.h"
#include "kinds/statefulset/statefulset.h"
#include "kube/meta.h"
#include "pod/pod.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static json_t *child(json_t *o, const char *k)
{
    json_t *c = json_object_get(o, k);
    if (!json_is_object(c)) {
        c = json_object();
        json_object_set_new(o, k, c);
    }
    return c;
}

static void def(json_t *o, const char *k, json_t *v)
{
    if (!json_object_get(o, k) || json_is_null(json_object_get(o, k)))
        json_object_set_new(o, k, v);
    else
        json_decref(v);
}

int sts_parallel(json_t *sts)
{
    const char *p = sl_kube_path_str(sts, "spec.podManagementPolicy");
    return p && !strcmp(p, "Parallel");
}

int sts_on_delete(json_t *sts)
{
    const char *t = sl_kube_path_str(sts, "spec.updateStrategy.type");
    return t && !strcmp(t, "OnDelete");
}

long long sts_partition(json_t *sts)
{
    json_t *p = sl_kube_path(sts, "spec.updateStrategy.rollingUpdate.partition");
    return json_is_integer(p) ? json_integer_value(p) : 0;
}

static int sts_decode(json_t *obj, json_t *unknown, json_t *warnings, sl_error_t *err)
{
    (void)warnings;
    (void)err;
    return api_schema_unknown("StatefulSet", obj, unknown);
}

static void sts_defaults(json_t *obj)
{
    json_t *spec = child(obj, "spec");
    def(spec, "replicas", json_integer(1));
    def(spec, "podManagementPolicy", json_string("OrderedReady"));
    def(spec, "revisionHistoryLimit", json_integer(10));
    def(spec, "minReadySeconds", json_integer(0));
    json_t *us = child(spec, "updateStrategy");
    def(us, "type", json_string("RollingUpdate"));
    const char *type = json_string_value(json_object_get(us, "type"));
    if (type && !strcmp(type, "RollingUpdate"))
        def(child(us, "rollingUpdate"), "partition", json_integer(0));
    json_t *rp = child(spec, "persistentVolumeClaimRetentionPolicy");
    def(rp, "whenDeleted", json_string("Retain"));
    def(rp, "whenScaled", json_string("Retain"));
    sl_rs_template_defaults(obj);
}

static void one_of(json_t *obj, const char *path, const char *const *ok, sl_error_t *err)
{
    const char *v = sl_kube_path_str(obj, path);
    for (size_t i = 0; v && ok[i]; i++)
        if (!strcmp(v, ok[i]))
            return;
    if (v)
        sl_err_not_supported(err, v, ok, "%s", path);
}

static void validate_spec(json_t *obj, sl_error_t *err)
{
    sl_rs_validate_spec(obj, err);
    static const char *const pmp[] = {"OrderedReady", "Parallel", NULL};
    static const char *const ust[] = {"OnDelete", "RollingUpdate", NULL};
    one_of(obj, "spec.podManagementPolicy", pmp, err);
    one_of(obj, "spec.updateStrategy.type", ust, err);
    if (sts_partition(obj) < 0)
        sl_err_field_int(err, SL_FE_INVALID, "spec.updateStrategy.rollingUpdate.partition",
                         sts_partition(obj), "must be greater than or equal to 0");
    if (sts_on_delete(obj) && sl_kube_path(obj, "spec.updateStrategy.rollingUpdate"))
        sl_err_invalid(err, NULL, "only allowed for updateStrategy 'RollingUpdate'",
                       "spec.updateStrategy.rollingUpdate");
    const char *svc = sl_kube_path_str(obj, "spec.serviceName");
    if (svc && *svc)
        sl_validate_dns1123_label(err, "spec.serviceName", svc);
    if (json_array_size(sl_kube_path(obj, "spec.volumeClaimTemplates")))
        sl_err_forbidden(err,
                         "not served: slurmlink makes no PersistentVolumeClaims for a StatefulSet; "
                         "create the claims <template>-<statefulset>-<ordinal> and name them in "
                         "the pod template's volumes",
                         "spec.volumeClaimTemplates");
}

static int sts_validate(json_t *obj, sl_error_t *err)
{
    api_validate_meta(obj, false, err);
    validate_spec(obj, err);
    return api_fields_result(err);
}

/* ValidateStatefulSetUpdate: only these fields of the spec may change */
static int sts_validate_update(json_t *obj, json_t *old, sl_error_t *err)
{
    api_validate_meta(obj, false, err);
    validate_spec(obj, err);
    static const char *const mutable[] = {"replicas",
                                          "ordinals",
                                          "template",
                                          "updateStrategy",
                                          "minReadySeconds",
                                          "persistentVolumeClaimRetentionPolicy",
                                          NULL};
    json_t *a = json_deep_copy(json_object_get(obj, "spec"));
    json_t *b = json_deep_copy(json_object_get(old, "spec"));
    for (size_t i = 0; mutable[i]; i++) {
        json_object_del(a, mutable[i]);
        json_object_del(b, mutable[i]);
    }
    if (!json_equal(a, b))
        sl_err_forbidden(err,
                         "updates to statefulset spec for fields other than 'replicas', "
                         "'ordinals', 'template', 'updateStrategy', "
                         "'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are "
                         "forbidden",
                         "spec");
    json_decref(a);
    json_decref(b);
    return api_fields_result(err);
}

static json_t *sts_columns(void)
{
    json_t *cols =
        json_pack("[o, o, o]", sl_rs_col_name(),
                  sl_rs_col("Ready", "Number of the pod with ready state", 0), sl_rs_col_age());
    json_array_append_new(cols,
                          sl_rs_col("Containers", "Names of each container in the template.", 1));
    json_array_append_new(
        cols, sl_rs_col("Images", "Images referenced by each container in the template.", 1));
    return cols;
}

static json_t *sts_cells(json_t *obj, long long now)
{
    char age[32], ready[48];
    sl_kube_age(sl_kube_meta_str(obj, "creationTimestamp"), now, age, sizeof(age));
    snprintf(ready, sizeof ready, "%lld/%lld",
             (long long)json_integer_value(sl_kube_path(obj, "status.readyReplicas")),
             sl_rs_replicas(obj));
    const char *name = sl_kube_name(obj);
    json_t *cells = json_pack("[s, s, s]", name ? name : "", ready, age), *wide = json_array();
    sl_rs_wide_cells(obj, wide); /* CONTAINERS IMAGES SELECTOR: the first two */
    json_array_append(cells, json_array_get(wide, 0));
    json_array_append(cells, json_array_get(wide, 1));
    json_decref(wide);
    return cells;
}

const api_kind_ops_t sts_api_ops = {
    .decode_check = sts_decode,
    .defaults = sts_defaults,
    .prepare_create = sl_rs_prepare_create,
    .prepare_update = sl_rs_prepare_update,
    .validate_create = sts_validate,
    .validate_update = sts_validate_update,
    .validate_status = sl_rs_validate_status,
    .table_columns = sts_columns,
    .table_cells = sts_cells,
    .scale_sub = true,
};
