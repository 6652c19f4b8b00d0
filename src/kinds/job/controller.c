/* src/kinds/job/controller.c — the Job controller: a batch/v1 Job runs as Slurm job arrays.
 *
 * The indexes a Job still needs (all of them at first, a failed one again
 * while backoffLimit allows) become submission K, recorded on the Job, and
 * are submitted together as ONE array per chunk of MaxArraySize indexes:
 * --array=INDEXES%PARALLELISM, job name namespace/name, comment
 * `slurmlink:uid=JOBUID slurmlink:submission=K.C`. Pods are made lazily, as
 * kube's Job controller makes them (at most parallelism unfinished): one
 * for each of the first tasks before the array, the next when Slurm starts
 * a task that has none. Every task waits for a link to its pod's folder
 * and runs that pod's job.sh (jobtask.h), so from then on the pod is
 * followed like any other (the shim's pushes, the Slurm poll; ctl.c maps a
 * task to its pod by array and task id). The Job's status is recomputed
 * from its pods on every pass.
 *
 * A pod whose image is in a registry is pulled first (src/ctl/pull.c, as for
 * a single pod): the array waits until the first pods' images are there.
 *
 * Never two submissions of one batch: K and its indexes are recorded before
 * any pod or array of it; a pass that finds a chunk of K not recorded as
 * submitted first looks for an array whose comment carries the Job's uid
 * and K.C (submitted before a crash, not recorded) and adopts it.
 *
 * Annotations (the controller's bookkeeping, in the store):
 *   pod  slurmlink.io/job-uid         the Job's uid (server-owned: what ties the
 *                                     pod to the Job's arrays, orphaned or not)
 *        slurmlink.io/job-index       its index (both completion modes)
 *        slurmlink.io/job-submission  K
 *        slurmlink.io/array-task      ARRAY_TASK, once submitted (server-owned)
 *   job  slurmlink.io/job-submissions    the last K
 *        slurmlink.io/submission-indexes its indexes ("0-9")
 *        slurmlink.io/submitted-chunks   its chunks in Slurm ("0,1")
 *        slurmlink.io/slurm-arrays       the arrays submitted, "id,id"
 *        slurmlink.io/array-throttle     the throttle the arrays have */
#include "kinds/job/controller.h"
#include "common/argv.h"
#include "common/buf.h"
#include "common/fault.h"
#include "common/log.h"
#include "common/proc.h"
#include "common/quote.h"
#include "common/xalloc.h"
#include "ctl/internal.h"
#include "ctl/jobtask.h"
#include "ctl/podstatus.h"
#include "kinds/job/jobindex.h"
#include "kinds/job/jobpod.h"
#include "kube/meta.h"
#include "pod/pod.h"
#include "pod/schema.h"
#include "translate/translate.h"

#include <errno.h>
#include <pwd.h>
#include <signal.h>
#include <slurm/slurm_errno.h>
#include <stdlib.h>
#include <string.h>

#define ANN_POD_TASK SL_ANN_ARRAY_TASK
#define ANN_JOB_SUBS "slurmlink.io/job-submissions"
#define ANN_JOB_ARRAYS "slurmlink.io/slurm-arrays"
#define ANN_JOB_THROTTLE "slurmlink.io/array-throttle"
#define ANN_JOB_INDEXES "slurmlink.io/submission-indexes" /* the latest submission's indexes */
#define ANN_JOB_CHUNKS "slurmlink.io/submitted-chunks"    /* its chunks in Slurm, "0,1" */
#define ANN_JOB_ORPHANED "slurmlink.io/orphaned-pods"     /* deleted with propagation Orphan */
#define BACKOFF_MS 10000LL      /* the Job controller's DefaultJobPodFailureBackOff */
#define BACKOFF_MAX_MS 600000LL /* MaxJobPodFailureBackOff */

/* ---- which pods are a Job's -------------------------------------------------------- */

static long long ann_int(json_t *o, const char *key, long long dflt)
{
    const char *v = sl_kube_annotation(o, key);
    char *end;
    long long n = v && *v ? strtoll(v, &end, 10) : 0;
    return v && *v && !*end && n >= 0 ? n : dflt;
}

/* the uid of the pod's controller ownerReference to a Job, or NULL */
static const char *job_owner(json_t *pod) { return ctl_controller_owner(pod, "Job", "batch/v1"); }

int ctl_job_pod_of(sl_ctl_t *c, json_t *pod, char owner[37], uint32_t *array_job, uint32_t *task)
{
    (void)c;
    *array_job = *task = 0;
    /* server-owned annotations (src/api/admission.c): only this controller
     * writes them, so a tenant's pod cannot claim another's task */
    const char *uid = sl_kube_annotation(pod, SL_ANN_JOB_UID);
    if (!uid || !*uid || strlen(uid) > 36 || ann_int(pod, ANN_POD_INDEX, -1) < 0)
        return 0;
    snprintf(owner, 37, "%s", uid);
    const char *t = sl_kube_annotation(pod, SL_ANN_ARRAY_TASK);
    unsigned a, i;
    if (t && sscanf(t, "%u_%u", &a, &i) == 2) {
        *array_job = a;
        *task = i;
    }
    return 1;
}

const sl_slurm_job_t *ctl_task_record(const sl_slurm_jobs_t *jl, uint32_t array_job, uint32_t task,
                                      const char *owner_uid)
{
    const sl_slurm_job_t *r = NULL;
    for (size_t i = 0; i < sl_slurm_jobs_count(jl); i++) {
        const sl_slurm_job_t *j = sl_slurm_jobs_at(jl, i);
        if (j->array_job_id == array_job && j->array_task_id == task &&
            ctl_job_owned_by(j, owner_uid))
            r = j;
    }
    return r;
}

uint32_t ctl_task_job_id(uint32_t array_job, uint32_t task, const char *owner_uid)
{
    sl_slurm_jobs_t *jl = NULL;
    uint32_t id = 0;
    if (sl_slurm_job_load(array_job, &jl, NULL) == 0) {
        const sl_slurm_job_t *j = ctl_task_record(jl, array_job, task, owner_uid);
        id = j ? j->job_id : 0;
    }
    sl_slurm_jobs_free(jl);
    return id;
}

/* ---- a Job's pods, tallied ------------------------------------------------------ */

typedef struct tally {
    size_t n;            /* completions */
    unsigned char *done; /* index succeeded */
    unsigned char *busy; /* index has a pod not finished */
    long long active, ready, succeeded, failed, terminating;
    int64_t last_fail_ns;
    json_t *pods;          /* the Job's pods */
    char fail_job[512];    /* a podFailurePolicy FailJob rule matched: kube's message */
    unsigned *fails;       /* counted failures per index */
    unsigned char *lost;   /* index failed for good (backoffLimitPerIndex, FailIndex) */
    unsigned char *queued; /* index pending or running in Slurm, or still to be submitted */
    unsigned char *todo;   /* the latest submission's indexes not yet submitted */
    size_t ntodo;
    ctl_jobtask_scan_t scan; /* the unfinished tasks of the Job's arrays */
    bool scan_ok;            /* Slurm answered: what it has not is over */
} tally_t;

static unsigned max_array(sl_ctl_t *c);
static bool array_owned(uint32_t id, const char *uid);

static bool is_indexed(json_t *job)
{
    const char *m = sl_kube_path_str(job, "spec.completionMode");
    return m && !strcmp(m, "Indexed");
}

static long long spec_int(json_t *job, const char *k, long long dflt)
{
    json_t *v = json_object_get(json_object_get(job, "spec"), k);
    return json_is_integer(v) ? json_integer_value(v) : dflt;
}

static bool pod_ready(json_t *pod)
{
    return sl_kube_condition_true(sl_kube_path(pod, "status.conditions"), "Ready");
}

