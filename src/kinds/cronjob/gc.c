/* src/kinds/cronjob/gc.c — what the garbage collector does for a CronJob's Jobs:
 * deleted with it (background: once it is gone), orphaned (finalizer
 * orphan: their ownerReference to it removed, they run on), or deleted
 * before it (foregroundDeletion: it stays until they are gone). A Job's
 * deletion takes its pods and arrays with it (src/kinds/job/controller.c). A CronJob
 * that left the store unseen (slurmlinkd down, or its controller behind
 * the change log) has its Jobs deleted when they are found
 * (ctl_cronjobs_collect_gone). */
#include "common/log.h"
#include "ctl/internal.h"
#include "kinds/cronjob/controller.h"
#include "kube/meta.h"

#include <errno.h>
#include <string.h>

static void delete_jobs(sl_ctl_t *c, json_t *jobs)
{
    size_t i;
    json_t *job;
    json_array_foreach(jobs, i, job)
    {
        if (!sl_kube_meta_str(job, "deletionTimestamp"))
            sl_store_delete(c->store, "jobs.batch", sl_kube_namespace(job), sl_kube_name(job), 0,
                            NULL, NULL);
    }
}

void ctl_cronjob_gone(sl_ctl_t *c, json_t *cj, json_t *jobs)
{
    if (!json_array_size(jobs))
        return;
    delete_jobs(c, jobs);
    sl_info("cronjob %s/%s deleted: %zu jobs deleted with it", sl_kube_namespace(cj),
            sl_kube_name(cj), json_array_size(jobs));
}

void ctl_cronjob_finalize(sl_ctl_t *c, json_t *cj, json_t *jobs)
{
    const char *f = ctl_has_finalizer(cj, "orphan")               ? "orphan"
                    : ctl_has_finalizer(cj, "foregroundDeletion") ? "foregroundDeletion"
                                                                  : NULL;
    if (!f)
        return;
    size_t i;
    json_t *job;
    if (!strcmp(f, "orphan")) {
        json_array_foreach(jobs, i, job)
            sl_store_mutate(c->store, "jobs.batch", sl_kube_namespace(job), sl_kube_name(job),
                            ctl_drop_owner_fn, (void *)sl_kube_uid(cj), NULL, NULL);
    } else if (json_array_size(jobs)) {
        delete_jobs(c, jobs);
        return; /* it stays until they are gone */
    }
    json_t *out = NULL;
    const char *ns = sl_kube_namespace(cj), *name = sl_kube_name(cj);
    if (sl_store_mutate(c->store, "cronjobs.batch", ns, name, ctl_drop_finalizer_fn, (void *)f,
                        &out, NULL) == 0 &&
        !json_array_size(sl_kube_path(out, "metadata.finalizers")))
        sl_store_delete(c->store, "cronjobs.batch", ns, name, sl_kube_rv(out), NULL, NULL);
    json_decref(out);
}

void ctl_cronjobs_collect_gone(sl_ctl_t *c)
{
    json_t *cjs = sl_store_list(c->store, "cronjobs.batch", NULL, NULL);
    json_t *jobs = cjs ? sl_store_list(c->store, "jobs.batch", NULL, NULL) : NULL;
    json_t *uids = json_object(), *gone = json_array();
    size_t i;
    json_t *o;
    json_array_foreach(cjs, i, o) json_object_set_new(uids, sl_kube_uid(o), json_true());
    json_array_foreach(jobs, i, o)
    {
        const char *owner = ctl_controller_owner(o, "CronJob", "batch/v1");
        if (owner && !json_object_get(uids, owner))
            json_array_append(gone, o);
    }
    delete_jobs(c, gone);
    json_array_foreach(gone, i, o)
        sl_info("job %s/%s: its CronJob is gone: deleted", sl_kube_namespace(o), sl_kube_name(o));
    json_decref(gone);
    json_decref(uids);
    json_decref(jobs);
    json_decref(cjs);
}
