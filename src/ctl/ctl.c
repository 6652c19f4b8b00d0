/* ctl.c — the reconcile loop: pod changes from the store, Slurm polls,
 * graceful deletion; and the shim push hook called from API threads. */
#include "auth/policy.h"
#include "auth/shimtoken.h"
#include "common/argv.h"
#include "common/fault.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/proc.h"
#include "common/safefs.h"
#include "common/xalloc.h"
#include "ctl/internal.h"
#include "ctl/killer.h"
#include "ctl/podstatus.h"
#include "ctl/pullpool.h"
#include "ctl/remover.h"
#include "ctl/shimseq.h"
#include "kube/meta.h"
#include "metrics/metrics.h"
#include "podfs/podfs.h"
#include "shimlib/spec.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pwd.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

/* ---- applying changes to a stored pod ------------------------------------ */

/* (applied through ctl_pod_mutate: a pod of the same name and another uid,
 * deleted and created again, is left alone) */
typedef struct apply {
    const ctl_job_view_t *job;
    json_t *event;
    char old_phase[16], new_phase[16];
    int was_scheduled, now_scheduled;
    int rerun;        /* the job runs again for the finished pod (ctl_job_reruns_finished) */
    json_t *snapshot; /* the pod after the change (new ref) */
} apply_t;

static void phase_copy(json_t *pod, char out[16])
{
    const char *p = json_string_value(json_object_get(json_object_get(pod, "status"), "phase"));
    snprintf(out, 16, "%s", p ? p : "");
}

static int apply_fn(json_t *pod, void *arg)
{
    apply_t *a = arg;
    phase_copy(pod, a->old_phase);
    a->was_scheduled = ctl_pod_scheduled(pod);
    a->rerun = a->job && ctl_job_active(a->job->state) && ctl_job_reruns_finished(pod, a->job);
    int r = a->job ? ctl_status_from_job(pod, a->job, sl_kube_now_ns())
                   : ctl_status_from_shim(pod, a->event, sl_kube_now_ns());
    phase_copy(pod, a->new_phase);
    a->now_scheduled = ctl_pod_scheduled(pod);
    return r;
}

/* events for transitions, as the kubelet and scheduler would emit them */
static void transition_events(sl_ctl_t *c, apply_t *a, json_t *pod, uint32_t job_id)
{
    if (!pod)
        return;
    if (!a->was_scheduled && a->now_scheduled) {
        const char *node =
            json_string_value(json_object_get(json_object_get(pod, "spec"), "nodeName"));
        ctl_event(c, pod, "Normal", "Scheduled", "Successfully assigned %s/%s to %s (Slurm job %u)",
                  sl_kube_namespace(pod), sl_kube_name(pod), node ? node : "?", job_id);
    }
    const char *ev = a->event ? json_string_value(json_object_get(a->event, "event")) : NULL;
    char *gpus = ev && !strcmp(ev, "pod-started") ? ctl_gpus_text(a->event) : NULL;
    if (gpus) {
        ctl_event(c, pod, "Normal", "GPUsBound", "Slurm bound %s to the pod", gpus);
        ctl_claims_allocate(c, pod, a->event); /* its DRA claims' status */
    }
    free(gpus);
    if (strcmp(a->old_phase, a->new_phase)) {
        if (a->job)
            sl_debug("pod %s/%s: %s -> %s by Slurm's view of job %u (%s, shim finished %d)",
                     sl_kube_namespace(pod), sl_kube_name(pod), a->old_phase, a->new_phase, job_id,
                     a->job->state, a->job->shim_finished);
        else
            sl_debug("pod %s/%s: %s -> %s by the shim's %s", sl_kube_namespace(pod),
                     sl_kube_name(pod), a->old_phase, a->new_phase,
                     json_string_value(json_object_get(a->event, "event")));
        if (!strcmp(a->new_phase, "Succeeded") || !strcmp(a->new_phase, "Failed"))
            ctl_claims_release(c, pod); /* its DRA claims' devices are free again */
        if (!strcmp(a->new_phase, "Succeeded"))
            ctl_event(c, pod, "Normal", "Completed", "Pod completed (Slurm job %u)", job_id);
        else if (!strcmp(a->new_phase, "Failed")) {
            const char *m =
                json_string_value(json_object_get(json_object_get(pod, "status"), "message"));
            ctl_event(c, pod, "Warning", "Failed", "%s", m ? m : "Pod failed");
        }
    }
}

/* What Slurm says of the job, applied to the stored pod ns/name of that
 * uid, with the transitions' events. Any thread (it touches no ctl_pod_t),
 * own only on the controller's (the write noted as its own, read back
 * unparsed: ctl_pod_mutate_own): whether the pod is terminal after it, or
 * -1 when it is not stored; *rerun
 * (if not NULL) says whether the job runs again for the finished pod. */
static int apply_view(sl_ctl_t *c, const char *ns, const char *name, const char *uid,
                      const ctl_job_view_t *v, int own, int *rerun, int64_t *rv)
{
    if (*v->state && !ctl_job_active(v->state)) {
        /* before the write: a view of the job running, read earlier and
         * applied later on another thread, must not reopen what this says */
        pthread_mutex_lock(&c->lock);
        ctl_pod_t *p = ctl_pod_find(c, uid);
        if (p && p->job_id == v->job_id && atomic_load(&p->slurm_ended) < v->restart_cnt + 1)
            atomic_store(&p->slurm_ended, v->restart_cnt + 1);
        pthread_mutex_unlock(&c->lock);
    }
    apply_t a = {.job = v};
    json_t *out = NULL;
    int r = -1;
    int w = own ? ctl_pod_mutate_own(c, ns, name, uid, apply_fn, &a, &out, NULL)
                : ctl_pod_mutate(c, ns, name, uid, apply_fn, &a, &out, NULL);
    if (w == 0) {
        transition_events(c, &a, out, v->job_id);
        r = ctl_pod_terminal(out);
    }
    if (rerun)
        *rerun = r >= 0 && a.rerun;
    if (rv)
        *rv = r >= 0 ? sl_kube_rv(out) : 0;
    json_decref(out);
    return r;
}

/* Slurm runs the job of a finished pod again (requeued: `scontrol requeue`
 * of a completed job, or slurmctld restarted without the completion in its
 * saved state). A terminal phase is final, and the pod's containers must not
 * run again unseen: the job is cancelled (only if it is the pod's own), once
 * per requeue, with a Warning Event. */
static void cancel_rerun(sl_ctl_t *c, ctl_pod_t *p, const ctl_job_view_t *v)
{
    if (p->rerun_cancelled == v->restart_cnt)
        return;
    p->rerun_cancelled = v->restart_cnt;
    ctl_batch_end(c); /* the store is not held while Slurm is asked */
    json_t *pod = ctl_pod_get(c, p->ns, p->name, p->uid);
    if (pod) {
        char phase[16];
        phase_copy(pod, phase);
        sl_info("pod %s/%s: finished (%s), its Slurm job %u was requeued (restart %u, %s): "
                "cancelling it",
                p->ns, p->name, phase, v->job_id, v->restart_cnt, v->state);
        if (ctl_job_kill(p->ns, p->name, ctl_pod_slurm_uid(p), v->job_id, SIGKILL) == 0)
            ctl_event(c, pod, "Warning", "JobRequeued",
                      "Slurm requeued job %u of the finished pod (%s); cancelled it: a finished "
                      "pod does not run again",
                      v->job_id, phase);
    }
    json_decref(pod);
}

/* the controller thread's: the view applied to p's pod (*rv, if not NULL:
 * the pod's resourceVersion after it; 0 when it is not stored) */
static void apply_job(sl_ctl_t *c, ctl_pod_t *p, const ctl_job_view_t *v, int64_t *rv)
{
    int rerun = 0;
    /* a pending job's view: the controller knows all its change says */
    int own = !strcmp(v->state, "PENDING");
    int t = apply_view(c, p->ns, p->name, p->uid, v, own, &rerun, rv);
    if (t >= 0)
        p->terminal = t;
    if (rerun)
        cancel_rerun(c, p, v);
}

#define CTL_EVENTS_MAX (16u * 1024 * 1024) /* events.jsonl: a few hundred bytes a transition */
#define CTL_FINISH_GRACE_MS 10000 /* pod-finished to the end of the job (the shim's cleanup) */
/* while a pod's job pends, the whole job list is read this often (refresh_pending) */
#define CTL_PENDING_REFRESH_MS 2000

