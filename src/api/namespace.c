/* namespace.c — the namespace controller: what kube-controller-manager's
 * namespace deleter does for a namespace being terminated.
 *
 * DELETE of a namespace whose spec.finalizers is not empty only marks it
 * (delete.c): metadata.deletionTimestamp, status.phase Terminating. The
 * janitor (lifecycle.c) then calls api_namespace_sweep() for each such
 * namespace after store changes; while spec.finalizers holds "kubernetes":
 *   1. every namespaced object in it is deleted by the rules of DELETE
 *      (pods gracefully: their Slurm jobs are cancelled by the lifecycle
 *      controller, which removes them once the jobs have ended);
 *   2. status.conditions gets the five conditions kube's deleter keeps
 *      (NamespaceDeletionDiscoveryFailure, NamespaceDeletionGroupVersion-
 *      ParsingFailure, NamespaceDeletionContentFailure, NamespaceContent-
 *      Remaining, NamespaceFinalizersRemaining) with kube's reasons and
 *      messages;
 *   3. once nothing is left, "kubernetes" is removed from spec.finalizers.
 * The namespace object itself is removed once spec.finalizers and
 * metadata.finalizers are both empty (other finalizers are for others to
 * remove, through PUT .../finalize or an update). Until then it is
 * Terminating: creating content in it is 403 (objects.c) and creating it
 * again is 409 AlreadyExists.
 *
 * It lives in the API rather than in src/ctl because step 1 is the API's
 * own delete (api_delete_object), not a client's view of it. */
#include "api/delete.h"
#include "api/http/request.h"
#include "api/http/state.h"
#include "api/internal.h"
#include "api/lifecycle.h"
#include "common/argv.h"
#include "common/buf.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "kube/meta.h"
#include "kube/status.h"
#include "store/store.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

enum { C_DISCOVERY, C_GVPARSE, C_CONTENT_FAIL, C_REMAINING, C_FINALIZERS, C_COUNT };

static const char *const cond_type[C_COUNT] = {
    "NamespaceDeletionDiscoveryFailure", "NamespaceDeletionGroupVersionParsingFailure",
    "NamespaceDeletionContentFailure", "NamespaceContentRemaining", "NamespaceFinalizersRemaining"};
static const char *const ok_reason[C_COUNT] = {"ResourcesDiscovered", "ParsedGroupVersions",
                                               "ContentDeleted", "ContentRemoved",
                                               "ContentHasNoFinalizers"};
static const char *const ok_message[C_COUNT] = {
    "All resources successfully discovered", "All legacy kube types successfully parsed",
    "All content successfully deleted, may be waiting on finalization",
    "All content successfully removed", "All content-preserving finalizers finished"};

/* What one pass found: failing conditions (reason/message NULL: the ok
 * variant), and whether anything is left. */
typedef struct ns_pass {
    char *reason[C_COUNT];
    char *message[C_COUNT];
    long remaining;
} ns_pass_t;

static void pass_free(ns_pass_t *p)
{
    for (int i = 0; i < C_COUNT; i++) {
        free(p->reason[i]);
        free(p->message[i]);
    }
}

static bool has_string(json_t *arr, const char *s)
{
    for (size_t i = 0; i < json_array_size(arr); i++) {
        const char *x = json_string_value(json_array_get(arr, i));
        if (x && !strcmp(x, s))
            return true;
    }
    return false;
}

bool api_namespace_has_spec_finalizers(json_t *ns)
{
    return json_array_size(sl_kube_path(ns, "spec.finalizers")) > 0;
}

typedef struct ns_tally {
    sl_buf_t fails; /* messages of the deletes that failed */
    long nfail;
    json_t *fin;       /* finalizer → objects left holding it */
    char *per_res[64]; /* "pods. has 2 resource instances" */
    size_t nres;
} ns_tally_t;

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* "a, b, c" from n strings, sorted (kube sorts "for stable updates"); frees them. */
static char *join_sorted(char **v, size_t n)
{
    qsort(v, n, sizeof(*v), cmp_str);
    sl_buf_t b = SL_BUF_INIT;
    for (size_t i = 0; i < n; i++) {
        sl_buf_printf(&b, "%s%s", i ? ", " : "", v[i]);
        free(v[i]);
    }
    return sl_buf_steal(&b);
}

/* Count finalizers of o into fin (object name → count). */
static void count_finalizers(json_t *fin, json_t *o)
{
    size_t k;
    json_t *f;
    json_array_foreach(json_object_get(sl_kube_meta(o), "finalizers"), k, f)
    {
        const char *name = json_string_value(f);
        if (!name)
            continue;
        json_int_t n = json_integer_value(json_object_get(fin, name));
        json_object_set_new(fin, name, json_integer(n + 1));
    }
}

/* Steps 1 and 2 for one object: delete it unless it is on its way out;
 * 1 when it is still there (its finalizers counted), 0 when gone. */
static int sweep_one(sl_api_t *api, const api_resource_t *res, json_t *o, ns_tally_t *t)
{
    if (sl_kube_meta_str(o, "deletionTimestamp")) {
        count_finalizers(t->fin, o);
        return 1;
    }
    api_delopts_t opts = {0};
    json_t *result = NULL;
    sl_error_t err = SL_ERROR_INIT;
    int rc = api_delete_object(api, res, o, &opts, &result, &err);
    bool gone = rc < 0 && err.kind == SL_ERR_NOT_FOUND;
    if (rc < 0 && !gone) { /* kube's deleter reports these, in the Status's words */
        char *m = sl_kube_error_message(&err, res->name, res->group, res->kind, sl_kube_name(o));
        sl_buf_printf(&t->fails, "%s%s", t->nfail++ ? ", " : "", *m ? m : "failed");
        free(m);
    }
    sl_error_clear(&err);
    int left = rc == 1 || (rc < 0 && !gone);
    if (left)
        count_finalizers(t->fin, rc == 1 && result ? result : o);
    json_decref(result);
    return left;
}

