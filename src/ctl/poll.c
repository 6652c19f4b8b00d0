/* poll.c — the Slurm job poll: every job changed since the last read,
 * followed by its pod; jobs slurmctld has forgotten; the poll's own state
 * (poll.h). Controller thread. */
#include "ctl/poll.h"
#include "common/fault.h"
#include "common/log.h"
#include "common/proc.h"
#include "common/xalloc.h"
#include "ctl/apply.h"
#include "ctl/podstatus.h"
#include "ctl/push.h"
#include "kube/meta.h"
#include "metrics/metrics.h"

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

/* while a pod's job pends, the whole job list is read this often (refresh_pending) */
#define CTL_PENDING_REFRESH_MS 2000

/* the controller thread's alone (poll.h) */
struct ctl_poll {
    time_t jobs_since; /* the job list's last update time read (0: all) */
    long long next_job_poll, next_node_poll;
    int jobs_pending;             /* the last job list had a PENDING job of a pod */
    long long next_full_job_poll; /* then the whole list is read again at this time */
    int slurm_ok;                 /* last RPC to slurmctld succeeded */
    int initial_poll_done;        /* the first full job list was read (adoption first) */
    unsigned max_array_size;      /* slurm.conf MaxArraySize (0: not read yet) */
};

ctl_poll_t *ctl_poll_create(void)
{
    ctl_poll_t *p = sl_xcalloc(1, sizeof(*p));
    p->slurm_ok = 1;
    return p;
}

void ctl_poll_destroy(ctl_poll_t *p) { free(p); }

int ctl_slurm_ok(const sl_ctl_t *c) { return c->poll->slurm_ok; }

void ctl_slurm_set(sl_ctl_t *c, int ok) { c->poll->slurm_ok = ok; }

int ctl_poll_initial_done(const sl_ctl_t *c) { return c->poll->initial_poll_done; }

void ctl_poll_reread_jobs(sl_ctl_t *c) { c->poll->jobs_since = 0; }

unsigned ctl_poll_max_array_size(sl_ctl_t *c)
{
    if (!c->poll->max_array_size)
        c->poll->max_array_size = sl_slurm_max_array_size();
    return c->poll->max_array_size;
}

static int adopt_fn(json_t *pod, void *arg)
{
    return ctl_status_submitted(pod, *(uint32_t *)arg, sl_kube_now_ns());
}

/* a Job's array task found in Slurm: its job id recorded; a pod its shim
 * already finished (a short task, ended before this poll) stays finished */
static int task_adopt_fn(json_t *pod, void *arg)
{
    if (!ctl_pod_terminal(pod))
        return adopt_fn(pod, arg);
    char buf[16];
    snprintf(buf, sizeof(buf), "%u", *(uint32_t *)arg);
    const char *old = sl_kube_annotation(pod, SL_ANN_JOB_ID);
    if (old && !strcmp(old, buf))
        return 0;
    sl_kube_set_annotation(pod, SL_ANN_JOB_ID, buf);
    return 1;
}

/* Slurm's view of j applied to p's pod (the controller's thread). The view
 * last applied, to a pod no change of which has come since, is not applied
 * again: while any job pends every poll brings every job, and the pod
 * would be read from the store only to find nothing to write. */
static void apply_slurm(sl_ctl_t *c, ctl_pod_t *p, const sl_slurm_job_t *j)
{
    pthread_mutex_lock(&c->lock);
    int shim_done = p->shim_done;
    pthread_mutex_unlock(&c->lock);
    if (ctl_job_active(j->state))
        SL_FAULT("job-running"); /* the test build holds the controller: a poll read early */
    ctl_job_view_t v;
    char node[256], ip[256];
    ctl_view_of(c, j, shim_done, &v, node, ip, p->gang_rank, &p->node, p->gang);
    v.shim_done_now = &p->shim_done; /* p stays: this thread alone frees pods */
    v.ended_now = &p->slurm_ended;
    char key[1024];
    int keyed = ctl_view_key(&v, key, sizeof(key));
    if (keyed && p->view_key && p->seen_rv <= p->view_rv && !strcmp(p->view_key, key)) {
        sl_metrics_job_view(0);
        return;
    }
    sl_metrics_job_view(1);
    /* a pending job's view: drafted now, written with others (batch.c) */
    if (ctl_batch_add(c, p, &v, keyed ? key : NULL))
        return;
    int64_t rv = 0;
    ctl_apply_job(c, p, &v, &rv);
    ctl_view_remember(p, keyed ? key : NULL, rv);
}

