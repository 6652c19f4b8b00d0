/* controller.c — the JobSet controller: a JobSet runs as ONE gang Slurm job
 * (ctl/gang.h) whose members are every pod of every child Job.
 *
 * Each pass, per JobSet: the pods of the current attempt created (the
 * gang admitted whole: quotas count them together) once no pod of an
 * earlier attempt is left; then the gang submitted (or adopted: a job
 * whose comment carries the JobSet's uid and attempt is never submitted
 * again); then the status recomputed from the pods as JobSet's controller
 * does from its Jobs: replicatedJobsStatus (ready, succeeded, failed,
 * active, suspended per replicated Job), the conditions Completed, Failed,
 * Suspended, StartupPolicyInProgress/Completed, restarts,
 * restartsCountTowardsMax, terminalState.
 *
 * A child Job fails when one of its pods fails (the gang cannot replace
 * one member: its nodes are allocated together). Then failurePolicy
 * decides as upstream's: its first matching rule's action (FailJobSet,
 * RestartJobSet, ...AndIgnoreMaxRestarts; RestartJob restarts the whole
 * gang here), else a restart while restartsCountTowardsMax < maxRestarts,
 * else Failed (ReachedMaxRestarts; FailedJobs without a failurePolicy).
 * A restart cancels the gang's job, deletes its pods and starts attempt
 * K+1. successPolicy (All or Any of targetReplicatedJobs' child Jobs,
 * every replicated Job when none is named) met: Completed, the rest of
 * the gang ended. suspend: the job cancelled and the pods deleted;
 * resumed, a fresh gang. Deletion (the JobSet gone from the store)
 * cancels the job and deletes its pods.
 *
 * Annotations (the controller's bookkeeping, on the JobSet):
 *   slurmlink.io/gang-attempt  K (its pods carry it too)
 *   slurmlink.io/slurm-jobs    the Slurm jobs submitted, "id,id" */
#include "common/log.h"
#include "common/xalloc.h"
#include "ctl/gang.h"
#include "ctl/internal.h"
#include "ctl/gangowner.h"
#include "ctl/podstatus.h"
#include "kinds/job/jobpod.h"
#include "kinds/jobset/jobset.h"
#include "kube/meta.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define ANN_JOBS "slurmlink.io/slurm-jobs"
#define JL "jobset.sigs.k8s.io/"

_Static_assert(JS_MAX_MEMBERS == CTL_GANG_MAX, "a JobSet's members are one gang's");

static long long ann_int(json_t *o, const char *key)
{
    const char *v = sl_kube_annotation(o, key);
    char *end;
    long long n = v && *v ? strtoll(v, &end, 10) : 0;
    return v && *v && !*end && n >= 0 ? n : 0;
}

static void set_ann(sl_ctl_t *c, json_t *js, const char *key, long long v)
{
    char buf[24];
    snprintf(buf, sizeof(buf), "%lld", v);
    ctl_owner_set_annotation(c, JS_STORE, "JobSet", js, key, buf);
}

static long long st_int(json_t *st, const char *key)
{
    return json_integer_value(json_object_get(st, key));
}

/* ---- conditions ------------------------------------------------------------------------ */

/* metav1.Condition set as meta.SetStatusCondition does: the transition
 * time changes only with the status */
static void set_cond(json_t *st, const char *type, bool on, const char *reason, const char *msg)
{
    sl_kube_cond_t c = {type, on ? "True" : "False", reason, msg, 0};
    sl_kube_set_condition(st, &c, NULL);
}

static bool cond_true(json_t *st, const char *type)
{
    return sl_kube_condition_true(json_object_get(st, "conditions"), type);
}

/* ---- the child Jobs' states from the pods ------------------------------------------------- */

typedef struct rj_count {
    long long ready, succeeded, failed, active;
} rj_count_t;

