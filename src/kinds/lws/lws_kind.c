/* lws_kind.c — leaderworkerset.x-k8s.io/v1 LeaderWorkerSet's API hooks,
 * as LWS v0.10 serves it: strict decoding and the type checks of its
 * published CRD (api/crd.h, pinned by src/api/gen/crd-gen.py), the CRD
 * schema's and the mutating webhook's defaults, the validating webhook's
 * rules and texts (pkg/webhooks/leaderworkerset_webhook.go), each template
 * as the pod it becomes (what slurmlink cannot run is refused here, not
 * half-created later), the status subresource and the CRD's
 * additionalPrinterColumns (NAME READY DESIRED UP-TO-DATE AGE). */
#include "api/crd.h"
#include "api/internal.h"
#include "common/err.h"
#include "common/xalloc.h"
#include "kinds/kubeflow/api.h"
#include "kinds/lws/lws.h"
#include "kube/meta.h"
#include "pod/pod.h"
#include "translate/translate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LWT "spec.leaderWorkerTemplate"
#define RUC "spec.rolloutStrategy.rollingUpdateConfiguration"
#define LWS_GANG_MAX 256 /* ctl/internal.h CTL_GANG_MAX: a gang's members */
#define LWS_GROUPS_MAX 10000

json_t *lws_schema(void) { return api_crd_schema(LWS_GROUP, "v1", "LeaderWorkerSet"); }

static long long int_or(json_t *v, long long dflt)
{
    return json_is_integer(v) ? json_integer_value(v) : dflt;
}

long long lws_replicas(json_t *lws) { return int_or(sl_kube_path(lws, "spec.replicas"), 1); }

long long lws_size(json_t *lws) { return int_or(sl_kube_path(lws, LWT ".size"), 1); }

static int lws_decode(json_t *lws, json_t *unknown, json_t *warnings, sl_error_t *err)
{
    (void)warnings;
    (void)err;
    api_crd_unknown(lws_schema(), lws, unknown);
    return 0;
}

/* the CRD schema's defaults, then the mutating webhook's (Default) */
static void lws_defaults(json_t *lws)
{
    json_t *spec = api_tj_obj_child(lws, "spec");
    api_tj_default(spec, "replicas", json_integer(1));
    api_tj_default(spec, "startupPolicy", json_string("LeaderCreated"));
    json_t *t = api_tj_obj_child(spec, "leaderWorkerTemplate");
    api_tj_default(t, "size", json_integer(1));
    api_tj_default(t, "restartPolicy", json_string("RecreateGroupOnPodRestart"));
    const char *rp = json_string_value(json_object_get(t, "restartPolicy"));
    if (rp && !strcmp(rp, "Default")) /* DeprecatedDefaultRestartPolicy */
        json_object_set_new(t, "restartPolicy", json_string("None"));
    json_t *sgp = json_object_get(t, "subGroupPolicy");
    if (json_is_object(sgp))
        api_tj_default(sgp, "subGroupPolicyType", json_string("LeaderWorker"));
    json_t *rs = api_tj_obj_child(spec, "rolloutStrategy");
    api_tj_default(rs, "type", json_string("RollingUpdate"));
    json_t *ruc = api_tj_obj_child(rs, "rollingUpdateConfiguration");
    api_tj_default(ruc, "maxUnavailable", json_integer(1));
    api_tj_default(ruc, "maxSurge", json_integer(0));
    api_tj_default(ruc, "partition", json_integer(0));
    json_t *nc = api_tj_obj_child(spec, "networkConfig");
    api_tj_default(nc, "subdomainPolicy", json_string("Shared"));
}

/* the enums of the CRD schema */
static void validate_enum(json_t *lws, const char *path, const char *const *ok, sl_error_t *err)
{
    const char *v = sl_kube_path_str(lws, path);
    for (int i = 0; v && ok[i]; i++)
        if (!strcmp(v, ok[i]))
            return;
    if (v)
        sl_err_not_supported(err, v, ok, "%s", path);
}