/* when a failed pod finished (its containers' latest finishedAt), else now */
static int64_t failed_at(json_t *pod)
{
    int64_t best = 0, ns;
    size_t i;
    json_t *cs;
    json_array_foreach(sl_kube_path(pod, "status.containerStatuses"), i, cs)
    {
        const char *f = sl_kube_path_str(cs, "state.terminated.finishedAt");
        if (f && sl_kube_parse_rfc3339(f, &ns) == 0 && ns > best)
            best = ns;
    }
    return best ? best : sl_kube_now_ns();
}

/* a failed pod under the Job's podFailurePolicy: false when it is not
 * counted (Ignore: retried, not counted towards backoffLimit) */
static bool counted_failure(tally_t *t, json_t *job, json_t *pod)
{
    char msg[512];
    ctl_pfp_action_t a = ctl_job_pod_failure_action(job, pod, msg, sizeof(msg));
    if (a == CTL_PFP_FAIL_JOB && !t->fail_job[0])
        snprintf(t->fail_job, sizeof(t->fail_job), "%s", msg);
    long long idx = ann_int(pod, ANN_POD_INDEX, -1);
    if (a != CTL_PFP_IGNORE && idx >= 0 && (size_t)idx < t->n) {
        t->fails[idx]++;
        t->lost[idx] |= a == CTL_PFP_FAIL_INDEX;
    }
    return a != CTL_PFP_IGNORE;
}

/* backoffLimitPerIndex (Indexed): an index failed more often is lost */
static bool per_index(json_t *job)
{
    return is_indexed(job) && spec_int(job, "backoffLimitPerIndex", -1) >= 0;
}

static void lost_indexes(json_t *job, tally_t *t)
{
    long long lim = spec_int(job, "backoffLimitPerIndex", -1);
    for (size_t i = 0; i < t->n; i++)
        t->lost[i] = per_index(job) && !t->done[i] && (t->lost[i] || (long long)t->fails[i] > lim);
}

static size_t nlost(const tally_t *t)
{
    size_t n = 0;
    for (size_t i = 0; i < t->n; i++)
        n += t->lost[i];
    return n;
}

static void count_pod(tally_t *t, json_t *job, json_t *pod)
{
    long long idx = ann_int(pod, ANN_POD_INDEX, -1);
    const char *phase = sl_kube_path_str(pod, "status.phase");
    bool ok = phase && !strcmp(phase, "Succeeded"), bad = phase && !strcmp(phase, "Failed");
    bool deleting = sl_kube_meta_str(pod, "deletionTimestamp") != NULL;
    if (bad && !counted_failure(t, job, pod))
        return;
    if (ok) {
        t->succeeded++;
    } else if (bad) {
        t->failed++;
        int64_t at = failed_at(pod);
        if (at > t->last_fail_ns)
            t->last_fail_ns = at;
    } else if (deleting) {
        t->terminating++;
    } else {
        t->active++;
        t->ready += pod_ready(pod);
    }
    if (idx >= 0 && (size_t)idx < t->n) {
        t->done[idx] |= ok;
        t->busy[idx] |= !ok && !bad;
    }
}

/* a Failed pod whose Slurm job (task) is not yet seen over: Slurm's
 * verdict may still come (DisruptionTarget for a preempted, node-lost or
 * cancelled task, podstatus.c, which onPodConditions rules read), so it
 * counts as active until the next poll has seen its end */
static bool failure_unsettled(sl_ctl_t *c, json_t *pod)
{
    const char *phase = sl_kube_path_str(pod, "status.phase");
    if (!phase || strcmp(phase, "Failed"))
        return false;
    pthread_mutex_lock(&c->lock);
    ctl_pod_t *p = ctl_pod_find(c, sl_kube_uid(pod));
    bool r = p && p->job_id && !p->job_over;
    pthread_mutex_unlock(&c->lock);
    return r;
}

/* chunk ch of the latest submission is in Slurm (slurmlink.io/submitted-chunks) */
static bool chunk_submitted(json_t *job, unsigned ch)
{
    const char *l = sl_kube_annotation(job, ANN_JOB_CHUNKS);
    for (const char *p = l; p && *p;) {
        char *end;
        unsigned long v = strtoul(p, &end, 10);
        if (end == p)
            break;
        if (v == ch)
            return true;
        p = *end == ',' ? end + 1 : end;
    }
    return false;
}

/* the indexes Slurm still has (pending or running tasks of the Job's
 * arrays) and those of the latest submission's chunks not submitted yet:
 * neither is submitted again */
static void track(sl_ctl_t *c, json_t *job, tally_t *t)
{
    unsigned max = max_array(c);
    t->queued = sl_xcalloc(t->n ? t->n : 1, 1);
    t->scan_ok = ctl_jobtask_scan(sl_kube_annotation(job, ANN_JOB_ARRAYS), sl_kube_uid(job), max,
                                  t->n, &t->scan) == 0;
    for (size_t i = 0; i < t->scan.n; i++)
        t->queued[t->scan.t[i].index] = 1;
    const char *iv = sl_kube_annotation(job, ANN_JOB_INDEXES);
    if (!iv)
        return;
    t->todo = sl_xcalloc(t->n ? t->n : 1, 1);
    if (ctl_index_parse(iv, t->todo, t->n) < 0)
        memset(t->todo, 0, t->n);
    for (size_t i = 0; i < t->n; i++) {
        t->todo[i] &= !chunk_submitted(job, (unsigned)(i / max));
        t->queued[i] |= t->todo[i];
        t->ntodo += t->todo[i];
    }
}

static void tally(sl_ctl_t *c, json_t *job, tally_t *t)
{
    memset(t, 0, sizeof(*t));
    t->n = (size_t)spec_int(job, "completions", 1);
    t->done = sl_xcalloc(t->n ? t->n : 1, 1);
    t->busy = sl_xcalloc(t->n ? t->n : 1, 1);
    t->lost = sl_xcalloc(t->n ? t->n : 1, 1);
    t->fails = sl_xcalloc(t->n ? t->n : 1, sizeof(*t->fails));
    t->pods = json_array();
    const char *uid = sl_kube_uid(job);
    json_t *all = ctl_pods_naming(c, sl_kube_namespace(job), uid);
    size_t i;
    json_t *pod;
    json_array_foreach(all, i, pod)
    {
        const char *ou = job_owner(pod);
        if (!ou || strcmp(ou, uid))
            continue;
        json_array_append(t->pods, pod);
        long long idx = ann_int(pod, ANN_POD_INDEX, -1);
        if (failure_unsettled(c, pod)) {
            t->active++;
            if (idx >= 0 && (size_t)idx < t->n)
                t->busy[idx] = 1;
            continue;
        }
        count_pod(t, job, pod);
    }
    lost_indexes(job, t);
    json_decref(all);
    track(c, job, t);
}

static void tally_free(tally_t *t)
{
    free(t->done);
    free(t->busy);
    free(t->lost);
    free(t->fails);
    free(t->queued);
    free(t->todo);
    ctl_jobtask_scan_free(&t->scan);
    json_decref(t->pods);
}

static size_t ndone(const tally_t *t)
{
    size_t n = 0;
    for (size_t i = 0; i < t->n; i++)
        n += t->done[i];
    return n;
}

/* Complete: every index succeeded (Indexed), or as many pods as completions */
static bool completions_reached(json_t *job, const tally_t *t)
{
    return is_indexed(job) ? ndone(t) >= t->n : (size_t)t->succeeded >= t->n;
}

static bool backoff_exceeded(json_t *job, const tally_t *t)
{
    return t->failed > spec_int(job, "backoffLimit", 6);
}

/* ---- status ---------------------------------------------------------------------- */

static json_t *condition(json_t *status, const char *type)
{
    return sl_kube_condition(json_object_get(status, "conditions"), type);
}

static bool has_condition(json_t *status, const char *type)
{
    return condition(status, type) != NULL;
}