static bool pod_ready(json_t *pod)
{
    const char *ph = sl_kube_path_str(pod, "status.phase");
    return ph && !strcmp(ph, "Running") &&
           sl_kube_condition_true(sl_kube_path(pod, "status.conditions"), "Ready");
}

/* the pods of child Job (rjob, job) among pods */
static void job_state(json_t *pods, const char *rjob, long long job, long long per, bool *failed,
                      bool *succeeded, bool *ready, bool *active)
{
    long long ok = 0, up = 0, live = 0, bad = 0;
    size_t i;
    json_t *pod;
    json_array_foreach(pods, i, pod)
    {
        const char *r = sl_kube_annotation(pod, JL "replicatedjob-name");
        if (!r || strcmp(r, rjob) || ann_int(pod, JL "job-index") != job)
            continue;
        const char *ph = sl_kube_path_str(pod, "status.phase");
        ok += ph && !strcmp(ph, "Succeeded");
        bad += ph && !strcmp(ph, "Failed");
        up += pod_ready(pod);
        live += !ctl_pod_terminal(pod) && !sl_kube_meta_str(pod, "deletionTimestamp");
    }
    *failed = bad > 0;
    *succeeded = !bad && ok >= per;
    *ready = !bad && ok + up >= per && up > 0;
    *active = !bad && !*succeeded && live > 0;
}

/* replicatedJobsStatus and the counts per replicated Job (counts: one per rjob) */
static json_t *rjobs_status(json_t *js, json_t *pods, bool suspended, rj_count_t *counts)
{
    json_t *out = json_array();
    size_t r;
    json_t *rj;
    json_array_foreach(sl_kube_path(js, "spec.replicatedJobs"), r, rj)
    {
        const char *name = sl_kube_path_str(rj, "name");
        json_t *rep = json_object_get(rj, "replicas");
        long long reps = json_is_integer(rep) ? json_integer_value(rep) : 1;
        long long per = js_pods_per_job(rj);
        rj_count_t n = {0, 0, 0, 0};
        for (long long j = 0; j < reps && !suspended; j++) {
            bool f, s, y, a;
            job_state(pods, name ? name : "", j, per, &f, &s, &y, &a);
            n.failed += f;
            n.succeeded += s;
            n.ready += y;
            n.active += a;
        }
        counts[r] = n;
        json_array_append_new(out, json_pack("{s:s, s:I, s:I, s:I, s:I, s:I}", "name",
                                             name ? name : "", "ready", (json_int_t)n.ready,
                                             "succeeded", (json_int_t)n.succeeded, "failed",
                                             (json_int_t)n.failed, "active", (json_int_t)n.active,
                                             "suspended", (json_int_t)(suspended ? reps : 0)));
    }
    return out;
}

/* ---- policies ------------------------------------------------------------------------------ */

static bool names_target(json_t *targets, const char *name)
{
    size_t i;
    json_t *t;
    if (!json_array_size(targets))
        return true;
    json_array_foreach(targets, i, t) if (name && json_string_value(t) &&
                                          !strcmp(json_string_value(t), name)) return true;
    return false;
}

/* successPolicy: All (every child Job of the targets succeeded) or Any (one did) */
static bool success_met(json_t *js, const rj_count_t *counts)
{
    const char *op = sl_kube_path_str(js, "spec.successPolicy.operator");
    bool any = op && !strcmp(op, "Any"), all = true, one = false;
    json_t *targets = sl_kube_path(js, "spec.successPolicy.targetReplicatedJobs");
    size_t r;
    json_t *rj;
    json_array_foreach(sl_kube_path(js, "spec.replicatedJobs"), r, rj)
    {
        if (!names_target(targets, sl_kube_path_str(rj, "name")))
            continue;
        json_t *rep = json_object_get(rj, "replicas");
        long long reps = json_is_integer(rep) ? json_integer_value(rep) : 1;
        all &= counts[r].succeeded >= reps;
        one |= counts[r].succeeded > 0;
    }
    return any ? one : all;
}

