/* subpool.c — the submission workers (subpool.h). */
#include "ctl/subpool.h"

#include "common/xalloc.h"

#include <pthread.h>
#include <stdlib.h>

#define SUBPOOL_MAX 64

/* one worker's thread and its place in the pool */
typedef struct slot {
    struct ctl_subpool *p;
    int idx;
    pthread_t thread;
} slot_t;

struct ctl_subpool {
    struct sl_ctl *c;
    ctl_sub_run_fn run;
    void (*kick)(void *);
    void *kick_arg;
    pthread_mutex_t mu; /* guards everything below */
    pthread_cond_t cond;
    ctl_sub_t *queue, **queue_tail;
    ctl_sub_t *done, **done_tail;
    size_t busy; /* queued or running */
    int stop;
    int want;     /* workers wanted: slot idx >= want ends when it is next free */
    int nthreads; /* slots started and not joined (written by resize/destroy only) */
    slot_t slots[SUBPOOL_MAX];
};

static void *worker(void *arg)
{
    slot_t *me = arg;
    ctl_subpool_t *p = me->p;
    pthread_setname_np(pthread_self(), "sl-submit");
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->queue && !p->stop && me->idx < p->want)
            pthread_cond_wait(&p->cond, &p->mu);
        if (p->stop || me->idx >= p->want)
            break;
        ctl_sub_t *s = p->queue;
        p->queue = s->next;
        if (!p->queue)
            p->queue_tail = &p->queue;
        s->next = NULL;
        pthread_mutex_unlock(&p->mu);
        p->run(p->c, s);
        pthread_mutex_lock(&p->mu);
        int was_empty = !p->done;
        *p->done_tail = s;
        p->done_tail = &s->next;
        p->busy--;
        if (was_empty && p->kick) {
            pthread_mutex_unlock(&p->mu);
            p->kick(p->kick_arg);
            pthread_mutex_lock(&p->mu);
        }
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* slots from..want-1 started (want already set); the count running */
static int grow(ctl_subpool_t *p, int want)
{
    int n = p->nthreads;
    for (int i = n; i < want; i++) {
        p->slots[i] = (slot_t){.p = p, .idx = i};
        if (pthread_create(&p->slots[i].thread, NULL, worker, &p->slots[i]) != 0)
            break;
        n = i + 1;
    }
    pthread_mutex_lock(&p->mu);
    p->nthreads = n;
    p->want = n; /* a thread that did not start is not waited for */
    pthread_cond_broadcast(&p->cond);
    pthread_mutex_unlock(&p->mu);
    return n;
}

static int clamp_workers(int n) { return n < 1 ? 1 : n > SUBPOOL_MAX ? SUBPOOL_MAX : n; }

int ctl_subpool_resize(ctl_subpool_t *p, int workers)
{
    workers = clamp_workers(workers);
    pthread_mutex_lock(&p->mu);
    int old = p->nthreads;
    p->want = workers;
    pthread_cond_broadcast(&p->cond);
    pthread_mutex_unlock(&p->mu);
    if (workers >= old)
        return grow(p, workers);
    for (int i = workers; i < old; i++) /* each ends after its current submission */
        pthread_join(p->slots[i].thread, NULL);
    pthread_mutex_lock(&p->mu);
    p->nthreads = workers;
    pthread_mutex_unlock(&p->mu);
    return workers;
}

int ctl_subpool_workers(ctl_subpool_t *p)
{
    pthread_mutex_lock(&p->mu);
    int n = p->nthreads;
    pthread_mutex_unlock(&p->mu);
    return n;
}

ctl_subpool_t *ctl_subpool_create(struct sl_ctl *c, int workers, ctl_sub_run_fn run,
                                  void (*kick)(void *), void *kick_arg)
{
    ctl_subpool_t *p = sl_xcalloc(1, sizeof(*p));
    p->c = c;
    p->run = run;
    p->kick = kick;
    p->kick_arg = kick_arg;
    p->queue_tail = &p->queue;
    p->done_tail = &p->done;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cond, NULL);
    p->want = clamp_workers(workers);
    if (!grow(p, p->want)) {
        ctl_subpool_destroy(p, NULL);
        return NULL;
    }
    return p;
}

void ctl_subpool_push(ctl_subpool_t *p, ctl_sub_t *s)
{
    s->next = NULL;
    pthread_mutex_lock(&p->mu);
    *p->queue_tail = s;
    p->queue_tail = &s->next;
    p->busy++;
    pthread_cond_signal(&p->cond);
    pthread_mutex_unlock(&p->mu);
}

ctl_sub_t *ctl_subpool_take(ctl_subpool_t *p)
{
    pthread_mutex_lock(&p->mu);
    ctl_sub_t *s = p->done;
    p->done = NULL;
    p->done_tail = &p->done;
    pthread_mutex_unlock(&p->mu);
    return s;
}

size_t ctl_subpool_busy(ctl_subpool_t *p)
{
    pthread_mutex_lock(&p->mu);
    size_t n = p->busy;
    pthread_mutex_unlock(&p->mu);
    return n;
}

static void free_list(ctl_sub_t *s, void (*free_sub)(ctl_sub_t *s))
{
    while (s) {
        ctl_sub_t *next = s->next;
        if (free_sub)
            free_sub(s);
        s = next;
    }
}

void ctl_subpool_destroy(ctl_subpool_t *p, void (*free_sub)(ctl_sub_t *s))
{
    if (!p)
        return;
    pthread_mutex_lock(&p->mu);
    p->stop = 1;
    pthread_cond_broadcast(&p->cond);
    pthread_mutex_unlock(&p->mu);
    for (int i = 0; i < p->nthreads; i++)
        pthread_join(p->slots[i].thread, NULL);
    free_list(p->queue, free_sub);
    free_list(p->done, free_sub);
    pthread_cond_destroy(&p->cond);
    pthread_mutex_destroy(&p->mu);
    free(p);
}
