/* src/kinds/cronjob/controller.c — the CronJob controller, as kube-controller-manager's
 * cronjob controller (v2, 1.32) keeps a batch/v1 CronJob:
 *
 *   - its Jobs are those whose controller ownerReference is the CronJob;
 *     status.active loses finished ones (event SawCompletedJob) and missing
 *     ones (MissingJob); lastSuccessfulTime follows the Complete ones;
 *   - not suspended, a valid schedule and zone (else UnknownTimeZone,
 *     UnparseableSchedule; a TZ= in the schedule: UnsupportedSchedule; one
 *     that parses but whose times are not a rounded minute apart, or never
 *     come: InvalidSchedule): the most recent schedule
 *     time not yet run (mostRecentScheduleTime: from lastScheduleTime, or
 *     creation, or now - startingDeadlineSeconds; more than 100 missed:
 *     TooManyMissedTimes and only the latest), too late for
 *     startingDeadlineSeconds: MissSchedule; concurrencyPolicy Forbid with
 *     one active: JobAlreadyActive; Replace: the active ones deleted
 *     (SuccessfulDelete); then the Job `<cronjob>-<minutes since epoch>`,
 *     owned by the CronJob (controller=true), annotated
 *     batch.kubernetes.io/cronjob-scheduled-timestamp in the CronJob's
 *     zone (SuccessfulCreate); the name is the lock against a second Job
 *     for one schedule time, across restarts too;
 *   - finished Jobs beyond successfulJobsHistoryLimit / failedJobsHistoryLimit
 *     deleted, oldest first (their pods with them, src/kinds/job/controller.c);
 *   - a deleted CronJob's Jobs deleted (background), orphaned (finalizer
 *     orphan) or deleted first (foregroundDeletion), as the garbage
 *     collector does.
 *
 * Its Events come from component cronjob-controller, as kube's.
 * A Job is created the way the API creates one: the Job kind's defaults,
 * strategy and validation (src/kinds/job/api.c) run on it before it is stored.
 * The clock is the real one; the test build may shift it
 * (sl_fault_clock_offset, src/common/fault.h). */
#include "kinds/cronjob/controller.h"
#include "api/resource.h"
#include "common/fault.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "ctl/internal.h"
#include "events/events.h"
#include "kube/cron.h"
#include "kube/meta.h"
#include "pod/pod.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define ANN_SCHEDULED "batch.kubernetes.io/cronjob-scheduled-timestamp"
#define MANY_MISSED 100
#define MOST_RECENT_INVALID (-2)

/* an Event on the CronJob, reported as kube's CronJob controller reports
 * its own (source.component and reportingComponent cronjob-controller) */
static void __attribute__((format(printf, 5, 6)))
cj_event(sl_ctl_t *c, json_t *cj, const char *type, const char *reason, const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof(msg), fmt, ap);
    va_end(ap);
    sl_event_record(c->store, cj, type, reason, msg, "cronjob-controller");
}

/* Go's time.RFC1123Z of t in UTC ("Mon, 02 Jan 2006 15:04:05 +0000"), as
 * kube's MissSchedule says the time; English names whatever the locale */
static void rfc1123z(int64_t t, char *out, size_t len)
{
    static const char *const day[] = {"Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"};
    static const char *const mon[] = {"Jan", "Feb", "Mar", "Apr", "May", "Jun",
                                      "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"};
    time_t tt = (time_t)t;
    struct tm tm;
    gmtime_r(&tt, &tm);
    snprintf(out, len, "%s, %02d %s %04d %02d:%02d:%02d +0000", day[tm.tm_wday], tm.tm_mday,
             mon[tm.tm_mon], tm.tm_year + 1900, tm.tm_hour, tm.tm_min, tm.tm_sec);
}

static int64_t cron_now(void) { return sl_kube_now_ns() / 1000000000LL + sl_fault_clock_offset(); }

static int64_t ts_of(json_t *o, const char *path)
{
    int64_t ns = 0;
    const char *s = sl_kube_path_str(o, path);
    return s && sl_kube_parse_rfc3339(s, &ns) == 0 ? ns / 1000000000LL : -1;
}

static char *rfc3339(int64_t s) { return sl_kube_rfc3339(s * 1000000000LL, 0); }

