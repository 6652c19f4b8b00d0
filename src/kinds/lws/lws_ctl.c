/* lws_ctl.c — the LeaderWorkerSet controller: each group of `size` pods
 * is ONE gang Slurm job (ctl/gang.h), the leader on its first node.
 *
 * Each pass, per LeaderWorkerSet and group g < spec.replicas:
 *   - no pods: the group's pods created together (the quota admits the
 *     group whole or not at all) with the next run number of the LWS
 *     (LWS_ANN_NEXT, recorded before the pods are made), which the pods
 *     and the gang's Slurm job comment carry: a job a crash left is adopted
 *     by it, never submitted twice;
 *   - all there and none submitted: the gang submitted (or adopted);
 *   - a pod ended (RecreateGroupOnPodRestart, RecreateGroupAfterStart) or
 *     every pod ended (None): the group's job cancelled and its pods
 *     deleted; the next pass makes the group anew (a new Slurm job);
 *   - its pods of an older template revision (a rolling update): the group
 *     recreated likewise, from the highest index down, while fewer than
 *     maxUnavailable (+ maxSurge) groups are unready.
 * Groups at g >= spec.replicas (a scale down) are deleted with their jobs.
 * The status follows the groups as upstream's (replicas: the leaders;
 * readyReplicas: groups all of whose pods are Ready; updatedReplicas:
 * groups of the current revision; Available/Progressing/UpdateInProgress;
 * hpaPodSelector). Deletion: every job cancelled, every pod deleted. */
#include "common/log.h"
#include "common/xalloc.h"
#include "ctl/gang.h"
#include "ctl/internal.h"
#include "ctl/podstatus.h"
#include "kinds/lws/lws.h"
#include "kube/meta.h"
#include "pod/pod.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define LWS_KIND "LeaderWorkerSet"
#define LWS_NEW_GROUPS_PER_PASS 32 /* groups made in one pass, at most (a pass stays short) */

typedef struct group {
    json_t *pods;      /* borrowed pods of the group (new array) */
    long long attempt; /* their run */
    bool deleting;     /* a pod being deleted */
    bool submitted;    /* a pod holds the gang's job */
    size_t ended;      /* pods ended (not being deleted) */
    size_t gone;       /* pods being deleted */
    size_t ready;
    bool current; /* every pod of the current revision */
} group_t;

static long long ann_ll(json_t *o, const char *key, long long dflt)
{
    const char *v = sl_kube_annotation(o, key);
    char *end;
    long long n = v && *v ? strtoll(v, &end, 10) : -1;
    return v && *v && !*end && n >= 0 ? n : dflt;
}

static long long label_ll(json_t *o, const char *key)
{
    const char *v = sl_kube_label(o, key);
    char *end;
    long long n = v && *v ? strtoll(v, &end, 10) : -1;
    return v && *v && !*end ? n : -1;
}

/* ---- the LWS's bookkeeping and status ------------------------------------------- */

typedef struct write_arg {
    const char *uid, *key, *value; /* an annotation; or: */
    json_t *status;
} write_arg_t;

static int write_fn(json_t *obj, void *arg)
{
    write_arg_t *a = arg;
    if (strcmp(sl_kube_uid(obj), a->uid))
        return 0;
    if (a->status) {
        if (json_equal(json_object_get(obj, "status"), a->status))
            return 0;
        json_object_set(obj, "status", a->status);
        return 1;
    }
    const char *cur = sl_kube_annotation(obj, a->key);
    if (cur && !strcmp(cur, a->value))
        return 0;
    sl_kube_set_annotation(obj, a->key, a->value);
    return 1;
}

static int write_lws(sl_ctl_t *c, json_t *lws, write_arg_t *a)
{
    sl_error_t err = SL_ERROR_INIT;
    int rc = sl_store_mutate(c->store, LWS_STORE, sl_kube_namespace(lws), sl_kube_name(lws),
                             write_fn, a, NULL, &err);
    if (rc < 0)
        sl_warn(LWS_KIND " %s/%s: cannot write it: %s", sl_kube_namespace(lws), sl_kube_name(lws),
                err.text);
    sl_error_clear(&err);
    return rc < 0 ? -1 : 0;
}

/* the next run number, recorded before it is used (above every run its
 * pods carry, should the annotation have been dropped by a client's
 * replace): -1 when it cannot be recorded */
