/* api.c — JobSet's API hooks, as JobSet v0.12 serves it: strict decoding
 * and the type checks of its pinned CRD (api/crd.h), the CRD's enums and
 * list keys, the mutating webhook's defaults (Default), the validating
 * webhook's rules (ValidateCreate, ValidateUpdate) with their texts as
 * field errors, every pod template through the pod module (what slurmlink
 * cannot run is refused here, not half-created later), the status
 * subresource and the CRD's printer columns. */
#include "kinds/kubeflow/api.h"
#include "api/crd.h"
#include "api/internal.h"
#include "common/err.h"
#include "common/xalloc.h"
#include "kinds/jobset/jobset.h"
#include "kube/meta.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define RJ "spec.replicatedJobs"
#define MAX_INT32 2147483647LL

static json_t *schema(void) { return api_crd_schema(JS_GROUP, JS_VERSION, "JobSet"); }

static int js_decode(json_t *js, json_t *unknown, json_t *warnings, sl_error_t *err)
{
    (void)warnings;
    (void)err;
    api_crd_unknown(schema(), js, unknown);
    return 0;
}

/* the mutating webhook's Default and the CRD's own defaults */
static void js_defaults(json_t *js)
{
    json_t *spec = api_tj_obj_child(js, "spec");
    json_t *sp = api_tj_obj_child(spec, "successPolicy");
    api_tj_default(sp, "operator", json_string("All"));
    json_t *st = api_tj_obj_child(spec, "startupPolicy");
    api_tj_default(st, "startupPolicyOrder", json_string("AnyOrder"));
    json_t *net = api_tj_obj_child(spec, "network");
    api_tj_default(net, "enableDNSHostnames", json_true());
    api_tj_default(net, "publishNotReadyAddresses", json_true());
    json_t *fp = json_object_get(spec, "failurePolicy");
    if (json_is_object(fp)) {
        api_tj_default(fp, "restartStrategy", json_string("Recreate"));
        size_t i;
        json_t *rule;
        json_array_foreach(json_object_get(fp, "rules"), i, rule)
        {
            char name[48];
            snprintf(name, sizeof(name), "failurePolicyRule%zu", i);
            if (json_is_object(rule))
                api_tj_default(rule, "name", json_string(name));
        }
    }
    size_t i;
    json_t *rj;
    json_array_foreach(json_object_get(spec, "replicatedJobs"), i, rj)
    {
        if (!json_is_object(rj))
            continue;
        api_tj_default(rj, "replicas", json_integer(1));
        api_tj_default(rj, "groupName", json_string("default"));
        json_t *jspec = api_tj_obj_child(api_tj_obj_child(rj, "template"), "spec");
        api_tj_default(jspec, "completionMode", json_string("Indexed"));
        json_t *pspec = api_tj_obj_child(api_tj_obj_child(jspec, "template"), "spec");
        api_tj_default(pspec, "restartPolicy", json_string("OnFailure"));
    }
}

/* a value against the CRD's enum: kube-apiserver's Unsupported value */
static void check_enum(json_t *obj, const char *path, const char *const *ok, const char *field,
                       sl_error_t *err)
{
    const char *v = sl_kube_path_str(obj, path);
    for (size_t i = 0; v && ok[i]; i++)
        if (!strcmp(v, ok[i]))
            return;
    if (v)
        sl_err_not_supported(err, v, ok, "%s", field);
}

static void check_enums(json_t *spec, sl_error_t *err)
{
    static const char *const ops[] = {"All", "Any", NULL};
    static const char *const orders[] = {"AnyOrder", "InOrder", NULL};
    static const char *const strategies[] = {"Recreate", "BlockingRecreate", "InPlaceRestart",
                                             NULL};
    static const char *const actions[] = {"FailJobSet",
                                          "RestartJobSet",
                                          "RestartJobSetAndIgnoreMaxRestarts",
                                          "RestartJob",
                                          "RestartJobAndIgnoreMaxRestarts",
                                          NULL};
    check_enum(spec, "successPolicy.operator", ops, "spec.successPolicy.operator", err);
    check_enum(spec, "startupPolicy.startupPolicyOrder", orders,
               "spec.startupPolicy.startupPolicyOrder", err);
    check_enum(spec, "failurePolicy.restartStrategy", strategies,
               "spec.failurePolicy.restartStrategy", err);
    size_t i;
    json_t *rule;
    json_array_foreach(sl_kube_path(spec, "failurePolicy.rules"), i, rule)
    {
        char f[64];
        snprintf(f, sizeof(f), "spec.failurePolicy.rules[%zu].action", i);
        check_enum(rule, "action", actions, f, err);
    }
}

