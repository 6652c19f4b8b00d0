/* own.c — the revisions of the controller's own writes that tell it nothing
 * it does not know (internal.h, ctl_own_t).
 *
 * Every write to a pod comes back to the controller through the store's
 * change log, which it reads after each write (process_changes). A burst
 * of new pods brings three changes a pod: the create, the job id the
 * controller recorded and the pending reason its poll wrote. Parsing the
 * last two back was most of the cost of reading the log, and gave the
 * controller only what it had just written. Their revisions are noted
 * here when written and skipped when read (sl_store_changes_skip): the
 * store hands them over without their objects.
 *
 * The notes are in revision order: one thread writes them (the
 * controller's), and the store gives each write a higher revision. A
 * group of writes in a store transaction that fails to commit is undone
 * (its revisions were never used, and a later write may get them). */
#include "common/xalloc.h"
#include "ctl/internal.h"

#include <string.h>

void ctl_own_note(sl_ctl_t *c, int64_t rv)
{
    ctl_own_t *o = &c->own;
    if (o->n > o->head && o->rv[o->n - 1] >= rv)
        return; /* out of order: it is read and parsed, as any change */
    if (o->n == o->cap && o->head > 0) {
        memmove(o->rv, o->rv + o->head, (o->n - o->head) * sizeof(*o->rv));
        o->n -= o->head;
        o->head = 0;
    }
    if (o->n == o->cap) {
        if (o->cap >= CTL_OWN_MAX)
            return; /* not noted: read and parsed */
        o->cap = o->cap ? 2 * o->cap : 256;
        o->rv = sl_xrealloc(o->rv, o->cap * sizeof(*o->rv));
    }
    o->rv[o->n++] = rv;
    o->noted++;
}

uint64_t ctl_own_mark(sl_ctl_t *c) { return c->own.noted; }

void ctl_own_undo(sl_ctl_t *c, uint64_t mark)
{
    ctl_own_t *o = &c->own;
    uint64_t back = o->noted - mark; /* noted since, all still queued */
    o->n -= back < o->n - o->head ? (size_t)back : o->n - o->head;
    o->noted = mark;
}

int ctl_own_skip(void *arg, int64_t rv)
{
    ctl_own_t *o = &((sl_ctl_t *)arg)->own;
    while (o->head < o->n && o->rv[o->head] < rv)
        o->head++; /* a note no change came for: passed */
    int own = o->head < o->n && o->rv[o->head] == rv;
    if (own)
        o->head++;
    if (o->head == o->n)
        o->head = o->n = 0;
    return own;
}

void ctl_own_free(sl_ctl_t *c)
{
    free(c->own.rv);
    c->own = (ctl_own_t){0};
}
