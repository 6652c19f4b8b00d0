/* podtable.c — the controller's pods, by uid, and the same pods by Slurm
 * job id and by array task (a Job's pods), each a hash of CTL_HASH chains:
 * every lookup costs a chain, never a walk of the table (internal.h); and
 * the due list's pass. */
#include "ctl/podtable.h"
#include "common/proc.h"
#include "common/xalloc.h"
#include "ctl/internal.h"
#include "ctl/poll.h"
#include "metrics/metrics.h"

#include <limits.h>

#include <stdlib.h>
#include <string.h>

/* the pods table (internal.h, "Threads and locks"): every field under
 * c->lock; changed by the controller thread only */
struct ctl_podtable {
    ctl_pod_t *pods[CTL_HASH];                       /* by uid */
    ctl_pod_t *by_job[CTL_HASH], *by_task[CTL_HASH]; /* the same pods by job id, array task */
    ctl_pod_t *due, *due_tail; /* pods with a deadline, back-off or pass pending */
    /* the due list walked again only when a pod was added to it (dirty) or
     * at due_wake_ms, the first back-off or deadline of those the last walk
     * found not due (ctl_due_pass) */
    int due_dirty;
    long long due_wake_ms;
    size_t npods;
};

static unsigned hash(const char *s)
{
    unsigned h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h % CTL_HASH;
}

static unsigned hash_job(uint32_t id) { return (id * 2654435761u) % CTL_HASH; }

static unsigned hash_task(uint32_t arr, uint32_t task)
{
    return ((arr * 2654435761u) ^ (task * 40503u)) % CTL_HASH;
}

ctl_pod_t *ctl_pod_find(sl_ctl_t *c, const char *uid)
{
    for (ctl_pod_t *p = c->table->pods[hash(uid)]; p; p = p->next)
        if (!strcmp(p->uid, uid))
            return p;
    return NULL;
}

ctl_podtable_t *ctl_podtable_create(void) { return sl_xcalloc(1, sizeof(ctl_podtable_t)); }

void ctl_podtable_destroy(sl_ctl_t *c)
{
    if (!c->table)
        return;
    for (int i = 0; i < CTL_HASH; i++)
        while (c->table->pods[i])
            ctl_pod_remove(c, c->table->pods[i]->uid);
    free(c->table);
    c->table = NULL;
}

ctl_pod_t *ctl_pod_next(sl_ctl_t *c, const ctl_pod_t *p)
{
    if (p && p->next)
        return p->next;
    for (unsigned i = p ? hash(p->uid) + 1 : 0; i < CTL_HASH; i++)
        if (c->table->pods[i])
            return c->table->pods[i];
    return NULL;
}

size_t ctl_pods_count(sl_ctl_t *c) { return c->table->npods; }

ctl_pod_t *ctl_due_first(sl_ctl_t *c) { return c->table->due; }

ctl_pod_t *ctl_due_last(sl_ctl_t *c) { return c->table->due_tail; }

ctl_pod_t *ctl_pod_add(sl_ctl_t *c, const char *uid, const char *ns, const char *name)
{
    ctl_pod_t *p = ctl_pod_find(c, uid);
    if (p)
        return p;
    p = sl_xcalloc(1, sizeof(*p));
    p->uid = sl_xstrdup(uid);
    p->ns = sl_xstrdup(ns);
    p->name = sl_xstrdup(name);
    p->seen_ms = sl_now_ms();
    unsigned h = hash(uid);
    p->next = c->table->pods[h];
    c->table->pods[h] = p;
    c->table->npods++;
    return p;
}

static void unlink_job(sl_ctl_t *c, ctl_pod_t *p)
{
    if (!p->job_id)
        return;
    for (ctl_pod_t **pp = &c->table->by_job[hash_job(p->job_id)]; *pp; pp = &(*pp)->next_job)
        if (*pp == p) {
            *pp = p->next_job;
            p->next_job = NULL;
            return;
        }
}

static void unlink_task(sl_ctl_t *c, ctl_pod_t *p)
{
    if (!p->array_job_id)
        return;
    unsigned h = hash_task(p->array_job_id, p->array_task_id);
    for (ctl_pod_t **pp = &c->table->by_task[h]; *pp; pp = &(*pp)->next_task)
        if (*pp == p) {
            *pp = p->next_task;
            p->next_task = NULL;
            return;
        }
}