static bool job_condition(json_t *job, const char *type)
{
    return sl_kube_condition_true(sl_kube_path(job, "status.conditions"), type);
}

/* IsJobFinished: the condition's type, or NULL while it runs */
static const char *finished(json_t *job)
{
    return job_condition(job, "Complete") ? "Complete"
           : job_condition(job, "Failed") ? "Failed"
                                          : NULL;
}

/* the Jobs of ns whose controller ownerReference is cj */
static json_t *owned_jobs(json_t *all, json_t *cj)
{
    json_t *out = json_array();
    size_t i, k;
    json_t *job, *r;
    json_array_foreach(all, i, job)
    {
        if (strcmp(sl_kube_namespace(job), sl_kube_namespace(cj)))
            continue;
        json_array_foreach(sl_kube_path(job, "metadata.ownerReferences"), k, r)
        {
            const char *uid = json_string_value(json_object_get(r, "uid"));
            if (json_is_true(json_object_get(r, "controller")) && uid &&
                !strcmp(uid, sl_kube_uid(cj)))
                json_array_append(out, job);
        }
    }
    return out;
}

static json_t *by_uid(json_t *jobs, const char *uid)
{
    size_t i;
    json_t *j;
    json_array_foreach(jobs, i, j) if (uid && !strcmp(sl_kube_uid(j), uid)) return j;
    return NULL;
}

static void active_remove(json_t *st, const char *uid)
{
    json_t *act = json_object_get(st, "active");
    size_t i;
    json_t *r;
    json_array_foreach(act, i, r)
    {
        const char *u = json_string_value(json_object_get(r, "uid"));
        if (u && !strcmp(u, uid)) {
            json_array_remove(act, i);
            return;
        }
    }
}

static bool in_active(json_t *st, const char *key, const char *value)
{
    size_t i;
    json_t *r;
    json_array_foreach(json_object_get(st, "active"), i, r)
    {
        const char *v = json_string_value(json_object_get(r, key));
        if (v && !strcmp(v, value))
            return true;
    }
    return false;
}

/* Whether an event that a pass would repeat (the controller looks at every
 * CronJob about once a second, and each event written wakes it again) is
 * new: once per CronJob, reason and what it is about (a schedule time, a
 * Job, the spec's generation), as kube's controller, which looks again only
 * at the next schedule time, sends it. Controller thread only; bounded. */
static bool first_time(json_t *cj, const char *reason, const char *about)
{
    static json_t *said;
    if (!said || json_object_size(said) > 4096) {
        json_decref(said);
        said = json_object();
    }
    char *key = sl_xasprintf("%s|%s|%s", sl_kube_uid(cj), reason, about);
    bool fresh = !json_object_get(said, key);
    if (fresh)
        json_object_set_new(said, key, json_true());
    free(key);
    return fresh;
}

static const char *gen_of(json_t *cj, char *buf, size_t len)
{
    snprintf(buf, len, "gen %lld",
             (long long)json_integer_value(sl_kube_path(cj, "metadata.generation")));
    return buf;
}

static const char *sched_of(int64_t sched, char *buf, size_t len)
{
    snprintf(buf, len, "%lld", (long long)sched);
    return buf;
}

/* the active list against the Jobs there are; lastSuccessfulTime */
static void reconcile_active(sl_ctl_t *c, json_t *cj, json_t *st, json_t *jobs)
{
    json_t *act = json_object_get(st, "active");
    size_t i;
    json_t *job;
    json_array_foreach(jobs, i, job)
    {
        const char *cond = finished(job);
        bool found = in_active(st, "uid", sl_kube_uid(job));
        if (!found && !cond && first_time(cj, "UnexpectedJob", sl_kube_uid(job)))
            cj_event(c, cj, "Warning", "UnexpectedJob",
                     "Saw a job that the controller did not create or forgot: %s",
                     sl_kube_name(job));
        if (found && cond) {
            active_remove(st, sl_kube_uid(job));
            cj_event(c, cj, "Normal", "SawCompletedJob", "Saw completed job: %s, condition: %s",
                     sl_kube_name(job), cond);
        }
        int64_t done = ts_of(job, "status.completionTime");
        if (cond && !strcmp(cond, "Complete") && done >= 0 &&
            done > ts_of(st, "lastSuccessfulTime")) {
            char *t = rfc3339(done);
            json_object_set_new(st, "lastSuccessfulTime", json_string(t));
            free(t);
        }
    }
    for (i = json_array_size(act); i-- > 0;) {
        json_t *r = json_array_get(act, i);
        const char *uid = json_string_value(json_object_get(r, "uid"));
        if (!by_uid(jobs, uid)) {
            cj_event(c, cj, "Normal", "MissingJob", "Active job went missing: %s",
                     json_string_value(json_object_get(r, "name")));
            json_array_remove(act, i);
        }
    }
}

