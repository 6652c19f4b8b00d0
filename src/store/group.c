/* group.c — group commit: writes of several threads in one transaction.
 *
 * While one thread writes, others that come to write queue here; the
 * first of them to find no one writing leads: it takes the queue (up to
 * group_max writes), runs each write as a savepoint of one batch
 * (sl_store_txn_begin) on their behalf, commits once, and hands each its
 * result. A burst of creates from many API threads then pays one COMMIT,
 * one WAL append of the pages they share, one publish and one
 * notification per group instead of per write. A write alone (no queue)
 * runs as its own transaction, as it would without this. Each write
 * returns only after its group's commit, with its own result: one refused
 * write in a group undoes only itself; a failed COMMIT fails each. */
#include <errno.h>

#include "store/internal.h"

struct store_gop {
    struct store_gop *next;
    sl_store_write_fn fn;
    void *arg;
    sl_error_t *err;
    pthread_cond_t cond; /* with gmu: done, or this one leads */
    int rc, err_no, done, lead;
};

void sl_store_set_group_max(sl_store_t *s, int n)
{
    pthread_mutex_lock(&s->gmu);
    s->group_max = n < 1 ? 1 : n;
    pthread_mutex_unlock(&s->gmu);
}

void sl_store_group_stats(sl_store_t *s, uint64_t *groups, uint64_t *writes)
{
    *groups = __atomic_load_n(&s->groups, __ATOMIC_RELAXED);
    *writes = __atomic_load_n(&s->grouped, __ATOMIC_RELAXED);
}

size_t sl_store_group_queued(sl_store_t *s, int *lead)
{
    size_t n = 0;
    pthread_mutex_lock(&s->gmu);
    for (store_gop_t *op = s->gqueue; op; op = op->next)
        n++;
    if (lead)
        *lead = s->gleader;
    pthread_mutex_unlock(&s->gmu);
    return n;
}

static void run_one(store_gop_t *op)
{
    errno = 0;
    op->rc = op->fn(op->arg, op->err);
    op->err_no = op->rc < 0 ? errno : 0;
}

/* the writes of ops (n of them, linked), wmu not held: each as a savepoint
 * of one batch, or alone as its own transaction */
static void run_group(sl_store_t *s, store_gop_t *ops, size_t n)
{
    if (n == 1) {
        run_one(ops);
        return;
    }
    sl_error_t e = SL_ERROR_INIT;
    int rc = sl_store_txn_begin(s, &e);
    for (store_gop_t *op = ops; op && rc == 0; op = op->next)
        run_one(op);
    if (rc == 0)
        rc = sl_store_txn_commit(s, &e);
    if (rc < 0) {
        int saved = errno;
        for (store_gop_t *op = ops; op; op = op->next) {
            if (op->rc == 0) { /* kept, or not run: lost with the group */
                op->rc = -1;
                op->err_no = saved;
                sl_errprintf(op->err, "%s", e.text);
            }
        }
        return;
    }
    __atomic_fetch_add(&s->groups, 1, __ATOMIC_RELAXED);
    __atomic_fetch_add(&s->grouped, n, __ATOMIC_RELAXED);
}

/* gmu held, this thread leading: take up to group_max queued writes */
static store_gop_t *take(sl_store_t *s, size_t *n)
{
    store_gop_t *first = s->gqueue, *last = NULL;
    *n = 0;
    for (store_gop_t *op = first; op && *n < (size_t)s->group_max; op = op->next) {
        last = op;
        ++*n;
    }
    s->gqueue = last->next;
    if (!s->gqueue)
        s->gtail = &s->gqueue;
    last->next = NULL;
    return first;
}

/* gmu held: lead until this thread's own write is done, then hand the lead
 * to the oldest write still queued */
static void lead(sl_store_t *s, store_gop_t *me)
{
    while (!me->done) {
        size_t n;
        store_gop_t *ops = take(s, &n);
        pthread_mutex_unlock(&s->gmu);
        run_group(s, ops, n);
        pthread_mutex_lock(&s->gmu);
        for (store_gop_t *op = ops, *next; op; op = next) {
            next = op->next; /* op may be gone once it is done */
            op->done = 1;
            if (op != me)
                pthread_cond_signal(&op->cond);
        }
    }
    if (s->gqueue) {
        s->gqueue->lead = 1;
        pthread_cond_signal(&s->gqueue->cond);
    } else {
        s->gleader = 0;
    }
}

int sl_store_write(sl_store_t *s, sl_store_write_fn fn, void *arg, sl_error_t *err)
{
    if (sl_store_in_txn(s))
        return fn(arg, err); /* a batch of this thread's own: a savepoint of it */
    store_gop_t me = {.fn = fn, .arg = arg, .err = err};
    pthread_cond_init(&me.cond, NULL);
    pthread_mutex_lock(&s->gmu);
    if (s->group_max <= 1 && !s->gleader) {
        pthread_mutex_unlock(&s->gmu);
        pthread_cond_destroy(&me.cond);
        return fn(arg, err);
    }
    *s->gtail = &me;
    s->gtail = &me.next;
    if (s->gleader) {
        while (!me.done && !me.lead)
            pthread_cond_wait(&me.cond, &s->gmu);
    } else {
        s->gleader = 1;
        me.lead = 1;
    }
    if (!me.done)
        lead(s, &me);
    pthread_mutex_unlock(&s->gmu);
    pthread_cond_destroy(&me.cond);
    errno = me.err_no;
    return me.rc;
}
