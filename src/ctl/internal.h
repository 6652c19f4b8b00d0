/* internal.h — shared by the controller's files only. */
#ifndef SL_CTL_INTERNAL_H
#define SL_CTL_INTERNAL_H

#include <jansson.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "ctl/ctl.h"
#include "ctl/podtable.h"
#include "ctl/shimseq.h"
#include "pod/pod.h"
#include "slurmif/slurmif.h"
#include "store/store.h"
#include "translate/translate.h"

/* Threads and locks
 *
 * The controller is one context (struct sl_ctl) owning sub-contexts, each
 * a module with its own header saying which thread owns it and which lock
 * guards what:
 *   c->table       the pods table and the due list (podtable.h): c->lock
 *   c->poll        the Slurm poll (poll.h): the controller thread's, no lock
 *   c->nodes       the node snapshot (poll.h, nodes.c): its own leaf mutex
 *   c->push        the shim pushes' stripes (push.h): before c->lock
 *   c->submission  the submission workers (submission.h, submit.c): the
 *                  subpool's lock, an atomic paused flag
 *   c->pulls       the image pulls (submission.h, pull.c): the pullpool's
 *                  lock, an atomic running count
 *   c->storage     the volume controller's pass (storage.h): controller
 *   c->workloads   the kinds' log places, the collector's flag, the
 *                  creation back-off (workloads.h): controller
 *   c->remover, c->killer  their own threads and queues (remover.h, killer.h)
 *   c->batch, c->own       the controller thread's (batch.c, own.c)
 *
 * Kinds of thread that touch the controller: its own thread (ctl_main and
 * everything it calls: pod changes, Slurm polls, deletions, the kinds'
 * passes, handing pods to the submission and pull workers and applying
 * what they did); the API's request threads, which call
 * sl_ctl_shim_event() for each shim push (push.c) and read the node
 * snapshot (ctl_node_addr); the submission workers (submit.c, subpool.h),
 * which never touch a ctl_pod_t nor the pods table: each works on its own
 * ctl_sub_t, a copy made by the controller thread, uses only c's read-only
 * fields, the store and the submission's paused flag, and hands the
 * ctl_sub_t back through the pool's lock (never held with c->lock); the
 * pull workers (pull.c), which work on their ctl_pull_t only and end by
 * giving back their slot of the pullpool; the remover's and the killer's
 * threads, which get copies (paths, ids) through their queues. One mutex,
 * c->lock, guards the pods table: what the controller thread and the
 * API's threads share.
 *
 * The pods table, ctl_pod_t and which thread owns each of its fields:
 * podtable.h.
 *
 * Lock order: a pod's push stripe, then c->lock; the leaf locks (the node
 * snapshot's, the pullpool's, the subpool's, the remover's and killer's
 * queues) are taken with nothing else taken while they are held.
 *
 * Fields of struct sl_ctl itself: store, o, uid, gid, user_home, shim_key
 * and the sub-context pointers are set before the thread starts and only
 * read after (the sub-contexts are freed after it and the workers are
 * joined); policy is atomic (the daemon's, swapped by sl_ctl_set_policy on
 * SIGHUP, read once per submission; a replaced one outlives the
 * controller); stop is atomic (set by sl_ctl_destroy); create_accounts is
 * atomic (SIGHUP); lock is the pods table's; the rest (pods_rv, listings,
 * started_ns) is the controller thread's alone. */

#define CTL_SHIM_STRIPES 64

/* batch.c: the job poll's writes of pending jobs' views, drafted, in store
 * transactions of up to CTL_BATCH_MAX pods (the controller thread's) */
#define CTL_BATCH_MAX 64
typedef struct ctl_batch_item ctl_batch_item_t;
typedef struct ctl_batch {
    int wanted; /* the poll groups the views it applies now */
    size_t n;
    ctl_batch_item_t *items[CTL_BATCH_MAX]; /* the views drafted, to be written */
} ctl_batch_t;

