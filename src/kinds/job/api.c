/* src/kinds/job/api.c — the batch/v1 Job's hooks: strict decoding, kube-apiserver's
 * defaults (SetDefaults_Job, SetDefaults_PodSpec on the template), the
 * generated selector and labels of the Job strategy (generateSelector),
 * validation with ValidateJob's texts (the pod template through the pod
 * module), what an update may change, the status subresource, printers.
 * The controller that runs a Job as a Slurm job array is src/kinds/job/controller.c. */
#include "api/internal.h"
#include "api/printers.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/xalloc.h"
#include "kinds/job/job.h"
#include "kube/meta.h"
#include "kube/selector.h"
#include "pod/pod.h"
#include "pod/schema.h"
#include "translate/translate.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JOB_MAX_INDEXED_PARALLELISM 100000 /* maxParallelismForIndexedJob */

static const char *const job_name_labels[] = {"job-name", "batch.kubernetes.io/job-name"};
static const char *const job_uid_labels[] = {"controller-uid",
                                             "batch.kubernetes.io/controller-uid"};

static int job_decode(json_t *job, json_t *unknown, json_t *warnings, sl_error_t *err)
{
    (void)err;
    api_schema_unknown("Job", job, unknown);
    /* the template's ignored fields, as for a pod, under spec.template */
    json_t *tmpl = sl_kube_path(job, "spec.template");
    if (!json_is_object(tmpl))
        return 0;
    json_t *pod = json_pack("{s:O?}", "spec", json_object_get(tmpl, "spec"));
    size_t n = 0;
    char **w = sl_schema_pod_warnings(pod, &n);
    for (size_t i = 0; w && i < n; i++) {
        char *t = sl_xasprintf("spec.template.%s", w[i]);
        json_array_append_new(warnings, json_string(t));
        free(t);
    }
    sl_strv_free(w);
    json_decref(pod);
    return 0;
}

/* SetDefaults_PodSpec and the container defaults on the template: those of
 * a pod without what SetDefaults_Pod (enableServiceLinks) and admission
 * (service account, priority) add to pods only. Requests defaulted from
 * limits (SetDefaults_Pod too) are kept: docs/jobs.md. */
void api_job_template_defaults(json_t *spec)
{
    json_t *tmpl = sl_kube_child(spec, "template");
    json_t *pod = json_pack("{s:O}", "spec", sl_kube_child(tmpl, "spec"));
    json_t *ps = json_object_get(pod, "spec");
    bool had_rp = json_object_get(ps, "restartPolicy") != NULL;
    static const char *const pod_only[] = {"serviceAccountName", "serviceAccount", "priority",
                                           "preemptionPolicy", "enableServiceLinks"};
    bool had[5];
    for (int i = 0; i < 5; i++)
        had[i] = json_object_get(ps, pod_only[i]) != NULL;
    sl_pod_apply_defaults(pod);
    for (int i = 0; i < 5; i++)
        if (!had[i])
            json_object_del(ps, pod_only[i]);
    /* SetDefaults_PodSpec sets Always, which ValidateJob then refuses
     * with its own text; keep it so the refusal names it as kube does */
    if (!had_rp)
        json_object_set_new(ps, "restartPolicy", json_string("Always"));
    json_decref(pod);
}

static void job_defaults(json_t *job)
{
    json_t *spec = sl_kube_child(job, "spec");
    bool no_c = !json_is_integer(json_object_get(spec, "completions"));
    bool no_p = !json_is_integer(json_object_get(spec, "parallelism"));
    if (no_c && no_p)
        json_object_set_new(spec, "completions", json_integer(1));
    sl_kube_default(spec, "parallelism", json_integer(1));
    sl_kube_default(spec, "backoffLimit",
                    json_integer(json_object_get(spec, "backoffLimitPerIndex") ? 2147483647 : 6));
    sl_kube_default(spec, "completionMode", json_string("NonIndexed"));
    sl_kube_default(spec, "suspend", json_false());
    sl_kube_default(spec, "manualSelector", json_false());
    sl_kube_default(
        spec, "podReplacementPolicy",
        json_string(json_object_get(spec, "podFailurePolicy") ? "Failed" : "TerminatingOrFailed"));
    size_t i;
    json_t *rule;
    json_array_foreach(sl_kube_path(spec, "podFailurePolicy.rules"), i, rule)
    {
        size_t j;
        json_t *pat;
        json_array_foreach(json_object_get(rule, "onPodConditions"), j,
                           pat) if (json_is_object(pat))
            sl_kube_default(pat, "status", json_string("True"));
    }
    api_job_template_defaults(spec);
}

