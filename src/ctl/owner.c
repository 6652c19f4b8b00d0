/* owner.c — is a Slurm job the pod's own? Slurm job ids are sequential and
 * public, and the id on a pod (slurmlink.io/job-id) is only a number the
 * store holds: before slurmlinkd signals, cancels, adopts or follows a job
 * as root, it checks that the job's comment carries the pod's uid
 * (`slurmlink:uid=UID`, set at submission by src/translate; a pod cannot
 * set --comment itself). A job that is not the pod's is logged and left
 * alone.
 *
 * The comment is text any Slurm user can write on a job of her own
 * (sbatch --comment), and a workload's uid can be learnt. So a job whose
 * id slurmlinkd did not record (one found by its comment after a crash
 * between a submission and its record: ctl_job_adoptable) is taken only
 * when it also runs as the workload's own Unix user (ctl_run_uid), a field
 * no tenant can set on a job for another user: a tenant's job carrying
 * another tenant's uid is never adopted. */
#include "auth/policy.h"
#include "common/log.h"
#include "ctl/internal.h"
#include "ctl/podstatus.h"
#include "kube/meta.h"

#include <errno.h>
#include <signal.h>
#include <slurm/slurm_errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ctl_comment_uid(const char *comment, char *uid, size_t len)
{
    const char *p = comment ? strstr(comment, "slurmlink:uid=") : NULL;
    if (!p)
        return 0;
    p += strlen("slurmlink:uid=");
    size_t n = strcspn(p, " ,;");
    if (n == 0 || n >= len)
        return 0;
    memcpy(uid, p, n);
    uid[n] = '\0';
    return 1;
}

int ctl_comment_submission(const char *comment, long long *sub, unsigned *chunk)
{
    const char *k = comment ? strstr(comment, "slurmlink:submission=") : NULL;
    return k && sscanf(k + strlen("slurmlink:submission="), "%lld.%u", sub, chunk) == 2;
}

int ctl_job_owned_by(const sl_slurm_job_t *j, const char *pod_uid)
{
    char uid[128];
    return j && pod_uid && ctl_comment_uid(j->comment, uid, sizeof(uid)) && !strcmp(uid, pod_uid);
}

bool ctl_run_uid(sl_ctl_t *c, json_t *obj, uid_t *uid)
{
    const char *kuser = sl_kube_annotation(obj, SL_ANN_USER);
    struct sl_authz_policy *policy = atomic_load(&c->policy);
    *uid = c->uid;
    if (!policy || !kuser)
        return true;
    gid_t gid;
    char *uname = NULL;
    sl_error_t err = SL_ERROR_INIT;
    int rc = sl_authz_unix_user(policy, kuser, uid, &gid, &uname, &err);
    free(uname);
    return rc == 0;
}

bool ctl_job_adoptable(const sl_slurm_job_t *j, const char *owner_uid, bool known, uid_t user)
{
    return ctl_job_owned_by(j, owner_uid) && known && j->user_id == (uint32_t)user;
}

/* 1: the pod's own; 0: someone else's (logged); -1: gone or unknown (errno).
 * *live (when not NULL): 1 when a record of it is not over yet. */
static int owned(const char *ns, const char *name, const char *pod_uid, uint32_t job_id, int *live)
{
    sl_slurm_jobs_t *jl = NULL;
    sl_error_t err = SL_ERROR_INIT;
    if (sl_slurm_job_load(job_id, &jl, &err) < 0) {
        int e = errno;
        if (e != ENOENT)
            sl_warn("pod %s/%s: cannot check Slurm job %u: %s", ns, name, job_id, err.text);
        errno = e;
        return -1;
    }
    /* one job; or the records of one array (its tasks), every one of them
     * carrying the uid (a Job's, src/kinds/job/controller.c) */
    size_t n = sl_slurm_jobs_count(jl);
    int mine = n >= 1;
    for (size_t i = 0; i < n; i++) {
        const sl_slurm_job_t *j = sl_slurm_jobs_at(jl, i);
        mine &= ctl_job_owned_by(j, pod_uid) && (n == 1 || j->array_job_id == job_id);
        if (live && ctl_job_active(j->state))
            *live = 1;
    }
    if (!mine) /* (the comment itself is not logged: it is anyone's text) */
        sl_warn("pod %s/%s: Slurm job %u is not this pod's (its comment does not carry "
                "slurmlink:uid=%s): left alone",
                ns, name, job_id, pod_uid);
    sl_slurm_jobs_free(jl);
    if (!mine)
        errno = EPERM;
    return mine;
}

