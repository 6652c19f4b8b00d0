/* api.c — the apps/v1 Deployment's API hooks: strict decoding,
 * SetDefaults_Deployment (replicas 1, RollingUpdate 25%/25%,
 * revisionHistoryLimit 10, progressDeadlineSeconds 600) and the template's
 * pod defaults, ValidateDeployment's texts (the spec common with a
 * ReplicaSet's, the strategy, the limits), the selector immutable, the
 * status subresource, printDeployment's Table. */
#include "api/internal.h"
#include "common/err.h"
#include "kinds/deployment/deployment.h"
#include "kinds/replicaset/replicaset.h"
#include "kube/meta.h"
#include "pod/schema.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* "N%" → N, else -1 */
static long long percent(const char *s)
{
    size_t n = strlen(s);
    if (n < 2 || s[n - 1] != '%')
        return -1;
    for (size_t i = 0; i + 1 < n; i++)
        if (!isdigit((unsigned char)s[i]))
            return -1;
    return n > 12 ? -1 : atoll(s);
}

long long sl_deploy_scaled(json_t *v, long long replicas, bool round_up, long long dflt)
{
    if (json_is_integer(v))
        return json_integer_value(v);
    if (!json_is_string(v))
        return dflt;
    long long p = percent(json_string_value(v));
    if (p < 0)
        return dflt;
    return round_up ? (p * replicas + 99) / 100 : p * replicas / 100;
}

static int deploy_decode(json_t *obj, json_t *unknown, json_t *warnings, sl_error_t *err)
{
    (void)warnings;
    (void)err;
    return api_schema_unknown("Deployment", obj, unknown);
}

static void deploy_defaults(json_t *obj)
{
    json_t *spec = sl_kube_child(obj, "spec");
    sl_kube_default(spec, "replicas", json_integer(1));
    json_t *st = sl_kube_child(spec, "strategy");
    sl_kube_default(st, "type", json_string("RollingUpdate"));
    const char *type = json_string_value(json_object_get(st, "type"));
    if (type && !strcmp(type, "RollingUpdate")) {
        json_t *ru = sl_kube_child(st, "rollingUpdate");
        sl_kube_default(ru, "maxUnavailable", json_string("25%"));
        sl_kube_default(ru, "maxSurge", json_string("25%"));
    }
    sl_kube_default(spec, "revisionHistoryLimit", json_integer(10));
    sl_kube_default(spec, "progressDeadlineSeconds", json_integer(600));
    sl_rs_template_defaults(obj);
}

/* ValidatePositiveIntOrPercent and IsNotMoreThan100Percent; the value, or -1 */
static long long int_or_percent(json_t *ru, const char *k, sl_error_t *err)
{
    json_t *v = json_object_get(ru, k);
    char f[80];
    snprintf(f, sizeof(f), "spec.strategy.rollingUpdate.%s", k);
    if (!v)
        return -1;
    if (json_is_integer(v)) {
        if (json_integer_value(v) < 0)
            sl_err_field_int(err, SL_FE_INVALID, f, json_integer_value(v),
                             "must be greater than or equal to 0");
        return json_integer_value(v);
    }
    const char *s = json_string_value(v);
    long long p = s ? percent(s) : -1;
    if (p < 0) {
        sl_err_field(err, SL_FE_INVALID, f, s ? s : "",
                     "a valid percent string must be a numeric string followed by an ending '%' "
                     "(e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')");
        return -1;
    }
    if (p > 100)
        sl_err_field(err, SL_FE_INVALID, f, s, "must not be greater than 100%");
    return p;
}