/* own.c: revisions of the controller's own writes whose changes it reads
 * back unparsed (controller thread), in revision order: rv[head..n) */
#define CTL_OWN_MAX 65536
typedef struct ctl_own {
    int64_t *rv;
    size_t head, n, cap;
    uint64_t noted; /* notes ever kept (ctl_own_mark) */
} ctl_own_t;

struct sl_ctl {
    sl_store_t *store;
    sl_ctl_opts_t o; /* strings owned (copied) */
    uid_t uid;       /* the default job user (run_as) */
    gid_t gid;
    char *user_home;
    _Atomic(struct sl_authz_policy *) policy; /* borrowed; NULL: every pod runs as run_as */
    struct sl_auth_shim_key *shim_key;        /* per-pod shim tokens (auth/shimtoken.h) */

    pthread_t thread;
    int running;
    atomic_int stop;            /* set by sl_ctl_destroy */
    atomic_int create_accounts; /* slurm.create_accounts (SIGHUP: sl_ctl_set_create_accounts) */
    struct ctl_acct *acct;      /* the namespaces' account thread (account.c), or NULL */

    pthread_mutex_t lock; /* see "Threads and locks" above */
    /* the shim's pushes (push.h): a pod's events are applied under its
     * stripe (by uid), taken before c->lock, never while holding it */
    struct ctl_push *push;
    struct ctl_podtable *table; /* the pods table and the due list (podtable.c): c->lock */

    int64_t pods_rv;         /* last pod change seen */
    unsigned listings;       /* re-reads of every stored pod (each_stored_pod) */
    struct ctl_poll *poll;   /* the Slurm poll's state (poll.h): controller thread */
    struct ctl_nodes *nodes; /* the last node snapshot (poll.h, nodes.c): its own leaf lock */
    int64_t started_ns;      /* sl_ctl_create's time (replay_events' Events) */
    struct ctl_workloads
        *workloads;              /* the workload kinds' state (workloads.h): controller thread */
    struct ctl_storage *storage; /* the volume controller's pass (storage.h): controller thread */
    struct ctl_pulls *pulls;     /* image pulls (submission.h, pull.c) */
    struct ctl_submission *submission; /* submission workers (submission.h, submit.c) */
    struct ctl_remover *remover; /* deleted pods' folders (remover.h); NULL: removed in place */
    struct ctl_killer *killer;   /* removed pods' jobs (killer.h); NULL: cancelled in place */
    ctl_batch_t batch;           /* the poll's group of view writes (batch.c) */
    ctl_own_t own;               /* own writes read back unparsed (own.c) */
};

/* The delay until the next job poll after one that took took_ms: poll_ms,
 * or ten times took_ms when that is longer, at most CTL_POLL_GAP_MAX_MS
 * (never below poll_ms). A poll reads every job slurmctld holds, of every
 * user, whenever any of them changed: on a large busy cluster it is spaced
 * so that it takes at most a tenth of the controller thread. The shim's
 * pushes do not wait for it. */
#define CTL_POLL_GAP_MAX_MS 5000
long long ctl_poll_gap(int poll_ms, long long took_ms);

/* ctl.c: a pod being deleted, one step (its job signalled, cancelled at
 * the grace period's end, the pod removed once the job is over): 1 when p
 * was freed. ctl_finish_delete: the job is over (or never was p's): the
 * pod leaves the store and the table, p freed. Controller thread. */
int ctl_handle_delete(sl_ctl_t *c, ctl_pod_t *p, json_t *pod);
void ctl_finish_delete(sl_ctl_t *c, ctl_pod_t *p);
/* p's pod, at version rv, says its job job_id was submitted: what a view of
 * that job pending with reason None applies (apply.c), so the poll's first
 * view of it does not read the pod (controller thread) */
