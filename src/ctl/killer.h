/* killer.h — the Slurm jobs of pods removed from the store (force-deleted,
 * or swept with their namespace), cancelled on a few threads of their own:
 * a mass deletion of N such pods costs N ownership checks and N cancels,
 * each an RPC to slurmctld, and on the controller's thread those held every
 * submission of the pods created meanwhile until the last one was done.
 *
 * Each item is one action (the caller's function, on one of the killer's
 * threads) and, after it, the pod's folder handed to the remover (so that a
 * folder goes only once its job can no longer start). Items run in the
 * order pushed, up to CTL_KILLER_THREADS at once. The killer's lock guards
 * only its queue and is held during no action.
 *
 * An action that could not be done now (slurmctld did not answer) says so,
 * and is run again later: after the retry delay, doubled on each try up to
 * CTL_KILLER_RETRY_MAX_MS. Its folder stays until then (a job that may still
 * run keeps its folder). A stop drops what waits to be tried again, folders
 * kept: the next start's sweep (sweep.c) cancels their jobs and removes
 * them. */
#ifndef SL_CTL_KILLER_H
#define SL_CTL_KILLER_H

#define CTL_KILLER_THREADS 4
#define CTL_KILLER_RETRY_MS 1000      /* the first delay before a try again */
#define CTL_KILLER_RETRY_MAX_MS 30000 /* the longest */

struct ctl_remover;
typedef struct ctl_killer ctl_killer_t;

/* one action: arg is the item's own (freed by free_arg once done).
 * Returns 0 when done, 1 to be run again later (slurmctld did not answer). */
typedef int (*ctl_killer_fn)(void *arg);

/* The killer and its threads (named "sl-kill"), at most `threads` (1 to
 * CTL_KILLER_THREADS); folders go to `remover` (NULL: removed in place);
 * retry_ms: the first delay before an action is run again (0:
 * CTL_KILLER_RETRY_MS). NULL when no thread could start (ctl_killer_push
 * then acts on the caller's thread, once). */
ctl_killer_t *ctl_killer_start(int threads, struct ctl_remover *remover, int retry_ms);
/* Queue fn(arg), then free_arg(arg) (NULL: not freed), then dir (may be
 * NULL; taken) to the remover. With k NULL, all of it here and now. */
void ctl_killer_push(ctl_killer_t *k, ctl_killer_fn fn, void *arg, void (*free_arg)(void *),
                     char *dir);
/* The items queued or waiting to be tried again, not yet done (a metric,
 * and the tests) */
unsigned long ctl_killer_backlog(ctl_killer_t *k);
/* The times an action asked to be run again, since the start */
unsigned long ctl_killer_retries(ctl_killer_t *k);
/* Runs what is queued, then ends the threads and frees k (NULL: no-op): a
 * pod removed before a shutdown has its job cancelled. What waits to be
 * tried again is dropped, its folder kept (logged). */
void ctl_killer_stop(ctl_killer_t *k);

#endif
