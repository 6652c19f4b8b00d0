/* follow.c — the one change-log follower of the workload kinds' controllers
 * (src/kinds/kind.h): each registered kind's pass reads its kind's changes
 * since the last pass (gone() for each deletion), then reconciles every
 * stored object. Deletions that went unread (the log fell behind it, or
 * they happened while slurmlinkd was down: the first pass) are the kind's
 * collect_gone(), and the pods such an owner left are the garbage
 * collector's (jobgc.c, through ctl_workloads_gone_mark). The workloads'
 * state (workloads.h) is defined here. */
#include "common/log.h"
#include "common/xalloc.h"
#include "ctl/internal.h"
#include "kinds/kind.h"
#include "kube/meta.h"
#include "metrics/metrics.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define FOLLOW_BATCH 512

/* the controller thread's (workloads.h) */
struct ctl_workloads {
    int64_t *kind_rv;       /* each registered kind's last change seen */
    int64_t *empty_rev;     /* each kind's resource revision when it had no object (-1: not) */
    int gone_unseen;        /* a Job, PyTorchJob or MPIJob deletion may have gone unread */
    json_t *create_backoff; /* workload uid → [until ms, delay ms] (admit.c) */
};

ctl_workloads_t *ctl_workloads_create(void)
{
    ctl_workloads_t *w = sl_xcalloc(1, sizeof(*w));
    size_t n = ctl_kinds_count() + 1;
    w->kind_rv = sl_xcalloc(n, sizeof(*w->kind_rv));
    w->empty_rev = sl_xcalloc(n, sizeof(*w->empty_rev));
    for (size_t i = 0; i < n; i++)
        w->empty_rev[i] = -1;
    return w;
}

void ctl_workloads_destroy(ctl_workloads_t *w)
{
    if (!w)
        return;
    json_decref(w->create_backoff);
    free(w->kind_rv);
    free(w->empty_rev);
    free(w);
}

int64_t *ctl_workloads_kind_rv(sl_ctl_t *c) { return c->workloads->kind_rv; }

const int64_t *ctl_workloads_kind_rv_const(const sl_ctl_t *c) { return c->workloads->kind_rv; }

void ctl_workloads_gone_mark(sl_ctl_t *c) { c->workloads->gone_unseen = 1; }

int ctl_workloads_gone_take(sl_ctl_t *c)
{
    int gone = c->workloads->gone_unseen;
    c->workloads->gone_unseen = 0;
    return gone;
}

json_t *ctl_workloads_backoff(sl_ctl_t *c, int make)
{
    if (!c->workloads->create_backoff && make)
        c->workloads->create_backoff = json_object();
    return c->workloads->create_backoff;
}

static void missed(const sl_kind_t *k, sl_ctl_t *c, int64_t *rv)
{
    *rv = sl_store_revision(c->store);
    ctl_workloads_gone_mark(c);
    if (k->ctl.collect_gone)
        k->ctl.collect_gone(c);
}

/* the kind's changes since *rv: 0 when read to the end. None to read
 * when its resource has not changed since *rv (sl_store_resource_rev):
 * then *rv moves to the store's revision without a read of the log, which
 * every pass of every kind would otherwise take the store's reader for. */
static void follow(const sl_kind_t *k, sl_ctl_t *c, int64_t *rv)
{
    int64_t now = sl_store_revision(c->store); /* before the resource's: see store.h */
    if (sl_store_resource_rev(c->store, k->api.store_name) <= *rv) {
        *rv = now > *rv ? now : *rv;
        return;
    }
    for (;;) {
        int64_t upto = sl_store_revision(c->store); /* a complete read reaches it */
        sl_error_t err = SL_ERROR_INIT;
        json_t *ch = sl_store_changes(c->store, *rv, k->api.store_name, NULL, FOLLOW_BATCH, &err);
        sl_error_clear(&err);
        if (!ch) {
            if (errno == ERANGE) {
                sl_info("the %s controller fell behind the change log: collecting what "
                        "deletions left",
                        k->api.kind);
                missed(k, c, rv);
            }
            return;
        }
        size_t i, n = json_array_size(ch);
        json_t *e;
        json_array_foreach(ch, i, e)
        {
            const char *type = json_string_value(json_object_get(e, "type"));
            json_t *obj = json_object_get(e, "object");
            if (type && !strcmp(type, "DELETED") && obj && k->ctl.gone)
                k->ctl.gone(c, obj);
            *rv = json_integer_value(json_object_get(e, "rv"));
        }
        json_decref(ch);
        if (n < FOLLOW_BATCH && *rv < upto)
            *rv = upto;
        if (n < FOLLOW_BATCH)
            return;
    }
}

/* every stored object of the kind reconciled; none listed while the kind
 * had none at its resource's revision *empty_rev (still the revision now:
 * nothing was created since), so a kind no one uses costs no read */
static void reconcile(const sl_kind_t *k, sl_ctl_t *c, int64_t *empty_rev)
{
    int64_t rev = sl_store_resource_rev(c->store, k->api.store_name);
    if (rev == *empty_rev)
        return;
    json_t *all = sl_store_list(c->store, k->api.store_name, NULL, NULL);
    *empty_rev = all && !json_array_size(all) ? rev : -1;
    size_t i;
    json_t *obj;
    if (k->ctl.reconcile_all && json_array_size(all))
        k->ctl.reconcile_all(c, all);
    else if (k->ctl.reconcile)
        json_array_foreach(all, i, obj) k->ctl.reconcile(c, obj);
    json_decref(all);
}

/* one pass of kind k, counted once it ran (slurmlink_loop_passes_total,
 * the store name its label: tests wait on it) */
static void pass(const sl_kind_t *k, sl_ctl_t *c, int64_t *rv, int64_t *empty_rev)
{
    if (k->ctl.needs_slurm && (!ctl_poll_initial_done(c) || !ctl_slurm_ok(c)))
        return;
    if (!*rv) /* the first pass: what was deleted while slurmlinkd was down */
        missed(k, c, rv);
    follow(k, c, rv);
    if (k->ctl.reconcile || k->ctl.reconcile_all)
        reconcile(k, c, empty_rev);
    sl_metrics_loop_pass(k->api.store_name);
}

size_t ctl_kinds_count(void)
{
    size_t n = 0;
    while (sl_kinds[n])
        n++;
    return n;
}

void ctl_kinds_pass(sl_ctl_t *c)
{
    for (size_t i = 0; sl_kinds[i]; i++)
        pass(sl_kinds[i], c, &ctl_workloads_kind_rv(c)[i], &c->workloads->empty_rev[i]);
}

int64_t ctl_kinds_low_rv(const sl_ctl_t *c)
{
    int64_t low = 0;
    const int64_t *rv = ctl_workloads_kind_rv_const(c);
    for (size_t i = 0; sl_kinds[i]; i++)
        if (rv[i] > 0 && (low == 0 || rv[i] < low))
            low = rv[i];
    return low;
}
