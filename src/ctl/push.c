/* push.c — the shim's events, pushed (sl_ctl_shim_event, on the API's
 * threads) or replayed from the pod folder (push.h). */
#include "ctl/push.h"
#include "auth/shimtoken.h"
#include "common/fault.h"
#include "common/log.h"
#include "common/proc.h"
#include "common/safefs.h"
#include "common/xalloc.h"
#include "ctl/apply.h"
#include "ctl/podstatus.h"
#include "ctl/shimseq.h"
#include "kube/meta.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CTL_EVENTS_MAX (16u * 1024 * 1024) /* events.jsonl: a few hundred bytes a transition */

/* the stripes (push.h) */
struct ctl_push {
    pthread_mutex_t mu[CTL_SHIM_STRIPES];
};

ctl_push_t *ctl_push_create(void)
{
    ctl_push_t *s = sl_xcalloc(1, sizeof(*s));
    for (int i = 0; i < CTL_SHIM_STRIPES; i++)
        pthread_mutex_init(&s->mu[i], NULL);
    return s;
}

void ctl_push_destroy(ctl_push_t *s)
{
    if (!s)
        return;
    for (int i = 0; i < CTL_SHIM_STRIPES; i++)
        pthread_mutex_destroy(&s->mu[i]);
    free(s);
}

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
 * the replay and the apply run under the pod's stripe of c->push, so two
 * threads never apply one pod's events at once. Lock order: the stripe, then
 * c->lock. */

static pthread_mutex_t *shim_mu(sl_ctl_t *c, const char *uid)
{
    unsigned h = 2166136261u;
    for (const unsigned char *s = (const unsigned char *)uid; *s; s++)
        h = (h ^ *s) * 16777619u;
    return &c->push->mu[h % CTL_SHIM_STRIPES];
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
    ctl_apply_t a = {.event = ev};
    json_t *out = NULL;
    int r = ctl_pod_mutate(c, ns, name, uid, ctl_apply_fn, &a, &out, err);
    if (r == 0) {
        if (fresh)
            push_events(c, ev, out, ns, name);
        ctl_transition_events(c, &a, out, job);
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
void ctl_push_replay_files(sl_ctl_t *c, ctl_pod_t *p)
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
        ctl_view_of(c, sl_slurm_jobs_at(jl, 0), shim_done, &v, node, ip, rank, NULL, rank > 0);
        ctl_apply_view(c, ns, name, uid, &v, 0, NULL, NULL);
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
            ctl_view_of(c, j, 1, &v, node, ip, rank, NULL, gang);
            ctl_apply_view(c, ns, name, uid, &v, 0, NULL, NULL);
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
