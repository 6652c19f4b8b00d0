/* quotawatch.c — which namespaces the janitor's quota recount looks at.
 *
 * A recount parses every pod of a namespace. Admission raises status.used
 * itself, in the create's transaction (quota.c), so a namespace needs a
 * recount only when its usage may have fallen or been raised behind
 * admission's back, or when its quotas changed. The janitor reads the
 * store's change log since its last pass, without parsing what cannot
 * matter, and marks a namespace when one of these happened in it:
 *   - a pod deleted, or one created that carries ownerReferences (the
 *     controllers' pods, made without admission, are counted only so);
 *   - a pod that turned Succeeded or Failed, or got a deletionTimestamp
 *     (only a change whose text names one of those is parsed, and then it
 *     is compared with the version it replaced);
 *   - a quota created, deleted, or its spec edited (a status write, as
 *     every admission makes, is not);
 *   - the namespace created or changed (the policy's default quota);
 *   - a PersistentVolumeClaim deleted (admission counted its creation).
 * Every namespace is looked at on the first pass and when the change log
 * was trimmed past the janitor's place. A namespace stays marked while its
 * recount left something to do (api_quota_watch_done). */
#include "api/quota.h"
#include "common/argv.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "kube/meta.h"

#include <errno.h>
#include <string.h>

enum { W_PODS, W_QUOTAS, W_NS, W_CLAIMS, W_SERVICES, W_KINDS };
static const char *const kinds[W_KINDS] = {"pods", "resourcequotas", "namespaces",
                                           "persistentvolumeclaims", "services"};

/* a change to parse after the store's reader is released */
typedef struct cand {
    int kind;
    char *ns, *json, *prev;
} cand_t;

struct api_quota_watch {
    int64_t rv[W_KINDS]; /* the last change read, per resource */
    bool all;            /* look at every namespace */
    sl_argv_t dirty;     /* else these */
    cand_t *cand;
    size_t ncand, capcand;
};

api_quota_watch_t *api_quota_watch_new(void)
{
    api_quota_watch_t *w = sl_xcalloc(1, sizeof(*w));
    w->all = true;
    return w;
}

static void cands_clear(api_quota_watch_t *w)
{
    for (size_t i = 0; i < w->ncand; i++) {
        free(w->cand[i].ns);
        free(w->cand[i].json);
        free(w->cand[i].prev);
    }
    w->ncand = 0;
}

void api_quota_watch_free(api_quota_watch_t *w)
{
    if (!w)
        return;
    cands_clear(w);
    free(w->cand);
    sl_argv_free(&w->dirty);
    free(w);
}

bool api_quota_watch_wants(const api_quota_watch_t *w, const char *ns)
{
    if (w->all)
        return true;
    for (size_t i = 0; i < w->dirty.n; i++)
        if (!strcmp(w->dirty.v[i], ns))
            return true;
    return false;
}

static void mark(api_quota_watch_t *w, const char *ns)
{
    if (!api_quota_watch_wants(w, ns))
        sl_argv_add(&w->dirty, ns);
}

static bool names(const char *json, size_t len, const char *word)
{
    return memmem(json, len, word, strlen(word)) != NULL;
}

struct row_arg {
    api_quota_watch_t *w;
    int kind;
};

/* under the store's reader: marks, or copies a change to parse later */
static int on_row(void *arg, const sl_store_change_t *c)
{
    struct row_arg *a = arg;
    api_quota_watch_t *w = a->w;
    w->rv[a->kind] = c->rv;
    bool parse;
    if (a->kind == W_CLAIMS || a->kind == W_SERVICES) { /* a claim or a Service counts from
                                                         * its admission until it is deleted */
        if (!strcmp(c->type, "DELETED"))
            mark(w, c->ns);
        return 0;
    }
    if (a->kind == W_NS || strcmp(c->type, "MODIFIED") || !c->prev) {
        if (a->kind == W_PODS && !strcmp(c->type, "ADDED") &&
            !names(c->json, c->len, "ownerReferences"))
            return 0; /* admitted: admission counted it */
        mark(w, a->kind == W_NS ? c->name : c->ns);
        return 0;
    }
    if (a->kind == W_QUOTAS)
        parse = true;
    else
        parse = names(c->json, c->len, "deletionTimestamp") ||
                names(c->json, c->len, "Succeeded") || names(c->json, c->len, "Failed");
    if (!parse || api_quota_watch_wants(w, c->ns))
        return 0;
    if (w->ncand == w->capcand) {
        w->capcand = w->capcand ? 2 * w->capcand : 16;
        w->cand = sl_xrealloc(w->cand, w->capcand * sizeof(*w->cand));
    }
    w->cand[w->ncand++] = (cand_t){a->kind, sl_xstrdup(c->ns), sl_xstrndup(c->json, c->len),
                                   sl_xstrndup(c->prev, c->prev_len)};
    return 0;
}

/* 0 counted, 1 being deleted, 2 finished */
static int pod_state(json_t *pod)
{
    const char *phase = sl_kube_path_str(pod, "status.phase");
    if (phase && (!strcmp(phase, "Succeeded") || !strcmp(phase, "Failed")))
        return 2;
    return sl_kube_meta_str(pod, "deletionTimestamp") ? 1 : 0;
}

static bool cand_matters(const cand_t *c)
{
    json_t *now = json_loads(c->json, 0, NULL), *was = json_loads(c->prev, 0, NULL);
    bool r = !now || !was;
    if (!r && c->kind == W_QUOTAS)
        r = !json_equal(sl_kube_path(now, "spec"), sl_kube_path(was, "spec"));
    else if (!r)
        r = pod_state(now) != pod_state(was);
    json_decref(now);
    json_decref(was);
    return r;
}

/* every namespace this pass; each change log read from now on */
static void look_at_all(api_quota_watch_t *w, sl_store_t *store)
{
    w->all = true;
    cands_clear(w);
    int64_t now = sl_store_revision(store);
    for (int k = 0; k < W_KINDS; k++)
        w->rv[k] = now;
}

void api_quota_watch_collect(api_quota_watch_t *w, sl_store_t *store)
{
    if (w->all) {
        look_at_all(w, store);
        return;
    }
    /* each log read up to at least this revision: a resource that has not
     * changed for long does not leave its place behind the trimmed log */
    int64_t upto = sl_store_revision(store);
    for (int k = 0; k < W_KINDS; k++) {
        struct row_arg a = {w, k};
        sl_error_t err = SL_ERROR_INIT;
        int r = sl_store_changes_rows(store, w->rv[k], kinds[k], NULL, 0, on_row, &a, &err);
        if (r == 0 && w->rv[k] < upto)
            w->rv[k] = upto;
        if (r < 0) {
            if (errno != ERANGE)
                sl_warn("quota janitor: cannot read the %s change log: %s", kinds[k], err.text);
            look_at_all(w, store); /* trimmed past our place (or unreadable) */
            return;
        }
    }
    for (size_t i = 0; i < w->ncand; i++)
        if (cand_matters(&w->cand[i]))
            mark(w, w->cand[i].ns);
    cands_clear(w);
}

void api_quota_watch_done(api_quota_watch_t *w, sl_argv_t *again)
{
    sl_argv_free(&w->dirty);
    w->dirty = *again;
    *again = (sl_argv_t)SL_ARGV_INIT;
    w->all = false;
}
