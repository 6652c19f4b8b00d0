/* api — the apps/v1 Deployment's and ReplicaSet's API hooks: kube-apiserver's
 * defaults (RollingUpdate 25%/25%, revisionHistoryLimit 10,
 * progressDeadlineSeconds 600, replicas 1, the template's restartPolicy
 * Always), ValidateDeployment's and ValidateReplicaSet's field errors in
 * kube's words, the immutable selector, a new generation on a change of
 * spec only, the strategy's percentages, the Table rows. */
#include "common/err.h"
#include "common/tap.h"
#include "kinds/deployment/deployment.h"
#include "kinds/replicaset/replicaset.h"
#include "kinds/replicaset/rsctl.h"
#include "kube/meta.h"

#include <stdlib.h>
#include <string.h>

static json_t *deployment(const char *extra_spec)
{
    char *text = NULL;
    if (asprintf(
            &text,
            "{\"apiVersion\":\"apps/v1\",\"kind\":\"Deployment\",\"metadata\":{\"name\":\"web\","
            "\"namespace\":\"default\"},\"spec\":{%s\"selector\":{\"matchLabels\":{\"app\":"
            "\"web\"}},\"template\":{\"metadata\":{\"labels\":{\"app\":\"web\"}},\"spec\":{"
            "\"containers\":[{\"name\":\"c\",\"image\":\"busybox\"}]}}}}",
            extra_spec) < 0)
        abort();
    json_t *d = json_loads(text, 0, NULL);
    free(text);
    return d;
}

/* the field errors of a create, joined with "; " (new string) */
static char *errors(const api_kind_ops_t *ops, json_t *obj)
{
    sl_error_t err = SL_ERROR_INIT;
    ops->defaults(obj);
    int rc = ops->validate_create(obj, &err);
    char *s = strdup(rc == 0 ? "" : err.text);
    for (size_t i = 0; i < sl_err_nfields(&err); i++) {
        const sl_fielderr_t *e = sl_err_fieldat(&err, i);
        char *t = NULL;
        if (asprintf(&t, "%s%s%s: %s", i ? s : "", i ? "; " : "", e->field, e->detail) < 0)
            abort();
        free(s);
        s = t;
    }
    sl_error_clear(&err);
    return s;
}

static void defaults(void)
{
    json_t *d = deployment("");
    char *e = errors(&sl_deploy_api_ops, d);
    is_str(e, "", "a minimal Deployment is valid");
    free(e);
    is_int(json_integer_value(sl_kube_path(d, "spec.replicas")), 1, "replicas 1");
    is_str(sl_kube_path_str(d, "spec.strategy.type"), "RollingUpdate", "RollingUpdate");
    is_str(sl_kube_path_str(d, "spec.strategy.rollingUpdate.maxSurge"), "25%", "maxSurge 25%%");
    is_str(sl_kube_path_str(d, "spec.strategy.rollingUpdate.maxUnavailable"), "25%",
           "maxUnavailable 25%%");
    is_int(json_integer_value(sl_kube_path(d, "spec.revisionHistoryLimit")), 10,
           "revisionHistoryLimit 10");
    is_int(json_integer_value(sl_kube_path(d, "spec.progressDeadlineSeconds")), 600,
           "progressDeadlineSeconds 600");
    is_str(sl_kube_path_str(d, "spec.template.spec.restartPolicy"), "Always",
           "the template's restartPolicy Always");
    json_decref(d);
    d = deployment("\"strategy\":{\"type\":\"Recreate\"},");
    sl_deploy_api_ops.defaults(d);
    ok(!sl_kube_path(d, "spec.strategy.rollingUpdate"), "Recreate: no rollingUpdate defaulted");
    json_decref(d);
}

static void invalid(const char *spec, const char *want, const char *what)
{
    json_t *d = deployment(spec);
    char *e = errors(&sl_deploy_api_ops, d);
    has_str(e, want, "%s", what);
    free(e);
    json_decref(d);
}

static void validation(void)
{
    invalid("\"replicas\":-1,", "spec.replicas: must be greater than or equal to 0",
            "negative replicas");
    invalid("\"strategy\":{\"type\":\"RollingUpdate\",\"rollingUpdate\":{\"maxSurge\":0,"
            "\"maxUnavailable\":0}},",
            "spec.strategy.rollingUpdate.maxUnavailable: may not be 0 when `maxSurge` is 0",
            "maxSurge and maxUnavailable both 0");
    invalid("\"strategy\":{\"type\":\"RollingUpdate\",\"rollingUpdate\":{\"maxSurge\":\"x%\"}},",
            "spec.strategy.rollingUpdate.maxSurge: a valid percent string",
            "a percent that is none");
    invalid("\"strategy\":{\"type\":\"RollingUpdate\",\"rollingUpdate\":{\"maxSurge\":\"101%\"}},",
            "must not be greater than 100%", "over 100%");
    invalid("\"strategy\":{\"type\":\"Recreate\",\"rollingUpdate\":{}},",
            "spec.strategy.rollingUpdate: may not be specified when strategy `type` is 'Recreate'",
            "rollingUpdate with Recreate");
    invalid("\"strategy\":{\"type\":\"Blue\"},", "spec.strategy.type", "an unknown strategy");
    invalid("\"minReadySeconds\":10,\"progressDeadlineSeconds\":5,",
            "spec.progressDeadlineSeconds: must be greater than minReadySeconds",
            "a deadline not above minReadySeconds");
    invalid("\"revisionHistoryLimit\":-2,", "spec.revisionHistoryLimit: must be greater",
            "negative revisionHistoryLimit");
    json_t *d = deployment("");
    json_object_set_new(json_object_get(sl_kube_path(d, "spec.selector"), "matchLabels"), "app",
                        json_string("other"));
    char *e = errors(&sl_deploy_api_ops, d);
    has_str(e, "spec.template.metadata.labels: `selector` does not match template `labels`",
            "the selector must match the template");
    free(e);
    json_decref(d);
    d = deployment("");
    json_object_set_new(sl_kube_path(d, "spec"), "selector", json_object());
    e = errors(&sl_deploy_api_ops, d);
    has_str(e, "spec.selector: empty selector is invalid for deployment", "an empty selector");
    free(e);
    json_decref(d);
    d = deployment("");
    json_object_set_new(sl_kube_path(d, "spec.template.spec"), "restartPolicy",
                        json_string("Never"));
    e = errors(&sl_deploy_api_ops, d);
    has_str(e, "spec.template.spec.restartPolicy", "restartPolicy Never refused");
    free(e);
    json_decref(d);
}

