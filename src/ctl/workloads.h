/* workloads.h — the workload kinds' state in the controller: each kind's
 * place in the change log (follow.c), whether a reader may have missed a
 * deletion the garbage collector must make up for (jobgc.c), and the
 * back-off of workloads whose pods' creation was refused (admit.c).
 *
 * Threads and locks: the ctl_workloads_t (c->workloads) is the controller
 * thread's alone, with no lock: the kinds' passes, the collector and the
 * admission of controller-made pods run only on it. Made by sl_ctl_create
 * before that thread starts, freed by sl_ctl_destroy after it ends. */
#ifndef SL_CTL_WORKLOADS_H
#define SL_CTL_WORKLOADS_H

#include "ctl/internal.h"

typedef struct ctl_workloads ctl_workloads_t;

ctl_workloads_t *ctl_workloads_create(void);
void ctl_workloads_destroy(ctl_workloads_t *w);

/* each registered kind's last change seen (follow.c; one per kind) */
int64_t *ctl_workloads_kind_rv(sl_ctl_t *c);
const int64_t *ctl_workloads_kind_rv_const(const sl_ctl_t *c);
/* a reader may have missed a deletion (mark); the collector's one look at
 * it (take: whether one was marked since the last take) */
void ctl_workloads_gone_mark(sl_ctl_t *c);
int ctl_workloads_gone_take(sl_ctl_t *c);
/* the creation back-off by workload uid: [until ms, delay ms] (admit.c);
 * NULL until a refusal, which makes it with make */
json_t *ctl_workloads_backoff(sl_ctl_t *c, int make);

#endif
