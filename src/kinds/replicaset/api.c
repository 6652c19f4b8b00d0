/* api.c — the apps/v1 ReplicaSet's API hooks (strict decoding, the defaults
 * of SetDefaults_ReplicaSet and SetDefaults_PodSpec, ValidateReplicaSet's
 * texts, the status subresource, printReplicaSet's Table) and what the
 * Deployment kind shares of them (replicaset.h). */
#include "api/internal.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/xalloc.h"
#include "kinds/job/job.h"
#include "kinds/replicaset/replicaset.h"
#include "kube/meta.h"
#include "kube/selector.h"
#include "pod/schema.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

long long sl_rs_replicas(json_t *obj)
{
    json_t *v = sl_kube_path(obj, "spec.replicas");
    return json_is_integer(v) ? json_integer_value(v) : 1;
}

void sl_rs_template_defaults(json_t *obj) { api_job_template_defaults(sl_kube_child(obj, "spec")); }

static void nonnegative(json_t *obj, const char *k, sl_error_t *err)
{
    json_t *v = sl_kube_path(json_object_get(obj, "spec"), k);
    char f[64];
    snprintf(f, sizeof(f), "spec.%s", k);
    if (json_is_integer(v) && json_integer_value(v) < 0)
        sl_err_field_int(err, SL_FE_INVALID, f, json_integer_value(v),
                         "must be greater than or equal to 0");
}

/* the selector present, valid, not empty, and matching the template */
static void validate_selector(json_t *obj, sl_error_t *err)
{
    sl_kube_selector_destroy(
        api_job_template_selector(obj, "spec.selector", "spec.template.metadata.labels",
                                  "empty selector is invalid for deployment", err));
}

/* ValidatePodTemplateSpecForReplicaSet */
static void validate_template(json_t *obj, sl_error_t *err)
{
    if (!json_is_object(sl_kube_path(obj, "spec.template"))) {
        sl_err_field_none(err, SL_FE_REQUIRED, "spec.template", "");
        return;
    }
    api_job_validate_template(obj, err);
    static const char *const always[] = {"Always", NULL};
    const char *rp = sl_kube_path_str(obj, "spec.template.spec.restartPolicy");
    if (rp && strcmp(rp, "Always"))
        sl_err_not_supported(err, rp, always, "spec.template.spec.restartPolicy");
    if (sl_kube_path(obj, "spec.template.spec.activeDeadlineSeconds"))
        sl_err_forbidden(err, "activeDeadlineSeconds in ReplicaSet is not Supported",
                         "spec.template.spec.activeDeadlineSeconds");
}

void sl_rs_validate_spec(json_t *obj, sl_error_t *err)
{
    nonnegative(obj, "replicas", err);
    nonnegative(obj, "minReadySeconds", err);
    validate_selector(obj, err);
    validate_template(obj, err);
}

void sl_rs_validate_selector_fixed(json_t *obj, json_t *old, sl_error_t *err)
{
    json_t *a = sl_kube_path(obj, "spec.selector"), *b = sl_kube_path(old, "spec.selector");
    if ((a || b) && !(a && b && json_equal(a, b))) {
        char *v = a ? json_dumps(a, JSON_ENCODE_ANY | JSON_COMPACT | JSON_SORT_KEYS) : NULL;
        sl_err_field_raw(err, SL_FE_INVALID, "spec.selector", v ? v : "null", "field is immutable");
        free(v);
    }
}

int sl_rs_validate_status(json_t *obj, json_t *old, sl_error_t *err)
{
    (void)old;
    static const char *const counts[] = {
        "replicas",        "readyReplicas",       "availableReplicas", "fullyLabeledReplicas",
        "updatedReplicas", "unavailableReplicas", "observedGeneration"};
    json_t *st = json_object_get(obj, "status");
    for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++) {
        json_t *v = json_object_get(st, counts[i]);
        char f[64];
        snprintf(f, sizeof(f), "status.%s", counts[i]);
        if (json_is_integer(v) && json_integer_value(v) < 0)
            sl_err_field_int(err, SL_FE_INVALID, f, json_integer_value(v),
                             "must be greater than or equal to 0");
    }
    return api_fields_result(err);
}

