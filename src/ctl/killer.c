/* killer.c — removed pods' jobs cancelled on a few threads (killer.h). */
#include "ctl/killer.h"
#include "common/xalloc.h"
#include "ctl/remover.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct kl_item {
    ctl_killer_fn fn;
    void *arg;
    void (*free_arg)(void *);
    char *dir;
    struct kl_item *next;
} kl_item_t;

struct ctl_killer {
    pthread_mutex_t mu;
    pthread_cond_t cond; /* an item queued, or stop */
    kl_item_t *head, *tail;
    unsigned long backlog; /* queued or running */
    int stop, nthreads;
    struct ctl_remover *remover;
    pthread_t threads[CTL_KILLER_THREADS];
};

static void run_item(struct ctl_remover *remover, kl_item_t *it)
{
    it->fn(it->arg);
    if (it->free_arg)
        it->free_arg(it->arg);
    if (it->dir)
        ctl_remover_push(remover, it->dir);
    free(it);
}

static void *kl_main(void *arg)
{
    ctl_killer_t *k = arg;
    pthread_mutex_lock(&k->mu);
    for (;;) {
        while (!k->head && !k->stop)
            pthread_cond_wait(&k->cond, &k->mu);
        kl_item_t *it = k->head;
        if (!it)
            break; /* stopped, and nothing is left */
        k->head = it->next;
        if (!k->head)
            k->tail = NULL;
        pthread_mutex_unlock(&k->mu);
        run_item(k->remover, it);
        pthread_mutex_lock(&k->mu);
        k->backlog--;
    }
    pthread_mutex_unlock(&k->mu);
    return NULL;
}

ctl_killer_t *ctl_killer_start(int threads, struct ctl_remover *remover)
{
    if (threads < 1)
        threads = 1;
    if (threads > CTL_KILLER_THREADS)
        threads = CTL_KILLER_THREADS;
    ctl_killer_t *k = sl_xcalloc(1, sizeof(*k));
    pthread_mutex_init(&k->mu, NULL);
    pthread_cond_init(&k->cond, NULL);
    k->remover = remover;
    for (int i = 0; i < threads; i++) {
        if (pthread_create(&k->threads[k->nthreads], NULL, kl_main, k) != 0)
            break;
        pthread_setname_np(k->threads[k->nthreads++], "sl-kill");
    }
    if (!k->nthreads) {
        pthread_cond_destroy(&k->cond);
        pthread_mutex_destroy(&k->mu);
        free(k);
        return NULL;
    }
    return k;
}

void ctl_killer_push(ctl_killer_t *k, ctl_killer_fn fn, void *arg, void (*free_arg)(void *),
                     char *dir)
{
    kl_item_t *it = sl_xcalloc(1, sizeof(*it));
    *it = (kl_item_t){.fn = fn, .arg = arg, .free_arg = free_arg, .dir = dir};
    if (!k) {
        run_item(NULL, it);
        return;
    }
    pthread_mutex_lock(&k->mu);
    if (k->tail)
        k->tail->next = it;
    else
        k->head = it;
    k->tail = it;
    k->backlog++;
    pthread_cond_signal(&k->cond);
    pthread_mutex_unlock(&k->mu);
}

unsigned long ctl_killer_backlog(ctl_killer_t *k)
{
    if (!k)
        return 0;
    pthread_mutex_lock(&k->mu);
    unsigned long n = k->backlog;
    pthread_mutex_unlock(&k->mu);
    return n;
}

void ctl_killer_stop(ctl_killer_t *k)
{
    if (!k)
        return;
    pthread_mutex_lock(&k->mu);
    k->stop = 1;
    pthread_cond_broadcast(&k->cond);
    pthread_mutex_unlock(&k->mu);
    for (int i = 0; i < k->nthreads; i++)
        pthread_join(k->threads[i], NULL);
    pthread_cond_destroy(&k->cond);
    pthread_mutex_destroy(&k->mu);
    free(k);
}
