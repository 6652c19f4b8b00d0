/* src/kinds/cronjob/api.c — the batch/v1 CronJob's hooks: strict decoding,
 * kube-apiserver's defaults (SetDefaults_CronJob; SetDefaults_PodSpec on
 * the Job template's pod template), validation with ValidateCronJobCreate's
 * and ValidateCronJobUpdate's texts (the schedule as cron.ParseStandard
 * reads it, src/kube/cron.c; the Job template through validateJobSpec of
 * src/kinds/job/api.c), the status subresource, and printCronJob's Table.
 * The controller that creates the Jobs on schedule is src/kinds/cronjob/controller.c. */
#include "api/internal.h"
#include "api/printers.h"
#include "common/buf.h"
#include "common/err.h"
#include "common/xalloc.h"
#include "kinds/job/job.h"
#include "kube/cron.h"
#include "kube/meta.h"
#include "pod/schema.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int cronjob_decode(json_t *cj, json_t *unknown, json_t *warnings, sl_error_t *err)
{
    (void)err;
    api_schema_unknown("CronJob", cj, unknown);
    json_t *tmpl = sl_kube_path(cj, "spec.jobTemplate.spec.template");
    if (!json_is_object(tmpl))
        return 0;
    json_t *pod = json_pack("{s:O?}", "spec", json_object_get(tmpl, "spec"));
    size_t n = 0;
    char **w = sl_schema_pod_warnings(pod, &n);
    for (size_t i = 0; w && i < n; i++) {
        char *t = sl_xasprintf("spec.jobTemplate.spec.template.%s", w[i]);
        json_array_append_new(warnings, json_string(t));
        free(t);
    }
    sl_strv_free(w);
    json_decref(pod);
    return 0;
}

static void cronjob_defaults(json_t *cj)
{
    json_t *spec = sl_kube_child(cj, "spec");
    sl_kube_default(spec, "concurrencyPolicy", json_string("Allow"));
    sl_kube_default(spec, "suspend", json_false());
    sl_kube_default(spec, "successfulJobsHistoryLimit", json_integer(3));
    sl_kube_default(spec, "failedJobsHistoryLimit", json_integer(1));
    api_job_template_defaults(sl_kube_child(sl_kube_child(spec, "jobTemplate"), "spec"));
}

static void cronjob_prepare_create(json_t *cj)
{
    json_object_set_new(cj, "status", json_object());
    json_object_set_new(sl_kube_meta(cj), "generation", json_integer(1));
    if (!sl_kube_uid(cj) || !*sl_kube_uid(cj)) {
        char uid[37];
        sl_kube_uuid4(uid);
        sl_kube_meta_set_str(cj, "uid", uid);
    }
}

static void cronjob_prepare_update(json_t *cj, json_t *old)
{
    json_t *s = json_object_get(old, "status");
    if (s)
        json_object_set(cj, "status", s);
    else
        json_object_del(cj, "status");
    long long gen = json_integer_value(sl_kube_path(old, "metadata.generation"));
    json_t *ns = json_object_get(cj, "spec"), *os = json_object_get(old, "spec");
    json_object_set_new(sl_kube_meta(cj), "generation",
                        json_integer(json_equal(ns, os) ? gen : gen + 1));
}

/* validateScheduleFormat: TZ in the schedule only where the old one had it */
static void validate_schedule(json_t *spec, json_t *old_spec, sl_error_t *err)
{
    const char *s = json_string_value(json_object_get(spec, "schedule"));
    if (!s || !*s) {
        sl_err_field_none(err, SL_FE_REQUIRED, "spec.schedule", "");
        return;
    }
    sl_error_t perr = SL_ERROR_INIT;
    sl_cron_t *c = sl_cron_parse(s, &perr);
    if (!c)
        sl_err_field(err, SL_FE_INVALID, "spec.schedule", s, perr.text);
    sl_cron_free(c);
    const char *olds = json_string_value(json_object_get(old_spec, "schedule"));
    bool allow_tz = olds && strstr(olds, "TZ");
    bool tz = strstr(s, "TZ") != NULL;
    if (allow_tz && tz && json_is_string(json_object_get(spec, "timeZone")))
        sl_err_field(err, SL_FE_INVALID, "spec.schedule", s,
                     "cannot use both timeZone field and TZ or CRON_TZ in schedule");
    else if (!allow_tz && tz)
        sl_err_field(err, SL_FE_INVALID, "spec.schedule", s,
                     "cannot use TZ or CRON_TZ in schedule, use timeZone field instead");
}