/* The Job strategy's PrepareForCreate: status reset, generation 1, the uid
 * (set here, the store keeps it) and generateSelector: the template's
 * job-name and controller-uid labels and the selector on the uid. Then the
 * job's labels are the template's when it has none (SetDefaults_Job, which
 * kube-apiserver also runs when it reads the object back). */
static void job_prepare_create(json_t *job)
{
    json_object_set_new(job, "status", json_object());
    json_object_set_new(sl_kube_meta(job), "generation", json_integer(1));
    if (!sl_kube_uid(job) || !*sl_kube_uid(job)) {
        char uid[37];
        sl_kube_uuid4(uid);
        sl_kube_meta_set_str(job, "uid", uid);
    }
    json_t *spec = sl_kube_child(job, "spec");
    if (json_is_true(json_object_get(spec, "manualSelector")))
        return;
    json_t *tmeta = sl_kube_child(sl_kube_child(spec, "template"), "metadata");
    json_t *labels = sl_kube_child(tmeta, "labels");
    const char *name = sl_kube_name(job), *uid = sl_kube_uid(job);
    for (int i = 0; i < 2; i++) {
        sl_kube_default(labels, job_name_labels[i], json_string(name ? name : ""));
        sl_kube_default(labels, job_uid_labels[i], json_string(uid));
    }
    json_t *ml = sl_kube_child(sl_kube_child(spec, "selector"), "matchLabels");
    sl_kube_default(ml, job_uid_labels[1], json_string(uid));
    json_t *jl = json_object_get(sl_kube_meta(job), "labels");
    /* kube copies at decode time, before the generated labels exist: a name
     * too long for a label is refused under spec.template only */
    if ((!json_is_object(jl) || !json_object_size(jl)) && name && strlen(name) <= 63)
        json_object_set_new(sl_kube_meta(job), "labels", json_deep_copy(labels));
}

static void job_prepare_update(json_t *job, json_t *old)
{
    json_t *s = json_object_get(old, "status");
    if (s)
        json_object_set(job, "status", s);
    else
        json_object_del(job, "status");
    /* a change of spec is a new generation (the strategy's PrepareForUpdate) */
    long long gen = json_integer_value(sl_kube_path(old, "metadata.generation"));
    json_t *ns = json_object_get(job, "spec"), *os = json_object_get(old, "spec");
    json_object_set_new(sl_kube_meta(job), "generation",
                        json_integer(json_equal(ns, os) ? gen : gen + 1));
}

/* a pod module field path rewritten to the template's: "spec.x" →
 * "spec.template.spec.x", "metadata.labels" → "spec.template.labels" (as
 * ValidatePodTemplateSpec names them); NULL for what the template has not
 * (the pod's name) */
static char *template_field(const char *f)
{
    if (!strncmp(f, "spec.", 5) || !strcmp(f, "spec"))
        return sl_xasprintf("spec.template.%s", f);
    if (!strncmp(f, "metadata.labels", 15) || !strncmp(f, "metadata.annotations", 20))
        return sl_xasprintf("spec.template.%s", f + 9);
    return NULL;
}

