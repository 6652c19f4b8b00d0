/* ctl.c — the Deployment controller (kube's pkg/controller/deployment),
 * one pass per stored Deployment:
 *
 *   - its ReplicaSets are those whose controller ownerReference is it; the
 *     new one is the one whose pod template equals the Deployment's (the
 *     pod-template-hash label aside), made when none does as
 *     <deploy>-<hash> with the next revision;
 *   - RollingUpdate: the new one scaled up while the total stays within
 *     replicas + maxSurge, the old ones down (their unavailable pods
 *     first, oldest ReplicaSet first) while the available pods stay at
 *     least replicas - maxUnavailable; Recreate: the old ones to 0, and the
 *     new one up once none of their pods is left;
 *   - old ReplicaSets at 0 beyond revisionHistoryLimit deleted; a paused
 *     Deployment only scaled;
 *   - its status: counts summed over its ReplicaSets, Available and
 *     Progressing with kube's reasons, the progress deadline.
 *
 * The template hash is FNV-1a (32 bits) of the template's JSON with sorted
 * keys, written in kube's SafeEncodeString alphabet: the same template
 * gives the same name after a restart, so a slurmlinkd killed mid-way makes
 * no ReplicaSet twice. */
#include "common/log.h"
#include "common/xalloc.h"
#include "ctl/internal.h"
#include "kinds/deployment/deployment.h"
#include "kinds/replicaset/replicaset.h"
#include "kinds/replicaset/rsctl.h"
#include "kube/meta.h"
#include "kube/selector.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define STORE_D "deployments.apps"
#define STORE_RS "replicasets.apps"

typedef struct dstate {
    json_t *d;    /* the Deployment (borrowed) */
    json_t *olds; /* its other ReplicaSets, oldest first (new ref) */
    json_t *nrs;  /* the new one or NULL (new ref) */
    long long replicas, surge, unavail;
    bool created; /* the new ReplicaSet was made in this pass */
} dstate_t;

/* the template as hashed and compared: without the hash label, and a null
 * creationTimestamp (a zero time, as some clients send it) left out, as
 * the Go value kube hashes has no trace of either */
static json_t *without_hash(json_t *tmpl)
{
    json_t *t = json_deep_copy(tmpl);
    json_t *meta = json_object_get(t, "metadata");
    json_object_del(json_object_get(meta, "labels"), SL_RS_HASH_LABEL);
    if (json_is_null(json_object_get(meta, "creationTimestamp")))
        json_object_del(meta, "creationTimestamp");
    return t;
}

static void template_hash(json_t *tmpl, char out[16])
{
    json_t *t = without_hash(tmpl);
    char *s = json_dumps(t, JSON_COMPACT | JSON_SORT_KEYS);
    uint32_t h = 2166136261u;
    for (const char *p = s; p && *p; p++) {
        h ^= (unsigned char)*p;
        h *= 16777619u;
    }
    free(s);
    json_decref(t);
    char dec[16];
    snprintf(dec, sizeof(dec), "%u", h);
    static const char alpha[] = "bcdfghjklmnpqrstvwxz2456789";
    size_t i = 0;
    for (; dec[i] && i < 15; i++)
        out[i] = alpha[(unsigned char)dec[i] % 27];
    out[i] = '\0';
}

static bool same_template(json_t *a, json_t *b)
{
    json_t *x = without_hash(a), *y = without_hash(b);
    bool eq = json_equal(x, y);
    json_decref(x);
    json_decref(y);
    return eq;
}

static long long revision(json_t *rs)
{
    const char *r = sl_kube_annotation(rs, SL_DEPLOY_ANN_REVISION);
    return r ? atoll(r) : 0;
}

static long long ival(json_t *o, const char *path)
{
    return json_integer_value(sl_kube_path(o, path));
}

