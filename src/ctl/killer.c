/* killer.c — removed pods' jobs cancelled on a few threads (killer.h). */
#include "ctl/killer.h"
#include "common/log.h"
#include "common/proc.h"
#include "common/xalloc.h"
#include "ctl/remover.h"

#include <pthread.h>
#include <stdlib.h>

typedef struct kl_item {
    ctl_killer_fn fn;
    void *arg;
    void (*free_arg)(void *);
    char *dir;
    long long due_ms; /* waiting to be tried again: not before then */
    int delay_ms;     /* the next delay */
    struct kl_item *next;
} kl_item_t;

struct ctl_killer {
    pthread_mutex_t mu;
    pthread_cond_t cond;    /* an item queued, or stop (CLOCK_MONOTONIC) */
    kl_item_t *head, *tail; /* in the order pushed */
    kl_item_t *later;       /* waiting to be tried again (any order; few) */
    unsigned long backlog;  /* queued, running or later */
    unsigned long retries;
    int stop, nthreads, retry_ms;
    struct ctl_remover *remover;
    pthread_t threads[CTL_KILLER_THREADS];
};

static void item_done(struct ctl_remover *remover, kl_item_t *it, int keep_dir)
{
    if (it->free_arg)
        it->free_arg(it->arg);
    if (it->dir && !keep_dir)
        ctl_remover_push(remover, it->dir);
    else
        free(it->dir);
    free(it);
}

/* the next item to run (lock held): the queue's first, else one of later
 * that is due; *wake_ms: the earliest due of later (0: none) */
static kl_item_t *take(ctl_killer_t *k, long long now, long long *wake_ms)
{
    kl_item_t *it = k->head;
    if (it) {
        k->head = it->next;
        if (!k->head)
            k->tail = NULL;
        return it;
    }
    *wake_ms = 0;
    for (kl_item_t **pp = &k->later; *pp; pp = &(*pp)->next) {
        if ((*pp)->due_ms <= now) {
            it = *pp;
            *pp = it->next;
            return it;
        }
        if (!*wake_ms || (*pp)->due_ms < *wake_ms)
            *wake_ms = (*pp)->due_ms;
    }
    return NULL;
}

static void wait_until(ctl_killer_t *k, long long wake_ms)
{
    if (!wake_ms) {
        pthread_cond_wait(&k->cond, &k->mu);
        return;
    }
    long long left = wake_ms - sl_now_ms();
    if (left <= 0)
        return;
    struct timespec ts = sl_mono_after_ms(left);
    pthread_cond_timedwait(&k->cond, &k->mu, &ts);
}

static void *kl_main(void *arg)
{
    ctl_killer_t *k = arg;
    pthread_mutex_lock(&k->mu);
    for (;;) {
        long long wake = 0;
        kl_item_t *it = take(k, sl_now_ms(), &wake);
        if (!it && k->stop)
            break; /* stopped, and nothing queued is left */
        if (!it) {
            wait_until(k, wake);
            continue;
        }
        pthread_mutex_unlock(&k->mu);
        int again = it->fn(it->arg);
        pthread_mutex_lock(&k->mu);
        if (again && !k->stop) {
            k->retries++;
            it->due_ms = sl_now_ms() + it->delay_ms;
            it->delay_ms = it->delay_ms * 2 > CTL_KILLER_RETRY_MAX_MS ? CTL_KILLER_RETRY_MAX_MS
                                                                      : it->delay_ms * 2;
            it->next = k->later;
            k->later = it;
            continue;
        }
        k->backlog--;
        pthread_mutex_unlock(&k->mu);
        item_done(k->remover, it, again);
        pthread_mutex_lock(&k->mu);
    }
    pthread_mutex_unlock(&k->mu);
    return NULL;
}

ctl_killer_t *ctl_killer_start(int threads, struct ctl_remover *remover, int retry_ms)
{
    if (threads < 1)
        threads = 1;
    if (threads > CTL_KILLER_THREADS)
        threads = CTL_KILLER_THREADS;
    ctl_killer_t *k = sl_xcalloc(1, sizeof(*k));
    pthread_mutex_init(&k->mu, NULL);
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&k->cond, &ca);
    pthread_condattr_destroy(&ca);
    k->remover = remover;
    k->retry_ms = retry_ms > 0 ? retry_ms : CTL_KILLER_RETRY_MS;
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
        item_done(NULL, it, it->fn(it->arg)); /* once: no thread to try again on */
        return;
    }
    pthread_mutex_lock(&k->mu);
    it->delay_ms = k->retry_ms;
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

unsigned long ctl_killer_retries(ctl_killer_t *k)
{
    if (!k)
        return 0;
    pthread_mutex_lock(&k->mu);
    unsigned long n = k->retries;
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
    size_t dropped = 0;
    while (k->later) {
        kl_item_t *it = k->later;
        k->later = it->next;
        item_done(k->remover, it, 1);
        dropped++;
    }
    if (dropped)
        sl_warn("the jobs of %zu removed pod%s not cancelled yet (slurmctld did not answer): "
                "the next start cancels them and removes the folders",
                dropped, dropped == 1 ? "" : "s");
    pthread_cond_destroy(&k->cond);
    pthread_mutex_destroy(&k->mu);
    free(k);
}
