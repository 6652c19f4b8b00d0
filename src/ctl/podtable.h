/* podtable.h — the controller's pods: what it tracks per pod (ctl_pod_t),
 * the table of them by uid, job id and array task, and the due list of
 * those that wait for something (podtable.c).
 *
 * Threads and locks: the table (c->table) and the due list are under
 * c->lock, the pods table's lock (internal.h says who takes it and in
 * which order).
 *
 * The pods table (c->table) is changed only by the controller thread,
 * always under c->lock: it alone adds a ctl_pod_t and it alone frees one
 * (ctl_pod_remove). So the controller thread may keep a pod pointer
 * across an unlock; any other thread finds a pod under c->lock, copies what
 * it needs there, and never uses the pointer after unlocking (it looks the
 * uid up again when it needs the pod once more).
 *
 * Fields of ctl_pod_t, by owner:
 *   uid, ns, name    set before the pod enters the table and never changed;
 *                    other threads read them under c->lock (and copy them)
 *   owner_uid,       written by the controller thread only, under c->lock
 *   job_id,          (handle_pod; ctl_pod_set_job/set_task: the indexes
 *   array_job_id,    by job and task; gang and gang_rank in handle_pod,
 *   array_task_id,   from the pod's annotations); it reads them without
 *   gang, gang_rank  the lock, others under it (sl_ctl_shim_event, an API
 *                    thread, copies all of them there for the pod's view
 *                    and its job)
 *   due_next,        the due list: every read and write under c->lock (an
 *   due_prev, in_due API thread adds a pod whose shim said it finished)
 *   shim_pos         the shim's last event applied: under c->lock, and
 *                    changed only under the pod's push stripe (push.h)
 *   slurm_ended      written by any thread applying a view, under c->lock
 *   shim_done,       written by both (a pushed or replayed pod-finished,
 *   finish_due_ms    the controller's cancel of a finished pod's job):
 *                    every read and write under c->lock, by every thread
 *   all the others   the controller thread's alone, no lock (terminal too:
 *                    the phase a push stores reaches the controller through
 *                    the store's change log, handle_pod) */
#ifndef SL_CTL_PODTABLE_H
#define SL_CTL_PODTABLE_H

#include <stdatomic.h>
#include <stdint.h>
#include <sys/types.h>

#include "ctl/ctl.h"
#include "ctl/shimseq.h"

typedef struct ctl_pull ctl_pull_t; /* pull.c: a pod's image pull on a worker thread */

/* What the controller tracks per pod (by uid). */
typedef struct ctl_pod {
    char *uid, *ns, *name;      /* immutable while in the table */
    uint32_t job_id;            /* written under c->lock by the controller thread */
    int terminal;               /* pod phase Succeeded/Failed */
    int deleting;               /* deletionTimestamp set */
    int job_over;               /* Slurm says the job is done (or forgot it) */
    int seen_by_slurm;          /* the job appeared in a poll since we started */
    int job_recorded;           /* its submission's job id was written onto the pod (submit.c) */
    int files_read;             /* events.jsonl of the pod folder replayed once the job ran */
    int files_final;            /* and once more when the job ended (follow_job) */
    ctl_shimseq_pos_t shim_pos; /* c->lock: the shim's last event applied (push.c) */
    long long signalled_ms;     /* SIGTERM sent (graceful delete) */
    long long next_try_ms;      /* submission back-off */
    int tries;
    int pending_submit;      /* deferred until the first Slurm poll */
    int submitting;          /* a submission worker has it (submit.c) */
    int gave_up;             /* submission failed for good (Failed, SubmitFailed) */
    atomic_int shim_done;    /* c->lock: the shim reported pod-finished (pushed or replayed);
                              * atomic too: a view applied reads it at the write (podstatus) */
    atomic_uint slurm_ended; /* c->lock to write: 1 + the restart count of its job when a view
                              * of it ended was last applied, by any thread, written before
                              * the view (0: never); read at a view's write (podstatus) */
    int recheck;             /* the stored phase may contradict the job: read it once */
    long long finish_due_ms; /* c->lock: the job must be over by then (0: no pod-finished) */
    int grace_s;
    /* grace_s is the delete's grace period, else the pod's; spec_grace_s
     * the pod's terminationGracePeriodSeconds; signalled_grace_s grace_s
     * when the job was first signalled */
    int spec_grace_s, signalled_grace_s;
    unsigned rerun_cancelled; /* restart count of the rerun cancelled (cancel_rerun) */
    long long seen_ms;        /* when the controller learned of the pod (metrics) */
    /* a Job's pod (src/kinds/job/controller.c): the Job's uid, which its array's comment carries
     * (NULL: a pod of its own); set once, before any other thread can see
     * the pod run, never changed. The array task it is, once submitted
     * (controller thread). */
    char *owner_uid;
    uint32_t array_job_id, array_task_id;
    /* the Unix uid its job runs as (ctl_run_uid, once, when first seen):
     * a job found by its comment is adopted only if it runs as that user */
    uid_t run_uid;
    int run_uid_known;
    /* a gang's replica pod (gang.c): its node in the job's node list; else 0.
     * Both written under c->lock by the controller thread (handle_pod), read
     * by API threads under it (sl_ctl_shim_event copies them) */
    unsigned gang_rank;
    int gang;         /* a replica of a gang (its rank annotation, 0 included) */
    char *node;       /* the node its job was first seen running it on (NULL: none yet;
                       * the controller thread's) */
    ctl_pull_t *pull; /* images being pulled or pulled for submission (pull.c) */
    int pull_wait;    /* a failed pull's back-off runs until next_try_ms */
    long long pull_backoff_ms;
    /* the controller thread's: the job view last applied to the pod
     * (apply_slurm, poll.c) and the pod's resourceVersion after it, and the
     * newest resourceVersion of the pod its changes brought (handle_pod): the
     * same view is not applied again to a pod that has not changed since */
    char *view_key;
    int64_t view_rv, seen_rv;
    /* the controller thread's: the last re-read of every stored pod that
     * found it (each_stored_pod, ctl.c) */
    unsigned listed;
    struct ctl_pod *next;                 /* hash chain by uid */
    struct ctl_pod *next_job, *next_task; /* chains by job_id and array task (podtable.c) */
    struct ctl_pod *due_next, *due_prev;  /* c->lock: the due list (ctl_due_note) */
    int in_due;
} ctl_pod_t;