/* a failed signal or cancel logged (one already over is not a failure);
 * errno kept for the caller */
static void warn_failed(const char *ns, const char *name, int r, const sl_error_t *err)
{
    int e = errno;
    if (r < 0 && e != ESLURM_ALREADY_DONE)
        sl_warn("pod %s/%s: %s", ns, name, err->text);
    errno = e;
}

int ctl_job_kill(const char *ns, const char *name, const char *pod_uid, uint32_t job_id, int sig)
{
    if (owned(ns, name, pod_uid, job_id, NULL) != 1)
        return -1;
    sl_error_t err = SL_ERROR_INIT;
    int r = sig == SIGKILL ? sl_slurm_cancel(job_id, &err) : sl_slurm_signal(job_id, sig, 1, &err);
    warn_failed(ns, name, r, &err);
    return r;
}

int ctl_job_cancel_removed(const char *ns, const char *name, const char *pod_uid, uint32_t job_id)
{
    int live = 0;
    if (owned(ns, name, pod_uid, job_id, &live) != 1)
        return -1;
    if (!live)
        return 0; /* over already (cancelled by its user, ended): one RPC, not two */
    sl_error_t err = SL_ERROR_INIT;
    int r = sl_slurm_cancel(job_id, &err);
    warn_failed(ns, name, r, &err);
    return r;
}

int ctl_task_kill(const char *ns, const char *name, const char *owner_uid, uint32_t array_job,
                  uint32_t task)
{
    if (owned(ns, name, owner_uid, array_job, NULL) != 1)
        return -1;
    sl_error_t err = SL_ERROR_INIT;
    int r = sl_slurm_cancel_task(array_job, task, &err);
    if (!(r < 0 && errno == ESLURM_INVALID_JOB_ID))
        warn_failed(ns, name, r, &err);
    return r;
}

bool ctl_has_finalizer(json_t *obj, const char *f)
{
    size_t i;
    json_t *x;
    json_array_foreach(sl_kube_path(obj, "metadata.finalizers"), i, x)
    {
        if (json_is_string(x) && !strcmp(json_string_value(x), f))
            return true;
    }
    return false;
}

int ctl_drop_finalizer_fn(json_t *obj, void *arg)
{
    json_t *fin = sl_kube_path(obj, "metadata.finalizers");
    size_t i;
    json_t *x;
    json_array_foreach(fin, i, x)
    {
        if (json_is_string(x) && !strcmp(json_string_value(x), arg)) {
            json_array_remove(fin, i);
            return 1;
        }
    }
    return 0;
}

int ctl_drop_owner_fn(json_t *obj, void *arg)
{
    json_t *refs = sl_kube_path(obj, "metadata.ownerReferences");
    size_t i;
    json_t *r;
    json_array_foreach(refs, i, r)
    {
        const char *uid = json_string_value(json_object_get(r, "uid"));
        if (uid && !strcmp(uid, arg)) {
            json_array_remove(refs, i);
            if (!json_array_size(refs))
                json_object_del(sl_kube_meta(obj), "ownerReferences");
            return 1;
        }
    }
    return 0;
}

const char *ctl_controller_owner(json_t *obj, const char *kind, const char *api_version)
{
    size_t i;
    json_t *r;
    json_array_foreach(sl_kube_path(obj, "metadata.ownerReferences"), i, r)
    {
        const char *k = json_string_value(json_object_get(r, "kind"));
        const char *av = json_string_value(json_object_get(r, "apiVersion"));
        if (json_is_true(json_object_get(r, "controller")) && k && av && !strcmp(k, kind) &&
            !strcmp(av, api_version))
            return json_string_value(json_object_get(r, "uid"));
    }
    return NULL;
}