/* the schedule the controller runs: TZ=<timeZone> before it (formatSchedule) */
static sl_cron_t *schedule_of(sl_ctl_t *c, json_t *cj)
{
    const char *s = sl_kube_path_str(cj, "spec.schedule"),
               *tz = sl_kube_path_str(cj, "spec.timeZone");
    char why[256];
    char g[32];
    if (tz && sl_cron_zone_check(tz, why, sizeof(why)) < 0) {
        if (first_time(cj, "UnknownTimeZone", gen_of(cj, g, sizeof(g))))
            cj_event(c, cj, "Warning", "UnknownTimeZone", "invalid timeZone: \"%s\": %s", tz, why);
        return NULL;
    }
    if (s && strstr(s, "TZ") && first_time(cj, "UnsupportedSchedule", gen_of(cj, g, sizeof(g))))
        cj_event(c, cj, "Warning", "UnsupportedSchedule",
                 "CRON_TZ or TZ used in schedule \"%s\" is not officially supported, see "
                 "https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/ for more "
                 "details",
                 s);
    char *spec =
        tz && s && !strstr(s, "TZ") ? sl_xasprintf("TZ=%s %s", tz, s) : sl_xstrdup(s ? s : "");
    sl_error_t err = SL_ERROR_INIT;
    sl_cron_t *cr = sl_cron_parse(spec, &err);
    if (!cr && first_time(cj, "UnparseableSchedule", gen_of(cj, g, sizeof(g))))
        cj_event(c, cj, "Warning", "UnparseableSchedule", "unparseable schedule: \"%s\" : %s",
                 s ? s : "", err.text);
    free(spec);
    return cr;
}

/* mostRecentScheduleTime (with startingDeadlineSeconds): -1 for none due,
 * MOST_RECENT_INVALID when two schedule times are not a rounded minute
 * apart or there is none (kube's error: "59 23 31 2 *" parses); *many
 * when more than 100 were missed */
static int64_t most_recent(json_t *cj, json_t *st, const sl_cron_t *cr, int64_t now, bool *many)
{
    int64_t earliest = ts_of(cj, "metadata.creationTimestamp");
    int64_t last = ts_of(st, "lastScheduleTime");
    if (last >= 0)
        earliest = last;
    json_t *d = sl_kube_path(cj, "spec.startingDeadlineSeconds");
    if (json_is_integer(d) && now - json_integer_value(d) > earliest)
        earliest = now - json_integer_value(d);
    *many = false;
    int64_t t1 = sl_cron_next(cr, earliest), t2 = t1 < 0 ? -1 : sl_cron_next(cr, t1);
    if (t1 >= 0 && now < t1)
        return -1;
    if (t1 >= 0 && t2 >= 0 && now < t2)
        return t1;
    int64_t between = (t2 - t1 + 30) / 60 * 60; /* Round(time.Minute) */
    if (t1 < 0 || t2 < 0 || between < 1)
        return MOST_RECENT_INVALID;
    int64_t missed = (now - t1) / between + 1, recent = -1;
    for (int64_t t = sl_cron_next(cr, t1 + (missed - 2) * between); t >= 0 && t <= now;
         t = sl_cron_next(cr, t))
        recent = t;
    *many = missed > MANY_MISSED;
    return recent;
}