/* What Slurm says of p's own job j, applied to the pod (p is freed when a
 * deleted pod's job is over). */
static void follow_job(sl_ctl_t *c, ctl_pod_t *p, const sl_slurm_job_t *j)
{
    if (!p->files_read && strcmp(j->state, "PENDING")) {
        SL_FAULT("job-started"); /* the test build holds the controller: a late first read */
        if (ctl_job_active(j->state))
            apply_slurm(c, p, j);    /* where it runs: Scheduled before the file's Started */
        ctl_push_replay_files(c, p); /* first: a pod-finished there is the shim's */
    } else if (!p->files_final && !ctl_job_active(j->state) && !p->terminal) {
        /* the shim has exited: what it wrote and no push brought comes first */
        p->files_final = 1;
        ctl_push_replay_files(c, p);
    }
    if (!ctl_job_active(j->state) && !p->job_over)
        SL_FAULT("job-ended"); /* the test build holds the controller: a late poll */
    apply_slurm(c, p, j);
    /* over once Slurm has finished it too: a COMPLETING job (its Epilog
     * running, its processes being killed) keeps a deleted pod, Terminating,
     * as a pod stays until the kubelet says its containers are gone */
    if (!ctl_job_active(j->state) && !j->completing) {
        p->job_over = 1;
        if (p->deleting)
            ctl_finish_delete(c, p);
    }
}

/* ---- jobs slurmctld has forgotten ---------------------------------------------
 *
 * A finished job stays in slurmctld MinJobAge seconds (300 in a `slurmlink
 * up` cluster); when the controller or slurmlinkd was away longer, the pod's
 * job is in no list any more. Its outcome then comes from what the shim
 * recorded in the pod folder, else from accounting (slurmdbd), else it is
 * unknown and the pod fails saying so (reason JobPurged). Either way the job
 * is over, so a deletion completes. */

static int cmp_id(const void *a, const void *b)
{
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return x < y ? -1 : x > y;
}

/* the list's job ids, sorted (has_job: a pod's job in it, in log time) */
static uint32_t *job_ids(const sl_slurm_jobs_t *jobs, size_t *n)
{
    *n = sl_slurm_jobs_count(jobs);
    uint32_t *ids = sl_xcalloc(*n ? *n : 1, sizeof(*ids));
    for (size_t i = 0; i < *n; i++)
        ids[i] = sl_slurm_jobs_at(jobs, i)->job_id;
    qsort(ids, *n, sizeof(*ids), cmp_id);
    return ids;
}

static int has_job(const uint32_t *ids, size_t n, uint32_t id)
{
    return bsearch(&id, ids, n, sizeof(*ids), cmp_id) != NULL;
}

static int purged_fn(json_t *pod, void *arg)
{
    return ctl_status_job_purged(pod, *(uint32_t *)arg, sl_kube_now_ns());
}

/* p's job is in no list and slurmctld says it does not know it */
static void resolve_purged(sl_ctl_t *c, ctl_pod_t *p)
{
    if (!p->files_read)
        ctl_push_replay_files(c, p);
    ctl_apply_t a = {0};
    json_t *pod = ctl_pod_get(c, p->ns, p->name, p->uid);
    int known = pod && ctl_pod_terminal(pod);
    if (pod)
        ctl_phase_copy(pod, a.old_phase);
    json_decref(pod);
    sl_slurm_acct_job_t acct;
    sl_error_t err = SL_ERROR_INIT;
    int r = known ? 0 : sl_slurm_job_accounting(p->job_id, &acct, &err);
    if (r < 0) {
        sl_warn("pod %s/%s: Slurm job %u is purged and accounting does not answer (%s); "
                "asking again",
                p->ns, p->name, p->job_id, err.text);
        return;
    }
    if (r == 1) {
        sl_info("pod %s/%s: Slurm job %u is purged; accounting says %s, exit code %d", p->ns,
                p->name, p->job_id, acct.job.state, acct.job.exit_code);
        pthread_mutex_lock(&c->lock);
        int shim_done = p->shim_done;
        pthread_mutex_unlock(&c->lock);
        ctl_job_view_t v;
        char node[256], ip[256];
        ctl_view_of(c, &acct.job, shim_done, &v, node, ip, p->gang_rank, &p->node, p->gang);
        ctl_apply_job(c, p, &v, NULL);
    } else if (!known) {
        sl_warn("pod %s/%s: Slurm job %u is purged and there is no accounting record: outcome "
                "unknown",
                p->ns, p->name, p->job_id);
        json_t *out = NULL;
        uint32_t id = p->job_id;
        if (ctl_pod_mutate(c, p->ns, p->name, p->uid, purged_fn, &id, &out, NULL) == 0) {
            ctl_phase_copy(out, a.new_phase);
            ctl_transition_events(c, &a, out, id);
            p->terminal = ctl_pod_terminal(out);
        }
        json_decref(out);
    }
    p->job_over = 1;
    if (p->deleting)
        ctl_finish_delete(c, p);
}

