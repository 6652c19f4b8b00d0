/* apply.h — what the controller writes onto a stored pod: Slurm's view of
 * its job and the shim's events, with the Events of their transitions, as
 * the kubelet and scheduler would emit them (apply.c).
 *
 * Threads and locks: no state of its own. ctl_apply_view, ctl_view_of and
 * ctl_transition_events touch no ctl_pod_t but through the pods table
 * under c->lock (internal.h), and run on any thread: the controller's poll
 * (poll.c) and the API threads' shim pushes (push.c). ctl_apply_job and
 * ctl_apply_job_written, ctl_view_remember and ctl_view_submitted change
 * the controller's own fields of a ctl_pod_t
 * (terminal, view_key, view_rv, rerun_cancelled): controller thread only. */
#ifndef SL_CTL_APPLY_H
#define SL_CTL_APPLY_H

#include "ctl/internal.h"
#include "ctl/podstatus.h"

/* one write of a view or a shim event (ctl_apply_fn's argument, through
 * ctl_pod_mutate: a pod of the same name and another uid, deleted and
 * created again, is left alone) */
typedef struct ctl_apply {
    const ctl_job_view_t *job;
    json_t *event;
    char old_phase[16], new_phase[16];
    int was_scheduled, now_scheduled;
    int rerun;        /* the job runs again for the finished pod (ctl_job_reruns_finished) */
    json_t *snapshot; /* the pod after the change (new ref) */
} ctl_apply_t;

/* the pod's status.phase, "" when none */
void ctl_phase_copy(json_t *pod, char out[16]);
/* an sl_store_mutate_fn, arg a ctl_apply_t: its job's view or its event */
int ctl_apply_fn(json_t *pod, void *arg);
/* Events of what a's write changed (pod: the pod after it; NULL: none) */
void ctl_transition_events(sl_ctl_t *c, ctl_apply_t *a, json_t *pod, uint32_t job_id);
/* What Slurm says of the job, applied to the stored pod ns/name of that
 * uid: whether the pod is terminal after it, or -1 when it is not stored
 * (own: the write noted as the controller's own, controller thread only) */
int ctl_apply_view(sl_ctl_t *c, const char *ns, const char *name, const char *uid,
                   const ctl_job_view_t *v, int own, int *rerun, int64_t *rv);
/* the controller thread's: the view applied to p's pod (*rv, if not NULL:
 * the pod's resourceVersion after it; 0 when it is not stored) */
void ctl_apply_job(sl_ctl_t *c, ctl_pod_t *p, const ctl_job_view_t *v, int64_t *rv);
/* the controller thread's: the rest of ctl_apply_job once p's view v is
 * written (w: the write's result, out: the pod after it) through a with
 * ctl_apply_fn, as the job poll's batch writes it (batch.c): the Events of
 * its transitions, p->terminal, a requeued job of a finished pod
 * cancelled. The pod's resourceVersion after it; 0 when it is not stored. */
int64_t ctl_apply_job_written(sl_ctl_t *c, ctl_pod_t *p, const ctl_job_view_t *v, ctl_apply_t *a,
                              int w, json_t *out);
/* Slurm's job j as the pod of gang rank `rank` sees it (node and ip: caller
 * buffers of 256 bytes the view points into; known: the controller's
 * p->node, NULL on other threads) */
void ctl_view_of(sl_ctl_t *c, const sl_slurm_job_t *j, int shim_done, ctl_job_view_t *v, char *node,
                 char *ip, unsigned rank, char **known, int gang);
/* what a view says, as text (two views of one key apply alike); 0 when it
 * does not fit */
int ctl_view_key(const ctl_job_view_t *v, char *buf, size_t size);

#endif
