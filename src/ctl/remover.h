/* remover.h — the folders of deleted pods, removed on one thread of their
 * own: a tree its user filled does not hold the controller, and a mass
 * deletion starts one thread, not one per pod.
 *
 * Folders are removed in the order pushed, each with sl_podfs_remove (on
 * fds, never following a link; a missing folder is not an error). The
 * remover's lock guards only its queue and is held while no folder is
 * removed. */
#ifndef SL_CTL_REMOVER_H
#define SL_CTL_REMOVER_H

typedef struct ctl_remover ctl_remover_t;

/* The remover and its thread (named "sl-remove"); NULL when the thread
 * could not start (ctl_remover_push then removes on the caller's thread). */
ctl_remover_t *ctl_remover_start(void);
/* Queue dir for removal (takes it; freed once removed). With r NULL, it is
 * removed here and now. */
void ctl_remover_push(ctl_remover_t *r, char *dir);
/* Removes what is queued, then ends the thread and frees r (NULL: no-op):
 * a folder whose pod was deleted before a shutdown is not left behind. */
void ctl_remover_stop(ctl_remover_t *r);

#endif