static void validate_enums(json_t *lws, sl_error_t *err)
{
    static const char *const rp[] = {"RecreateGroupOnPodRestart", "RecreateGroupAfterStart", "None",
                                     NULL};
    static const char *const sp[] = {"LeaderCreated", "LeaderReady", NULL};
    static const char *const sd[] = {"Shared", "UniquePerReplica", NULL};
    static const char *const rt[] = {"RollingUpdate", NULL};
    validate_enum(lws, LWT ".restartPolicy", rp, err);
    validate_enum(lws, "spec.startupPolicy", sp, err);
    validate_enum(lws, "spec.networkConfig.subdomainPolicy", sd, err);
    validate_enum(lws, "spec.rolloutStrategy.type", rt, err);
}

/* ValidatePositiveIntOrPercent and IsNotMoreThan100Percent; the value
 * scaled to replicas (round up: maxSurge) into *out */
static void validate_int_or_percent(json_t *lws, const char *path, bool up, long long *out,
                                    sl_error_t *err)
{
    json_t *v = sl_kube_path(lws, path);
    *out = 0;
    if (json_is_integer(v)) {
        if (json_integer_value(v) < 0)
            sl_err_field_int(err, SL_FE_INVALID, path, json_integer_value(v),
                             "must be greater than or equal to 0");
        *out = json_integer_value(v);
        return;
    }
    const char *s = json_string_value(v);
    char *end = NULL;
    long pct = s ? strtol(s, &end, 10) : -1;
    if (!s || end == s || strcmp(end, "%") || pct < 0) {
        if (v)
            sl_err_field(err, SL_FE_INVALID, path, s ? s : "",
                         "a valid percent string must be a numeric string followed by an ending "
                         "'%' (e.g. '1%',  or '93%', regex used for validation is '[0-9]+%')");
        return;
    }
    if (pct > 100)
        sl_err_field(err, SL_FE_INVALID, path, s, "must not be greater than 100%");
    long long r = lws_replicas(lws);
    *out = up ? (pct * r + 99) / 100 : pct * r / 100;
}

/* generalValidate of the webhook (subGroupPolicy: refused below) */
static void validate_webhook(json_t *lws, sl_error_t *err)
{
    const char *name = sl_kube_name(lws);
    char why[512] = "";
    if (name && !api_tj_dns1035(name, ",", why, sizeof(why))) {
        char *d = sl_xasprintf("should match: %s", why); /* NameIsDNS1035Label */
        sl_err_field(err, SL_FE_INVALID, "metadata.name", name, d);
        free(d);
    }
    long long r = lws_replicas(lws), size = lws_size(lws);
    if (r < 0)
        sl_err_field_int(err, SL_FE_INVALID, "spec.replicas", r,
                         "replicas must be equal or greater than 0");
    if (r > 1000000)
        sl_err_field_int(err, SL_FE_INVALID, "spec.replicas", r,
                         "replicas must be equal or less than 1000000");
    if (size < 1)
        sl_err_field_int(err, SL_FE_INVALID, LWT ".size", size,
                         "size must be equal or greater than 1");
    long long mu, ms;
    validate_int_or_percent(lws, RUC ".maxUnavailable", false, &mu, err);
    validate_int_or_percent(lws, RUC ".maxSurge", true, &ms, err);
    long long part = int_or(sl_kube_path(lws, RUC ".partition"), 0);
    if (part < 0)
        sl_err_field_int(err, SL_FE_INVALID, RUC ".partition", part,
                         "must be greater than or equal to 0");
    if (!mu && !ms && r) {
        json_t *v = sl_kube_path(lws, RUC ".maxUnavailable");
        char buf[32];
        snprintf(buf, sizeof(buf), "%lld", (long long)json_integer_value(v));
        sl_err_field(err, SL_FE_INVALID, RUC ".maxUnavailable",
                     json_is_string(v) ? json_string_value(v) : buf,
                     "must not be 0 when `maxSurge` is 0");
    }
}

