/* poll.h — the Slurm poll: the controller's reads of slurmctld's job list
 * (poll.c) and node list (nodes.c), and what they apply to the pods.
 *
 * Threads and locks: the ctl_poll_t (c->poll) is the controller thread's
 * alone, with no lock: its fields (the lists' update times, the next
 * polls' times, whether a job pends, whether slurmctld answered, whether
 * the first full job list was read, MaxArraySize) are read and written
 * only by the controller thread, including through the accessors below
 * (gang.c and the Job controller call them from the kinds' passes; a
 * submission worker that finds slurmctld down says so in its ctl_sub_t,
 * applied by ctl_submit_collect on the controller thread).
 *
 * The node snapshot (c->nodes, nodes.c) is the exception: ctl_node_addr
 * reads it on any thread (a shim push's view of its job). It has its own
 * mutex, a leaf: held only to swap the snapshot or to copy one address,
 * never while taking another lock. (It was under c->lock before: no path
 * needed both at once, so moving it changes no order between locks.) */
#ifndef SL_CTL_POLL_H
#define SL_CTL_POLL_H

#include "ctl/internal.h"

typedef struct ctl_poll ctl_poll_t;
typedef struct ctl_nodes ctl_nodes_t;

ctl_poll_t *ctl_poll_create(void);
void ctl_poll_destroy(ctl_poll_t *p);
ctl_nodes_t *ctl_nodes_create(void);
void ctl_nodes_destroy(ctl_nodes_t *n);

/* the last RPC to slurmctld succeeded (1 until one fails); set: an RPC's
 * outcome (0: submissions wait until a poll gets an answer) */
int ctl_slurm_ok(const sl_ctl_t *c);
void ctl_slurm_set(sl_ctl_t *c, int ok);
/* the first full job list was read (adoption before any submission) */
int ctl_poll_initial_done(const sl_ctl_t *c);
/* the next job poll reads the whole list, not only what changed */
void ctl_poll_reread_jobs(sl_ctl_t *c);
/* slurm.conf's MaxArraySize, read once (0 while it cannot be read) */
unsigned ctl_poll_max_array_size(sl_ctl_t *c);

/* One job poll: every job changed since the last, followed by its pod. */
void ctl_poll_jobs(sl_ctl_t *c);
/* The first full job list was read: the polls run on their periods. */
void ctl_poll_started(sl_ctl_t *c);
/* The node poll (and the image use sweep) and the job poll, each when its
 * time has come; ctl_poll_next_ms: when the next job poll is due. */
void ctl_poll_tick(sl_ctl_t *c);
long long ctl_poll_next_ms(const sl_ctl_t *c);

/* p's job read again: a status someone else wrote while the job may run */
void ctl_poll_recheck(sl_ctl_t *c, ctl_pod_t *p);
/* the shim reported pod-finished a grace period ago and the job runs on:
 * cancelled (only the pod's own) */
void ctl_poll_end_finished(sl_ctl_t *c, ctl_pod_t *p);
/* A Job's pod deleted before its task's job id was recorded: 1, p freed;
 * 0, p has its job now; -1, Slurm did not answer */
int ctl_poll_delete_unrecorded(sl_ctl_t *c, ctl_pod_t *p);

#endif