static void updates(void)
{
    json_t *old = deployment(""), *d = deployment("\"replicas\":3,");
    sl_deploy_api_ops.defaults(old);
    sl_deploy_api_ops.defaults(d);
    sl_deploy_api_ops.prepare_create(old);
    json_object_set_new(old, "status", json_pack("{s:i}", "replicas", 1));
    sl_deploy_api_ops.prepare_update(d, old);
    is_int(json_integer_value(sl_kube_path(d, "metadata.generation")), 2,
           "a change of spec: generation 2");
    is_int(json_integer_value(sl_kube_path(d, "status.replicas")), 1, "the status is kept");
    json_t *same = json_deep_copy(old);
    sl_deploy_api_ops.prepare_update(same, old);
    is_int(json_integer_value(sl_kube_path(same, "metadata.generation")), 1,
           "no change of spec: the same generation");
    json_object_set_new(json_object_get(sl_kube_path(d, "spec.selector"), "matchLabels"), "x",
                        json_string("y"));
    sl_error_t err = SL_ERROR_INIT;
    int rc = sl_deploy_api_ops.validate_update(d, old, &err);
    bool fixed = false;
    for (size_t i = 0; i < sl_err_nfields(&err); i++)
        fixed |= !strcmp(sl_err_fieldat(&err, i)->field, "spec.selector") &&
                 !strcmp(sl_err_fieldat(&err, i)->detail, "field is immutable");
    ok(rc < 0 && fixed, "the selector is immutable (spec.selector: field is immutable)");
    sl_error_clear(&err);
    json_decref(same);
    json_decref(old);
    json_decref(d);
}

static void scaled(void)
{
    json_t *p = json_string("25%"), *i = json_integer(2);
    is_int(sl_deploy_scaled(p, 2, true, 0), 1, "25%% of 2 rounded up (maxSurge): 1");
    is_int(sl_deploy_scaled(p, 2, false, 0), 0, "25%% of 2 rounded down (maxUnavailable): 0");
    is_int(sl_deploy_scaled(p, 10, true, 0), 3, "25%% of 10 up: 3");
    is_int(sl_deploy_scaled(i, 10, true, 0), 2, "an integer as it is");
    is_int(sl_deploy_scaled(NULL, 10, true, 7), 7, "absent: the default");
    json_decref(p);
    json_decref(i);
}

static void tables(void)
{
    json_t *d = deployment("\"replicas\":3,");
    sl_deploy_api_ops.defaults(d);
    json_object_set_new(d, "status",
                        json_pack("{s:i, s:i, s:i}", "readyReplicas", 2, "updatedReplicas", 3,
                                  "availableReplicas", 1));
    json_t *cells = sl_deploy_api_ops.table_cells(d, 0), *cols = sl_deploy_api_ops.table_columns();
    char *c = json_dumps(cells, JSON_COMPACT);
    has_str(c, "[\"web\",\"2/3\",3,1,", "Deployment cells: NAME READY UP-TO-DATE AVAILABLE");
    has_str(c, "\"c\",\"busybox\",\"app=web\"]", "wide: CONTAINERS IMAGES SELECTOR");
    is_int(json_array_size(cols), json_array_size(cells), "as many columns as cells");
    free(c);
    json_decref(cells);
    json_decref(cols);
    json_decref(d);
    ok(sl_deploy_api_ops.scale_sub && sl_rs_api_ops.scale_sub, "both have the scale subresource");
}

static void replicaset(void)
{
    json_t *rs = deployment("\"replicas\":2,");
    json_object_set_new(rs, "kind", json_string("ReplicaSet"));
    char *e = errors(&sl_rs_api_ops, rs);
    is_str(e, "", "a ReplicaSet is valid");
    free(e);
    ok(!sl_kube_path(rs, "spec.strategy"), "a ReplicaSet has no strategy defaulted");
    json_object_set_new(sl_kube_path(rs, "spec.template.spec"), "activeDeadlineSeconds",
                        json_integer(5));
    e = errors(&sl_rs_api_ops, rs);
    has_str(e,
            "spec.template.spec.activeDeadlineSeconds: activeDeadlineSeconds in ReplicaSet is "
            "not Supported",
            "activeDeadlineSeconds refused");
    free(e);
    json_decref(rs);
}

int main(void)
{
    defaults();
    validation();
    updates();
    scaled();
    tables();
    replicaset();
    return tap_done();
}