/* deleteJob: background propagation (src/kinds/job/controller.c deletes its pods with it) */
static bool delete_job(sl_ctl_t *c, json_t *cj, json_t *st, json_t *job)
{
    sl_error_t err = SL_ERROR_INIT;
    if (sl_store_delete(c->store, "jobs.batch", sl_kube_namespace(job), sl_kube_name(job), 0, NULL,
                        &err) < 0 &&
        errno != ENOENT) {
        if (first_time(cj, "FailedDelete", sl_kube_uid(job)))
            cj_event(c, cj, "Warning", "FailedDelete", "Deleted job: %s", err.text);
        return false;
    }
    active_remove(st, sl_kube_uid(job));
    cj_event(c, cj, "Normal", "SuccessfulDelete", "Deleted job %s", sl_kube_name(job));
    return true;
}

/* getJobFromTemplate2, then the API's defaults, strategy and validation */
static json_t *job_from_template(json_t *cj, int64_t sched)
{
    json_t *tmpl = sl_kube_path(cj, "spec.jobTemplate");
    json_t *meta = json_object(), *jmeta = json_object_get(tmpl, "metadata");
    char *name = sl_xasprintf("%s-%lld", sl_kube_name(cj), (long long)(sched / 60));
    json_t *labels = json_object_get(jmeta, "labels"), *ann = json_object_get(jmeta, "annotations");
    json_object_set_new(meta, "name", json_string(name));
    json_object_set_new(meta, "namespace", json_string(sl_kube_namespace(cj)));
    if (json_is_object(labels))
        json_object_set_new(meta, "labels", json_deep_copy(labels));
    json_object_set_new(meta, "annotations",
                        json_is_object(ann) ? json_deep_copy(ann) : json_object());
    /* the server-owned annotations are the server's here too: the template's
     * are dropped, and the Job runs as the CronJob's creator */
    json_t *ja = json_object_get(meta, "annotations");
    static const char *const owned[] = {SL_ANN_USER, SL_ANN_JOB_ID, SL_ANN_JOB_UID,
                                        SL_ANN_ARRAY_TASK};
    for (size_t i = 0; i < sizeof(owned) / sizeof(owned[0]); i++)
        json_object_del(ja, owned[i]);
    const char *user = sl_kube_annotation(cj, SL_ANN_USER);
    if (user)
        json_object_set_new(ja, SL_ANN_USER, json_string(user));
    const char *tz = sl_kube_path_str(cj, "spec.timeZone");
    char *zs = sl_xasprintf("TZ=%s * * * * *", tz ? tz : "UTC");
    sl_cron_t *zone = sl_cron_parse(zs, NULL);
    char *when = zone ? sl_cron_rfc3339(zone, sched) : rfc3339(sched);
    json_object_set_new(json_object_get(meta, "annotations"), ANN_SCHEDULED, json_string(when));
    json_object_set_new(meta, "ownerReferences",
                        json_pack("[{s:s, s:s, s:s, s:s, s:b, s:b}]", "apiVersion", "batch/v1",
                                  "kind", "CronJob", "name", sl_kube_name(cj), "uid",
                                  sl_kube_uid(cj), "controller", 1, "blockOwnerDeletion", 1));
    json_t *spec = json_object_get(tmpl, "spec");
    json_t *job =
        json_pack("{s:s, s:s, s:o, s:o}", "apiVersion", "batch/v1", "kind", "Job", "metadata", meta,
                  "spec", json_is_object(spec) ? json_deep_copy(spec) : json_object());
    api_job_ops.defaults(job);
    api_job_ops.prepare_create(job);
    free(name);
    free(zs);
    free(when);
    sl_cron_free(zone);
    return job;
}

/* CreateJob: 1 created (or already there, ours, not yet active), 0 nothing to add, -1 failed */
static int create_job(sl_ctl_t *c, json_t *cj, int64_t sched, json_t **out)
{
    json_t *job = job_from_template(cj, sched);
    sl_error_t err = SL_ERROR_INIT;
    int rc = api_job_ops.validate_create(job, &err);
    if (rc == 0)
        rc = sl_store_create(c->store, "jobs.batch", job, &err);
    if (rc < 0 && errno == EEXIST) {
        json_t *cur =
            sl_store_get(c->store, "jobs.batch", sl_kube_namespace(cj), sl_kube_name(job));
        json_t *one = json_pack("[O?]", cur), *mine = owned_jobs(one, cj);
        bool ours = cur && json_array_size(mine);
        json_decref(mine);
        json_decref(one);
        json_decref(job);
        *out = ours ? cur : NULL;
        if (!ours)
            json_decref(cur);
        sl_error_clear(&err);
        return ours ? 1 : 0;
    }
    char k[32];
    if (rc < 0) {
        if (first_time(cj, "FailedCreate", sched_of(sched, k, sizeof(k))))
            cj_event(c, cj, "Warning", "FailedCreate", "Error creating job: %s", err.text);
        sl_error_clear(&err);
        json_decref(job);
        return -1;
    }
    cj_event(c, cj, "Normal", "SuccessfulCreate", "Created job %s", sl_kube_name(job));
    *out = job;
    return 1;
}

