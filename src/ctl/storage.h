/* storage.h — the volume controller's pass (storage.c): claims bound and
 * released, volumes reclaimed; and a pod's claims for its submission.
 *
 * Threads and locks: the ctl_storage_t (c->storage: the claims' and
 * volumes' revisions at the last pass, the next pass's time, whether a
 * claim waits on pods) is the controller thread's alone, no lock:
 * ctl_storage_pass runs only on it. ctl_storage_claims reads the store
 * only (any thread: the submission workers). */
#ifndef SL_CTL_STORAGE_H
#define SL_CTL_STORAGE_H

#include "ctl/internal.h"

typedef struct ctl_storage ctl_storage_t;

ctl_storage_t *ctl_storage_create(void);
void ctl_storage_destroy(ctl_storage_t *s);

/* claims bound and released, volumes reclaimed (one pass), when a claim or
 * volume changed, a pod changed while a claim waits on pods, or its retry
 * time came. Controller thread. */
void ctl_storage_pass(sl_ctl_t *c);
/* The pod's claims as translate takes them (sl_translate_config_t.claims):
 * new ref, or NULL with err saying why the pod waits (a claim missing, not
 * bound, being deleted, or ReadWriteOnce(Pod) and in use by another pod).
 * Any thread. */
json_t *ctl_storage_claims(sl_ctl_t *c, const sl_pod_t *m, const char *ns, const char *pod_uid,
                           sl_error_t *err);

#endif
