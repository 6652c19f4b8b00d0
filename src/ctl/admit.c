/* admit.c — the pods the controllers make for a workload (a Job, a
 * CronJob's Job, a PyTorchJob, an MPIJob) go through the API's admission
 * of a pod create, as a tenant's own pods do (sl_ctl_opts_t.create_pods,
 * sl_api_create_pods): the creator's identity, the namespace's
 * ResourceQuotas. A refused creation is retried with a back-off per
 * workload (kube's controllers do the same after FailedCreate), so a Job
 * under its quota tries again as its pods finish, without writing an
 * Event on every pass. */
#include "common/log.h"
#include "common/proc.h"
#include "common/xalloc.h"
#include "ctl/internal.h"
#include "kube/meta.h"
#include "kube/status.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define BACKOFF_FIRST_MS 1000LL
#define BACKOFF_MAX_MS 30000LL

/* a pod without a name: PREFIX and five random characters (generateName) */
static void name_pod(json_t *pod)
{
    const char *gen = sl_kube_meta_str(pod, "generateName");
    if (!gen || (sl_kube_name(pod) && *sl_kube_name(pod)))
        return;
    char sfx[6], *name;
    sl_kube_rand_suffix(sfx, 5);
    name = sl_xasprintf("%s%s", gen, sfx);
    sl_kube_meta_set_str(pod, "name", name);
    free(name);
}

/* without an API (unit tests): each pod stored as it is */
static int store_plain(sl_ctl_t *c, json_t *pods, sl_error_t *err)
{
    size_t i;
    json_t *pod;
    json_array_foreach(pods, i, pod)
    {
        int rc = -1;
        for (int t = 0; t < 8 && rc < 0; t++) {
            name_pod(pod);
            rc = sl_store_create(c->store, "pods", pod, err);
            if (rc < 0 && (errno != EEXIST || !sl_kube_meta_str(pod, "generateName")))
                return -1;
            if (rc < 0)
                sl_kube_meta_set_str(pod, "name", NULL);
        }
        if (rc < 0)
            return -1;
    }
    return 0;
}

int ctl_pods_create(sl_ctl_t *c, json_t *pods, bool *forbidden, sl_error_t *err)
{
    *forbidden = false;
    if (!c->o.create_pods)
        return store_plain(c, pods, err);
    sl_error_t e = SL_ERROR_INIT;
    int rc = c->o.create_pods(c->o.create_pods_arg, pods, &e);
    if (rc < 0) {
        int saved = errno;
        /* refused by admission (a quota, the creator's identity, a field,
         * the namespace), not a store failure */
        *forbidden = e.kind != SL_ERR_GENERIC && e.kind != SL_ERR_INTERNAL;
        char *m = sl_kube_error_message(&e, "pods", "", "Pod",
                                        sl_kube_name(json_array_get(pods, 0)));
        sl_errprintf(err, "%s", m);
        free(m);
        errno = saved;
    }
    sl_error_clear(&e);
    return rc;
}

bool ctl_create_waits(sl_ctl_t *c, const char *uid)
{
    json_t *b = json_object_get(c->create_backoff, uid);
    return b && sl_now_ms() < json_integer_value(json_array_get(b, 0));
}

void ctl_create_refused(sl_ctl_t *c, const char *uid)
{
    if (!c->create_backoff)
        c->create_backoff = json_object();
    json_t *b = json_object_get(c->create_backoff, uid);
    long long d = b ? json_integer_value(json_array_get(b, 1)) * 2 : BACKOFF_FIRST_MS;
    if (d > BACKOFF_MAX_MS)
        d = BACKOFF_MAX_MS;
    json_object_set_new(c->create_backoff, uid, json_pack("[I, I]", (json_int_t)(sl_now_ms() + d),
                                                          (json_int_t)d));
}

void ctl_create_admitted(sl_ctl_t *c, const char *uid)
{
    if (c->create_backoff)
        json_object_del(c->create_backoff, uid);
}