static void add_condition(json_t *status, const char *type, const char *reason, const char *msg,
                          const char *now)
{
    if (has_condition(status, type))
        return;
    json_t *conds = json_object_get(status, "conditions");
    if (!json_is_array(conds))
        json_object_set_new(status, "conditions", conds = json_array());
    json_array_append_new(conds, json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "type", type, "status",
                                           "True", "lastProbeTime", now, "lastTransitionTime", now,
                                           "reason", reason, "message", msg));
}

static void set_count(json_t *st, const char *k, long long v, bool always)
{
    if (v || always)
        json_object_set_new(st, k, json_integer(v));
    else
        json_object_del(st, k);
}

/* activeDeadlineSeconds past since startTime */
static bool deadline_exceeded(json_t *job, json_t *st)
{
    long long ads = spec_int(job, "activeDeadlineSeconds", -1);
    int64_t start;
    const char *s = json_string_value(json_object_get(st, "startTime"));
    return ads >= 0 && s && sl_kube_parse_rfc3339(s, &start) == 0 &&
           sl_kube_now_ns() >= start + ads * 1000000000LL;
}

/* the Job fails: FailureTarget first (its pods are then stopped), Failed
 * with the same reason once none is active (kube 1.32's order) */
static void failure(json_t *job, const tally_t *t, json_t *st, const char *now)
{
    if (!condition(st, "FailureTarget")) {
        if (t->fail_job[0])
            add_condition(st, "FailureTarget", "PodFailurePolicy", t->fail_job, now);
        else if (backoff_exceeded(job, t))
            add_condition(st, "FailureTarget", "BackoffLimitExceeded",
                          "Job has reached the specified backoff limit", now);
        else if (deadline_exceeded(job, st))
            add_condition(st, "FailureTarget", "DeadlineExceeded",
                          "Job was active longer than specified deadline", now);
        else if (per_index(job) && json_is_integer(sl_kube_path(job, "spec.maxFailedIndexes")) &&
                 (long long)nlost(t) > spec_int(job, "maxFailedIndexes", 0))
            add_condition(st, "FailureTarget", "MaxFailedIndexesExceeded",
                          "Job has exceeded the specified maximal number of failed indexes", now);
        else if (nlost(t) && ndone(t) + nlost(t) >= t->n && !t->active)
            add_condition(st, "FailureTarget", "FailedIndexes", "Job has failed indexes", now);
    }
    json_t *ft = condition(st, "FailureTarget");
    if (ft && !t->active)
        add_condition(st, "Failed", json_string_value(json_object_get(ft, "reason")),
                      json_string_value(json_object_get(ft, "message")), now);
}

static bool suspended(json_t *job) { return json_is_true(sl_kube_path(job, "spec.suspend")); }

/* spec.suspend: condition Suspended True (JobSuspended), startTime cleared
 * (the deadline's clock stops); false again: the condition False
 * (JobResumed), startTime anew */
static void suspension(json_t *job, json_t *st, const char *now)
{
    json_t *cd = condition(st, "Suspended");
    const char *was = cd ? json_string_value(json_object_get(cd, "status")) : NULL;
    bool on = suspended(job), was_on = was && !strcmp(was, "True");
    if (on == was_on || (!on && !cd))
        return;
    if (!cd) {
        add_condition(st, "Suspended", "JobSuspended", "Job suspended", now);
    } else {
        json_object_set_new(cd, "status", json_string(on ? "True" : "False"));
        json_object_set_new(cd, "reason", json_string(on ? "JobSuspended" : "JobResumed"));
        json_object_set_new(cd, "message", json_string(on ? "Job suspended" : "Job resumed"));
        json_object_set_new(cd, "lastProbeTime", json_string(now));
        json_object_set_new(cd, "lastTransitionTime", json_string(now));
    }
    json_object_del(st, "startTime");
}

/* successPolicy met: SuccessCriteriaMet (reason SuccessPolicy), the other
 * pods are stopped (reconcile), then Complete once none runs */
static void success_policy(json_t *st, const tally_t *t, int rule, const char *now)
{
    char m[64];
    snprintf(m, sizeof(m), "Matched rules at index %d", rule);
    if (rule >= 0)
        add_condition(st, "SuccessCriteriaMet", "SuccessPolicy", m, now);
    json_t *scm = condition(st, "SuccessCriteriaMet");
    if (t->active || t->terminating)
        return;
    add_condition(st, "Complete", json_string_value(json_object_get(scm, "reason")),
                  json_string_value(json_object_get(scm, "message")), now);
    json_object_set_new(st, "completionTime", json_string(now));
}

/* what the Job controller writes: the counts, completedIndexes, startTime,
 * and once the Job is over its conditions (SuccessCriteriaMet then
 * Complete, or FailureTarget then Failed) and completionTime */
static json_t *job_status(json_t *job, const tally_t *t, bool *finished)
{
    json_t *st = json_deep_copy(json_object_get(job, "status"));
    if (!json_is_object(st)) {
        json_decref(st);
        st = json_object();
    }
    char *now = sl_kube_now_rfc3339();
    suspension(job, st, now);
    if (!json_object_get(st, "startTime") && !suspended(job))
        json_object_set_new(st, "startTime", json_string(now));
    set_count(st, "active", t->active, false);
    set_count(st, "succeeded", t->succeeded, false);
    set_count(st, "failed", t->failed, false);
    set_count(st, "ready", t->ready, true);
    set_count(st, "terminating", t->terminating, true);
    json_object_set_new(st, "uncountedTerminatedPods", json_object());
    if (is_indexed(job)) {
        char *iv = ctl_index_intervals(t->done, t->n);
        if (*iv)
            json_object_set_new(st, "completedIndexes", json_string(iv));
        free(iv);
    }
    if (per_index(job)) {
        char *iv = ctl_index_intervals(t->lost, t->n);
        json_object_set_new(st, "failedIndexes", json_string(iv));
        free(iv);
    }
    bool done = has_condition(st, "Complete") || has_condition(st, "Failed");
    int rule =
        is_indexed(job)
            ? ctl_index_success_rule(sl_kube_path(job, "spec.successPolicy.rules"), t->done, t->n)
            : -1;
    if (!done && (rule >= 0 || has_condition(st, "SuccessCriteriaMet"))) {
        success_policy(st, t, rule, now);
    } else if (!done && completions_reached(job, t) && !t->active) {
        const char *m = "Reached expected number of succeeded pods";
        add_condition(st, "SuccessCriteriaMet", "CompletionsReached", m, now);
        add_condition(st, "Complete", "CompletionsReached", m, now);
        json_object_set_new(st, "completionTime", json_string(now));
    } else if (!done) {
        failure(job, t, st, now);
    }
    *finished = has_condition(st, "Complete") || has_condition(st, "Failed");
    free(now);
    return st;
}

typedef struct status_arg {
    const char *uid;
    json_t *status;
} status_arg_t;

static int status_fn(json_t *job, void *arg)
{
    status_arg_t *a = arg;
    const char *uid = sl_kube_uid(job);
    if (!uid || strcmp(uid, a->uid)) {
        errno = ENOENT; /* deleted and created again: not this one */
        return -1;
    }
    if (json_equal(json_object_get(job, "status"), a->status))
        return 0;
    json_object_set(job, "status", a->status);
    return 1;
}

static void write_status(sl_ctl_t *c, json_t *job, json_t *status)
{
    status_arg_t a = {sl_kube_uid(job), status};
    sl_store_mutate(c->store, "jobs.batch", sl_kube_namespace(job), sl_kube_name(job), status_fn,
                    &a, NULL, NULL);
}

/* annotations of an object set together (the controller's bookkeeping):
 * kv is key, value, key, value ..., NULL */
typedef struct ann_arg {
    const char *uid;
    const char *const *kv;
} ann_arg_t;

static int ann_fn(json_t *obj, void *arg)
{
    ann_arg_t *a = arg;
    const char *uid = sl_kube_uid(obj);
    if (!uid || strcmp(uid, a->uid)) {
        errno = ENOENT;
        return -1;
    }
    int changed = 0;
    for (const char *const *kv = a->kv; kv[0]; kv += 2) {
        const char *old = sl_kube_annotation(obj, kv[0]);
        if (old && !strcmp(old, kv[1]))
            continue;
        sl_kube_set_annotation(obj, kv[0], kv[1]);
        changed = 1;
    }
    return changed;
}