void sl_rs_prepare_create(json_t *obj)
{
    json_object_set_new(obj, "status", json_object());
    json_object_set_new(sl_kube_meta(obj), "generation", json_integer(1));
}

void sl_rs_prepare_update(json_t *obj, json_t *old)
{
    json_t *s = json_object_get(old, "status");
    if (s)
        json_object_set(obj, "status", s);
    else
        json_object_del(obj, "status");
    long long gen = json_integer_value(sl_kube_path(old, "metadata.generation"));
    json_t *ns = json_object_get(obj, "spec"), *os = json_object_get(old, "spec");
    json_object_set_new(sl_kube_meta(obj), "generation",
                        json_integer(json_equal(ns, os) ? gen : gen + 1));
}

bool sl_rs_pod_ready(json_t *pod)
{
    return sl_kube_condition_true(sl_kube_path(pod, "status.conditions"), "Ready");
}

bool sl_rs_pod_available(json_t *pod, long long min_ready_s, int64_t now_ns)
{
    json_t *c = sl_kube_condition(sl_kube_path(pod, "status.conditions"), "Ready");
    const char *st = json_string_value(json_object_get(c, "status"));
    if (!st || strcmp(st, "True"))
        return false;
    if (min_ready_s <= 0)
        return true;
    int64_t t = 0;
    const char *lt = json_string_value(json_object_get(c, "lastTransitionTime"));
    return lt && sl_kube_parse_rfc3339(lt, &t) == 0 && t + min_ready_s * 1000000000LL <= now_ns;
}

/* ---- Table ---- */

json_t *sl_rs_col(const char *name, const char *desc, int priority)
{
    return json_pack("{s:s, s:s, s:s, s:s, s:i}", "name", name, "type", "string", "format", "",
                     "description", desc, "priority", priority);
}

json_t *sl_rs_col_name(void)
{
    json_t *c = sl_rs_col(
        "Name",
        "Name must be unique within a namespace. Is required when creating resources, although "
        "some resources may allow a client to request the generation of an appropriate name "
        "automatically. Name is primarily intended for creation idempotence and configuration "
        "definition. Cannot be updated. More info: "
        "https://kubernetes.io/docs/concepts/overview/working-with-objects/names#names",
        0);
    json_object_set_new(c, "format", json_string("name"));
    return c;
}

json_t *sl_rs_col_age(void)
{
    return sl_rs_col(
        "Age",
        "CreationTimestamp is a timestamp representing the server time when this object was "
        "created. It is not guaranteed to be set in happens-before order across separate "
        "operations. Clients may not set this value. It is represented in RFC3339 form and is in "
        "UTC.\n\nPopulated by the system. Read-only. Null for lists. More info: "
        "https://git.k8s.io/community/contributors/devel/sig-architecture/"
        "api-conventions.md#metadata",
        0);
}

void sl_rs_wide_columns(json_t *cols)
{
    json_array_append_new(cols,
                          sl_rs_col("Containers", "Names of each container in the template.", 1));
    json_array_append_new(
        cols, sl_rs_col("Images", "Images referenced by each container in the template.", 1));
    json_array_append_new(
        cols, sl_rs_col("Selector",
                        "Label selector for pods. Existing ReplicaSets whose pods are selected "
                        "by this will be the ones affected by this deployment.",
                        1));
}