typedef enum { JS_FAIL, JS_RESTART, JS_RESTART_FREE } js_action_t;

/* the first failed replicated Job's name */
static const char *first_failed(json_t *js, const rj_count_t *counts)
{
    size_t r;
    json_t *rj;
    json_array_foreach(sl_kube_path(js, "spec.replicatedJobs"), r,
                       rj) if (counts[r].failed) return sl_kube_path_str(rj, "name");
    return NULL;
}

/* a failed child Job (its reason: BackoffLimitExceeded, a pod failed)
 * against failurePolicy: the first matching rule's action, else a restart
 * while restarts count below maxRestarts; reason and message of a failure */
static js_action_t failure_action(json_t *js, const char *failed, const char **reason,
                                  const char **msg)
{
    json_t *fp = sl_kube_path(js, "spec.failurePolicy");
    *reason = "FailedJobs";
    *msg = "jobset failed due to one or more job failures";
    if (!json_is_object(fp))
        return JS_FAIL;
    size_t i;
    json_t *rule;
    json_array_foreach(json_object_get(fp, "rules"), i, rule)
    {
        json_t *why = json_object_get(rule, "onJobFailureReasons");
        if (!names_target(json_object_get(rule, "targetReplicatedJobs"), failed) ||
            (json_array_size(why) && !names_target(why, "BackoffLimitExceeded")))
            continue;
        const char *a = json_string_value(json_object_get(rule, "action"));
        if (a && !strcmp(a, "FailJobSet")) {
            *reason = "FailJobSetFailurePolicyAction";
            *msg = "applying FailJobSet failure policy action";
            return JS_FAIL;
        }
        if (a && strstr(a, "AndIgnoreMaxRestarts"))
            return JS_RESTART_FREE;
        break; /* RestartJobSet, RestartJob: the gang restarts, counted */
    }
    long long max = json_integer_value(json_object_get(fp, "maxRestarts"));
    if (st_int(json_object_get(js, "status"), "restartsCountTowardsMax") < max)
        return JS_RESTART;
    *reason = "ReachedMaxRestarts";
    *msg = "jobset failed due to reaching max number of restarts";
    return JS_FAIL;
}

/* ---- pods and the gang --------------------------------------------------------------------- */

static void create_pods(sl_ctl_t *c, json_t *js, long long attempt)
{
    if (ctl_create_waits(c, sl_kube_uid(js)))
        return; /* refused before (a quota): the back-off runs */
    js_member_t m[JS_MAX_MEMBERS];
    size_t n = js_members(js, m, JS_MAX_MEMBERS);
    long long restarts = st_int(json_object_get(js, "status"), "restarts");
    json_t *pods = json_array();
    for (size_t i = 0; i < n && i < JS_MAX_MEMBERS; i++) {
        json_t *pod = js_new_pod(js, &m[i], i, attempt, restarts);
        json_t *have = sl_store_get(c->store, "pods", sl_kube_namespace(pod), sl_kube_name(pod));
        if (!have)
            json_array_append(pods, pod);
        json_decref(have);
        json_decref(pod);
    }
    sl_error_t err = SL_ERROR_INIT;
    bool forbidden;
    if (!json_array_size(pods) || ctl_pods_create(c, pods, &forbidden, &err) == 0) {
        ctl_create_admitted(c, sl_kube_uid(js));
        size_t i;
        json_t *pod;
        json_array_foreach(pods, i, pod)
            ctl_event(c, js, "Normal", "SuccessfulCreate", "Created pod: %s", sl_kube_name(pod));
    } else if (forbidden) {
        ctl_create_refused(c, sl_kube_uid(js));
        sl_info("JobSet %s/%s: its pods are refused: %s", sl_kube_namespace(js), sl_kube_name(js),
                err.text);
        ctl_event(c, js, "Warning", "FailedCreate", "Error creating: %s", err.text);
    } else {
        sl_warn("JobSet %s/%s: cannot create its pods: %s", sl_kube_namespace(js), sl_kube_name(js),
                err.text);
    }
    sl_error_clear(&err);
    json_decref(pods);
}

