/* subpool.h — the controller's submission workers: a queue of pods to
 * submit, a few threads that each take one, run it (translate, pod folder,
 * sbatch RPC, the job id stored: submit.c) and hand it back finished, and
 * the list of finished ones the controller thread collects.
 *
 * A submission (ctl_sub_t) carries its own copy of what it needs of its
 * pod: a worker never touches a ctl_pod_t (internal.h, "Threads and
 * locks"). The pool's lock guards only its two lists; it is never held
 * with c->lock, and never while a submission runs. */
#ifndef SL_CTL_SUBPOOL_H
#define SL_CTL_SUBPOOL_H

#include <jansson.h>
#include <stdint.h>

#include "pod/pod.h"

struct sl_ctl;
struct ctl_pull;

typedef struct ctl_sub {
    char *uid, *ns, *name;      /* copies */
    json_t *pod;                /* the stored pod (a reference, never modified) */
    sl_pod_t *model;            /* parsed from pod (owned) */
    struct ctl_pull *pull;      /* pulled images (owned reference; NULL: none) */
    const json_t *gang_members; /* a gang member's gang (borrowed; NULL: none) */
    long long seen_ms;          /* when the controller learned of the pod */
    int tries;                  /* in: earlier failed tries; out: after this one */
    /* out, read by the controller thread once the submission is back */
    long long next_try_ms; /* a retryable failure's back-off (0: none) */
    uint32_t job_id;       /* the job Slurm gave it (0: none) */
    int recorded;          /* job_id written onto the pod (or tried) */
    int stored;            /* ... and that write committed */
    int64_t submitted_rv;  /* the pod's version that says "submitted" after it (0: none) */
    struct ctl_pod_draft *draft; /* that write, drafted by the worker (NULL: none) */
    struct sl_ctl *ctl;    /* the controller it is for */
    int permanent;         /* failed for good (the pod is marked Failed) */
    int slurm_down;        /* slurmctld did not answer, or refused for now (EAGAIN) */
    int deferred;          /* not tried: another worker had found slurmctld so */
    struct ctl_sub *next;
} ctl_sub_t;

typedef struct ctl_subpool ctl_subpool_t;
typedef void (*ctl_sub_run_fn)(struct sl_ctl *c, ctl_sub_t *s);

/* `workers` threads (1..64; threads named "sl-submit") that run `run` on
 * each submission pushed; a finished one wakes `kick` (may be NULL) when
 * the finished list was empty. NULL when no thread could start. */
ctl_subpool_t *ctl_subpool_create(struct sl_ctl *c, int workers, ctl_sub_run_fn run,
                                  void (*kick)(void *), void *kick_arg);
void ctl_subpool_push(ctl_subpool_t *p, ctl_sub_t *s);
/* the finished submissions, oldest first, as a list (NULL: none) */
ctl_sub_t *ctl_subpool_take(ctl_subpool_t *p);
/* The pool resized to `workers` (1..64), the count running returned: new
 * threads start at once; when shrinking, the extra ones each end after the
 * submission they are running and are joined here (so this may wait for
 * one submission). Queued submissions stay queued. One caller at a time,
 * the thread that created and destroys the pool. */
int ctl_subpool_resize(ctl_subpool_t *p, int workers);
/* the worker threads running */
int ctl_subpool_workers(ctl_subpool_t *p);
/* submissions queued or running */
size_t ctl_subpool_busy(ctl_subpool_t *p);
/* Stops the workers once their current submission is done (the queued
 * ones are not run) and frees every submission left with free_sub. */
void ctl_subpool_destroy(ctl_subpool_t *p, void (*free_sub)(ctl_sub_t *s));

#endif