#define CTL_HASH 4096

/* podtable.c: the pods table, by uid, job id and array task, each a hash
 * (caller holds c->lock). job_id, array_job_id and array_task_id are set
 * through ctl_pod_set_job and ctl_pod_set_task only, which keep the
 * indexes. */
typedef struct ctl_podtable ctl_podtable_t;
ctl_podtable_t *ctl_podtable_create(void);
void ctl_podtable_destroy(sl_ctl_t *c); /* every pod removed, then the table */
ctl_pod_t *ctl_pod_find(sl_ctl_t *c, const char *uid);
/* every pod of the table, in no order: the one after p (NULL: the first),
 * NULL after the last; the table unchanged meanwhile */
ctl_pod_t *ctl_pod_next(sl_ctl_t *c, const ctl_pod_t *p);
size_t ctl_pods_count(sl_ctl_t *c);
/* the due list's ends (NULL: empty) */
ctl_pod_t *ctl_due_first(sl_ctl_t *c);
ctl_pod_t *ctl_due_last(sl_ctl_t *c);
ctl_pod_t *ctl_pod_add(sl_ctl_t *c, const char *uid, const char *ns, const char *name);
void ctl_pod_remove(sl_ctl_t *c, const char *uid);
ctl_pod_t *ctl_pod_by_job(sl_ctl_t *c, uint32_t job_id);
/* every pod of job_id (a gang's replicas share one job): the one after
 * after (NULL: the first), NULL after the last; the table unchanged
 * meanwhile */
ctl_pod_t *ctl_pod_next_by_job(sl_ctl_t *c, uint32_t job_id, const ctl_pod_t *after);
void ctl_pod_set_job(sl_ctl_t *c, ctl_pod_t *p, uint32_t job_id);
void ctl_pod_set_task(sl_ctl_t *c, ctl_pod_t *p, uint32_t array_job, uint32_t task);

/* The due list: the pods that wait for something of the controller's own
 * (a grace period, the end of a finished pod's job, a second look at their
 * job, a submission's back-off or pull, a deletion waiting for its
 * submission): what the controller's due pass walks, instead of the whole
 * table. ctl_due_note (podtable.c) adds p when it waits, after any change that
 * can make it wait; the pass drops those that no longer do. */
/* at the tail (stays where it is when in it); marks the list dirty */
void ctl_due_add(sl_ctl_t *c, ctl_pod_t *p);
void ctl_due_del(sl_ctl_t *c, ctl_pod_t *p); /* no-op when not in it */
void ctl_due_note(sl_ctl_t *c, ctl_pod_t *p);
/* The due pass (podtable.c): the pods of the due list whose wait is over
 * handed to what they wait for. Controller thread. */
void ctl_due_pass(sl_ctl_t *c);

#endif
