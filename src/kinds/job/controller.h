/* controller.h — the Job controller's hooks for its row (kind.c): one
 * Job reconciled (its arrays, pods, submissions and status), one deleted
 * (its work ends). Controller thread. */
#ifndef SL_KINDS_JOB_CONTROLLER_H
#define SL_KINDS_JOB_CONTROLLER_H

#include <jansson.h>

#include "ctl/internal.h"

void ctl_job_reconcile(sl_ctl_t *c, json_t *job);
void ctl_job_gone(sl_ctl_t *c, json_t *job);

#endif
