/* podstore.c — the controller's writes of a pod, each with the pod's uid as
 * a precondition (kube's DeleteOptions/UpdateOptions preconditions.uid): the
 * controller names a pod by namespace/name in the store, and a pod deleted
 * and created again under the same name is another pod. See internal.h. */
#include "common/xalloc.h"
#include "ctl/internal.h"
#include "ctl/podstatus.h"
#include "kube/meta.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

typedef struct precond {
    const char *uid;
    sl_store_mutate_fn fn;
    void *arg;
    int64_t old_rv; /* the stored version's */
} precond_t;

static int uid_is(json_t *pod, const char *uid)
{
    const char *have = sl_kube_uid(pod);
    return have && uid && !strcmp(have, uid);
}

static int precond_fn(json_t *pod, void *arg)
{
    precond_t *pc = arg;
    if (!uid_is(pod, pc->uid)) {
        errno = ENOENT;
        return -1;
    }
    pc->old_rv = sl_kube_rv(pod);
    return pc->fn(pod, pc->arg);
}

/* the mutation under the uid precondition; *old_rv (may be NULL): the
 * revision of the version it read */
static int mutate(sl_ctl_t *c, const char *ns, const char *name, const char *uid,
                  sl_store_mutate_fn fn, void *arg, json_t **out, int64_t *old_rv, sl_error_t *err)
{
    precond_t pc = {.uid = uid, .fn = fn, .arg = arg};
    int r = sl_store_mutate(c->store, "pods", ns, name, precond_fn, &pc, out, err);
    if (r < 0 && errno == ENOENT && err)
        sl_errprintf(err, "pod %s/%s with uid %s is gone", ns, name, uid);
    if (old_rv)
        *old_rv = pc.old_rv;
    return r;
}

int ctl_pod_mutate(sl_ctl_t *c, const char *ns, const char *name, const char *uid,
                   sl_store_mutate_fn fn, void *arg, json_t **out, sl_error_t *err)
{
    return mutate(c, ns, name, uid, fn, arg, out, NULL, err);
}

/* written (no no-op), and of a pod that is neither finished nor being
 * deleted: what handle_pod reads back from such a change is known */
static void note_own(sl_ctl_t *c, int r, json_t *res, int64_t old_rv, json_t **out)
{
    if (r == 0 && sl_kube_rv(res) > old_rv && !ctl_pod_terminal(res) &&
        !json_object_get(json_object_get(res, "metadata"), "deletionTimestamp"))
        ctl_own_note(c, sl_kube_rv(res));
    if (out)
        *out = res;
    else
        json_decref(res);
}

int ctl_pod_mutate_own(sl_ctl_t *c, const char *ns, const char *name, const char *uid,
                       sl_store_mutate_fn fn, void *arg, json_t **out, sl_error_t *err)
{
    json_t *res = NULL;
    int64_t old_rv = 0;
    int r = mutate(c, ns, name, uid, fn, arg, &res, &old_rv, err);
    note_own(c, r, res, old_rv, out);
    return r;
}

struct ctl_pod_draft {
    precond_t pc; /* the draft's fn and arg: stays where the draft points */
    char *ns, *name, *uid;
    sl_store_draft_t *d;
};

ctl_pod_draft_t *ctl_pod_draft_own(json_t *pod, const char *uid, sl_store_mutate_fn fn, void *arg)
{
    ctl_pod_draft_t *d = sl_xcalloc(1, sizeof(*d));
    d->uid = sl_xstrdup(uid);
    d->pc = (precond_t){.uid = d->uid, .fn = fn, .arg = arg};
    d->ns = sl_xstrdup(sl_kube_namespace(pod) ? sl_kube_namespace(pod) : "");
    d->name = sl_xstrdup(sl_kube_name(pod) ? sl_kube_name(pod) : "");
    d->d = sl_store_draft_of("pods", pod, precond_fn, &d->pc);
    return d;
}

int ctl_pod_draft_write_own(sl_ctl_t *c, ctl_pod_draft_t *d, json_t **out, sl_error_t *err)
{
    json_t *res = NULL;
    int r = sl_store_draft_write(c->store, d->d, &res, err);
    if (r < 0 && errno == ENOENT && err)
        sl_errprintf(err, "pod %s/%s with uid %s is gone", d->ns, d->name, d->pc.uid);
    note_own(c, r, res, d->pc.old_rv, out);
    return r;
}

void ctl_pod_draft_free(ctl_pod_draft_t *d)
{
    if (!d)
        return;
    sl_store_draft_free(d->d);
    free(d->ns);
    free(d->name);
    free(d->uid);
    free(d);
}

json_t *ctl_pod_get(sl_ctl_t *c, const char *ns, const char *name, const char *uid)
{
    json_t *pod = sl_store_get(c->store, "pods", ns, name);
    if (pod && !uid_is(pod, uid)) {
        json_decref(pod);
        errno = ENOENT;
        return NULL;
    }
    return pod;
}

int ctl_pod_delete(sl_ctl_t *c, const char *ns, const char *name, const char *uid, int64_t *rv_out,
                   sl_error_t *err)
{
    /* the uid read, then a delete that fails if anything was written since */
    for (int tries = 0; tries < 100; tries++) {
        json_t *pod = ctl_pod_get(c, ns, name, uid);
        if (!pod) {
            errno = ENOENT;
            return sl_errprintf(err, "pod %s/%s with uid %s is gone", ns, name, uid);
        }
        const char *rv =
            json_string_value(json_object_get(json_object_get(pod, "metadata"), "resourceVersion"));
        int64_t want = rv ? strtoll(rv, NULL, 10) : 0;
        json_decref(pod);
        if (want <= 0) {
            errno = EINVAL;
            return sl_errprintf(err, "pod %s/%s has no resourceVersion", ns, name);
        }
        json_t *old = NULL;
        if (sl_store_delete(c->store, "pods", ns, name, want, &old, err) == 0) {
            if (rv_out)
                *rv_out = sl_kube_rv(old); /* the DELETED change's */
            json_decref(old);
            return 0;
        }
        if (errno != ESTALE)
            return -1;
    }
    errno = ESTALE;
    return sl_errprintf(err, "pod %s/%s changes too fast to delete", ns, name);
}

typedef struct naming {
    const char *uid;
    size_t len;
    json_t *out;
} naming_t;

static int add_naming(void *arg, const char *json, size_t len, const sl_store_item_t *it)
{
    (void)it;
    naming_t *n = arg;
    if (!memmem(json, len, n->uid, n->len))
        return 0;
    json_t *pod = json_loadb(json, len, 0, NULL);
    if (pod)
        json_array_append_new(n->out, pod);
    return 0;
}

json_t *ctl_pods_naming(sl_ctl_t *c, const char *ns, const char *uid)
{
    naming_t n = {.uid = uid ? uid : "", .len = uid ? strlen(uid) : 0, .out = json_array()};
    if (n.len)
        sl_store_list_each(c->store, "pods", ns, add_naming, &n, NULL);
    return n.out;
}