void ctl_view_submitted(ctl_pod_t *p, uint32_t job_id, int64_t rv);
/* the view of key (NULL: one without a key) is p's pod's at revision rv
 * (0: not written; nothing is remembered) */
void ctl_view_remember(ctl_pod_t *p, const char *key, int64_t rv);

/* batch.c. want: the views applied from now on are grouped (the poll, a
 * PENDING job); end: the group written and committed, and views are
 * written one by one again (before any other job, and before waiting for
 * Slurm); add: p's view v (its key: NULL for none), drafted on the pod as
 * read now, joins the group (written when the group is full or ends), 1;
 * 0 when not wanted or the pod is not read (the caller writes it alone);
 * forget: p is freed (its view is not written). */
void ctl_batch_want(sl_ctl_t *c);
void ctl_batch_end(sl_ctl_t *c);
struct ctl_job_view;
int ctl_batch_add(sl_ctl_t *c, ctl_pod_t *p, const struct ctl_job_view *v, const char *key);
void ctl_batch_forget(sl_ctl_t *c, ctl_pod_t *p);

/* own.c. note: the controller wrote revision rv of a pod, a change that
 * tells it nothing new (ctl_pod_mutate_own); mark and undo: the notes
 * since mark taken back (their store transaction did not commit); skip: an
 * sl_store_skip_fn (arg: the sl_ctl_t), 1 for a noted revision. */
void ctl_own_note(sl_ctl_t *c, int64_t rv);
uint64_t ctl_own_mark(sl_ctl_t *c);
void ctl_own_undo(sl_ctl_t *c, uint64_t mark);
int ctl_own_skip(void *arg, int64_t rv);
void ctl_own_free(sl_ctl_t *c);

/* podstore.c: the pods of ns whose stored text names uid (an owner's
 * uid: a prefilter, read without parsing the others; the caller checks the
 * ownerReference), parsed, in name order (new ref; an empty array on a
 * store error). A namespace of 10,000 other pods is not parsed or held. */
json_t *ctl_pods_naming(sl_ctl_t *c, const char *ns, const char *uid);

/* podstore.c: the controller's reads and writes of one pod, by ns/name
 * with its uid as a precondition (kube's preconditions.uid). A pod of that
 * name with another uid (deleted and created again) is not touched: -1 (or
 * NULL) with errno ENOENT, as when there is none. Any thread. */
int ctl_pod_mutate(sl_ctl_t *c, const char *ns, const char *name, const char *uid,
                   sl_store_mutate_fn fn, void *arg, json_t **out, sl_error_t *err);
/* ctl_pod_mutate, for a write whose change tells the controller nothing it
 * does not know (the job id it recorded, a pending job's view): when it
 * wrote a pod neither terminal nor being deleted, its revision is noted as
 * its own (ctl_own_note), read back unparsed. Controller thread. */
int ctl_pod_mutate_own(sl_ctl_t *c, const char *ns, const char *name, const char *uid,
                       sl_store_mutate_fn fn, void *arg, json_t **out, sl_error_t *err);
/* ctl_pod_mutate_own in two steps (sl_store_draft_of): fn and the dump
 * done now on pod, the stored version a thread has read (any thread: a
 * submission worker), outside the writer lock; the write, maybe inside a
 * batch, when the draft is written (controller thread; fn again there if
 * the pod changed since, so fn must set, not add). */
typedef struct ctl_pod_draft ctl_pod_draft_t;
ctl_pod_draft_t *ctl_pod_draft_own(json_t *pod, const char *uid, sl_store_mutate_fn fn, void *arg);
int ctl_pod_draft_write_own(sl_ctl_t *c, ctl_pod_draft_t *d, json_t **out, sl_error_t *err);
void ctl_pod_draft_free(ctl_pod_draft_t *d);
json_t *ctl_pod_get(sl_ctl_t *c, const char *ns, const char *name, const char *uid);
/* admit.c: new pods of a workload stored through the API's admission
 * (sl_ctl_opts_t.create_pods: identity, quota; all or none), a pod without
 * a name named from its generateName. 0, or -1 with err; *forbidden: the
 * admission refused them (a quota, the creator's identity: err says why in
 * kube's words, 'pods "NAME" is forbidden: ...'), rather than the store.
 * Controller thread. */