void ctl_pod_set_job(sl_ctl_t *c, ctl_pod_t *p, uint32_t job_id)
{
    if (p->job_id == job_id)
        return;
    unlink_job(c, p);
    p->job_id = job_id;
    if (!job_id)
        return;
    unsigned h = hash_job(job_id);
    p->next_job = c->table->by_job[h];
    c->table->by_job[h] = p;
}

void ctl_pod_set_task(sl_ctl_t *c, ctl_pod_t *p, uint32_t array_job, uint32_t task)
{
    if (p->array_job_id == array_job && p->array_task_id == task)
        return;
    unlink_task(c, p);
    p->array_job_id = array_job;
    p->array_task_id = task;
    if (!array_job)
        return;
    unsigned h = hash_task(array_job, task);
    p->next_task = c->table->by_task[h];
    c->table->by_task[h] = p;
}

void ctl_due_add(sl_ctl_t *c, ctl_pod_t *p)
{
    c->table->due_dirty = 1; /* added, or noted again: something of it changed */
    if (p->in_due)
        return;
    p->in_due = 1;
    p->due_next = NULL;
    p->due_prev = c->table->due_tail;
    if (c->table->due_tail)
        c->table->due_tail->due_next = p;
    else
        c->table->due = p;
    c->table->due_tail = p;
}

void ctl_due_del(sl_ctl_t *c, ctl_pod_t *p)
{
    if (!p->in_due)
        return;
    if (p->due_prev)
        p->due_prev->due_next = p->due_next;
    else
        c->table->due = p->due_next;
    if (p->due_next)
        p->due_next->due_prev = p->due_prev;
    else
        c->table->due_tail = p->due_prev;
    p->due_next = p->due_prev = NULL;
    p->in_due = 0;
}

void ctl_pod_remove(sl_ctl_t *c, const char *uid)
{
    for (ctl_pod_t **pp = &c->table->pods[hash(uid)]; *pp; pp = &(*pp)->next) {
        if (!strcmp((*pp)->uid, uid)) {
            ctl_pod_t *p = *pp;
            *pp = p->next;
            unlink_job(c, p);
            unlink_task(c, p);
            ctl_due_del(c, p);
            ctl_batch_forget(c, p);
            ctl_pull_cancel(p->pull); /* no one needs it any more */
            free(p->uid);
            free(p->ns);
            free(p->name);
            free(p->owner_uid);
            free(p->node);
            free(p->view_key);
            free(p);
            c->table->npods--;
            return;
        }
    }
}

ctl_pod_t *ctl_pod_by_job(sl_ctl_t *c, uint32_t job_id)
{
    return ctl_pod_next_by_job(c, job_id, NULL);
}

ctl_pod_t *ctl_pod_next_by_job(sl_ctl_t *c, uint32_t job_id, const ctl_pod_t *after)
{
    if (!job_id)
        return NULL;
    for (ctl_pod_t *p = after ? after->next_job : c->table->by_job[hash_job(job_id)]; p;
         p = p->next_job)
        if (p->job_id == job_id)
            return p;
    return NULL;
}

ctl_pod_t *ctl_pod_by_task(sl_ctl_t *c, uint32_t array_job, uint32_t task)
{
    if (task == SL_SLURM_NO_TASK || !array_job)
        return NULL;
    for (ctl_pod_t *p = c->table->by_task[hash_task(array_job, task)]; p; p = p->next_task)
        if (p->owner_uid && p->array_job_id == array_job && p->array_task_id == task)
            return p;
    return NULL;
}

/* ---- the due list's pass ------------------------------------------------- */

/* whether p waits for something of due_of's, now or later (c->lock held) */
static int waits(const ctl_pod_t *p)
{
    if (p->deleting)
        return p->signalled_ms > 0 || !p->signalled_ms;
    return p->finish_due_ms || p->recheck ||
           (!p->job_id && !p->gave_up &&
            (p->tries || p->pending_submit || p->pull_wait || p->pull));
}