static long long next_attempt(sl_ctl_t *c, json_t *lws, long long above)
{
    long long n = ann_ll(lws, LWS_ANN_NEXT, 0);
    if (n <= above)
        n = above + 1;
    char buf[24];
    snprintf(buf, sizeof(buf), "%lld", n + 1);
    write_arg_t a = {.uid = sl_kube_uid(lws), .key = LWS_ANN_NEXT, .value = buf};
    if (write_lws(c, lws, &a) < 0)
        return -1;
    sl_kube_set_annotation(lws, LWS_ANN_NEXT, buf); /* this pass sees it too */
    return n;
}

/* ---- pods ------------------------------------------------------------------------ */

/* the pods whose controller ownerReference is the LWS (new ref) */
static json_t *owned_pods(sl_ctl_t *c, json_t *lws)
{
    json_t *all = ctl_pods_naming(c, sl_kube_namespace(lws), sl_kube_uid(lws)), *out = json_array();
    size_t i;
    json_t *pod;
    json_array_foreach(all, i, pod)
    {
        const char *uid = ctl_controller_owner(pod, LWS_KIND, LWS_API_VERSION);
        if (uid && !strcmp(uid, sl_kube_uid(lws)))
            json_array_append(out, pod);
    }
    json_decref(all);
    return out;
}

static bool pod_ready(json_t *pod)
{
    size_t i;
    json_t *cd;
    json_array_foreach(sl_kube_path(pod, "status.conditions"), i, cd)
    {
        const char *t = json_string_value(json_object_get(cd, "type"));
        const char *s = json_string_value(json_object_get(cd, "status"));
        if (t && s && !strcmp(t, "Ready"))
            return !strcmp(s, "True");
    }
    return false;
}

/* the group's Slurm job cancelled (each checked to carry the LWS's uid)
 * and its pods deleted */
static void delete_group(sl_ctl_t *c, json_t *lws, group_t *gr, const char *uid)
{
    size_t i;
    json_t *pod;
    uint32_t done = 0;
    json_array_foreach(gr->pods, i, pod)
    {
        uint32_t id = ctl_pod_job_id(pod);
        if (id && id != done && !ctl_pod_terminal(pod) &&
            ctl_job_kill(sl_kube_namespace(pod), sl_kube_name(pod), uid, id, SIGKILL) == 0) {
            sl_info(LWS_KIND " %s/%s: Slurm job %u cancelled", sl_kube_namespace(pod),
                    sl_kube_name(pod), id);
            done = id;
        }
    }
    json_array_foreach(gr->pods, i, pod)
    {
        if (sl_kube_meta_str(pod, "deletionTimestamp"))
            continue;
        ctl_pod_mutate(c, sl_kube_namespace(pod), sl_kube_name(pod), sl_kube_uid(pod),
                       ctl_pod_mark_deleted_fn, NULL, NULL, NULL);
        if (lws)
            ctl_event(c, lws, "Normal", "SuccessfulDelete", "Deleted pod: %s", sl_kube_name(pod));
    }
}

/* group g's pods, the missing ones of run `attempt` created together */
static void create_group(sl_ctl_t *c, json_t *lws, long long g, long long attempt, group_t *gr)
{
    if (ctl_create_waits(c, sl_kube_uid(lws)))
        return; /* refused before (a quota): the back-off runs */
    json_t *pods = json_array();
    for (long long w = 0; w < lws_size(lws); w++) {
        json_t *pod = lws_new_pod(lws, g, w, attempt);
        bool have = false;
        size_t i;
        json_t *p;
        json_array_foreach(gr ? gr->pods : NULL, i, p) have |=
            !strcmp(sl_kube_name(p), sl_kube_name(pod));
        ctl_status_init(pod, sl_kube_now_ns());
        if (!have)
            json_array_append(pods, pod);
        json_decref(pod);
    }
    sl_error_t err = SL_ERROR_INIT;
    bool forbidden = false;
    if (ctl_pods_create(c, pods, &forbidden, &err) == 0) {
        ctl_create_admitted(c, sl_kube_uid(lws));
        size_t i;
        json_t *pod;
        json_array_foreach(pods, i, pod)
            ctl_event(c, lws, "Normal", "SuccessfulCreate", "Created pod: %s", sl_kube_name(pod));
    } else if (forbidden) {
        ctl_create_refused(c, sl_kube_uid(lws));
        ctl_event(c, lws, "Warning", "FailedCreate", "Error creating: %s", err.text);
    } else {
        sl_warn(LWS_KIND " %s/%s: cannot create group %lld: %s", sl_kube_namespace(lws),
                sl_kube_name(lws), g, err.text);
    }
    sl_error_clear(&err);
    json_decref(pods);
}