int ctl_pods_create(sl_ctl_t *c, json_t *pods, bool *forbidden, sl_error_t *err);
/* admit.c: the workload of that uid had a creation refused and waits
 * (back-off: 1 s, doubled per refusal, at most 30 s); a refusal; an
 * admission (the back-off ends). Controller thread. */
bool ctl_create_waits(sl_ctl_t *c, const char *uid);
void ctl_create_refused(sl_ctl_t *c, const char *uid);
void ctl_create_admitted(sl_ctl_t *c, const char *uid);
/* ctl.c: the pods root made, 0711 (its folders are reached by path, never
 * listed, by the jobs' users) */
int ctl_pods_root_make(const char *root, sl_error_t *err);
/* Removes the pod of that uid from the store; *rv (may be NULL) gets the
 * revision of its DELETED change. */
int ctl_pod_delete(sl_ctl_t *c, const char *ns, const char *name, const char *uid, int64_t *rv,
                   sl_error_t *err);

/* the uid a Slurm job of p carries in its comment: its Job's for a Job's
 * pod, else its own */
static inline const char *ctl_pod_slurm_uid(const ctl_pod_t *p)
{
    return p->owner_uid ? p->owner_uid : p->uid;
}

/* A pod created by the Job controller (its server-owned slurmlink.io/job-uid
 * and its index annotation; orphaned ones too): 1 with the Job's uid in
 * owner (37 bytes) and the array task (0 when not yet submitted) in
 * array_job and task; else 0. */
int ctl_job_pod_of(sl_ctl_t *c, json_t *pod, char owner[37], uint32_t *array_job, uint32_t *task);
/* ctl_pod_mutate's fn: the pod marked deleted now, no grace period (as the
 * garbage collector deletes a Job's pods); 0 when it already was. */
int ctl_pod_mark_deleted_fn(json_t *pod, void *arg);
/* jobgc.c: what the garbage collector does for Jobs, PyTorchJobs and
 * MPIJobs that left the store while their controllers did not see them go
 * (slurmlinkd down, or behind the change log): a reader that may have
 * missed a deletion marks it (ctl_workloads_gone_mark), and this runs the
 * collection once for all of them, after the pass's Job, PyTorchJob and
 * MPIJob passes.
 * Controller thread. */
void ctl_jobs_collect_gone(sl_ctl_t *c);
/* sweep.c: at start-up, after the first job poll: each pod folder whose
 * pod is neither in the table nor stored (a crash before its deletion was
 * handled) has its active job cancelled (the pod's own, or the Job's array
 * task or gang job its task link names) and is removed; so is the empty
 * folder of a namespace no longer stored. Controller thread. 0, or -1 when
 * slurmctld did not answer (every such folder kept: sweep again later). */
int ctl_sweep_folders(sl_ctl_t *c);
/* Task `task` of array `array_job`'s own record in jl (a load of the
 * array), its comment carrying owner_uid; NULL while it has none. */
const sl_slurm_job_t *ctl_task_record(const sl_slurm_jobs_t *jl, uint32_t array_job, uint32_t task,
                                      const char *owner_uid);
/* The job id Slurm gave task `task` of array `array_job` (whose comment
 * must carry owner_uid), 0 while it has none of its own. Any thread. */
uint32_t ctl_task_job_id(uint32_t array_job, uint32_t task, const char *owner_uid);
/* The Job pod that is task `task` of array `array_job` (c->lock held), or
 * NULL (podtable.c). */
ctl_pod_t *ctl_pod_by_task(sl_ctl_t *c, uint32_t array_job, uint32_t task);