void ctl_due_note(sl_ctl_t *c, ctl_pod_t *p)
{
    if (waits(p))
        ctl_due_add(c, p);
}

typedef enum { DUE_SUBMIT, DUE_DELETE, DUE_END_FINISHED, DUE_RECHECK } due_t;

/* What p is due for now, or -1 (c->lock held: finish_due_ms is shared).
 * *wake: when it becomes due by time alone (its back-off's or its finish
 * deadline's end); `now` when due now, or when something else can make it
 * due without a ctl_due_note (a pull on a worker, the Slurm controller
 * answering again, a deletion's steps), so that it is looked at on every
 * pass; LLONG_MAX when only a change can. */
static int due_of(const ctl_pod_t *p, long long now, long long *wake)
{
    *wake = now;
    if (p->deleting) /* signalled, or its deletion waited for its submission */
        return p->signalled_ms > 0 || (!p->signalled_ms && !p->submitting) ? DUE_DELETE : -1;
    if (p->finish_due_ms && now >= p->finish_due_ms)
        return DUE_END_FINISHED;
    if (p->recheck)
        return DUE_RECHECK;
    long long t = p->finish_due_ms ? p->finish_due_ms : LLONG_MAX;
    /* a Job's pod is submitted with its array (src/kinds/job/controller.c), its pull taken there */
    if (!p->job_id && !p->gave_up && !p->owner_uid) {
        if ((p->tries || p->pending_submit || p->pull_wait) && now >= p->next_try_ms)
            return DUE_SUBMIT;
        if (ctl_pull_done(p->pull))
            return DUE_SUBMIT;
        if (p->pending_submit || p->pull)
            return -1;
        if ((p->tries || p->pull_wait) && p->next_try_ms < t)
            t = p->next_try_ms;
    }
    *wake = t;
    return -1;
}

/* pods waiting for a (re)submission, a deletion deadline or a second look
 * at their job. The list is walked only when a pod was added or noted since
 * the last walk, or when the first back-off or deadline of the pods the
 * last walk left waiting has come: pods that only wait for time are not
 * looked at on every pass (a burst of store changes is a pass each). */
void ctl_due_pass(sl_ctl_t *c)
{
    long long now = sl_now_ms();
    ctl_pod_t *due[256];
    due_t what[256];
    size_t n = 0;
    pthread_mutex_lock(&c->lock);
    ctl_submit_queue_metric(c, now); /* a walk of the table: once per node poll period */
    if (!c->table->due_dirty && now < c->table->due_wake_ms) {
        pthread_mutex_unlock(&c->lock);
        return;
    }
    long long wake = LLONG_MAX;
    ctl_pod_t *last = c->table->due_tail, *p = c->table->due;
    for (ctl_pod_t *next; p && n < 256; p = next) {
        next = p == last ? NULL : p->due_next; /* each once, though moved to the tail */
        long long w;
        int d = due_of(p, now, &w);
        ctl_due_del(c, p);
        if (d >= 0) {
            due[n] = p;
            what[n++] = (due_t)d;
        }
        if (waits(p)) { /* still waiting: to the tail, so that none starves */
            ctl_due_add(c, p);
            if (w < wake)
                wake = w;
        }
    }
    /* the actions below change their pods: the next pass walks again, as it
     * does when this one stopped at 256 */
    c->table->due_dirty = n > 0 || p;
    c->table->due_wake_ms = wake;
    pthread_mutex_unlock(&c->lock);
    /* the pointers stay valid: only this thread frees a pod, and each
     * action frees at most its own */
    for (size_t i = 0; i < n; i++) {
        json_t *pod = ctl_pod_get(c, due[i]->ns, due[i]->name, due[i]->uid);
        if (!pod)
            continue;
        if (what[i] == DUE_DELETE)
            ctl_handle_delete(c, due[i], pod);
        else if (what[i] == DUE_END_FINISHED)
            ctl_poll_end_finished(c, due[i]);
        else if (what[i] == DUE_RECHECK)
            ctl_poll_recheck(c, due[i]);
        else
            ctl_submit(c, due[i], pod);
        json_decref(pod);
    }
}