static int set_anns(sl_ctl_t *c, const char *res, json_t *obj, const char *const *kv)
{
    ann_arg_t a = {sl_kube_uid(obj), kv};
    sl_error_t err = SL_ERROR_INIT;
    int r = sl_store_mutate(c->store, res, sl_kube_namespace(obj), sl_kube_name(obj), ann_fn, &a,
                            NULL, &err);
    if (r < 0)
        sl_warn("%s %s/%s: cannot record %s=%s: %s", res, sl_kube_namespace(obj), sl_kube_name(obj),
                kv[0], kv[1], err.text);
    return r;
}

static int set_ann(sl_ctl_t *c, const char *res, json_t *obj, const char *key, const char *value)
{
    const char *kv[] = {key, value, NULL};
    return set_anns(c, res, obj, kv);
}

/* ---- pods for the indexes still needed ------------------------------------------- */

/* generateName: <job>- or <job>-<index>- (kube cuts the prefix at 58).
 * Stored through the API's admission (the Job's creator, the namespace's
 * quotas): a refusal is kube's FailedCreate Event on the Job and a
 * back-off before the next try (ctl_create_waits). */
static int create_pod(sl_ctl_t *c, json_t *job, json_t *pod, size_t idx)
{
    char *prefix = is_indexed(job) ? sl_xasprintf("%s-%zu-", sl_kube_name(job), idx)
                                   : sl_xasprintf("%s-", sl_kube_name(job));
    if (strlen(prefix) > 58)
        prefix[58] = '\0';
    sl_kube_meta_set_str(pod, "generateName", prefix);
    sl_kube_meta_set_str(pod, "name", NULL);
    free(prefix);
    json_t *one = json_pack("[O]", pod);
    sl_error_t err = SL_ERROR_INIT;
    bool forbidden;
    int rc = ctl_pods_create(c, one, &forbidden, &err);
    json_decref(one);
    if (rc == 0) {
        ctl_create_admitted(c, sl_kube_uid(job));
    } else if (forbidden) {
        ctl_create_refused(c, sl_kube_uid(job));
        sl_info("job %s/%s: the pod of index %zu is refused: %s", sl_kube_namespace(job),
                sl_kube_name(job), idx, err.text);
        ctl_event(c, job, "Warning", "FailedCreate", "Error creating: %s", err.text);
    } else {
        sl_warn("job %s/%s: cannot create the pod of index %zu: %s", sl_kube_namespace(job),
                sl_kube_name(job), idx, err.text);
    }
    return rc;
}

/* kube's back-off before a failed index is tried again: 10 s, doubled per
 * failure, at most 10 min, from the last failure */
static bool backing_off(const tally_t *t)
{
    if (!t->failed)
        return false;
    long long d = BACKOFF_MS << (t->failed > 7 ? 6 : t->failed - 1);
    if (d > BACKOFF_MAX_MS)
        d = BACKOFF_MAX_MS;
    return sl_kube_now_ns() < t->last_fail_ns + d * 1000000LL;
}

/* the indexes that have no pod running, no task in Slurm and have not
 * succeeded (nor are lost) become submission K+1: K+1 and its indexes are
 * recorded on the Job, in one write, before any pod or array of it (a
 * restart finds them there); no pod yet (submit_pending makes them) */
static void create_batch(sl_ctl_t *c, json_t *job, const tally_t *t)
{
    if (!t->scan_ok || t->ntodo || backing_off(t))
        return; /* Slurm cannot tell, or the latest submission is not all in Slurm */
    unsigned char *want = sl_xcalloc(t->n ? t->n : 1, 1);
    size_t need = 0;
    for (size_t i = 0; i < t->n; i++)
        need += want[i] = !t->done[i] && !t->busy[i] && !t->lost[i] && !t->queued[i];
    if (need) {
        char sub[32], *iv = ctl_index_intervals(want, t->n);
        snprintf(sub, sizeof(sub), "%lld", ann_int(job, ANN_JOB_SUBS, 0) + 1);
        const char *kv[] = {ANN_JOB_SUBS, sub, ANN_JOB_INDEXES, iv, ANN_JOB_CHUNKS, "", NULL};
        set_anns(c, "jobs.batch", job, kv);
        free(iv);
    }
    free(want);
}

/* ---- one array per batch (per chunk of MaxArraySize indexes) ---------------------- */

/* a pod of the batch made before its array: ready to be a task */
typedef struct member {
    json_t *pod;
    ctl_pod_t *p;
    size_t index;
    uint32_t task;
    char *dir;
} member_t;

/* chunk C of the latest submission K: its indexes (as tasks), the pods
 * made for its first tasks before the array is submitted */
typedef struct batch {
    json_t *job;
    long long sub;
    unsigned chunk;
    unsigned char *set;  /* [MaxArraySize]: the chunk's tasks */
    unsigned char *made; /* [MaxArraySize]: a pod of this submission exists for the task */
    member_t *m;
    size_t n;
    uid_t uid;
    gid_t gid;
    long long throttle; /* at most this many of its tasks at once; <= 0: no room yet */
    char comment[160];
} batch_t;

/* the array of this batch already in Slurm (submitted before a crash and
 * not recorded): its id, or 0 */
static uint32_t find_submitted(sl_ctl_t *c, const batch_t *b)
{
    sl_slurm_jobs_t *jobs = NULL;
    uint32_t id = 0;
    uid_t user;
    bool known = ctl_run_uid(c, b->job, &user);
    if (sl_slurm_jobs_load(NULL, &jobs, NULL) < 0)
        return UINT32_MAX; /* cannot tell: not now */
    for (size_t i = 0; i < sl_slurm_jobs_count(jobs) && !id; i++) {
        const sl_slurm_job_t *j = sl_slurm_jobs_at(jobs, i);
        if (!ctl_job_owned_by(j, sl_kube_uid(b->job)) || strcmp(j->comment, b->comment))
            continue;
        if (ctl_job_adoptable(j, sl_kube_uid(b->job), known, user))
            id = j->array_job_id ? j->array_job_id : j->job_id;
        else
            sl_warn("job %s/%s: Slurm job %u carries its comment but runs as uid %u, not the "
                    "Job's user's: left alone",
                    sl_kube_namespace(b->job), sl_kube_name(b->job), j->job_id,
                    (unsigned)j->user_id);
    }
    sl_slurm_jobs_free(jobs);
    return id;
}

static char **array_options(const sl_translate_result_t *r, const batch_t *b)
{
    static const char *const drop[] = {
        "--job-name=", "--comment=", "--output=", "--error=", "--chdir=", "--open-mode="};
    char **v = sl_xcalloc(r->noptions + 4, sizeof(*v));
    size_t n = 0;
    for (size_t i = 0; i < r->noptions; i++) {
        bool skip = false;
        for (size_t d = 0; d < sizeof(drop) / sizeof(drop[0]); d++)
            skip |= !strncmp(r->options[i], drop[d], strlen(drop[d]));
        if (!skip)
            v[n++] = sl_xstrdup(r->options[i]);
    }
    v[n++] = sl_xasprintf("--job-name=%s/%s", sl_kube_namespace(b->job), sl_kube_name(b->job));
    v[n++] = sl_xasprintf("--comment=%s", b->comment);
    v[n++] = sl_xstrdup("--output=/dev/null");
    return v;
}