/* the group's pods in worker order, all there and none submitted: the gang */
static void submit_group(sl_ctl_t *c, json_t *lws, group_t *gr)
{
    size_t n = json_array_size(gr->pods);
    if (!n || n > CTL_GANG_MAX || (long long)n != lws_size(lws))
        return;
    ctl_gang_member_t m[CTL_GANG_MAX];
    memset(m, 0, sizeof(m));
    size_t i;
    json_t *pod;
    json_array_foreach(gr->pods, i, pod)
    {
        long long w = label_ll(pod, LWS_LABEL_WORKER);
        if (w < 0 || w >= (long long)n || m[w].pod || ctl_pod_job_id(pod) || ctl_pod_terminal(pod))
            return;
        m[w].pod = pod;
    }
    ctl_gang_t gang = {.owner = lws, .kind = LWS_KIND, .attempt = gr->attempt, .m = m, .n = n};
    uint32_t id = 0;
    if (ctl_gang_submit(c, &gang, &id) == 0)
        sl_info(LWS_KIND " %s/%s: group %s is Slurm job %u", sl_kube_namespace(lws),
                sl_kube_name(lws), sl_kube_label(m[0].pod, LWS_LABEL_GROUP), id);
}

/* ---- one pass ---------------------------------------------------------------------- */

/* the pods sorted into groups (those without a group index are left) */
static group_t *sort_groups(json_t *lws, json_t *pods, long long *ngroups)
{
    long long n = lws_replicas(lws);
    size_t i;
    json_t *pod;
    json_array_foreach(pods, i, pod) if (label_ll(pod, LWS_LABEL_GROUP) >= n) n =
        label_ll(pod, LWS_LABEL_GROUP) + 1;
    group_t *gs = sl_xcalloc((size_t)n + 1, sizeof(*gs));
    char rev[11];
    lws_revision(lws, rev);
    for (long long g = 0; g < n; g++)
        gs[g] = (group_t){.attempt = -1, .current = true}; /* pods: made with the first */
    json_array_foreach(pods, i, pod)
    {
        long long g = label_ll(pod, LWS_LABEL_GROUP);
        if (g < 0)
            continue;
        group_t *gr = &gs[g];
        long long a = ann_ll(pod, LWS_ANN_ATTEMPT, 0);
        gr->attempt = a > gr->attempt ? a : gr->attempt;
        if (!gr->pods)
            gr->pods = json_array();
        json_array_append(gr->pods, pod);
        bool del = sl_kube_meta_str(pod, "deletionTimestamp") != NULL;
        gr->deleting |= del;
        gr->gone += del;
        gr->ended += !del && ctl_pod_terminal(pod);
        gr->submitted |= ctl_pod_job_id(pod) != 0;
        gr->ready += pod_ready(pod) ? 1 : 0;
        const char *r = sl_kube_label(pod, LWS_LABEL_REVISION);
        gr->current &= r && !strcmp(r, rev);
    }
    *ngroups = n;
    return gs;
}

static bool group_ready(json_t *lws, const group_t *gr)
{
    return !gr->deleting && (long long)gr->ready == lws_size(lws) &&
           (long long)json_array_size(gr->pods) == lws_size(lws);
}

/* a pod of the group ended: the whole group goes (restartPolicy), the
 * next pass makes it anew */
static bool restart_due(json_t *lws, const group_t *gr)
{
    size_t n = json_array_size(gr->pods), left = n - gr->gone;
    if (!left)
        return false; /* going already */
    if ((gr->gone || (long long)n < lws_size(lws)) && gr->submitted)
        return true; /* a member lost: its gang cannot take it back */
    const char *rp = sl_kube_path_str(lws, "spec.leaderWorkerTemplate.restartPolicy");
    if (rp && !strcmp(rp, "None"))
        return gr->ended == left;
    return gr->ended > 0;
}