/* the list-map key: replicatedJobs' names unique */
static void check_unique(json_t *spec, sl_error_t *err)
{
    json_t *rjs = json_object_get(spec, "replicatedJobs");
    for (size_t i = 0; i < json_array_size(rjs); i++) {
        const char *n = sl_kube_path_str(json_array_get(rjs, i), "name");
        for (size_t j = 0; n && j < i; j++) {
            const char *m = sl_kube_path_str(json_array_get(rjs, j), "name");
            if (m && !strcmp(m, n)) {
                char f[64];
                char *v = sl_xasprintf("map[string]interface {}{\"name\":\"%s\"}", n);
                snprintf(f, sizeof(f), RJ "[%zu]", i);
                sl_err_field_raw(err, SL_FE_DUPLICATE, f, v, NULL);
                free(v);
                break;
            }
        }
    }
}

/* IsDNS1035Label of s as the webhook reports it: its "must be no more
 * than 63 characters" replaced by long_msg */
static void dns1035(const char *field, const char *value, const char *s, const char *long_msg,
                    sl_error_t *err)
{
    char why[512];
    if (api_tj_dns1035(s, "\n", why, sizeof(why)))
        return;
    char *save = NULL;
    for (char *line = strtok_r(why, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
        sl_err_field(err, SL_FE_INVALID, field, value,
                     strstr(line, "must be no more than 63 characters") ? long_msg : line);
}

static void validate_subdomain(json_t *spec, sl_error_t *err)
{
    const char *sub = sl_kube_path_str(spec, "network.subdomain");
    if (!sub || !*sub)
        return;
    if (!sl_kube_is_dns1123_subdomain(sub))
        sl_err_field(err, SL_FE_INVALID, "spec.network.subdomain", sub,
                     "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric "
                     "characters, '-' or '.', and must start and end with an alphanumeric "
                     "character (e.g. 'example.com', regex used for validation is "
                     "'[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')");
    dns1035("spec.network.subdomain", sub, sub,
            ".spec.network.subdomain is too long, must be less than 63 characters", err);
}

/* the names the child Jobs and pods of replicated Job i will have */
static void validate_names(json_t *js, json_t *rj, size_t i, sl_error_t *err)
{
    char f[64];
    const char *name = json_string_value(json_object_get(rj, "name"));
    long long reps = json_integer_value(json_object_get(rj, "replicas"));
    snprintf(f, sizeof(f), RJ "[%zu].groupName", i);
    const char *g = json_string_value(json_object_get(rj, "groupName"));
    if (g)
        dns1035(f, g, g,
                ".spec.replicatedJob[].groupName is too long, must be less than 63 characters",
                err);
    snprintf(f, sizeof(f), RJ "[%zu].name", i);
    char *job = sl_xasprintf("%s-%s-%lld", sl_kube_name(js), name ? name : "", reps - 1);
    dns1035(
        f, job, job,
        "JobSet name is too long, job names generated for this JobSet will exceed 63 characters",
        err);
    json_t *c = sl_kube_path(rj, "template.spec.completions");
    if (json_is_integer(c)) {
        char *pod = sl_xasprintf("%s-%lld-abcde", job, (long long)json_integer_value(c) - 1);
        dns1035(f, job, pod,
                "JobSet name is too long, pod names generated for this JobSet will exceed 63 "
                "characters",
                err);
        free(pod);
    }
    free(job);
}

/* what one gang cannot run: a child Job's indexes all run at once (its
 * completions no more than its parallelism) */
static void validate_shape(json_t *rj, size_t i, sl_error_t *err)
{
    char f[80];
    json_t *js = sl_kube_path(rj, "template.spec");
    long long reps = json_integer_value(json_object_get(rj, "replicas"));
    json_t *p = json_object_get(js, "parallelism"), *c = json_object_get(js, "completions");
    long long par = json_is_integer(p) ? json_integer_value(p) : 1;
    snprintf(f, sizeof(f), RJ "[%zu].replicas", i);
    if (reps < 0)
        sl_err_field_int(err, SL_FE_INVALID, f, reps, "must be greater than or equal to 0");
    if (par * reps > MAX_INT32) {
        char *d = sl_xasprintf("the product of replicas and parallelism must not exceed %lld for "
                               "replicatedJob '%s'",
                               MAX_INT32, sl_kube_path_str(rj, "name") ?: "");
        sl_err_field_int(err, SL_FE_INVALID, f, reps, d);
        free(d);
    }
    const char *mode = json_string_value(json_object_get(js, "completionMode"));
    snprintf(f, sizeof(f), RJ "[%zu].template.spec.completionMode", i);
    if (mode && strcmp(mode, "Indexed"))
        sl_err_field(err, SL_FE_NOT_SUPPORTED, f, mode,
                     "supported values: \"Indexed\" (a JobSet runs as one Slurm job: every "
                     "index of every child Job is a member of it)");
    snprintf(f, sizeof(f), RJ "[%zu].template.spec.completions", i);
    if (json_is_integer(c) && json_integer_value(c) > par)
        sl_err_field_int(err, SL_FE_INVALID, f, json_integer_value(c),
                         "must not exceed parallelism: a JobSet runs as one Slurm job that "
                         "starts every index of every child Job at once");
}

/* successPolicy's targets and the failure policy rules' targets name replicated Jobs */
static bool has_rjob(json_t *spec, const char *name)
{
    size_t i;
    json_t *rj;
    json_array_foreach(json_object_get(spec, "replicatedJobs"), i, rj)
    {
        const char *n = sl_kube_path_str(rj, "name");
        if (n && name && !strcmp(n, name))
            return true;
    }
    return false;
}

static void validate_targets(json_t *spec, const char *path, const char *field, sl_error_t *err)
{
    size_t i;
    json_t *t;
    json_array_foreach(sl_kube_path(spec, path), i, t)
    {
        const char *n = json_string_value(t);
        if (has_rjob(spec, n))
            continue;
        char f[96];
        snprintf(f, sizeof(f), "%s[%zu]", field, i);
        char *d = sl_xasprintf("invalid replicatedJob name '%s' does not appear in "
                               ".spec.ReplicatedJobs",
                               n ? n : "");
        sl_err_field(err, SL_FE_INVALID, f, n ? n : "", d);
        free(d);
    }
}

/* the replicated Job named name, or NULL */
static json_t *rjob_named(json_t *spec, const char *name)
{
    size_t i;
    json_t *rj;
    json_array_foreach(json_object_get(spec, "replicatedJobs"), i, rj)
    {
        const char *n = sl_kube_path_str(rj, "name");
        if (n && name && !strcmp(n, name))
            return rj;
    }
    return NULL;
}

/* validateCoordinator: the coordinator pod is one the set has */
static void validate_coordinator(json_t *spec, sl_error_t *err)
{
    json_t *co = json_object_get(spec, "coordinator");
    if (!json_is_object(co))
        return;
    const char *name = sl_kube_path_str(co, "replicatedJob");
    json_t *rj = rjob_named(spec, name);
    long long job = json_integer_value(json_object_get(co, "jobIndex"));
    long long pod = json_integer_value(json_object_get(co, "podIndex"));
    json_t *c = rj ? sl_kube_path(rj, "template.spec.completions") : NULL;
    char d[256];
    if (!rj) {
        snprintf(d, sizeof(d), "coordinator replicatedJob %s does not exist", name ? name : "");
        sl_err_field(err, SL_FE_INVALID, "spec.coordinator.replicatedJob", name ? name : "", d);
    } else if (job < 0 || job >= json_integer_value(json_object_get(rj, "replicas"))) {
        snprintf(d, sizeof(d), "coordinator job index %lld is invalid for replicatedJob %s", job,
                 name);
        sl_err_field_int(err, SL_FE_INVALID, "spec.coordinator.jobIndex", job, d);
    } else if (!json_is_integer(c)) {
        sl_err_field(err, SL_FE_INVALID, "spec.coordinator.replicatedJob", name,
                     "job for coordinator pod must be indexed completion mode, and "
                     "completions number must be set");
    } else if (pod < 0 || pod >= json_integer_value(c)) {
        snprintf(d, sizeof(d),
                 "coordinator pod index %lld is invalid for replicatedJob %s job index %lld", pod,
                 name, job);
        sl_err_field_int(err, SL_FE_INVALID, "spec.coordinator.podIndex", pod, d);
    }
}

static void validate_policies(json_t *spec, sl_error_t *err)
{
    validate_coordinator(spec, err);
    if (json_array_size(json_object_get(spec, "volumeClaimPolicies")))
        sl_err_field_none(err, SL_FE_FORBIDDEN, "spec.volumeClaimPolicies",
                          "not supported: use a PersistentVolumeClaim and a volume in the pod "
                          "templates (docs/pods.md, Storage)");
    validate_targets(spec, "successPolicy.targetReplicatedJobs",
                     "spec.successPolicy.targetReplicatedJobs", err);
    json_t *mr = sl_kube_path(spec, "failurePolicy.maxRestarts");
    if (json_is_integer(mr) && json_integer_value(mr) < 0)
        sl_err_field_int(err, SL_FE_INVALID, "spec.failurePolicy.maxRestarts",
                         json_integer_value(mr), "must be greater than or equal to 0");
    const char *rs = sl_kube_path_str(spec, "failurePolicy.restartStrategy");
    if (rs && !strcmp(rs, "InPlaceRestart"))
        sl_err_field(err, SL_FE_INVALID, "spec.failurePolicy.restartStrategy", rs,
                     "InPlaceRestart restart strategy cannot be set when InPlaceRestart feature "
                     "gate is disabled");
    const char *order = sl_kube_path_str(spec, "startupPolicy.startupPolicyOrder");
    json_t *rjs = json_object_get(spec, "replicatedJobs");
    bool depends = false;
    size_t i;
    json_t *rj;
    json_array_foreach(rjs, i, rj) depends |= json_object_get(rj, "dependsOn") != NULL;
    if (order && !strcmp(order, "InOrder") && depends)
        sl_err_field(err, SL_FE_INVALID, "spec", "object",
                     "StartupPolicy and DependsOn APIs are mutually exclusive");
    if (json_object_get(json_array_get(rjs, 0), "dependsOn"))
        sl_err_field_none(err, SL_FE_INVALID, RJ "[0].dependsOn",
                          "DependsOn can't be set for the first ReplicatedJob");
    json_array_foreach(rjs, i, rj) if (i && json_object_get(rj, "dependsOn"))
    {
        char f[64];
        snprintf(f, sizeof(f), RJ "[%zu].dependsOn", i);
        sl_err_field_none(err, SL_FE_FORBIDDEN, f,
                          "not supported: a JobSet runs as one Slurm job that starts its "
                          "replicated Jobs together; startupPolicy InOrder starts them in order");
    }
}

/* what becomes the Slurm job's per-node request (the containers'
 * resources, nodeSelector) */
static json_t *shape(json_t *rj)
{
    json_t *ps = sl_kube_path(rj, "template.spec.template.spec"), *res = json_array();
    size_t i;
    json_t *c;
    json_array_foreach(json_object_get(ps, "containers"), i, c) json_array_append(
        res, json_object_get(c, "resources") ? json_object_get(c, "resources") : json_null());
    return json_pack("{s:o, s:O?}", "resources", res, "nodeSelector",
                     json_object_get(ps, "nodeSelector"));
}

/* one Slurm job of alike nodes (docs/jobs.md: why not a heterogeneous
 * job): every replicated Job's pods request what the first's do */
static void validate_alike(json_t *rjs, sl_error_t *err)
{
    json_t *first = shape(json_array_get(rjs, 0));
    for (size_t i = 1; i < json_array_size(rjs); i++) {
        json_t *b = shape(json_array_get(rjs, i));
        if (!json_equal(first, b)) {
            char f[80];
            snprintf(f, sizeof(f), RJ "[%zu].template.spec.template.spec", i);
            sl_err_field_none(err, SL_FE_FORBIDDEN, f,
                              "must request the resources and nodeSelector of " RJ
                              "[0].template.spec.template.spec: slurmlink runs every pod of a "
                              "JobSet in one Slurm job of alike nodes");
        }
        json_decref(b);
    }
    json_decref(first);
}

static int js_validate(json_t *js, sl_error_t *err)
{
    api_validate_meta(js, false, err);
    if (sl_err_nfields(err))
        return -1;
    api_crd_validate(schema(), js, err);
    json_t *spec = json_object_get(js, "spec");
    check_enums(spec, err);
    check_unique(spec, err);
    if (sl_err_nfields(err))
        return -1;
    json_t *rjs = json_object_get(spec, "replicatedJobs");
    if (!json_array_size(rjs))
        sl_err_field_none(err, SL_FE_REQUIRED, RJ, "a JobSet needs at least one replicated Job");
    validate_subdomain(spec, err);
    size_t i;
    json_t *rj;
    json_array_foreach(rjs, i, rj)
    {
        validate_names(js, rj, i, err);
        validate_shape(rj, i, err);
    }
    validate_policies(spec, err);
    if (sl_err_nfields(err))
        return -1;
    js_member_t m;
    size_t n = js_members(js, &m, 0);
    if (n > JS_MAX_MEMBERS) {
        char d[128];
        snprintf(d, sizeof(d), "a JobSet runs as one Slurm job of at most %d pods, not %zu",
                 JS_MAX_MEMBERS, n);
        sl_err_field_none(err, SL_FE_FORBIDDEN, RJ, d);
    }
    json_array_foreach(rjs, i, rj)
    {
        char prefix[80];
        snprintf(prefix, sizeof(prefix), RJ "[%zu].template.spec.template", i);
        api_tj_validate_pod_template(prefix, sl_kube_path(rj, "template.spec.template"), "Never",
                                     err);
    }
    if (!sl_err_nfields(err))
        validate_alike(rjs, err);
    return api_fields_result(err);
}

/* the CEL rules "Value is immutable" (successPolicy, failurePolicy,
 * network, startupPolicy) and the webhook's: the replicated Jobs fixed
 * unless the set is suspended (its gang is not running) */
static int js_validate_update(json_t *js, json_t *old, sl_error_t *err)
{
    if (js_validate(js, err) < 0)
        return -1;
    static const char *const fixed[] = {"successPolicy", "failurePolicy", "network",
                                        "startupPolicy", NULL};
    json_t *ns = json_object_get(js, "spec"), *os = json_object_get(old, "spec");
    for (size_t i = 0; fixed[i]; i++) {
        json_t *a = json_object_get(ns, fixed[i]), *b = json_object_get(os, fixed[i]);
        if (b && !json_equal(a, b)) {
            char f[48];
            snprintf(f, sizeof(f), "spec.%s", fixed[i]);
            sl_err_field(err, SL_FE_INVALID, f, "object", "Value is immutable");
        }
    }
    json_t *a = json_object_get(ns, "replicatedJobs"), *b = json_object_get(os, "replicatedJobs");
    if (!json_equal(a, b) && !json_is_true(json_object_get(os, "suspend")))
        sl_err_field_none(err, SL_FE_FORBIDDEN, RJ,
                          "the replicated Jobs of a JobSet that is not suspended are fixed: it "
                          "runs as one Slurm job submitted with them");
    return api_fields_result(err);
}

static int js_validate_status(json_t *js, json_t *old, sl_error_t *err)
{
    (void)old;
    api_crd_validate(schema(), js, err);
    return api_fields_result(err);
}

/* additionalPrinterColumns: TerminalState, Restarts, Completed, Suspended, Age */
static json_t *js_columns(void)
{
    static const char *const cols[][3] = {
        {"TerminalState", "string", "Final state of JobSet"},
        {"Restarts", "string", "Number of restarts"},
        {"Completed", "string", ""},
        {"Suspended", "string", "JobSet suspended"},
        {"Age", "date", "Time this JobSet was created"},
    };
    json_t *out = json_array();
    json_array_append_new(out, api_tj_name_column());
    for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++)
        json_array_append_new(out, json_pack("{s:s, s:s, s:s, s:s, s:i}", "name", cols[i][0],
                                             "type", cols[i][1], "format", "", "description",
                                             cols[i][2], "priority", 0));
    return out;
}

static json_t *js_cells(json_t *js, long long now)
{
    json_t *row = json_array();
    const char *name = sl_kube_name(js);
    json_array_append_new(row, json_string(name ? name : ""));
    const char *term = sl_kube_path_str(js, "status.terminalState");
    json_array_append_new(row, term ? json_string(term) : json_null());
    json_t *r = sl_kube_path(js, "status.restarts");
    json_array_append_new(row, json_is_integer(r)
                                   ? json_sprintf("%lld", (long long)json_integer_value(r))
                                   : json_null());
    json_t *cd = sl_kube_condition(sl_kube_path(js, "status.conditions"), "Completed");
    const char *cs = json_string_value(json_object_get(cd, "status"));
    json_array_append_new(row, cs ? json_string(cs) : json_null());
    json_t *s = sl_kube_path(js, "spec.suspend");
    json_array_append_new(row, json_is_boolean(s) ? json_string(json_is_true(s) ? "true" : "false")
                                                  : json_null());
    char age[32];
    const char *ts = sl_kube_meta_str(js, "creationTimestamp");
    json_array_append_new(row,
                          ts ? json_string(sl_kube_age(ts, now, age, sizeof(age))) : json_null());
    return row;
}

const api_kind_ops_t js_api_ops = {
    .decode_check = js_decode,
    .defaults = js_defaults,
    .prepare_create = api_tj_prepare_create,
    .prepare_update = api_tj_prepare_update,
    .validate_create = js_validate,
    .validate_update = js_validate_update,
    .validate_status = js_validate_status,
    .table_columns = js_columns,
    .table_cells = js_cells,
};