/* the array's environment (the pods' own come from their shim.json) */
static char **array_env(sl_ctl_t *c, const batch_t *b)
{
    struct passwd *pw = getpwuid(b->uid);
    char **env = sl_xcalloc(8, sizeof(*env));
    int n = 0;
    env[n++] = sl_slurm_job_path(c->o.slurm_bin_dir);
    env[n++] = sl_xasprintf("HOME=%s", pw && pw->pw_dir ? pw->pw_dir : "/");
    env[n++] = sl_xasprintf("USER=%s", pw ? pw->pw_name : "nobody");
    env[n++] = sl_xasprintf("LOGNAME=%s", pw ? pw->pw_name : "nobody");
    env[n++] = sl_xasprintf("SLURMLINK_JOB_UID=%s", sl_kube_uid(b->job));
    if (c->o.slurm_conf)
        env[n++] = sl_xasprintf("SLURM_CONF=%s", c->o.slurm_conf);
    return env;
}

/* the registry images of a Job's pod pulled, as a single pod's are before
 * its submission (pull.c: one worker per pod, one fetch per image; events
 * Pulling/Pulled, ErrImagePull and back-off): 1 when ready (or it cannot be
 * parsed: ctl_pod_prepare fails it), 0 while it waits */
static int pod_pulled(sl_ctl_t *c, ctl_pod_t *p, json_t *pod)
{
    sl_pod_t *model = sl_pod_parse(pod, NULL);
    int r = !model || ctl_pull_ready(c, p, pod, model);
    sl_pod_destroy(model);
    return r;
}

static int refused_fn(json_t *pod, void *arg)
{
    return ctl_status_submit_failed(pod, arg, 1, sl_kube_now_ns());
}

/* a Job's pod's folder written (its images pulled first) and its task's
 * link made: 0 with the translation in *out; -1 when the pod failed (it
 * says why) */
static int link_pod(sl_ctl_t *c, json_t *job, ctl_pod_t *p, json_t *pod, long long sub,
                    uint32_t task, sl_translate_result_t **out, uid_t *u, gid_t *g)
{
    unsigned max = max_array(c);
    long long idx = ann_int(pod, ANN_POD_INDEX, 0);
    sl_error_t err = SL_ERROR_INIT;
    int rc = ctl_pod_prepare(c, p, pod, out, u, g);
    if (rc == 0 && ctl_jobtask_link(c->o.pods_root, sl_kube_uid(job), sub, (unsigned)(idx / max),
                                    task, (*out)->pod_dir, &err) < 0) {
        rc = -1;
        sl_warn("pod %s/%s: %s", p->ns, p->name, err.text);
        char *msg = sl_xasprintf("cannot link the pod folder for its array task: %s", err.text);
        ctl_pod_mutate(c, p->ns, p->name, p->uid, refused_fn, msg, NULL, NULL);
        free(msg);
        sl_translate_result_destroy(*out);
        *out = NULL;
    }
    ctl_pull_release(p->pull); /* used (the folder holds its images); a retry pulls anew */
    p->pull = NULL;
    return rc;
}

/* every member's folder written and linked (a pod that cannot be is failed
 * and left out of the array); the options of the first: NULL if none, or
 * while a member's image is being pulled */
static char **prepare_members(sl_ctl_t *c, batch_t *b)
{
    char **opts = NULL;
    int all = 1;
    for (size_t i = 0; i < b->n; i++)
        all &= pod_pulled(c, b->m[i].p, b->m[i].pod);
    if (!all)
        return NULL;
    for (size_t i = 0; i < b->n; i++) {
        sl_translate_result_t *r = NULL;
        uid_t u;
        gid_t g;
        if (link_pod(c, b->job, b->m[i].p, b->m[i].pod, b->sub, b->m[i].task, &r, &u, &g) < 0) {
            b->set[b->m[i].task] = 0;
            continue;
        }
        b->m[i].dir = sl_xstrdup(r->pod_dir);
        if (!opts) {
            b->uid = u;
            b->gid = g;
            opts = array_options(r, b);
        }
        sl_translate_result_destroy(r);
    }
    return opts;
}

/* id is in the comma list l */
static bool in_list(const char *l, unsigned long id)
{
    for (const char *p = l; p && *p;) {
        char *end;
        unsigned long v = strtoul(p, &end, 10);
        if (end == p)
            break;
        if (v == id)
            return true;
        p = *end == ',' ? end + 1 : end;
    }
    return false;
}

/* l with v added (once) */
static char *list_add(const char *l, unsigned long v)
{
    if (in_list(l, v))
        return sl_xstrdup(l);
    return l && *l ? sl_xasprintf("%s,%lu", l, v) : sl_xasprintf("%lu", v);
}

/* the array's id and each member's task recorded (pods, then the Job: the
 * array, the chunk submitted, the throttle) */
static void record_array(sl_ctl_t *c, batch_t *b, uint32_t id)
{
    char buf[48], thr[32];
    for (size_t i = 0; i < b->n; i++) {
        snprintf(buf, sizeof(buf), "%u_%u", id, b->m[i].task);
        pthread_mutex_lock(&c->lock);
        ctl_pod_set_task(c, b->m[i].p, id, b->m[i].task);
        pthread_mutex_unlock(&c->lock);
        set_ann(c, "pods", b->m[i].pod, ANN_POD_TASK, buf);
    }
    char *arrays = list_add(sl_kube_annotation(b->job, ANN_JOB_ARRAYS), id);
    char *chunks = list_add(sl_kube_annotation(b->job, ANN_JOB_CHUNKS), b->chunk);
    snprintf(thr, sizeof(thr), "%lld", spec_int(b->job, "parallelism", 1));
    const char *kv[] = {
        ANN_JOB_ARRAYS, arrays, ANN_JOB_CHUNKS, chunks, ANN_JOB_THROTTLE, thr, NULL};
    set_anns(c, "jobs.batch", b->job, kv);
    free(arrays);
    free(chunks);
}

/* Slurm refused the array for good: its pods fail, as a pod Slurm refuses */
static void refuse_members(sl_ctl_t *c, batch_t *b, const char *why)
{
    char *msg = sl_xasprintf("Slurm refused the job array: %s", why);
    for (size_t i = 0; i < b->n; i++)
        ctl_pod_mutate(c, b->m[i].p->ns, b->m[i].p->name, b->m[i].p->uid, refused_fn, msg, NULL,
                       NULL);
    free(msg);
}

static void submit_batch(sl_ctl_t *c, batch_t *b, unsigned max)
{
    char **opts = prepare_members(c, b);
    if (!opts)
        return; /* pulling, or every pod failed (they say why themselves) */
    char *script = ctl_jobtask_script(c->o.pods_root, b->job, b->sub, b->chunk);
    char *spec = ctl_index_array_spec(b->set, max, (unsigned)b->throttle);
    char **env = array_env(c, b);
    sl_slurm_submit_t req = {.script = script,
                             .env = (const char *const *)env,
                             .options = (const char *const *)opts,
                             .uid = b->uid,
                             .gid = b->gid,
                             .work_dir = "/",
                             .array = spec};
    sl_error_t err = SL_ERROR_INIT;
    int retry = 0;
    uint32_t id = 0;
    if (!*spec) {
        /* nothing left to run: chunk_empty */
    } else if (sl_slurm_submit(&req, &id, &retry, &err) < 0) {
        sl_warn("job %s/%s: Slurm refused the array %s: %s", sl_kube_namespace(b->job),
                sl_kube_name(b->job), spec, err.text);
        if (retry)
            ctl_slurm_set(c, 0);
        else
            refuse_members(c, b, err.text);
    } else {
        SL_FAULT("after-array-submit"); /* the test build's crash between submit and record */
        sl_info("job %s/%s: Slurm array %u --array=%s", sl_kube_namespace(b->job),
                sl_kube_name(b->job), id, spec);
        record_array(c, b, id);
    }
    free(script);
    free(spec);
    sl_strv_free(env);
    sl_strv_free(opts);
}

/* a pod of the Job made before its array: no array task, not finished,
 * not being deleted, known to the pod controller (which then leaves its
 * submission to us) */