static void copy_template_errors(const sl_error_t *from, sl_error_t *to)
{
    for (size_t i = 0; i < sl_err_nfields(from); i++) {
        const sl_fielderr_t *e = sl_err_fieldat(from, i);
        char *f = template_field(e->field);
        if (!f)
            continue;
        if (e->vkind == SL_FE_V_INT)
            sl_err_field_int(to, e->type, f, e->ivalue, e->detail);
        else if (e->vkind == SL_FE_V_RAW)
            sl_err_field_raw(to, e->type, f, e->value, e->detail);
        else if (e->vkind == SL_FE_V_STRING)
            sl_err_field(to, e->type, f, e->value, e->detail);
        else
            sl_err_field_none(to, e->type, f, e->detail);
        free(f);
    }
}

/* ValidatePodTemplateSpec: the template as a pod named after the job */
void api_job_validate_template(json_t *job, sl_error_t *err)
{
    json_t *tmpl = sl_kube_path(job, "spec.template");
    json_t *meta = json_deep_copy(json_object_get(tmpl, "metadata"));
    if (!json_is_object(meta)) {
        json_decref(meta);
        meta = json_object();
    }
    json_object_set_new(meta, "name", json_string("job-template"));
    json_t *pod = json_pack("{s:s, s:s, s:o, s:O?}", "apiVersion", "v1", "kind", "Pod", "metadata",
                            meta, "spec", json_object_get(tmpl, "spec"));
    sl_error_t perr = SL_ERROR_INIT;
    sl_pod_t *p = sl_pod_parse(pod, &perr);
    if (p)
        sl_translate_validate(p, NULL, &perr);
    sl_pod_destroy(p);
    copy_template_errors(&perr, err);
    sl_error_clear(&perr);
    json_decref(pod);
}

static void nonnegative(json_t *spec, const char *k, sl_error_t *err)
{
    json_t *v = json_object_get(spec, k);
    char f[64];
    snprintf(f, sizeof(f), "spec.%s", k);
    if (json_is_integer(v) && json_integer_value(v) < 0)
        sl_err_field_int(err, SL_FE_INVALID, f, json_integer_value(v),
                         "must be greater than or equal to 0");
}

