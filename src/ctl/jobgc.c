/* jobgc.c — Jobs, PyTorchJobs and MPIJobs that left the store unseen
 * (internal.h, ctl_jobs_collect_gone).
 *
 * Their controllers end a deleted object's work when they read its DELETED
 * change (src/kinds/job/controller.c job_gone, src/kinds/kubeflow/controller.c tj_gone). They read
 * none for one deleted while slurmlinkd was down (a crash between the deletion and its reading),
 * nor for one whose change the log trimmed before they read it (behind the
 * change log). At start-up and after falling behind they look instead for
 * what such objects left, as kube's garbage collector does for owners that
 * are gone:
 *   - a pod whose controller ownerReference names a Job, PyTorchJob,
 *     MPIJob or a registered kind's object (src/kinds/) that is not stored is deleted (the pod
 * controller then ends its job or task); a pod a Job orphaned carries no such reference and runs
 * on;
 *   - an active array task whose comment carries the uid of a Job that is
 *     not stored, and that no pod holds, is cancelled;
 *   - the task scripts and links of one that is not stored
 *     (PODS/.job-tasks/UID, jobtask.h: a Job's, or a PyTorchJob's node
 *     range) are removed. */
#include "common/log.h"
#include "common/xalloc.h"
#include "ctl/internal.h"
#include "ctl/jobtask.h"
#include "ctl/podstatus.h"
#include "kinds/kind.h"
#include "kube/meta.h"

#include <dirent.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

typedef struct gc {
    json_t *uids; /* the stored owners' uids (object keys; uids are unique across kinds) */
    json_t *pods; /* the pods to delete: [ns, name, uid] */
} gc_t;

/* the uid of the pod's controller ownerReference to a registered kind
 * that owns pods (src/kinds/kind.h), or NULL */
static const char *owner_uid(json_t *pod)
{
    const char *uid = NULL;
    for (const sl_kind_t *const *k = sl_kinds; *k && !uid; k++) {
        char av[128];
        if ((*k)->owns_pods)
            uid = ctl_controller_owner(pod, (*k)->api.kind,
                                       api_resource_api_version(&(*k)->api, av, sizeof av));
    }
    return uid;
}

static int owned_by_gone(void *arg, const char *text, size_t len, const sl_store_item_t *it)
{
    (void)it;
    gc_t *g = arg;
    json_t *pod = json_loadb(text, len, 0, NULL);
    const char *owner = owner_uid(pod);
    if (owner && !json_object_get(g->uids, owner) && !sl_kube_meta_str(pod, "deletionTimestamp"))
        json_array_append_new(g->pods, json_pack("[sss]", sl_kube_namespace(pod), sl_kube_name(pod),
                                                 sl_kube_uid(pod)));
    json_decref(pod);
    return 0;
}

static void delete_pods(sl_ctl_t *c, gc_t *g)
{
    sl_store_list_each(c->store, "pods", NULL, owned_by_gone, g, NULL);
    size_t i;
    json_t *k;
    json_array_foreach(g->pods, i, k)
    {
        const char *ns = json_string_value(json_array_get(k, 0));
        const char *name = json_string_value(json_array_get(k, 1));
        if (ctl_pod_mutate(c, ns, name, json_string_value(json_array_get(k, 2)),
                           ctl_pod_mark_deleted_fn, NULL, NULL, NULL) == 0)
            sl_info("pod %s/%s: its owner is gone: deleted", ns, name);
    }
}

static void cancel_tasks(sl_ctl_t *c, gc_t *g)
{
    sl_slurm_jobs_t *jobs = NULL;
    if (sl_slurm_jobs_load(NULL, &jobs, NULL) < 0)
        return;
    for (size_t i = 0; i < sl_slurm_jobs_count(jobs); i++) {
        const sl_slurm_job_t *j = sl_slurm_jobs_at(jobs, i);
        char uid[128];
        if (!j->array_job_id || !strstr(j->comment, "slurmlink:submission=") ||
            !ctl_comment_uid(j->comment, uid, sizeof(uid)) || !ctl_job_active(j->state) ||
            json_object_get(g->uids, uid))
            continue;
        pthread_mutex_lock(&c->lock);
        bool held = ctl_pod_by_task(c, j->array_job_id, j->array_task_id) != NULL ||
                    ctl_pod_by_job(c, j->job_id) != NULL;
        pthread_mutex_unlock(&c->lock);
        if (!held && sl_slurm_cancel(j->job_id, NULL) == 0)
            sl_info("Slurm job %u: an array task of Job uid %s, which is gone: cancelled",
                    j->job_id, uid);
    }
    sl_slurm_jobs_free(jobs);
}

static void remove_task_dirs(sl_ctl_t *c, gc_t *g)
{
    char *root = sl_xasprintf("%s/.job-tasks", c->o.pods_root);
    DIR *d = opendir(root);
    free(root);
    if (!d)
        return;
    json_t *gone = json_array();
    struct dirent *e;
    while ((e = readdir(d)))
        if (e->d_name[0] != '.' && !json_object_get(g->uids, e->d_name))
            json_array_append_new(gone, json_string(e->d_name));
    closedir(d);
    size_t i;
    json_t *u;
    json_array_foreach(gone, i, u) ctl_jobtask_remove(c->o.pods_root, json_string_value(u));
    json_decref(gone);
}

/* the stored owners' uids into g->uids; -1 when the store did not answer
 * (then nothing is known to be gone) */
static int stored_owners(sl_ctl_t *c, gc_t *g)
{
    for (const sl_kind_t *const *k = sl_kinds; *k; k++) {
        json_t *all = sl_store_list(c->store, (*k)->api.store_name, NULL, NULL);
        if (!all)
            return -1;
        size_t i;
        json_t *o;
        json_array_foreach(all, i, o) json_object_set_new(g->uids, sl_kube_uid(o), json_true());
        json_decref(all);
    }
    return 0;
}

void ctl_jobs_collect_gone(sl_ctl_t *c)
{
    if (!ctl_workloads_gone_take(c))
        return;
    gc_t g = {.uids = json_object(), .pods = json_array()};
    if (stored_owners(c, &g) < 0) {
        json_decref(g.uids);
        json_decref(g.pods);
        return;
    }
    delete_pods(c, &g);
    cancel_tasks(c, &g);
    remove_task_dirs(c, &g);
    json_decref(g.uids);
    json_decref(g.pods);
}