static bool unsubmitted(sl_ctl_t *c, json_t *pod, ctl_pod_t **out)
{
    if (sl_kube_annotation(pod, ANN_POD_TASK) || ctl_pod_terminal(pod) ||
        sl_kube_meta_str(pod, "deletionTimestamp"))
        return false;
    pthread_mutex_lock(&c->lock);
    ctl_pod_t *p = ctl_pod_find(c, sl_kube_uid(pod));
    bool ok = p && p->owner_uid && !p->array_job_id;
    pthread_mutex_unlock(&c->lock);
    *out = p; /* the controller thread's own: stays valid */
    return ok;
}

/* the batch's pods into b (made[task]: it has one; members: those the pod
 * controller knows); a task whose pod of this submission has ended (failed
 * before the array) or is being deleted leaves the set */
static void gather(sl_ctl_t *c, const tally_t *t, batch_t *b, unsigned max)
{
    b->m = sl_xcalloc(json_array_size(t->pods) + 1, sizeof(*b->m));
    size_t i;
    json_t *pod;
    json_array_foreach(t->pods, i, pod)
    {
        ctl_pod_t *p;
        long long idx = ann_int(pod, ANN_POD_INDEX, -1);
        if (idx < 0 || ann_int(pod, ANN_POD_SUB, -1) != b->sub || (unsigned)(idx / max) != b->chunk)
            continue;
        if (sl_kube_annotation(pod, ANN_POD_TASK))
            continue;
        if (ctl_pod_terminal(pod) || sl_kube_meta_str(pod, "deletionTimestamp")) {
            b->set[idx % max] = 0;
            continue;
        }
        b->made[idx % max] = 1;
        if (unsubmitted(c, pod, &p))
            b->m[b->n++] = (member_t){pod, p, (size_t)idx, (uint32_t)(idx % max), NULL};
    }
}

static unsigned max_array(sl_ctl_t *c)
{
    unsigned max = ctl_poll_max_array_size(c);
    return max ? max : 1001; /* Slurm's default */
}

/* the throttle of a new array: parallelism less the Job's indexes busy in
 * Slurm (tasks pending or running, pods of a task not finished): a retry
 * or a later chunk of a Job over MaxArraySize waits until there is room,
 * so that all arrays of a Job together never run more than parallelism
 * tasks */
static long long room(json_t *job, const tally_t *t)
{
    unsigned char *busy = sl_xcalloc(t->n ? t->n : 1, 1);
    size_t i;
    json_t *pod;
    json_array_foreach(t->pods, i, pod)
    {
        long long idx = ann_int(pod, ANN_POD_INDEX, -1);
        if (idx >= 0 && (size_t)idx < t->n && sl_kube_annotation(pod, ANN_POD_TASK) &&
            !ctl_pod_terminal(pod))
            busy[idx] = 1;
    }
    for (i = 0; i < t->scan.n; i++)
        busy[t->scan.t[i].index] = 1;
    long long n = 0;
    for (i = 0; i < t->n; i++)
        n += busy[i];
    free(busy);
    long long par = spec_int(job, "parallelism", 1);
    return par - n < par ? par - n : par;
}

/* the pods made before the array: one for each of its first tasks, as
 * many as it may run at once (kube's Job controller makes parallelism pods
 * at first); true once they all exist (made in an earlier pass, so that
 * the pod controller knows them) */
static bool first_pods(sl_ctl_t *c, batch_t *b, unsigned max)
{
    size_t made = 0, want = 0;
    bool created = false, failed = false;
    for (unsigned x = 0; x < max; x++) {
        want += b->set[x];
        made += b->set[x] && b->made[x];
    }
    if (want > (size_t)b->throttle)
        want = (size_t)b->throttle;
    for (unsigned x = 0; x < max && made < want && !failed; x++) {
        if (!b->set[x] || b->made[x] || ctl_create_waits(c, sl_kube_uid(b->job)))
            continue;
        size_t idx = (size_t)b->chunk * max + x;
        json_t *pod = ctl_job_new_pod(b->job, idx, b->sub);
        if (create_pod(c, b->job, pod, idx) == 0)
            made++, created = true;
        else
            failed = true; /* refused (its back-off runs), or the store's error */
        json_decref(pod);
    }
    if (ctl_create_waits(c, sl_kube_uid(b->job)) && made < want) {
        /* admission (a quota) let fewer pods in: the array runs no more
         * tasks at once than it has admitted pods; none, it waits */
        if (!made)
            return false;
        want = made;
        b->throttle = (long long)made;
        failed = false;
    }
    return !failed && !created && b->n >= want && b->n == made;
}

/* nothing of the chunk is left to run (its pods failed before the array):
 * it counts as submitted, without an array */
static void chunk_empty(sl_ctl_t *c, batch_t *b, unsigned max)
{
    for (unsigned x = 0; x < max; x++)
        if (b->set[x])
            return;
    char *chunks = list_add(sl_kube_annotation(b->job, ANN_JOB_CHUNKS), b->chunk);
    set_ann(c, "jobs.batch", b->job, ANN_JOB_CHUNKS, chunks);
    free(chunks);
}

/* the first chunk of the latest submission not in Slurm: submitted (or
 * adopted, when a crash came between its submission and its record) */
static void submit_pending(sl_ctl_t *c, json_t *job, const tally_t *t)
{
    unsigned max = max_array(c);
    size_t first = 0;
    while (t->todo && first < t->n && !t->todo[first])
        first++;
    if (!t->scan_ok || !t->todo || first >= t->n)
        return;
    batch_t b = {.job = job,
                 .sub = ann_int(job, ANN_JOB_SUBS, 0),
                 .chunk = (unsigned)(first / max),
                 .set = sl_xcalloc(max, 1),
                 .made = sl_xcalloc(max, 1),
                 .throttle = room(job, t)};
    for (size_t i = (size_t)b.chunk * max; i < t->n && i < (size_t)(b.chunk + 1) * max; i++)
        b.set[i % max] = t->todo[i];
    snprintf(b.comment, sizeof(b.comment), "slurmlink:uid=%s slurmlink:submission=%lld.%u",
             sl_kube_uid(job), b.sub, b.chunk);
    gather(c, t, &b, max);
    uint32_t id = find_submitted(c, &b);
    if (id && id != UINT32_MAX) {
        sl_info("job %s/%s: adopted Slurm array %u (submission %lld.%u) found by its uid",
                sl_kube_namespace(job), sl_kube_name(job), id, b.sub, b.chunk);
        record_array(c, &b, id);
    } else if (!id && b.throttle > 0 && first_pods(c, &b, max)) {
        submit_batch(c, &b, max); /* one array per pass: the next sees what this recorded */
        chunk_empty(c, &b, max);
    }
    for (size_t k = 0; k < b.n; k++)
        free(b.m[k].dir);
    free(b.m);
    free(b.set);
    free(b.made);
}

/* ---- pods for the tasks Slurm starts --------------------------------------------- */

/* the Job's pod of task (array, task) in t->pods, or NULL */
static json_t *task_pod(const tally_t *t, uint32_t array, uint32_t task)
{
    char want[48];
    snprintf(want, sizeof(want), "%u_%u", array, task);
    size_t i;
    json_t *pod;
    json_array_foreach(t->pods, i, pod)
    {
        const char *v = sl_kube_annotation(pod, ANN_POD_TASK);
        if (v && !strcmp(v, want))
            return pod;
    }
    return NULL;
}

static long long unfinished_pods(const tally_t *t)
{
    long long n = 0;
    size_t i;
    json_t *pod;
    json_array_foreach(t->pods, i, pod) n += !ctl_pod_terminal(pod);
    return n;
}

/* the pod of a task Slurm has started (kube's Job controller makes a pod
 * when one finishes, at most parallelism unfinished): marked first (a task
 * never gets two), made with its task recorded; its folder and link next
 * pass (link_started), once the pod controller knows it */