/* the Job of the schedule time due, if the policies let it start */
static void run_due(sl_ctl_t *c, json_t *cj, json_t *st, json_t *jobs, int64_t sched)
{
    char *name = sl_xasprintf("%s-%lld", sl_kube_name(cj), (long long)(sched / 60));
    bool done = in_active(st, "name", name) || ts_of(st, "lastScheduleTime") == sched;
    free(name);
    const char *policy = sl_kube_path_str(cj, "spec.concurrencyPolicy");
    size_t nact = json_array_size(json_object_get(st, "active"));
    if (done)
        return;
    char k[32];
    if (policy && !strcmp(policy, "Forbid") && nact) {
        if (first_time(cj, "JobAlreadyActive", sched_of(sched, k, sizeof(k))))
            cj_event(
                c, cj, "Normal", "JobAlreadyActive",
                "Not starting job because prior execution is running and concurrency policy is "
                "Forbid");
        return;
    }
    if (policy && !strcmp(policy, "Replace"))
        for (size_t i = json_array_size(json_object_get(st, "active")); i-- > 0;) {
            json_t *r = json_array_get(json_object_get(st, "active"), i);
            json_t *job = by_uid(jobs, json_string_value(json_object_get(r, "uid")));
            if (job && !delete_job(c, cj, st, job))
                return;
        }
    json_t *job = NULL;
    if (create_job(c, cj, sched, &job) <= 0)
        return;
    char rv[32];
    snprintf(rv, sizeof(rv), "%lld", (long long)sl_kube_rv(job));
    if (!in_active(st, "uid", sl_kube_uid(job)))
        json_array_append_new(json_object_get(st, "active"),
                              json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "kind", "Job",
                                        "namespace", sl_kube_namespace(job), "name",
                                        sl_kube_name(job), "uid", sl_kube_uid(job), "apiVersion",
                                        "batch/v1", "resourceVersion", rv));
    char *t = rfc3339(sched);
    json_object_set_new(st, "lastScheduleTime", json_string(t));
    free(t);
    json_decref(job);
}

/* the schedule: the time due, the deadline, then run_due */
static void schedule(sl_ctl_t *c, json_t *cj, json_t *st, json_t *jobs)
{
    if (json_is_true(sl_kube_path(cj, "spec.suspend")))
        return;
    sl_cron_t *cr = schedule_of(c, cj);
    if (!cr)
        return;
    int64_t now = cron_now();
    bool many = false;
    int64_t sched = most_recent(cj, st, cr, now, &many);
    sl_cron_free(cr);
    char g[32];
    if (sched == MOST_RECENT_INVALID && first_time(cj, "InvalidSchedule", gen_of(cj, g, sizeof(g))))
        cj_event(c, cj, "Warning", "InvalidSchedule",
                 "invalid schedule: %s : time difference between two schedules is less than 1 "
                 "second",
                 sl_kube_path_str(cj, "spec.schedule"));
    if (sched < 0)
        return;
    char k[32];
    if (many && first_time(cj, "TooManyMissedTimes", sched_of(sched, k, sizeof(k))))
        cj_event(c, cj, "Warning", "TooManyMissedTimes",
                 "too many missed start times. Set or decrease .spec.startingDeadlineSeconds or "
                 "check clock skew");
    json_t *d = sl_kube_path(cj, "spec.startingDeadlineSeconds");
    if (json_is_integer(d) && sched + json_integer_value(d) < now) {
        char t[40];
        rfc1123z(sched, t, sizeof(t));
        if (first_time(cj, "MissSchedule", t))
            cj_event(c, cj, "Warning", "MissSchedule", "Missed scheduled time to start a job: %s",
                     t);
        return;
    }
    run_due(c, cj, st, jobs, sched);
}

