/* batch.c — the job poll's writes of pending jobs' views, drafted, grouped
 * into store transactions of up to CTL_BATCH_MAX pods (internal.h).
 *
 * When slurmctld's scheduler gives a queue of pending jobs their reasons,
 * the next poll writes one pod per job: each alone was a transaction of its
 * own, its commit most of the write's cost. Grouped, they pay one commit per
 * CTL_BATCH_MAX pods. Each view is drafted when the poll reaches its job:
 * made on the pod as read then, and dumped, with no lock held
 * (ctl_pod_draft_own); the group's transaction holds the store's writer
 * for the rows and the commit only, so the API's writers wait that long
 * (a pod written since its draft is made again under the lock). Only views
 * of PENDING jobs are grouped: the poll writes the group before any other
 * job (whose view may cancel a job, delete a pod or read the pod folder)
 * and before anything it does that waits for Slurm.
 *
 * After the commit each view is taken as written: its Events, the pod's
 * terminal flag and the view remembered (ctl_apply_job_written,
 * ctl_view_remember). A group that fails to commit wrote nothing: no view
 * is remembered, so the next poll writes them again, and the revisions its
 * writes noted as the controller's own (own.c) are taken back. */
#include "common/log.h"
#include "common/xalloc.h"
#include "ctl/apply.h"
#include "ctl/internal.h"

#include <stdlib.h>
#include <string.h>

struct ctl_batch_item {
    ctl_pod_t *p;
    ctl_apply_t a; /* the draft's argument: its view is v */
    ctl_job_view_t v;
    char *reason, *ip, *key; /* v's strings, the view's key (NULL: none) */
    ctl_pod_draft_t *d;
};

static void item_free(ctl_batch_item_t *it)
{
    ctl_pod_draft_free(it->d);
    free(it->reason);
    free(it->ip);
    free(it->key);
    free(it);
}

/* the group's drafts written, in one transaction when there are several,
 * then each view taken as written */
static void flush(sl_ctl_t *c)
{
    ctl_batch_t *b = &c->batch;
    size_t n = b->n;
    if (!n)
        return;
    ctl_batch_item_t *its[CTL_BATCH_MAX];
    json_t *outs[CTL_BATCH_MAX] = {0};
    int w[CTL_BATCH_MAX];
    memcpy(its, b->items, n * sizeof(*its));
    b->n = 0; /* what follows may end a group (cancel_rerun): this one is done */
    sl_error_t err = SL_ERROR_INIT;
    int txn = n > 1 && sl_store_txn_begin(c->store, &err) == 0; /* else each alone */
    uint64_t mark = ctl_own_mark(c);
    for (size_t i = 0; i < n; i++)
        w[i] = ctl_pod_draft_write_own(c, its[i]->d, &outs[i], NULL);
    int committed = 1;
    if (txn && sl_store_txn_commit(c->store, &err) < 0) {
        sl_warn("the job views of %zu pods were not written (%s): the next poll writes them", n,
                err.text);
        ctl_own_undo(c, mark); /* those revisions were never used */
        committed = 0;
    }
    for (size_t i = 0; i < n; i++) {
        if (committed) {
            ctl_batch_item_t *it = its[i];
            int64_t rv = ctl_apply_job_written(c, it->p, &it->v, &it->a, w[i], outs[i]);
            ctl_view_remember(it->p, it->key, rv);
        }
        json_decref(outs[i]);
        item_free(its[i]);
    }
}

void ctl_batch_want(sl_ctl_t *c) { c->batch.wanted = 1; }

void ctl_batch_end(sl_ctl_t *c)
{
    flush(c);
    c->batch.wanted = 0;
}

int ctl_batch_add(sl_ctl_t *c, ctl_pod_t *p, const ctl_job_view_t *v, const char *key)
{
    ctl_batch_t *b = &c->batch;
    if (!b->wanted || strcmp(v->state, "PENDING"))
        return 0;
    json_t *pod = ctl_pod_get(c, p->ns, p->name, p->uid);
    if (!pod)
        return 0; /* gone, or not read: written alone, which tells */
    ctl_batch_item_t *it = sl_xcalloc(1, sizeof(*it));
    it->p = p;
    it->reason = v->reason ? sl_xstrdup(v->reason) : NULL;
    it->ip = sl_xstrdup(v->node_ip ? v->node_ip : "");
    it->key = key ? sl_xstrdup(key) : NULL;
    it->v = *v;
    it->v.state = "PENDING"; /* the only state grouped */
    it->v.reason = it->reason;
    it->v.node = ""; /* a pending job's */
    it->v.node_ip = it->ip;
    it->a = (ctl_apply_t){.job = &it->v};
    it->d = ctl_pod_draft_own(pod, p->uid, ctl_apply_fn, &it->a);
    json_decref(pod);
    b->items[b->n++] = it;
    if (b->n == CTL_BATCH_MAX)
        flush(c);
    return 1;
}

void ctl_batch_forget(sl_ctl_t *c, ctl_pod_t *p)
{
    ctl_batch_t *b = &c->batch;
    for (size_t i = 0; i < b->n;)
        if (b->items[i]->p == p) {
            item_free(b->items[i]);
            b->items[i] = b->items[--b->n];
        } else
            i++;
}
