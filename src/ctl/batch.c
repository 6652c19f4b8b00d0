/* batch.c — the job poll's writes of pending jobs' views, grouped into store
 * transactions of up to CTL_BATCH_MAX pods (internal.h).
 *
 * When slurmctld's scheduler gives a queue of pending jobs their reasons,
 * the next poll writes one pod per job: each alone was a transaction of its
 * own, its commit most of the write's cost. Grouped, they pay one commit per
 * CTL_BATCH_MAX pods, and the API's writers wait at most one group's writes
 * for the store. Only views of PENDING jobs are grouped: the poll ends the
 * group before any other job (whose view may cancel a job, delete a pod or
 * read the pod folder) and before anything it does that waits for Slurm.
 *
 * A group that fails to commit wrote nothing: each of its pods forgets the
 * view applied (its memo), so the next poll applies it again, and the
 * revisions its writes noted as the controller's own (own.c) are taken
 * back. */
#include "common/log.h"
#include "ctl/internal.h"

#include <stdlib.h>

static void forget_views(ctl_batch_t *b)
{
    for (size_t i = 0; i < b->n; i++) {
        free(b->pods[i]->view_key);
        b->pods[i]->view_key = NULL;
        b->pods[i]->view_rv = 0;
    }
}

static void commit(sl_ctl_t *c)
{
    ctl_batch_t *b = &c->batch;
    if (!b->open)
        return;
    sl_error_t err = SL_ERROR_INIT;
    if (sl_store_txn_commit(c->store, &err) < 0) {
        sl_warn("the job views of %zu pods were not written (%s): the next poll writes them", b->n,
                err.text);
        forget_views(b);
        ctl_own_undo(c, b->own_mark); /* those revisions were never used */
    }
    b->open = 0;
    b->n = 0;
}

void ctl_batch_want(sl_ctl_t *c) { c->batch.wanted = 1; }

void ctl_batch_end(sl_ctl_t *c)
{
    commit(c);
    c->batch.wanted = 0;
}

void ctl_batch_enter(sl_ctl_t *c, ctl_pod_t *p)
{
    ctl_batch_t *b = &c->batch;
    if (!b->wanted)
        return;
    if (b->open && b->n == CTL_BATCH_MAX)
        commit(c);
    if (!b->open) {
        if (sl_store_txn_begin(c->store, NULL) < 0)
            return; /* written on its own */
        b->open = 1;
        b->own_mark = ctl_own_mark(c);
    }
    b->pods[b->n++] = p;
}

void ctl_batch_forget(sl_ctl_t *c, ctl_pod_t *p)
{
    ctl_batch_t *b = &c->batch;
    for (size_t i = 0; i < b->n;)
        if (b->pods[i] == p)
            b->pods[i] = b->pods[--b->n];
        else
            i++;
}