/* slurmlink's own: one Slurm job holds a group (at most LWS_GANG_MAX
 * nodes); what it does not run is refused, not ignored */
static void validate_slurmlink(json_t *lws, sl_error_t *err)
{
    long long size = lws_size(lws), r = lws_replicas(lws);
    if (r > LWS_GROUPS_MAX)
        sl_err_field_int(err, SL_FE_INVALID, "spec.replicas", r,
                         "must be no more than 10000: slurmlink runs each group as a Slurm job "
                         "(Slurm's default MaxJobCount)");
    if (size > LWS_GANG_MAX)
        sl_err_field_int(err, SL_FE_INVALID, LWT ".size", size,
                         "must be no more than 256: slurmlink runs a group as one Slurm job, a "
                         "node per pod");
    if (sl_kube_path(lws, LWT ".subGroupPolicy"))
        sl_err_field_none(err, SL_FE_FORBIDDEN, LWT ".subGroupPolicy",
                          "not supported by slurmlink: a group is one Slurm job");
    json_t *vct = sl_kube_path(lws, LWT ".volumeClaimTemplates");
    if (json_array_size(vct))
        sl_err_field_none(err, SL_FE_FORBIDDEN, LWT ".volumeClaimTemplates",
                          "not supported by slurmlink: use a PersistentVolumeClaim's volume");
    if (!json_is_object(sl_kube_path(lws, LWT ".workerTemplate")))
        sl_err_field_none(err, SL_FE_REQUIRED, LWT ".workerTemplate", "must be specified");
}

/* a pod module field path under the template at base, or NULL */
static char *template_field(const char *base, const char *f)
{
    if ((!strncmp(f, "spec", 4) && (!f[4] || f[4] == '.' || f[4] == '[')) ||
        !strncmp(f, "metadata.labels", 15) || !strncmp(f, "metadata.annotations", 20))
        return sl_xasprintf("%s.%s", base, f);
    return NULL;
}

/* the template at base (LWT.leaderTemplate or .workerTemplate) as the pod
 * it becomes: the pod module's checks and the translator's */
static void validate_template(json_t *lws, const char *base, sl_error_t *err)
{
    json_t *t = sl_kube_path(lws, base);
    if (!json_is_object(t))
        return;
    json_t *pod = lws_new_pod(lws, 0, strstr(base, "leader") ? 0 : 1, 0);
    sl_error_t perr = SL_ERROR_INIT;
    sl_pod_t *p = sl_pod_parse(pod, &perr);
    if (p)
        sl_translate_validate(p, NULL, &perr);
    sl_pod_destroy(p);
    for (size_t i = 0; i < sl_err_nfields(&perr); i++) {
        const sl_fielderr_t *e = sl_err_fieldat(&perr, i);
        char *f = template_field(base, e->field);
        if (f && e->vkind == SL_FE_V_INT)
            sl_err_field_int(err, e->type, f, e->ivalue, e->detail);
        else if (f && e->vkind == SL_FE_V_RAW)
            sl_err_field_raw(err, e->type, f, e->value, e->detail);
        else if (f && e->vkind == SL_FE_V_STRING)
            sl_err_field(err, e->type, f, e->value, e->detail);
        else if (f)
            sl_err_field_none(err, e->type, f, e->detail);
        free(f);
    }
    sl_error_clear(&perr);
    json_decref(pod);
}

static int lws_validate(json_t *lws, sl_error_t *err)
{
    api_validate_meta(lws, false, err);
    if (sl_err_nfields(err))
        return -1;
    api_crd_validate(lws_schema(), lws, err);
    if (sl_err_nfields(err))
        return -1;
    validate_enums(lws, err);
    validate_webhook(lws, err);
    validate_slurmlink(lws, err);
    if (sl_err_nfields(err))
        return -1;
    validate_template(lws, LWT ".leaderTemplate", err);
    validate_template(lws, LWT ".workerTemplate", err);
    return api_fields_result(err);
}

