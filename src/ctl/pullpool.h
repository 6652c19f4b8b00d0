/* pullpool.h — how many image pulls run at once (images.max_pulls in all,
 * images.max_pulls_per_namespace for one namespace): each pull is a root
 * skopeo or umoci process, so a tenant's pods naming a registry that never
 * answers hold a bounded number of them. A pod whose pull finds the pool
 * full waits and asks again (pull.c). Any thread; the pool's lock is never
 * held with another. */
#ifndef SL_CTL_PULLPOOL_H
#define SL_CTL_PULLPOOL_H

typedef struct ctl_pullpool ctl_pullpool_t;

/* max_total, max_per_ns: 0 means no limit */
ctl_pullpool_t *ctl_pullpool_create(int max_total, int max_per_ns);
void ctl_pullpool_destroy(ctl_pullpool_t *pp); /* NULL is a no-op */
/* a slot for a pull of namespace ns: 1 taken, 0 the pool or ns is full */
int ctl_pullpool_take(ctl_pullpool_t *pp, const char *ns);
void ctl_pullpool_give(ctl_pullpool_t *pp, const char *ns);
/* pulls running now: in all (ns NULL) or of ns */
int ctl_pullpool_running(ctl_pullpool_t *pp, const char *ns);

#endif