/* startupPolicy InOrder: the steps of each replicated Job start once the
 * containers of every earlier replicated Job's pods have (gang.h after) */
static void in_order(json_t *js, ctl_gang_member_t *m, size_t n)
{
    const char *order = sl_kube_path_str(js, "spec.startupPolicy.startupPolicyOrder");
    if (!order || strcmp(order, "InOrder"))
        return;
    size_t first = 0;
    for (size_t i = 1; i < n; i++) {
        const char *a = sl_kube_annotation(m[i].pod, JL "replicatedjob-name"),
                   *b = sl_kube_annotation(m[i - 1].pod, JL "replicatedjob-name");
        if (a && b && strcmp(a, b))
            first = i;
        m[i].after = first;
    }
}

/* every member's pod there, none submitted nor finished: the gang submitted */
static void submit(sl_ctl_t *c, json_t *js, json_t *pods, long long attempt)
{
    js_member_t none;
    size_t n = js_members(js, &none, 0);
    if (!n || n > JS_MAX_MEMBERS || json_array_size(pods) != n)
        return;
    ctl_gang_member_t m[JS_MAX_MEMBERS];
    memset(m, 0, sizeof(m));
    size_t i;
    json_t *pod;
    json_array_foreach(pods, i, pod)
    {
        long long at = ann_int(pod, CTL_ANN_POD_INDEX);
        if (at >= (long long)n || m[at].pod || ctl_pod_job_id(pod) || ctl_pod_terminal(pod))
            return;
        m[at].pod = pod;
    }
    in_order(js, m, n);
    ctl_gang_t g = {.owner = js, .kind = "JobSet", .attempt = attempt, .m = m, .n = n};
    uint32_t id = 0;
    if (ctl_gang_submit(c, &g, &id) != 0)
        return;
    const char *old = sl_kube_annotation(js, ANN_JOBS);
    char buf[16];
    snprintf(buf, sizeof(buf), "%u", id);
    char *all = old && *old ? sl_xasprintf("%s,%u", old, id) : sl_xstrdup(buf);
    if (!old || !strstr(old, buf))
        ctl_owner_set_annotation(c, JS_STORE, "JobSet", js, ANN_JOBS, all);
    free(all);
}

/* the pods of attempt K, the others (earlier attempts) in *older */
static json_t *attempt_pods(json_t *pods, long long k, size_t *older)
{
    json_t *out = json_array();
    *older = 0;
    size_t i;
    json_t *pod;
    json_array_foreach(pods, i, pod)
    {
        if (ann_int(pod, CTL_ANN_GANG_ATTEMPT) == k)
            json_array_append(out, pod);
        else
            (*older)++;
    }
    return out;
}

/* ---- the pass ------------------------------------------------------------------------------ */

static json_t *status_copy(json_t *js)
{
    json_t *st = json_deep_copy(json_object_get(js, "status"));
    if (json_is_object(st))
        return st;
    json_decref(st);
    json_t *o = json_object();
    json_object_set_new(o, "restarts", json_integer(0));
    return o;
}

static void write_status(sl_ctl_t *c, json_t *js, json_t *st)
{
    ctl_owner_write_status(c, JS_STORE, "JobSet", js, st);
    json_object_set(js, "status", st); /* this pass goes on from it */
}

/* ttlSecondsAfterFinished past since the terminal condition: the JobSet
 * deleted (its pods and job follow it: js_gone) */