static int cmp_start(const void *a, const void *b)
{
    json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    int64_t sx = ts_of(x, "status.startTime"), sy = ts_of(y, "status.startTime");
    if ((sx < 0) != (sy < 0))
        return sx < 0 ? 1 : -1;
    if (sx != sy)
        return sx < sy ? -1 : 1;
    return strcmp(sl_kube_name(x), sl_kube_name(y));
}

/* removeOldestJobs of one kind (Complete or Failed) beyond the limit */
static void cleanup(sl_ctl_t *c, json_t *cj, json_t *st, json_t *jobs, const char *cond,
                    const char *limit_key)
{
    json_t *lim = sl_kube_path(cj, limit_key);
    if (!json_is_integer(lim))
        return;
    size_t n = 0, i;
    json_t *job, **v = sl_xcalloc(json_array_size(jobs) + 1, sizeof(*v));
    json_array_foreach(jobs, i, job)
    {
        const char *f = finished(job);
        if (f && !strcmp(f, cond))
            v[n++] = job;
    }
    qsort(v, n, sizeof(*v), cmp_start);
    for (i = 0; (long long)(n - i) > json_integer_value(lim); i++)
        delete_job(c, cj, st, v[i]);
    free(v);
}

typedef struct status_arg {
    const char *uid;
    json_t *status;
} status_arg_t;

static int status_fn(json_t *cj, void *arg)
{
    status_arg_t *a = arg;
    if (strcmp(sl_kube_uid(cj) ? sl_kube_uid(cj) : "", a->uid)) {
        errno = ENOENT;
        return -1;
    }
    if (json_equal(json_object_get(cj, "status"), a->status))
        return 0;
    json_object_set(cj, "status", a->status);
    return 1;
}

static void write_status(sl_ctl_t *c, json_t *cj, json_t *st)
{
    if (!json_array_size(json_object_get(st, "active")))
        json_object_del(st, "active");
    status_arg_t a = {sl_kube_uid(cj), st};
    sl_store_mutate(c->store, "cronjobs.batch", sl_kube_namespace(cj), sl_kube_name(cj), status_fn,
                    &a, NULL, NULL);
}

static void sync_cronjob(sl_ctl_t *c, json_t *cj, json_t *all)
{
    json_t *jobs = owned_jobs(all, cj);
    if (sl_kube_meta_str(cj, "deletionTimestamp")) {
        ctl_cronjob_finalize(c, cj, jobs);
        json_decref(jobs);
        return;
    }
    json_t *old = json_object_get(cj, "status");
    json_t *st = json_is_object(old) ? json_deep_copy(old) : json_object();
    if (!json_is_array(json_object_get(st, "active")))
        json_object_set_new(st, "active", json_array());
    reconcile_active(c, cj, st, jobs);
    schedule(c, cj, st, jobs);
    cleanup(c, cj, st, jobs, "Complete", "spec.successfulJobsHistoryLimit");
    cleanup(c, cj, st, jobs, "Failed", "spec.failedJobsHistoryLimit");
    write_status(c, cj, st);
    json_decref(st);
    json_decref(jobs);
}

/* a CronJob deleted: its Jobs go too (the change log's DELETED) */
void ctl_cronjob_removed(sl_ctl_t *c, json_t *cj)
{
    json_t *all = sl_store_list(c->store, "jobs.batch", sl_kube_namespace(cj), NULL);
    json_t *jobs = owned_jobs(all, cj);
    ctl_cronjob_gone(c, cj, jobs);
    json_decref(jobs);
    json_decref(all);
}

/* every CronJob of the pass against one read of the Jobs */
void ctl_cronjobs_reconcile(sl_ctl_t *c, json_t *cjs)
{
    json_t *all = sl_store_list(c->store, "jobs.batch", NULL, NULL);
    size_t i;
    json_t *cj;
    json_array_foreach(cjs, i, cj) sync_cronjob(c, cj, all);
    json_decref(all);
}