/* after a full job list: pods whose unfinished job is not in it */
static void check_purged(sl_ctl_t *c, const sl_slurm_jobs_t *jobs)
{
    char **uids = NULL;
    size_t n = 0, cap = 0, nids;
    uint32_t *ids = job_ids(jobs, &nids);
    pthread_mutex_lock(&c->lock);
    for (ctl_pod_t *p = ctl_pod_next(c, NULL); p; p = ctl_pod_next(c, p)) {
        if (!p->job_id || p->job_over || has_job(ids, nids, p->job_id))
            continue;
        if (n == cap) {
            cap = cap ? 2 * cap : 16;
            uids = sl_xrealloc(uids, cap * sizeof(*uids));
        }
        uids[n++] = sl_xstrdup(p->uid);
    }
    pthread_mutex_unlock(&c->lock);
    free(ids);
    for (size_t i = 0; i < n; i++) {
        pthread_mutex_lock(&c->lock);
        ctl_pod_t *p = ctl_pod_find(c, uids[i]);
        uint32_t id = p ? p->job_id : 0;
        pthread_mutex_unlock(&c->lock);
        sl_slurm_jobs_t *jl = NULL;
        /* a job submitted after the list was taken is not purged */
        if (id && sl_slurm_job_load(id, &jl, NULL) < 0 && errno == ENOENT)
            resolve_purged(c, p);
        sl_slurm_jobs_free(jl);
        free(uids[i]);
    }
    free(uids);
}

/* slurmctld gives a pending job its reason (None, then Resources, Priority
 * ...) in scheduling passes that leave the job list's update time alone, so
 * a load since that time answers SLURM_NO_CHANGE_IN_DATA and a pod's
 * PodScheduled message would keep the first reason. While a pod's job
 * pends, the whole list is read every CTL_PENDING_REFRESH_MS. */
static void refresh_pending(sl_ctl_t *c)
{
    long long now = sl_now_ms();
    if (c->poll->jobs_pending && now >= c->poll->next_full_job_poll) {
        c->poll->jobs_since = 0;
        c->poll->next_full_job_poll = now + CTL_PENDING_REFRESH_MS;
    }
}

/* the replica pods of a gang (gang.c) whose one Slurm job is j: each
 * follows it, on its own node of the job; 0 when j is no gang's */
static int follow_gang(sl_ctl_t *c, const sl_slurm_job_t *j, const char *owner)
{
    ctl_pod_t *mine[CTL_GANG_MAX];
    size_t n = 0;
    pthread_mutex_lock(&c->lock);
    /* by the job-id index: a poll meets many jobs that are no pod's (those of
     * pods deleted within MinJobAge), and a walk of every pod for each was
     * jobs x pods a poll */
    for (ctl_pod_t *p = ctl_pod_next_by_job(c, j->job_id, NULL); p && n < CTL_GANG_MAX;
         p = ctl_pod_next_by_job(c, j->job_id, p))
        if (p->owner_uid && !strcmp(p->owner_uid, owner) && !p->array_job_id)
            mine[n++] = p;
    pthread_mutex_unlock(&c->lock);
    for (size_t i = 0; i < n; i++) {
        mine[i]->seen_by_slurm = 1;
        c->poll->jobs_pending |= j->state && !strcmp(j->state, "PENDING");
        follow_job(c, mine[i], j); /* the controller thread's pods: they stay */
    }
    return n > 0;
}

/* Slurm's job j, found to be p's (its job id already set on p): recorded
 * on the pod when no one has, then followed (p is freed when a deleted
 * pod's job is over) */