/* ValidateUpdate: generalValidate, and subdomainPolicy may not be unset */
static int lws_validate_update(json_t *lws, json_t *old, sl_error_t *err)
{
    if (lws_validate(lws, err) < 0)
        return -1;
    if (sl_kube_path(lws, "spec.networkConfig") &&
        !sl_kube_path_str(lws, "spec.networkConfig.subdomainPolicy") &&
        sl_kube_path_str(old, "spec.networkConfig.subdomainPolicy"))
        sl_err_field(err, SL_FE_INVALID, "spec.networkConfig.subdomainPolicy",
                     sl_kube_path_str(old, "spec.networkConfig.subdomainPolicy"),
                     "cannot set subdomainPolicy as null");
    return api_fields_result(err);
}

static int lws_validate_status(json_t *lws, json_t *old, sl_error_t *err)
{
    (void)old;
    api_crd_validate(lws_schema(), lws, err);
    return api_fields_result(err);
}

static json_t *int_column(const char *name, const char *desc)
{
    return json_pack("{s:s, s:s, s:s, s:s, s:i}", "name", name, "type", "integer", "format", "",
                     "description", desc, "priority", 0);
}

/* the CRD's additionalPrinterColumns */
static json_t *lws_columns(void)
{
    return json_pack("[o, o, o, o, {s:s, s:s, s:s, s:s, s:i}]", api_tj_name_column(),
                     int_column("Ready", "Number of ready replicas"),
                     int_column("Desired", "Number of desired replicas"),
                     int_column("Up-to-date", "Number of up-to-date replicas"), "name", "Age",
                     "type", "date", "format", "", "description", "", "priority", 0);
}

static json_t *lws_cells(json_t *lws, long long now)
{
    char age[32];
    const char *ts = sl_kube_meta_str(lws, "creationTimestamp");
    if (ts)
        sl_kube_age(ts, now, age, sizeof(age));
    const char *name = sl_kube_name(lws);
    return json_pack("[s, O?, O?, O?, s?]", name ? name : "",
                     sl_kube_path(lws, "status.readyReplicas"), sl_kube_path(lws, "spec.replicas"),
                     sl_kube_path(lws, "status.updatedReplicas"), ts ? age : NULL);
}

static const api_kind_ops_t lws_ops = {
    .decode_check = lws_decode,
    .defaults = lws_defaults,
    .prepare_create = api_tj_prepare_create,
    .prepare_update = api_tj_prepare_update,
    .validate_create = lws_validate,
    .validate_update = lws_validate_update,
    .validate_status = lws_validate_status,
    .table_columns = lws_columns,
    .table_cells = lws_cells,
    .scale_sub = true, /* upstream's CRD: labelSelectorPath .status.hpaPodSelector */
    .scale_selector_path = "status.hpaPodSelector",
};

const sl_kind_t sl_kind_lws = {
    .api = {LWS_GROUP,
            "v1",
            "leaderworkersets",
            "leaderworkerset",
            "LeaderWorkerSet",
            "LeaderWorkerSetList",
            true,
            API_V_ALL,
            {"lws"},
            {0},
            true,
            false,
            LWS_STORE,
            &lws_ops},
    .pod_templates = {"spec.leaderWorkerTemplate.leaderTemplate.spec",
                      "spec.leaderWorkerTemplate.workerTemplate.spec", NULL},
    .runs_as_creator = true,
    .owns_pods = true,
    .delete_finalizers = false,
    .ctl = {.needs_slurm = true,
            .reconcile = lws_reconcile,
            .gone = lws_gone,
            .collect_gone = NULL},
};
