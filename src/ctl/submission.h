/* submission.h — the submission's state: the workers that submit pods'
 * jobs (submit.c, subpool.h) and those that pull their images (pull.c,
 * pullpool.h). The functions that hand pods to them are declared in
 * internal.h (ctl_submit*, ctl_pull*).
 *
 * Threads and locks:
 * - the ctl_submission_t (c->submission, submit.c): made by
 *   ctl_submit_start before the controller thread starts, freed by
 *   ctl_submit_stop after it and the workers are joined. Its pool is the
 *   subpool's, under the subpool's own lock (never held with c->lock). Its
 *   paused flag is atomic: set by a worker that found slurmctld down or
 *   busy, read by every worker and the controller thread, cleared by the
 *   controller thread when a job poll is answered (ctl_submit_resume). The
 *   queue metric's next time is the controller thread's, read and written
 *   with c->lock held (the walk of the table it times needs the lock).
 * - the ctl_pulls_t (c->pulls, pull.c): made by ctl_pull_start before the
 *   controller thread starts, freed by ctl_pull_stop once no pull worker
 *   runs (ctl_pull_drain waits for them). Its pool counts pulls under the
 *   pullpool's own lock (a leaf); its running count is atomic (a pull
 *   worker decrements it as it ends). */
#ifndef SL_CTL_SUBMISSION_H
#define SL_CTL_SUBMISSION_H

#include "ctl/internal.h"

typedef struct ctl_submission ctl_submission_t;
typedef struct ctl_pulls ctl_pulls_t;

/* a job poll answered: the workers submit again (controller thread) */
void ctl_submit_resume(sl_ctl_t *c);
/* the submit queue's length counted into the metrics, once per node poll
 * period (c->lock held; controller thread) */
void ctl_submit_queue_metric(sl_ctl_t *c, long long now);

/* the pulls' pool (opts' image_max_pulls, image_max_pulls_per_ns) */
void ctl_pull_start(sl_ctl_t *c);
/* waits until no pull worker runs (their tools have time limits) */
void ctl_pull_drain(sl_ctl_t *c);
void ctl_pull_stop(sl_ctl_t *c); /* after ctl_pull_drain and the pods' release */

#endif