static void finished(sl_ctl_t *c, json_t *js)
{
    json_t *ttl = sl_kube_path(js, "spec.ttlSecondsAfterFinished");
    json_t *conds = sl_kube_path(js, "status.conditions");
    json_t *cd = sl_kube_condition(conds, "Completed");
    if (!sl_kube_condition_true(conds, "Completed"))
        cd = sl_kube_condition(conds, "Failed");
    const char *done = json_string_value(json_object_get(cd, "lastTransitionTime"));
    int64_t at = 0;
    if (!json_is_integer(ttl) || !done || sl_kube_parse_rfc3339(done, &at) < 0 ||
        sl_kube_now_ns() < at + json_integer_value(ttl) * 1000000000LL)
        return;
    sl_error_t err = SL_ERROR_INIT;
    if (sl_store_delete(c->store, JS_STORE, sl_kube_namespace(js), sl_kube_name(js), 0, NULL,
                        &err) == 0)
        sl_info("JobSet %s/%s: deleted %lld s after it finished (ttlSecondsAfterFinished)",
                sl_kube_namespace(js), sl_kube_name(js), (long long)json_integer_value(ttl));
    sl_error_clear(&err);
}

/* spec.suspend: the gang's job cancelled and its pods deleted, Suspended
 * True; resumed: Suspended False and a fresh gang (attempt K+1, no
 * restart). true while suspended. */
static bool suspension(sl_ctl_t *c, json_t *js, json_t *pods, json_t *st)
{
    bool on = json_is_true(sl_kube_path(js, "spec.suspend"));
    if (on) {
        set_cond(st, "Suspended", true, "SuspendedJobs", "jobset is suspended");
        ctl_owner_cancel_jobs("JobSet", js);
        long long att = ann_int(js, CTL_ANN_GANG_ATTEMPT);
        size_t older = 0;
        json_t *cur = attempt_pods(pods, att, &older);
        if (json_array_size(cur)) /* resumed, the gang starts afresh */
            set_ann(c, js, CTL_ANN_GANG_ATTEMPT, att + 1);
        json_decref(cur);
        ctl_owner_delete_pods(c, js, pods, true);
    } else if (cond_true(st, "Suspended")) {
        set_cond(st, "Suspended", false, "ResumeJobs", "jobset is resumed");
        ctl_event(c, js, "Normal", "ResumeJobs", "jobset is resumed");
    }
    return on;
}

/* startupPolicy InOrder: in progress until every replicated Job's child Jobs are ready */
static void startup_conditions(json_t *js, json_t *st, const rj_count_t *counts)
{
    const char *order = sl_kube_path_str(js, "spec.startupPolicy.startupPolicyOrder");
    if (!order || strcmp(order, "InOrder") || cond_true(st, "StartupPolicyCompleted"))
        return;
    bool all = true;
    size_t r;
    json_t *rj;
    json_array_foreach(sl_kube_path(js, "spec.replicatedJobs"), r, rj)
    {
        json_t *rep = json_object_get(rj, "replicas");
        long long reps = json_is_integer(rep) ? json_integer_value(rep) : 1;
        all &= counts[r].ready + counts[r].succeeded >= reps;
    }
    if (all) {
        set_cond(st, "StartupPolicyInProgress", false, "InOrderStartupPolicyCompleted",
                 "in order startup policy has completed");
        set_cond(st, "StartupPolicyCompleted", true, "InOrderStartupPolicyCompleted",
                 "in order startup policy has completed");
    } else {
        set_cond(st, "StartupPolicyInProgress", true, "InOrderStartupPolicyInProgress",
                 "in order startup policy is in progress");
    }
}

static void end(sl_ctl_t *c, json_t *js, json_t *st, json_t *pods, bool ok, const char *reason,
                const char *msg)
{
    set_cond(st, ok ? "Completed" : "Failed", true, reason, msg);
    json_object_set_new(st, "terminalState", json_string(ok ? "Completed" : "Failed"));
    write_status(c, js, st);
    ctl_event(c, js, ok ? "Normal" : "Warning", reason, "%s", msg);
    ctl_owner_cancel_jobs("JobSet", js);
    ctl_owner_delete_pods(c, NULL, pods, false); /* the members still running */
    sl_info("JobSet %s/%s: %s (%s)", sl_kube_namespace(js), sl_kube_name(js),
            ok ? "Completed" : "Failed", reason);
}

