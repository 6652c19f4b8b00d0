/* controller.h — the CronJob controller's hooks for its row (kind.c):
 * the CronJobs reconciled (their Jobs on schedule, status, history), one
 * deleted (its Jobs go), and the Jobs of CronJobs deleted unseen
 * collected (gc.c). Controller thread. */
#ifndef SL_KINDS_CRONJOB_CONTROLLER_H
#define SL_KINDS_CRONJOB_CONTROLLER_H

#include <jansson.h>

#include "ctl/internal.h"

void ctl_cronjobs_reconcile(sl_ctl_t *c, json_t *cjs);
void ctl_cronjob_removed(sl_ctl_t *c, json_t *cj);
/* gc.c: a CronJob being deleted with a finalizer, or gone, and its Jobs */
void ctl_cronjob_finalize(sl_ctl_t *c, json_t *cj, json_t *jobs);
void ctl_cronjob_gone(sl_ctl_t *c, json_t *cj, json_t *jobs);
/* Jobs whose controller ownerReference names a CronJob no longer stored
 * (deleted while slurmlinkd was down, or while the CronJob controller was
 * behind the change log): deleted, as kube's garbage collector does. */
void ctl_cronjobs_collect_gone(sl_ctl_t *c);

#endif
