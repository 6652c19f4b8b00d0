/* src/kinds/kubeflow/status.c — a PyTorchJob's status from its pods (src/kinds/kubeflow/status.h).
 */
#include "kinds/kubeflow/status.h"
#include "common/xalloc.h"
#include "ctl/podstatus.h"
#include "kinds/kubeflow/kubeflow.h"
#include "kube/meta.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define L "training.kubeflow.org/"

bool ctl_ptj_condition(json_t *status, const char *type)
{
    return sl_kube_condition_true(json_object_get(status, "conditions"), type);
}

/* filterOutCondition: the type itself gone; Running and Restarting replace
 * each other; Succeeded or Failed set Running False */
static json_t *filter(json_t *conds, const char *type)
{
    json_t *out = json_array();
    size_t i;
    json_t *c;
    bool end = !strcmp(type, "Failed") || !strcmp(type, "Succeeded");
    json_array_foreach(conds, i, c)
    {
        const char *t = json_string_value(json_object_get(c, "type"));
        if (!t || !strcmp(t, type) || (!strcmp(type, "Restarting") && !strcmp(t, "Running")) ||
            (!strcmp(type, "Running") && !strcmp(t, "Restarting")))
            continue;
        json_t *cp = json_deep_copy(c);
        if (end && !strcmp(t, "Running"))
            json_object_set_new(cp, "status", json_string("False"));
        json_array_append_new(out, cp);
    }
    return out;
}

void ctl_ptj_set_condition(json_t *status, const char *type, bool value, const char *reason,
                           const char *message, const char *now)
{
    if (ctl_ptj_condition(status, "Failed"))
        return;
    json_t *conds = json_object_get(status, "conditions");
    json_t *cur = sl_kube_condition(conds, type);
    const char *want = value ? "True" : "False";
    const char *cs = json_string_value(json_object_get(cur, "status"));
    const char *cr = json_string_value(json_object_get(cur, "reason"));
    if (cur && cs && cr && !strcmp(cs, want) && !strcmp(cr, reason))
        return;
    const char *ltt = cur && cs && !strcmp(cs, want)
                          ? json_string_value(json_object_get(cur, "lastTransitionTime"))
                          : now;
    json_t *c =
        json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "type", type, "status", want, "reason", reason,
                  "message", message, "lastUpdateTime", now, "lastTransitionTime", ltt ? ltt : now);
    json_t *out = filter(conds, type);
    json_array_append_new(out, c);
    json_object_set_new(status, "conditions", out);
}

typedef struct counts {
    long long active, succeeded, failed;
    int exit_code; /* the last failed pod's first non-zero container exit code */
    int refused;   /* a pod Slurm refused for good (SubmitFailed): no restart helps */
} counts_t;

static int exit_code(json_t *pod)
{
    size_t i;
    json_t *cs;
    json_array_foreach(sl_kube_path(pod, "status.containerStatuses"), i, cs)
    {
        json_t *t = sl_kube_path(cs, "state.terminated");
        if (t && json_integer_value(json_object_get(t, "exitCode")))
            return (int)json_integer_value(json_object_get(t, "exitCode"));
    }
    return 1;
}

static counts_t count(json_t *pods, const char *lower)
{
    counts_t n = {0, 0, 0, 0, 0};
    size_t i;
    json_t *pod;
    json_array_foreach(pods, i, pod)
    {
        const char *t = json_string_value(
            json_object_get(sl_kube_path(pod, "metadata.labels"), L "replica-type"));
        const char *ph = sl_kube_path_str(pod, "status.phase");
        if (!t || strcmp(t, lower) || !ph)
            continue;
        if (!strcmp(ph, "Running"))
            n.active++;
        else if (!strcmp(ph, "Succeeded"))
            n.succeeded++;
        else if (!strcmp(ph, "Failed")) {
            n.failed++;
            n.exit_code = exit_code(pod);
            n.refused |= ctl_pod_gave_up(pod);
        }
    }
    return n;
}

/* "<Kind> <name>" (mpi-operator's: "<Kind> <namespace>/<name>") then rest */
char *ctl_tj_say(const ctl_tj_kind_t *k, json_t *job, const char *rest)
{
    if (k->launcher_rules)
        return sl_xasprintf("%s %s/%s%s", k->kind, sl_kube_namespace(job), sl_kube_name(job), rest);
    return sl_xasprintf("%s %s%s", k->kind, sl_kube_name(job), rest);
}

