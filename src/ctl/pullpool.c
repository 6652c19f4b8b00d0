/* pullpool.c — the bounded pool of image pulls (pullpool.h): a count in
 * all and one per namespace that has a pull running. */
#include "ctl/pullpool.h"

#include "common/xalloc.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

typedef struct ns_count {
    char *ns;
    int n;
    struct ns_count *next;
} ns_count_t;

struct ctl_pullpool {
    pthread_mutex_t mu;
    int max_total, max_per_ns, total;
    ns_count_t *by_ns; /* namespaces with a pull running */
};

ctl_pullpool_t *ctl_pullpool_create(int max_total, int max_per_ns)
{
    ctl_pullpool_t *pp = sl_xcalloc(1, sizeof(*pp));
    pthread_mutex_init(&pp->mu, NULL);
    pp->max_total = max_total > 0 ? max_total : 0;
    pp->max_per_ns = max_per_ns > 0 ? max_per_ns : 0;
    return pp;
}

void ctl_pullpool_destroy(ctl_pullpool_t *pp)
{
    if (!pp)
        return;
    while (pp->by_ns) {
        ns_count_t *e = pp->by_ns;
        pp->by_ns = e->next;
        free(e->ns);
        free(e);
    }
    pthread_mutex_destroy(&pp->mu);
    free(pp);
}

/* ns's entry (made when create; mu held) */
static ns_count_t **find(ctl_pullpool_t *pp, const char *ns)
{
    ns_count_t **e = &pp->by_ns;
    while (*e && strcmp((*e)->ns, ns))
        e = &(*e)->next;
    return e;
}

int ctl_pullpool_take(ctl_pullpool_t *pp, const char *ns)
{
    pthread_mutex_lock(&pp->mu);
    ns_count_t **e = find(pp, ns);
    int n = *e ? (*e)->n : 0;
    int ok =
        (!pp->max_total || pp->total < pp->max_total) && (!pp->max_per_ns || n < pp->max_per_ns);
    if (ok) {
        if (!*e) {
            *e = sl_xcalloc(1, sizeof(**e));
            (*e)->ns = sl_xstrdup(ns);
        }
        (*e)->n++;
        pp->total++;
    }
    pthread_mutex_unlock(&pp->mu);
    return ok;
}

void ctl_pullpool_give(ctl_pullpool_t *pp, const char *ns)
{
    pthread_mutex_lock(&pp->mu);
    ns_count_t **e = find(pp, ns);
    if (*e) {
        pp->total--;
        if (--(*e)->n == 0) {
            ns_count_t *gone = *e;
            *e = gone->next;
            free(gone->ns);
            free(gone);
        }
    }
    pthread_mutex_unlock(&pp->mu);
}

int ctl_pullpool_running(ctl_pullpool_t *pp, const char *ns)
{
    pthread_mutex_lock(&pp->mu);
    ns_count_t **e = ns ? find(pp, ns) : NULL;
    int n = ns ? (*e ? (*e)->n : 0) : pp->total;
    pthread_mutex_unlock(&pp->mu);
    return n;
}