void sl_rs_wide_cells(json_t *obj, json_t *cells)
{
    sl_buf_t n = SL_BUF_INIT, im = SL_BUF_INIT;
    size_t i;
    json_t *c;
    json_array_foreach(sl_kube_path(obj, "spec.template.spec.containers"), i, c)
    {
        const char *cn = json_string_value(json_object_get(c, "name"));
        const char *ci = json_string_value(json_object_get(c, "image"));
        sl_buf_printf(&n, "%s%s", i ? "," : "", cn ? cn : "");
        sl_buf_printf(&im, "%s%s", i ? "," : "", ci ? ci : "");
    }
    sl_buf_puts(&n, "");
    sl_buf_puts(&im, "");
    json_t *sel = sl_kube_path(obj, "spec.selector");
    sl_kube_selector_t *s =
        json_is_object(sel) ? sl_kube_label_selector_from_json(sel, NULL) : NULL;
    char *t = s ? sl_kube_selector_string(s) : NULL;
    sl_kube_selector_destroy(s);
    char *names = sl_buf_steal(&n), *images = sl_buf_steal(&im);
    json_array_append_new(cells, json_string(names));
    json_array_append_new(cells, json_string(images));
    json_array_append_new(cells, json_string(t && *t ? t : "<none>"));
    free(names);
    free(images);
    free(t);
}

/* ---- the ReplicaSet's hooks ---- */

static int rs_decode(json_t *obj, json_t *unknown, json_t *warnings, sl_error_t *err)
{
    (void)warnings;
    (void)err;
    return api_schema_unknown("ReplicaSet", obj, unknown);
}

static void rs_defaults(json_t *obj)
{
    json_t *spec = sl_kube_child(obj, "spec");
    if (!json_is_integer(json_object_get(spec, "replicas")))
        json_object_set_new(spec, "replicas", json_integer(1));
    if (!json_is_integer(json_object_get(spec, "minReadySeconds")))
        json_object_set_new(spec, "minReadySeconds", json_integer(0));
    sl_rs_template_defaults(obj);
}

static int rs_validate(json_t *obj, sl_error_t *err)
{
    api_validate_meta(obj, false, err);
    sl_rs_validate_spec(obj, err);
    return api_fields_result(err);
}

static int rs_validate_update(json_t *obj, json_t *old, sl_error_t *err)
{
    api_validate_meta(obj, false, err);
    sl_rs_validate_spec(obj, err);
    sl_rs_validate_selector_fixed(obj, old, err);
    return api_fields_result(err);
}

static json_t *rs_columns(void)
{
    json_t *cols = json_pack(
        "[o, o, o, o, o]", sl_rs_col_name(),
        sl_rs_col("Desired", "Replicas is the number of desired pods.", 0),
        sl_rs_col("Current",
                  "Replicas is the most recently observed number of non-terminating pods.", 0),
        sl_rs_col("Ready",
                  "The number of non-terminating pods targeted by this ReplicaSet with a "
                  "Ready Condition.",
                  0),
        sl_rs_col_age());
    sl_rs_wide_columns(cols);
    return cols;
}

static json_t *rs_cells(json_t *obj, long long now)
{
    char age[32];
    sl_kube_age(sl_kube_meta_str(obj, "creationTimestamp"), now, age, sizeof(age));
    const char *name = sl_kube_name(obj);
    json_t *cells = json_pack("[s, I, I, I, s]", name ? name : "", (json_int_t)sl_rs_replicas(obj),
                              json_integer_value(sl_kube_path(obj, "status.replicas")),
                              json_integer_value(sl_kube_path(obj, "status.readyReplicas")), age);
    sl_rs_wide_cells(obj, cells);
    return cells;
}

const api_kind_ops_t sl_rs_api_ops = {
    .decode_check = rs_decode,
    .defaults = rs_defaults,
    .prepare_create = sl_rs_prepare_create,
    .prepare_update = sl_rs_prepare_update,
    .validate_create = rs_validate,
    .validate_update = rs_validate_update,
    .validate_status = sl_rs_validate_status,
    .table_columns = rs_columns,
    .table_cells = rs_cells,
    .scale_sub = true,
};