static int cmp_created(const void *a, const void *b)
{
    json_t *x = *(json_t *const *)a, *y = *(json_t *const *)b;
    const char *cx = sl_kube_meta_str(x, "creationTimestamp");
    const char *cy = sl_kube_meta_str(y, "creationTimestamp");
    int c = strcmp(cx ? cx : "", cy ? cy : "");
    return c ? c : strcmp(sl_kube_name(x), sl_kube_name(y));
}

static bool has_controller(json_t *obj)
{
    size_t i;
    json_t *r;
    json_array_foreach(sl_kube_path(obj, "metadata.ownerReferences"), i, r)
    {
        if (json_is_true(json_object_get(r, "controller")))
            return true;
    }
    return false;
}

static bool same_str(const char *a, const char *b) { return a && b ? !strcmp(a, b) : a == b; }

static int adopt_fn(json_t *rs, void *arg)
{
    json_t *d = arg;
    if (has_controller(rs) || sl_kube_meta_str(rs, "deletionTimestamp"))
        return 0;
    json_t *refs = sl_kube_path(rs, "metadata.ownerReferences");
    if (!json_is_array(refs))
        json_object_set_new(sl_kube_meta(rs), "ownerReferences", refs = json_array());
    json_array_append_new(refs,
                          json_pack("{s:s, s:s, s:s, s:s, s:b, s:b}", "apiVersion", "apps/v1",
                                    "kind", "Deployment", "name", sl_kube_name(d), "uid",
                                    sl_kube_uid(d), "controller", 1, "blockOwnerDeletion", 1));
    return 1;
}

/* ClaimReplicaSets' adoption: an orphan (no controller; left by a
 * deletion with --cascade=orphan) whose labels the selector matches and
 * whose pods run as the same user; the adopted version, or NULL */
static json_t *adopt(sl_ctl_t *c, json_t *d, json_t *rs)
{
    if (has_controller(rs) || sl_kube_meta_str(rs, "deletionTimestamp") ||
        !same_str(sl_kube_annotation(rs, SL_ANN_USER), sl_kube_annotation(d, SL_ANN_USER)))
        return NULL;
    json_t *sel = sl_kube_path(d, "spec.selector");
    sl_kube_selector_t *k =
        json_is_object(sel) ? sl_kube_label_selector_from_json(sel, NULL) : NULL;
    bool match = k && !sl_kube_selector_empty(k) &&
                 sl_kube_selector_match_labels(k, sl_kube_path(rs, "metadata.labels"));
    sl_kube_selector_destroy(k);
    json_t *out = NULL;
    if (!match || sl_store_mutate(c->store, STORE_RS, sl_kube_namespace(rs), sl_kube_name(rs),
                                  adopt_fn, d, &out, NULL) < 0)
        return NULL;
    if (sl_rs_controller_of(out, "Deployment") &&
        !strcmp(sl_rs_controller_of(out, "Deployment"), sl_kube_uid(d))) {
        ctl_event(c, d, "Normal", "Adopted", "replica set %s adopted", sl_kube_name(out));
        return out;
    }
    json_decref(out);
    return NULL;
}

/* its ReplicaSets, oldest first (new ref); orphans adopted unless gone */
static json_t *owned_rss(sl_ctl_t *c, json_t *d, bool claim)
{
    json_t *all = sl_store_list(c->store, STORE_RS, sl_kube_namespace(d), NULL);
    json_t *mine = json_array();
    size_t i;
    json_t *rs, *got;
    json_array_foreach(all, i, rs)
    {
        const char *o = sl_rs_controller_of(rs, "Deployment");
        if (o && !strcmp(o, sl_kube_uid(d)))
            json_array_append(mine, rs);
        else if (claim && !o && (got = adopt(c, d, rs)))
            json_array_append_new(mine, got);
    }
    size_t n = json_array_size(mine);
    json_t **v = sl_xcalloc(n + 1, sizeof(*v));
    for (i = 0; i < n; i++)
        v[i] = json_array_get(mine, i);
    qsort(v, n, sizeof(*v), cmp_created);
    json_t *out = json_array();
    for (i = 0; i < n; i++)
        json_array_append(out, v[i]);
    free(v);
    json_decref(mine);
    json_decref(all);
    return out;
}