/* gang.c: a replica set of pods in one Slurm job (gang.h); what the pod
 * controller needs of it: a replica pod's node offset (its annotation),
 * the rank-th host of a node list */
#define CTL_GANG_MAX 256
unsigned ctl_gang_rank(json_t *pod);
int ctl_gang_member(json_t *pod); /* a gang's replica pod (rank 0 included) */
void ctl_gang_node(const char *nodes, unsigned rank, char *out, size_t len);
/* follow.c: every registered workload kind's pass (src/kinds/kind.h): its
 * changes since the last (gone()), then reconcile() of each stored object.
 * Controller thread. ctl_kinds_low_rv: the oldest change a kind has not
 * read (0: none), which the change log must keep. */
size_t ctl_kinds_count(void);
void ctl_kinds_pass(sl_ctl_t *c);
int64_t ctl_kinds_low_rv(const sl_ctl_t *c);

/* storage.c: the volume controller (storage.h) */

/* events.c */
void ctl_event(sl_ctl_t *c, json_t *involved, const char *type, const char *reason, const char *fmt,
               ...) __attribute__((format(printf, 5, 6)));

/* nodes.c */
void ctl_nodes_poll(sl_ctl_t *c);
/* the node's address, copied under the lock ("" when unknown) */
void ctl_node_addr(sl_ctl_t *c, const char *node, char *out, size_t len);
/* slurmctld asked now (not the snapshot: a node's failure and its jobs'
 * NODE_FAIL come together): 1 when node is up and responding, 0 when it
 * is down or not responding, -1 when that cannot be told. Any thread. */
int ctl_node_up_now(const char *node);

/* submit.c: the controller thread hands a pod to a submission worker
 * (subpool.h), which works on its own copy of the pod (never a ctl_pod_t)
 * and stores the job id; ctl_submit_collect applies the finished ones to
 * the pods table. While a worker has it the pod is `submitting`: neither
 * submitted again nor its deletion completed. Controller thread. */
#define CTL_SUBMIT_WORKERS 8 /* without opts.submit_workers */
void ctl_submit_start(sl_ctl_t *c);
void ctl_submit_stop(sl_ctl_t *c); /* joins the workers */
void ctl_submit_collect(sl_ctl_t *c);
void ctl_submit(sl_ctl_t *c, ctl_pod_t *p, json_t *pod);
struct sl_translate_result;
/* A pod's translation and its folder written, without submitting (a Job's
 * pods are submitted together as one array, src/kinds/job/controller.c): 0 with *out and the
 * job's user and group, or -1 with the pod marked failed. */
int ctl_pod_prepare(sl_ctl_t *c, ctl_pod_t *p, json_t *pod, struct sl_translate_result **out,
                    uid_t *uid, gid_t *gid);
/* ... a gang member's: members is the gang (sl_translate_config_t's
 * gang_members: each member's names in the pod's hosts file) */
int ctl_pod_prepare_member(sl_ctl_t *c, ctl_pod_t *p, json_t *pod, const json_t *members,
                           struct sl_translate_result **out, uid_t *uid, gid_t *gid);
/* Pods without a job that are neither finished, given up nor being deleted:
 * those waiting for a submission (c->lock held). */
size_t ctl_submit_queue_length(sl_ctl_t *c);
/* path of the pod folder (caller frees) */
char *ctl_pod_dir(sl_ctl_t *c, const char *ns, const char *name, const char *uid);
/* the namespace's Service names file (src/kinds/service/names.c), root's
 * and 0644 in the namespace's folder (0711): its name carries an HMAC of
 * the namespace under the shim key, so only the pods of the namespace,
 * told it in shim.json, find it (caller frees) */
char *ctl_service_names_path(sl_ctl_t *c, const char *ns);

/* pull.c: 1 when the pod's registry images are in the store (or it has
 * none), 0 while a worker pulls them or a back-off runs (statuses and
 * events written); controller thread. */