static void replica_status(const ctl_tj_kind_t *k, json_t *st, json_t *job, const char *type,
                           const char *lower, const counts_t *n)
{
    json_t *rs = json_object_get(st, "replicaStatuses");
    if (!json_is_object(rs))
        json_object_set_new(st, "replicaStatuses", rs = json_object());
    char *sel = sl_xasprintf(L "job-name=%s," L "operator-name=%s," L "replica-type=%s",
                             sl_kube_name(job), k->operator_name, lower);
    json_t *r = json_pack("{s:s}", "selector", sel); /* the counts: omitempty */
    if (n->active)
        json_object_set_new(r, "active", json_integer(n->active));
    if (n->succeeded)
        json_object_set_new(r, "succeeded", json_integer(n->succeeded));
    if (n->failed)
        json_object_set_new(r, "failed", json_integer(n->failed));
    json_object_set_new(rs, type, r);
    free(sel);
}

static void finish(json_t *st, const char *type, const char *reason, const char *msg,
                   const char *now, ptj_next_t *next)
{
    ctl_ptj_set_condition(st, type, true, reason, msg, now);
    if (!json_object_get(st, "completionTime"))
        json_object_set_new(st, "completionTime", json_string(now));
    *next = PTJ_STOP;
}

/* a failed replica of type: restart the gang, or fail (restartPolicy,
 * retryable exit codes, backoffLimit) */
static void failed(const ctl_tj_kind_t *k, json_t *job, json_t *st, const char *type,
                   const counts_t *n, long long attempt, const char *now, ptj_next_t *next)
{
    json_t *rs = sl_kube_path(sl_kube_path(job, k->specs), type);
    const char *rp = json_string_value(json_object_get(rs, "restartPolicy"));
    const char *name = sl_kube_name(job);
    bool again =
        rp && strcmp(rp, "Never") && (strcmp(rp, "ExitCode") || n->exit_code >= 128) && !n->refused;
    json_t *bl = sl_kube_path(job, "spec.runPolicy.backoffLimit");
    char *msg, *rest, rf[64], rr[64];
    snprintf(rf, sizeof(rf), "%sFailed", k->kind);
    snprintf(rr, sizeof(rr), "%sRestarting", k->kind);
    if (again && json_is_integer(bl) && attempt >= json_integer_value(bl)) {
        msg = sl_xasprintf("Job %s has failed because it has reached the specified backoff limit",
                           name);
        finish(st, "Failed", rf, msg, now, next);
    } else if (again) {
        rest = sl_xasprintf(" is restarting because %lld %s replica(s) failed.", n->failed, type);
        msg = ctl_tj_say(k, job, rest);
        free(rest);
        ctl_ptj_set_condition(st, "Restarting", true, rr, msg, now);
        *next = PTJ_RESTART;
    } else {
        rest = k->launcher_rules
                   ? sl_xstrdup(" has failed")
                   : sl_xasprintf(" is failed because %lld %s replica(s) failed.", n->failed, type);
        msg = ctl_tj_say(k, job, rest);
        free(rest);
        finish(st, "Failed", rf, msg, now, next);
    }
    free(msg);
}

/* UpdateJobStatus of a PyTorchJob without a Master, for its Workers:
 * Succeeded once all of them have, or with an elasticPolicy once any has
 * (torchrun's agents end together); else Running while any runs. The
 * messages name namespace/name, as the operator's do there. */
static void workers_only(json_t *job, json_t *st, const counts_t *w, long long want,
                         const char *now, ptj_next_t *next)
{
    bool elastic = json_is_object(sl_kube_path(job, "spec.elasticPolicy"));
    char *msg;
    if (want - w->succeeded == 0 || (elastic && w->succeeded > 0)) {
        msg = sl_xasprintf("PyTorchJob %s/%s successfully completed.", sl_kube_namespace(job),
                           sl_kube_name(job));
        finish(st, "Succeeded", "PyTorchJobSucceeded", msg, now, next);
    } else if (w->active > 0) {
        msg =
            sl_xasprintf("PyTorchJob %s/%s is running.", sl_kube_namespace(job), sl_kube_name(job));
        ctl_ptj_set_condition(st, "Running", true, "PyTorchJobRunning", msg, now);
    } else
        return;
    free(msg);
}

/* UpdateJobStatus for one replica type (t 0: the lead, 1: Worker); n[1]
 * the Workers' counts (mpi-operator's Running needs all of them) */