static void split(dstate_t *s, json_t *rss)
{
    s->olds = json_array();
    s->nrs = NULL;
    json_t *tmpl = sl_kube_path(s->d, "spec.template");
    size_t i;
    json_t *rs;
    json_array_foreach(rss, i, rs)
    {
        if (!s->nrs && same_template(sl_kube_path(rs, "spec.template"), tmpl))
            s->nrs = json_incref(rs);
        else
            json_array_append(s->olds, rs);
    }
}

static long long sum(dstate_t *s, const char *path)
{
    long long n = s->nrs ? ival(s->nrs, path) : 0;
    size_t i;
    json_t *rs;
    json_array_foreach(s->olds, i, rs) n += ival(rs, path);
    return n;
}

static long long max_old_revision(dstate_t *s)
{
    long long m = 0;
    size_t i;
    json_t *rs;
    json_array_foreach(s->olds, i, rs) if (revision(rs) > m) m = revision(rs);
    return m;
}

/* the Deployment's annotations a ReplicaSet carries (kube's
 * SetNewReplicaSetAnnotations skips these) */
static bool copied_annotation(const char *k)
{
    static const char *const skip[] = {"kubectl.kubernetes.io/last-applied-configuration",
                                       SL_DEPLOY_ANN_REVISION,
                                       "deployment.kubernetes.io/revision-history",
                                       SL_DEPLOY_ANN_DESIRED,
                                       SL_DEPLOY_ANN_MAX,
                                       "deprecated.deployment.rollback.to"};
    for (size_t i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
        if (!strcmp(k, skip[i]))
            return false;
    return true;
}

typedef struct rs_edit {
    dstate_t *s;
    long long replicas; /* -1: unchanged */
    long long revision; /* 0: unchanged */
} rs_edit_t;

static void set_rs_annotations(dstate_t *s, json_t *rs, long long rev)
{
    const char *k;
    json_t *v;
    json_object_foreach(sl_kube_path(s->d, "metadata.annotations"), k, v)
    {
        if (copied_annotation(k) && json_is_string(v))
            sl_kube_set_annotation(rs, k, json_string_value(v));
    }
    char b[32];
    snprintf(b, sizeof(b), "%lld", s->replicas);
    sl_kube_set_annotation(rs, SL_DEPLOY_ANN_DESIRED, b);
    snprintf(b, sizeof(b), "%lld", s->replicas + s->surge);
    sl_kube_set_annotation(rs, SL_DEPLOY_ANN_MAX, b);
    if (rev > 0) {
        snprintf(b, sizeof(b), "%lld", rev);
        sl_kube_set_annotation(rs, SL_DEPLOY_ANN_REVISION, b);
    }
}

static int rs_edit_fn(json_t *rs, void *arg)
{
    rs_edit_t *e = arg;
    json_t *before = json_deep_copy(rs);
    set_rs_annotations(e->s, rs, e->revision);
    if (e->replicas >= 0 && ival(rs, "spec.replicas") != e->replicas) {
        json_object_set_new(json_object_get(rs, "spec"), "replicas", json_integer(e->replicas));
        json_object_set_new(sl_kube_meta(rs), "generation",
                            json_integer(ival(rs, "metadata.generation") + 1));
    }
    int changed = !json_equal(before, rs);
    json_decref(before);
    return changed;
}

/* rs scaled to n (and the Deployment's annotations on it); the local copy
 * follows */
static void scale_rs(sl_ctl_t *c, dstate_t *s, json_t *rs, long long n, long long rev)
{
    long long from = ival(rs, "spec.replicas");
    rs_edit_t e = {s, n, rev};
    json_t *out = NULL;
    if (sl_store_mutate(c->store, STORE_RS, sl_kube_namespace(rs), sl_kube_name(rs), rs_edit_fn, &e,
                        &out, NULL) < 0)
        return;
    json_object_update(rs, out);
    json_decref(out);
    if (n >= 0 && n != from)
        ctl_event(c, s->d, "Normal", "ScalingReplicaSet",
                  "Scaled %s replica set %s from %lld to %lld", n > from ? "up" : "down",
                  sl_kube_name(rs), from, n);
}

static json_t *new_rs_object(dstate_t *s, const char *hash, long long n, long long rev)
{
    json_t *d = s->d;
    json_t *tmpl = json_deep_copy(sl_kube_path(d, "spec.template"));
    json_t *tl = json_object_get(json_object_get(tmpl, "metadata"), "labels");
    json_object_set_new(tl, SL_RS_HASH_LABEL, json_string(hash));
    json_t *sel = json_deep_copy(sl_kube_path(d, "spec.selector"));
    json_t *ml = json_object_get(sel, "matchLabels");
    if (!json_is_object(ml))
        json_object_set_new(sel, "matchLabels", ml = json_object());
    json_object_set_new(ml, SL_RS_HASH_LABEL, json_string(hash));
    char *name = sl_xasprintf("%s-%s", sl_kube_name(d), hash);
    json_t *rs =
        json_pack("{s:s, s:s, s:{s:s, s:s, s:O}, s:{s:I, s:I, s:o, s:o}}", "apiVersion", "apps/v1",
                  "kind", "ReplicaSet", "metadata", "name", name, "namespace", sl_kube_namespace(d),
                  "labels", tl, "spec", "replicas", (json_int_t)n, "minReadySeconds",
                  (json_int_t)ival(d, "spec.minReadySeconds"), "selector", sel, "template", tmpl);
    free(name);
    set_rs_annotations(s, rs, rev);
    const char *user = sl_kube_annotation(d, SL_ANN_USER);
    if (user)
        sl_kube_set_annotation(rs, SL_ANN_USER, user);
    json_object_set_new(sl_kube_meta(rs), "ownerReferences",
                        json_pack("[{s:s, s:s, s:s, s:s, s:b, s:b}]", "apiVersion", "apps/v1",
                                  "kind", "Deployment", "name", sl_kube_name(d), "uid",
                                  sl_kube_uid(d), "controller", 1, "blockOwnerDeletion", 1));
    sl_rs_api_ops.defaults(rs);
    sl_rs_api_ops.prepare_create(rs);
    return rs;
}

/* NewRSNewReplicas: RollingUpdate within replicas + maxSurge, Recreate all */
static long long first_replicas(dstate_t *s, bool recreate)
{
    if (recreate)
        return s->replicas;
    long long room = s->replicas + s->surge - sum(s, "spec.replicas");
    return room <= 0 ? 0 : room < s->replicas ? room : s->replicas;
}

static void create_new_rs(sl_ctl_t *c, dstate_t *s, bool recreate)
{
    char hash[16];
    template_hash(sl_kube_path(s->d, "spec.template"), hash);
    json_t *rs = new_rs_object(s, hash, first_replicas(s, recreate), max_old_revision(s) + 1);
    sl_error_t err = SL_ERROR_INIT;
    int rc = sl_rs_api_ops.validate_create(rs, &err);
    if (rc == 0)
        rc = sl_store_create(c->store, STORE_RS, rs, &err);
    if (rc < 0 && errno == EEXIST) { /* made by an earlier pass that did not finish */
        json_t *cur = sl_store_get(c->store, STORE_RS, sl_kube_namespace(rs), sl_kube_name(rs));
        const char *o = cur ? sl_rs_controller_of(cur, "Deployment") : NULL;
        if (o && !strcmp(o, sl_kube_uid(s->d)))
            s->nrs = json_incref(cur);
        json_decref(cur);
    } else if (rc < 0) {
        ctl_event(c, s->d, "Warning", "FailedCreate", "Failed to create new replica set %s: %s",
                  sl_kube_name(rs), err.text);
    } else {
        s->nrs = json_incref(rs);
        s->created = true;
        ctl_event(c, s->d, "Normal", "ScalingReplicaSet", "Scaled up replica set %s from 0 to %lld",
                  sl_kube_name(rs), ival(rs, "spec.replicas"));
    }
    sl_error_clear(&err);
    json_decref(rs);
}

/* reconcileNewReplicaSet */
static void roll_new(sl_ctl_t *c, dstate_t *s)
{
    long long cur = ival(s->nrs, "spec.replicas");
    if (cur > s->replicas) {
        scale_rs(c, s, s->nrs, s->replicas, 0);
        return;
    }
    long long room = s->replicas + s->surge - sum(s, "spec.replicas");
    if (cur < s->replicas && room > 0)
        scale_rs(c, s, s->nrs, cur + (room < s->replicas - cur ? room : s->replicas - cur), 0);
}

/* the available pods of rs that it keeps: a ReplicaSet scaled down in
 * this pass still counts the pods it is about to delete */
static long long kept_available(json_t *rs)
{
    long long a = ival(rs, "status.availableReplicas"), w = ival(rs, "spec.replicas");
    return a < w ? a : w;
}

static long long sum_available(dstate_t *s)
{
    long long n = s->nrs ? kept_available(s->nrs) : 0;
    size_t i;
    json_t *rs;
    json_array_foreach(s->olds, i, rs) n += kept_available(rs);
    return n;
}

/* reconcileOldReplicaSets: unhealthy replicas first, then down to the
 * minimum available */
static void roll_old(sl_ctl_t *c, dstate_t *s)
{
    long long min_avail = s->replicas - s->unavail;
    long long new_unavail = s->nrs ? ival(s->nrs, "spec.replicas") - kept_available(s->nrs) : 0;
    long long budget = sum(s, "spec.replicas") - min_avail - new_unavail;
    size_t i;
    json_t *rs;
    json_array_foreach(s->olds, i, rs)
    {
        long long want = ival(rs, "spec.replicas"), unhealthy = want - kept_available(rs);
        if (budget <= 0 || want == 0 || unhealthy <= 0)
            continue;
        long long down = unhealthy < budget ? unhealthy : budget;
        scale_rs(c, s, rs, want - down, 0);
        budget -= down;
    }
    long long can = sum_available(s) - min_avail;
    json_array_foreach(s->olds, i, rs)
    {
        long long want = ival(rs, "spec.replicas");
        if (can <= 0)
            break;
        if (want == 0)
            continue;
        long long down = want < can ? want : can;
        scale_rs(c, s, rs, want - down, 0);
        can -= down;
    }
}

/* rolloutRecreate: the old ones to 0, the new one up once their pods are gone */
static void recreate(sl_ctl_t *c, dstate_t *s)
{
    size_t i;
    json_t *rs;
    bool left = false;
    json_array_foreach(s->olds, i, rs)
    {
        if (ival(rs, "spec.replicas"))
            scale_rs(c, s, rs, 0, 0);
        json_t *pods = sl_rs_owned_pods(c, rs, "ReplicaSet");
        left |= json_array_size(pods) > 0;
        json_decref(pods);
    }
    if (left)
        return;
    if (!s->nrs)
        create_new_rs(c, s, true);
    else if (ival(s->nrs, "spec.replicas") != s->replicas)
        scale_rs(c, s, s->nrs, s->replicas, 0);
}

static int cmp_revision(const void *a, const void *b)
{
    long long x = revision(*(json_t *const *)a), y = revision(*(json_t *const *)b);
    return x < y ? -1 : x > y;
}

/* cleanupDeployment: old ReplicaSets at 0 beyond revisionHistoryLimit */
static void cleanup(sl_ctl_t *c, dstate_t *s)
{
    json_t *lim = sl_kube_path(s->d, "spec.revisionHistoryLimit");
    if (!json_is_integer(lim))
        return;
    size_t i, n = 0;
    json_t *rs, **v = sl_xcalloc(json_array_size(s->olds) + 1, sizeof(*v));
    json_array_foreach(s->olds, i, rs)
    {
        if (!ival(rs, "spec.replicas") && !ival(rs, "status.replicas") &&
            !sl_kube_meta_str(rs, "deletionTimestamp"))
            v[n++] = rs;
    }
    qsort(v, n, sizeof(*v), cmp_revision);
    for (i = 0; (long long)(n - i) > json_integer_value(lim); i++)
        sl_store_delete(c->store, STORE_RS, sl_kube_namespace(v[i]), sl_kube_name(v[i]), 0, NULL,
                        NULL);
    free(v);
}

/* SetDeploymentCondition: the same status and reason leave it as it is;
 * the same status keeps lastTransitionTime; force: lastUpdateTime renewed
 * even with the same reason (the Progressing condition on progress) */
static void set_cond(json_t *st, const char *type, const char *status, const char *reason,
                     const char *msg, bool force)
{
    json_t *conds = json_object_get(st, "conditions");
    if (!json_is_array(conds))
        json_object_set_new(st, "conditions", conds = json_array());
    json_t *cur = sl_kube_condition(conds, type);
    const char *cs = json_string_value(json_object_get(cur, "status"));
    const char *cr = json_string_value(json_object_get(cur, "reason"));
    bool same_status = cs && !strcmp(cs, status);
    if (same_status && cr && !strcmp(cr, reason) && !force)
        return;
    char *now = sl_kube_now_rfc3339();
    json_t *c =
        json_pack("{s:s, s:s, s:s, s:s, s:s, s:s}", "type", type, "status", status, "reason",
                  reason, "message", msg, "lastUpdateTime", now, "lastTransitionTime", now);
    if (same_status)
        json_object_set(c, "lastTransitionTime", json_object_get(cur, "lastTransitionTime"));
    size_t i;
    json_t *x;
    json_array_foreach(conds, i, x) if (x == cur) json_array_remove(conds, i--);
    json_array_append_new(conds, c);
    free(now);
}

static bool timed_out(json_t *d, json_t *st)
{
    json_t *cur = sl_kube_condition(json_object_get(st, "conditions"), "Progressing");
    const char *r = json_string_value(json_object_get(cur, "reason"));
    if (!cur || (r && !strcmp(r, "ProgressDeadlineExceeded")))
        return cur != NULL;
    int64_t t = 0;
    const char *lu = json_string_value(json_object_get(cur, "lastUpdateTime"));
    json_t *pd = sl_kube_path(d, "spec.progressDeadlineSeconds");
    return json_is_integer(pd) && lu && sl_kube_parse_rfc3339(lu, &t) == 0 &&
           t + json_integer_value(pd) * 1000000000LL < sl_kube_now_ns();
}

/* syncRolloutStatus's Progressing condition */
static void progressing(dstate_t *s, json_t *old, json_t *st)
{
    const char *n = s->nrs ? sl_kube_name(s->nrs) : "";
    char msg[400];
    if (json_is_true(sl_kube_path(s->d, "spec.paused"))) {
        set_cond(st, "Progressing", "Unknown", "DeploymentPaused", "Deployment is paused", false);
        return;
    }
    json_t *cur = sl_kube_condition(json_object_get(st, "conditions"), "Progressing");
    const char *cr = json_string_value(json_object_get(cur, "reason"));
    if (cr && !strcmp(cr, "DeploymentPaused"))
        set_cond(st, "Progressing", "Unknown", "DeploymentResumed", "Deployment is resumed", false);
    long long want = s->replicas;
    bool complete = ival(st, "updatedReplicas") == want && ival(st, "availableReplicas") == want &&
                    ival(st, "replicas") == want;
    long long old_old = ival(old, "replicas") - ival(old, "updatedReplicas");
    long long new_old = ival(st, "replicas") - ival(st, "updatedReplicas");
    bool moved = ival(st, "updatedReplicas") > ival(old, "updatedReplicas") ||
                 ival(st, "readyReplicas") > ival(old, "readyReplicas") ||
                 ival(st, "availableReplicas") > ival(old, "availableReplicas") ||
                 old_old > new_old;
    if (complete) {
        snprintf(msg, sizeof(msg), "ReplicaSet \"%s\" has successfully progressed.", n);
        set_cond(st, "Progressing", "True", "NewReplicaSetAvailable", msg, false);
    } else if (s->created) {
        snprintf(msg, sizeof(msg), "Created new replica set \"%s\"", n);
        set_cond(st, "Progressing", "True", "NewReplicaSetCreated", msg, false);
    } else if (moved) {
        snprintf(msg, sizeof(msg), "ReplicaSet \"%s\" is progressing.", n);
        set_cond(st, "Progressing", "True", "ReplicaSetUpdated", msg, true);
    } else if (timed_out(s->d, st)) {
        snprintf(msg, sizeof(msg), "ReplicaSet \"%s\" has timed out progressing.", n);
        set_cond(st, "Progressing", "False", "ProgressDeadlineExceeded", msg, false);
    }
}

/* calculateStatus and the conditions */
static json_t *status_of(dstate_t *s)
{
    json_t *old = sl_kube_path(s->d, "status");
    json_t *st = json_is_object(old) ? json_deep_copy(old) : json_object();
    long long avail = sum(s, "status.availableReplicas");
    json_object_set(st, "observedGeneration", sl_kube_path(s->d, "metadata.generation"));
    json_object_set_new(st, "replicas", json_integer(sum(s, "status.replicas")));
    json_object_set_new(st, "updatedReplicas",
                        json_integer(s->nrs ? ival(s->nrs, "status.replicas") : 0));
    json_object_set_new(st, "readyReplicas", json_integer(sum(s, "status.readyReplicas")));
    json_object_set_new(st, "availableReplicas", json_integer(avail));
    long long un = s->replicas - avail;
    json_object_set_new(st, "unavailableReplicas", json_integer(un > 0 ? un : 0));
    static const char *const zero[] = {"replicas", "updatedReplicas", "readyReplicas",
                                       "availableReplicas", "unavailableReplicas"};
    for (size_t i = 0; i < sizeof(zero) / sizeof(zero[0]); i++) /* omitempty */
        if (!ival(st, zero[i]))
            json_object_del(st, zero[i]);
    if (avail >= s->replicas - s->unavail)
        set_cond(st, "Available", "True", "MinimumReplicasAvailable",
                 "Deployment has minimum availability.", false);
    else
        set_cond(st, "Available", "False", "MinimumReplicasUnavailable",
                 "Deployment does not have minimum availability.", false);
    progressing(s, old, st);
    return st;
}

static int revision_fn(json_t *d, void *arg)
{
    const char *cur = sl_kube_annotation(d, SL_DEPLOY_ANN_REVISION);
    if (cur && !strcmp(cur, arg))
        return 0;
    sl_kube_set_annotation(d, SL_DEPLOY_ANN_REVISION, arg);
    return 1;
}

/* the new ReplicaSet's revision the next one when an old template came
 * back (rollout undo), and the Deployment's annotation its */
static void sync_revision(sl_ctl_t *c, dstate_t *s)
{
    long long max = max_old_revision(s);
    if (revision(s->nrs) <= max)
        scale_rs(c, s, s->nrs, -1, max + 1);
    else
        scale_rs(c, s, s->nrs, -1, 0); /* the Deployment's annotations */
    char b[32];
    snprintf(b, sizeof(b), "%lld", revision(s->nrs));
    sl_store_mutate(c->store, STORE_D, sl_kube_namespace(s->d), sl_kube_name(s->d), revision_fn, b,
                    NULL, NULL);
}

static void strategy_of(dstate_t *s)
{
    s->replicas = sl_rs_replicas(s->d);
    json_t *ru = sl_kube_path(s->d, "spec.strategy.rollingUpdate");
    const char *type = sl_kube_path_str(s->d, "spec.strategy.type");
    bool rolling = !type || !strcmp(type, "RollingUpdate");
    s->surge =
        rolling ? sl_deploy_scaled(json_object_get(ru, "maxSurge"), s->replicas, true, 0) : 0;
    s->unavail =
        rolling ? sl_deploy_scaled(json_object_get(ru, "maxUnavailable"), s->replicas, false, 0)
                : 0;
    if (rolling && s->surge == 0 && s->unavail == 0)
        s->unavail = 1; /* ResolveFenceposts */
    if (s->unavail > s->replicas)
        s->unavail = s->replicas;
}

/* the ReplicaSets of a Deployment being deleted: deleted (each takes its
 * pods) or orphaned */
static void rss_follow(sl_ctl_t *c, json_t *d, json_t *rss, bool orphan)
{
    size_t i;
    json_t *rs;
    json_array_foreach(rss, i, rs)
    {
        if (orphan)
            sl_store_mutate(c->store, STORE_RS, sl_kube_namespace(rs), sl_kube_name(rs),
                            ctl_drop_owner_fn, (void *)sl_kube_uid(d), NULL, NULL);
        else if (!sl_kube_meta_str(rs, "deletionTimestamp"))
            sl_store_delete(c->store, STORE_RS, sl_kube_namespace(rs), sl_kube_name(rs), 0, NULL,
                            NULL);
    }
}

static void deploy_reconcile(sl_ctl_t *c, json_t *d)
{
    bool deleting = sl_kube_meta_str(d, "deletionTimestamp") != NULL;
    json_t *rss = owned_rss(c, d, !deleting);
    if (deleting) {
        sl_rs_finalize(c, d, STORE_D, rss, rss_follow);
        json_decref(rss);
        return;
    }
    dstate_t s = {.d = d};
    strategy_of(&s);
    split(&s, rss);
    const char *type = sl_kube_path_str(d, "spec.strategy.type");
    bool recreate_ = type && !strcmp(type, "Recreate");
    if (json_is_true(sl_kube_path(d, "spec.paused"))) {
        if (s.nrs && !json_array_size(s.olds) && ival(s.nrs, "spec.replicas") != s.replicas)
            scale_rs(c, &s, s.nrs, s.replicas, 0);
    } else if (recreate_) {
        recreate(c, &s);
    } else {
        if (!s.nrs)
            create_new_rs(c, &s, false);
        if (s.nrs)
            roll_new(c, &s);
        roll_old(c, &s);
    }
    if (s.nrs)
        sync_revision(c, &s);
    cleanup(c, &s);
    json_t *st = status_of(&s);
    sl_rs_write_status(c, STORE_D, d, st);
    json_decref(st);
    json_decref(s.nrs);
    json_decref(s.olds);
    json_decref(rss);
}

/* deleted (background propagation): its ReplicaSets go, and their pods */
static void deploy_gone(sl_ctl_t *c, json_t *d)
{
    json_t *rss = owned_rss(c, d, false);
    if (json_array_size(rss))
        sl_info("deployment %s/%s deleted: %zu replica sets deleted with it", sl_kube_namespace(d),
                sl_kube_name(d), json_array_size(rss));
    rss_follow(c, d, rss, false);
    json_decref(rss);
}

static void deploy_collect_gone(sl_ctl_t *c)
{
    sl_rs_collect_orphans(c, STORE_D, "Deployment", STORE_RS);
}

const sl_kind_t sl_kind_deployment = {
    .api = {"apps",
            "v1",
            "deployments",
            "deployment",
            "Deployment",
            "DeploymentList",
            true,
            API_V_ALL,
            {"deploy"},
            {"all"},
            true,
            false,
            STORE_D,
            &sl_deploy_api_ops},
    .pod_templates = {"spec.template.spec", NULL},
    .runs_as_creator = true,
    .owns_pods = false,
    .delete_finalizers = true,
    .ctl = {.needs_slurm = false,
            .reconcile = deploy_reconcile,
            .gone = deploy_gone,
            .collect_gone = deploy_collect_gone},
};