static long long scaled(json_t *lws, const char *key, bool up)
{
    json_t *v =
        sl_kube_path(sl_kube_path(lws, "spec.rolloutStrategy.rollingUpdateConfiguration"), key);
    if (json_is_integer(v))
        return json_integer_value(v);
    long long pct = json_is_string(v) ? atoll(json_string_value(v)) : 0, r = lws_replicas(lws);
    return up ? (pct * r + 99) / 100 : pct * r / 100;
}

/* rollingUpdateConfiguration.partition: groups below it keep their template */
static long long partition(json_t *lws)
{
    json_t *v = sl_kube_path(lws, "spec.rolloutStrategy.rollingUpdateConfiguration.partition");
    return json_is_integer(v) && json_integer_value(v) > 0 ? json_integer_value(v) : 0;
}

/* lagging: minus the groups at or above the partition not yet updated */
static json_t *conditions(json_t *lws, long long ready, long long lagging, long long want)
{
    const char *type = "Progressing", *reason = "GroupsProgressing",
               *msg = "Replicas are progressing";
    if (lagging < 0) {
        type = "UpdateInProgress";
        reason = "GroupsUpdating";
        msg = "Rolling Upgrade is in progress";
    } else if (ready == want) {
        type = "Available";
        reason = "AllGroupsReady";
        msg = "All replicas are ready";
    }
    json_t *out = json_array(), *old = sl_kube_path(lws, "status.conditions");
    static const char *const types[] = {"Available", "Progressing", "UpdateInProgress"};
    long long gen = json_integer_value(sl_kube_path(lws, "metadata.generation"));
    for (size_t t = 0; t < 3; t++) {
        bool on = !strcmp(types[t], type) ||
                  (!strcmp(types[t], "Progressing") && !strcmp(type, "UpdateInProgress"));
        json_t *prev = NULL, *cd;
        size_t i;
        json_array_foreach(
            old, i, cd) if (!strcmp(json_string_value(json_object_get(cd, "type")) ?: "", types[t]))
            prev = cd;
        if (!prev && !on)
            continue;
        const char *ps = json_string_value(json_object_get(prev, "status"));
        bool same = ps && !strcmp(ps, on ? "True" : "False");
        char *now = sl_kube_now_rfc3339();
        json_array_append_new(
            out, same ? json_deep_copy(prev)
                      : json_pack("{s:s, s:s, s:s, s:s, s:s, s:I}", "type", types[t], "status",
                                  on ? "True" : "False", "reason",
                                  on ? (!strcmp(types[t], "Progressing") ? "GroupsProgressing"
                                                                         : reason)
                                     : json_string_value(json_object_get(prev, "reason")) ?: reason,
                                  "message",
                                  on ? (!strcmp(types[t], "Progressing") ? "Replicas are progressing"
                                                                         : msg)
                                     : json_string_value(json_object_get(prev, "message")) ?: msg,
                                  "lastTransitionTime", now, "observedGeneration",
                                  (json_int_t)gen));
        json_object_set_new(json_array_get(out, json_array_size(out) - 1), "observedGeneration",
                            json_integer(gen));
        free(now);
    }
    return out;
}

static void write_status(sl_ctl_t *c, json_t *lws, const group_t *gs, long long want)
{
    long long leaders = 0, ready = 0, updated = 0, part = partition(lws), pupd = 0;
    for (long long g = 0; g < want; g++) {
        size_t i;
        json_t *pod;
        json_array_foreach(gs[g].pods, i, pod) leaders += label_ll(pod, LWS_LABEL_WORKER) == 0;
        ready += group_ready(lws, &gs[g]);
        bool upd = json_array_size(gs[g].pods) && gs[g].current;
        updated += upd;
        pupd += upd && g >= part; /* the groups the update is for */
    }
    char *sel = sl_xasprintf(LWS_LABEL_NAME "=%s," LWS_LABEL_WORKER "=0", sl_kube_name(lws));
    json_t *conds = conditions(lws, ready, pupd - (want > part ? want - part : 0), want);
    json_t *st = json_pack("{s:I, s:I, s:I, s:I, s:s, s:o}", "observedGeneration",
                           (json_int_t)json_integer_value(sl_kube_path(lws, "metadata.generation")),
                           "replicas", (json_int_t)leaders, "readyReplicas", (json_int_t)ready,
                           "updatedReplicas", (json_int_t)updated, "hpaPodSelector", sel,
                           "conditions", conds);
    free(sel);
    json_t *old = json_object_get(lws, "status");
    json_t *oc = json_object_get(old, "conditions");
    size_t i;
    json_t *cd;
    json_array_foreach(conds, i, cd)
    {
        const char *s = json_string_value(json_object_get(cd, "status"));
        bool was = false;
        size_t k;
        json_t *o;
        json_array_foreach(oc, k, o) was |= json_equal(o, cd);
        if (!was && s && !strcmp(s, "True"))
            ctl_event(c, lws, "Normal", json_string_value(json_object_get(cd, "reason")),
                      "%s, with %lld groups ready of total %lld groups",
                      json_string_value(json_object_get(cd, "message")), ready, want);
    }
    write_arg_t a = {.uid = sl_kube_uid(lws), .status = st};
    write_lws(c, lws, &a);
    json_decref(st);
}