static void decide(const ctl_tj_kind_t *k, json_t *job, json_t *st, int t, const counts_t *n,
                   long long attempt, const char *now, ptj_next_t *next)
{
    json_t *rs = sl_kube_path(sl_kube_path(job, k->specs), k->types[t]);
    if (!json_is_object(rs))
        return;
    long long want = json_integer_value(json_object_get(rs, "replicas"));
    long long workers = json_integer_value(
        json_object_get(sl_kube_path(sl_kube_path(job, k->specs), k->types[1]), "replicas"));
    char *msg, reason[64];
    if (t == 1 && !k->launcher_rules &&
        !json_is_object(sl_kube_path(sl_kube_path(job, k->specs), k->types[0])))
        workers_only(job, st, &n[1], want, now, next);
    if (*next != PTJ_GO_ON)
        return;
    if (t == 0 && n[0].active && (!k->launcher_rules || n[1].active >= workers)) {
        msg = ctl_tj_say(k, job, " is running.");
        snprintf(reason, sizeof(reason), "%sRunning", k->kind);
        ctl_ptj_set_condition(st, "Running", true, reason, msg, now);
        free(msg);
    }
    if (t == 0 && n[0].succeeded >= want) {
        msg = ctl_tj_say(
            k, job, k->launcher_rules ? " successfully completed." : " is successfully completed.");
        snprintf(reason, sizeof(reason), "%sSucceeded", k->kind);
        finish(st, "Succeeded", reason, msg, now, next);
        free(msg);
    } else if (n[t].failed > 0 && want > n[t].succeeded + n[t].active &&
               (t == 0 || !k->launcher_rules)) /* mpi-operator: the launcher's end decides */
        failed(k, job, st, k->types[t], &n[t], attempt, now, next);
}

static bool deadline_passed(json_t *job, json_t *st, long long now_ns)
{
    json_t *ads = sl_kube_path(job, "spec.runPolicy.activeDeadlineSeconds");
    int64_t start = 0;
    const char *s = json_string_value(json_object_get(st, "startTime"));
    return json_is_integer(ads) && s && sl_kube_parse_rfc3339(s, &start) == 0 &&
           now_ns - start >= json_integer_value(ads) * 1000000000LL;
}

void ctl_tj_replica_statuses(const ctl_tj_kind_t *k, json_t *job, json_t *pods, json_t *st)
{
    for (int t = 0; t < 2; t++) {
        char lower[16];
        ctl_tj_lower(k->types[t], lower, sizeof(lower));
        counts_t n = count(pods, lower);
        if (json_is_object(sl_kube_path(sl_kube_path(job, k->specs), k->types[t])))
            replica_status(k, st, job, k->types[t], lower, &n);
    }
}

void ctl_ptj_replica_statuses(json_t *job, json_t *pods, json_t *st)
{
    ctl_tj_replica_statuses(&ctl_tj_pytorchjob, job, pods, st);
}

json_t *ctl_tj_status(const ctl_tj_kind_t *k, json_t *job, json_t *pods, long long attempt,
                      long long now_ns, ptj_next_t *next)
{
    json_t *old = json_object_get(job, "status");
    json_t *st = json_is_object(old) ? json_deep_copy(old) : json_object();
    char *now = sl_kube_rfc3339(now_ns, 0), reason[64];
    char *msg = ctl_tj_say(k, job, " is created.");
    *next = PTJ_GO_ON;
    snprintf(reason, sizeof(reason), "%sCreated", k->kind);
    ctl_ptj_set_condition(st, "Created", true, reason, msg, now);
    free(msg);
    if (!json_object_get(st, "startTime"))
        json_object_set_new(st, "startTime", json_string(now));
    ctl_tj_replica_statuses(k, job, pods, st);
    counts_t n[2];
    for (int t = 0; t < 2; t++) {
        char lower[16];
        ctl_tj_lower(k->types[t], lower, sizeof(lower));
        n[t] = count(pods, lower);
    }
    for (int t = 0; t < 2 && *next == PTJ_GO_ON; t++)
        decide(k, job, st, t, n, attempt, now, next);
    if (*next == PTJ_GO_ON && deadline_passed(job, st, now_ns)) {
        msg = sl_xasprintf("Job %s has failed because it was active longer than specified deadline",
                           sl_kube_name(job));
        snprintf(reason, sizeof(reason), "%sFailed", k->kind);
        finish(st, "Failed", reason, msg, now, next);
        free(msg);
    }
    free(now);
    return st;
}

json_t *ctl_ptj_status(json_t *job, json_t *pods, long long attempt, long long now_ns,
                       ptj_next_t *next)
{
    return ctl_tj_status(&ctl_tj_pytorchjob, job, pods, attempt, now_ns, next);
}