int ctl_pull_ready(sl_ctl_t *c, ctl_pod_t *p, json_t *pod, const sl_pod_t *model);
int ctl_pull_done(const ctl_pull_t *w); /* any thread; NULL: 0 */
/* why a finished pull failed (valid while w lives), or NULL (none, running, ok) */
const char *ctl_pull_error(const ctl_pull_t *w);
void ctl_pull_release(ctl_pull_t *w); /* NULL is a no-op */
/* the pod is gone: its pull's tools are killed, then ctl_pull_release */
void ctl_pull_cancel(ctl_pull_t *w);
/* drop the image use records of pods that are terminal or gone (pull.c) */
void ctl_pull_sweep(sl_ctl_t *c);
/* containerStatuses[].imageID of the pulled images */
void ctl_pull_record_ids(sl_ctl_t *c, ctl_pod_t *p);
/* an empty pull (nothing fetched, ctl_pull_release ends it): what the
 * image lookup keeps of imported images' configs when a pod pulls none */
ctl_pull_t *ctl_pull_holder(void);
/* translate's hooks, arg the pod's ctl_pull_t (NULL: nothing pulled; an
 * imported image's config is read only with one, ctl_pull_holder) */
const char *ctl_pull_image_dir(void *arg, const char *image);
int ctl_pull_image_lookup(void *arg, const char *dir, sl_image_meta_t *meta);

/* owner.c: whether a Slurm job is the pod's own (its comment carries the uid) */
/* the pod uid of a job's comment (slurmlink:uid=UID) into uid: 1, or 0 if none */
int ctl_comment_uid(const char *comment, char *uid, size_t len);
/* the submission K.C of a Job's array in its comment (slurmlink:submission=K.C): 1, or 0 if none */
int ctl_comment_submission(const char *comment, long long *sub, unsigned *chunk);
int ctl_job_owned_by(const sl_slurm_job_t *j, const char *pod_uid);
/* The Unix uid the jobs of obj (a pod, a Job, a gang's owner) run as: its
 * creator's (slurmlink.io/user) mapped user under the policy, else the
 * default job user; false when the creator maps to none now. */
bool ctl_run_uid(sl_ctl_t *c, json_t *obj, uid_t *uid);
/* A job found by its comment rather than by a recorded id (submitted
 * before a crash, not recorded) may be adopted: its comment carries
 * owner_uid AND it runs as the workload's Unix user (known: user is the
 * one ctl_run_uid found), which a tenant cannot set for another user. */
bool ctl_job_adoptable(const sl_slurm_job_t *j, const char *owner_uid, bool known, uid_t user);
/* Cancel (sig SIGKILL) or signal the batch step of the pod's job, only when
 * it is the pod's own: 0, or -1 with errno EPERM (someone else's: logged,
 * left alone), ENOENT (Slurm does not know it) or Slurm's error. */
int ctl_job_kill(const char *ns, const char *name, const char *pod_uid, uint32_t job_id, int sig);
/* Cancel the job of a pod removed from the store when it is the pod's own
 * and not over yet (a job already over is left as it is: one RPC): 0, or
 * -1 as ctl_job_kill. */
int ctl_job_cancel_removed(const char *ns, const char *name, const char *pod_uid, uint32_t job_id);
/* A pod removed from the store: on the killer's threads (killer.h), job
 * (its job not over; 0: none) cancelled with ctl_job_cancel_removed, or
 * else task `task` of array `arr` (a Job's pod whose task still waits;
 * 0: none), as suid's (the uid its jobs carry); tried again while
 * slurmctld does not answer; then the pod's folder (of uid) removed. */
void ctl_removed_kill(sl_ctl_t *c, const char *ns, const char *name, const char *uid,
                      const char *suid, uint32_t job, uint32_t arr, uint32_t task);