/* one group below spec.replicas: made, submitted, recreated or rolled */
static void group_pass(sl_ctl_t *c, json_t *lws, long long g, group_t *gr, long long *unready,
                       long long budget, long long top, int *made)
{
    if (!json_array_size(gr->pods)) {
        if ((*made)++ >= LWS_NEW_GROUPS_PER_PASS)
            return; /* the next pass makes more */
        long long a = next_attempt(c, lws, top);
        if (a >= 0)
            create_group(c, lws, g, a, NULL);
        return;
    }
    if (restart_due(lws, gr)) {
        ctl_event(c, lws, "Normal", "RecreateGroupOnPodRestart",
                  "A pod of group %lld ended or was deleted: the group is recreated", g);
        delete_group(c, lws, gr, sl_kube_uid(lws));
        return;
    }
    if (gr->deleting)
        return; /* the rest follows once its pods are gone */
    if (!gr->current && g >= partition(lws) && (group_ready(lws, gr) ? *unready < budget : true)) {
        if (group_ready(lws, gr))
            (*unready)++;
        ctl_event(c, lws, "Normal", "GroupsUpdating",
                  "Group %lld is recreated from the new template", g);
        delete_group(c, lws, gr, sl_kube_uid(lws));
        return;
    }
    if ((long long)json_array_size(gr->pods) < lws_size(lws))
        create_group(c, lws, g, gr->attempt, gr);
    else
        submit_group(c, lws, gr);
}

void lws_reconcile(sl_ctl_t *c, json_t *lws)
{
    if (sl_kube_meta_str(lws, "deletionTimestamp"))
        return;
    json_t *pods = owned_pods(c, lws);
    long long n, want = lws_replicas(lws);
    group_t *gs = sort_groups(lws, pods, &n);
    long long unready = 0;
    for (long long g = 0; g < want && g < n; g++)
        unready += !group_ready(lws, &gs[g]);
    long long budget = scaled(lws, "maxUnavailable", false) + scaled(lws, "maxSurge", true);
    long long top = -1; /* the highest run the pods carry */
    int made = 0;
    for (long long g = 0; g < n; g++)
        top = gs[g].attempt > top ? gs[g].attempt : top;
    for (long long g = n - 1; g >= 0; g--) {
        if (g >= want) { /* scaled down */
            if (json_array_size(gs[g].pods) > gs[g].gone)
                delete_group(c, lws, &gs[g], sl_kube_uid(lws));
        } else {
            group_pass(c, lws, g, &gs[g], &unready, budget, top, &made);
        }
    }
    write_status(c, lws, gs, want);
    for (long long g = 0; g < n; g++)
        json_decref(gs[g].pods);
    free(gs);
    json_decref(pods);
}

/* ---- deletion ------------------------------------------------------------------------ */

void lws_gone(sl_ctl_t *c, json_t *lws)
{
    json_t *pods = owned_pods(c, lws);
    group_t all = {.pods = pods};
    delete_group(c, NULL, &all, sl_kube_uid(lws));
    sl_info(LWS_KIND " %s/%s deleted: %zu pods deleted with it", sl_kube_namespace(lws),
            sl_kube_name(lws), json_array_size(pods));
    json_decref(pods);
}
