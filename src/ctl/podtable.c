/* podtable.c — the controller's pods, by uid, and the same pods by Slurm
 * job id and by array task (a Job's pods), each a hash of CTL_HASH chains:
 * every lookup costs a chain, never a walk of the table (internal.h). */
#include "common/proc.h"
#include "common/xalloc.h"
#include "ctl/internal.h"

#include <stdlib.h>
#include <string.h>

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
    for (ctl_pod_t *p = c->pods[hash(uid)]; p; p = p->next)
        if (!strcmp(p->uid, uid))
            return p;
    return NULL;
}

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
    p->next = c->pods[h];
    c->pods[h] = p;
    c->npods++;
    return p;
}

static void unlink_job(sl_ctl_t *c, ctl_pod_t *p)
{
    if (!p->job_id)
        return;
    for (ctl_pod_t **pp = &c->by_job[hash_job(p->job_id)]; *pp; pp = &(*pp)->next_job)
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
    for (ctl_pod_t **pp = &c->by_task[h]; *pp; pp = &(*pp)->next_task)
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
    p->next_job = c->by_job[h];
    c->by_job[h] = p;
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
    p->next_task = c->by_task[h];
    c->by_task[h] = p;
}

void ctl_due_add(sl_ctl_t *c, ctl_pod_t *p)
{
    c->due_dirty = 1; /* added, or noted again: something of it changed */
    if (p->in_due)
        return;
    p->in_due = 1;
    p->due_next = NULL;
    p->due_prev = c->due_tail;
    if (c->due_tail)
        c->due_tail->due_next = p;
    else
        c->due = p;
    c->due_tail = p;
}

void ctl_due_del(sl_ctl_t *c, ctl_pod_t *p)
{
    if (!p->in_due)
        return;
    if (p->due_prev)
        p->due_prev->due_next = p->due_next;
    else
        c->due = p->due_next;
    if (p->due_next)
        p->due_next->due_prev = p->due_prev;
    else
        c->due_tail = p->due_prev;
    p->due_next = p->due_prev = NULL;
    p->in_due = 0;
}

void ctl_pod_remove(sl_ctl_t *c, const char *uid)
{
    for (ctl_pod_t **pp = &c->pods[hash(uid)]; *pp; pp = &(*pp)->next) {
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
            c->npods--;
            return;
        }
    }
}

ctl_pod_t *ctl_pod_by_job(sl_ctl_t *c, uint32_t job_id)
{
    if (!job_id)
        return NULL;
    for (ctl_pod_t *p = c->by_job[hash_job(job_id)]; p; p = p->next_job)
        if (p->job_id == job_id)
            return p;
    return NULL;
}

ctl_pod_t *ctl_pod_by_task(sl_ctl_t *c, uint32_t array_job, uint32_t task)
{
    if (task == SL_SLURM_NO_TASK || !array_job)
        return NULL;
    for (ctl_pod_t *p = c->by_task[hash_task(array_job, task)]; p; p = p->next_task)
        if (p->owner_uid && p->array_job_id == array_job && p->array_task_id == task)
            return p;
    return NULL;
}