static void take_job(sl_ctl_t *c, ctl_pod_t *p, const sl_slurm_job_t *j)
{
    if (!p->seen_by_slurm && p->submitting) {
        p->seen_by_slurm = 1; /* its worker stores the job id */
    } else if (!p->seen_by_slurm) {
        p->seen_by_slurm = 1;
        /* the job id its submission wrote is there: nothing to read */
        json_t *pod = p->job_recorded ? NULL : ctl_pod_get(c, p->ns, p->name, p->uid);
        if (pod && !ctl_pod_job_id(pod)) {
            /* submitted before a crash, never recorded (or a Job's task,
             * which has its own job once it starts): adopt, never resubmit */
            uint32_t id = j->job_id;
            ctl_pod_mutate(c, p->ns, p->name, p->uid, p->owner_uid ? task_adopt_fn : adopt_fn, &id,
                           NULL, NULL);
            sl_info("pod %s/%s: adopted Slurm job %u found by its uid", p->ns, p->name, id);
        }
        json_decref(pod);
    }
    follow_job(c, p, j);
}

/* A Job's pod being deleted before slurmlinkd has recorded its array
 * task's job id (the poll or the shim's push of the start brings it): the
 * task may still wait in its array, or run already. Waiting, it is
 * cancelled and the pod goes (it never runs). Started (or starting while it
 * was being cancelled), its job becomes the pod's, as the poll would make
 * it, and the deletion goes on as a running pod's: Terminating until Slurm
 * says the job is over. 1: p was freed; 0: p has its job now; -1: Slurm did
 * not answer (the next pass asks again). */
int ctl_poll_delete_unrecorded(sl_ctl_t *c, ctl_pod_t *p)
{
    const char *suid = ctl_pod_slurm_uid(p);
    for (int pass = 0; pass < 2; pass++) {
        sl_slurm_jobs_t *jl = NULL;
        if (sl_slurm_job_load(p->array_job_id, &jl, NULL) < 0 && errno != ENOENT)
            return -1;
        const sl_slurm_job_t *j = ctl_task_record(jl, p->array_job_id, p->array_task_id, suid);
        /* after the cancel, a record of its own that is not active is the
         * cancelled task's: it never ran */
        if (j && (pass == 0 || ctl_job_active(j->state) || j->completing)) {
            int over = !ctl_job_active(j->state) && !j->completing;
            pthread_mutex_lock(&c->lock);
            ctl_pod_set_job(c, p, j->job_id);
            pthread_mutex_unlock(&c->lock);
            take_job(c, p, j); /* frees p when over (p->deleting) */
            sl_slurm_jobs_free(jl);
            return over;
        }
        sl_slurm_jobs_free(jl);
        if (pass == 0)
            ctl_task_kill(p->ns, p->name, suid, p->array_job_id, p->array_task_id);
    }
    ctl_finish_delete(c, p);
    return 1;
}

long long ctl_poll_gap(int poll_ms, long long took_ms)
{
    long long gap = 10 * took_ms;
    if (gap > CTL_POLL_GAP_MAX_MS)
        gap = CTL_POLL_GAP_MAX_MS;
    return gap > poll_ms ? gap : poll_ms;
}

void ctl_poll_jobs(sl_ctl_t *c)
{
    sl_slurm_jobs_t *jobs = NULL;
    sl_error_t err = SL_ERROR_INIT;
    refresh_pending(c);
    int r = sl_slurm_jobs_load(&c->poll->jobs_since, &jobs, &err);
    if (r < 0) {
        if (c->poll->slurm_ok)
            sl_warn("Slurm is unreachable: %s", err.text);
        c->poll->slurm_ok = 0;
        return;
    }
    if (!c->poll->slurm_ok)
        sl_info("Slurm answers again");
    c->poll->slurm_ok = 1;
    ctl_submit_resume(c);
    if (r == 0)
        return;
    c->poll->jobs_pending = 0;
    for (size_t i = 0; i < sl_slurm_jobs_count(jobs); i++) {
        const sl_slurm_job_t *j = sl_slurm_jobs_at(jobs, i);
        char uid[128];
        if (!ctl_comment_uid(j->comment, uid, sizeof(uid)))
            continue;
        /* a pending job's view only writes its pod: grouped with the next
         * ones'; any other job's may wait for Slurm or free its pod */
        int pending = j->state && !strcmp(j->state, "PENDING");
        if (pending)
            ctl_batch_want(c);
        else
            ctl_batch_end(c);
        pthread_mutex_lock(&c->lock);
        /* a Job's array task is the pod the Job controller made it for */
        ctl_pod_t *p = j->array_job_id ? ctl_pod_by_task(c, j->array_job_id, j->array_task_id)
                                       : ctl_pod_find(c, uid);
        if (p && p->owner_uid && strcmp(p->owner_uid, uid))
            p = NULL; /* not that Job's array */
        if (p && p->job_id && p->job_id != j->job_id) {
            pthread_mutex_unlock(&c->lock);
            continue; /* an older job of the same pod: not ours to follow */
        }
        if (p && !p->job_id && !ctl_job_adoptable(j, uid, p->run_uid_known, p->run_uid)) {
            pthread_mutex_unlock(&c->lock);
            sl_warn("pod %s/%s: Slurm job %u carries its uid but runs as uid %u, not its "
                    "user's: left alone",
                    p->ns, p->name, j->job_id, (unsigned)j->user_id);
            continue;
        }
        if (p && !p->job_id)
            ctl_pod_set_job(c, p, j->job_id); /* adopted below */
        pthread_mutex_unlock(&c->lock);
        if (!p && !j->array_job_id && follow_gang(c, j, uid))
            continue; /* a gang's job: each replica pod follows it (gang.c) */
        if (!p) {
            /* no pod of ours: `slurmlink render` + sbatch, the bench's sbatch
             * path, another slurmlinkd on the same cluster. Not ours to touch
             * (a pod force-deleted through us has its job cancelled when the
             * deletion is seen). */
            continue;
        }
        c->poll->jobs_pending |= pending;
        take_job(c, p, j);
    }
    ctl_batch_end(c);
    check_purged(c, jobs);
    sl_slurm_jobs_free(jobs);
}

