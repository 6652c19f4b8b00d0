/* push.h — the shim's events: pushed by the shim to the API, which calls
 * sl_ctl_shim_event (ctl.h) on its request threads, or replayed by the
 * controller thread from the pod folder's events.jsonl; in order, each
 * once (push.c; their order: shimseq.h; the shim's token:
 * auth/shimtoken.h).
 *
 * Threads and locks: the ctl_push_t (c->push) owns CTL_SHIM_STRIPES
 * mutexes; a pod's events are checked, replayed and applied under its
 * stripe (by uid), so two threads never apply one pod's events at once.
 * A stripe is taken before c->lock, never while holding it. The pod's
 * position (ctl_pod_t.shim_pos), its shim_done and finish_due_ms are the
 * pods table's, under c->lock (internal.h); shim_pos is changed only under
 * the pod's stripe too. The push path holds no ctl_pod_t across an unlock:
 * it copies what it needs under c->lock and looks the uid up again. */
#ifndef SL_CTL_PUSH_H
#define SL_CTL_PUSH_H

#include "ctl/internal.h"

typedef struct ctl_push ctl_push_t;

#define CTL_FINISH_GRACE_MS 10000 /* pod-finished to the end of the job (the shim's cleanup) */

ctl_push_t *ctl_push_create(void);
void ctl_push_destroy(ctl_push_t *s);
/* what the shim said while no push reached us (slurmlinkd away, a push
 * lost): the rest of events.jsonl applied. Controller thread. */
void ctl_push_replay_files(sl_ctl_t *c, ctl_pod_t *p);

#endif
