/* subpool.c — the submission workers (subpool.h). */
#include "ctl/subpool.h"

#include "common/xalloc.h"

#include <pthread.h>
#include <stdlib.h>

#define SUBPOOL_MAX 64

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
    int nthreads;
    pthread_t threads[SUBPOOL_MAX];
};

static void *worker(void *arg)
{
    ctl_subpool_t *p = arg;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (!p->queue && !p->stop)
            pthread_cond_wait(&p->cond, &p->mu);
        if (p->stop)
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
    if (workers > SUBPOOL_MAX)
        workers = SUBPOOL_MAX;
    for (int i = 0; i < workers; i++)
        if (pthread_create(&p->threads[p->nthreads], NULL, worker, p) == 0)
            p->nthreads++;
    if (!p->nthreads) {
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
        pthread_join(p->threads[i], NULL);
    free_list(p->queue, free_sub);
    free_list(p->done, free_sub);
    pthread_cond_destroy(&p->cond);
    pthread_mutex_destroy(&p->mu);
    free(p);
}
