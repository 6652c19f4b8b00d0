/* ctl.c — the controller: its lifecycle and its loop (pod changes from the
 * store, graceful deletion; the Slurm poll is poll.c's, the shim's pushes
 * push.c's, the due list's pass podtable.c's). */
#include "auth/policy.h"
#include "auth/shimtoken.h"
#include "common/argv.h"
#include "common/fault.h"
#include "common/fsutil.h"
#include "common/log.h"
#include "common/proc.h"
#include "common/safefs.h"
#include "common/xalloc.h"
#include "ctl/apply.h"
#include "ctl/internal.h"
#include "ctl/killer.h"
#include "ctl/podstatus.h"
#include "ctl/poll.h"
#include "ctl/pullpool.h"
#include "ctl/push.h"
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
void ctl_finish_delete(sl_ctl_t *c, ctl_pod_t *p)
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
    ctl_finish_delete(c, p);
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

/* returns 1 if p was freed */
int ctl_handle_delete(sl_ctl_t *c, ctl_pod_t *p, json_t *pod)
{
    long long now = sl_now_ms();
    if (p->submitting)
        return 0; /* a worker submits it: its job, if any, is known once it is back */
    json_t *read = NULL;
    if (!p->job_id && p->owner_uid && p->array_job_id) {
        int r = ctl_poll_delete_unrecorded(c, p);
        if (r != 0)
            return r > 0; /* freed, or Slurm did not answer: the next pass asks again */
        /* a running pod now: its status (Scheduled) was just written */
        pod = read = ctl_pod_get(c, p->ns, p->name, p->uid);
    }
    if (!p->job_id || p->job_over) {
        ctl_finish_delete(c, p);
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

/* 1 (the killer tries again later) when slurmctld did not answer */
static int removed_kill(void *arg)
{
    removed_kill_t *k = arg;
    int r = 0;
    if (k->job)
        r = ctl_job_cancel_removed(k->ns, k->name, k->suid, k->job);
    else if (k->arr) /* a Job's pod whose task still waits: it never runs */
        r = ctl_task_kill(k->ns, k->name, k->suid, k->arr, k->task);
    if (r < 0 && sl_slurm_retryable(errno)) {
        sl_info("pod %s/%s: its job is cancelled once slurmctld answers", k->ns, k->name);
        return 1;
    }
    return 0;
}

static void removed_kill_free(void *arg)
{
    removed_kill_t *k = arg;
    free(k->ns);
    free(k->name);
    free(k->suid);
    free(k);
}

void ctl_removed_kill(sl_ctl_t *c, const char *ns, const char *name, const char *uid,
                      const char *suid, uint32_t job, uint32_t arr, uint32_t task)
{
    removed_kill_t *k = sl_xcalloc(1, sizeof(*k));
    k->ns = sl_xstrdup(ns);
    k->name = sl_xstrdup(name);
    k->suid = sl_xstrdup(suid);
    k->job = job;
    k->arr = arr;
    k->task = task;
    ctl_killer_push(c->killer, removed_kill, k, removed_kill_free, ctl_pod_dir(c, ns, name, uid));
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
        /* a worker submits it now: the job it may be given could start at
         * once, so the worker's result cancels it, then removes the folder
         * (sub_apply, submit.c); a folder removed here first failed that
         * job's launch (no stdout file) */
        int submitting = p && p->submitting;
        if (p)
            ctl_pod_remove(c, uid);
        pthread_mutex_unlock(&c->lock);
        /* force-deleted (or removed by us after the job ended): its job
         * cancelled, then its folder removed, on the killer's threads */
        if (!submitting)
            ctl_removed_kill(c, ns, name, uid, suid, job && !over ? job : 0, job ? 0 : arr, task);
        free(suid);
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
     * status someone else wrote; the job is read once more (ctl_due_pass) */
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
        if (!ctl_handle_delete(c, p, pod))
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
    for (ctl_pod_t *p = ctl_pod_next(c, NULL); p; p = ctl_pod_next(c, p))
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

/* ---- the thread ---------------------------------------------------------------- */

#define CTL_SWEEP_AGAIN_MS 5000

static void *ctl_main(void *arg)
{
    sl_ctl_t *c = arg;
    pthread_setname_np(pthread_self(), "sl-ctl"); /* its CPU told apart (top -H, the bench) */
    each_stored_pod(c, "ADDED");
    /* read every job once before submitting anything: a pod whose job was
     * submitted just before a crash is adopted, not submitted again */
    while (!atomic_load(&c->stop)) {
        ctl_poll_jobs(c);
        if (ctl_slurm_ok(c))
            break;
        process_changes(c); /* new pods say they wait for Slurm */
        sl_store_wait(c->store, sl_store_revision(c->store), 1000);
    }
    /* what a crash left of pods deleted before it (sweep.c); again every
     * few seconds while slurmctld does not answer it */
    long long sweep_ms = ctl_sweep_folders(c) < 0 ? sl_now_ms() + CTL_SWEEP_AGAIN_MS : 0;
    ctl_poll_started(c); /* the polls on their periods from now on (poll.c) */
    while (!atomic_load(&c->stop)) {
        if (sweep_ms && sl_now_ms() >= sweep_ms)
            sweep_ms = ctl_sweep_folders(c) < 0 ? sl_now_ms() + CTL_SWEEP_AGAIN_MS : 0;
        /* anything stored after this point wakes the wait below, including a
         * pod created while this iteration runs, and so does a worker's
         * finished submission or pull handed back meanwhile (a kick) */
        sl_store_mark_t seen = sl_store_mark(c->store);
        ctl_submit_collect(c); /* the workers' finished submissions */
        process_changes(c);
        ctl_poll_tick(c); /* the node and job polls, when due (poll.c) */
        ctl_due_pass(c);
        ctl_storage_pass(c); /* claims and their volumes (storage.c) */
        ctl_kinds_pass(c);   /* every registered kind (src/kinds/, follow.c) */
        /* what their deletions that went unread left (jobgc.c) */
        ctl_jobs_collect_gone(c);
        hold_log(c);
        long long wait = ctl_poll_next_ms(c) - sl_now_ms();
        if (wait > 0)
            sl_store_wait_mark(c->store, seen, (int)wait);
    }
    sl_store_log_hold(c->store, 0);
    return NULL;
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
    c->workloads = ctl_workloads_create();
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
    ctl_pull_start(c); /* the pulls' pool (pull.c) */
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
    c->table = ctl_podtable_create();
    c->push = ctl_push_create();
    c->poll = ctl_poll_create();
    c->nodes = ctl_nodes_create();
    c->storage = ctl_storage_create();

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
    c->killer = ctl_killer_start(CTL_KILLER_THREADS, c->remover, 0);
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
    ctl_killer_stop(c->killer);   /* removed pods' jobs cancelled, their folders queued */
    ctl_remover_stop(c->remover); /* the folders of pods deleted before the stop go too */
    ctl_pull_drain(c);            /* the pull workers end (their tools have time limits) */
    ctl_podtable_destroy(c);
    ctl_pull_stop(c);
    ctl_nodes_destroy(c->nodes);
    ctl_poll_destroy(c->poll);
    ctl_storage_destroy(c->storage);
    pthread_mutex_destroy(&c->lock);
    ctl_push_destroy(c->push);
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
    ctl_workloads_destroy(c->workloads);
    free(c);
}