/* A status written by someone else (a terminal phase) while the job may
 * run: read the job now, rather than wait for Slurm to change it, and put
 * the pod right. */
void ctl_poll_recheck(sl_ctl_t *c, ctl_pod_t *p)
{
    p->recheck = 0;
    sl_slurm_jobs_t *jl = NULL;
    if (sl_slurm_job_load(p->job_id, &jl, NULL) == 0 && sl_slurm_jobs_count(jl) == 1 &&
        ctl_job_owned_by(sl_slurm_jobs_at(jl, 0), ctl_pod_slurm_uid(p)))
        follow_job(c, p, sl_slurm_jobs_at(jl, 0));
    sl_slurm_jobs_free(jl);
}

/* The shim reported pod-finished a grace period ago and the job still runs:
 * cancel it (only if it is the pod's own, as always). */
void ctl_poll_end_finished(sl_ctl_t *c, ctl_pod_t *p)
{
    pthread_mutex_lock(&c->lock);
    p->finish_due_ms = 0;
    pthread_mutex_unlock(&c->lock);
    if (!p->job_id || p->job_over)
        return;
    sl_slurm_jobs_t *jl = NULL;
    if (sl_slurm_job_load(p->job_id, &jl, NULL) == 0 && sl_slurm_jobs_count(jl) == 1) {
        const sl_slurm_job_t *j = sl_slurm_jobs_at(jl, 0);
        if (ctl_job_active(j->state) && ctl_job_owned_by(j, ctl_pod_slurm_uid(p))) {
            sl_info("pod %s/%s: finished %d s ago by its shim's report, Slurm job %u still %s: "
                    "cancelling it",
                    p->ns, p->name, CTL_FINISH_GRACE_MS / 1000, p->job_id, j->state);
            ctl_job_kill(p->ns, p->name, ctl_pod_slurm_uid(p), p->job_id, SIGKILL);
        }
    }
    sl_slurm_jobs_free(jl);
}

void ctl_poll_started(sl_ctl_t *c)
{
    c->poll->initial_poll_done = 1;
    c->poll->next_job_poll = sl_now_ms() + c->o.poll_ms;
}

void ctl_poll_tick(sl_ctl_t *c)
{
    long long now = sl_now_ms();
    if (now >= c->poll->next_node_poll) {
        ctl_nodes_poll(c);
        ctl_pull_sweep(c); /* image use records of pods no longer live */
        c->poll->next_node_poll = now + c->o.node_poll_ms;
    }
    if (now >= c->poll->next_job_poll) {
        long long t0 = sl_now_ms();
        ctl_poll_jobs(c);
        long long end = sl_now_ms(), gap = ctl_poll_gap(c->o.poll_ms, end - t0);
        c->poll->next_job_poll = end + gap;
        sl_metrics_job_poll_interval((double)gap / 1000.0);
    }
}

long long ctl_poll_next_ms(const sl_ctl_t *c) { return c->poll->next_job_poll; }