static void create_started(sl_ctl_t *c, json_t *job, const tally_t *t)
{
    long long room_left = spec_int(job, "parallelism", 1) - unfinished_pods(t);
    unsigned max = max_array(c);
    if (ctl_create_waits(c, sl_kube_uid(job)))
        return; /* a refused pod (a quota): its task waits for the back-off */
    for (size_t i = 0; i < t->scan.n && room_left > 0; i++) {
        const ctl_jobtask_t *k = &t->scan.t[i];
        unsigned ch = (unsigned)(k->index / max);
        if (!k->started || t->done[k->index] || task_pod(t, k->array, k->task) ||
            ctl_jobtask_claimed(c->o.pods_root, sl_kube_uid(job), k->sub, ch, k->task))
            continue;
        sl_error_t err = SL_ERROR_INIT;
        if (ctl_jobtask_claim(c->o.pods_root, sl_kube_uid(job), k->sub, ch, k->task, &err) < 0) {
            sl_warn("job %s/%s: %s", sl_kube_namespace(job), sl_kube_name(job), err.text);
            continue;
        }
        char buf[48];
        snprintf(buf, sizeof(buf), "%u_%u", k->array, k->task);
        json_t *pod = ctl_job_new_pod(job, k->index, k->sub);
        sl_kube_set_annotation(pod, ANN_POD_TASK, buf);
        int rc = create_pod(c, job, pod, k->index);
        json_decref(pod);
        if (rc < 0) { /* no pod: the task may have one on the next try */
            ctl_jobtask_unclaim(c->o.pods_root, sl_kube_uid(job), k->sub, ch, k->task);
            break;
        }
        room_left--;
        ctl_poll_reread_jobs(c); /* its task's record is read again for it */
    }
}

/* a pod made for a started task: its folder written and linked, so that
 * the task (waiting for the link) runs it; a pod that cannot be prepared
 * has failed (it says why) and its task is cancelled */
static void link_one(sl_ctl_t *c, json_t *job, json_t *pod, ctl_pod_t *p)
{
    unsigned max = max_array(c);
    long long idx = ann_int(pod, ANN_POD_INDEX, -1), sub = ann_int(pod, ANN_POD_SUB, -1);
    unsigned a, task;
    const char *v = sl_kube_annotation(pod, ANN_POD_TASK);
    if (idx < 0 || sub < 0 || !v || sscanf(v, "%u_%u", &a, &task) != 2 ||
        ctl_jobtask_linked(c->o.pods_root, sl_kube_uid(job), sub, (unsigned)(idx / max), task) ||
        !pod_pulled(c, p, pod))
        return;
    sl_translate_result_t *r = NULL;
    uid_t u;
    gid_t g;
    if (link_pod(c, job, p, pod, sub, task, &r, &u, &g) < 0)
        ctl_task_kill(sl_kube_namespace(pod), sl_kube_name(pod), sl_kube_uid(job), a, task);
    sl_translate_result_destroy(r);
}

static void link_started(sl_ctl_t *c, json_t *job, const tally_t *t)
{
    size_t i;
    json_t *pod;
    json_array_foreach(t->pods, i, pod)
    {
        if (!sl_kube_annotation(pod, ANN_POD_TASK) || ctl_pod_terminal(pod) ||
            sl_kube_meta_str(pod, "deletionTimestamp"))
            continue;
        pthread_mutex_lock(&c->lock);
        ctl_pod_t *p = ctl_pod_find(c, sl_kube_uid(pod));
        bool known = p && p->owner_uid && p->array_job_id;
        pthread_mutex_unlock(&c->lock);
        if (known) /* the controller thread's own: stays valid */
            link_one(c, job, pod, p);
    }
}

/* a task of the Job's arrays that has no pod (nor a link to one) */
static bool podless(sl_ctl_t *c, json_t *job, const tally_t *t, const ctl_jobtask_t *k)
{
    return !task_pod(t, k->array, k->task) &&
           !ctl_jobtask_linked(c->o.pods_root, sl_kube_uid(job), k->sub,
                               (unsigned)(k->index / max_array(c)), k->task);
}

/* the pending tasks of array id that have no pod, cancelled in one RPC
 * (one by one, a slot freed between two would start the next) */
static void cancel_pending(sl_ctl_t *c, json_t *job, const tally_t *t, uint32_t id)
{
    unsigned max = max_array(c);
    unsigned char *set = sl_xcalloc(max, 1);
    bool any = false;
    for (size_t i = 0; i < t->scan.n; i++) {
        const ctl_jobtask_t *k = &t->scan.t[i];
        if (k->array == id && !k->started && podless(c, job, t, k)) {
            set[k->task] = 1;
            any = true;
        }
    }
    char *spec = any ? ctl_index_array_spec(set, max, 0) : NULL;
    sl_error_t err = SL_ERROR_INIT;
    if (spec && array_owned(id, sl_kube_uid(job))) {
        if (sl_slurm_cancel_tasks(id, spec, &err) == 0)
            sl_info("job %s/%s: pending tasks %u_[%s] cancelled (no pod needed)",
                    sl_kube_namespace(job), sl_kube_name(job), id, spec);
        else if (errno != ESLURM_ALREADY_DONE && errno != ESLURM_INVALID_JOB_ID)
            sl_warn("job %s/%s: %s", sl_kube_namespace(job), sl_kube_name(job), err.text);
    }
    free(spec);
    free(set);
}

/* the tasks that have no pod (pending, or started and waiting for one)
 * cancelled, the pending ones first: the Job needs no more (successPolicy
 * met, orphaned) */
static void cancel_podless(sl_ctl_t *c, json_t *job, const tally_t *t)
{
    for (size_t i = 0; i < t->scan.n; i++) {
        bool first = true;
        for (size_t k = 0; k < i; k++)
            first &= t->scan.t[k].array != t->scan.t[i].array;
        if (first)
            cancel_pending(c, job, t, t->scan.t[i].array);
    }
    for (size_t i = 0; i < t->scan.n; i++) {
        const ctl_jobtask_t *k = &t->scan.t[i];
        if (k->started && podless(c, job, t, k) &&
            ctl_task_kill(sl_kube_namespace(job), sl_kube_name(job), sl_kube_uid(job), k->array,
                          k->task) == 0)
            sl_info("job %s/%s: array task %u_%u cancelled (no pod needed)", sl_kube_namespace(job),
                    sl_kube_name(job), k->array, k->task);
    }
}

/* ---- stopping a Job's work, deletion ---------------------------------------------- */

/* every array of the Job cancelled (each checked to be the Job's own) */
static void cancel_arrays(sl_ctl_t *c, json_t *job)
{
    const char *list = sl_kube_annotation(job, ANN_JOB_ARRAYS);
    for (const char *p = list; p && *p;) {
        char *end;
        unsigned long id = strtoul(p, &end, 10);
        if (end == p)
            break;
        if (ctl_job_kill(sl_kube_namespace(job), sl_kube_name(job), sl_kube_uid(job), (uint32_t)id,
                         SIGKILL) == 0)
            sl_info("job %s/%s: Slurm array %lu cancelled", sl_kube_namespace(job),
                    sl_kube_name(job), id);
        p = *end == ',' ? end + 1 : end;
    }
}

int ctl_pod_mark_deleted_fn(json_t *pod, void *arg)
{
    (void)arg;
    if (sl_kube_meta_str(pod, "deletionTimestamp"))
        return 0;
    char *now = sl_kube_now_rfc3339();
    sl_kube_meta_set_str(pod, "deletionTimestamp", now);
    free(now);
    json_object_set_new(sl_kube_meta(pod), "deletionGracePeriodSeconds", json_integer(0));
    return 1;
}

/* the Job's pods deleted (the pod controller ends their tasks), or orphaned:
 * the ownerReference to it removed, as the garbage collector does */
static size_t pods_follow_owner(sl_ctl_t *c, json_t *job, bool orphan)
{
    json_t *all = ctl_pods_naming(c, sl_kube_namespace(job), sl_kube_uid(job));
    size_t i, n = 0;
    json_t *pod;
    json_array_foreach(all, i, pod)
    {
        const char *ou = job_owner(pod);
        if (!ou || strcmp(ou, sl_kube_uid(job)))
            continue;
        n++;
        ctl_pod_mutate(c, sl_kube_namespace(pod), sl_kube_name(pod), sl_kube_uid(pod),
                       orphan ? ctl_drop_owner_fn : ctl_pod_mark_deleted_fn,
                       (void *)sl_kube_uid(job), NULL, NULL);
    }
    json_decref(all);
    return n;
}