/* Steps 1 and 2: one pass over what the namespace holds, deleting and
 * counting what is left, per resource and per finalizer, in kube's words. */
static void sweep_content(sl_api_t *api, const char *ns, ns_pass_t *p)
{
    ns_tally_t t = {.fails = SL_BUF_INIT, .fin = json_object()};
    for (const api_resource_t *res = api_resources; res->name; res++) {
        if (!res->namespaced)
            continue;
        /* the names first, then one object at a time: a namespace of
         * 50,000 Events held them all parsed at once (~4 KB each) */
        sl_argv_t names = SL_ARGV_INIT;
        api_store_names(api, res, ns, &names);
        long left = 0;
        for (size_t i = 0; i < names.n; i++) {
            json_t *o = sl_store_get(api->store, res->store_name, ns, names.v[i]);
            if (o) /* else gone meanwhile */
                left += sweep_one(api, res, o, &t);
            json_decref(o);
        }
        sl_argv_free(&names);
        if (left && t.nres < 64)
            t.per_res[t.nres++] =
                sl_xasprintf("%s.%s has %ld resource instances", res->name, res->group, left);
        p->remaining += left;
    }
    if (t.nfail) {
        p->reason[C_CONTENT_FAIL] = sl_xstrdup("ContentDeletionFailed");
        p->message[C_CONTENT_FAIL] = sl_xasprintf(
            "Failed to delete all resource types, %ld remaining: %s", t.nfail, t.fails.data);
    }
    if (t.nres) {
        char *list = join_sorted(t.per_res, t.nres);
        p->reason[C_REMAINING] = sl_xstrdup("SomeResourcesRemain");
        p->message[C_REMAINING] = sl_xasprintf("Some resources are remaining: %s", list);
        free(list);
    }
    char *fv[64];
    size_t nf = 0;
    const char *k;
    json_t *v;
    json_object_foreach(t.fin, k, v)
    {
        if (nf < 64)
            fv[nf++] =
                sl_xasprintf("%s in %lld resource instances", k, (long long)json_integer_value(v));
    }
    if (nf) {
        char *list = join_sorted(fv, nf);
        p->reason[C_FINALIZERS] = sl_xstrdup("SomeFinalizersRemain");
        p->message[C_FINALIZERS] =
            sl_xasprintf("Some content in the namespace has finalizers remaining: %s", list);
        free(list);
    }
    json_decref(t.fin);
    sl_buf_free(&t.fails);
}

/* kube's updateConditions: add missing ones, update changed ones (the
 * transition time moves only when the status does). */
static int set_conditions(json_t *obj, void *arg)
{
    const ns_pass_t *p = arg;
    json_t *st = json_object_get(obj, "status");
    if (!json_is_object(st))
        json_object_set_new(obj, "status", st = json_object());
    char *now = sl_kube_now_rfc3339();
    int changed = 0;
    for (int i = 0; i < C_COUNT; i++) {
        sl_kube_cond_t c = {cond_type[i], p->reason[i] ? "True" : "False",
                            p->reason[i] ? p->reason[i] : ok_reason[i],
                            p->message[i] ? p->message[i] : ok_message[i], 0};
        changed |= sl_kube_set_condition(st, &c, now);
    }
    free(now);
    return changed;
}

/* Step 3: the "kubernetes" finalizer goes once the content is gone. */
static int drop_kubernetes_finalizer(json_t *obj, void *arg)
{
    (void)arg;
    json_t *fin = sl_kube_path(obj, "spec.finalizers");
    for (size_t i = 0; i < json_array_size(fin); i++) {
        const char *x = json_string_value(json_array_get(fin, i));
        if (x && !strcmp(x, "kubernetes")) {
            json_array_remove(fin, i);
            return 1;
        }
    }
    return 0;
}

void api_namespace_sweep(sl_api_t *api, const char *name)
{
    json_t *ns = sl_store_get(api->store, "namespaces", NULL, name);
    if (!ns || !sl_kube_meta_str(ns, "deletionTimestamp")) {
        json_decref(ns);
        return;
    }
    sl_error_t err = SL_ERROR_INIT;
    if (has_string(sl_kube_path(ns, "spec.finalizers"), "kubernetes")) {
        ns_pass_t p = {0};
        sweep_content(api, name, &p);
        json_decref(ns);
        ns = NULL;
        if (sl_store_mutate(api->store, "namespaces", NULL, name, set_conditions, &p, NULL, &err) <
                0 &&
            errno != ENOENT)
            sl_warn("namespace %s: cannot set its conditions: %s", name, err.text);
        if (p.remaining == 0)
            sl_store_mutate(api->store, "namespaces", NULL, name, drop_kubernetes_finalizer, NULL,
                            &ns, &err);
        pass_free(&p);
    }
    if (ns && !api_namespace_has_spec_finalizers(ns) &&
        json_array_size(json_object_get(sl_kube_meta(ns), "finalizers")) == 0 &&
        sl_store_delete(api->store, "namespaces", NULL, name, sl_kube_rv(ns), NULL, &err) < 0 &&
        errno != ENOENT && errno != ESTALE)
        sl_warn("cannot remove namespace %s: %s", name, err.text);
    json_decref(ns);
}