/* a failed child Job restarts the gang: its job cancelled, attempt K+1
 * (its pods deleted, the next attempt's made: reconcile) */
static void restart(sl_ctl_t *c, json_t *js, json_t *st, bool counted)
{
    ctl_owner_cancel_jobs("JobSet", js);
    long long restarts = st_int(st, "restarts") + 1;
    json_object_set_new(st, "restarts", json_integer(restarts));
    if (counted)
        json_object_set_new(st, "restartsCountTowardsMax",
                            json_integer(st_int(st, "restartsCountTowardsMax") + 1));
    write_status(c, js, st);
    set_ann(c, js, CTL_ANN_GANG_ATTEMPT, ann_int(js, CTL_ANN_GANG_ATTEMPT) + 1);
    ctl_event(c, js, "Warning", "Restarting", "restarting jobset, attempt %lld", restarts);
    sl_info("JobSet %s/%s: a child Job failed, the gang restarts (restart %lld)",
            sl_kube_namespace(js), sl_kube_name(js), restarts);
}

static void run(sl_ctl_t *c, json_t *js, json_t *pods, json_t *st)
{
    long long att = ann_int(js, CTL_ANN_GANG_ATTEMPT);
    size_t older = 0, nr = json_array_size(sl_kube_path(js, "spec.replicatedJobs"));
    json_t *cur = attempt_pods(pods, att, &older);
    rj_count_t *counts = sl_xcalloc(nr + 1, sizeof(*counts));
    json_object_set_new(st, "replicatedJobsStatus", rjobs_status(js, cur, false, counts));
    startup_conditions(js, st, counts);
    const char *failed = first_failed(js, counts), *reason, *msg;
    if (failed) {
        js_action_t a = failure_action(js, failed, &reason, &msg);
        if (a == JS_FAIL)
            end(c, js, st, cur, false, reason, msg);
        else
            restart(c, js, st, a == JS_RESTART);
    } else if (json_array_size(cur) && success_met(js, counts)) {
        end(c, js, st, cur, true, "AllJobsCompleted", "jobset completed successfully");
    } else {
        write_status(c, js, st);
        if (older)
            ctl_owner_delete_pods(c, NULL, pods, true); /* an earlier attempt's: gone first */
        else if (!json_array_size(cur))
            create_pods(c, js, att);
        else
            submit(c, js, cur, att);
    }
    free(counts);
    json_decref(cur);
}

void js_reconcile(struct sl_ctl *c, json_t *js)
{
    const char *by = sl_kube_path_str(js, "spec.managedBy");
    if (by && strcmp(by, "jobset.sigs.k8s.io/jobset-controller"))
        return; /* another controller's (MultiKueue): as upstream's, left alone */
    json_t *pods = ctl_owner_pods(c, js);
    json_t *st = status_copy(js);
    if (cond_true(st, "Completed") || cond_true(st, "Failed")) {
        finished(c, js);
    } else if (suspension(c, js, pods, st)) {
        size_t nr = json_array_size(sl_kube_path(js, "spec.replicatedJobs"));
        rj_count_t *counts = sl_xcalloc(nr + 1, sizeof(*counts));
        json_object_set_new(st, "replicatedJobsStatus", rjobs_status(js, pods, true, counts));
        free(counts);
        write_status(c, js, st);
    } else {
        run(c, js, pods, st);
    }
    json_decref(st);
    json_decref(pods);
}

void js_gone(struct sl_ctl *c, json_t *js)
{
    ctl_owner_cancel_jobs("JobSet", js);
    json_t *pods = ctl_owner_pods(c, js);
    ctl_owner_delete_pods(c, NULL, pods, true);
    sl_info("JobSet %s/%s deleted: %zu pods deleted with it", sl_kube_namespace(js),
            sl_kube_name(js), json_array_size(pods));
    json_decref(pods);
}
