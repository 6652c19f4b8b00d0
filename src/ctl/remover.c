/* remover.c — one thread that removes deleted pods' folders (remover.h). */
#include "ctl/remover.h"
#include "common/log.h"
#include "common/xalloc.h"
#include "podfs/podfs.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct rm_item {
    char *dir;
    struct rm_item *next;
} rm_item_t;

struct ctl_remover {
    pthread_mutex_t mu;
    pthread_cond_t cond; /* an item queued, or stop */
    rm_item_t *head, *tail;
    int stop;
    pthread_t thread;
};

static void remove_dir(char *dir)
{
    if (sl_podfs_remove(dir) < 0)
        sl_warn("cannot remove the pod folder %s: %s", dir, strerror(errno));
    free(dir);
}

static void *rm_main(void *arg)
{
    ctl_remover_t *r = arg;
    pthread_mutex_lock(&r->mu);
    for (;;) {
        while (!r->head && !r->stop)
            pthread_cond_wait(&r->cond, &r->mu);
        rm_item_t *it = r->head;
        if (!it)
            break; /* stopped, and nothing is left */
        r->head = it->next;
        if (!r->head)
            r->tail = NULL;
        pthread_mutex_unlock(&r->mu);
        remove_dir(it->dir);
        free(it);
        pthread_mutex_lock(&r->mu);
    }
    pthread_mutex_unlock(&r->mu);
    return NULL;
}

ctl_remover_t *ctl_remover_start(void)
{
    ctl_remover_t *r = sl_xcalloc(1, sizeof(*r));
    pthread_mutex_init(&r->mu, NULL);
    pthread_cond_init(&r->cond, NULL);
    if (pthread_create(&r->thread, NULL, rm_main, r) != 0) {
        pthread_cond_destroy(&r->cond);
        pthread_mutex_destroy(&r->mu);
        free(r);
        return NULL;
    }
    pthread_setname_np(r->thread, "sl-remove"); /* named before the caller goes on */
    return r;
}

void ctl_remover_push(ctl_remover_t *r, char *dir)
{
    if (!r) {
        remove_dir(dir);
        return;
    }
    rm_item_t *it = sl_xcalloc(1, sizeof(*it));
    it->dir = dir;
    pthread_mutex_lock(&r->mu);
    if (r->tail)
        r->tail->next = it;
    else
        r->head = it;
    r->tail = it;
    pthread_cond_signal(&r->cond);
    pthread_mutex_unlock(&r->mu);
}

void ctl_remover_stop(ctl_remover_t *r)
{
    if (!r)
        return;
    pthread_mutex_lock(&r->mu);
    r->stop = 1;
    pthread_cond_signal(&r->cond);
    pthread_mutex_unlock(&r->mu);
    pthread_join(r->thread, NULL);
    pthread_cond_destroy(&r->cond);
    pthread_mutex_destroy(&r->mu);
    free(r);
}