/* The shim said the pod finished. Its user can say so too (the token is in
 * the pod folder), so the job must then end: a pod shown finished frees its
 * quota, and must not keep a Slurm job. Called with c->lock held (the
 * fields are shared with the API's threads). */
static void shim_finished(sl_ctl_t *c, ctl_pod_t *p)
{
    if (!p->shim_done)
        p->finish_due_ms = sl_now_ms() + CTL_FINISH_GRACE_MS;
    p->shim_done = 1;
    ctl_due_add(c, p); /* not ctl_due_note: its fields are the controller's (an API thread) */
}

/* A file of pod folder ns/name-uid, which its user owns: read beneath the
 * pods root, never through a link, a regular file of at most max bytes (so
 * neither a FIFO nor /dev/zero stops the controller). NULL when absent or
 * refused. Any thread. */
static char *read_pod_file(sl_ctl_t *c, const char *ns, const char *pname, const char *uid,
                           const char *name, size_t max)
{
    int root = open(c->o.pods_root, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (root < 0)
        return NULL;
    char *rel = sl_xasprintf("%s/%s-%s", ns, pname, uid);
    int dir = sl_safefs_opendir(root, rel);
    close(root);
    free(rel);
    if (dir < 0)
        return NULL;
    sl_error_t err = SL_ERROR_INIT;
    char *data = sl_safefs_read(dir, name, max, NULL, &err);
    close(dir);
    if (!data && errno != ENOENT)
        sl_warn("pod %s/%s: not replaying %s", ns, pname, err.text);
    return data;
}

/* ---- the shim's events: pushed or replayed, in order, each once -------------
 *
 * The shim appends every event to events.jsonl, then pushes it; a failed
 * push (slurmlinkd down or slow) is not retried. A pushed event that is not
 * the next of its run (shimseq.h) has the missed ones read from the file
 * first, so a pod-finished never lands on containers whose exits were
 * missed. p->shim_pos (under c->lock) is the last event applied; the check,
 * the replay and the apply run under the pod's stripe of c->shim_mu, so two
 * threads never apply one pod's events at once. Lock order: shim_mu, then
 * c->lock. */

static pthread_mutex_t *shim_mu(sl_ctl_t *c, const char *uid)
{
    unsigned h = 2166136261u;
    for (const unsigned char *s = (const unsigned char *)uid; *s; s++)
        h = (h ^ *s) * 16777619u;
    return &c->shim_mu[h % CTL_SHIM_STRIPES];
}

static ctl_shimseq_pos_t shim_pos(sl_ctl_t *c, const char *uid)
{
    ctl_shimseq_pos_t pos = {0, 0};
    pthread_mutex_lock(&c->lock);
    ctl_pod_t *p = ctl_pod_find(c, uid);
    if (p)
        pos = p->shim_pos;
    pthread_mutex_unlock(&c->lock);
    return pos;
}

static void set_shim_pos(sl_ctl_t *c, const char *uid, ctl_shimseq_pos_t pos)
{
    pthread_mutex_lock(&c->lock);
    ctl_pod_t *p = ctl_pod_find(c, uid);
    if (p)
        p->shim_pos = pos;
    pthread_mutex_unlock(&c->lock);
}

static void push_events(sl_ctl_t *c, json_t *event, json_t *out, const char *ns, const char *name);

/* one checked event applied to the stored pod, with the transitions'
 * Events (and the container's, when it was never applied before: fresh).
 * 0, or -1 with err when the pod is gone; *terminal (may be NULL) after. */
static int apply_shim_event(sl_ctl_t *c, const char *ns, const char *name, const char *uid,
                            uint32_t job, json_t *ev, int fresh, int *terminal, sl_error_t *err)
{
    const char *what = json_string_value(json_object_get(ev, "event"));
    if (what && !strcmp(what, "pod-finished")) {
        pthread_mutex_lock(&c->lock);
        ctl_pod_t *p = ctl_pod_find(c, uid);
        if (p)
            shim_finished(c, p); /* before the phase is stored: the controller reads both */
        pthread_mutex_unlock(&c->lock);
    }
    apply_t a = {.event = ev};
    json_t *out = NULL;
    int r = ctl_pod_mutate(c, ns, name, uid, apply_fn, &a, &out, err);
    if (r == 0) {
        if (fresh)
            push_events(c, ev, out, ns, name);
        transition_events(c, &a, out, job);
        if (terminal)
            *terminal = ctl_pod_terminal(out);
    }
    json_decref(out);
    return r;
}

/* Whether a line of events.jsonl is one this process never applied: fresh
 * (a gap in the pushes), or written since it started (a line past the
 * pod's position then was never applied, though its push may still come:
 * the poll read the file first). An older line, read by a restarted
 * slurmlinkd, may have been applied by the one before: no second Event. */
static int line_fresh(sl_ctl_t *c, json_t *ev, int fresh)
{
    int64_t at = 0;
    const char *t = json_string_value(json_object_get(ev, "time"));
    return fresh || (t && sl_kube_parse_rfc3339(t, &at) == 0 && at >= c->started_ns);
}

/* The events of the pod folder's events.jsonl after the pod's position, up
 * to upto (pid 0: to the end), applied; the position moved past them.
 * Caller holds the pod's shim_mu. Returns the number applied; *terminal as
 * apply_shim_event's (untouched when none). */
static int replay_events(sl_ctl_t *c, const char *ns, const char *name, const char *uid,
                         uint32_t job, ctl_shimseq_pos_t from, ctl_shimseq_pos_t upto, int fresh,
                         int *terminal)
{
    char *data = read_pod_file(c, ns, name, uid, "events.jsonl", CTL_EVENTS_MAX);
    if (!data)
        return 0;
    ctl_shimseq_pos_t last;
    json_t *evs = ctl_shimseq_select(data, from, upto, &last);
    free(data);
    int n = 0;
    size_t i;
    json_t *ev;
    json_array_foreach(evs, i, ev)
    {
        char why[128];
        if (ctl_shim_event_check(ev, why, sizeof(why)) < 0) {
            sl_warn("pod %s/%s: events.jsonl: %s: line skipped", ns, name, why);
            continue;
        }
        if (apply_shim_event(c, ns, name, uid, job, ev, line_fresh(c, ev, fresh), terminal, NULL) ==
            0)
            n++;
    }
    json_decref(evs);
    set_shim_pos(c, uid, last);
    return n;
}

/* what the shim said while no push reached us (slurmlinkd away, a push
 * lost): the rest of events.jsonl. Controller thread. */
static void replay_shim_files(sl_ctl_t *c, ctl_pod_t *p)
{
    p->files_read = 1;
    char *ns = sl_xstrdup(p->ns), *name = sl_xstrdup(p->name), *uid = sl_xstrdup(p->uid);
    uint32_t job = p->job_id;
    pthread_mutex_t *mu = shim_mu(c, uid);
    pthread_mutex_lock(mu);
    int terminal = -1;
    replay_events(c, ns, name, uid, job, shim_pos(c, uid), (ctl_shimseq_pos_t){0, 0}, 0, &terminal);
    pthread_mutex_unlock(mu);
    if (terminal >= 0)
        p->terminal = terminal;
    free(ns);
    free(name);
    free(uid);
}

/* ---- deletion --------------------------------------------------------------- */

/* The pod folder goes with the pod object, however it was deleted (its
 * logs are kept until then). Its user may have filled it: removed on fds,
 * never following a link, on the remover's thread (remover.h) so that a
 * huge tree does not hold the controller. */
static void remove_pod_folder(sl_ctl_t *c, const char *ns, const char *name, const char *uid)
{
    ctl_remover_push(c->remover, ctl_pod_dir(c, ns, name, uid));
}

/* The pod's job is over (or not its own, or never was): the pod leaves the
 * store, and its folder goes now, not when the DELETED change is read back
 * (a controller that fell behind the change log never reads it). That
 * change tells the controller nothing: read back unparsed (own.c). (Inside
 * the poll's batch a store transaction that fails to commit keeps the pod:
 * the folder of a pod being deleted whose job is over has then gone early,
 * and the pod is removed at its next change.) */
static void finish_delete(sl_ctl_t *c, ctl_pod_t *p)
{
    sl_error_t err = SL_ERROR_INIT;
    int64_t rv = 0;
    /* (a Job's pod whose array task still waited had it cancelled first:
     * delete_unrecorded_task) */
    int rc = ctl_pod_delete(c, p->ns, p->name, p->uid, &rv, &err);
    int gone = rc == 0 || errno == ENOENT; /* by us, or by someone else before */
    if (rc == 0)
        ctl_own_note(c, rv);
    else if (!gone)
        sl_warn("cannot remove pod %s/%s: %s", p->ns, p->name, err.text);
    SL_FAULT("pod-deleted"); /* the test build holds the controller: its DELETED change read late */
    if (gone)
        remove_pod_folder(c, p->ns, p->name, p->uid);
    pthread_mutex_lock(&c->lock);
    ctl_pod_remove(c, p->uid);
    pthread_mutex_unlock(&c->lock);
}

/* Signal (SIGTERM) or cancel (SIGKILL) p's job. Returns 1 when the job is
 * not p's own or is gone: nothing of the pod runs, so the deletion
 * completes now (p is freed). */
static int stop_job(sl_ctl_t *c, ctl_pod_t *p, int sig)
{
    if (ctl_job_kill(p->ns, p->name, ctl_pod_slurm_uid(p), p->job_id, sig) == 0)
        return 0;
    if (errno != EPERM && errno != ENOENT) {
        if (sig != SIGKILL)
            ctl_job_kill(p->ns, p->name, ctl_pod_slurm_uid(p), p->job_id, SIGKILL);
        return 0;
    }
    p->job_over = 1;
    finish_delete(c, p);
    return 1;
}

/* A delete's grace period shorter than the pod's: the shim is told
 * (DIR/delete-grace, read when the cancel's SIGTERM reaches it) and the job
 * is cancelled at once, so that it ends CANCELLED: the containers get
 * SIGTERM, the shim SIGKILLs them at the delete's grace period and exits,
 * and the job ends without waiting for slurm.conf's KillWait. 1 when p was
 * freed (its job is gone). */
static int cancel_shorter(sl_ctl_t *c, ctl_pod_t *p)
{
    char *dir = ctl_pod_dir(c, p->ns, p->name, p->uid);
    char g[16];
    snprintf(g, sizeof(g), "%d\n", p->grace_s > 0 ? p->grace_s : 0);
    sl_error_t err = SL_ERROR_INIT;
    if (sl_podfs_put(dir, SL_SHIM_DELETE_GRACE, g, strlen(g), &err) < 0)
        sl_warn("pod %s/%s: the delete's grace period: %s", p->ns, p->name, err.text);
    free(dir);
    p->signalled_ms = -1; /* cancelled; wait for Slurm to say it is over */
    return stop_job(c, p, SIGKILL);
}

/* the steps of a deleted pod's job: SIGTERM, then after the grace period
 * SIGKILL (1 when p was freed: its job is gone) */
static int signal_deleted(sl_ctl_t *c, ctl_pod_t *p, json_t *pod, long long now)
{
    if (!p->signalled_ms) {
        p->signalled_ms = now;
        p->signalled_grace_s = p->grace_s;
        if (p->terminal) {
            /* containers are done; the job is finishing on its own */
            return 0;
        }
        if (pod)
            ctl_event(c, pod, "Normal", "Killing", "Stopping pod (Slurm job %u), grace period %ds",
                      p->job_id, p->grace_s);
        int now_kill = p->grace_s <= 0 || !p->seen_by_slurm || !ctl_pod_scheduled(pod);
        if (!now_kill && p->grace_s < p->spec_grace_s)
            return cancel_shorter(c, p);
        return stop_job(c, p, now_kill ? SIGKILL : SIGTERM);
    }
    /* a later delete shortened the grace period the shim was given */
    if (p->signalled_ms > 0 && !p->terminal && p->grace_s < p->signalled_grace_s)
        return cancel_shorter(c, p);
    /* the shim had its grace period (plus slack to report): now Slurm kills */
    if (now - p->signalled_ms > (long long)p->grace_s * 1000 + 3000 && p->signalled_ms > 0) {
        p->signalled_ms = -1; /* cancelled; wait for Slurm to say it is over */
        return stop_job(c, p, SIGKILL);
    }
    return 0;
}

static int delete_unrecorded_task(sl_ctl_t *c, ctl_pod_t *p);

/* returns 1 if p was freed */
static int handle_delete(sl_ctl_t *c, ctl_pod_t *p, json_t *pod)
{
    long long now = sl_now_ms();
    if (p->submitting)
        return 0; /* a worker submits it: its job, if any, is known once it is back */
    json_t *read = NULL;
    if (!p->job_id && p->owner_uid && p->array_job_id) {
        int r = delete_unrecorded_task(c, p);
        if (r != 0)
            return r > 0; /* freed, or Slurm did not answer: the next pass asks again */
        /* a running pod now: its status (Scheduled) was just written */
        pod = read = ctl_pod_get(c, p->ns, p->name, p->uid);
    }
    if (!p->job_id || p->job_over) {
        finish_delete(c, p);
        return 1;
    }
    int r = signal_deleted(c, p, pod, now);
    json_decref(read);
    return r;
}

/* ---- pod changes ------------------------------------------------------------ */

static void due_note_locked(sl_ctl_t *c, ctl_pod_t *p)
{
    pthread_mutex_lock(&c->lock);
    ctl_due_note(c, p);
    pthread_mutex_unlock(&c->lock);
}

/* what a pod removed from the store leaves to the killer (killer.h) */
typedef struct {
    char *ns, *name, *suid;
    uint32_t job, arr, task; /* job: its job not over; arr: a Job's task that still waits */
} removed_kill_t;

static void removed_kill(void *arg)
{
    removed_kill_t *k = arg;
    if (k->job)
        ctl_job_cancel_removed(k->ns, k->name, k->suid, k->job);
    else if (k->arr) /* a Job's pod whose task still waits: it never runs */
        ctl_task_kill(k->ns, k->name, k->suid, k->arr, k->task);
}

static void removed_kill_free(void *arg)
{
    removed_kill_t *k = arg;
    free(k->ns);
    free(k->name);
    free(k->suid);
    free(k);
}

static void handle_pod(sl_ctl_t *c, const char *type, json_t *pod)
{
    const char *uid = sl_kube_uid(pod);
    const char *ns = sl_kube_namespace(pod);
    const char *name = sl_kube_name(pod);
    if (!uid || !ns || !name)
        return;
    pthread_mutex_lock(&c->lock);
    if (!strcmp(type, "DELETED")) {
        ctl_pod_t *p = ctl_pod_find(c, uid);
        uint32_t job = p ? p->job_id : ctl_pod_job_id(pod);
        int over = p ? p->job_over : 0;
        char owner[37];
        uint32_t arr = 0, task = 0;
        char *suid;
        if (p) {
            suid = sl_xstrdup(ctl_pod_slurm_uid(p));
            arr = p->owner_uid ? p->array_job_id : 0;
            task = p->array_task_id;
        } else { /* never read (deleted between start-up's list and its read): the object says */
            int job_pod = ctl_job_pod_of(c, pod, owner, &arr, &task);
            suid = sl_xstrdup(job_pod ? owner : uid);
        }
        if (p)
            ctl_pod_remove(c, uid);
        pthread_mutex_unlock(&c->lock);
        /* force-deleted (or removed by us after the job ended): its job
         * cancelled, then its folder removed, on the killer's threads */
        removed_kill_t *k = sl_xcalloc(1, sizeof(*k));
        k->ns = sl_xstrdup(ns);
        k->name = sl_xstrdup(name);
        k->suid = suid;
        k->job = job && !over ? job : 0;
        k->arr = job ? 0 : arr;
        k->task = task;
        ctl_killer_push(c->killer, removed_kill, k, removed_kill_free,
                        ctl_pod_dir(c, ns, name, uid));
        if (json_array_size(sl_kube_path(pod, "spec.resourceClaims")))
            ctl_claims_delete_owned(c, ns, uid); /* the claims made from templates for it */
        return;
    }
    ctl_pod_t *p = ctl_pod_add(c, uid, ns, name);
    if (!p->run_uid_known)
        p->run_uid_known = ctl_run_uid(c, pod, &p->run_uid);
    int64_t rv = sl_kube_rv(pod);
    if (rv > p->seen_rv)
        p->seen_rv = rv; /* a view applied before this version is applied again */
    char owner[37];
    uint32_t arr = 0, task = 0;
    int job_pod = ctl_job_pod_of(c, pod, owner, &arr, &task);
    if (job_pod && !p->owner_uid)
        p->owner_uid = sl_xstrdup(owner);
    if (job_pod && arr) {
        ctl_pod_set_task(c, p, arr, task);
    }
    if (job_pod) {
        p->gang_rank = ctl_gang_rank(pod);
        p->gang = ctl_gang_member(pod);
    }
    uint32_t job = ctl_pod_job_id(pod);
    if (job)
        ctl_pod_set_job(c, p, job);
    p->terminal = ctl_pod_terminal(pod);
    p->gave_up |= ctl_pod_gave_up(pod); /* final; a change older than our own failure says 0 */
    /* a terminal phase the shim never reported, while the job may run: a
     * status someone else wrote; the job is read once more (process_due) */
    if (p->job_id && !p->job_over && p->terminal && !p->shim_done)
        p->recheck = 1;
    json_t *meta = json_object_get(pod, "metadata");
    p->deleting = json_object_get(meta, "deletionTimestamp") != NULL;
    json_t *sg = json_object_get(json_object_get(pod, "spec"), "terminationGracePeriodSeconds");
    json_t *g = json_object_get(meta, "deletionGracePeriodSeconds");
    p->spec_grace_s = sg ? (int)json_integer_value(sg) : 30;
    p->grace_s = g ? (int)json_integer_value(g) : p->spec_grace_s;
    pthread_mutex_unlock(&c->lock);

    if (p->deleting) {
        if (!handle_delete(c, p, pod))
            due_note_locked(c, p);
        return;
    }
    /* a phase set before submission does not stop it: only our own giving up;
     * a Job's pods are submitted by the Job controller, as one array */
    if (!p->owner_uid && !p->job_id && !p->gave_up && sl_now_ms() >= p->next_try_ms)
        ctl_submit(c, p, pod);
    due_note_locked(c, p);
}

/* the stored pods' keys (namespace, name pairs) */
static int add_key(void *arg, const char *json, size_t len, const sl_store_item_t *it)
{
    (void)json;
    (void)len;
    sl_argv_add(arg, it->ns);
    sl_argv_add(arg, it->name);
    return 0;
}

/* The pods of the table that the last re-read of the stored pods did not
 * find: deleted while the controller was behind the change log, their
 * DELETED changes trimmed unread. Each is handled as that change would have
 * been (its job stopped, its folder removed); one deleted after the list
 * gets its change too, which finds nothing left to do. */
static void forget_unlisted(sl_ctl_t *c)
{
    json_t *gone = json_array();
    pthread_mutex_lock(&c->lock);
    for (int i = 0; i < CTL_HASH; i++)
        for (ctl_pod_t *p = c->pods[i]; p; p = p->next)
            if (p->listed != c->listings)
                json_array_append_new(gone, json_pack("{s{ssssss}}", "metadata", "namespace", p->ns,
                                                      "name", p->name, "uid", p->uid));
    pthread_mutex_unlock(&c->lock);
    size_t n = json_array_size(gone);
    if (n)
        sl_info("deleted while the pod controller was behind the change log: %zu pod%s (jobs "
                "stopped, folders removed)",
                n, n == 1 ? "" : "s");
    size_t i;
    json_t *pod;
    json_array_foreach(gone, i, pod) handle_pod(c, "DELETED", pod);
    json_decref(gone);
}

/* Every stored pod handled as `type`, read one at a time: the keys listed
 * at a revision (the changes are read from there on), then each pod as
 * the list had it. One deleted or written since is left to the changes
 * after the revision, which hold it, in order; one of the table that the
 * list lacks was deleted before it (forget_unlisted). Never all of them
 * parsed at once: at start-up, and when the controller fell behind the
 * change log. */
static void each_stored_pod(sl_ctl_t *c, const char *type)
{
    sl_argv_t keys = SL_ARGV_INIT;
    int64_t rv = 0;
    sl_store_list_each(c->store, "pods", NULL, add_key, &keys, &rv);
    SL_FAULT("pods-listed"); /* the test build's pod deleted between list and read */
    c->listings++;
    for (size_t i = 0; i + 1 < keys.n; i += 2) {
        json_t *pod = sl_store_get(c->store, "pods", keys.v[i], keys.v[i + 1]);
        if (pod && sl_kube_rv(pod) <= rv)
            handle_pod(c, type, pod);
        pthread_mutex_lock(&c->lock);
        ctl_pod_t *p = pod ? ctl_pod_find(c, sl_kube_uid(pod)) : NULL;
        if (p)
            p->listed = c->listings;
        pthread_mutex_unlock(&c->lock);
        json_decref(pod);
    }
    sl_argv_free(&keys);
    forget_unlisted(c);
    c->pods_rv = rv;
}

/* The change log keeps what the controller's readers (pods, Jobs,
 * PyTorchJobs, MPIJobs, CronJobs) have not read yet, within bounds
 * (sl_store_log_hold): a busy controller reads on instead of starting over
 * from a full list, and loses no deletion meanwhile. */
static void hold_log(sl_ctl_t *c)
{
    int64_t low = ctl_kinds_low_rv(c);
    if (c->pods_rv > 0 && (low == 0 || c->pods_rv < low))
        low = c->pods_rv;
    sl_store_log_hold(c->store, low);
}

/* The pods' changes since the last read, handled in order. The controller's
 * own writes that tell it nothing new (own.c) come without their objects:
 * passed by, unparsed. */
static void process_changes(sl_ctl_t *c)
{
    for (;;) {
        /* a complete read has every pod change up to here: the cursor moves
         * on even when none came, so that it never holds the log back */
        int64_t upto = sl_store_revision(c->store);
        sl_error_t err = SL_ERROR_INIT;
        json_t *ch =
            sl_store_changes_skip(c->store, c->pods_rv, "pods", NULL, 512, ctl_own_skip, c, &err);
        if (!ch) {
            if (errno == ERANGE) { /* fell behind the change log: every pod again */
                sl_info("the pod controller fell behind the change log (at revision %lld): "
                        "reading every stored pod again",
                        (long long)c->pods_rv);
                each_stored_pod(c, "MODIFIED");
                continue;
            }
            return;
        }
        size_t n = json_array_size(ch);
        size_t i, own = 0;
        json_t *e;
        json_array_foreach(ch, i, e)
        {
            json_t *obj = json_object_get(e, "object");
            if (obj)
                handle_pod(c, json_string_value(json_object_get(e, "type")), obj);
            else
                own++;
            c->pods_rv = json_integer_value(json_object_get(e, "rv"));
        }
        sl_metrics_controller_changes(n - own, own);
        json_decref(ch);
        if (n < 512 && c->pods_rv < upto)
            c->pods_rv = upto;
        hold_log(c);
        if (n < 512)
            return;
    }
}

static void recheck_job(sl_ctl_t *c, ctl_pod_t *p);
static void end_finished_job(sl_ctl_t *c, ctl_pod_t *p);

/* whether p waits for something of due_of's, now or later (c->lock held) */
static int waits(const ctl_pod_t *p)
{
    if (p->deleting)
        return p->signalled_ms > 0 || !p->signalled_ms;
    return p->finish_due_ms || p->recheck ||
           (!p->job_id && !p->gave_up &&
            (p->tries || p->pending_submit || p->pull_wait || p->pull));
}

void ctl_due_note(sl_ctl_t *c, ctl_pod_t *p)
{
    if (waits(p))
        ctl_due_add(c, p);
}

typedef enum { DUE_SUBMIT, DUE_DELETE, DUE_END_FINISHED, DUE_RECHECK } due_t;

/* What p is due for now, or -1 (c->lock held: finish_due_ms is shared).
 * *wake: when it becomes due by time alone (its back-off's or its finish
 * deadline's end); `now` when due now, or when something else can make it
 * due without a ctl_due_note (a pull on a worker, the Slurm controller
 * answering again, a deletion's steps), so that it is looked at on every
 * pass; LLONG_MAX when only a change can. */
static int due_of(const ctl_pod_t *p, long long now, long long *wake)
{
    *wake = now;
    if (p->deleting) /* signalled, or its deletion waited for its submission */
        return p->signalled_ms > 0 || (!p->signalled_ms && !p->submitting) ? DUE_DELETE : -1;
    if (p->finish_due_ms && now >= p->finish_due_ms)
        return DUE_END_FINISHED;
    if (p->recheck)
        return DUE_RECHECK;
    long long t = p->finish_due_ms ? p->finish_due_ms : LLONG_MAX;
    /* a Job's pod is submitted with its array (src/kinds/job/controller.c), its pull taken there */
    if (!p->job_id && !p->gave_up && !p->owner_uid) {
        if ((p->tries || p->pending_submit || p->pull_wait) && now >= p->next_try_ms)
            return DUE_SUBMIT;
        if (ctl_pull_done(p->pull))
            return DUE_SUBMIT;
        if (p->pending_submit || p->pull)
            return -1;
        if ((p->tries || p->pull_wait) && p->next_try_ms < t)
            t = p->next_try_ms;
    }
    *wake = t;
    return -1;
}

/* pods waiting for a (re)submission, a deletion deadline or a second look
 * at their job. The list is walked only when a pod was added or noted since
 * the last walk, or when the first back-off or deadline of the pods the
 * last walk left waiting has come: pods that only wait for time are not
 * looked at on every pass (a burst of store changes is a pass each). */
static void process_due(sl_ctl_t *c)
{
    long long now = sl_now_ms();
    ctl_pod_t *due[256];
    due_t what[256];
    size_t n = 0;
    pthread_mutex_lock(&c->lock);
    if (now >= c->next_queue_metric_ms) { /* a walk of the table: once per node poll period */
        sl_metrics_queue_length(ctl_submit_queue_length(c));
        c->next_queue_metric_ms = now + c->o.node_poll_ms;
    }
    if (!c->due_dirty && now < c->due_wake_ms) {
        pthread_mutex_unlock(&c->lock);
        return;
    }
    long long wake = LLONG_MAX;
    ctl_pod_t *last = c->due_tail, *p = c->due;
    for (ctl_pod_t *next; p && n < 256; p = next) {
        next = p == last ? NULL : p->due_next; /* each once, though moved to the tail */
        long long w;
        int d = due_of(p, now, &w);
        ctl_due_del(c, p);
        if (d >= 0) {
            due[n] = p;
            what[n++] = (due_t)d;
        }
        if (waits(p)) { /* still waiting: to the tail, so that none starves */
            ctl_due_add(c, p);
            if (w < wake)
                wake = w;
        }
    }
    /* the actions below change their pods: the next pass walks again, as it
     * does when this one stopped at 256 */
    c->due_dirty = n > 0 || p;
    c->due_wake_ms = wake;
    pthread_mutex_unlock(&c->lock);
    /* the pointers stay valid: only this thread frees a pod, and each
     * action frees at most its own */
    for (size_t i = 0; i < n; i++) {
        json_t *pod = ctl_pod_get(c, due[i]->ns, due[i]->name, due[i]->uid);
        if (!pod)
            continue;
        if (what[i] == DUE_DELETE)
            handle_delete(c, due[i], pod);
        else if (what[i] == DUE_END_FINISHED)
            end_finished_job(c, due[i]);
        else if (what[i] == DUE_RECHECK)
            recheck_job(c, due[i]);
        else
            ctl_submit(c, due[i], pod);
        json_decref(pod);
    }
}

/* ---- Slurm job poll ----------------------------------------------------------- */

/* node and ip are caller buffers of 256 bytes the view points into; rank:
 * a gang replica's node in the job's node list (gang.c), else 0 */
/* What Slurm says of job j, as the pod of gang rank `rank` sees it. A
 * replica's node is its place in the job's node list while the job runs;
 * the list shrinks as the job ends (a lost node, nodes done completing), so
 * the node first seen is kept in `*known` (the controller's p->node; NULL
 * from other threads, which see running jobs only). */
static void view_of(sl_ctl_t *c, const sl_slurm_job_t *j, int shim_done, ctl_job_view_t *v,
                    char *node, char *ip, unsigned rank, char **known, int gang)
{
    snprintf(node, 256, "%s", *j->batch_host ? j->batch_host : j->nodes);
    node[strcspn(node, ",[")] = '\0';
    if (rank) {
        node[0] = '\0';
        ctl_gang_node(j->nodes, rank, node, 256);
    }
    if (known && *known)
        snprintf(node, 256, "%s", *known);
    else if (!known && rank && (strcmp(j->state, "RUNNING") || j->completing))
        node[0] = '\0'; /* a list that may have shrunk: the pod's nodeName stays */
    else if (known && *node && !strcmp(j->state, "RUNNING") && !j->completing)
        *known = sl_xstrdup(node);
    ip[0] = '\0';
    if (*node)
        ctl_node_addr(c, node, ip, 256);
    *v = (ctl_job_view_t){.job_id = j->job_id,
                          .state = j->state,
                          .reason = j->reason,
                          .node = node,
                          .node_ip = ip,
                          .start_ns = j->start_time > 0 ? (int64_t)j->start_time * 1000000000LL : 0,
                          .end_ns = j->end_time > 0 ? (int64_t)j->end_time * 1000000000LL : 0,
                          .exit_code = j->exit_code,
                          .restart_cnt = j->restart_cnt,
                          .shim_finished = shim_done};
    if (!strcmp(j->state, "PENDING"))
        v->node = "";
    /* a gang's replica on a node that is up: another node of its job was lost
     * (a pod of its own was on the node that failed, even if it is back) */
    if (gang && !strcmp(j->state, "NODE_FAIL") && *node)
        v->node_up = ctl_node_up_now(node);
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

/* what a view says, as text: two views with the same key apply alike
 * (the pointers to the controller's flags excepted: they are p's own);
 * 0 when it does not fit */
static int view_key(const ctl_job_view_t *v, char *buf, size_t size)
{
    int n =
        snprintf(buf, size, "%u|%s|%s|%s|%s|%lld|%lld|%d|%u|%d|%d", v->job_id, v->state,
                 v->reason ? v->reason : "-", v->node, v->node_ip, (long long)v->start_ns,
                 (long long)v->end_ns, v->exit_code, v->restart_cnt, v->node_up, v->shim_finished);
    return n > 0 && (size_t)n < size;
}

void ctl_view_submitted(ctl_pod_t *p, uint32_t job_id, int64_t rv)
{
    ctl_job_view_t v = {
        .job_id = job_id, .state = "PENDING", .reason = "None", .node = "", .node_ip = ""};
    char key[1024];
    if (!view_key(&v, key, sizeof(key)))
        return;
    free(p->view_key);
    p->view_key = sl_xstrdup(key);
    p->view_rv = rv;
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
    view_of(c, j, shim_done, &v, node, ip, p->gang_rank, &p->node, p->gang);
    v.shim_done_now = &p->shim_done; /* p stays: this thread alone frees pods */
    v.ended_now = &p->slurm_ended;
    char key[1024];
    int keyed = view_key(&v, key, sizeof(key));
    if (keyed && p->view_key && p->seen_rv <= p->view_rv && !strcmp(p->view_key, key)) {
        sl_metrics_job_view(0);
        return;
    }
    sl_metrics_job_view(1);
    ctl_batch_enter(c, p); /* a pending job's view: grouped with others (batch.c) */
    int64_t rv = 0;
    apply_job(c, p, &v, &rv);
    free(p->view_key);
    p->view_key = keyed && rv > 0 ? sl_xstrdup(key) : NULL;
    p->view_rv = rv;
}

/* What Slurm says of p's own job j, applied to the pod (p is freed when a
 * deleted pod's job is over). */
static void follow_job(sl_ctl_t *c, ctl_pod_t *p, const sl_slurm_job_t *j)
{
    if (!p->files_read && strcmp(j->state, "PENDING")) {
        SL_FAULT("job-started"); /* the test build holds the controller: a late first read */
        if (ctl_job_active(j->state))
            apply_slurm(c, p, j); /* where it runs: Scheduled before the file's Started */
        replay_shim_files(c, p);  /* first: a pod-finished there is the shim's */
    } else if (!p->files_final && !ctl_job_active(j->state) && !p->terminal) {
        /* the shim has exited: what it wrote and no push brought comes first */
        p->files_final = 1;
        replay_shim_files(c, p);
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
            finish_delete(c, p);
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
        replay_shim_files(c, p);
    apply_t a = {0};
    json_t *pod = ctl_pod_get(c, p->ns, p->name, p->uid);
    int known = pod && ctl_pod_terminal(pod);
    if (pod)
        phase_copy(pod, a.old_phase);
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
        view_of(c, &acct.job, shim_done, &v, node, ip, p->gang_rank, &p->node, p->gang);
        apply_job(c, p, &v, NULL);
    } else if (!known) {
        sl_warn("pod %s/%s: Slurm job %u is purged and there is no accounting record: outcome "
                "unknown",
                p->ns, p->name, p->job_id);
        json_t *out = NULL;
        uint32_t id = p->job_id;
        if (ctl_pod_mutate(c, p->ns, p->name, p->uid, purged_fn, &id, &out, NULL) == 0) {
            phase_copy(out, a.new_phase);
            transition_events(c, &a, out, id);
            p->terminal = ctl_pod_terminal(out);
        }
        json_decref(out);
    }
    p->job_over = 1;
    if (p->deleting)
        finish_delete(c, p);
}

/* after a full job list: pods whose unfinished job is not in it */
static void check_purged(sl_ctl_t *c, const sl_slurm_jobs_t *jobs)
{
    char **uids = NULL;
    size_t n = 0, cap = 0, nids;
    uint32_t *ids = job_ids(jobs, &nids);
    pthread_mutex_lock(&c->lock);
    for (int i = 0; i < CTL_HASH; i++)
        for (ctl_pod_t *p = c->pods[i]; p; p = p->next) {
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
    if (c->jobs_pending && now >= c->next_full_job_poll) {
        c->jobs_since = 0;
        c->next_full_job_poll = now + CTL_PENDING_REFRESH_MS;
    }
}

/* the replica pods of a gang (gang.c) whose one Slurm job is j: each
 * follows it, on its own node of the job; 0 when j is no gang's */
static int follow_gang(sl_ctl_t *c, const sl_slurm_job_t *j, const char *owner)
{
    ctl_pod_t *mine[CTL_GANG_MAX];
    size_t n = 0;
    pthread_mutex_lock(&c->lock);
    for (int i = 0; i < CTL_HASH; i++)
        for (ctl_pod_t *p = c->pods[i]; p && n < CTL_GANG_MAX; p = p->next)
            if (p->owner_uid && !strcmp(p->owner_uid, owner) && p->job_id == j->job_id &&
                !p->array_job_id)
                mine[n++] = p;
    pthread_mutex_unlock(&c->lock);
    for (size_t i = 0; i < n; i++) {
        mine[i]->seen_by_slurm = 1;
        c->jobs_pending |= j->state && !strcmp(j->state, "PENDING");
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
static int delete_unrecorded_task(sl_ctl_t *c, ctl_pod_t *p)
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
    finish_delete(c, p);
    return 1;
}

long long ctl_poll_gap(int poll_ms, long long took_ms)
{
    long long gap = 10 * took_ms;
    if (gap > CTL_POLL_GAP_MAX_MS)
        gap = CTL_POLL_GAP_MAX_MS;
    return gap > poll_ms ? gap : poll_ms;
}

static void poll_jobs(sl_ctl_t *c)
{
    sl_slurm_jobs_t *jobs = NULL;
    sl_error_t err = SL_ERROR_INIT;
    refresh_pending(c);
    int r = sl_slurm_jobs_load(&c->jobs_since, &jobs, &err);
    if (r < 0) {
        if (c->slurm_ok)
            sl_warn("Slurm is unreachable: %s", err.text);
        c->slurm_ok = 0;
        return;
    }
    if (!c->slurm_ok)
        sl_info("Slurm answers again");
    c->slurm_ok = 1;
    atomic_store(&c->submit_paused, 0);
    if (r == 0)
        return;
    c->jobs_pending = 0;
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
        c->jobs_pending |= pending;
        take_job(c, p, j);
    }
    ctl_batch_end(c);
    check_purged(c, jobs);
    sl_slurm_jobs_free(jobs);
}

/* A status written by someone else (a terminal phase) while the job may
 * run: read the job now, rather than wait for Slurm to change it, and put
 * the pod right. */
static void recheck_job(sl_ctl_t *c, ctl_pod_t *p)
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
static void end_finished_job(sl_ctl_t *c, ctl_pod_t *p)
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

/* Whether p's job has not started in Slurm (or was never submitted): its
 * shim cannot have run, so a pod-finished for it is not the shim's. */
static int job_not_started(uint32_t job, const char *uid)
{
    if (!job)
        return 1;
    sl_slurm_jobs_t *jl = NULL;
    int pending = 0;
    if (sl_slurm_job_load(job, &jl, NULL) == 0 && sl_slurm_jobs_count(jl) == 1) {
        const sl_slurm_job_t *j = sl_slurm_jobs_at(jl, 0);
        pending = ctl_job_owned_by(j, uid) && !strcmp(j->state, "PENDING");
    }
    sl_slurm_jobs_free(jl);
    return pending;
}

/* ---- the thread ---------------------------------------------------------------- */

static void *ctl_main(void *arg)
{
    sl_ctl_t *c = arg;
    pthread_setname_np(pthread_self(), "sl-ctl"); /* its CPU told apart (top -H, the bench) */
    each_stored_pod(c, "ADDED");
    /* read every job once before submitting anything: a pod whose job was
     * submitted just before a crash is adopted, not submitted again */
    while (!atomic_load(&c->stop)) {
        poll_jobs(c);
        if (c->slurm_ok)
            break;
        process_changes(c); /* new pods say they wait for Slurm */
        sl_store_wait(c->store, sl_store_revision(c->store), 1000);
    }
    c->initial_poll_done = 1;
    ctl_sweep_folders(c); /* what a crash left of pods deleted before it (sweep.c) */
    c->next_job_poll = sl_now_ms() + c->o.poll_ms;
    while (!atomic_load(&c->stop)) {
        /* anything stored after this point wakes the wait below, including a
         * pod created while this iteration runs, and so does a worker's
         * finished submission or pull handed back meanwhile (a kick) */
        sl_store_mark_t seen = sl_store_mark(c->store);
        ctl_submit_collect(c); /* the workers' finished submissions */
        process_changes(c);
        long long now = sl_now_ms();
        if (now >= c->next_node_poll) {
            ctl_nodes_poll(c);
            ctl_pull_sweep(c); /* image use records of pods no longer live */
            c->next_node_poll = now + c->o.node_poll_ms;
        }
        if (now >= c->next_job_poll) {
            long long t0 = sl_now_ms();
            poll_jobs(c);
            long long end = sl_now_ms(), gap = ctl_poll_gap(c->o.poll_ms, end - t0);
            c->next_job_poll = end + gap;
            sl_metrics_job_poll_interval((double)gap / 1000.0);
        }
        process_due(c);
        ctl_storage_pass(c); /* claims and their volumes (storage.c) */
        ctl_kinds_pass(c);   /* every registered kind (src/kinds/, follow.c) */
        /* what their deletions that went unread left (jobgc.c) */
        ctl_jobs_collect_gone(c);
        hold_log(c);
        long long wait = c->next_job_poll - sl_now_ms();
        if (wait > 0)
            sl_store_wait_mark(c->store, seen, (int)wait);
    }
    sl_store_log_hold(c->store, 0);
    return NULL;
}

/* ---- shim pushes --------------------------------------------------------------- */

/* The functions below run on the API's threads: they hold no ctl_pod_t,
 * only copies of what they need (see internal.h). */

/* a container started before our poll saw the job run: read the job now,
 * so the pod says where it runs (and Scheduled comes before Started) */
static void started_before_poll(sl_ctl_t *c, const char *ns, const char *name, const char *uid,
                                const char *suid, uint32_t job, int shim_done, unsigned rank)
{
    json_t *cur = ctl_pod_get(c, ns, name, uid);
    int sched = cur && ctl_pod_scheduled(cur);
    json_decref(cur);
    sl_slurm_jobs_t *jl = NULL;
    if (!sched && sl_slurm_job_load(job, &jl, NULL) == 0 && sl_slurm_jobs_count(jl) == 1 &&
        ctl_job_owned_by(sl_slurm_jobs_at(jl, 0), suid)) {
        if (ctl_job_active(sl_slurm_jobs_at(jl, 0)->state))
            SL_FAULT("started-view"); /* the test build holds the push: a late answer */
        ctl_job_view_t v;
        char node[256], ip[256];
        view_of(c, sl_slurm_jobs_at(jl, 0), shim_done, &v, node, ip, rank, NULL, rank > 0);
        apply_view(c, ns, name, uid, &v, 0, NULL, NULL);
    }
    sl_slurm_jobs_free(jl);
}

/* whether Slurm ended the job itself (a state ctl_status_from_job maps to
 * a reason of its own: cancelled, preempted, its node lost, its limit) */
static int slurm_ended(const char *state)
{
    static const char *const ended[] = {"CANCELLED", "PREEMPTED",     "NODE_FAIL", "TIMEOUT",
                                        "DEADLINE",  "OUT_OF_MEMORY", "BOOT_FAIL"};
    for (size_t i = 0; state && i < sizeof(ended) / sizeof(ended[0]); i++)
        if (!strcmp(state, ended[i]))
            return 1;
    return 0;
}

/* A pod-finished push: -1 when p's job has not started (its shim cannot
 * have run: refused). When Slurm has already ended the job itself (an
 * admin's scancel, a preemption: slurmctld records the state before it
 * signals the job, and the shim finishes on that SIGTERM), its verdict is
 * applied first, so the pod is never Failed without it: the
 * DisruptionTarget condition comes with the phase, as kube sets it on a
 * pod before the pod terminates, and the Job controller's podFailurePolicy
 * sees both at once (a poll later than the push no longer decides). */
static int finish_verdict(sl_ctl_t *c, const char *ns, const char *name, const char *uid,
                          const char *suid, uint32_t job, unsigned rank, int gang)
{
    if (!job)
        return -1;
    sl_slurm_jobs_t *jl = NULL;
    int r = 0;
    if (sl_slurm_job_load(job, &jl, NULL) == 0 && sl_slurm_jobs_count(jl) == 1) {
        const sl_slurm_job_t *j = sl_slurm_jobs_at(jl, 0);
        int own = ctl_job_owned_by(j, suid);
        if (own && !strcmp(j->state, "PENDING"))
            r = -1;
        if (own && slurm_ended(j->state)) {
            ctl_job_view_t v;
            char node[256], ip[256];
            view_of(c, j, 1, &v, node, ip, rank, NULL, gang);
            apply_view(c, ns, name, uid, &v, 0, NULL, NULL);
        }
    }
    sl_slurm_jobs_free(jl);
    return r;
}

static const char *or_empty(const char *s) { return s ? s : ""; }

/* the Events of a stored push (out: the pod after it) */
static void push_events(sl_ctl_t *c, json_t *event, json_t *out, const char *ns, const char *name)
{
    const char *what = json_string_value(json_object_get(event, "event"));
    const char *ctr = json_string_value(json_object_get(event, "container"));
    if (!ctr)
        return;
    if (!strcmp(what, "started")) {
        ctl_event(c, out, "Normal", "Started", "Started container %s", ctr);
        return;
    }
    const char *msg = json_string_value(json_object_get(event, "message"));
    if (!strcmp(what, "probe")) { /* the kubelet's texts */
        if (msg &&
            !strcmp(or_empty(json_string_value(json_object_get(event, "result"))), "Failure"))
            ctl_event(c, out, "Warning", "Unhealthy", "%s probe failed: %s",
                      or_empty(json_string_value(json_object_get(event, "probe"))), or_empty(msg));
        return;
    }
    if (!strcmp(what, "killing")) {
        ctl_event(c, out, "Normal", "Killing", "%s", or_empty(msg));
        return;
    }
    if (strcmp(what, "exited"))
        return;
    ctl_status_latency_observe(event, sl_kube_now_ns());
    json_t *st = NULL;
    size_t i;
    json_t *cs;
    json_array_foreach(json_object_get(json_object_get(out, "status"), "containerStatuses"), i, cs)
    {
        const char *n = json_string_value(json_object_get(cs, "name"));
        if (n && !strcmp(n, ctr))
            st = cs;
    }
    if (st && json_object_get(json_object_get(st, "state"), "waiting"))
        ctl_event(c, out, "Warning", "BackOff",
                  "Back-off restarting failed container %s in pod %s_%s", ctr, name, ns);
}

/* A usage sample (kubectl top pod) changes nothing stored: checked, and
 * marked with the pod it is of (the controller's names, whatever the
 * shim wrote), for the API's table (api/podmetrics.c). */
static int usage_sample(sl_ctl_t *c, const char *uid, json_t *event, sl_error_t *err)
{
    char why[128];
    if (ctl_usage_check(event, why, sizeof(why)) < 0) {
        errno = EINVAL;
        return sl_errprintf(err, "%s", why);
    }
    pthread_mutex_lock(&c->lock);
    ctl_pod_t *p = ctl_pod_find(c, uid);
    json_t *ns = p ? json_string(p->ns) : NULL, *name = p ? json_string(p->name) : NULL;
    pthread_mutex_unlock(&c->lock);
    if (!ns) {
        errno = ENOENT;
        return sl_errprintf(err, "no pod with uid %s", uid);
    }
    json_object_set_new(event, "namespace", ns);
    json_object_set_new(event, "name", name);
    return 0;
}

int sl_ctl_shim_event(void *arg, const char *bearer, json_t *event, sl_error_t *err)
{
    sl_ctl_t *c = arg;
    const char *uid = json_string_value(json_object_get(event, "pod_uid"));
    if (!uid || !json_string_value(json_object_get(event, "event"))) {
        errno = EINVAL;
        return sl_errprintf(err, "event needs pod_uid and event");
    }
    if (!sl_auth_shim_token_ok(c->shim_key, uid, bearer)) {
        errno = EACCES;
        return sl_errprintf(err, "bad token for pod %s", uid);
    }
    char why[128];
    if (ctl_shim_event_check(event, why, sizeof(why)) < 0) {
        errno = EINVAL;
        return sl_errprintf(err, "%s", why);
    }
    if (!strcmp(json_string_value(json_object_get(event, "event")), "usage"))
        return usage_sample(c, uid, event, err);
    pthread_mutex_lock(&c->lock);
    ctl_pod_t *p = ctl_pod_find(c, uid);
    char *ns = p ? sl_xstrdup(p->ns) : NULL, *name = p ? sl_xstrdup(p->name) : NULL;
    char *suid = p ? sl_xstrdup(ctl_pod_slurm_uid(p)) : NULL;
    uint32_t job = p ? p->job_id : 0, arr = p ? p->array_job_id : 0;
    uint32_t task = p ? p->array_task_id : 0;
    unsigned rank = p ? p->gang_rank : 0;
    int gang = p ? p->gang : 0;
    pthread_mutex_unlock(&c->lock);
    if (!ns) {
        errno = ENOENT;
        return sl_errprintf(err, "no pod with uid %s", uid);
    }
    if (!job && arr) /* a Job's task that runs before our poll saw it */
        job = ctl_task_job_id(arr, task, suid);
    const char *what0 = json_string_value(json_object_get(event, "event"));
    int finished = !strcmp(what0, "pod-finished");
    if (!strcmp(what0, "exited"))
        SL_FAULT("shim-exited"); /* the test build holds this push (a slow answer) */
    if (!strcmp(what0, "started"))
        SL_FAULT("shim-started"); /* the same for a container's start */
    if (finished && finish_verdict(c, ns, name, uid, suid, job, rank, gang) < 0) {
        free(ns);
        free(name);
        free(suid);
        errno = EINVAL;
        return sl_errprintf(err, "pod-finished refused: the pod's Slurm job has not started");
    }
    pthread_mutex_lock(&c->lock);
    p = ctl_pod_find(c, uid);
    int shim_done = p ? p->shim_done || finished : 0;
    pthread_mutex_unlock(&c->lock);
    if (job && !strcmp(what0, "started"))
        started_before_poll(c, ns, name, uid, suid, job, shim_done, rank);
    pthread_mutex_t *mu = shim_mu(c, uid);
    pthread_mutex_lock(mu);
    ctl_shimseq_pos_t pos = shim_pos(c, uid), at = ctl_shimseq_of(event);
    ctl_shimseq_verdict_t v = ctl_shimseq_classify(pos, at);
    int r = 0;
    if (v == CTL_SHIMSEQ_GAP && !job_not_started(job, suid)) {
        /* (while the job pends there is no shim: such lines are not its) */
        ctl_shimseq_pos_t from = {at.pid, at.pid == pos.pid ? pos.seq : 0};
        int n = replay_events(c, ns, name, uid, job, from, (ctl_shimseq_pos_t){at.pid, at.seq - 1},
                              1, NULL);
        sl_info("pod %s/%s: shim event %lld of run %lld came after %lld.%lld: %d missed "
                "replayed from events.jsonl",
                ns, name, at.seq, at.pid, pos.pid, pos.seq, n);
    }
    if (v != CTL_SHIMSEQ_DUP) {
        /* p->terminal is the controller's: it reads the stored phase from
         * the change log */
        r = apply_shim_event(c, ns, name, uid, job, event, 1, NULL, err);
        if (r == 0 && at.pid > 0)
            set_shim_pos(c, uid, at);
    }
    pthread_mutex_unlock(mu);
    free(ns);
    free(name);
    free(suid);
    return r;
}

/* ---- create / destroy ---------------------------------------------------------- */

/* The pods root and the Jobs' task index in it 0711, also when an older
 * slurmlinkd (or the daemon's start) made them 0755: the jobs' users reach
 * their own folders by path, and listing would show every tenant's
 * namespaces, pods and Jobs' uids. */
int ctl_pods_root_make(const char *root, sl_error_t *err)
{
    if (sl_mkdir_p(root, 0711, err) < 0)
        return -1;
    if (chmod(root, 0711) < 0)
        return sl_errprintf(err, "chmod %s: %s", root, strerror(errno));
    char *tasks = sl_xasprintf("%s/.job-tasks", root);
    int rc = 0;
    if (chmod(tasks, 0711) < 0 && errno != ENOENT)
        rc = sl_errprintf(err, "chmod %s: %s", tasks, strerror(errno));
    free(tasks);
    return rc;
}

static char *dup_or(const char *s, const char *def)
{
    return s ? sl_xstrdup(s) : def ? sl_xstrdup(def) : NULL;
}

void sl_ctl_set_policy(sl_ctl_t *c, struct sl_authz_policy *policy)
{
    atomic_store(&c->policy, policy);
}

sl_ctl_t *sl_ctl_create(sl_store_t *store, const sl_ctl_opts_t *o, sl_error_t *err)
{
    sl_ctl_t *c = sl_xcalloc(1, sizeof(*c));
    c->kind_rv = sl_xcalloc(ctl_kinds_count() + 1, sizeof(*c->kind_rv));
    c->store = store;
    c->started_ns = sl_kube_now_ns();
    c->o.state_dir = dup_or(o->state_dir, ".");
    c->o.pods_root = dup_or(o->pods_root, NULL);
    if (!c->o.pods_root)
        c->o.pods_root = sl_xasprintf("%s/pods", c->o.state_dir);
    c->o.shim_path = dup_or(o->shim_path, "slurmlink-shim");
    c->o.report_url = dup_or(o->report_url, NULL);
    c->o.report_ca_file = dup_or(o->report_ca_file, NULL);
    c->o.run_as = dup_or(o->run_as, "nobody");
    c->o.image_store = dup_or(o->image_store, NULL);
    c->o.image_credentials = dup_or(o->image_credentials, NULL);
    c->o.image_ca_dir = dup_or(o->image_ca_dir, NULL);
    c->o.image_store_limit = o->image_store_limit;
    c->o.image_max_size = o->image_max_size;
    c->o.image_unpack_user = dup_or(o->image_unpack_user, NULL);
    c->o.image_max_pulls = o->image_max_pulls > 0 ? o->image_max_pulls : 8;
    c->o.image_max_pulls_per_ns = o->image_max_pulls_per_ns > 0 ? o->image_max_pulls_per_ns : 4;
    c->o.image_manifest_timeout = o->image_manifest_timeout > 0 ? o->image_manifest_timeout : 30;
    c->pullpool = ctl_pullpool_create(c->o.image_max_pulls, c->o.image_max_pulls_per_ns);
    c->o.create_pods = o->create_pods;
    c->o.create_pods_arg = o->create_pods_arg;
    c->o.default_runtime = dup_or(o->default_runtime, NULL);
    c->o.gpu_types = dup_or(o->gpu_types, NULL);
    c->o.gpu_shared = dup_or(o->gpu_shared, NULL);
    c->o.slurm_conf = dup_or(o->slurm_conf, getenv("SLURM_CONF"));
    c->o.poll_ms = o->poll_ms > 0 ? o->poll_ms : 250;
    atomic_store(&c->create_accounts, o->create_accounts);
    c->o.node_poll_ms = o->node_poll_ms > 0 ? o->node_poll_ms : 2000;
    c->o.submit_workers = o->submit_workers > 0 ? o->submit_workers : CTL_SUBMIT_WORKERS;
    pthread_mutex_init(&c->lock, NULL);
    for (int i = 0; i < CTL_SHIM_STRIPES; i++)
        pthread_mutex_init(&c->shim_mu[i], NULL);
    c->slurm_ok = 1;

    struct passwd *pw = getpwnam(c->o.run_as);
    if (!pw) {
        errno = ENOENT;
        sl_errprintf(err, "--run-as: no Unix user named \"%s\"", c->o.run_as);
        goto fail;
    }
    c->uid = pw->pw_uid;
    c->gid = pw->pw_gid;
    c->user_home = sl_xstrdup(pw->pw_dir ? pw->pw_dir : "/");
    char *bin_dir = NULL;
    if (sl_slurm_bin_dir(o->slurm_bin_dir, &bin_dir, err) < 0)
        goto fail;
    c->o.slurm_bin_dir = bin_dir;
    atomic_init(&c->policy, o->policy);
    if (ctl_pods_root_make(c->o.pods_root, err) < 0 ||
        !(c->shim_key = sl_auth_shim_key_load(c->o.state_dir, err)))
        goto fail;
    ctl_submit_start(c);
    c->remover = ctl_remover_start();
    if (!c->remover)
        sl_warn("the pod folder remover could not start: the controller thread removes them");
    c->killer = ctl_killer_start(CTL_KILLER_THREADS, c->remover);
    if (!c->killer)
        sl_warn("the job killer could not start: the controller thread cancels removed pods' jobs");
    if (ctl_account_start(c) < 0)
        sl_warn("the namespace account thread could not start: accounts are made at pods only");
    if (pthread_create(&c->thread, NULL, ctl_main, c) != 0) {
        sl_errprintf(err, "cannot start the controller thread");
        goto fail;
    }
    c->running = 1;
    return c;
fail:
    sl_ctl_destroy(c);
    return NULL;
}

void sl_ctl_destroy(sl_ctl_t *c)
{
    if (!c)
        return;
    if (c->running) {
        atomic_store(&c->stop, 1);
        sl_store_kick(c->store);
        pthread_join(c->thread, NULL);
    }
    ctl_account_stop(c);
    ctl_submit_stop(c); /* a submission in flight is stored, or adopted next time */
    ctl_own_free(c);
    json_decref(c->create_backoff);
    ctl_killer_stop(c->killer);   /* removed pods' jobs cancelled, their folders queued */
    ctl_remover_stop(c->remover); /* the folders of pods deleted before the stop go too */
    while (atomic_load(&c->pulls_running) > 0) /* their tools have time limits */
        sl_sleep_ms(50);
    for (int i = 0; i < CTL_HASH; i++)
        while (c->pods[i])
            ctl_pod_remove(c, c->pods[i]->uid);
    ctl_pullpool_destroy(c->pullpool);
    sl_slurm_nodes_free(c->nodes);
    pthread_mutex_destroy(&c->lock);
    for (int i = 0; i < CTL_SHIM_STRIPES; i++)
        pthread_mutex_destroy(&c->shim_mu[i]);
    free((char *)c->o.state_dir);
    free((char *)c->o.pods_root);
    free((char *)c->o.shim_path);
    free((char *)c->o.report_url);
    free((char *)c->o.report_ca_file);
    free((char *)c->o.run_as);
    free((char *)c->o.image_store);
    free((char *)c->o.image_credentials);
    free((char *)c->o.image_ca_dir);
    free((char *)c->o.image_unpack_user);
    free((char *)c->o.default_runtime);
    free((char *)c->o.gpu_types);
    free((char *)c->o.gpu_shared);
    free((char *)c->o.slurm_conf);
    free((char *)c->o.slurm_bin_dir);
    free(c->user_home);
    sl_auth_shim_key_destroy(c->shim_key);
    free(c->kind_rv);
    free(c);
}