static int cmp_strp(const void *a, const void *b)
{
    return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Go's %#v of a map[string]string (sorted keys), as field.Invalid prints one */
char *api_job_go_map(json_t *m)
{
    const char *k;
    json_t *v;
    size_t n = json_object_size(m), i = 0;
    const char **keys = sl_xcalloc(n ? n : 1, sizeof(*keys));
    json_object_foreach(m, k, v) keys[i++] = k;
    qsort(keys, n, sizeof(*keys), cmp_strp);
    sl_buf_t b = SL_BUF_INIT;
    sl_buf_puts(&b, "map[string]string{");
    for (i = 0; i < n; i++)
        sl_buf_printf(&b, "%s\"%s\":\"%s\"", i ? ", " : "", keys[i],
                      json_string_value(json_object_get(m, keys[i])));
    sl_buf_puts(&b, "}");
    free(keys);
    return sl_buf_steal(&b);
}

/* ValidateHasLabel under spec.template.metadata */
static void has_label(json_t *labels, const char *key, const char *want, sl_error_t *err)
{
    char f[160];
    snprintf(f, sizeof(f), "spec.template.metadata.labels[%s]", key);
    const char *got = json_string_value(json_object_get(labels, key));
    if (!got) {
        sl_err_field_none(err, SL_FE_REQUIRED, f, want);
    } else if (strcmp(got, want)) {
        char *m = api_job_go_map(labels), *d = sl_xasprintf("must be '%s'", want);
        sl_err_field_raw(err, SL_FE_INVALID, f, m, d);
        free(m);
        free(d);
    }
}

sl_kube_selector_t *api_job_template_selector(json_t *obj, const char *path,
                                              const char *labels_path, const char *empty_detail,
                                              sl_error_t *err)
{
    json_t *sel = sl_kube_path(obj, path);
    json_t *labels = sl_kube_path(obj, labels_path);
    if (!json_is_object(sel)) {
        sl_err_field_none(err, SL_FE_REQUIRED, path, "");
        return NULL;
    }
    sl_error_t serr = SL_ERROR_INIT;
    sl_kube_selector_t *s = sl_kube_label_selector_from_json(sel, &serr);
    if (!s) {
        sl_err_field(err, SL_FE_INVALID, path, NULL, serr.text);
        sl_error_clear(&serr);
        return NULL;
    }
    if (empty_detail && sl_kube_selector_empty(s)) {
        char *v = json_dumps(sel, JSON_COMPACT | JSON_SORT_KEYS);
        sl_err_field_raw(err, SL_FE_INVALID, path, v, empty_detail);
        free(v);
    } else if (sl_kube_selector_empty(s) || !sl_kube_selector_match_labels(s, labels)) {
        char *m = api_job_go_map(labels);
        sl_err_field_raw(err, SL_FE_INVALID, labels_path, m,
                         "`selector` does not match template `labels`");
        free(m);
    }
    return s;
}

/* the selector: present, valid, matching the template's labels, and (not
 * manual) exactly the generated one (validateGeneratedSelector) */
static void validate_selector(json_t *job, sl_error_t *err)
{
    json_t *spec = json_object_get(job, "spec");
    sl_kube_selector_t *s =
        api_job_template_selector(job, "spec.selector", "spec.template.metadata.labels", NULL, err);
    if (!s)
        return;
    if (!json_is_true(json_object_get(spec, "manualSelector"))) {
        json_t *labels = sl_kube_path(job, "spec.template.metadata.labels");
        const char *uid = sl_kube_uid(job), *name = sl_kube_name(job);
        for (int i = 0; i < 2; i++) {
            has_label(labels, job_uid_labels[i], uid ? uid : "", err);
            has_label(labels, job_name_labels[i], name ? name : "", err);
        }
        char *text = sl_kube_selector_string(s),
             *want = sl_xasprintf("%s=%s", job_uid_labels[1], uid ? uid : "");
        if (strcmp(text, want))
            sl_err_field_raw(err, SL_FE_INVALID, "spec.selector", text,
                             "`selector` not auto-generated");
        free(text);
        free(want);
    }
    sl_kube_selector_destroy(s);
}

static long long ival(json_t *spec, const char *k, long long dflt)
{
    json_t *v = json_object_get(spec, k);
    return json_is_integer(v) ? json_integer_value(v) : dflt;
}

static void validate_mode(json_t *spec, sl_error_t *err)
{
    static const char *const modes[] = {"NonIndexed", "Indexed", NULL};
    const char *mode = json_string_value(json_object_get(spec, "completionMode"));
    if (mode && strcmp(mode, "NonIndexed") && strcmp(mode, "Indexed"))
        sl_err_not_supported(err, mode, modes, "spec.completionMode");
    bool indexed = mode && !strcmp(mode, "Indexed");
    if (indexed && !json_is_integer(json_object_get(spec, "completions")))
        sl_err_field_none(err, SL_FE_REQUIRED, "spec.completions",
                          "when completion mode is Indexed");
    long long par = ival(spec, "parallelism", 1);
    if (indexed && par > JOB_MAX_INDEXED_PARALLELISM)
        sl_err_field_int(err, SL_FE_INVALID, "spec.parallelism", par,
                         "must be less than or equal to 100000 when completion mode is Indexed");
    static const char *const per_index[] = {"backoffLimitPerIndex", "maxFailedIndexes"};
    for (int i = 0; i < 2 && !indexed; i++)
        if (json_is_integer(json_object_get(spec, per_index[i]))) {
            char f[64];
            snprintf(f, sizeof(f), "spec.%s", per_index[i]);
            sl_err_field_int(err, SL_FE_INVALID, f, ival(spec, per_index[i], 0),
                             "requires indexed completion mode");
        }
    if (json_is_integer(json_object_get(spec, "maxFailedIndexes")) &&
        !json_is_integer(json_object_get(spec, "backoffLimitPerIndex")))
        sl_err_field_none(err, SL_FE_REQUIRED, "spec.backoffLimitPerIndex",
                          "when maxFailedIndexes is specified");
}

/* validateJobSpec's restartPolicy rule (SetDefaults_PodSpec's Always is
 * refused with "Required value", as kube does) */
static void validate_restart_policy(json_t *spec, sl_error_t *err)
{
    static const char *const rps[] = {"OnFailure", "Never", NULL};
    const char *rp = sl_kube_path_str(spec, "template.spec.restartPolicy");
    const char *f = "spec.template.spec.restartPolicy";
    if (!rp || !*rp || !strcmp(rp, "Always"))
        sl_err_field_none(err, SL_FE_REQUIRED, f, "valid values: \"OnFailure\", \"Never\"");
    else if (strcmp(rp, "OnFailure") && strcmp(rp, "Never"))
        sl_err_not_supported(err, rp, rps, "%s", f);
    else if (json_object_get(spec, "podFailurePolicy") && strcmp(rp, "Never"))
        sl_err_field(err, SL_FE_INVALID, f, rp,
                     "only \"Never\" is supported when podFailurePolicy is specified");
}

void api_job_validate_spec(json_t *job, sl_error_t *err)
{
    json_t *spec = json_object_get(job, "spec");
    static const char *const counts[] = {"parallelism",
                                         "completions",
                                         "activeDeadlineSeconds",
                                         "backoffLimit",
                                         "ttlSecondsAfterFinished",
                                         "backoffLimitPerIndex",
                                         "maxFailedIndexes"};
    for (size_t i = 0; i < sizeof(counts) / sizeof(counts[0]); i++)
        nonnegative(spec, counts[i], err);
    validate_mode(spec, err);
    api_job_validate_template(job, err);
    validate_restart_policy(spec, err);
}

static void validate_spec(json_t *job, sl_error_t *err)
{
    api_job_validate_spec(job, err);
    validate_selector(job, err);
}

static int job_validate(json_t *job, sl_error_t *err)
{
    api_validate_meta(job, false, err);
    validate_spec(job, err);
    return api_fields_result(err);
}

/* ValidateJobUpdate's immutable fields (the template may change only while
 * the job is suspended and has not started, completions only with an
 * equal parallelism in Indexed mode: slurmlink allows neither, and says so
 * in kube's words) */
static int job_validate_update(json_t *job, json_t *old, sl_error_t *err)
{
    job_validate(job, err);
    static const char *const fixed[] = {"selector",      "completionMode",   "template",
                                        "completions",   "podFailurePolicy", "backoffLimitPerIndex",
                                        "successPolicy", "managedBy"};
    for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
        json_t *a = sl_kube_path(job, "spec"), *b = sl_kube_path(old, "spec");
        json_t *x = json_object_get(a, fixed[i]), *y = json_object_get(b, fixed[i]);
        if ((x || y) && !(x && y && json_equal(x, y))) {
            char f[64];
            snprintf(f, sizeof(f), "spec.%s", fixed[i]);
            char *v = x ? json_dumps(x, JSON_ENCODE_ANY | JSON_COMPACT) : NULL;
            sl_err_field_raw(err, SL_FE_INVALID, f, v ? v : "null", "field is immutable");
            free(v);
        }
    }
    return api_fields_result(err);
}

/* jobs/status (admins and the controller): counts are never negative */
static int job_validate_status(json_t *job, json_t *old, sl_error_t *err)
{
    (void)old;
    json_t *st = json_object_get(job, "status");
    static const char *const counts[] = {"active", "succeeded", "failed", "ready", "terminating"};
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

const api_kind_ops_t api_job_ops = {
    .decode_check = job_decode,
    .defaults = job_defaults,
    .prepare_create = job_prepare_create,
    .prepare_update = job_prepare_update,
    .validate_create = job_validate,
    .validate_update = job_validate_update,
    .validate_status = job_validate_status,
    .table_columns = api_job_columns,
    .table_cells = api_job_cells,
};