/* validateTimeZone (validTimeZoneCharacters per part, then LoadLocation) */
static void validate_time_zone(json_t *spec, sl_error_t *err)
{
    json_t *v = json_object_get(spec, "timeZone");
    const char *tz = json_string_value(v), *f = "spec.timeZone";
    if (!tz)
        return;
    if (!*tz) {
        sl_err_field(err, SL_FE_INVALID, f, tz, "timeZone must be nil or non-empty string");
        return;
    }
    regex_t re;
    regcomp(&re, "^[A-Za-z._0-9+-]{1,14}$", REG_EXTENDED | REG_NOSUB);
    char *dup = sl_xstrdup(tz), *p = dup;
    bool bad = false;
    for (char *part; (part = strsep(&p, "/")) && !bad;)
        bad = !strcmp(part, ".") || !strcmp(part, "..") || *part == '-' ||
              regexec(&re, part, 0, NULL, 0) != 0;
    regfree(&re);
    free(dup);
    char why[256];
    if (bad) {
        snprintf(why, sizeof(why), "unknown time zone %s", tz);
        sl_err_field(err, SL_FE_INVALID, f, tz, why);
        return;
    }
    if (!strcasecmp(tz, "Local"))
        sl_err_field(err, SL_FE_INVALID, f, tz,
                     "timeZone must be an explicit time zone as defined in "
                     "https://www.iana.org/time-zones");
    if (sl_cron_zone_check(tz, why, sizeof(why)) < 0)
        sl_err_field(err, SL_FE_INVALID, f, tz, why);
}

/* errors of the Job template's check, "spec.x" renamed "spec.jobTemplate.spec.x" */
static void template_errors(const sl_error_t *from, sl_error_t *to)
{
    for (size_t i = 0; i < sl_err_nfields(from); i++) {
        const sl_fielderr_t *e = sl_err_fieldat(from, i);
        char *f = sl_xasprintf("spec.jobTemplate.%s", e->field);
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

/* ValidateJobTemplateSpec: validateJobSpec, and no selector of one's own */
static void validate_job_template(json_t *cj, sl_error_t *err)
{
    json_t *jspec = sl_kube_path(cj, "spec.jobTemplate.spec");
    const char *name = sl_kube_name(cj);
    json_t *job = json_pack("{s:{s:s}, s:O?}", "metadata", "name", name ? name : "", "spec", jspec);
    sl_error_t jerr = SL_ERROR_INIT;
    api_job_validate_spec(job, &jerr);
    template_errors(&jerr, err);
    sl_error_clear(&jerr);
    json_decref(job);
    json_t *sel = json_object_get(jspec, "selector");
    if (sel && !json_is_null(sel)) {
        char *v = json_dumps(sel, JSON_COMPACT);
        sl_err_field_raw(err, SL_FE_INVALID, "spec.jobTemplate.spec.selector", v ? v : "{}",
                         "`selector` will be auto-generated");
        free(v);
    }
    static const char *const ms[] = {"nil", "false", NULL};
    if (json_is_true(json_object_get(jspec, "manualSelector")))
        sl_err_not_supported(err, "true", ms, "spec.jobTemplate.spec.manualSelector");
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

/* validateCronJobSpec */
static void validate_spec(json_t *cj, json_t *old, sl_error_t *err)
{
    json_t *spec = json_object_get(cj, "spec"), *old_spec = sl_kube_path(old, "spec");
    validate_schedule(spec, old_spec, err);
    nonnegative(spec, "startingDeadlineSeconds", err);
    json_t *tz = json_object_get(spec, "timeZone"), *otz = json_object_get(old_spec, "timeZone");
    if (!old || !((!tz && !otz) || (tz && otz && json_equal(tz, otz))))
        validate_time_zone(spec, err);
    static const char *const policies[] = {"Allow", "Forbid", "Replace", NULL};
    const char *cp = json_string_value(json_object_get(spec, "concurrencyPolicy"));
    if (!cp || !*cp)
        sl_err_field_none(err, SL_FE_REQUIRED, "spec.concurrencyPolicy", "");
    else if (strcmp(cp, "Allow") && strcmp(cp, "Forbid") && strcmp(cp, "Replace"))
        sl_err_not_supported(err, cp, policies, "spec.concurrencyPolicy");
    validate_job_template(cj, err);
    nonnegative(spec, "successfulJobsHistoryLimit", err);
    nonnegative(spec, "failedJobsHistoryLimit", err);
}

static int cronjob_validate(json_t *cj, sl_error_t *err)
{
    api_validate_meta(cj, false, err);
    validate_spec(cj, NULL, err);
    const char *name = sl_kube_name(cj);
    /* the controller appends "-" and up to 10 digits: Job names stay labels */
    if (name && strlen(name) > 52)
        sl_err_field(err, SL_FE_INVALID, "metadata.name", name,
                     "must be no more than 52 characters");
    return api_fields_result(err);
}

static int cronjob_validate_update(json_t *cj, json_t *old, sl_error_t *err)
{
    api_validate_meta(cj, false, err);
    validate_spec(cj, old, err);
    return api_fields_result(err);
}

const api_kind_ops_t api_cronjob_ops = {
    .decode_check = cronjob_decode,
    .defaults = cronjob_defaults,
    .prepare_create = cronjob_prepare_create,
    .prepare_update = cronjob_prepare_update,
    .validate_create = cronjob_validate,
    .validate_update = cronjob_validate_update,
    .table_columns = api_cronjob_columns,
    .table_cells = api_cronjob_cells,
};