static void validate_strategy(json_t *obj, sl_error_t *err)
{
    json_t *st = sl_kube_path(obj, "spec.strategy");
    const char *type = json_string_value(json_object_get(st, "type"));
    json_t *ru = json_object_get(st, "rollingUpdate");
    static const char *const types[] = {"Recreate", "RollingUpdate", NULL};
    if (!type || !*type) {
        sl_err_field_none(err, SL_FE_REQUIRED, "spec.strategy.type", "");
    } else if (!strcmp(type, "Recreate")) {
        if (ru && !json_is_null(ru))
            sl_err_forbidden(err, "may not be specified when strategy `type` is 'Recreate'",
                             "spec.strategy.rollingUpdate");
    } else if (!strcmp(type, "RollingUpdate")) {
        if (!json_is_object(ru)) {
            sl_err_field_none(err, SL_FE_REQUIRED, "spec.strategy.rollingUpdate",
                              "this should be defaulted and never be nil");
            return;
        }
        long long mu = int_or_percent(ru, "maxUnavailable", err);
        long long ms = int_or_percent(ru, "maxSurge", err);
        if (mu == 0 && ms == 0)
            sl_err_field_int(err, SL_FE_INVALID, "spec.strategy.rollingUpdate.maxUnavailable", 0,
                             "may not be 0 when `maxSurge` is 0");
    } else {
        sl_err_not_supported(err, type, types, "spec.strategy.type");
    }
}

static void validate_limits(json_t *obj, sl_error_t *err)
{
    json_t *spec = json_object_get(obj, "spec");
    json_t *rhl = json_object_get(spec, "revisionHistoryLimit");
    if (json_is_integer(rhl) && json_integer_value(rhl) < 0)
        sl_err_field_int(err, SL_FE_INVALID, "spec.revisionHistoryLimit", json_integer_value(rhl),
                         "must be greater than or equal to 0");
    json_t *pd = json_object_get(spec, "progressDeadlineSeconds");
    long long mr = json_integer_value(json_object_get(spec, "minReadySeconds"));
    if (json_is_integer(pd) && json_integer_value(pd) < 0)
        sl_err_field_int(err, SL_FE_INVALID, "spec.progressDeadlineSeconds", json_integer_value(pd),
                         "must be greater than or equal to 0");
    else if (json_is_integer(pd) && json_integer_value(pd) <= mr)
        sl_err_field_int(err, SL_FE_INVALID, "spec.progressDeadlineSeconds", json_integer_value(pd),
                         "must be greater than minReadySeconds");
}

static int deploy_validate(json_t *obj, sl_error_t *err)
{
    api_validate_meta(obj, false, err);
    sl_rs_validate_spec(obj, err);
    validate_strategy(obj, err);
    validate_limits(obj, err);
    return api_fields_result(err);
}

static int deploy_validate_update(json_t *obj, json_t *old, sl_error_t *err)
{
    deploy_validate(obj, err);
    sl_rs_validate_selector_fixed(obj, old, err);
    return api_fields_result(err);
}

static json_t *deploy_columns(void)
{
    json_t *cols = json_pack(
        "[o, o, o, o, o]", sl_rs_col_name(),
        sl_rs_col("Ready", "Number of the pod with ready state", 0),
        sl_rs_col("Up-to-date",
                  "Total number of non-terminated pods targeted by this deployment that have the "
                  "desired template spec.",
                  0),
        sl_rs_col("Available",
                  "Total number of available pods (ready for at least minReadySeconds) targeted "
                  "by this deployment.",
                  0),
        sl_rs_col_age());
    sl_rs_wide_columns(cols);
    return cols;
}

static json_t *deploy_cells(json_t *obj, long long now)
{
    char age[32], ready[48];
    sl_kube_age(sl_kube_meta_str(obj, "creationTimestamp"), now, age, sizeof(age));
    snprintf(ready, sizeof(ready), "%lld/%lld",
             (long long)json_integer_value(sl_kube_path(obj, "status.readyReplicas")),
             sl_rs_replicas(obj));
    const char *name = sl_kube_name(obj);
    json_t *cells =
        json_pack("[s, s, I, I, s]", name ? name : "", ready,
                  json_integer_value(sl_kube_path(obj, "status.updatedReplicas")),
                  json_integer_value(sl_kube_path(obj, "status.availableReplicas")), age);
    sl_rs_wide_cells(obj, cells);
    return cells;
}

const api_kind_ops_t sl_deploy_api_ops = {
    .decode_check = deploy_decode,
    .defaults = deploy_defaults,
    .prepare_create = sl_rs_prepare_create,
    .prepare_update = sl_rs_prepare_update,
    .validate_create = deploy_validate,
    .validate_update = deploy_validate_update,
    .validate_status = sl_rs_validate_status,
    .table_columns = deploy_columns,
    .table_cells = deploy_cells,
    .scale_sub = true,
};