/* a Job removed from the store (background deletion): its arrays and pods */
void ctl_job_gone(sl_ctl_t *c, json_t *job)
{
    ctl_jobtask_remove(c->o.pods_root, sl_kube_uid(job));
    if (sl_kube_annotation(job, ANN_JOB_ORPHANED))
        return; /* its pods run on without it */
    cancel_arrays(c, job);
    size_t n = pods_follow_owner(c, job, false);
    sl_info("job %s/%s deleted: %zu pods deleted with it", sl_kube_namespace(job),
            sl_kube_name(job), n);
}

static int drop_finalizer_fn(json_t *job, void *arg)
{
    if (!ctl_drop_finalizer_fn(job, arg))
        return 0;
    if (!strcmp(arg, "orphan")) /* job_gone leaves its arrays alone */
        sl_kube_set_annotation(job, ANN_JOB_ORPHANED, "true");
    return 1;
}

/* an orphaning deletion: the tasks that have no pod yet are cancelled */
static void orphan_tasks(sl_ctl_t *c, json_t *job)
{
    tally_t t;
    tally(c, job, &t);
    if (t.scan_ok)
        cancel_podless(c, job, &t);
    tally_free(&t);
}

/* a Job being deleted with the garbage collector's finalizer: orphan its
 * pods, or (foreground) end them and wait for them; then the finalizer
 * goes, and with the last one the Job */
static void job_finalize(sl_ctl_t *c, json_t *job)
{
    const char *f = ctl_has_finalizer(job, "orphan")               ? "orphan"
                    : ctl_has_finalizer(job, "foregroundDeletion") ? "foregroundDeletion"
                                                                   : NULL;
    if (!f)
        return;
    bool orphan = !strcmp(f, "orphan");
    if (!orphan) /* orphaned pods run on, their tasks followed (slurmlink.io/job-uid) */
        cancel_arrays(c, job);
    else
        orphan_tasks(c, job); /* no new pods: the tasks without one go */
    if (pods_follow_owner(c, job, orphan) && !orphan)
        return; /* foreground: the Job stays until its pods are gone */
    json_t *out = NULL;
    const char *ns = sl_kube_namespace(job), *name = sl_kube_name(job);
    if (sl_store_mutate(c->store, "jobs.batch", ns, name, drop_finalizer_fn, (void *)f, &out,
                        NULL) == 0 &&
        !json_array_size(sl_kube_path(out, "metadata.finalizers")))
        sl_store_delete(c->store, "jobs.batch", ns, name, sl_kube_rv(out), NULL, NULL);
    json_decref(out);
}

/* ---- the pass ------------------------------------------------------------------------ */

/* some record of array id is the Job's (its comment carries the uid) */
static bool array_owned(uint32_t id, const char *uid)
{
    sl_slurm_jobs_t *jl = NULL;
    bool mine = false;
    if (sl_slurm_job_load(id, &jl, NULL) == 0)
        for (size_t i = 0; i < sl_slurm_jobs_count(jl); i++)
            mine |= ctl_job_owned_by(sl_slurm_jobs_at(jl, i), uid) != 0;
    sl_slurm_jobs_free(jl);
    return mine;
}

/* a changed parallelism: every array of the Job that is its own gets the
 * new throttle (ArrayTaskThrottle) */
static void update_throttle(sl_ctl_t *c, json_t *job)
{
    long long par = spec_int(job, "parallelism", 1);
    const char *list = sl_kube_annotation(job, ANN_JOB_ARRAYS);
    if (!list || ann_int(job, ANN_JOB_THROTTLE, -1) == par)
        return;
    for (const char *p = list; *p;) {
        char *end;
        unsigned long id = strtoul(p, &end, 10);
        if (end == p)
            break;
        if (array_owned((uint32_t)id, sl_kube_uid(job))) {
            sl_error_t err = SL_ERROR_INIT;
            if (sl_slurm_array_throttle((uint32_t)id, (unsigned)par, &err) < 0)
                sl_info("job %s/%s: %s", sl_kube_namespace(job), sl_kube_name(job), err.text);
        }
        p = *end == ',' ? end + 1 : end;
    }
    char buf[32];
    snprintf(buf, sizeof(buf), "%lld", par);
    set_ann(c, "jobs.batch", job, ANN_JOB_THROTTLE, buf);
}

static void delete_active(sl_ctl_t *c, const tally_t *t)
{
    size_t i;
    json_t *pod;
    json_array_foreach(t->pods, i, pod)
    {
        if (!ctl_pod_terminal(pod))
            ctl_pod_mutate(c, sl_kube_namespace(pod), sl_kube_name(pod), sl_kube_uid(pod),
                           ctl_pod_mark_deleted_fn, NULL, NULL, NULL);
    }
}

/* ttlSecondsAfterFinished past since the Job finished (completionTime, or
 * its Failed condition's transition): the Job is deleted, and with it
 * (job_gone) its pods, as the TTL-after-finished controller does */
static void ttl_expire(sl_ctl_t *c, json_t *job)
{
    long long ttl = spec_int(job, "ttlSecondsAfterFinished", -1);
    json_t *st = json_object_get(job, "status");
    json_t *failed = condition(st, "Failed");
    const char *at = json_string_value(json_object_get(st, "completionTime"));
    if (!at && failed)
        at = json_string_value(json_object_get(failed, "lastTransitionTime"));
    int64_t when;
    if (ttl < 0 || !at || sl_kube_parse_rfc3339(at, &when) < 0 ||
        sl_kube_now_ns() < when + ttl * 1000000000LL)
        return;
    if (sl_store_delete(c->store, "jobs.batch", sl_kube_namespace(job), sl_kube_name(job),
                        sl_kube_rv(job), NULL, NULL) == 0)
        sl_info("job %s/%s: finished %lld s ago (ttlSecondsAfterFinished): deleted",
                sl_kube_namespace(job), sl_kube_name(job), ttl);
}

/* one Job: its pods tallied, its status written, what it still needs
 * created and submitted */
void ctl_job_reconcile(sl_ctl_t *c, json_t *job)
{
    if (sl_kube_meta_str(job, "deletionTimestamp")) {
        job_finalize(c, job);
        return;
    }
    json_t *old = json_object_get(job, "status");
    if (has_condition(old, "Complete") || has_condition(old, "Failed")) {
        ttl_expire(c, job);
        return;
    }
    tally_t t;
    tally(c, job, &t);
    bool finished = false;
    json_t *st = job_status(job, &t, &finished);
    write_status(c, job, st);
    if (has_condition(st, "SuccessCriteriaMet") && t.scan_ok)
        cancel_podless(c, job, &t); /* successPolicy: no more pods, their tasks never run */
    if (has_condition(st, "SuccessCriteriaMet") && !finished && t.active) {
        /* successPolicy: the other pods deleted, each ending its own task
         * (the arrays are not cancelled whole: a completed task's record
         * would read CANCELLED and fail its succeeded pod) */
        delete_active(c, &t);
    } else if ((has_condition(st, "FailureTarget") || suspended(job)) && (t.active || t.scan.n)) {
        /* kube deletes the active pods of a failed or suspended Job: the
         * arrays are cancelled, the pods deleted (a pending task's has no
         * job of its own to end it) */
        cancel_arrays(c, job);
        delete_active(c, &t);
    } else if (!finished && !suspended(job) && !has_condition(st, "SuccessCriteriaMet")) {
        link_started(c, job, &t);
        create_started(c, job, &t);
        submit_pending(c, job, &t);
        create_batch(c, job, &t);
        update_throttle(c, job);
    }
    json_decref(st);
    tally_free(&t);
}