/* Cancel task `task` of array `array_job` (a Job's pod whose task has no
 * job of its own yet: pending), only when the array carries owner_uid. */
int ctl_task_kill(const char *ns, const char *name, const char *owner_uid, uint32_t array_job,
                  uint32_t task);
/* the garbage collector's edits of Jobs and CronJobs: whether obj carries
 * finalizer f; as mutate callbacks, remove the finalizer arg, or the
 * ownerReference whose uid is arg (and the list when it empties) */
bool ctl_has_finalizer(json_t *obj, const char *f);
int ctl_drop_finalizer_fn(json_t *obj, void *arg);
int ctl_drop_owner_fn(json_t *obj, void *arg);
/* the uid of obj's controller ownerReference to a `kind` of `api_version`
 * (borrowed), or NULL */
const char *ctl_controller_owner(json_t *obj, const char *kind, const char *api_version);

/* claims.c: a pod's DRA claims (spec.resourceClaims) as GRES,
 * "gpu:h100:1,gpu:2" (NULL: none, or NULL with err and errno ENOENT when a
 * claim, template or class is missing: the pod waits); a claim made from a
 * template is named POD-ENTRY. ctl_claims_allocate: the claims' status from
 * the pod-started event's GPUs. */
char *ctl_claims_gres(sl_ctl_t *c, const json_t *pod, sl_error_t *err);
void ctl_claims_allocate(sl_ctl_t *c, const json_t *pod, const json_t *ev);
/* a finished pod's reservation of its claims dropped (the allocation with the
 * last one); the claims made from templates for the pod deleted with it */
void ctl_claims_release(sl_ctl_t *c, const json_t *pod);
void ctl_claims_delete_owned(sl_ctl_t *c, const char *ns, const char *uid);

/* ---- a namespace's Slurm account (account.c) ---- */
/* The Namespace condition a pod refused for its account sets (True) and a
 * later submission of the namespace clears (False). */
#define CTL_NS_ACCOUNT_COND "SlurmAccountMissing"
void ctl_account_ns_condition(sl_ctl_t *c, const char *ns, int missing, const char *message);
/* What the tenant reads: the account, the user, Slurm's words and the
 * administrator's fix (caller frees). account NULL: the user's default. */
char *ctl_account_missing_text(const char *account, const char *user, const char *slurm_text);
/* 1 when accounting holds no association of user with account (NULL: any
 * of the user's): a refusal for the account is then a missing account, not
 * a partition closed to it; 0 when it does or sacctmgr cannot tell. */
int ctl_account_absent(sl_ctl_t *c, const char *account, const char *user);
/* slurm.create_accounts: the account and user's association, by sacctmgr
 * (idempotent; never Slurm's root account). 0, or -1 with err. */
int ctl_account_make(sl_ctl_t *c, const char *ns, const char *account, const char *user,
                     sl_error_t *err);
/* slurm.create_accounts at a namespace's creation: a thread of its own
 * ("sl-acct", sacctmgr may be slow) makes the account and the association
 * of the Unix user of the namespace's creator (its slurmlink.io/user) for
 * each namespace whose condition does not say it was made yet; the
 * condition (False AccountCreated, or True AccountCreateFailed, retried
 * with back-off: 1 s doubling to 60 s) and an Event on the Namespace say
 * how it went. Each pass counts slurmlink_loop_passes_total{loop=
 * "namespace-accounts"}. Start: 0, or -1 (then only the pods' path makes
 * accounts). Stop: joins it; no-op when not started. */
int ctl_account_start(sl_ctl_t *c);
void ctl_account_stop(sl_ctl_t *c);

/* the Slurm poll's accessors (slurmctld answers, the first job list read,
 * a full list read again, MaxArraySize), for every file of the controller */
#include "ctl/poll.h"
#include "ctl/storage.h"
#include "ctl/submission.h"
#include "ctl/workloads.h"

#endif
